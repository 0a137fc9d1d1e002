"""Catalogue rules: LayerNorm sequence parallelism, PD-Multiplexing, pipeline parallelism with
speculative decoding, the native gRPC sidecar, a PD decode server with decode context
parallelism, HiCache's buffer-only host memory, and the FlashInfer MoE a2a workspace.

They mirror SGLang's `layernorm_sp_hook.validate_layernorm_sp` (0.5.19 on, reached through
`handle_layernorm_sp` for `--enable-layernorm-sp`), the PD-Multiplexing and pipeline-parallel
checks of `check_server_args` (`validation_hook.py`; a `ServerArgs` method in 0.5.17/0.5.18;
`check_pipeline_parallel_compat` from 0.5.21), the `--sidecar` checks of
`_handle_deprecated_args` (`serving_hook.py`), `handle_pd_disaggregation`
(`pd_disaggregation_hook.py`), `validate_hicache_host_memory_mode` (`hicache_hook.py`) and
`validate_flashinfer_a2a_token_budget` (`moe_hook.py`).

`validate_layernorm_sp` first refuses every architecture outside its supported set; the rules
here need the served model's config to say `Qwen3ForCausalLM` (the one architecture every
release supports), which autofix learns from a local or cached config.json, never from the
model's name. The rules assume SGLang's default environment (no `SGLANG_GRPC_PORT`).
"""

from __future__ import annotations

from autofix.rules import known, remove, rule, set_

from ._common import plain_int, served
from ._elastic_graphs import graphs_kept, phase_backend
from .elastic_ep import _release
from .kv_cache import _hicache_path
from .speculative import _algorithm
from .speculative_more import _attention_dp

# -- helpers: they take values, so that each condition names what it reads -------------

_QWEN3 = "Qwen3ForCausalLM"
# Decoders no model override moves --chunked-prefill-size or the overlap schedule for.
_PLAIN_DECODERS = ("Qwen2ForCausalLM", "Qwen3ForCausalLM", "LlamaForCausalLM")


def _layernorm_sp(enable: object, model_path: object, architecture: object, megamoe: object) -> bool:
    """validate_layernorm_sp reaches its parallelism checks: `--enable-layernorm-sp` on a
    served Qwen3ForCausalLM, without `--enable-megamoe-for-layernorm-sp` (Muse Spark only)."""
    return bool(enable) and served(model_path) and architecture == _QWEN3 and not megamoe


def _no_attention_dp(enable_dp_attention: object, attn_dp_size: object) -> bool:
    """No attention DP as written (`--enable-dp-attention`, or `--attn-dp-size` from 0.5.22)."""
    return not enable_dp_attention and attn_dp_size in (None, 1)


def _pdmux(enable: object, model_path: object, architecture: object, pp_size: object, mis: object) -> bool:
    """The PD-Multiplexing block of check_server_args runs past its pipeline check, on a plain
    decoder (no model override sets --chunked-prefill-size) without multi-item scoring."""
    return bool(enable) and served(model_path) and architecture in _PLAIN_DECODERS and pp_size == 1 \
        and not mis


def _chunked_prefill_on(size: object) -> bool:
    """--chunked-prefill-size is not -1: as written, or (unset) SGLang's positive GPU default."""
    return size is None or known(size) != -1


def _overlap_stays_on(disable: object, speculative: object, dllm: object, device: object) -> bool:
    """The overlap schedule stays on: not disabled as written, and nothing the launch writes
    makes SGLang disable it (speculative decoding, a diffusion LLM, a CPU or MPS device)."""
    return not disable and speculative is None and dllm is None and device in (None, "cuda")


# -- validate_layernorm_sp (0.5.19 on) -------------------------------------------------

_SP = "--model-path Qwen/Qwen3-8B --enable-layernorm-sp"

