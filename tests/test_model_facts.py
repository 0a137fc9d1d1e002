"""Model facts derived from config.json as SGLang derives them: real checkpoints' configs, then each rule.

The real configs are in tests/data/model-configs/ (their sources: README.md there).
test_sglang_derives_the_same runs SGLang's own ModelConfig on them in the judge
environment, when it is built.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import oracle
from autofix.knowledge.modelfacts import (
    EXPERT_KEYS, EXPERTS_USE_INTERMEDIATE_SIZE, ModelFacts, Quantization, context_length, derive, describe, dsa,
    text_config,
)
from autofix.knowledge.models import resolve_model

CONFIGS = Path(__file__).resolve().parent / "data" / "model-configs"
SGLANG_SIDE = Path(__file__).resolve().with_name("sglang_model_facts.py")


def _real(name: str) -> ModelFacts:
    path = CONFIGS / name / "config.json"
    return derive(json.loads(path.read_text()), str(path))


EXPECTED = {
    "deepseek-ai--DeepSeek-V3": dict(
        architecture="DeepseekV3ForCausalLM", model_type="deepseek_v3", num_attention_heads=128,
        num_key_value_heads=128, head_dim=None, kv_lora_rank=512, qk_rope_head_dim=64, hidden_size=7168,
        intermediate_size=18432, moe_intermediate_size=2048, num_experts=256,
        quantization=Quantization("fp8", (128, 128), "e4m3"), context_length=163840),
    "Qwen--Qwen3-8B": dict(
        architecture="Qwen3ForCausalLM", model_type="qwen3", num_attention_heads=32, num_key_value_heads=8,
        head_dim=128, kv_lora_rank=None, hidden_size=4096, intermediate_size=12288, moe_intermediate_size=None,
        num_experts=None, quantization=None, context_length=40960, num_hidden_layers=36),
    "meta-llama--Llama-3.1-8B-Instruct": dict(
        architecture="LlamaForCausalLM", model_type="llama", num_attention_heads=32, num_key_value_heads=8,
        head_dim=128, hidden_size=4096, intermediate_size=14336, num_experts=None, quantization=None,
        context_length=131072),  # llama3 rope scaling: no factor
    "openai--gpt-oss-120b": dict(
        architecture="GptOssForCausalLM", model_type="gpt_oss", num_attention_heads=64, num_key_value_heads=8,
        head_dim=64, hidden_size=2880, intermediate_size=2880, moe_intermediate_size=2880, num_experts=128,
        quantization=Quantization("mxfp4", None, None), context_length=131072),  # yarn with its original length
    "mistralai--Mixtral-8x7B-v0.1": dict(
        architecture="MixtralForCausalLM", model_type="mixtral", num_attention_heads=32, num_key_value_heads=8,
        head_dim=128, hidden_size=4096, intermediate_size=14336, moe_intermediate_size=14336, num_experts=8,
        quantization=None, context_length=32768),
    "LGAI-EXAONE--EXAONE-4.0-32B": dict(
        architecture="Exaone4ForCausalLM", model_type="exaone4", num_attention_heads=40, num_key_value_heads=8,
        head_dim=128, v_head_dim=128, hidden_size=5120, num_experts=None, quantization=None,
        context_length=131072, sliding_window_pattern="LLLG"),  # llama3 rope scaling: no factor
    "Qwen--Qwen2.5-VL-7B-Instruct": dict(
        architecture="Qwen2_5_VLForConditionalGeneration", model_type="qwen2_5_vl", num_attention_heads=28,
        num_key_value_heads=4, head_dim=128, v_head_dim=128, hidden_size=3584, intermediate_size=18944,
        num_experts=None, quantization=None, context_length=128000),  # mrope scaling: no factor
    "Qwen--Qwen3.5-9B": dict(
        architecture="Qwen3_5ForConditionalGeneration", model_type="qwen3_5", num_attention_heads=16,
        num_key_value_heads=4, head_dim=256, hidden_size=4096, intermediate_size=12288, num_experts=None,
        quantization=None, context_length=262144, num_hidden_layers=32),  # text_config; rope without a factor
    "meta-llama--Llama-3.2-90B-Vision-Instruct": dict(
        architecture="MllamaForConditionalGeneration", model_type="mllama", num_attention_heads=64,
        num_key_value_heads=8, head_dim=128, v_head_dim=128, hidden_size=8192, intermediate_size=28672,
        num_experts=None, quantization=None, context_length=131072, num_hidden_layers=100,
        sliding_window_pattern=None),  # text_config; llama3 rope
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_configs(name: str) -> None:
    facts = _real(name)
    assert {key: getattr(facts, key) for key in EXPECTED[name]} == EXPECTED[name]
    assert facts.source == str(CONFIGS / name / "config.json")


def test_every_real_config_is_listed_with_its_source() -> None:
    readme = (CONFIGS / "README.md").read_text()
    folders = sorted(p.name for p in CONFIGS.iterdir() if p.is_dir())
    assert folders == sorted(EXPECTED)
    assert all(f"`{name}/config.json`" in readme for name in folders)


def test_mla_comes_from_sglangs_table_per_release() -> None:
    deepseek, qwen = _real("deepseek-ai--DeepSeek-V3"), _real("Qwen--Qwen3-8B")
    assert resolve_model("/ckpt/a", lambda path: deepseek, "0.5.23").mla is True
    assert resolve_model("/ckpt/b", lambda path: qwen, "0.5.17").mla is False


# -- get_hf_text_config --------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "picked"),
    [
        ({"text_config": {"n": 1}}, {"n": 1}),
        ({"language_config": {"n": 2}, "text_config": {"n": 1}}, {"n": 2}),
        ({"llm_config": {"n": 3}, "language_config": {"n": 2}}, {"n": 3}),
        ({"thinker_config": {"text_config": {"n": 4}}, "llm_config": {"n": 3}}, {"n": 4}),
        ({"thinker_config": {"n": 5}}, {"n": 5}),
    ],
    ids=["text_config", "language-over-text", "llm-over-language", "thinker-text", "thinker-alone"],
)
def test_text_config_is_picked_in_sglangs_order(config: dict, picked: dict) -> None:
    assert text_config(config) == picked


def test_llava_causal_lm_is_read_whole() -> None:
    config = {"architectures": ["LlavaLlamaForCausalLM"], "text_config": {"n": 1}, "num_attention_heads": 32}
    assert text_config(config) is config


def test_nested_text_config_gives_the_shapes_and_the_top_level_the_rest() -> None:
    config = {
        "architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
        "quantization_config": {"quant_method": "AWQ"},
        "text_config": {"num_attention_heads": 28, "num_key_value_heads": 4, "hidden_size": 3584,
                        "max_position_embeddings": 128000},
    }
    facts = derive(config, "c")
    assert (facts.num_attention_heads, facts.num_key_value_heads, facts.head_dim) == (28, 4, 128)
    assert (facts.model_type, facts.quantization, facts.context_length) == ("qwen2_5_vl", Quantization("awq"), 128000)


# -- get_total_num_kv_heads and head_dim ------------------------------------------


@pytest.mark.parametrize(
    ("config", "kv_heads"),
    [
        ({"num_attention_heads": 16}, 16),
        ({"num_attention_heads": 16, "num_kv_heads": 2}, 2),
        ({"num_attention_heads": 32, "multi_query_group_num": 2}, 2),
        ({"num_attention_heads": 16, "multi_query": True}, 1),
        ({"model_type": "falcon", "new_decoder_architecture": True, "multi_query": True, "num_kv_heads": 8}, 8),
        ({"model_type": "mpt", "attn_config": {"kv_n_heads": 4}}, 4),
        ({"model_type": "dbrx", "attn_config": {}}, None),
        ({"model_type": "nemotron-nas", "num_attention_heads": 64}, None),
        ({}, None),
    ],
    ids=["no-kv-key", "num_kv_heads", "chatglm", "multi-query", "falcon-new-decoder", "mpt", "dbrx-unknown",
         "nemotron-nas", "nothing"],
)
def test_kv_heads(config: dict, kv_heads: int | None) -> None:
    assert derive(config, "c").num_key_value_heads == kv_heads


@pytest.mark.parametrize(
    ("config", "head_dim"),
    [
        ({"hidden_size": 4096, "num_attention_heads": 32, "head_dim": 64}, 64),
        ({"hidden_size": 4096, "num_attention_heads": 32}, 128),
        ({"hidden_size": 4096}, None),
        ({"hidden_size": 7168, "num_attention_heads": 128, "kv_lora_rank": 512}, None),
    ],
    ids=["given", "hidden-over-heads", "no-heads", "mla-checkpoint"],
)
def test_head_dim(config: dict, head_dim: int | None) -> None:
    assert derive(config, "c").head_dim == head_dim


# -- get_context_length -------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "length"),
    [
        ({"max_position_embeddings": 4096}, 4096),
        ({"seq_length": 8192, "max_position_embeddings": 4096}, 8192),
        ({"max_position_embeddings": 4096, "rope_scaling": {"type": "linear", "factor": 4.0}}, 16384),
        ({"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "dynamic", "factor": 2}}, 8192),
        ({"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, 131072),
        ({"max_position_embeddings": 4096,
          "rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 1024}}, 4096),
        ({"max_position_embeddings": 4096, "rope_scaling": {"type": "yarn", "factor": 4}}, None),
        ({"max_position_embeddings": 4096, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}}, 4096),
        ({"max_position_embeddings": 4096, "rope_scaling": None}, 4096),
        ({"hidden_size": 4096}, None),
        ({"max_position_embeddings": "4096"}, None),
    ],
    ids=["max_position_embeddings", "seq_length-first", "linear", "dynamic", "llama3", "yarn-with-original",
         "yarn-without-original", "rope-parameters", "rope-null", "no-key", "not-a-number"],
)
def test_context_length(config: dict, length: int | None) -> None:
    assert context_length(config) == length


# -- the checkpoint's quantization --------------------------------------------------


@pytest.mark.parametrize(
    ("config", "quantization"),
    [
        ({}, None),
        ({"quantization_config": {"quant_method": "FP8", "weight_block_size": [128, 128], "fmt": "e4m3"}},
         Quantization("fp8", (128, 128), "e4m3")),
        ({"compression_config": {"quant_method": "compressed-tensors"}}, Quantization("compressed-tensors")),
        ({"quantization_config": {"quant_algo": "FP8"}}, Quantization(None)),
        ({"quantization_config": {"quant_method": "fp8", "weight_block_size": ["a", 1]}}, Quantization("fp8")),
    ],
    ids=["none", "block-fp8", "compressed-tensors", "modelopt-no-method", "bad-block"],
)
def test_quantization(config: dict, quantization: Quantization | None) -> None:
    assert derive(config, "c").quantization == quantization


def test_mixture_of_experts_sizes() -> None:
    qwen_moe = {"architectures": ["Qwen3MoeForCausalLM"], "num_experts": 128, "moe_intermediate_size": 768,
                "intermediate_size": 6144}
    facts = derive(qwen_moe, "c")
    assert (facts.num_experts, facts.moe_intermediate_size) == (128, 768)
    # A dense model's intermediate size is no expert size.
    assert derive({"architectures": ["LlamaForCausalLM"], "intermediate_size": 14336}, "c").moe_intermediate_size is None


def test_dsa_is_known_only_where_every_release_agrees() -> None:
    qwen, deepseek = _real("Qwen--Qwen3-8B"), _real("deepseek-ai--DeepSeek-V3")
    assert dsa(qwen) is False  # no release lists Qwen3ForCausalLM
    assert dsa(deepseek) is None  # a listed architecture without index_topk: its config class may add one
    with_index = derive({**json.loads((CONFIGS / "deepseek-ai--DeepSeek-V3" / "config.json").read_text()),
                         "index_topk": 2048}, "c")
    assert (with_index.index_topk, dsa(with_index)) == (2048, True)
    assert dsa(derive({"architectures": ["HYV4ForCausalLM"], "index_topk": 2048}, "c")) is None  # 0.5.20 on only
    assert dsa(None) is None and dsa(ModelFacts("table")) is None
    assert qwen.architectures == ("Qwen3ForCausalLM",)


def test_describe_is_json_data() -> None:
    shown = describe(_real("deepseek-ai--DeepSeek-V3"), mla=True)
    assert json.loads(json.dumps(shown)) == shown
    assert shown["quantization"] == {"method": "fp8", "weight_block_size": [128, 128], "fmt": "e4m3"}
    assert (shown["mla"], shown["kv_lora_rank"]) == (True, 512)
    assert list(shown)[:2] == ["architecture", "mla"] and list(shown)[-1] == "source"
    assert set(describe(None).values()) == {None} and describe(None).keys() == shown.keys()
    assert resolve_model("/ckpt/x", lambda path: _real("Qwen--Qwen3-8B")).describe()["head_dim"] == 128


# -- SGLang's own derivation, on the same files -------------------------------------

COMPARED = ("architecture", "num_attention_heads", "num_key_value_heads", "head_dim", "kv_lora_rank",
            "qk_rope_head_dim", "hidden_size", "moe_intermediate_size", "num_experts", "context_length",
            "num_hidden_layers")


# Variants of the real configs that take the derivations' other branches: a linear rope factor, and no
# num_key_value_heads (one KV head per attention head).
VARIANTS = {
    "llama-linear-rope": ("meta-llama--Llama-3.1-8B-Instruct", {"rope_scaling": {"type": "linear", "factor": 2.0}}),
    "llama-no-kv-heads": ("meta-llama--Llama-3.1-8B-Instruct", {"num_key_value_heads": None}),
    # DeepSeek-V3's architecture with a DSA indexer (index_topk, with the head shape ModelConfig reads for it):
    # what is_deepseek_dsa takes as DSA.
    "deepseek-with-index-topk": ("deepseek-ai--DeepSeek-V3",
                                 {"index_topk": 2048, "index_head_dim": 128, "index_n_heads": 64}),
}


def _variant_folders(root: Path) -> list[Path]:
    folders = []
    for name, (base, changes) in VARIANTS.items():
        config = json.loads((CONFIGS / base / "config.json").read_text())
        config.update(changes)
        folder = root / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({k: v for k, v in config.items() if v is not None}))
        folders.append(folder)
    return folders


@pytest.mark.parametrize("release", [oracle.VERSIONS[0], oracle.VERSIONS[-1]])
def test_sglang_derives_the_same(release: str, tmp_path: Path) -> None:
    oracle.require(release)
    folders = [CONFIGS / name for name in sorted(EXPECTED)] + _variant_folders(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "SGL_")) and k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(oracle.env_dir() / f"sglang-{release}"), HF_HUB_OFFLINE="1")
    done = subprocess.run([str(oracle.env_dir() / "venv" / "bin" / "python"), str(SGLANG_SIDE), *map(str, folders)],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    sglang = json.loads(done.stdout)
    for folder in folders:
        facts, theirs = derive(json.loads((folder / "config.json").read_text()), "c"), sglang[str(folder)]
        mine = {key: getattr(facts, key) for key in COMPARED}
        if facts.kv_lora_rank is not None:
            mine["head_dim"] = theirs["head_dim"]  # SGLang's MLA constant; autofix leaves it unknown
        text = text_config(json.loads((folder / "config.json").read_text()))
        # A key the file does not hold, which transformers' config class fills in (Qwen3.5's text config
        # class gives dense checkpoints MoE defaults): autofix leaves the fact unknown.
        if mine["moe_intermediate_size"] is None and "moe_intermediate_size" not in text:
            mine["moe_intermediate_size"] = theirs["moe_intermediate_size"]
        if mine["num_experts"] is None and not any(key in text for key in EXPERT_KEYS):
            mine["num_experts"] = theirs["num_experts"]
        if theirs["moe_intermediate_size"] is None and theirs["architecture"] in EXPERTS_USE_INTERMEDIATE_SIZE:
            theirs["moe_intermediate_size"] = theirs["intermediate_size"]  # what their FusedMoE is given
        assert mine == {key: theirs[key] for key in COMPARED}, folder.name
        assert resolve_model(str(folder), lambda path: facts, release).mla is theirs["mla"], folder.name
        assert list(facts.architectures) == theirs["architectures"], folder.name
        assert dsa(facts) in (None, theirs["dsa"]), folder.name
        quantization = facts.quantization
        assert (quantization and quantization.method, quantization and quantization.weight_block_size) == (
            theirs["quant_method"], tuple(theirs["weight_block_size"]) if theirs["weight_block_size"] else None
        ), folder.name
