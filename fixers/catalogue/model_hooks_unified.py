"""Catalogue rules of `handle_unified_memory_pool` (`arg_groups/kv_cache_hook.py`, 0.5.21 on) that
read the served model. On a PD decode server the unified pool's decode KV offload serves neither
MLA, hybrid-Mamba nor hybrid sliding-window models, and its host-pool retraction backup no
hybrid-Mamba model. With EAGLE, the fused draft needs a hybrid target on audited backends.

A rule reports only a launch that passes what the PD branch checks first (`_pd_branch_passes`):
the Mooncake transfer backend, PP 1, no speculative decoding and no HiSparse.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

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


# -- the unified pool with EAGLE: a fused draft needs a unified target on audited backends --------

# Architectures SGLang serves as neither hybrid-SWA (is_hybrid_swa_model, by architecture) nor Mamba-like:
# plain dense decoders whose configs in the tests the judge has read.
_PLAIN_TARGETS = frozenset({"Qwen3ForCausalLM", "LlamaForCausalLM"})
# _SPEC_MHA_AUDITED_BACKENDS of 0.5.22 and 0.5.23 together (0.5.23 adds trtllm_mha).
_SPEC_MHA_AUDITED = frozenset({"triton", "flashinfer", "fa3", "trtllm_mha"})


def _unified_eagle(cfg) -> bool:  # noqa: ANN001
    """A unified pool serving EAGLE or EAGLE3 (as written: the check reads the name before any alias)
    with a linear draft chain, outside PD disaggregation."""
    return cfg.enable_unified_memory and cfg.disaggregation_mode == "null" \
        and cfg.speculative_algorithm in ("EAGLE", "EAGLE3") and cfg.speculative_eagle_topk in (None, 1)


def _target(cfg) -> str:  # noqa: ANN001 (it reads the model, not a flag)
    architecture = cfg.model.architecture
    if architecture is None:
        raise Unresolvable("the model's architecture is not known")
    return architecture


_EAGLE = "--enable-unified-memory --speculative-algorithm EAGLE3 --speculative-draft-model-path Qwen/Qwen3-8B " \
    "--speculative-eagle-topk 1 --speculative-num-steps 3 --speculative-num-draft-tokens 4"

rule(
    code="SGL1137",
    name="unified-memory-eagle-on-plain-target",
    errors="4e6aee678eb9",
    when=lambda cfg: _unified_eagle(cfg) and _target(cfg) in _PLAIN_TARGETS and served(cfg.model_path),
    at=("enable_unified_memory", "speculative_algorithm"),
    message=lambda cfg: f"`--enable-unified-memory` with {cfg.speculative_algorithm} needs a hybrid-SWA or "
    f"Mamba-hybrid target, and {_target(cfg)} is neither: the draft's KV lives inside the target's pool entries",
    fix=remove("enable_unified_memory"),
    example=f"--model-path Qwen/Qwen3-8B --attention-backend triton {_EAGLE}",
    near_miss=f"--model-path openai/gpt-oss-120b --attention-backend triton {_EAGLE}",
)

rule(
    code="SGL1138",
    name="unified-memory-eagle-on-unaudited-attention-backend",
    errors="d76ae2a8ece1",
    when=lambda cfg: _unified_eagle(cfg) and cfg.attention_backend is not None
    and cfg.prefill_attention_backend is None and cfg.decode_attention_backend is None
    and cfg.attention_backend not in _SPEC_MHA_AUDITED and (_target(cfg) in _HYBRID_SWA or _mamba_hybrid(cfg))
    and served(cfg.model_path),
    at="attention_backend",
    message="`--enable-unified-memory` with EAGLE verifies the target only on "
    + ", ".join(f"`{b}`" for b in sorted(_SPEC_MHA_AUDITED - {"trtllm_mha"}))
    + " attention (and `trtllm_mha` from 0.5.23), got `{attention_backend}`",
    fix=set_("attention_backend", "triton"),
    example=f"--model-path openai/gpt-oss-120b --attention-backend fa4 {_EAGLE}",
    near_miss=f"--model-path openai/gpt-oss-120b --attention-backend triton {_EAGLE}",
)
