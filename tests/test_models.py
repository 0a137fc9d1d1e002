"""Model resolution: local config.json, known ids, families, else unknown."""

from __future__ import annotations

import pytest

from autofix.knowledge.modelfacts import ModelFacts
from autofix.knowledge.models import FAMILY_SOURCE, KIMI_K3, KNOWN_ID_SOURCE, mla_architectures, resolve_model


@pytest.mark.parametrize(
    ("path", "architecture", "mla"),
    [
        ("moonshotai/Kimi-K3", KIMI_K3, True),
        ("deepseek-ai/DeepSeek-V3", "DeepseekV3ForCausalLM", True),
        ("/models/DeepSeek-R1-0528/", "DeepseekV3ForCausalLM", True),
        ("/data/deepseek_v3_fp8", "DeepseekV3ForCausalLM", True),
        ("moonshotai/Kimi-K2-Instruct", "DeepseekV3ForCausalLM", True),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "Qwen2ForCausalLM", False),
        ("deepseek-ai/DeepSeek-V4-Flash", "DeepseekV4ForCausalLM", False),
        ("zai-org/GLM-4.7-Flash", "Glm4MoeLiteForCausalLM", True),
        ("zai-org/GLM-4.6", None, False),
        ("/workspace/Qwen2.5-VL-7B-Instruct", None, False),
        ("meta-llama/Llama-3.1-8B-Instruct", None, False),
        ("/mnt/ckpt/step-1000", None, None),
        ("my-org/custom-model", None, None),
    ],
)
def test_resolution(path: str, architecture: str | None, mla: bool | None) -> None:
    info = resolve_model(path)
    assert (info.architecture, info.mla) == (architecture, mla)


def _config(architecture: str, **facts: object) -> ModelFacts:
    return ModelFacts("/m/config.json", architecture=architecture, **facts)  # type: ignore[arg-type]


def test_local_config_json_wins() -> None:
    info = resolve_model("/models/Qwen3-8B", lambda path: _config("DeepseekV3ForCausalLM"))
    assert (info.architecture, info.mla, info.facts.source) == ("DeepseekV3ForCausalLM", True, "/m/config.json")


def test_architectures_mla_only_by_config_are_unknown_without_the_hint() -> None:
    assert resolve_model("x", lambda path: _config("PixtralForConditionalGeneration")).mla is None


@pytest.mark.parametrize(
    ("architecture", "facts", "mla"),
    [
        ("PixtralForConditionalGeneration", {"kv_lora_rank": 512}, True),
        ("DeepseekVL2ForCausalLM", {"use_mla": False}, False),
        ("DeepseekVL2ForCausalLM", {"use_mla": True}, True),
    ],
)
def test_architectures_mla_by_config_follow_its_hint(architecture: str, facts: dict, mla: bool) -> None:
    assert resolve_model("x", lambda path: _config(architecture, **facts)).mla is mla


def test_a_config_without_architectures_falls_back_to_the_table_and_keeps_its_facts() -> None:
    info = resolve_model("deepseek-ai/DeepSeek-V3", lambda path: ModelFacts("/m/config.json", hidden_size=7168))
    assert (info.architecture, info.mla, info.facts.hidden_size) == ("DeepseekV3ForCausalLM", True, 7168)


def test_table_answers_name_their_source() -> None:
    assert resolve_model("deepseek-ai/DeepSeek-V3").facts.source == KNOWN_ID_SOURCE
    assert resolve_model("/models/Qwen3-8B").facts.source == FAMILY_SOURCE
    assert resolve_model("my-org/custom-model").facts is None


def test_kimi_k3_is_known_only_when_the_model_is() -> None:
    assert resolve_model("moonshotai/Kimi-K3").is_kimi_k3 is True
    assert resolve_model("Qwen/Qwen3-8B").is_kimi_k3 is False
    assert resolve_model("/mnt/ckpt/step-1000").is_kimi_k3 is None


def test_mla_table_is_sglangs() -> None:
    assert {"DeepseekV3ForCausalLM", KIMI_K3, "KimiK25ForConditionalGeneration"} <= mla_architectures("0.5.19")
    assert "Qwen3ForCausalLM" not in mla_architectures("0.5.19")
