"""Which model a launch serves, what its config says, and whether SGLang treats it as MLA.

SGLang reads `architectures[0]` from the model's config.json. autofix resolves
a model path in this order: the facts of the model's config.json (through the
lookup the caller provides: a local folder, the local Hugging Face cache, the
Hub when asked; see autofix.modelconfigs), the table of known Hugging Face ids
below, the last path component matched against known model families, else
unknown. Which architectures are MLA is generated from SGLang itself
(data/mla-<release>.json).

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

from autofix.knowledge.modelfacts import ModelFacts, describe
from autofix.knowledge.releases import DEFAULT_RELEASE, RELEASES

__all__ = ["KIMI_K3", "ModelInfo", "mla_architectures", "resolve_model"]

KIMI_K3 = "KimiK3ForConditionalGeneration"
# What ModelFacts.source names when the table below, not a config.json, gave the architecture.
KNOWN_ID_SOURCE = "autofix's table of known Hugging Face ids (autofix/knowledge/models.py)"
FAMILY_SOURCE = "the model family the path's last component names (autofix/knowledge/models.py)"

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
    """architecture: SGLang's architectures[0], when known. mla: None when unknown.

    facts: what the model's config.json says (None: no config was found, nor a table entry).
    """

    architecture: str | None
    mla: bool | None
    facts: ModelFacts | None = None

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

    def describe(self) -> dict[str, object]:
        """What autofix knew of the model, as plain JSON data (see modelfacts.describe)."""
        return {**describe(self.facts, self.mla), "architecture": self.architecture}


@functools.cache
def _mla_table(release: str) -> dict:
    path = resources.files("autofix.knowledge").joinpath(f"data/mla-{release}.json")
    return json.loads(path.read_text())


def mla_architectures(release: str | None = None) -> frozenset[str]:
    """Architectures SGLang serves as MLA in release."""
    return frozenset(_mla_table(release if release in RELEASES else DEFAULT_RELEASE)["mla_architectures"])


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
    path: str, lookup: Callable[[str], ModelFacts | None] | None = None, release: str | None = None
) -> ModelInfo:
    """What is known of the model at path; lookup: the facts of its config.json, when one can be read."""
    facts = lookup(path) if lookup is not None else None
    arch = facts.architecture if facts is not None else None
    if arch is None:
        named = architecture_of(path)
        if named is False:
            return ModelInfo(None, None, facts)
        source = KNOWN_ID_SOURCE if path.strip().rstrip("/") in KNOWN_IDS else FAMILY_SOURCE
        facts = facts or ModelFacts(source, architecture=named or None)  # type: ignore[arg-type]
        if named is None:
            return ModelInfo(None, False, facts)
        arch = named  # type: ignore[assignment]
    return ModelInfo(arch, _mla(arch, facts, release), facts)  # type: ignore[arg-type]


def _mla(arch: str, facts: ModelFacts, release: str | None) -> bool | None:
    """Whether SGLang serves arch as MLA; for the architectures MLA only by their checkpoint's config
    (`_derive_model_shapes`: Pixtral and Bailing NextN with a kv_lora_rank, DeepseekVL2 unless
    use_mla is false), what the config says, else unknown."""
    table = _mla_table(release if release in RELEASES else DEFAULT_RELEASE)
    hints = table.get("conditional_mla_architectures", {}).get(arch)
    if hints is None:
        return arch in mla_architectures(release)
    if "kv_lora_rank" in hints and facts.kv_lora_rank is not None:
        return True
    if "use_mla" in hints:
        return facts.use_mla
    return None