rule(
    code="SGL1250",
    name="layernorm-sp-on-single-tp-rank",
    errors="cb32fc27848b",
    when=lambda cfg: _layernorm_sp(cfg.enable_layernorm_sp, cfg.model_path, cfg.model.architecture,
                                   cfg.get("enable_megamoe_for_layernorm_sp", False))
    and cfg.tp_size <= 1,
    at=("enable_layernorm_sp", "tp_size"),
    message="`--enable-layernorm-sp` needs `--tp-size` above 1, got {tp_size}: there is no sequence to shard "
    "across a single TP rank",
    fix=remove("enable_layernorm_sp"),
    example=_SP,
    near_miss=f"{_SP} --tp-size 2",
)

rule(
    code="SGL1251",
    name="layernorm-sp-with-dp-attention",
    errors="1954d9242f6a",
    when=lambda cfg: _layernorm_sp(cfg.enable_layernorm_sp, cfg.model_path, cfg.model.architecture,
                                   cfg.get("enable_megamoe_for_layernorm_sp", False))
    and cfg.tp_size > 1 and cfg.enable_dp_attention and cfg.dp_size > 1,
    at=("enable_layernorm_sp", "enable_dp_attention"),
    message="`--enable-layernorm-sp` is not compatible with `--enable-dp-attention`: sequence parallelism "
    "shards the sequence across the whole TP group, which DP attention splits into groups holding "
    "different sequences",
    fix=remove("enable_layernorm_sp"),
    example=f"{_SP} --tp-size 2 --dp-size 2 --enable-dp-attention",
    near_miss=f"{_SP} --tp-size 2 --dp-size 2",
)

rule(
    code="SGL1252",
    name="layernorm-sp-with-speculative-decoding",
    errors="8e232a2d8270",
    when=lambda cfg: _layernorm_sp(cfg.enable_layernorm_sp, cfg.model_path, cfg.model.architecture,
                                   cfg.get("enable_megamoe_for_layernorm_sp", False))
    and cfg.tp_size > 1 and _no_attention_dp(cfg.enable_dp_attention, cfg.get("attn_dp_size", 1))
    and _algorithm(cfg.speculative_algorithm) == "NGRAM",
    at=("enable_layernorm_sp", "speculative_algorithm"),
    message="`--enable-layernorm-sp` is not compatible with speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`): the captured hidden states would be sequence-sharded",
    fix=remove("enable_layernorm_sp"),
    example=f"{_SP} --tp-size 2 --speculative-algorithm NGRAM",
    near_miss=f"{_SP} --tp-size 2",
)

rule(
    code="SGL1253",
    name="layernorm-sp-with-pipeline-parallelism",
    errors="6b76f65fd001",
    when=lambda cfg: _layernorm_sp(cfg.enable_layernorm_sp, cfg.model_path, cfg.model.architecture,
                                   cfg.get("enable_megamoe_for_layernorm_sp", False))
    and cfg.tp_size > 1 and _no_attention_dp(cfg.enable_dp_attention, cfg.get("attn_dp_size", 1))
    and cfg.speculative_algorithm is None and cfg.pp_size > 1,
    at=("enable_layernorm_sp", "pp_size"),
    message="`--enable-layernorm-sp` is not compatible with pipeline parallelism (`--pp-size {pp_size}`): only "
    "the first stage starts the sequence-sharded region",
    fix=remove("enable_layernorm_sp"),
    example=f"{_SP} --tp-size 2 --pp-size 2",
    near_miss=f"{_SP} --tp-size 2",
)

# -- check_server_args: PD-Multiplexing ---------------------------------------------------

_PDMUX = "--model-path Qwen/Qwen3-8B --enable-pdmux"

rule(
    code="SGL1254",
    name="pdmux-with-chunked-prefill",
    errors="f87dc2a2fb4e",
    when=lambda cfg: _pdmux(cfg.enable_pdmux, cfg.model_path, cfg.model.architecture, cfg.pp_size,
                            cfg.get("enable_mis", False))
    and _chunked_prefill_on(cfg.chunked_prefill_size),
    at=("chunked_prefill_size", "enable_pdmux"),
    message="`--enable-pdmux` (PD-Multiplexing) is not compatible with chunked prefill: set "
    "`--chunked-prefill-size -1`",
    fix=set_("chunked_prefill_size", "-1"),
    example=f"{_PDMUX} --disable-overlap-schedule --chunked-prefill-size 8192",
    near_miss=f"{_PDMUX} --disable-overlap-schedule --chunked-prefill-size -1",
)

