"""Catalogue rules: serving options, SSL, HTTP/2, ASR, multimodal, gRPC and sidecar
(SGLang's `serving_hook.py`), PD and encoder disaggregation (`pd_disaggregation_hook.py`)
and LoRA (`lora_hook.py`); in 0.5.17/0.5.18 the same checks live in `server_args.py`."""

from __future__ import annotations

import json

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served


def _json(text: object) -> object:
    """A JSON option's value as SGLang's parser decodes it; unknown when it does not decode."""
    try:
        return json.loads(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise Unresolvable("not JSON") from None


# Helpers take values, not cfg, so that a rule's reads name every flag they look at.


def _decoded_again(value: object) -> object:
    """SGLang decodes a JSON option once more when the parser's value is itself a string."""
    if isinstance(value, str):
        raise Unresolvable("a JSON string holding JSON")
    return value


def _bad_modalities(limits: object) -> bool:
    """`handle_other_validations`: a truthy object whose keys are not all image/video/audio."""
    limits = _decoded_again(limits)
    return bool(limits) and isinstance(limits, dict) and any(k not in ("image", "video", "audio") for k in limits)


def _holds_watermark(params: object) -> bool:
    """`"watermark" in preferred_sampling_params`, for a truthy decoded value."""
    params = _decoded_again(params)
    if not params:
        return False
    if not isinstance(params, (dict, list)):
        raise Unresolvable("not an object or array")  # `in` on a number raises TypeError
    return "watermark" in params




def _lora(enable_lora: object, lora_paths: object, dllm_algorithm: object) -> bool:
    """Whether `check_lora_server_args` sees LoRA on: `--enable-lora`, or `--lora-paths`
    when `--enable-lora` is unset; a dLLM (`--dllm-algorithm`) turns LoRA off first."""
    on = enable_lora if enable_lora is not None else bool(lora_paths)
    return bool(on) and dllm_algorithm is None


def _lora_count(paths: object) -> int:
    """How many adapters `--lora-paths` names (each word is one; none when unset)."""
    if paths is None:
        return 0
    if not isinstance(paths, list):
        raise Unresolvable("--lora-paths is not a list of words")
    return len(paths)


# -- SSL, HTTP/2 -----------------------------------------------------------------

rule(
    code="SGL700",
    name="ssl-ca-certs-without-certfile-and-keyfile",
    errors="96f76a082bde",
    when=lambda cfg: served(cfg.model_path) and not cfg.ssl_certfile and not cfg.ssl_keyfile and cfg.ssl_ca_certs,
    at="ssl_ca_certs",
    message="`--ssl-ca-certs` has no effect without `--ssl-certfile` and `--ssl-keyfile`",
    fix=remove("ssl_ca_certs"),
    example="--model-path Qwen/Qwen3-8B --ssl-ca-certs /etc/ssl/certs/ca.pem",
    near_miss="--model-path Qwen/Qwen3-8B",
)

rule(
    code="SGL701",
    name="ssl-keyfile-password-without-certfile-and-keyfile",
    errors="a7b2d22c4f86",
    when=lambda cfg: served(cfg.model_path) and not cfg.ssl_certfile and not cfg.ssl_keyfile and cfg.ssl_keyfile_password,
    at="ssl_keyfile_password",
    message="`--ssl-keyfile-password` has no effect without `--ssl-certfile` and `--ssl-keyfile`",
    fix=remove("ssl_keyfile_password"),
    example="--model-path Qwen/Qwen3-8B --ssl-keyfile-password secret",
    near_miss="--model-path Qwen/Qwen3-8B",
)

rule(
    code="SGL702",
    name="ssl-refresh-without-certfile-and-keyfile",
    errors="9c7f164d6a8e",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_ssl_refresh and not (cfg.ssl_certfile and cfg.ssl_keyfile),
    at="enable_ssl_refresh",
    message="`--enable-ssl-refresh` requires `--ssl-certfile` and `--ssl-keyfile`",
    fix=remove("enable_ssl_refresh"),
    example="--model-path Qwen/Qwen3-8B --enable-ssl-refresh",
    near_miss="--model-path Qwen/Qwen3-8B",
)

rule(
    code="SGL703",
    name="http-worker-reuseport-without-tokenizer-workers",
    errors="c5f4d2d67d48",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_http_worker_reuseport and (cfg.tokenizer_worker_num == 1 or cfg.enable_http2),
    at="enable_http_worker_reuseport",
    message="`--enable-http-worker-reuseport` requires `--tokenizer-worker-num` above 1 "
            "and has no effect with `--enable-http2`",
    fix=remove("enable_http_worker_reuseport"),
    example="--model-path Qwen/Qwen3-8B --enable-http-worker-reuseport",
    near_miss="--model-path Qwen/Qwen3-8B --enable-http-worker-reuseport --tokenizer-worker-num 2",
)

# No fix for the HTTP/2 ranges: only the user knows the value meant.
rule(
    code="SGL704",
    name="http2-max-concurrent-streams-out-of-range",
    errors="344acb125b52",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_http2 and not 0 < cfg.http2_max_concurrent_streams < 2**32,
    at="http2_max_concurrent_streams",
    message="`--http2-max-concurrent-streams {http2_max_concurrent_streams}` is not between 1 and 4294967295",
    example="--model-path Qwen/Qwen3-8B --enable-http2 --http2-max-concurrent-streams 0",
    near_miss="--model-path Qwen/Qwen3-8B --http2-max-concurrent-streams 0",
)

rule(
    code="SGL705",
    name="http2-initial-connection-window-size-out-of-range",
    errors="fee7a7570c74",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_http2 and not 1024 <= cfg.http2_initial_connection_window_size < 2**31,
    at="http2_initial_connection_window_size",
    message="`--http2-initial-connection-window-size {http2_initial_connection_window_size}` "
            "is not between 1024 and 2147483647",
    example="--model-path Qwen/Qwen3-8B --enable-http2 --http2-initial-connection-window-size 512",
    near_miss="--model-path Qwen/Qwen3-8B --http2-initial-connection-window-size 512",
)

# -- ASR, multimodal ---------------------------------------------------------------

rule(
    code="SGL706",
    name="asr-max-buffer-seconds-not-positive",
    errors="f0d97ae1f2f2",
    when=lambda cfg: served(cfg.model_path) and cfg.asr_max_buffer_seconds <= 0,
    at="asr_max_buffer_seconds",
    message="`--asr-max-buffer-seconds {asr_max_buffer_seconds}` must be positive",
    fix=remove("asr_max_buffer_seconds"),
    example="--model-path Qwen/Qwen3-8B --asr-max-buffer-seconds 0",
    near_miss="--model-path Qwen/Qwen3-8B --asr-max-buffer-seconds 1",
)

rule(
    code="SGL707",
    name="asr-max-concurrent-sessions-not-positive",
    errors="734aa2aad974",
    when=lambda cfg: served(cfg.model_path) and cfg.asr_max_concurrent_sessions <= 0,
    at="asr_max_concurrent_sessions",
    message="`--asr-max-concurrent-sessions {asr_max_concurrent_sessions}` must be positive",
    fix=remove("asr_max_concurrent_sessions"),
    example="--model-path Qwen/Qwen3-8B --asr-max-concurrent-sessions 0",
    near_miss="--model-path Qwen/Qwen3-8B --asr-max-concurrent-sessions 1",
)

rule(
    code="SGL708",
    name="mm-preprocess-cache-size-negative",
    errors="3fd248990b47",
    when=lambda cfg: served(cfg.model_path) and cfg.mm_preprocess_cache_size_mb is not None and cfg.mm_preprocess_cache_size_mb < 0,
    at="mm_preprocess_cache_size_mb",
    message="`--mm-preprocess-cache-size-mb {mm_preprocess_cache_size_mb}` must be non-negative",
    fix=remove("mm_preprocess_cache_size_mb"),
    example="--model-path Qwen/Qwen3-8B --mm-preprocess-cache-size-mb -1",
    near_miss="--model-path Qwen/Qwen3-8B --mm-preprocess-cache-size-mb 0",
)

rule(
    code="SGL709",
    name="disable-fast-image-processor-with-other-image-backend",
    errors="5563b202ede8",
    when=lambda cfg: served(cfg.model_path) and cfg.disable_fast_image_processor and cfg.image_processor_backend not in {"auto", "pil"},
    at="disable_fast_image_processor",
    message="`--disable-fast-image-processor` conflicts with `--image-processor-backend {image_processor_backend}`",
    fix=remove("disable_fast_image_processor"),
    example="--model-path Qwen/Qwen3-8B --disable-fast-image-processor --image-processor-backend torchvision",
    near_miss="--model-path Qwen/Qwen3-8B --disable-fast-image-processor --image-processor-backend pil",
)

rule(
    code="SGL720",
    name="mm-feature-transport-cuda-vmm-with-pipeline-parallelism",
    errors="241bf11281a4",
    # encoder-only serving replaces the transport with cpu first.
    when=lambda cfg: served(cfg.model_path) and cfg.mm_feature_transport == "cuda_vmm" and not cfg.encoder_only and cfg.pp_size != 1,
    at="mm_feature_transport",
    message="`--mm-feature-transport cuda_vmm` does not support pipeline parallelism (`--pp-size {pp_size}`)",
    fix=remove("mm_feature_transport"),
    example="--model-path Qwen/Qwen3-8B --mm-feature-transport cuda_vmm --pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --mm-feature-transport cpu --pp-size 2",
)

rule(
    code="SGL721",
    name="mm-feature-transport-cuda-ipc-multi-node",
    errors="1ade55c011af",
    when=lambda cfg: served(cfg.model_path) and cfg.mm_feature_transport == "cuda_ipc" and not cfg.encoder_only and cfg.nnodes != 1,
    at="mm_feature_transport",
    message="`--mm-feature-transport cuda_ipc` only supports a single node (`--nnodes {nnodes}`)",
    fix=remove("mm_feature_transport"),
    example="--model-path Qwen/Qwen3-8B --mm-feature-transport cuda_ipc --nnodes 2 --tp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --mm-feature-transport cpu --nnodes 2 --tp-size 2",
)

# JSON options: SGLang's parser decodes them with json.loads; a launch whose text does not
# decode is refused by the parser, and these rules stay quiet on it.

rule(
    code="SGL731",
    name="mm-process-config-not-an-object",
    errors="e233cc119b41",
    when=lambda cfg: served(cfg.model_path) and cfg.mm_process_config is not None
    and (config := _json(cfg.mm_process_config)) is not None and not isinstance(config, dict),
    at="mm_process_config",
    message="`--mm-process-config` must be a JSON object",
    fix=remove("mm_process_config"),
    example="--model-path Qwen/Qwen3-8B --mm-process-config '[1]'",
    near_miss="--model-path Qwen/Qwen3-8B --mm-process-config '{}'",
)

rule(
    code="SGL732",
    name="mm-process-config-modality-not-an-object",
    errors="d36e92ec71d0",
    when=lambda cfg: served(cfg.model_path) and cfg.mm_process_config is not None
    and isinstance(config := _json(cfg.mm_process_config), dict)
    and any(key in config and not isinstance(config[key], dict) for key in ("image", "video", "audio")),
    at="mm_process_config",
    message="`--mm-process-config`: the `image`, `video` and `audio` entries must be JSON objects",
    example="--model-path Qwen/Qwen3-8B --mm-process-config '{\"image\": 1}'",
    near_miss="--model-path Qwen/Qwen3-8B --mm-process-config '{\"image\": {}}'",
)

rule(
    code="SGL734",
    name="limit-mm-data-per-request-unknown-modality",
    errors="a4eb3b814c1e",
    when=lambda cfg: served(cfg.model_path) and cfg.limit_mm_data_per_request is not None
    and _bad_modalities(_json(cfg.limit_mm_data_per_request)),
    at="limit_mm_data_per_request",
    message="`--limit-mm-data-per-request` names a modality other than `image`, `video` and `audio`",
    example="--model-path Qwen/Qwen3-8B --limit-mm-data-per-request '{\"images\": 2}'",
    near_miss="--model-path Qwen/Qwen3-8B --limit-mm-data-per-request '{\"image\": 2}'",
)

rule(
    code="SGL735",
    name="watermark-in-preferred-sampling-params",
    errors="2e8086a46800",
    when=lambda cfg: served(cfg.model_path) and cfg.preferred_sampling_params is not None
    and _holds_watermark(_json(cfg.preferred_sampling_params)),
    at="preferred_sampling_params",
    message="`watermark` is not supported in `--preferred-sampling-params`",
    example="--model-path Qwen/Qwen3-8B --preferred-sampling-params '{\"watermark\": true}'",
    near_miss="--model-path Qwen/Qwen3-8B --preferred-sampling-params '{\"temperature\": 0.6}'",
)

# -- gRPC and the sidecar --------------------------------------------------------------
# Native gRPC is `--grpc-port` without the legacy `--smg-grpc-mode` (or its deprecated alias
# `--grpc-mode`). `SGLANG_GRPC_PORT` only fills a port the launch leaves unset, so a written
# port is known and an unwritten one keeps these rules quiet.

rule(
    code="SGL710",
    name="grpc-response-timeout-not-positive",
    errors="780fc0a5acdb",
    when=lambda cfg: served(cfg.model_path) and cfg.grpc_response_timeout_secs <= 0,
    at="grpc_response_timeout_secs",
    message="`--grpc-response-timeout-secs {grpc_response_timeout_secs}` must be positive",
    fix=remove("grpc_response_timeout_secs"),
    example="--model-path Qwen/Qwen3-8B --grpc-response-timeout-secs 0",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-response-timeout-secs 1",
)

rule(
    code="SGL711",
    name="grpc-port-out-of-range",
    errors="18a0cd12108c",
    when=lambda cfg: served(cfg.model_path) and cfg.grpc_port is not None and not 1 <= cfg.grpc_port <= 65535,
    at="grpc_port",
    message="`--grpc-port {grpc_port}` is not between 1 and 65535",
    example="--model-path Qwen/Qwen3-8B --grpc-port 70000",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051",
)

rule(
    code="SGL712",
    name="sidecar-args-without-sidecar",
    errors="5cb609a2a972",
    when=lambda cfg: served(cfg.model_path) and cfg.sidecar_args is not None and _json(cfg.sidecar_args) is not None and cfg.sidecar is None,
    at="sidecar_args",
    message="`--sidecar-args` requires `--sidecar`",
    fix=remove("sidecar_args"),
    example="--model-path Qwen/Qwen3-8B --sidecar-args '[\"--verbose\"]'",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051 --sidecar /opt/sidecar --sidecar-args '[\"--verbose\"]'",
)

rule(
    code="SGL713",
    name="sidecar-args-not-a-list-of-strings",
    errors="7e626854ca90",
    when=lambda cfg: served(cfg.model_path) and cfg.sidecar_args is not None and cfg.sidecar is not None and (
        (args := _json(cfg.sidecar_args)) is not None
        and (not isinstance(args, list) or not all(isinstance(a, str) for a in args))
    ),
    at="sidecar_args",
    message="`--sidecar-args` must be a JSON array of strings",
    example="--model-path Qwen/Qwen3-8B --grpc-port 50051 --sidecar /opt/sidecar --sidecar-args '{\"verbose\": true}'",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051 --sidecar /opt/sidecar --sidecar-args '[\"--verbose\"]'",
)

rule(
    code="SGL714",
    name="sidecar-empty",
    errors="5a1f007ca4c9",
    when=lambda cfg: served(cfg.model_path) and cfg.sidecar is not None and not cfg.sidecar.strip(),
    at="sidecar",
    message="`--sidecar` must not be empty",
    fix=remove("sidecar"),
    example="--model-path Qwen/Qwen3-8B --grpc-port 50051 --sidecar ' '",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051 --sidecar /opt/sidecar",
)

rule(
    code="SGL715",
    name="sidecar-with-legacy-grpc",
    errors="eedfab700778",
    when=lambda cfg: served(cfg.model_path) and cfg.sidecar is not None and cfg.sidecar.strip() and (cfg.smg_grpc_mode or cfg.grpc_mode),
    at=("sidecar", "smg_grpc_mode", "grpc_mode"),
    message="`--sidecar` requires SGLang's native gRPC server (`--grpc-port`); "
            "it cannot be combined with `--smg-grpc-mode`/`--grpc-mode`",
    fix=remove("sidecar"),
    example="--model-path Qwen/Qwen3-8B --smg-grpc-mode --sidecar /opt/sidecar",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051 --sidecar /opt/sidecar",
)

rule(
    code="SGL716",
    name="native-grpc-with-ray",
    errors="83948927a870",
    when=lambda cfg: served(cfg.model_path) and cfg.grpc_port is not None and not (cfg.smg_grpc_mode or cfg.grpc_mode) and cfg.use_ray,
    at="grpc_port",
    message="`--grpc-port` is not supported with `--use-ray`: the Ray serve launch path "
            "does not start the native gRPC server",
    fix=remove("grpc_port"),
    example="--model-path Qwen/Qwen3-8B --grpc-port 50051 --use-ray",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051",
)

rule(
    code="SGL717",
    name="native-grpc-with-encoder-only",
    errors="e063d789bda5",
    when=lambda cfg: served(cfg.model_path) and cfg.grpc_port is not None and not (cfg.smg_grpc_mode or cfg.grpc_mode) and cfg.encoder_only,
    at="grpc_port",
    message="`--grpc-port` is not supported with `--encoder-only`: encoder disaggregation uses its own server",
    # No fix: the Example's model is no encoder architecture, so no single removal is known to start.
    example="--model-path Qwen/Qwen3-8B --grpc-port 50051 --encoder-only",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051",
)

rule(
    code="SGL718",
    name="native-grpc-with-tokenizer-workers",
    errors="66353c2ed5e7",
    when=lambda cfg: served(cfg.model_path) and cfg.grpc_port is not None and not (cfg.smg_grpc_mode or cfg.grpc_mode) and cfg.tokenizer_worker_num > 1,
    at="tokenizer_worker_num",
    message="native gRPC (`--grpc-port`) does not support `--tokenizer-worker-num {tokenizer_worker_num}`",
    fix=set_("tokenizer_worker_num", "1"),
    safe=True,  # SGLang: "Unset --grpc-port or set --tokenizer-worker-num 1."
    example="--model-path Qwen/Qwen3-8B --grpc-port 50051 --tokenizer-worker-num 4",
    near_miss="--model-path Qwen/Qwen3-8B --grpc-port 50051 --tokenizer-worker-num 1",
)

rule(
    code="SGL719",
    name="native-grpc-with-api-key",
    errors="6394084052ce",
    when=lambda cfg: served(cfg.model_path) and cfg.grpc_port is not None and not (cfg.smg_grpc_mode or cfg.grpc_mode) and (cfg.api_key or cfg.admin_api_key),
    at=("grpc_port",),
    message="`--grpc-port` is incompatible with `--api-key`/`--admin-api-key`: "
            "the native gRPC listener bypasses HTTP auth middleware",
    fix=remove("grpc_port"),
    example="--model-path Qwen/Qwen3-8B --grpc-port 50051 --api-key secret",
    near_miss="--model-path Qwen/Qwen3-8B --smg-grpc-mode --api-key secret",
)


# -- PD disaggregation -----------------------------------------------------------------
# 0.5.21 switched decode host receive on for a threshold above 0 (default 0), later releases
# for one below 1 (default 1): a threshold strictly between 0 and 1 switches it on in both.

rule(
    code="SGL722",
    name="decode-host-receive-threshold-out-of-range",
    errors="688ec68affe0",
    when=lambda cfg: served(cfg.model_path) and not 0 <= cfg.disaggregation_decode_host_receive_threshold <= 1,
    at="disaggregation_decode_host_receive_threshold",
    message="`--disaggregation-decode-host-receive-threshold {disaggregation_decode_host_receive_threshold}` "
            "is not between 0 and 1",
    fix=remove("disaggregation_decode_host_receive_threshold"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1.5",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1",
)

rule(
    code="SGL723",
    name="decode-host-receive-with-hisparse-or-role-switch",
    errors="48d55595a534",
    when=lambda cfg: served(cfg.model_path) and 0 < cfg.disaggregation_decode_host_receive_threshold < 1
    and (cfg.enable_hisparse or cfg.enable_pd_role_switch),
    at="disaggregation_decode_host_receive_threshold",
    message="decode host receive (`--disaggregation-decode-host-receive-threshold "
            "{disaggregation_decode_host_receive_threshold}`) does not support `--enable-hisparse` "
            "or `--enable-pd-role-switch`",
    fix=remove("disaggregation_decode_host_receive_threshold"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 "
            "--enable-pd-role-switch",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5",
)

rule(
    code="SGL724",
    name="decode-host-receive-with-cpu-tensor-retraction",
    errors="0efe70848b5e",
    when=lambda cfg: served(cfg.model_path) and 0 < cfg.disaggregation_decode_host_receive_threshold < 1
    and cfg.disaggregation_decode_retraction_backup == "cpu_tensor",
    at="disaggregation_decode_retraction_backup",
    message="decode host KV buffering (`--disaggregation-decode-host-receive-threshold "
            "{disaggregation_decode_host_receive_threshold}`) requires "
            "`--disaggregation-decode-retraction-backup host_pool`",
    fix=set_("disaggregation_decode_retraction_backup", "host_pool"),
    safe=True,  # SGLang: "Decode host KV buffering requires host_pool retraction"
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 "
            "--disaggregation-decode-retraction-backup cpu_tensor",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 "
              "--disaggregation-decode-retraction-backup host_pool",
)

rule(
    code="SGL725",
    name="decode-radix-cache-with-hisparse",
    errors="f9ff80d3e92c",
    when=lambda cfg: served(cfg.model_path) and cfg.disaggregation_mode == "decode"
    and cfg.disaggregation_decode_enable_radix_cache and cfg.enable_hisparse,
    at="disaggregation_decode_enable_radix_cache",
    message="`--disaggregation-decode-enable-radix-cache` is incompatible with `--enable-hisparse`",
    # No fix: HiSparse itself needs a DSA model, so neither removal is known to start.
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-enable-radix-cache "
            "--enable-hisparse",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-enable-radix-cache",
)

rule(
    code="SGL726",
    name="decode-radix-cache-with-fake-transfer",
    errors="5f30f064e099",
    when=lambda cfg: served(cfg.model_path) and cfg.disaggregation_mode == "decode"
    and cfg.disaggregation_decode_enable_radix_cache and cfg.disaggregation_transfer_backend == "fake",
    at="disaggregation_decode_enable_radix_cache",
    message="`--disaggregation-decode-enable-radix-cache` is incompatible with "
            "`--disaggregation-transfer-backend fake`",
    fix=remove("disaggregation_decode_enable_radix_cache"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-enable-radix-cache "
            "--disaggregation-transfer-backend fake",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-transfer-backend fake",
)

rule(
    code="SGL727",
    name="prefill-with-fake-transfer",
    errors="e6255b3a7e1e",
    when=lambda cfg: served(cfg.model_path) and cfg.disaggregation_mode == "prefill"
    and cfg.disaggregation_transfer_backend == "fake",
    at="disaggregation_transfer_backend",
    message="a prefill server (`--disaggregation-mode prefill`) does not support "
            "`--disaggregation-transfer-backend fake`",
    fix=remove("disaggregation_transfer_backend"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disaggregation-transfer-backend fake",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-transfer-backend fake",
)

rule(
    code="SGL736",
    name="pd-role-switch-with-pipeline-or-decode-context-parallelism",
    errors="7362947eab83",
    # Of the features SGLang lists, the two every release reads as written (nothing before the
    # PD step resolves pp_size or dcp_size); DP attention, EP and a2a are resolved on the way.
    when=lambda cfg: served(cfg.model_path) and cfg.disaggregation_mode in ("prefill", "decode")
    and cfg.enable_pd_role_switch and (cfg.pp_size > 1 or cfg.dcp_size > 1),
    at="enable_pd_role_switch",
    message="`--enable-pd-role-switch` does not rebuild role-specific state for "
            "`--pp-size {pp_size}` / `--dcp-size {dcp_size}`",
    fix=remove("enable_pd_role_switch"),
    safe=True,  # SGLang: "Remove these options or drop --enable-pd-role-switch."
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --enable-pd-role-switch --pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --enable-pd-role-switch",
)

# -- encoder disaggregation ------------------------------------------------------------

rule(
    code="SGL728",
    name="prefix-mm-cache-without-encoder-only",
    errors="e13990568b2b",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_prefix_mm_cache and not cfg.encoder_only,
    at="enable_prefix_mm_cache",
    message="`--enable-prefix-mm-cache` requires `--encoder-only`",
    fix=remove("enable_prefix_mm_cache"),
    example="--model-path Qwen/Qwen3-8B --enable-prefix-mm-cache",
    near_miss="--model-path Qwen/Qwen3-8B",
)

rule(
    code="SGL729",
    name="encoder-only-with-language-only",
    errors="429bd449efeb",
    when=lambda cfg: served(cfg.model_path) and cfg.encoder_only and cfg.language_only,
    at=("language_only", "encoder_only"),
    message="`--encoder-only` and `--language-only` cannot be set together",
    example="--model-path Qwen/Qwen3-8B --encoder-only --language-only",
    near_miss="--model-path Qwen/Qwen3-8B",
)

rule(
    code="SGL730",
    name="encoder-only-with-pd-disaggregation",
    errors="c7fd81f42a06",
    when=lambda cfg: served(cfg.model_path) and cfg.encoder_only and cfg.disaggregation_mode != "null",
    at="disaggregation_mode",
    message="`--encoder-only` cannot be set with `--disaggregation-mode {disaggregation_mode}`",
    example="--model-path Qwen/Qwen3-8B --encoder-only --disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill",
)

# -- LoRA (check_server_args, after the pipeline) -----------------------------------------

rule(
    code="SGL740",
    name="max-loras-per-batch-not-positive",
    errors="b0b897363fdb",
    when=lambda cfg: cfg.max_loras_per_batch <= 0,
    at="max_loras_per_batch",
    message="`--max-loras-per-batch {max_loras_per_batch}` must be positive",
    fix=remove("max_loras_per_batch"),
    example="--model-path Qwen/Qwen3-8B --max-loras-per-batch 0",
    near_miss="--model-path Qwen/Qwen3-8B --max-loras-per-batch 1",
)

rule(
    code="SGL741",
    name="lora-overlap-loading-without-bounded-max-loaded-loras",
    errors="cbf8c8c96839",
    when=lambda cfg: _lora(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.enable_lora_overlap_loading and cfg.max_loras_per_batch > 0
    and (cfg.max_loaded_loras is None or cfg.max_loaded_loras > 2 * cfg.max_loras_per_batch),
    at="enable_lora_overlap_loading",
    message="`--enable-lora-overlap-loading` needs `--max-loaded-loras` at most double "
            "`--max-loras-per-batch` ({max_loras_per_batch})",
    fix=remove("enable_lora_overlap_loading"),
    example="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a --enable-lora-overlap-loading",
    near_miss="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a --enable-lora-overlap-loading "
              "--max-loaded-loras 16",
)

rule(
    code="SGL742",
    name="lora-target-modules-all-with-others",
    errors="409135996c9b",
    when=lambda cfg: _lora(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_target_modules and "all" in cfg.lora_target_modules
    and len(set(cfg.lora_target_modules)) > 1,
    at="lora_target_modules",
    message="`--lora-target-modules all` must be the only module named",
    # No fix: `set_` of a many-valued option replaces only its first word.
    example="--model-path Qwen/Qwen3-8B --enable-lora --max-lora-rank 16 --lora-target-modules all q_proj",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lora --max-lora-rank 16 --lora-target-modules all",
)

rule(
    code="SGL743",
    name="lora-without-paths-or-rank-and-modules",
    errors="3c093523cae8",
    when=lambda cfg: _lora(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and not cfg.lora_paths
    and not (cfg.max_lora_rank and cfg.lora_target_modules),
    at=("enable_lora", "max_lora_rank", "lora_target_modules"),
    message="LoRA without `--lora-paths` needs both `--max-lora-rank` and `--lora-target-modules`",
    example="--model-path Qwen/Qwen3-8B --enable-lora --max-lora-rank 16",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lora --max-lora-rank 16 --lora-target-modules all",
)

rule(
    code="SGL744",
    name="max-loaded-loras-below-max-loras-per-batch",
    errors="9e589b2c4e69",
    when=lambda cfg: _lora(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.max_loaded_loras is not None
    and cfg.max_loaded_loras < cfg.max_loras_per_batch,
    at="max_loaded_loras",
    message="`--max-loaded-loras {max_loaded_loras}` is below `--max-loras-per-batch {max_loras_per_batch}`",
    fix=set_("max_loaded_loras", lambda cfg: str(cfg.max_loras_per_batch)),
    example="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a --max-loaded-loras 4",
    near_miss="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a --max-loaded-loras 4 --max-loras-per-batch 4",
)

rule(
    code="SGL745",
    name="lora-paths-exceed-max-loaded-loras",
    errors="384e5caef567",
    when=lambda cfg: _lora(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.max_loaded_loras is not None
    and cfg.max_loaded_loras >= cfg.max_loras_per_batch and _lora_count(cfg.lora_paths) > cfg.max_loaded_loras,
    at="lora_paths",
    message="`--lora-paths` names more adapters than `--max-loaded-loras {max_loaded_loras}`",
    fix=set_("max_loaded_loras", lambda cfg: str(_lora_count(cfg.lora_paths))),
    example="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a b=/loras/b c=/loras/c "
            "--max-loras-per-batch 2 --max-loaded-loras 2",
    near_miss="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a b=/loras/b "
              "--max-loras-per-batch 2 --max-loaded-loras 2",
)

rule(
    code="SGL746",
    name="lora-drain-wait-threshold-negative",
    errors="f1c5cc9341e1",
    when=lambda cfg: _lora(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_drain_wait_threshold < 0,
    at="lora_drain_wait_threshold",
    message="`--lora-drain-wait-threshold {lora_drain_wait_threshold}` must be non-negative",
    fix=remove("lora_drain_wait_threshold"),
    example="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a --lora-drain-wait-threshold -1",
    near_miss="--model-path Qwen/Qwen3-8B --lora-paths a=/loras/a --lora-drain-wait-threshold 0",
)
