"""Catalogue rules: MoE runner and all-to-all backends, LM-head parallelism, attention
backend combinations (SGLang's `moe_hook.py`, `attention_hook.py`, `overrides.py`).

Attention DP as SGLang resolves it (0.5.22 on): `attn_dp_size`, or `dp_size`
when the deprecated `--enable-dp-attention` is given with `attn_dp_size` 1
(`handle_deprecated_dp_attention`); `--dwdp-size` above 1 and, for DeepSeek
models, `--enable-prefill-cp` rewrite the layout themselves, so the rules that
read it stay quiet there.
"""

from __future__ import annotations

from autofix.rules import remove, rule, set_

from ._common import served




def _attn_dp(cfg) -> int:  # noqa: ANN001
    """The attention-DP width SGLang resolves, in every release: `--attn-dp-size` (0.5.22 on;
    only read when written, so older releases never read it), else `--dp-size` with
    `--enable-dp-attention` (the deprecated spelling from 0.5.22 on); 1 without attention DP."""
    if cfg.written("attn_dp_size") and cfg.attn_dp_size > 1:
        return cfg.attn_dp_size
    return cfg.dp_size if cfg.enable_dp_attention else 1


# -- LM head under (attention) data parallelism --------------------------------

rule(
    code="SGL600",
    name="dp-lm-head-without-attention-dp",
    errors="c6801fc19d0b",
    # `_data_parallelism_defaults` turns the flag off when dp_size * attn_dp_size is 1;
    # attention DP comes from --attn-dp-size, or --dp-size with the deprecated
    # --enable-dp-attention; DWDP, prefill CP and an EP scale joiner set it up themselves.
    when=lambda cfg: served(cfg.model_path) and cfg.enable_dp_lm_head and cfg.dp_size > 1 and cfg.attn_dp_size == 1
    and not cfg.enable_dp_attention and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp
    and cfg.ep_join_mode != "scale",
    at="enable_dp_lm_head",
    message="`--enable-dp-lm-head` requires attention DP (`--attn-dp-size` above 1); "
    "`--dp-size {dp_size}` runs data-parallel replicas, which have no DP LM head",
    fix=remove("enable_dp_lm_head"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-lm-head",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --attn-dp-size 8 --enable-dp-lm-head",
    note="The fix keeps the `--dp-size` replicas and drops the DP LM head, which they cannot use. "
    "To keep the DP LM head, run attention DP instead: `--attn-dp-size N` in place of `--dp-size N` "
    "(the pre-0.5.22 `--dp N --enable-dp-attention`), which puts the N groups inside one `--tp-size` "
    "replica and so uses fewer GPUs.",
)

rule(
    code="SGL601",
    name="tp-lm-head-all-to-all-without-attention-dp",
    errors="74846728d70d",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_tp_lm_head_all_to_all and _attn_dp(cfg) == 1
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp and cfg.ep_join_mode != "scale",
    at="enable_tp_lm_head_all_to_all",
    message="`--enable-tp-lm-head-all-to-all` requires attention DP (`--attn-dp-size` above 1)",
    fix=remove("enable_tp_lm_head_all_to_all"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --enable-tp-lm-head-all-to-all",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --attn-dp-size 8 --enable-tp-lm-head-all-to-all",
)

rule(
    code="SGL611",
    name="tp-lm-head-all-to-all-without-dp-attention",
    errors="7ee9dc4298bc",
    # `_data_parallelism_defaults` turns --enable-dp-attention off with --dp-size 1.
    when=lambda cfg: served(cfg.model_path) and cfg.enable_tp_lm_head_all_to_all and _attn_dp(cfg) == 1
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp and cfg.ep_join_mode != "scale",
    at="enable_tp_lm_head_all_to_all",
    message="`--enable-tp-lm-head-all-to-all` requires `--enable-dp-attention` with `--dp-size` above 1",
    fix=remove("enable_tp_lm_head_all_to_all"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --enable-tp-lm-head-all-to-all",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --enable-tp-lm-head-all-to-all",
)

rule(
    code="SGL603",
    name="tp-lm-head-all-to-all-tp-size-not-attn-dp-size",
    errors="6459c2bf6a44",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_tp_lm_head_all_to_all and not cfg.enable_dp_lm_head
    and _attn_dp(cfg) > 1 and cfg.tp_size != _attn_dp(cfg) and cfg.tp_size % _attn_dp(cfg) == 0
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="enable_tp_lm_head_all_to_all",
    message=lambda cfg: "`--enable-tp-lm-head-all-to-all` requires `--tp-size` equal to `--attn-dp-size`: "
    f"got `--tp-size {cfg.tp_size}` with {_attn_dp(cfg)} attention-DP groups",
    fix=remove("enable_tp_lm_head_all_to_all"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --attn-dp-size 4 --enable-tp-lm-head-all-to-all",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --attn-dp-size 8 --enable-tp-lm-head-all-to-all",
)

rule(
    code="SGL612",
    name="tp-lm-head-all-to-all-tp-size-not-dp-size",
    errors="69589de39c83",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_tp_lm_head_all_to_all and not cfg.enable_dp_lm_head
    and _attn_dp(cfg) > 1 and cfg.tp_size != _attn_dp(cfg) and cfg.tp_size % _attn_dp(cfg) == 0
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="enable_tp_lm_head_all_to_all",
    message="`--enable-tp-lm-head-all-to-all` requires `--tp-size` equal to `--dp-size` under DP attention: "
    "got `--tp-size {tp_size}` and `--dp-size {dp_size}`",
    fix=remove("enable_tp_lm_head_all_to_all"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --dp 4 --enable-dp-attention --enable-tp-lm-head-all-to-all",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --enable-tp-lm-head-all-to-all",
)

# -- MoE all-to-all backends ---------------------------------------------------
# `_a2a_backend_overrides` turns the backend into deepep under --enable-waterfill,
# DWDP into none, DeepSeek's zigzag prefill CP into deepep: rules naming one backend
# stay quiet there.

rule(
    code="SGL604",
    name="pplx-with-normal-deepep-mode",
    errors="764c30b4a826",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_a2a_backend == "pplx" and cfg.deepep_mode == "normal"
    and not cfg.enable_waterfill and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="deepep_mode",
    message="`--moe-a2a-backend pplx` only supports low-latency mode: use `--deepep-mode low_latency` "
    "or auto, not normal",
    example="--model-path Qwen/Qwen3-8B --tp 8 --moe-a2a-backend pplx --deepep-mode normal",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --moe-a2a-backend deepep --deepep-mode normal",
    note="No automatic fix: `--deepep-mode low_latency` is the fix SGLang names, but pplx also "
    "needs attention DP with at least 2 groups, which this rule cannot add for you.",
)

rule(
    code="SGL605",
    name="flashinfer-a2a-dispatch-type-without-flashinfer-a2a",
    errors="ca29c75f84c6",
    when=lambda cfg: served(cfg.model_path) and cfg.flashinfer_a2a_dispatch_type not in (None, "auto")
    and (cfg.moe_a2a_backend != "flashinfer" or cfg.enable_waterfill or cfg.dwdp_size > 1),
    at="flashinfer_a2a_dispatch_type",
    message="`--flashinfer-a2a-dispatch-type {flashinfer_a2a_dispatch_type}` requires "
    "`--moe-a2a-backend flashinfer`",
    fix=remove("flashinfer_a2a_dispatch_type"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --flashinfer-a2a-dispatch-type bf16",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --flashinfer-a2a-dispatch-type auto",
)

rule(
    code="SGL606",
    name="pplx-without-attention-dp",
    errors="5ea375ec1168",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_a2a_backend == "pplx" and cfg.deepep_mode != "normal"
    and _attn_dp(cfg) < 2 and not cfg.enable_waterfill and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="moe_a2a_backend",
    message="`--moe-a2a-backend pplx` requires attention DP with at least 2 groups (`--attn-dp-size` 2 or more)",
    fix=remove("moe_a2a_backend"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --moe-a2a-backend pplx",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --attn-dp-size 8 --moe-a2a-backend pplx --chunked-prefill-size -1",
)

rule(
    code="SGL610",
    name="pplx-without-dp-attention",
    errors="7a9a4f044d20",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_a2a_backend == "pplx" and cfg.deepep_mode != "normal"
    and _attn_dp(cfg) < 2 and not cfg.enable_waterfill and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="moe_a2a_backend",
    message="`--moe-a2a-backend pplx` requires `--enable-dp-attention` with `--dp-size` 2 or more",
    fix=remove("moe_a2a_backend"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --moe-a2a-backend pplx",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --moe-a2a-backend pplx "
    "--chunked-prefill-size -1",
)

# -- FlashInfer CuteDSL MoE runner -----------------------------------------------
# `handle_moe_kernel_config` first asserts a CuteDSL quantization (or NVFP4 MoE layers in
# the checkpoint) and `--ep-size` 1 or `--tp-size`: the rules below require both from flags.

rule(
    code="SGL608",
    name="flashinfer-cutedsl-with-unsupported-a2a-backend",
    errors="0715440510b0",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_runner_backend == "flashinfer_cutedsl"
    and cfg.quantization in ("modelopt_fp4", "modelopt_mixed") and cfg.ep_size in (1, cfg.tp_size)
    and cfg.moe_a2a_backend not in ("none", "deepep", "flashinfer")
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="moe_a2a_backend",
    message="`--moe-runner-backend flashinfer_cutedsl` supports `--moe-a2a-backend` none, deepep or "
    "flashinfer, not `{moe_a2a_backend}`",
    fix=remove("moe_a2a_backend"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --moe-runner-backend flashinfer_cutedsl "
    "--quantization modelopt_fp4 --moe-a2a-backend mooncake",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --moe-runner-backend flashinfer_cutedsl "
    "--quantization modelopt_fp4",
)

rule(
    code="SGL609",
    name="flashinfer-cutedsl-with-deepep-normal-mode",
    errors="5c50dbdaebcb",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_runner_backend == "flashinfer_cutedsl"
    and cfg.quantization in ("modelopt_fp4", "modelopt_mixed") and cfg.ep_size in (1, cfg.tp_size)
    and cfg.moe_a2a_backend == "deepep" and cfg.deepep_mode == "normal"
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="deepep_mode",
    message="`--moe-runner-backend flashinfer_cutedsl` (FP4) only supports DeepEP low-latency dispatch, "
    "not `--deepep-mode normal`",
    fix=set_("deepep_mode", "low_latency"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --tp 8 --moe-runner-backend flashinfer_cutedsl "
    "--quantization modelopt_fp4 --moe-a2a-backend deepep --deepep-mode normal",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --moe-runner-backend flashinfer_cutedsl "
    "--quantization modelopt_fp4 --moe-a2a-backend deepep --deepep-mode low_latency",
)

# -- Cutlass MoE runner ------------------------------------------------------------

rule(
    code="SGL613",
    name="cutlass-fp8-moe-with-expert-parallelism",
    errors="fde2c63c8e52",
    # Only fp8: with mxfp8 SGLang may swap the runner first. Nemotron-H's ModelOpt
    # override rewrites --quantization from the checkpoint: quiet for those models.
    when=lambda cfg: served(cfg.model_path) and cfg.moe_runner_backend == "cutlass" and cfg.quantization == "fp8"
    and cfg.ep_size != 1 and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp
    and "nemotron" not in str(cfg.model_path).lower(),
    at="ep_size",
    message="FP8 `--moe-runner-backend cutlass` is only supported with `--ep-size 1`, not `--ep-size {ep_size}`",
    fix=set_("ep_size", "1"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --tp 8 --ep 8 --moe-runner-backend cutlass --quantization fp8",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --moe-runner-backend cutlass --quantization fp8",
)