rule(
    code="SGL1255",
    name="pdmux-with-overlap-schedule",
    errors="766457d22ab4",
    when=lambda cfg: _pdmux(cfg.enable_pdmux, cfg.model_path, cfg.model.architecture, cfg.pp_size,
                            cfg.get("enable_mis", False))
    and cfg.chunked_prefill_size == -1 and cfg.disaggregation_mode == "null"
    and _overlap_stays_on(cfg.disable_overlap_schedule, cfg.speculative_algorithm, cfg.dllm_algorithm, cfg.device),
    at="enable_pdmux",
    message="`--enable-pdmux` (PD-Multiplexing) is not compatible with the overlap schedule: add "
    "`--disable-overlap-schedule`",
    fix=set_("disable_overlap_schedule"),
    example=f"{_PDMUX} --chunked-prefill-size -1",
    near_miss=f"{_PDMUX} --chunked-prefill-size -1 --disable-overlap-schedule",
)

# -- check_server_args / check_pipeline_parallel_compat: PP with speculative decoding ---------
# Up to 0.5.20 no speculative algorithm runs with PP on CUDA (6496fa426f81); from 0.5.21 only
# EAGLE does, on a PD prefill server (fad302b0abfe). NGRAM is refused by both.

rule(
    code="SGL1256",
    name="pipeline-parallelism-with-ngram-speculative",
    errors=("6496fa426f81", "fad302b0abfe"),
    when=lambda cfg: served(cfg.model_path) and cfg.pp_size > 1 and cfg.device in (None, "cuda")
    and _algorithm(cfg.speculative_algorithm) == "NGRAM",
    at=("pp_size", "speculative_algorithm"),
    message="pipeline parallelism (`--pp-size {pp_size}`) does not support NGRAM speculative decoding",
    fix=remove("pp_size"),
    example="--model-path Qwen/Qwen3-8B --pp-size 2 --speculative-algorithm NGRAM",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM",
)

# -- _handle_deprecated_args: the native gRPC sidecar --------------------------------------

rule(
    code="SGL1257",
    name="sidecar-without-grpc-port",
    errors="47fc9f08c74e",
    when=lambda cfg: cfg.sidecar is not None and bool(str(cfg.sidecar).strip())
    and cfg.sidecar_args is None and not cfg.smg_grpc_mode and not cfg.grpc_mode
    and cfg.get("grpc_response_timeout_secs", 1) > 0 and cfg.grpc_port is None,
    at="sidecar",
    message="`--sidecar {sidecar}` runs against SGLang's native gRPC server, which needs `--grpc-port` "
    "(or SGLANG_GRPC_PORT)",
    example="--model-path Qwen/Qwen3-8B --sidecar my_sidecar",
    near_miss="--model-path Qwen/Qwen3-8B --sidecar my_sidecar --grpc-port 30001",
    note="No fix is offered: the port is the user's choice. SGLang also reads `SGLANG_GRPC_PORT`, which "
    "autofix assumes unset.",
)

# -- handle_pd_disaggregation: a PD decode server with decode context parallelism ----------
# The transfer backends that carry the DCP relayout grew: mooncake and nixl (0.5.17/0.5.18),
# then fake (0.5.19-0.5.21), then mori and ascend (0.5.22 on, when every choice passes).
# mooncake_tcp is read as mooncake before this check.

_DCP_TRANSFER = {(0, 5, 17): ("mooncake", "nixl"), (0, 5, 19): ("mooncake", "nixl", "fake"),
                 (0, 5, 22): ("mooncake", "nixl", "fake", "mori", "ascend")}


