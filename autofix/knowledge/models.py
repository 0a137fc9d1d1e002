"""Which model a launch serves, and whether SGLang treats it as MLA.

SGLang reads `architectures[0]` from the model's config.json. autofix resolves
a model path in this order: a local folder's config.json (through the lookup
the caller provides), the table of known Hugging Face ids below, the last path
component matched against known model families, else unknown. Which
architectures are MLA is generated from SGLang itself (data/mla-<release>.json).

Sources for the id table: the `architectures` field of each model's published
config.json, as collected in autofix's SGLang reference (section 4, "Practical
mapping"); a family marked MLA follows SGLang's `ModelConfig._derive_model_shapes`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from autofix.knowledge.releases import DEFAULT_RELEASE, RELEASES

__all__ = ["KIMI_K3", "ModelInfo", "mla_architectures", "resolve_model"]

KIMI_K3 = "KimiK3ForConditionalGeneration"

# Hugging Face id -> architectures[0].
KNOWN_IDS: dict[str, str] = {
    "moonshotai/Kimi-K3": KIMI_K3,
    "moonshotai/Kimi-K2.5": "KimiK25ForConditionalGeneration",
    "moonshotai/Kimi-K2-Instruct": "DeepseekV3ForCausalLM",
    "moonshotai/Kimi-K2-Instruct-0905": "DeepseekV3ForCausalLM",
    "moonshotai/Kimi-K2-Base": "DeepseekV3ForCausalLM",
    "moonshotai/Kimi-K2-Thinking": "DeepseekV3ForCausalLM",
    "moonshotai/Moonlight-16B-A3B": "DeepseekV3ForCausalLM",
    "moonshotai/Moonlight-16B-A3B-Instruct": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-V3": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-V3-0324": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-V3.1": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-V3.1-Terminus": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-R1": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-R1-0528": "DeepseekV3ForCausalLM",
    "nvidia/DeepSeek-R1-FP4": "DeepseekV3ForCausalLM",
    "deepseek-ai/DeepSeek-V2": "DeepseekV2ForCausalLM",
    "deepseek-ai/DeepSeek-V2-Lite": "DeepseekV2ForCausalLM",
    "deepseek-ai/DeepSeek-V2-Lite-Chat": "DeepseekV2ForCausalLM",
    "deepseek-ai/DeepSeek-V2.5": "DeepseekV2ForCausalLM",
    "deepseek-ai/DeepSeek-V3.2": "DeepseekV32ForCausalLM",
    "deepseek-ai/DeepSeek-V3.2-Exp": "DeepseekV32ForCausalLM",
    "zai-org/GLM-4.7-Flash": "Glm4MoeLiteForCausalLM",
    "openbmb/MiniCPM3-4B": "MiniCPM3ForCausalLM",
}

# Last path component (lower case, '_' read as '-') -> architecture, or None
# for a family known not to be MLA whose exact architecture does not matter.
# The first matching prefix wins, so the specific ones come first.
_FAMILIES: tuple[tuple[str, str | None], ...] = (
    ("kimi-k3", KIMI_K3),
    ("kimi-k2.5", "KimiK25ForConditionalGeneration"),
    ("kimi-k2", "DeepseekV3ForCausalLM"),
    ("kimi-linear", "KimiLinearForCausalLM"),
    ("kimi-vl", "KimiVLForConditionalGeneration"),
    ("moonlight", "DeepseekV3ForCausalLM"),
    ("deepseek-r1-distill-qwen", "Qwen2ForCausalLM"),
    ("deepseek-r1-distill-llama", "LlamaForCausalLM"),
    ("deepseek-v4", "DeepseekV4ForCausalLM"),
    ("deepseek-v3.2", "DeepseekV32ForCausalLM"),
    ("deepseek-v3", "DeepseekV3ForCausalLM"),
    ("deepseek-r1", "DeepseekV3ForCausalLM"),
    ("deepseek-coder-v2", "DeepseekV2ForCausalLM"),
    ("deepseek-v2", "DeepseekV2ForCausalLM"),
    ("glm-4.7-flash", "Glm4MoeLiteForCausalLM"),
    ("glm-5", "GlmMoeDsaForCausalLM"),
    ("glm-4", None),
    ("minicpm3", "MiniCPM3ForCausalLM"),
    ("minicpm", None),
    ("longcat-flash", "LongcatFlashForCausalLM"),
    ("mistral-large-3", "MistralLarge3ForCausalLM"),
    ("qwen", None),
    ("qwq", None),
    ("llama", None),
    ("meta-llama", None),
    ("mistral", None),
    ("mixtral", None),
    ("ministral", None),
    ("gemma", None),
    ("gpt-oss", None),
    ("phi-", None),
)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """architecture: SGLang's architectures[0], when known. mla: None when unknown."""

    architecture: str | None
    mla: bool | None

    @classmethod
    def unknown(cls) -> ModelInfo:
        return cls(None, None)

    @property
    def known(self) -> bool:
        return self.mla is not None

    @property
    def is_kimi_k3(self) -> bool | None:
        if self.architecture is not None:
            return self.architecture == KIMI_K3
        return False if self.known else None


@functools.cache
def _mla_table(release: str) -> dict:
    path = resources.files("autofix.knowledge").joinpath(f"data/mla-{release}.json")
    return json.loads(path.read_text())


def mla_architectures(release: str | None = None) -> frozenset[str]:
    """Architectures SGLang serves as MLA in release."""
    return frozenset(_mla_table(release if release in RELEASES else DEFAULT_RELEASE)["mla_architectures"])


def conditionally_mla(release: str | None = None) -> frozenset[str]:
    """Architectures that are MLA only when the checkpoint's config says so (Pixtral, DeepseekVL2)."""
    table = _mla_table(release if release in RELEASES else DEFAULT_RELEASE)
    return frozenset(table.get("conditional_mla_architectures", {}))


def architecture_of(path: str) -> str | None | bool:
    """The architecture named by a model path: a str, None (a known non-MLA family), or False (unknown)."""
    path = path.strip().rstrip("/")
    if path in KNOWN_IDS:
        return KNOWN_IDS[path]
    name = path.rsplit("/", 1)[-1].lower().replace("_", "-")
    for prefix, arch in _FAMILIES:
        if re.match(re.escape(prefix), name):
            return arch
    return False


def resolve_model(
    path: str, lookup: Callable[[str], str | None] | None = None, release: str | None = None
) -> ModelInfo:
    arch: str | None | bool = lookup(path) if lookup is not None else None
    if not arch:
        arch = architecture_of(path)
    if arch is False:
        return ModelInfo.unknown()
    if arch is None:
        return ModelInfo(None, False)
    if arch in conditionally_mla(release):
        return ModelInfo(arch, None)  # type: ignore[arg-type]
    return ModelInfo(arch, arch in mla_architectures(release))  # type: ignore[arg-type]
