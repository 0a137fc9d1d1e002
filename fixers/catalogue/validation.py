"""Catalogue rules: general validation (SGLang's `validation_hook.py`, `model_path_hook.py`, ...).

Value ranges, mutually exclusive options, pipeline-parallel compatibility,
ports, auxiliary hidden-state capture and the like.
"""

from __future__ import annotations

from autofix.rules import known, remove, rule, set_



def _device(cfg) -> str:  # noqa: ANN001
    """The device SGLang runs on: --device without its index; unknown when SGLang detects it."""
    return str(known(cfg.device)).split(":")[0]

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

rule(
    code="SGL824",
    name="instanttensor-on-non-cuda-device",
    errors="eb26f381c5aa",
    # A runai or remote model path turns load_format into runai_streamer / remote first.
    when=lambda cfg: cfg.load_format == "instanttensor" and "://" not in cfg.model_path
    and cfg.device is not None and _device(cfg) != "cuda",
    at="load_format",
    message="`--load-format instanttensor` requires a CUDA-compatible device, got `--device {device}`",
    fix=remove("load_format"),
    example="--model-path Qwen/Qwen3-8B --load-format instanttensor --device cpu",
    near_miss="--model-path Qwen/Qwen3-8B --load-format instanttensor --device cuda",
)

rule(
    code="SGL825",
    name="allowed-custom-labels-without-header",
    errors="ee7697e38b6e",
    when=lambda cfg: not cfg.tokenizer_metrics_custom_labels_header
    and cfg.tokenizer_metrics_allowed_custom_labels,
    at=("tokenizer_metrics_custom_labels_header", "tokenizer_metrics_allowed_custom_labels"),
    message="`--tokenizer-metrics-allowed-custom-labels` needs a `--tokenizer-metrics-custom-labels-header`",
    fix=remove("tokenizer_metrics_custom_labels_header"),
    example="--model-path Qwen/Qwen3-8B --tokenizer-metrics-custom-labels-header '' "
    "--tokenizer-metrics-allowed-custom-labels tenant",
    near_miss="--model-path Qwen/Qwen3-8B --tokenizer-metrics-allowed-custom-labels tenant",
)

rule(
    code="SGL826",
    name="export-metrics-to-file-without-dir",
    errors="a2280a37f79a",
    when=lambda cfg: cfg.export_metrics_to_file and cfg.export_metrics_to_file_dir is None,
    at="export_metrics_to_file",
    message="`--export-metrics-to-file` requires `--export-metrics-to-file-dir`",
    fix=remove("export_metrics_to_file"),
    example="--model-path Qwen/Qwen3-8B --export-metrics-to-file",
    near_miss="--model-path Qwen/Qwen3-8B --export-metrics-to-file --export-metrics-to-file-dir /tmp/metrics",
)

rule(
    code="SGL827",
    name="quant-communications-with-tp-size-one",
    errors="381f82e8f631",
    when=lambda cfg: cfg.enable_quant_communications and cfg.tp_size == 1,
    at="enable_quant_communications",
    message="`--enable-quant-communications` is only used with `--tp-size` above 1",
    fix=remove("enable_quant_communications"),
    example="--model-path Qwen/Qwen3-8B --enable-quant-communications",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2",
)

rule(
    code="SGL828",
    name="quant-communications-off-npu",
    errors="b6c3a9d1ee3c",
    when=lambda cfg: cfg.enable_quant_communications and cfg.tp_size != 1 and _device(cfg) != "npu",
    at="enable_quant_communications",
    message="`--enable-quant-communications` is only supported on NPU devices, got `--device {device}`",
    fix=remove("enable_quant_communications"),
    example="--model-path Qwen/Qwen3-8B --enable-quant-communications --tp-size 2 --device cuda",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --device cuda",
)

rule(
    code="SGL829",
    name="grpc-port-equals-port",
    errors="40c3adad88a8",
    # The legacy SMG gRPC modes derive and check their own port; an unset --grpc-port may come
    # from SGLANG_GRPC_PORT, so only a written one is compared.
    when=lambda cfg: not (cfg.smg_grpc_mode or cfg.grpc_mode) and cfg.grpc_port is not None
    and cfg.grpc_port == cfg.port,
    at="grpc_port",
    message="`--grpc-port {grpc_port}` must differ from `--port {port}`",
    example="--model-path Qwen/Qwen3-8B --port 30000 --grpc-port 30000",
    near_miss="--model-path Qwen/Qwen3-8B --port 30000 --grpc-port 30001",
)