def _dcp_transfer_refused(backend: object, release: tuple[int, ...]) -> bool:
    """The transfer backend is not one the release's PD decode DCP path takes."""
    allowed = next(v for k, v in sorted(_DCP_TRANSFER.items(), reverse=True) if release >= k)
    return backend not in (*allowed, "mooncake_tcp")


def _pd_decode_dcp(mode: object, dcp_size: object, model_path: object) -> bool:
    return mode == "decode" and dcp_size > 1 and served(model_path)


_PD_DCP = "--model-path deepseek-ai/DeepSeek-V3 --tp-size 2 --dcp-size 2 --disaggregation-mode decode"

rule(
    code="SGL1266",
    name="pd-decode-dcp-unsupported-transfer-backend",
    errors=("e9334c02d679", "89b99eab93e8"),
    when=lambda cfg: _pd_decode_dcp(cfg.disaggregation_mode, cfg.dcp_size, cfg.model_path)
    and _dcp_transfer_refused(cfg.disaggregation_transfer_backend, _release(cfg)),
    at=("disaggregation_transfer_backend", "dcp_size"),
    message="a PD decode server with decode context parallelism (`--dcp-size {dcp_size}`) needs a transfer "
    "backend that relays the DCP layout (mooncake or nixl), got `{disaggregation_transfer_backend}`",
    fix=remove("disaggregation_transfer_backend"),
    example=f"{_PD_DCP} --disaggregation-transfer-backend mori",
    near_miss=f"{_PD_DCP} --disaggregation-transfer-backend nixl",
    note="The fix falls back to SGLang's default transfer backend, mooncake.",
)

rule(
    code="SGL1267",
    name="pd-decode-dcp-with-radix-cache",
    errors="ce462b2183c9",
    when=lambda cfg: _pd_decode_dcp(cfg.disaggregation_mode, cfg.dcp_size, cfg.model_path)
    and not _dcp_transfer_refused(cfg.disaggregation_transfer_backend, _release(cfg))
    and cfg.disaggregation_decode_enable_radix_cache,
    at="disaggregation_decode_enable_radix_cache",
    message="a PD decode server with decode context parallelism (`--dcp-size {dcp_size}`) needs the chunk "
    "cache: `--disaggregation-decode-enable-radix-cache` is not supported",
    fix=remove("disaggregation_decode_enable_radix_cache"),
    example=f"{_PD_DCP} --disaggregation-decode-enable-radix-cache",
    near_miss=_PD_DCP,
)

rule(
    code="SGL1268",
    name="pd-decode-dcp-with-hierarchical-cache",
    errors="8db6587d9379",
    when=lambda cfg: _pd_decode_dcp(cfg.disaggregation_mode, cfg.dcp_size, cfg.model_path)
    and not _dcp_transfer_refused(cfg.disaggregation_transfer_backend, _release(cfg))
    and not cfg.disaggregation_decode_enable_radix_cache and cfg.enable_hierarchical_cache,
    at="enable_hierarchical_cache",
    message="a PD decode server with decode context parallelism (`--dcp-size {dcp_size}`) needs the chunk "
    "cache: `--enable-hierarchical-cache` is not supported",
    fix=remove("enable_hierarchical_cache"),
    example=f"{_PD_DCP} --enable-hierarchical-cache",
    near_miss=_PD_DCP,
)

# -- validate_hicache_host_memory_mode (0.5.19-0.5.21; later releases turn write_back into
# write_through here). Its host-pool-size check (a24007c1d9ee) is behind SGLang's own default
# of --hicache-ratio, which every launch that reaches it gets.

