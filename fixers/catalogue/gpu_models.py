"""Catalogue rules: checks of the GPU that hold for some models only (SGLang's
`handle_deterministic_inference` and `_deterministic_rocm_rccl_check`, DeepSeek-V4's
`apply_deepseek_v4_defaults` and `validate_deepseek_v4_cp`, `handle_context_parallelism`).

The model is the one autofix resolves from `--model-path` (architecture, MLA); an unknown
model keeps these rules quiet.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import gpu, served
from .kv_shard import _overrides_keep

DEEPSEEK_V4 = "DeepseekV4ForCausalLM"
# The architectures handle_deterministic_inference runs as absorbed MLA (every release's list holds them).
_DETERMINISTIC_DEEPSEEK = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM")
_DETERMINISTIC_BACKENDS = ("fa3", "fa4", "flashinfer", "triton")  # of the choices, those every GPU rule here meets


def _architecture(cfg) -> str:  # noqa: ANN001
    """The served model's architecture; unknown when autofix does not know it."""
    found = cfg.model.architecture
    if found is None:
        if cfg.model.known:
            return ""  # a known family of plain decoders (Qwen, Llama, ...)
        raise Unresolvable("model not known")
    return found


# -- handle_deterministic_inference (attention_hook.py) ----------------------------------

rule(
    code="SGL940",
    name="deterministic-fa4-absorbed-mla-on-non-sm100-gpu",
    errors="197b1884d4a6",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_deterministic_inference
    and cfg.attention_backend == "fa4" and _architecture(cfg) in _DETERMINISTIC_DEEPSEEK
    and _overrides_keep(cfg.model, cfg.attention_backend)
    and not (gpu(cfg).is_sm100 or (gpu(cfg).sm is not None and gpu(cfg).sm // 10 == 11)),
    at="attention_backend",
    message=lambda cfg: "deterministic inference with an absorbed-MLA model on the fa4 backend needs an "
    f"SM100/SM110 GPU (flash_attn.cute's qv argument), not {gpu(cfg).label}",
    fix=remove("attention_backend"),
    gpu="h100",
    example="--model-path deepseek-ai/DeepSeek-V3 --tp 8 --enable-deterministic-inference --attention-backend fa4",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp 8 --enable-deterministic-inference --attention-backend fa3",
)

rule(
    code="SGL941",
    name="deterministic-rccl-all-reduce-on-rocm",
    errors="65f37b61a512",
    # The attention backend checks before it pass: unset, or a deterministic one (not a
    # radix-unsupported one on a DeepSeek model).
    when=lambda cfg: served(cfg.model_path) and cfg.enable_deterministic_inference and gpu(cfg).is_hip
    and cfg.tp_size > 2 and cfg.disable_custom_all_reduce
    and (cfg.attention_backend is None or cfg.attention_backend in _DETERMINISTIC_BACKENDS)
    and not (_architecture(cfg) in _DETERMINISTIC_DEEPSEEK and cfg.attention_backend == "flashinfer"),
    at="disable_custom_all_reduce",
    message="`--disable-custom-all-reduce` with `--enable-deterministic-inference` on ROCm at `--tp-size "
    "{tp_size}` (above 2) runs the all-reduce through RCCL, which is not batch-invariant",
    fix=remove("disable_custom_all_reduce"),
    safe=True,
    gpu="mi300x",
    example="--model-path Qwen/Qwen3-8B --tp 4 --enable-deterministic-inference --disable-custom-all-reduce",
    near_miss="--model-path Qwen/Qwen3-8B --tp 4 --enable-deterministic-inference",
)

# -- DeepSeek-V4 (deepseek_v4_hook.py) ----------------------------------------------------
# Only DeepSeek-V4's model hook reads --dsv4-attn-backend. An unset --device is cuda on an
# NVIDIA or AMD GPU.


def _cuda_device(cfg) -> bool:  # noqa: ANN001
    return cfg.device in (None, "cuda")


_DSV4 = "--model-path deepseek-ai/DeepSeek-V4-Flash --tp 8"

rule(
    code="SGL942",
    name="dsv4-trtllm-attention-on-non-sm100-gpu",
    errors="d1df8988f21e",
    when=lambda cfg: served(cfg.model_path) and cfg.dsv4_attn_backend == "trtllm" and _architecture(cfg) == DEEPSEEK_V4
    and cfg.kv_cache_dtype in ("auto", "fp8_e4m3", "bfloat16")
    and not (_cuda_device(cfg) and gpu(cfg).is_sm100),
    at="dsv4_attn_backend",
    message=lambda cfg: f"`--dsv4-attn-backend trtllm` needs an SM100/SM103 (Blackwell) GPU, not {gpu(cfg).label}",
    fix=remove("dsv4_attn_backend"),
    safe=True,
    gpu="h100",
    example=_DSV4 + " --dsv4-attn-backend trtllm",
    near_miss=_DSV4 + " --dsv4-attn-backend flashmla",
)

rule(
    code="SGL943",
    name="dsv4-flashmla-mega-attention-on-non-sm100-gpu",
    errors="046344157534",
    # On SM100 it also needs DeepSeek-V4.1 (the checkpoint's model_type): quiet there.
    when=lambda cfg: served(cfg.model_path) and cfg.dsv4_attn_backend == "flashmla_mega"
    and _architecture(cfg) == DEEPSEEK_V4 and cfg.kv_cache_dtype in ("auto", "fp8_e4m3", "bfloat16")
    and not (_cuda_device(cfg) and gpu(cfg).is_sm100),
    at="dsv4_attn_backend",
    message=lambda cfg: "`--dsv4-attn-backend flashmla_mega` needs DeepSeek-V4.1 on an SM100/SM103 GPU, "
    f"not {gpu(cfg).label}",
    fix=remove("dsv4_attn_backend"),
    safe=True,
    gpu="h100",
    example=_DSV4 + " --dsv4-attn-backend flashmla_mega",
    near_miss=_DSV4 + " --dsv4-attn-backend flashmla",
)


def _dsv4_hip_cp(cfg) -> bool:  # noqa: ANN001
    """validate_deepseek_v4_cp reaches its ROCm checks: DeepSeek-V4 with prefill CP over the
    interleave strategy (zigzag needs an NPU), on an AMD GPU."""
    return served(cfg.model_path) and _architecture(cfg) == DEEPSEEK_V4 and cfg.cp_strategy == "interleave" \
        and gpu(cfg).is_hip


_DSV4_CP = _DSV4 + " --enable-prefill-cp --cp-strategy interleave"

rule(
    code="SGL944",
    name="dsv4-prefill-context-parallel-on-rocm-without-dsv4-backends",
    errors="d76cf32471d2",
    when=lambda cfg: cfg.enable_prefill_cp and _dsv4_hip_cp(cfg)
    and (cfg.prefill_attention_backend or "dsv4", cfg.decode_attention_backend or "dsv4") != ("dsv4", "dsv4"),
    at=("prefill_attention_backend", "decode_attention_backend"),
    message=lambda cfg: "DeepSeek-V4 prefill context parallelism on ROCm needs the dsv4 attention backend for "
    f"both phases, got prefill `{cfg.prefill_attention_backend or 'dsv4'}`, decode "
    f"`{cfg.decode_attention_backend or 'dsv4'}`",
    fix=(remove("prefill_attention_backend"), remove("decode_attention_backend")),
    safe=True,
    gpu="mi300x",
    example=_DSV4_CP + " --prefill-attention-backend aiter",
    near_miss=_DSV4_CP,
)

rule(
    code="SGL945",
    name="dsv4-prefill-context-parallel-on-rocm-with-unsupported-feature",
    errors="2d3e08c2e6bc",
    # DeepSeek-V4.1 (the checkpoint's model_type) is refused here too, with the same words.
    when=lambda cfg: cfg.enable_prefill_cp and _dsv4_hip_cp(cfg)
    and (cfg.prefill_attention_backend or "dsv4", cfg.decode_attention_backend or "dsv4") == ("dsv4", "dsv4")
    and (cfg.nnodes > 1 or cfg.enable_decoder_swa_bounded_replay or cfg.enable_two_batch_overlap),
    at=("enable_two_batch_overlap", "enable_decoder_swa_bounded_replay", "nnodes", "enable_prefill_cp"),
    message=lambda cfg: "DeepSeek-V4 prefill context parallelism on ROCm does not support "
    + ("multiple nodes" if cfg.nnodes > 1 else "decoder SWA bounded replay" if cfg.enable_decoder_swa_bounded_replay
       else "`--enable-two-batch-overlap`") + " yet",
    fix=(remove("enable_decoder_swa_bounded_replay"), remove("enable_two_batch_overlap")),
    gpu="mi300x",
    example=_DSV4_CP + " --enable-two-batch-overlap",
    near_miss=_DSV4_CP,
)

# -- handle_context_parallelism (parallel_hook.py) ---------------------------------------

rule(
    code="SGL946",
    name="prefill-context-parallel-on-rocm-for-other-models",
    errors="9bc4ea311f81",
    when=lambda cfg: cfg.enable_prefill_cp and served(cfg.model_path) and gpu(cfg).is_hip
    and _architecture(cfg) != DEEPSEEK_V4,
    at="enable_prefill_cp",
    message=lambda cfg: "prefill context parallelism on ROCm is only supported for DeepSeek-V4, not "
    f"{cfg.model.architecture or 'this model'}",
    fix=remove("enable_prefill_cp"),
    gpu="mi300x",
    example="--model-path Qwen/Qwen3-8B --tp 2 --enable-prefill-cp --attn-cp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp 2",
)