rule(
    code="SGL830",
    name="gc-threshold-too-many-values",
    errors="0e519cb7b24e",
    when=lambda cfg: cfg.gc_threshold and not 1 <= len(cfg.gc_threshold) <= 3,
    at="gc_threshold",
    message="`--gc-threshold` takes 1 to 3 integers, got {gc_threshold}",
    example="--model-path Qwen/Qwen3-8B --gc-threshold 700 10 10 5",
    near_miss="--model-path Qwen/Qwen3-8B --gc-threshold 700 10 10",
)

rule(
    code="SGL831",
    name="kv-canary-sweep-without-kv-canary",
    errors="439e7631f02a",
    when=lambda cfg: cfg.kv_canary_sweep_interval > 0 and cfg.kv_canary == "none",
    at="kv_canary_sweep_interval",
    message="`--kv-canary-sweep-interval {kv_canary_sweep_interval}` requires `--kv-canary` log or raise",
    fix=remove("kv_canary_sweep_interval"),
    example="--model-path Qwen/Qwen3-8B --kv-canary-sweep-interval 100",
    near_miss="--model-path Qwen/Qwen3-8B --kv-canary-sweep-interval 100 --kv-canary log",
)

rule(
    code="SGL832",
    name="intel-xpu-sampling-backend-off-xpu",
    errors="c0d0a70ea44e",
    # On cpu and hpu SGLang replaces the sampling backend by pytorch; deterministic inference
    # replaces it by pytorch too.
    when=lambda cfg: cfg.sampling_backend == "intel_xpu" and not cfg.enable_deterministic_inference
    and _device(cfg) not in ("xpu", "cpu", "hpu"),
    at="sampling_backend",
    message="`--sampling-backend intel_xpu` requires `--device xpu`, got `--device {device}`",
    fix=remove("sampling_backend"),
    example="--model-path Qwen/Qwen3-8B --sampling-backend intel_xpu --device cuda",
    near_miss="--model-path Qwen/Qwen3-8B --sampling-backend pytorch --device cuda",
)

rule(
    code="SGL833",
    name="load-publish-endpoint-without-kv-events",
    errors="35a75a3b8ef7",
    when=lambda cfg: (cfg.load_publish_endpoint or "").strip() != ""
    and (cfg.load_publish_endpoint or "").strip().lower() != "off" and not cfg.kv_events_config,
    at="load_publish_endpoint",
    message="`--load-publish-endpoint` requires `--kv-events-config`: routers discover the load range "
    "through its publisher",
    fix=remove("load_publish_endpoint"),
    example="--model-path Qwen/Qwen3-8B --load-publish-endpoint auto",
    near_miss="--model-path Qwen/Qwen3-8B --load-publish-endpoint off",
)

rule(
    code="SGL834",
    name="pdmux-with-pipeline-parallelism",
    errors="94dd470b2e83",
    when=lambda cfg: cfg.enable_pdmux and cfg.pp_size != 1 and cfg.dllm_algorithm is None,
    at="enable_pdmux",
    message="`--enable-pdmux` (PD-Multiplexing) is only supported with `--pp-size 1`",
    fix=remove("enable_pdmux"),
    example="--model-path Qwen/Qwen3-8B --enable-pdmux --pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --pp-size 2",
)

rule(
    code="SGL835",
    name="pdmux-with-pd-disaggregation",
    errors="1b7602d8bb4d",
    when=lambda cfg: cfg.enable_pdmux and cfg.disaggregation_mode != "null" and cfg.dllm_algorithm is None,
    at="enable_pdmux",
    message="`--enable-pdmux` (PD-Multiplexing) is not compatible with `--disaggregation-mode {disaggregation_mode}`",
    fix=remove("enable_pdmux"),
    example="--model-path Qwen/Qwen3-8B --enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule "
    "--disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --chunked-prefill-size -1 --disable-overlap-schedule "
    "--disaggregation-mode prefill",
)

