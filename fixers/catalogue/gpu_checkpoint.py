"""Catalogue rules: what SGLang's model config refuses of a checkpoint on a platform:
`ModelConfig._verify_quantization` on ROCm (the quantization methods ROCm serves) and
`validate_mps_model_config` on Torch MPS (no multimodal serving, LoRA on dense models only).

The checkpoint's facts come from its config.json (autofix.knowledge.modelfacts); a model
autofix knows only by name keeps these rules quiet.
"""

from __future__ import annotations

from autofix.knowledge.models import FAMILY_SOURCE, KNOWN_ID_SOURCE
from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import gpu, served
from .gpu_device import _mps_backends_pass, _mps_sampling_passes, _on_mps
from .model import _fact

# -- ModelConfig._verify_quantization on ROCm -----------------------------------------

# Methods every release registers on ROCm (QUANTIZATION_METHODS) and leaves out of its
# rocm_supported_quantization, that no hook of the server arguments reads, and that no
# method's override turns into another for a checkpoint without a quantization_config.
_NOT_ON_ROCM = frozenset({"w8a8_int8", "moe_wna16", "gptq_marlin", "awq_marlin", "w4afp8"})


def _unquantized_checkpoint(cfg) -> bool:  # noqa: ANN001 (it reads the model, not a flag)
    """The served checkpoint's config.json was read and names no quantization: SGLang then keeps
    `--quantization` as written."""
    facts = cfg.model.facts
    if facts is None or facts.source in (None, KNOWN_ID_SOURCE, FAMILY_SOURCE):
        raise Unresolvable("the checkpoint's config is not known")
    if facts.quantization is not None:
        raise Unresolvable("a quantized checkpoint's method decides")
    return True


rule(
    code="SGL988",
    name="quantization-method-not-supported-on-rocm",
    errors="47d2a72e8532",
    when=lambda cfg: isinstance(cfg.quantization, str) and cfg.quantization.lower() in _NOT_ON_ROCM
    and gpu(cfg).is_hip and served(cfg.model_path) and cfg.revision is None and _unquantized_checkpoint(cfg),
    at="quantization",
    message=lambda cfg: f"`--quantization {cfg.quantization}` is not supported on ROCm ({gpu(cfg).label})",
    fix=remove("quantization"),
    gpu="mi300x",
    example="--model-path Qwen/Qwen3-8B --quantization w8a8_int8",
    near_miss="--model-path Qwen/Qwen3-8B --quantization fp8",
    note="ROCm serves awq, fp8, mxfp4, mxfp8, w8a8_fp8, compressed-tensors, petit_nvfp4, quark and "
    "auto-round checkpoints (and gptq up to SGLang 0.5.19).",
)

# -- validate_mps_model_config (validation_hook.py) -------------------------------------
# Run after the pipeline on a Torch MPS device, after validate_standard_mps_server_args.


def _mps_model_checks(cfg, backends: tuple, sampling: tuple, sizes: tuple, quantization: object) -> bool:  # noqa: ANN001
    """validate_mps_model_config's quantization check passes, after the standard MPS checks: the
    attention and sampling backends MPS runs, no parallelism, an unquantized checkpoint served
    unquantized."""
    return _mps_backends_pass(*backends) and _mps_sampling_passes(*sampling) and sizes == (1, 1, 1) \
        and quantization in (None, "unquant") and _unquantized_checkpoint(cfg)


# multimodal_model_archs of configs/model_config.py (0.5.22 and 0.5.23) that serve multimodal
# unless asked not to (Gemma 3 and Llama 4 serve text only unless --enable-multimodal).
_MULTIMODAL = frozenset({
    "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration", "Qwen3VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration", "MllamaForConditionalGeneration", "LlavaForConditionalGeneration",
})


def _serves_multimodal(cfg, language_model_only: object, enable_multimodal: object) -> bool:  # noqa: ANN001
    return cfg.model.architecture in _MULTIMODAL and not language_model_only and enable_multimodal is not False


rule(
    code="SGL989",
    name="mps-device-with-multimodal-model",
    errors="5a999e9ab229",
    when=lambda cfg: _on_mps(cfg.device, cfg.model_path) and _mps_model_checks(
        cfg, (cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend),
        (cfg.sampling_backend, cfg.enable_deterministic_inference), (cfg.tp_size, cfg.pp_size, cfg.dp_size),
        cfg.quantization)
    and _serves_multimodal(cfg, cfg.language_model_only, cfg.enable_multimodal),
    at=("device", "model_path"),
    message=lambda cfg: f"the Torch MPS device does not serve multimodal models yet ({cfg.model.architecture}); "
    "serve a text-only model",
    example="--model-path Qwen/Qwen2.5-VL-7B-Instruct --device mps",
    near_miss="--model-path Qwen/Qwen3-8B --device mps",
    note="`--language-model-only` does not help: SGLang accepts it only for a few architectures "
    "(DeepSeek-V4, Cosmos 3, MuseGlimmer).",
)


def _lora_enabled(enable_lora: object, lora_paths: object) -> bool:
    """ServerArgs' LoRA switch: `--enable-lora`, or LoRA paths with the switch unset."""
    return bool(enable_lora) or (enable_lora is None and bool(lora_paths))


rule(
    code="SGL990",
    name="mps-device-lora-on-mixture-of-experts-model",
    errors="bc7d04d7b22b",
    when=lambda cfg: _lora_enabled(cfg.enable_lora, cfg.lora_paths) and _on_mps(cfg.device, cfg.model_path) and _mps_model_checks(
        cfg, (cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend),
        (cfg.sampling_backend, cfg.enable_deterministic_inference), (cfg.tp_size, cfg.pp_size, cfg.dp_size),
        cfg.quantization)
    and not _serves_multimodal(cfg, cfg.language_model_only, cfg.enable_multimodal) and _fact(cfg, "num_experts") > 0,
    at=("enable_lora", "lora_paths"),
    message=lambda cfg: "LoRA on the Torch MPS device serves dense models only; the model has "
    f"{_fact(cfg, 'num_experts')} experts",
    fix=(remove("enable_lora"), remove("lora_paths")),
    example="--model-path mistralai/Mixtral-8x7B-v0.1 --device mps --enable-lora --max-lora-rank 16 "
    "--lora-target-modules all",
    near_miss="--model-path Qwen/Qwen3-8B --device mps --enable-lora --max-lora-rank 16 --lora-target-modules all",
)
