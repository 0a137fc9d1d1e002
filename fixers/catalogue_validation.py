"""Catalogue rules: general validation (SGLang's `validation_hook.py`, `model_path_hook.py`, ...).

Value ranges, mutually exclusive options, pipeline-parallel compatibility,
ports, auxiliary hidden-state capture and the like.
"""

from __future__ import annotations

from autofix.rules import remove, rule, set_

# -- validate_prefill_decode_interval / validate_response_store / sampling mask ---------------
# These run at the head of the resolution pipeline, before any handler writes what they read.

rule(
    code="SGL800",
    name="negative-prefill-decode-interval",
    errors="2deefac17615",
    when=lambda cfg: cfg.prefill_decode_interval is not None and cfg.prefill_decode_interval < 0,
    at="prefill_decode_interval",
    message="`--prefill-decode-interval {prefill_decode_interval}` must be non-negative",
    fix=remove("prefill_decode_interval"),
    example="--model-path Qwen/Qwen3-8B --prefill-decode-interval -1",
    near_miss="--model-path Qwen/Qwen3-8B --prefill-decode-interval 0",
)

rule(
    code="SGL801",
    name="negative-prefill-decode-interval-min-bs",
    errors="3d37437a06c0",
    when=lambda cfg: cfg.prefill_decode_interval_min_bs < 0,
    at="prefill_decode_interval_min_bs",
    message="`--prefill-decode-interval-min-bs {prefill_decode_interval_min_bs}` must be non-negative",
    fix=remove("prefill_decode_interval_min_bs"),
    example="--model-path Qwen/Qwen3-8B --prefill-decode-interval-min-bs -4",
    near_miss="--model-path Qwen/Qwen3-8B --prefill-decode-interval-min-bs 4",
)

rule(
    code="SGL802",
    name="non-positive-sampling-mask-max-tokens",
    errors="028135490b3d",
    when=lambda cfg: cfg.sampling_mask_max_tokens <= 0,
    at="sampling_mask_max_tokens",
    message="`--sampling-mask-max-tokens {sampling_mask_max_tokens}` must be positive",
    fix=remove("sampling_mask_max_tokens"),
    example="--model-path Qwen/Qwen3-8B --sampling-mask-max-tokens 0",
    near_miss="--model-path Qwen/Qwen3-8B --sampling-mask-max-tokens 1024",
)

rule(
    code="SGL803",
    name="response-store-with-pd-disaggregation",
    errors="1c4e90a7890f",
    when=lambda cfg: cfg.enable_response_store and cfg.disaggregation_mode != "null",
    at="enable_response_store",
    message="`--enable-response-store` is not supported with `--disaggregation-mode {disaggregation_mode}`",
    fix=remove("enable_response_store"),
    example="--model-path Qwen/Qwen3-8B --enable-response-store --disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --enable-response-store",
)

# -- handle_aux_hidden_state_capture: runs before anything else reads speculative_algorithm ----

_AUX_METHODS = ("EAGLE3", "DFLASH", "DSPARK")


rule(
    code="SGL804",
    name="aux-hidden-state-layer-ids-without-capture",
    errors="21a2c92deb4a",
    when=lambda cfg: not cfg.enable_return_aux_hidden_states
    and cfg.return_aux_hidden_state_layer_ids is not None,
    at="return_aux_hidden_state_layer_ids",
    message="`--return-aux-hidden-state-layer-ids` requires `--enable-return-aux-hidden-states`",
    fix=remove("return_aux_hidden_state_layer_ids"),
    example="--model-path Qwen/Qwen3-8B --return-aux-hidden-state-layer-ids 1 2",
    near_miss="--model-path Qwen/Qwen3-8B --return-aux-hidden-state-layer-ids 1 2 "
    "--enable-return-aux-hidden-states --speculative-algorithm EAGLE3",
)

rule(
    code="SGL805",
    name="aux-hidden-states-without-capture-algorithm",
    errors="b48970b34f1f",
    when=lambda cfg: cfg.enable_return_aux_hidden_states and (cfg.speculative_algorithm or "").upper() not in _AUX_METHODS,
    at=("speculative_algorithm", "enable_return_aux_hidden_states"),
    message="`--enable-return-aux-hidden-states` needs `--speculative-algorithm` EAGLE3, DFLASH or DSPARK "
    "to name the capture convention",
    fix=set_("speculative_algorithm", "EAGLE3"),
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3",
)

rule(
    code="SGL806",
    name="aux-hidden-states-with-draft-model",
    errors="ff128ebb1e70",
    when=lambda cfg: cfg.enable_return_aux_hidden_states and (cfg.speculative_algorithm or "").upper() in _AUX_METHODS
    and cfg.speculative_draft_model_path is not None,
    at="speculative_draft_model_path",
    message="`--enable-return-aux-hidden-states` captures without a draft: drop `--speculative-draft-model-path`",
    fix=remove("speculative_draft_model_path"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3",
)

rule(
    code="SGL807",
    name="aux-hidden-states-with-pipeline-parallelism",
    errors="e4d5a43037f7",
    when=lambda cfg: cfg.enable_return_aux_hidden_states and (cfg.speculative_algorithm or "").upper() in _AUX_METHODS
    and cfg.pp_size != 1,
    at=("pp_size", "enable_return_aux_hidden_states"),
    message="`--enable-return-aux-hidden-states` only supports `--pp-size 1` (got `--pp-size {pp_size}`)",
    fix=remove("pp_size"),
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3",
)

rule(
    code="SGL808",
    name="aux-hidden-states-without-layer-ids",
    errors="d91909bcbc67",
    when=lambda cfg: cfg.enable_return_aux_hidden_states and (cfg.speculative_algorithm or "").upper() in ("DFLASH", "DSPARK")
    and not cfg.return_aux_hidden_state_layer_ids,
    at=("speculative_algorithm", "enable_return_aux_hidden_states"),
    message="`--enable-return-aux-hidden-states` with `--speculative-algorithm {speculative_algorithm}` "
    "requires `--return-aux-hidden-state-layer-ids`",
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm DFLASH",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm DFLASH "
    "--return-aux-hidden-state-layer-ids 1 2",
)

rule(
    code="SGL809",
    name="negative-aux-hidden-state-layer-id",
    errors="c18e6a16cf9f",
    when=lambda cfg: cfg.enable_return_aux_hidden_states and (cfg.speculative_algorithm or "").upper() in _AUX_METHODS
    and cfg.return_aux_hidden_state_layer_ids is not None
    and any(i < 0 for i in cfg.return_aux_hidden_state_layer_ids),
    at="return_aux_hidden_state_layer_ids",
    message="`--return-aux-hidden-state-layer-ids` must be non-negative",
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--return-aux-hidden-state-layer-ids -1 2",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--return-aux-hidden-state-layer-ids 1 2",
)

rule(
    code="SGL810",
    name="repeated-aux-hidden-state-layer-id",
    errors="bb27ec10a6cd",
    when=lambda cfg: cfg.enable_return_aux_hidden_states and (cfg.speculative_algorithm or "").upper() in _AUX_METHODS
    and cfg.return_aux_hidden_state_layer_ids is not None
    and all(i >= 0 for i in cfg.return_aux_hidden_state_layer_ids)
    and len(set(cfg.return_aux_hidden_state_layer_ids)) != len(cfg.return_aux_hidden_state_layer_ids),
    at="return_aux_hidden_state_layer_ids",
    message="`--return-aux-hidden-state-layer-ids` must not repeat a layer",
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--return-aux-hidden-state-layer-ids 2 2",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--return-aux-hidden-state-layer-ids 1 2",
)
