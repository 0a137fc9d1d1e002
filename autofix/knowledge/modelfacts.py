"""The facts of a model that SGLang's checks read, derived from its config.json as SGLang derives them.

SGLang loads the checkpoint's config.json through transformers and reads it in
`python/sglang/srt/configs/model_config.py` (`ModelConfig.__init__`,
`_derive_model_shapes`, `get_total_num_kv_heads`, `_parse_quant_hf_config`) and
`python/sglang/srt/utils/hf_transformers/common.py` (`get_hf_text_config`,
`get_context_length`); these functions read the same in releases 0.5.17 to
0.5.23. autofix reads the JSON itself, with no transformers: where SGLang
would see a value that transformers' config class fills in for a key the file
does not hold, the fact stays None (unknown), so no rule guesses it.

Which architectures are MLA depends on the release and is decided in
autofix.knowledge.models from SGLang's own table (data/mla-<release>.json);
the facts here are the same for every release.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["ModelFacts", "Quantization", "derive", "describe", "dsa", "text_config"]

# get_context_length's keys, in its order of preference (CONTEXT_LENGTH_KEYS).
CONTEXT_LENGTH_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                       "max_position_embeddings")
# get_total_num_kv_heads's attributes, in its order, after its model-type special cases.
KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")
# The first of these that the text config holds is the routed expert count: deepseek_v2.py reads
# n_routed_experts, qwen3_moe.py num_experts, mixtral.py and gpt_oss.py num_local_experts.
EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts")
# Architectures whose SGLang model gives its experts `config.intermediate_size` (mixtral.py, gpt_oss.py:
# `intermediate_size=config.intermediate_size` in the FusedMoE they build); others read moe_intermediate_size.
EXPERTS_USE_INTERMEDIATE_SIZE = frozenset({"MixtralForCausalLM", "GptOssForCausalLM"})


@dataclass(frozen=True, slots=True)
class Quantization:
    """The checkpoint's own quantization, from config.json's `quantization_config` (else `compression_config`).

    method: `quant_method` in lower case, as `ModelConfig._verify_quantization` compares it with
    `--quantization`; None when the config names none (ModelOpt checkpoints keep theirs in
    hf_quant_config.json, which autofix does not read).
    """

    method: str | None
    weight_block_size: tuple[int, ...] | None = None
    fmt: str | None = None


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """What a model's config.json says that SGLang's checks read; None: unknown.

    source: the config.json the facts came from, or the autofix table that named the architecture.
    head_dim: None for an MLA-shaped checkpoint (one with kv_lora_rank): SGLang's MLA branches of
    `_derive_model_shapes` replace it with a per-architecture constant and read kv_lora_rank and
    qk_rope_head_dim instead.
    context_length: what `get_context_length` derives, the most `--context-length` may ask without
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN.
    architectures: every entry of the config's `architectures` (`handle_language_model_only` tests
    each of them); architecture is the first.
    index_topk: the top-level config's `index_topk`, which `is_deepseek_dsa` reads (`_hf_attr`) to
    tell a DeepSeek Sparse Attention checkpoint; see `dsa`.
    v_head_dim: the config's v_head_dim, else (absent or 0) head_dim, as the generic branch of
    `_derive_model_shapes` reads it; None where head_dim is.
    sliding_window_pattern: the text config's sliding_window_pattern (EXAONE 4's `LLLG`), as
    SGLang's model hooks test it against None; None when the config holds none.
    num_hidden_layers: the target's decoder layers as `_check_capture_layer_ids_in_range`
    (model_runner_components/spec_aux_hidden_state.py, 0.5.23) counts them: the text config's
    num_hidden_layers times its num_loops (loop models; Nanbeige's config class defaults it to 1).
    """

    source: str | None
    architecture: str | None = None
    model_type: str | None = None
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    use_mla: bool | None = None
    hidden_size: int | None = None
    intermediate_size: int | None = None
    moe_intermediate_size: int | None = None
    num_experts: int | None = None
    quantization: Quantization | None = None
    context_length: int | None = None
    architectures: tuple[str, ...] | None = None
    index_topk: int | None = None
    v_head_dim: int | None = None
    sliding_window_pattern: str | int | None = None
    num_hidden_layers: int | None = None


def derive(config: Mapping, source: str) -> ModelFacts:
    """The facts of a parsed config.json."""
    text = text_config(config)
    architecture = _architecture(config)
    heads = _int(text, "num_attention_heads")
    hidden = _int(text, "hidden_size")
    kv_lora_rank = _int(text, "kv_lora_rank")
    intermediate = _int(text, "intermediate_size")
    moe_intermediate = _int(text, "moe_intermediate_size")
    if moe_intermediate is None and architecture in EXPERTS_USE_INTERMEDIATE_SIZE:
        moe_intermediate = intermediate
    use_mla = text.get("use_mla")
    head_dim = None if kv_lora_rank is not None else _head_dim(text, hidden, heads)
    return ModelFacts(
        source=source,
        architecture=architecture,
        model_type=_str(config, "model_type"),
        num_attention_heads=heads,
        num_key_value_heads=_kv_heads(config, text, heads),
        head_dim=head_dim,
        kv_lora_rank=kv_lora_rank,
        qk_rope_head_dim=_int(text, "qk_rope_head_dim"),
        use_mla=use_mla if isinstance(use_mla, bool) else None,
        hidden_size=hidden,
        intermediate_size=intermediate,
        moe_intermediate_size=moe_intermediate,
        num_experts=next((n for n in (_int(text, key) for key in EXPERT_KEYS) if n is not None), None),
        quantization=_quantization(config),
        context_length=context_length(text),
        architectures=_architectures(config),
        index_topk=_int(config, "index_topk"),
        v_head_dim=_v_head_dim(text, head_dim),
        sliding_window_pattern=_pattern(text.get("sliding_window_pattern")),
        num_hidden_layers=_layers(text),
    )


def text_config(config: Mapping) -> Mapping:
    """The part of the config that describes the language model, as `get_hf_text_config` picks it.

    Llava-style `*ForCausalLM` checkpoints are read whole; else the first of `thinker_config`
    (its `text_config` when it has one), `llm_config`, `language_config`, `text_config`.
    """
    architecture = _architecture(config) or ""
    if architecture.startswith("Llava") and architecture.endswith("ForCausalLM"):
        return config
    thinker = config.get("thinker_config")
    if isinstance(thinker, Mapping):
        inner = thinker.get("text_config")
        return inner if isinstance(inner, Mapping) else thinker
    for key in ("llm_config", "language_config", "text_config"):
        sub = config.get(key)
        if isinstance(sub, Mapping):
            return sub
    return config


def context_length(text: Mapping) -> int | None:
    """`get_context_length` on the text config: the first CONTEXT_LENGTH_KEYS value times the rope factor.

    The factor is rope_scaling's `factor`, except 1 when the scaling names
    `original_max_position_embeddings` or is `llama3`. transformers 5 (which SGLang 0.5.17 on
    requires) also adds original_max_position_embeddings to yarn and longrope scalings in its own
    config classes but not in a checkpoint's remote code: such a scaling without it is unknown.
    With none of the keys SGLang says 2048, but transformers' config class may have filled one in.
    """
    rope = text.get("rope_parameters") or text.get("rope_scaling")
    factor: object = 1
    if isinstance(rope, Mapping) and rope:
        kind = rope.get("rope_type", rope.get("type"))
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or kind == "llama3":
            factor = 1
        elif kind in ("yarn", "longrope") and factor != 1:
            return None
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        return None
    for key in CONTEXT_LENGTH_KEYS:
        value = text.get(key)
        if value is not None:
            return int(factor * value) if _is_int(value) else None
    return None


def describe(facts: ModelFacts | None, mla: bool | None = None) -> dict[str, object]:
    """The facts as plain JSON data, for views of what autofix knew: the architecture and MLA first,
    then every other fact, where they came from last; None is unknown (all of them: nothing was found)."""
    shown: dict[str, object] = {"architecture": facts.architecture if facts else None, "mla": mla}
    for field in dataclasses.fields(ModelFacts):
        if field.name not in ("architecture", "source"):
            shown[field.name] = getattr(facts, field.name) if facts else None
    quantization = facts.quantization if facts else None
    if quantization is not None:
        shown["quantization"] = {
            "method": quantization.method,
            "weight_block_size": list(quantization.weight_block_size) if quantization.weight_block_size else None,
            "fmt": quantization.fmt,
        }
    if facts is not None and facts.architectures is not None:
        shown["architectures"] = list(facts.architectures)
    shown["source"] = facts.source if facts else None
    return shown


def _kv_heads(config: Mapping, text: Mapping, heads: int | None) -> int | None:
    """`ModelConfig.get_total_num_kv_heads`: multi-query, MPT and DBRX first, then the attribute list,
    else one KV head per attention head."""
    model_type = config.get("model_type")
    new_falcon = model_type in ("falcon", "RefinedWeb", "RefinedWebModel") and config.get("new_decoder_architecture")
    if not new_falcon and text.get("multi_query") is True:
        return 1
    if model_type in ("mpt", "dbrx"):
        # Their attn_config is a class whose defaults autofix does not know.
        attn = config.get("attn_config")
        return _int(attn, "kv_n_heads") if isinstance(attn, Mapping) else None
    if model_type == "nemotron-nas":  # per-block heads: SGLang derives them from block_configs
        return None
    for key in KV_HEAD_KEYS:
        if text.get(key) is not None:
            return _int(text, key)
    return heads


def _layers(text: Mapping) -> int | None:
    """num_hidden_layers times num_loops (1 when the config names none); unknown unless both are ints."""
    layers, loops = _int(text, "num_hidden_layers"), text.get("num_loops", 1)
    return layers * loops if layers is not None and _is_int(loops) else None


def _head_dim(text: Mapping, hidden: int | None, heads: int | None) -> int | None:
    """`_derive_model_shapes`: the config's head_dim, else hidden_size // num_attention_heads."""
    if text.get("head_dim") is not None:
        return _int(text, "head_dim")
    if hidden is None or not heads:
        return None
    return hidden // heads


def _quantization(config: Mapping) -> Quantization | None:
    """`_parse_quant_hf_config`: `quantization_config`, else compressed-tensors' `compression_config`."""
    found = config.get("quantization_config")
    if found is None:
        found = config.get("compression_config")
    if not isinstance(found, Mapping):
        return None
    method = found.get("quant_method")
    block = found.get("weight_block_size")
    return Quantization(
        method=method.lower() if isinstance(method, str) and method else None,
        weight_block_size=tuple(block) if isinstance(block, list) and all(map(_is_int, block)) else None,
        fmt=_str(found, "fmt"),
    )


# The architectures `configs/model_config.py: is_deepseek_dsa` accepts, with an `index_topk`: those of
# every release 0.5.17 to 0.5.23 (DSA_EVERYWHERE), and those added by 0.5.19 (Dots3Note) and 0.5.20
# (Glm5Next, HYV4). The list only grew.
DSA_EVERYWHERE = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
})
DSA_ANYWHERE = DSA_EVERYWHERE | {
    "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "Glm5NextForConditionalGeneration",
    "Glm5NextForConditionalGenerationNextN", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
}


