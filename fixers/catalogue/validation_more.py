"""Catalogue rules: more general validation. The `--cuda-graph-config` JSON
(`parse_cuda_graph_config_arg` in `model_executor/cuda_graph_config.py`, argparse's type for it;
`validate_cuda_graph_config` and `finalize_cuda_graph_prefill_max_context` in
`cuda_graph_hook.py`), `handle_other_validations` in `serving_hook.py`, and `check_server_args`,
`check_two_batch_overlap` and `check_load_publish_args` in `validation_hook.py`; in
0.5.17/0.5.18 the hooks' checks live in `server_args.py`.
"""

from __future__ import annotations

import json

from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import json_value, plain_int, served

# Helpers take values, not cfg, so that a rule's reads name every flag they look at.


# -- --cuda-graph-config (parse_cuda_graph_config_arg: argparse's type for the option) -------

_PHASES = ("decode", "prefill")
# The keys a phase takes in some release: 0.5.17-0.5.21 also take tc_compiler, 0.5.21 added
# prefill's max_context_size and max_seq_len. A key no release takes is refused by every one.
_KEYS_IN_SOME = {
    "decode": ("backend", "max_bs", "bs", "tc_compiler"),
    "prefill": ("backend", "max_bs", "bs", "tc_compiler", "max_context_size", "full_prefill_max_req",
                "full_prefill_prefix_chunk_tokens", "max_seq_len"),
}
_KEYS_IN_EVERY = {
    "decode": ("backend", "max_bs", "bs"),
    "prefill": ("backend", "max_bs", "bs", "full_prefill_max_req", "full_prefill_prefix_chunk_tokens"),
}
# ALLOWED_BACKENDS_PER_PHASE: tc_piecewise up to 0.5.21 (0.5.22 refuses it while parsing).
_BACKENDS = ("full", "breakable", "disabled", "tc_piecewise")