rule(
    code="SGL1269",
    name="hicache-buffer-only-with-write-back",
    errors="b51fd9d9295b",
    when=lambda cfg: cfg.hicache_host_memory_mode == "buffer_only" and cfg.hicache_storage_backend is not None
    and cfg.hicache_write_policy == "write_back" and _hicache_path(cfg),
    at=("hicache_write_policy", "hicache_host_memory_mode"),
    message="`--hicache-host-memory-mode buffer_only` does not support `--hicache-write-policy write_back` "
    "(host memory is only a staging buffer); use write_through or write_through_selective",
    fix=set_("hicache_write_policy", "write_through"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --enable-hierarchical-cache --hicache-ratio 2 "
    "--hicache-host-memory-mode buffer_only --hicache-storage-backend file --hicache-write-policy write_back",
    near_miss="--model-path Qwen/Qwen3-8B --enable-hierarchical-cache --hicache-ratio 2 "
    "--hicache-host-memory-mode buffer_only --hicache-storage-backend file --hicache-write-policy write_through",
)

# -- validate_flashinfer_a2a_token_budget (moe_hook.py, 0.5.22 on) ---------------------------
# The FlashInfer MoE a2a workspace holds max(P, 4096) tokens per rank, P the per-rank prefill
# buffer (--chunked-prefill-size after handle_data_parallelism divides it by the attention-DP
# width); a decode CUDA graph dispatches its largest batch (capped by --max-running-requests
# per DP rank) at once. The rule reads the decode graph's batch size only where the launch
# writes it and turns the graph on, without speculative decoding (one token per request), on
# a plain decoder whose graphs the resolution keeps; the prefill graph's size, clamped to P
# under attention DP, never exceeds the workspace. SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK
# (which sets the workspace instead) is assumed unset.

_FLASHINFER_A2A_RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm",
                           "flashinfer_trtllm_routed", "deep_gemm")


def _a2a_capacity(chunked_prefill_size: object, width: object) -> int:
    """The workspace's tokens per rank: max(the per-rank chunk, 4096)."""
    return max(plain_int(known(chunked_prefill_size)) // width, 4096)


def _decode_graph_tokens(cfg, max_bs: object, max_running_requests: object, width: int) -> int:  # noqa: ANN001
    """The decode graph's largest batch per DP rank; 0 without a decode graph. Unknown unless the
    launch writes the batch size and the decode backend."""
    if phase_backend(cfg, "decode") == "disabled":
        return 0
    graphs_kept(cfg)
    size = known(max_bs)
    if max_running_requests is not None:
        size = min(size, max(1, max_running_requests // width))
    return size


rule(
    code="SGL1300",
    name="flashinfer-a2a-decode-graph-over-token-budget",
    errors="95fdfab5a145",
    when=lambda cfg: cfg.moe_a2a_backend == "flashinfer" and served(cfg.model_path)
    and cfg.moe_runner_backend in _FLASHINFER_A2A_RUNNERS and cfg.tp_size > 1
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and cfg.disaggregation_mode == "null" and cfg.speculative_algorithm is None and cfg.pp_size == 1
    and cfg.cuda_graph_config is None and cfg.cuda_graph_bs_decode is None
    and known(cfg.chunked_prefill_size) > 0
    and _decode_graph_tokens(cfg, cfg.cuda_graph_max_bs_decode, cfg.max_running_requests, cfg.tp_size)
    > _a2a_capacity(cfg.chunked_prefill_size, cfg.tp_size),
    at=("cuda_graph_max_bs_decode", "moe_a2a_backend"),
    message=lambda cfg: "`--moe-a2a-backend flashinfer` holds "
    f"{_a2a_capacity(cfg.chunked_prefill_size, cfg.tp_size)} tokens per rank, but the decode CUDA graph "
    f"dispatches up to `--cuda-graph-max-bs-decode {cfg.cuda_graph_max_bs_decode}` at once",
    fix=set_("cuda_graph_max_bs_decode", lambda cfg: str(_a2a_capacity(cfg.chunked_prefill_size, cfg.tp_size))),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --moe-a2a-backend flashinfer "
    "--moe-runner-backend flashinfer_cutlass --chunked-prefill-size 8192 --cuda-graph-backend-decode full "
    "--cuda-graph-max-bs-decode 8192",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --moe-a2a-backend flashinfer "
    "--moe-runner-backend flashinfer_cutlass --chunked-prefill-size 8192 --cuda-graph-backend-decode full "
    "--cuda-graph-max-bs-decode 4096",
    note="SGLang also takes a larger workspace from SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK.",
)
