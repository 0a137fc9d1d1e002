"""Catalogue rules of `handle_unified_memory_pool` (`arg_groups/kv_cache_hook.py`, 0.5.21 on) on a
PD decode server: the unified pool's decode KV offload serves neither MLA, hybrid-Mamba nor
hybrid sliding-window models, and its host-pool retraction backup no hybrid-Mamba model.

A rule reports only a launch that passes what the PD branch checks first (`_pd_branch_passes`):
the Mooncake transfer backend, PP 1, no speculative decoding and no HiSparse.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import served
from .model_hooks_mamba import _mamba_hybrid

# Architectures whose config SGLang serves as hybrid sliding-window (is_hybrid_swa_model), proven by the
# judge on a real config; neither MLA nor Mamba-like.
_HYBRID_SWA = frozenset({"GptOssForCausalLM"})


def _pd_branch_passes(cfg) -> bool:  # noqa: ANN001 (it reads several flags, each as SGLang does)
    return cfg.enable_unified_memory and cfg.disaggregation_mode == "decode" \
        and cfg.disaggregation_transfer_backend == "mooncake" and cfg.pp_size == 1 \
        and cfg.speculative_algorithm is None and not cfg.enable_hisparse


def _offloads(cfg) -> bool:  # noqa: ANN001
    """Decode KV offload with the file storage backend (another backend is refused first)."""
    return cfg.disaggregation_decode_enable_offload_kvcache and cfg.hicache_storage_backend == "file"


def _mla(cfg) -> bool:  # noqa: ANN001 (it reads the model, not a flag)
    if cfg.model.mla is None:
        raise Unresolvable("the model's attention kind is not known")
    return cfg.model.mla


def _hybrid_swa(cfg) -> bool:  # noqa: ANN001
    architecture = cfg.model.architecture
    if architecture is None:
        raise Unresolvable("the model's architecture is not known")
    return architecture in _HYBRID_SWA


_OFFLOAD = "--enable-unified-memory --disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache " \
    "--hicache-storage-backend file"
_RETRACTION = "--enable-unified-memory --disaggregation-mode decode --disaggregation-decode-retraction-backup host_pool"

rule(
    code="SGL1129",
    name="unified-memory-decode-kv-offload-on-mla-model",
    errors="72105d820e68",
    when=lambda cfg: _pd_branch_passes(cfg) and _offloads(cfg) and _mla(cfg) and served(cfg.model_path),
    at="disaggregation_decode_enable_offload_kvcache",
    message="`--enable-unified-memory` decode KV offload does not support MLA models yet",
    fix=remove("disaggregation_decode_enable_offload_kvcache"),
    example=f"--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 {_OFFLOAD}",
    near_miss=f"--model-path Qwen/Qwen3-8B {_OFFLOAD}",
)

rule(
    code="SGL1130",
    name="unified-memory-decode-kv-offload-on-hybrid-mamba-model",
    errors="14cb77ca7725",
    when=lambda cfg: _pd_branch_passes(cfg) and _offloads(cfg) and not _mla(cfg) and _mamba_hybrid(cfg)
    and served(cfg.model_path),
    at="disaggregation_decode_enable_offload_kvcache",
    message="`--enable-unified-memory` decode KV offload does not support hybrid-Mamba models",
    fix=remove("disaggregation_decode_enable_offload_kvcache"),
    example=f"--model-path Qwen/Qwen3.5-9B {_OFFLOAD}",
    near_miss=f"--model-path Qwen/Qwen3-8B {_OFFLOAD}",
)

rule(
    code="SGL1131",
    name="unified-memory-decode-kv-offload-on-hybrid-swa-model",
    errors="3f9732b19932",
    when=lambda cfg: _pd_branch_passes(cfg) and _offloads(cfg) and not cfg.disable_hybrid_swa_memory
    and _hybrid_swa(cfg) and served(cfg.model_path),
    at="disaggregation_decode_enable_offload_kvcache",
    message="`--enable-unified-memory` decode KV offload does not support hybrid sliding-window models yet "
    "(their H2D/D2H transfers)",
    fix=remove("disaggregation_decode_enable_offload_kvcache"),
    example=f"--model-path openai/gpt-oss-120b {_OFFLOAD}",
    near_miss=f"--model-path Qwen/Qwen3-8B {_OFFLOAD}",
)

rule(
    code="SGL1132",
    name="unified-memory-host-pool-retraction-on-hybrid-mamba-model",
    errors="9f5452e2385c",
    when=lambda cfg: _pd_branch_passes(cfg) and cfg.disaggregation_decode_retraction_backup == "host_pool"
    and not cfg.disaggregation_decode_enable_offload_kvcache and _mamba_hybrid(cfg) and served(cfg.model_path),
    at="disaggregation_decode_retraction_backup",
    message="`--enable-unified-memory` host-pool decode retraction (`--disaggregation-decode-retraction-backup "
    "host_pool`) does not support hybrid-Mamba models",
    fix=remove("disaggregation_decode_retraction_backup"),
    example=f"--model-path Qwen/Qwen3.5-9B {_RETRACTION}",
    near_miss=f"--model-path Qwen/Qwen3-8B {_RETRACTION}",
)