def _graph_config_error(text: object) -> str | None:
    """The first refusal of `parse_cuda_graph_config_arg` for text, walking it as SGLang does:
    "json", "object", "phase", "phase-object", "key"; None when every release parses it.
    Unknown where releases differ (a tc_piecewise backend, a key only some releases take)."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise Unresolvable("not text")
    try:
        parsed = json.loads(text)
    except ValueError:
        return "json"
    if not isinstance(parsed, dict):
        return "object"
    for phase, settings in parsed.items():
        if phase not in _PHASES:
            return "phase"
        if not isinstance(settings, dict):
            return "phase-object"
        if "backend" in settings and settings["backend"] == "tc_piecewise":
            raise Unresolvable("0.5.22 refuses tc_piecewise here, earlier releases go on")
        for key in settings:
            if key not in _KEYS_IN_SOME[phase]:
                return "key"
            if key not in _KEYS_IN_EVERY[phase]:
                raise Unresolvable("a key some releases take")
    return None


def _graph_backends(text: object) -> list[object]:
    """The backends a parsed --cuda-graph-config names, phase by phase."""
    config = json_value(text) or {}
    return [settings["backend"] for settings in config.values() if "backend" in settings]


def _prefill_max_context(flag: object, text: object) -> int | None:
    """The prefill CUDA graph max context size `parse_cuda_graph_config` resolves: the JSON's
    prefill max_context_size over --cuda-graph-prefill-max-context."""
    prefill = (json_value(text) or {}).get("prefill", {})
    value = prefill["max_context_size"] if "max_context_size" in prefill else plain_int(flag)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise Unresolvable("not an integer")
    return value


rule(
    code="SGL850",
    name="cuda-graph-config-not-json",
    errors="755b00de654c",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) == "json",
    at="cuda_graph_config",
    message="`--cuda-graph-config {cuda_graph_config}` is not JSON",
    example="--model-path Qwen/Qwen3-8B --cuda-graph-config '{decode: {max_bs: 8}}'",
    near_miss="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"max_bs\": 8}}'",
)

rule(
    code="SGL851",
    name="cuda-graph-config-not-an-object",
    errors="07f29ad4b7f5",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) == "object",
    at="cuda_graph_config",
    message="`--cuda-graph-config {cuda_graph_config}` must be a JSON object of phase settings",
    example="--model-path Qwen/Qwen3-8B --cuda-graph-config '[{\"max_bs\": 8}]'",
    near_miss="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"max_bs\": 8}}'",
)

rule(
    code="SGL852",
    name="cuda-graph-config-unknown-phase",
    errors="4abcd9baa886",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) == "phase",
    at="cuda_graph_config",
    message="`--cuda-graph-config {cuda_graph_config}` names a phase other than `decode` and `prefill`",
    example="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"extend\": {\"max_bs\": 8}}'",
    near_miss="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"prefill\": {\"max_bs\": 8}}'",
)

rule(
    code="SGL853",
    name="cuda-graph-config-phase-not-an-object",
    errors="335a6f44a799",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) == "phase-object",
    at="cuda_graph_config",
    message="`--cuda-graph-config {cuda_graph_config}`: each phase's settings must be a JSON object",
    example="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": \"full\"}'",
    near_miss="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"backend\": \"full\"}}'",
)

rule(
    code="SGL854",
    name="cuda-graph-config-unknown-key",
    errors="bc380301f281",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) == "key",
    at="cuda_graph_config",
    message="`--cuda-graph-config {cuda_graph_config}` holds a key its phase does not take "
    "(decode: backend, max_bs, bs; prefill also max_context_size, full_prefill_max_req, ...)",
    example="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"max_batch_size\": 8}}'",
    near_miss="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"max_bs\": 8}}'",
)

# validate_cuda_graph_config, in handle_cuda_graph_config: a backend the JSON sets is locked,
# so no handler before it replaces the backend.
rule(
    code="SGL855",
    name="cuda-graph-config-unknown-backend",
    errors="bc86f2601c64",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) is None
    and any(b not in _BACKENDS for b in _graph_backends(cfg.cuda_graph_config)) and served(cfg.model_path),
    at="cuda_graph_config",
    message="`--cuda-graph-config {cuda_graph_config}` names a backend other than full, breakable and disabled",
    example="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"backend\": \"eager\"}}'",
    near_miss="--model-path Qwen/Qwen3-8B --cuda-graph-config '{\"decode\": {\"backend\": \"disabled\"}}'",
)

# finalize_cuda_graph_prefill_max_context: the model's context length is --context-length when
# it is given (a longer one than the checkpoint's is refused first, or allowed by an env var).
rule(
    code="SGL856",
    name="cuda-graph-prefill-max-context-above-context-length",
    errors="10efaaf22c69",
    when=lambda cfg: _graph_config_error(cfg.cuda_graph_config) is None and plain_int(cfg.context_length) is not None
    and plain_int(cfg.context_length) > 0
    and (_prefill_max_context(cfg.cuda_graph_prefill_max_context, cfg.cuda_graph_config) or 0)
    > plain_int(cfg.context_length) and served(cfg.model_path),
    at=("cuda_graph_prefill_max_context", "context_length"),
    message="`--cuda-graph-prefill-max-context {cuda_graph_prefill_max_context}` exceeds the model's "
    "context length (`--context-length {context_length}`)",
    fix=remove("cuda_graph_prefill_max_context"),
    example="--model-path Qwen/Qwen3-8B --context-length 4096 --cuda-graph-prefill-max-context 65536",
    near_miss="--model-path Qwen/Qwen3-8B --context-length 4096 --cuda-graph-prefill-max-context 4096",
)


# -- check_server_args (validation_hook.py: at engine launch, after the resolution pipeline) -----


def _model_not(model: object, *prefixes: str) -> bool:
    """Whether autofix knows the served model and it is none of these architectures
    (whose model overrides rewrite what the rule reads)."""
    if not model.known and model.architecture is None:  # type: ignore[attr-defined]
        raise Unresolvable("model not known")
    return not (model.architecture or "").startswith(prefixes)  # type: ignore[attr-defined]


def _gpu_named(cfg) -> bool:  # noqa: ANN001
    """Whether autofix was told the GPU the launch runs on (`--gpu`): SGLang's platform then
    is CUDA or ROCm, never an Ascend NPU."""
    if cfg._launch.gpu is None:
        raise Unresolvable("platform not known")
    return True


# check_two_batch_overlap (0.5.22+). What it reads, resolved: --waterfill and
# --moe-runner-backend megamoe pick an a2a backend, MiniMax-M3 NVFP4 picks megamoe; the
# deprecated `--dp-size N --enable-dp-attention` becomes --attn-dp-size N; DWDP, prefill CP and
# DeepSeek-V4 resize attention DP. The rule keeps to launches none of these touch.
rule(
    code="SGL859",
    name="two-batch-overlap-without-a2a-or-attention-dp",
    errors="47d02844458c",
    when=lambda cfg: cfg.enable_two_batch_overlap and cfg.moe_a2a_backend == "none"
    and cfg.moe_runner_backend != "megamoe" and not cfg.enable_waterfill
    and cfg.attn_dp_size <= 1 and not (cfg.enable_dp_attention and cfg.dp_size > 1)
    and cfg.ep_join_mode != "scale" and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp
    and _model_not(cfg.model, "MiniMaxM3", "DeepseekV4"),
    at="enable_two_batch_overlap",
    message="`--enable-two-batch-overlap` without an EP a2a backend (`--moe-a2a-backend none`) "
    "needs attention DP (`--attn-dp-size` above 1)",
    fix=remove("enable_two_batch_overlap"),
    example="--model-path Qwen/Qwen3-30B-A3B --tp-size 2 --enable-two-batch-overlap",
    near_miss="--model-path Qwen/Qwen3-30B-A3B --tp-size 2 --attn-dp-size 2 --enable-two-batch-overlap",
)

rule(
    code="SGL860",
    name="mindspore-model-impl-off-npu",
    errors="12e3f121309f",
    when=lambda cfg: cfg.model_impl == "mindspore" and _gpu_named(cfg),
    at="model_impl",
    message="`--model-impl mindspore` is only supported on Ascend NPUs",
    fix=remove("model_impl"),
    example="--model-path Qwen/Qwen3-8B --model-impl mindspore",
    near_miss="--model-path Qwen/Qwen3-8B --model-impl sglang",
    gpu="b200",
)


# -- check_load_publish_args (0.5.19+: called last in check_server_args) -----------------------

# KVEventsConfig fields every release has, with the JSON types pydantic takes for them as they are.
_KV_EVENTS_FIELDS = {
    "publisher": (str,), "endpoint": (str,), "replay_endpoint": (str, type(None)),
    "buffer_steps": (int,), "hwm": (int,), "max_queue_size": (int,), "topic": (str,),
}


def _load_publishing(endpoint: object) -> bool:
    """--load-publish-endpoint asks for load publishing (set, and not `off`)."""
    mode = (endpoint or "").strip()  # type: ignore[union-attr]
    return bool(mode) and mode.lower() != "off"


def _kv_events(text: object) -> dict | None:
    """--kv-events-config as `KVEventsConfig.from_cli` reads it: its fields over the defaults;
    None when it is no JSON object (pydantic refuses it). Unknown for fields or values this
    does not model (pydantic coerces some, and releases add fields)."""
    if not isinstance(text, str):
        raise Unresolvable("not text")
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return None
    if any(k not in _KV_EVENTS_FIELDS or isinstance(v, bool) or not isinstance(v, _KV_EVENTS_FIELDS[k])
           for k, v in parsed.items()):
        raise Unresolvable("a kv-events field this does not model")
    return {"publisher": "null", "endpoint": "tcp://*:5557", "replay_endpoint": None, **parsed}


rule(
    code="SGL861",
    name="kv-events-config-not-parseable",
    errors="cb40ad0534a9",
    when=lambda cfg: _load_publishing(cfg.load_publish_endpoint) and bool(cfg.kv_events_config)
    and _kv_events(cfg.kv_events_config) is None,
    at="kv_events_config",
    message="`--kv-events-config {kv_events_config}` is not a JSON object, and `--load-publish-endpoint` reads it",
    example="--model-path Qwen/Qwen3-8B --load-publish-endpoint auto --kv-events-config 'publisher=zmq'",
    near_miss="--model-path Qwen/Qwen3-8B --load-publish-endpoint auto "
    "--kv-events-config '{\"publisher\": \"zmq\", \"endpoint\": \"tcp://*:5557\"}'",
)

rule(
    code="SGL862",
    name="load-publish-endpoint-without-kv-events-publisher",
    errors="0c849ba92195",
    when=lambda cfg: _load_publishing(cfg.load_publish_endpoint) and bool(cfg.kv_events_config)
    and (events := _kv_events(cfg.kv_events_config)) is not None
    and (events["publisher"] == "null" or not events["endpoint"]),
    at=("kv_events_config", "load_publish_endpoint"),
    message="`--load-publish-endpoint` needs an active `--kv-events-config` publisher "
    "(a publisher other than 'null', and an endpoint)",
    fix=remove("load_publish_endpoint"),
    example="--model-path Qwen/Qwen3-8B --load-publish-endpoint auto --kv-events-config '{\"endpoint\": \"tcp://*:5557\"}'",
    near_miss="--model-path Qwen/Qwen3-8B --load-publish-endpoint auto "
    "--kv-events-config '{\"publisher\": \"zmq\", \"endpoint\": \"tcp://*:5557\"}'",
)

# resolve_load_pub_range's reason for an explicit address: the KV-events endpoint is not tcp://,
# so /server_info could not advertise the range (dp_size counts at least one rank).
rule(
    code="SGL863",
    name="load-publish-address-without-tcp-kv-events-endpoint",
    errors="0dbdca5ef32f",
    when=lambda cfg: _load_publishing(cfg.load_publish_endpoint)
    and cfg.load_publish_endpoint.strip().lower() != "auto" and bool(cfg.kv_events_config)
    and (events := _kv_events(cfg.kv_events_config)) is not None
    and events["publisher"] != "null" and bool(events["endpoint"])
    and not events["endpoint"].startswith("tcp://") and cfg.dp_size >= 1,
    at=("load_publish_endpoint", "kv_events_config"),
    message="`--load-publish-endpoint {load_publish_endpoint}` needs a tcp:// `--kv-events-config` endpoint: "
    "routers discover the load range through it",
    fix=remove("load_publish_endpoint"),
    example="--model-path Qwen/Qwen3-8B --load-publish-endpoint 'tcp://*:6000' "
    "--kv-events-config '{\"publisher\": \"zmq\", \"endpoint\": \"ipc:///tmp/kv-events\"}'",
    near_miss="--model-path Qwen/Qwen3-8B --load-publish-endpoint 'tcp://*:6000' "
    "--kv-events-config '{\"publisher\": \"zmq\", \"endpoint\": \"tcp://*:5557\"}'",
)


# -- handle_other_validations (serving_hook.py) ------------------------------------------------

# handle_pd_disaggregation first refuses prefill_complete outside what _validate_prefill_complete
# supports (Mooncake, TP/PP/CP 1, ...) and turns 0 attempts into 1; handle_other_validations only
# turns them to 0 with PP or a HiCache optimistic prefill cannot use. What is left is a negative
# --optimistic-prefill-attempts.
rule(
    code="SGL864",
    name="prefill-complete-allocation-without-optimistic-prefill",
    errors="9f4b18ed4c25",
    when=lambda cfg: cfg.disaggregation_decode_allocation_policy == "prefill_complete"
    and cfg.disaggregation_mode == "prefill" and cfg.optimistic_prefill_attempts < 0
    and cfg.disaggregation_transfer_backend in ("mooncake", "mooncake_tcp")
    and cfg.tp_size == 1 and cfg.pp_size == 1 and cfg.attn_cp_size == 1 and cfg.dcp_size == 1
    and not cfg.enable_pdmux and cfg.decoupled_spec_role == "null" and not cfg.enable_pd_role_switch
    and not (cfg.encoder_only or cfg.language_only) and not cfg.enable_hisparse
    and cfg.disaggregation_decode_host_receive_threshold >= 1 and not cfg.enable_hierarchical_cache
    and served(cfg.model_path),
    at=("optimistic_prefill_attempts", "disaggregation_decode_allocation_policy"),
    message="`--disaggregation-decode-allocation-policy prefill_complete` needs optimistic prefill, "
    "got `--optimistic-prefill-attempts {optimistic_prefill_attempts}`",
    fix=remove("optimistic_prefill_attempts"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill "
    "--disaggregation-decode-allocation-policy prefill_complete --optimistic-prefill-attempts -1",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill "
    "--disaggregation-decode-allocation-policy prefill_complete --optimistic-prefill-attempts 1",
)