def dsa(facts: ModelFacts | None) -> bool | None:
    """`is_deepseek_dsa`, where every release answers the same: False for an architecture no release
    lists; True for one every release lists whose config.json has an `index_topk`; else None (unknown:
    a listed architecture without the key may get one from its config class)."""
    if facts is None or facts.architecture is None:
        return None
    if facts.architecture not in DSA_ANYWHERE:
        return False
    if facts.architecture in DSA_EVERYWHERE and facts.index_topk is not None:
        return True
    return None


def _architectures(config: Mapping) -> tuple[str, ...] | None:
    archs = config.get("architectures")
    if isinstance(archs, list) and archs and all(isinstance(a, str) for a in archs):
        return tuple(archs)
    return None


def _architecture(config: Mapping) -> str | None:
    archs = config.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pattern(value: object) -> str | int | None:
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _v_head_dim(text: Mapping, head_dim: int | None) -> int | None:
    value = text.get("v_head_dim")
    if head_dim is None:
        return None
    return head_dim if value in (None, 0) else _int(text, "v_head_dim")


def _int(mapping: Mapping, key: str) -> int | None:
    value = mapping.get(key)
    return value if _is_int(value) else None  # type: ignore[return-value]


def _str(mapping: Mapping, key: str) -> str | None:
    value = mapping.get(key)
    return value if isinstance(value, str) else None
