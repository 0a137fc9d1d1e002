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

# -- check_server_args: runs after the whole resolution pipeline (at engine launch) -----------
# The guards name the handlers that rewrite what a check reads before it runs:
# diffusion LLM inference (--dllm-algorithm) resets pp_size to 1; DWDP (--dwdp-size > 1) and
# prefill context parallelism (--enable-prefill-cp) rewrite dp_size and moe_dense_tp_size;
# the deprecated --enable-dp-attention moves dp_size to attn_dp_size; --skip-tokenizer-init
# forces detokenizer_worker_num to 1.

rule(
    code="SGL811",
    name="tp-pp-not-divisible-by-nnodes",
    errors="c85a4a4fdfdf",
    when=lambda cfg: cfg.ep_join_mode != "scale" and cfg.dllm_algorithm is None
    and (cfg.tp_size * cfg.pp_size) % cfg.nnodes != 0,
    at=("nnodes", "tp_size"),
    message="`--tp-size {tp_size}` times `--pp-size {pp_size}` is not divisible by `--nnodes {nnodes}`",
    example="--model-path Qwen/Qwen3-8B --tp-size 3 --nnodes 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --nnodes 2",
)

rule(
    code="SGL812",
    name="pp-max-micro-batch-size-below-one",
    errors="d48ea3a197e7",
    when=lambda cfg: cfg.pp_max_micro_batch_size is not None and cfg.pp_max_micro_batch_size < 1,
    at="pp_max_micro_batch_size",
    message="`--pp-max-micro-batch-size {pp_max_micro_batch_size}` must be a positive integer "
    "(or unset, to compute it)",
    fix=remove("pp_max_micro_batch_size"),
    example="--model-path Qwen/Qwen3-8B --pp-max-micro-batch-size 0",
    near_miss="--model-path Qwen/Qwen3-8B --pp-max-micro-batch-size 1",
)

