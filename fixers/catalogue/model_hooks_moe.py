"""Catalogue rules of SGLang's MoE all-to-all checks that read the served model's architecture
(`arg_groups/moe_hook.py`, run from `handle_a2a_moe`): DeepEP v2 and FlashInfer MegaMOE serve only
the architectures SGLang has validated them on.

Each rule stays quiet on an architecture any release of its range accepts, and on a model autofix
cannot name. They assume no plugin package registered more architectures (`register_deepep_v2_model`).
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served


def _architecture(cfg) -> str:  # noqa: ANN001 (it reads the model, not a flag)
    architecture = cfg.model.architecture
    if architecture is None:
        raise Unresolvable("the model's architecture is not known")
    return architecture


# configs/moe_model_registry.py's _DEEPEP_V2_MODELS, every release's (0.5.21 to 0.5.23) together.
_DEEPEP_V2 = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM", "Glm5NextForConditionalGeneration",
    "GlmMoeDsaForCausalLM", "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM",
})

rule(
    code="SGL1122",
    name="deepep-v2-on-unvalidated-architecture",
    errors="8aba69e1b529",
    # An instance-connector model path is refused first, with another message.
    when=lambda cfg: cfg.moe_a2a_backend == "deepep_v2" and not str(cfg.model_path).startswith("instance://")
    and _architecture(cfg) not in _DEEPEP_V2 and served(cfg.model_path),
    at="moe_a2a_backend",
    message=lambda cfg: f"DeepEP v2 MoE is not validated for {_architecture(cfg)}: SGLang serves it only for "
    "architectures registered with register_deepep_v2_model",
    fix=set_("moe_a2a_backend", "deepep"),
    example="--model-path mistralai/Mixtral-8x7B-v0.1 --tp-size 8 --moe-a2a-backend deepep_v2",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-a2a-backend deepep_v2 "
    "--chunked-prefill-size 128 --max-running-requests 128",
)


# validate_flashinfer_megamoe_model's validated architectures, every release's (0.5.20 to 0.5.23)
# together. SGLang accepts a config any of whose architectures is listed; autofix reads the first,
# which is the only one the checkpoints it knows name.
_MEGAMOE = frozenset({
    "BeamForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM", "GlmMoeDsaForCausalLM", "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "KimiK3ForConditionalGeneration",
    "KimiK3LinearForCausalLM",
})

rule(
    code="SGL1123",
    name="flashinfer-megamoe-on-unvalidated-architecture",
    errors="d2e75c565661",
    when=lambda cfg: cfg.moe_a2a_backend == "flashinfer_megamoe" and _architecture(cfg) not in _MEGAMOE
    and served(cfg.model_path),
    at="moe_a2a_backend",
    message=lambda cfg: f"FlashInfer MegaMOE is not validated for {_architecture(cfg)}",
    fix=remove("moe_a2a_backend"),
    example="--model-path mistralai/Mixtral-8x7B-v0.1 --tp-size 8 --moe-a2a-backend flashinfer_megamoe",
    near_miss="--model-path mistralai/Mixtral-8x7B-v0.1 --tp-size 8 --moe-a2a-backend deepep",
)