rule(
    code="SGL836",
    name="weight-cache-with-speculative-decoding",
    errors="0cf7df1d9d4f",
    # --enable-return-aux-hidden-states (0.5.23) resets speculative_algorithm to None first.
    when=lambda cfg: cfg.weight_cache_mode != "off" and cfg.speculative_algorithm is not None
    and not cfg.get("enable_return_aux_hidden_states", False),
    at="weight_cache_mode",
    message="`--weight-cache-mode {weight_cache_mode}` is not supported with speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`): the daemon does not export the draft weights",
    fix=remove("weight_cache_mode"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --weight-cache-mode client --speculative-algorithm EAGLE",
    near_miss="--model-path Qwen/Qwen3-8B --weight-cache-mode client",
)

# -- check_watermark_server_args (called last in check_server_args) ---------------------------

rule(
    code="SGL837",
    name="watermark-config-without-watermark",
    errors="b0c06256ea01",
    when=lambda cfg: cfg.watermark_config is not None and not cfg.enable_watermark,
    at="watermark_config",
    message="`--watermark-config` requires `--enable-watermark`",
    fix=set_("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --watermark-config '{}'",
    near_miss="--model-path Qwen/Qwen3-8B --watermark-config '{}' --enable-watermark",
)

rule(
    code="SGL838",
    name="watermark-off-cuda",
    errors="e66a251804b6",
    when=lambda cfg: cfg.enable_watermark and _device(cfg) != "cuda",
    at=("device", "enable_watermark"),
    message="`--enable-watermark` requires `--device cuda`, got `--device {device}`",
    fix=remove("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --enable-watermark --device cpu",
    near_miss="--model-path Qwen/Qwen3-8B --enable-watermark --device cuda",
)

rule(
    code="SGL839",
    name="watermark-with-custom-logit-processor",
    errors="b2dfec9f3987",
    when=lambda cfg: cfg.enable_watermark and cfg.enable_custom_logit_processor,
    at="enable_watermark",
    message="`--enable-watermark` is incompatible with `--enable-custom-logit-processor`",
    fix=remove("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --enable-watermark --enable-custom-logit-processor",
    near_miss="--model-path Qwen/Qwen3-8B --enable-watermark",
)

rule(
    code="SGL840",
    name="watermark-with-diffusion-llm",
    errors="b0524f4bc176",
    when=lambda cfg: cfg.enable_watermark and cfg.dllm_algorithm is not None,
    at="enable_watermark",
    message="`--enable-watermark` is not supported with diffusion LLM inference (`--dllm-algorithm`)",
    fix=remove("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --enable-watermark --dllm-algorithm LowConfidence",
    near_miss="--model-path Qwen/Qwen3-8B --dllm-algorithm LowConfidence",
)

rule(
    code="SGL841",
    name="watermark-with-pd-disaggregation",
    errors="a48e94640c0b",
    when=lambda cfg: cfg.enable_watermark and cfg.disaggregation_mode != "null",
    at="enable_watermark",
    message="`--enable-watermark` is not supported with `--disaggregation-mode {disaggregation_mode}`",
    fix=remove("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --enable-watermark --disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill",
)

rule(
    code="SGL842",
    name="watermark-with-unsupported-speculative-algorithm",
    errors="346ad71ea1fb",
    # SGLang upper-cases the algorithm and turns NEXTN into EAGLE (or, for a Gemma4 draft,
    # FROZEN_KV_MTP) first; --enable-return-aux-hidden-states (0.5.23) resets it to None.
    when=lambda cfg: cfg.enable_watermark and cfg.speculative_algorithm is not None
    and cfg.speculative_algorithm.upper() not in ("NGRAM", "EAGLE", "EAGLE3", "NEXTN")
    and not cfg.get("enable_return_aux_hidden_states", False),
    at=("speculative_algorithm", "enable_watermark"),
    message="`--enable-watermark` supports speculative algorithms NGRAM, EAGLE and EAGLE3, "
    "got `--speculative-algorithm {speculative_algorithm}`",
    fix=remove("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --enable-watermark --speculative-algorithm STANDALONE "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B",
)

rule(
    code="SGL843",
    name="watermark-with-rejection-sampling",
    errors="446ea16ff2e1",
    when=lambda cfg: cfg.enable_watermark and cfg.speculative_use_rejection_sampling,
    at="enable_watermark",
    message="`--enable-watermark` is incompatible with `--speculative-use-rejection-sampling`",
    fix=remove("enable_watermark"),
    example="--model-path Qwen/Qwen3-8B --enable-watermark --speculative-algorithm EAGLE "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B --speculative-num-steps 3 --speculative-eagle-topk 1 "
    "--speculative-num-draft-tokens 4 --speculative-use-rejection-sampling",
    near_miss="--model-path Qwen/Qwen3-8B --enable-watermark --speculative-algorithm EAGLE "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B --speculative-num-steps 3 --speculative-eagle-topk 1 "
    "--speculative-num-draft-tokens 4",
)

# -- pipeline parallelism (check_server_args / check_pipeline_parallel_compat, pp_size > 1) ----

rule(
    code="SGL844",
    name="min-free-slots-delay-with-pipeline-parallelism",
    errors="67a55806065f",
    when=lambda cfg: cfg.pp_size > 1 and cfg.dllm_algorithm is None and cfg.min_free_slots_delay is not None,
    at="min_free_slots_delay",
    message="`--min-free-slots-delay` is not supported with pipeline parallelism (`--pp-size {pp_size}`)",
    fix=remove("min_free_slots_delay"),
    example="--model-path Qwen/Qwen3-8B --pp-size 2 --min-free-slots-delay 5",
    near_miss="--model-path Qwen/Qwen3-8B --pp-size 2",
)
