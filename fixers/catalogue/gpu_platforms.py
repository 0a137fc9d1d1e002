"""Catalogue rules: the checks SGLang makes on its other platforms, Intel XPU, Ascend NPU and
Moore Threads MUSA (`get_platform().is_xpu`, `is_npu`, `is_musa`): `_check_xpu_dcp` in
`attention_hook.py`, `handle_model_specific_adjustments` in `model_hook.py`,
`validate_prefill_cp_platform` in `parallel_hook.py`.

The GPU is named like any other (`--gpu max-1550`, `--gpu ascend-910b`, `--gpu mtt-s4000`).
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import gpu, served
from .gpu import _backends
from .kv_shard import _overrides_keep

# The architectures SGLang's is_deepseek_dsa accepts (with an `index_topk` in their config).
_DSA_CANDIDATES = (
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "Glm5NextForConditionalGenerationNextN", "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN",
)


def _not_dsa(model) -> bool:  # noqa: ANN001
    """The model is known not to be a DeepSeek sparse-attention (DSA) one: its architecture is
    none of the DSA ones (for those, the checkpoint's `index_topk` decides)."""
    if not model.known and model.architecture is None:
        raise Unresolvable("model not known")
    if model.architecture in _DSA_CANDIDATES:
        raise Unresolvable("DSA is decided by the checkpoint's config")
    return True


# -- Intel XPU: decode context parallelism (_check_xpu_dcp) --------------------------------

_XPU_DCP = "--model-path Qwen/Qwen3-8B --tp 16 --dcp-size 2"

rule(
    code="SGL980",
    name="xpu-decode-context-parallel-without-intel-xpu-backend",
    errors="6d31848f954c",
    # A backend left unset is SGLang's default (GPT-OSS and Llama 4 pick intel_xpu): quiet there.
    when=lambda cfg: served(cfg.model_path) and cfg.dcp_size > 1 and gpu(cfg).is_xpu
    and _overrides_keep(cfg.model, cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    and any(b is not None and b != "intel_xpu" for b in _backends(cfg)),
    at=("attention_backend", "prefill_attention_backend", "decode_attention_backend", "dcp_size"),
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` on {gpu(cfg).label} needs `--attention-backend intel_xpu` "
    "for prefill and decode",
    fix=(set_("attention_backend", "intel_xpu"), remove("prefill_attention_backend"),
         remove("decode_attention_backend")),
    safe=True,
    gpu="max-1550",
    example=_XPU_DCP + " --attention-backend triton",
    near_miss=_XPU_DCP + " --attention-backend intel_xpu",
)

rule(
    code="SGL981",
    name="xpu-decode-context-parallel-with-mla-model",
    errors="26c5e5df3f44",
    when=lambda cfg: served(cfg.model_path) and cfg.dcp_size > 1 and gpu(cfg).is_xpu and cfg.model.mla is True
    and _overrides_keep(cfg.model, cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    and set(_backends(cfg)) == {"intel_xpu"},
    at="dcp_size",
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` is not supported for MLA models on {gpu(cfg).label}",
    fix=remove("dcp_size"),
    gpu="max-1550",
    example="--model-path deepseek-ai/DeepSeek-V2-Lite --tp 2 --dcp-size 2 --attention-backend intel_xpu",
    near_miss="--model-path deepseek-ai/DeepSeek-V2-Lite --tp 2 --attention-backend intel_xpu",
)

# -- Ascend NPU: decode context parallelism (handle_model_specific_adjustments) -------------

rule(
    code="SGL982",
    name="npu-decode-context-parallel-for-non-dsa-model",
    errors="4f817ad68c85",
    when=lambda cfg: served(cfg.model_path) and cfg.dcp_size > 1 and gpu(cfg).is_npu and _not_dsa(cfg.model),
    at="dcp_size",
    message=lambda cfg: f"decode context parallelism on {gpu(cfg).label} is implemented only for DeepSeek "
    "sparse-attention (DSA) models; set `--dcp-size 1` or serve a DSA model",
    fix=remove("dcp_size"),
    safe=True,
    gpu="ascend-910b",
    example="--model-path Qwen/Qwen3-8B --tp 2 --dcp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp 2",
)

# -- Moore Threads MUSA: prefill context parallelism (validate_prefill_cp_platform) ---------

rule(
    code="SGL983",
    name="prefill-context-parallel-on-musa-gpu",
    errors="4836a28b7bf3",
    # It runs first in the pipeline, for every model path.
    when=lambda cfg: cfg.enable_prefill_cp and gpu(cfg).is_musa,
    at="enable_prefill_cp",
    message=lambda cfg: f"prefill context parallelism on {gpu(cfg).label} (MUSA) is deprecated and refused",
    fix=remove("enable_prefill_cp"),
    gpu="mtt-s4000",
    example="--model-path Qwen/Qwen3-8B --tp 2 --enable-prefill-cp --attn-cp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp 2",
)
