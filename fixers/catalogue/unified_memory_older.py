"""Catalogue rules: `--enable-unified-memory` in the releases before its checks took their
0.5.22 shape (SGLang's `handle_unified_memory_pool` in `kv_cache_hook.py`; the `ServerArgs`
method `_handle_unified_memory_pool` in 0.5.17/0.5.18).

0.5.17 refuses PD disaggregation and every speculative algorithm outright; from 0.5.18 PD
needs the mooncake transfer backend and speculative decoding is DSpark alone (on the
spec-verify-audited attention backends, to 0.5.21); HiCache and LMCache are refused to 0.5.20,
decode context parallelism to 0.5.19 (later only for MHA models), a written prefill CUDA graph
backend in 0.5.19, a piecewise prefill graph in 0.5.17/0.5.18 and two-batch overlap in
0.5.20/0.5.21 (SGL328 from 0.5.22). Each rule follows the asserts in their order, so that
it reports a launch only where SGLang raises its error.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served
from .speculative import _algorithm

_UM = "--model-path Qwen/Qwen3-8B --enable-unified-memory --attention-backend triton"
_PLAIN_DECODERS = ("Qwen2ForCausalLM", "Qwen3ForCausalLM", "LlamaForCausalLM")
# The PD transfer backends autofix knows to be other than mooncake (mooncake_tcp is read as mooncake).
_NOT_MOONCAKE = ("nixl", "ascend", "fake", "mori")
_SPEC_VERIFY_AUDITED = ("triton", "trtllm_mla", "cutedsl_mla", "tokenspeed_mla")


def _plain(enable: object, model_path: object) -> bool:
    return bool(enable) and served(model_path)


def _pd_passes(mode: object) -> bool:
    """The PD block passes: the rules after it keep to launches without PD disaggregation
    (0.5.18-0.5.21 also pass PD over mooncake, whose own checks follow)."""
    return mode == "null"


def _spec_passes(algorithm: object) -> bool:
    """The speculative checks pass: no speculative decoding (DSpark's own checks are its rule's)."""
    return algorithm is None


def _unaudited(attention: object, prefill: object, decode: object, architecture: object) -> bool:
    """A resolved prefill or decode backend outside the spec-verify-audited set, on a plain
    decoder whose backends are all written (SGLang picks an unwritten one)."""
    if architecture not in _PLAIN_DECODERS:
        raise Unresolvable("the model's overrides may pick the backends")
    resolved = (prefill or attention, decode or attention)
    if any(b is None for b in resolved):
        raise Unresolvable("SGLang picks the attention backend")
    return any(b not in _SPEC_VERIFY_AUDITED for b in resolved)


rule(
    code="SGL1285",
    name="unified-memory-with-pd-disaggregation-0517",
    errors="e319d028a7f5",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path) and cfg.disaggregation_mode != "null",
    at=("enable_unified_memory", "disaggregation_mode"),
    message="`--enable-unified-memory` is not yet compatible with PD disaggregation "
    "(`--disaggregation-mode {disaggregation_mode}`)",
    fix=remove("enable_unified_memory"),
    example=f"{_UM} --disaggregation-mode prefill",
    near_miss=_UM,
)

rule(
    code="SGL1286",
    name="unified-memory-with-speculative-decoding-0517",
    errors="32309744941f",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path) and cfg.disaggregation_mode == "null"
    and cfg.speculative_algorithm is not None,
    at=("enable_unified_memory", "speculative_algorithm"),
    message="`--enable-unified-memory` is not yet compatible with speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`)",
    fix=remove("enable_unified_memory"),
    example=f"{_UM} --speculative-algorithm NGRAM",
    near_miss=_UM,
)

rule(
    code="SGL1287",
    name="unified-memory-with-pd-transfer-backend-not-mooncake",
    errors="294705e8dbb2",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path) and cfg.disaggregation_mode != "null"
    and cfg.disaggregation_transfer_backend in _NOT_MOONCAKE,
    at=("disaggregation_transfer_backend", "enable_unified_memory"),
    message="`--enable-unified-memory` with PD disaggregation supports only the mooncake transfer backend, "
    "got `{disaggregation_transfer_backend}`",
    fix=remove("disaggregation_transfer_backend"),
    example=f"{_UM} --disaggregation-mode prefill --disaggregation-transfer-backend nixl",
    near_miss=f"{_UM} --disaggregation-mode prefill --disaggregation-transfer-backend mooncake",
    note="The fix falls back to SGLang's default transfer backend, mooncake.",
)

rule(
    code="SGL1288",
    name="unified-memory-speculative-not-dspark",
    errors=("5d1bdf516507", "b308c9fe45c6"),
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path)
    and _pd_passes(cfg.disaggregation_mode)
    and cfg.speculative_algorithm is not None and _algorithm(cfg.speculative_algorithm) != "DSPARK",
    at=("speculative_algorithm", "enable_unified_memory"),
    message="`--enable-unified-memory` supports only `--speculative-algorithm DSPARK` (a chain draft), "
    "got `{speculative_algorithm}`",
    fix=remove("enable_unified_memory"),
    example=f"{_UM} --speculative-algorithm NGRAM",
    near_miss=_UM,
)

rule(
    code="SGL1289",
    name="unified-memory-dspark-with-unaudited-attention-backend",
    # 0.5.18's page-major layout check (triton only on MHA models) refuses these backends first.
    errors="bffef07f1c2f",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path)
    and _pd_passes(cfg.disaggregation_mode)
    and _algorithm(cfg.speculative_algorithm) == "DSPARK"
    and _unaudited(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend,
                   cfg.model.architecture),
    at=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
    message="`--enable-unified-memory` with DSpark needs spec-verify-audited attention backends "
    "(triton, trtllm_mla, cutedsl_mla, tokenspeed_mla) for both prefill and decode",
    fix=(remove("prefill_attention_backend"), remove("decode_attention_backend"), set_("attention_backend", "triton")),
    example="--model-path Qwen/Qwen3-8B --enable-unified-memory --speculative-algorithm DSPARK "
    "--speculative-draft-model-path org/dspark --attention-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-memory --speculative-algorithm DSPARK "
    "--speculative-draft-model-path org/dspark --attention-backend triton",
)

rule(
    code="SGL1290",
    name="unified-memory-with-host-tiered-kv-cache",
    errors="14e770505ac4",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path)
    and _pd_passes(cfg.disaggregation_mode)
    and _spec_passes(cfg.speculative_algorithm) and (cfg.enable_hierarchical_cache or cfg.enable_lmcache),
    at=("enable_hierarchical_cache", "enable_lmcache"),
    message="`--enable-unified-memory` is not yet compatible with a host-tiered KV cache "
    "(`--enable-hierarchical-cache`, `--enable-lmcache`): the unified pool wires up no host pools",
    fix=(remove("enable_hierarchical_cache"), remove("enable_lmcache")),
    example=f"{_UM} --enable-hierarchical-cache --hicache-ratio 2",
    near_miss=_UM,
)

rule(
    code="SGL1291",
    name="unified-memory-with-decode-context-parallelism",
    errors="de7e917f97f1",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path)
    and _pd_passes(cfg.disaggregation_mode)
    and _spec_passes(cfg.speculative_algorithm) and not cfg.enable_hierarchical_cache and not cfg.enable_lmcache
    and cfg.dcp_size > 1,
    at=("dcp_size", "enable_unified_memory"),
    message="`--enable-unified-memory` is not yet compatible with decode context parallelism "
    "(`--dcp-size {dcp_size}`): the pool has no DCP-aware masked write path",
    fix=remove("dcp_size"),
    example=f"{_UM} --tp-size 2 --dcp-size 2",
    near_miss=f"{_UM} --tp-size 2",
)

rule(
    code="SGL1292",
    name="unified-memory-with-prefill-cuda-graph-0519",
    errors="f0c3ed5221af",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path)
    and _pd_passes(cfg.disaggregation_mode)
    and _spec_passes(cfg.speculative_algorithm) and not cfg.enable_hierarchical_cache and not cfg.enable_lmcache
    and cfg.dcp_size == 1 and cfg.cuda_graph_config is None
    and cfg.cuda_graph_backend_prefill not in (None, "disabled"),
    at="cuda_graph_backend_prefill",
    message="`--enable-unified-memory` supports decode CUDA graph capture only: prefill capture is not wired; "
    "got `--cuda-graph-backend-prefill {cuda_graph_backend_prefill}`",
    fix=set_("cuda_graph_backend_prefill", "disabled"),
    safe=True,
    example=f"{_UM} --cuda-graph-backend-prefill breakable",
    near_miss=f"{_UM} --cuda-graph-backend-prefill disabled",
)

rule(
    code="SGL1293",
    name="unified-memory-with-piecewise-prefill-cuda-graph",
    errors="132e08e728df",
    when=lambda cfg: _plain(cfg.enable_unified_memory, cfg.model_path)
    and _pd_passes(cfg.disaggregation_mode)
    and _spec_passes(cfg.speculative_algorithm) and not cfg.enable_hierarchical_cache and not cfg.enable_lmcache
    and cfg.dcp_size == 1 and cfg.cuda_graph_config is None and cfg.cuda_graph_backend_prefill == "tc_piecewise",
    at="cuda_graph_backend_prefill",
    message="`--enable-unified-memory` supports monolithic (decode) CUDA graph capture only: turn the piecewise "
    "prefill capture (`--cuda-graph-backend-prefill tc_piecewise`) off",
    fix=set_("cuda_graph_backend_prefill", "disabled"),
    safe=True,
    example=f"{_UM} --cuda-graph-backend-prefill tc_piecewise",
    near_miss=f"{_UM} --cuda-graph-backend-prefill disabled",
)

rule(
    code="SGL1294",
    name="unified-memory-with-two-batch-overlap-older",
    errors="5d4f30e31469",
    when=lambda cfg: cfg.enable_unified_memory and cfg.enable_two_batch_overlap,
    at="enable_two_batch_overlap",
    message="`--enable-unified-memory` does not support `--enable-two-batch-overlap`",
    fix=remove("enable_two_batch_overlap"),
    example=f"{_UM} --enable-two-batch-overlap",
    near_miss=_UM,
)