rule(
    code="SGL813",
    name="cuda-graph-padding-disabled-with-torch-compile",
    errors="e3a8809559ac",
    when=lambda cfg: cfg.disable_cuda_graph_padding and cfg.enable_torch_compile,
    at="disable_cuda_graph_padding",
    message="`--disable-cuda-graph-padding` is incompatible with `--enable-torch-compile`",
    fix=remove("disable_cuda_graph_padding"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --disable-cuda-graph-padding --enable-torch-compile",
    near_miss="--model-path Qwen/Qwen3-8B --enable-torch-compile",
)

rule(
    code="SGL814",
    name="multi-node-dp-replicas",
    errors="7043611943b6",
    when=lambda cfg: cfg.dp_size > 1 and cfg.nnodes != 1 and not cfg.enable_dp_attention
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at=("dp_size", "nnodes"),
    message="`--dp-size {dp_size}` with `--nnodes {nnodes}`: multi-node data-parallel replicas are not "
    "supported; use attention DP (`--attn-dp-size`) across nodes",
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --nnodes 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --nnodes 2",
)

rule(
    code="SGL815",
    name="negative-base-gpu-id",
    errors="6b4143ef6783",
    when=lambda cfg: cfg.base_gpu_id < 0,
    at="base_gpu_id",
    message="`--base-gpu-id {base_gpu_id}` must be non-negative",
    fix=remove("base_gpu_id"),
    example="--model-path Qwen/Qwen3-8B --base-gpu-id -1",
    near_miss="--model-path Qwen/Qwen3-8B --base-gpu-id 0",
)

rule(
    code="SGL816",
    name="gpu-id-step-below-one",
    errors="b2ec46eca284",
    when=lambda cfg: cfg.gpu_id_step < 1,
    at="gpu_id_step",
    message="`--gpu-id-step {gpu_id_step}` must be positive",
    fix=remove("gpu_id_step"),
    example="--model-path Qwen/Qwen3-8B --gpu-id-step 0",
    near_miss="--model-path Qwen/Qwen3-8B --gpu-id-step 2",
)

rule(
    code="SGL817",
    name="unsupported-moe-dense-tp-size",
    errors="79e372dd0ffa",
    when=lambda cfg: cfg.moe_dense_tp_size not in (None, 1, cfg.tp_size)
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at="moe_dense_tp_size",
    message="`--moe-dense-tp-size {moe_dense_tp_size}` is not supported: only 1 or `--tp-size` ({tp_size})",
    fix=remove("moe_dense_tp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dense-tp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dense-tp-size 1",
)

rule(
    code="SGL818",
    name="served-model-name-with-colon",
    errors="4fdb2232c6cc",
    when=lambda cfg: cfg.served_model_name is not None and ":" in cfg.served_model_name
    and not cfg.served_model_name.lower().startswith(("s3://", "gs://", "az://")),
    at="served_model_name",
    message="`--served-model-name {served_model_name}` cannot contain a colon: it is reserved for the "
    "'model:adapter' syntax of LoRA adapters",
    fix=set_("served_model_name", lambda cfg: cfg.served_model_name.replace(":", "-")),
    example="--model-path Qwen/Qwen3-8B --served-model-name qwen3:8b",
    near_miss="--model-path Qwen/Qwen3-8B --served-model-name qwen3-8b",
)

rule(
    code="SGL819",
    name="tokenizer-worker-num-below-one",
    errors="19bdb04e2bd4",
    when=lambda cfg: cfg.tokenizer_worker_num <= 0,
    at="tokenizer_worker_num",
    message="`--tokenizer-worker-num {tokenizer_worker_num}` must be at least 1",
    fix=remove("tokenizer_worker_num"),
    example="--model-path Qwen/Qwen3-8B --tokenizer-worker-num 0",
    near_miss="--model-path Qwen/Qwen3-8B --tokenizer-worker-num 1",
)

rule(
    code="SGL820",
    name="detokenizer-worker-num-below-one",
    errors="0de03fac8789",
    when=lambda cfg: cfg.detokenizer_worker_num <= 0 and not cfg.skip_tokenizer_init,
    at="detokenizer_worker_num",
    message="`--detokenizer-worker-num {detokenizer_worker_num}` must be at least 1",
    fix=remove("detokenizer_worker_num"),
    example="--model-path Qwen/Qwen3-8B --detokenizer-worker-num 0",
    near_miss="--model-path Qwen/Qwen3-8B --detokenizer-worker-num 1",
)

rule(
    code="SGL821",
    name="negative-mm-processor-worker-num",
    errors="2f04bb318789",
    when=lambda cfg: cfg.mm_processor_worker_num < 0,
    at="mm_processor_worker_num",
    message="`--mm-processor-worker-num {mm_processor_worker_num}` must be non-negative",
    fix=remove("mm_processor_worker_num"),
    example="--model-path Qwen/Qwen3-8B --mm-processor-worker-num -1",
    near_miss="--model-path Qwen/Qwen3-8B --mm-processor-worker-num 0",
)

rule(
    code="SGL822",
    name="negative-mm-io-worker-num",
    errors="2b3a80742382",
    when=lambda cfg: cfg.mm_io_worker_num < 0,
    at="mm_io_worker_num",
    message="`--mm-io-worker-num {mm_io_worker_num}` must be non-negative",
    fix=remove("mm_io_worker_num"),
    example="--model-path Qwen/Qwen3-8B --mm-io-worker-num -1",
    near_miss="--model-path Qwen/Qwen3-8B --mm-io-worker-num 0",
)

rule(
    code="SGL823",
    name="negative-schedule-conservativeness",
    errors="6400c6401a52",
    when=lambda cfg: cfg.schedule_conservativeness < 0,
    at="schedule_conservativeness",
    message="`--schedule-conservativeness {schedule_conservativeness}` must be non-negative",
    fix=remove("schedule_conservativeness"),
    example="--model-path Qwen/Qwen3-8B --schedule-conservativeness -0.5",
    near_miss="--model-path Qwen/Qwen3-8B --schedule-conservativeness 0.5",
)
