"""Catalogue rules: KV cache, LMCache and hierarchical cache (SGLang's `kv_cache_hook.py`, `hicache_hook.py`,
`hisparse_hook.py`, `memory_hook.py`)."""

from __future__ import annotations


from autofix.rules import known, remove, rule, set_

from ._common import json_value

rule(
    code="SGL300",
    name="lmcache-with-hierarchical-cache",
    errors="e10c9f2912de",
    when=lambda cfg: cfg.enable_lmcache and cfg.enable_hierarchical_cache,
    at="enable_lmcache",
    message="`--enable-lmcache` and `--enable-hierarchical-cache` cannot be used together",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --enable-hierarchical-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache",
)


# -- helpers --------------------------------------------------------------------



def _tlru(cfg) -> tuple[float, float] | None:
    """(threshold, next_prompt_estimate) of a tlru policy config, as SGLang reads them."""
    config = json_value(cfg.radix_eviction_policy_config) or {}
    if not isinstance(config, dict):
        return None
    threshold, estimate = config.get("threshold", 0), config.get("next_prompt_estimate", 0)
    if not all(isinstance(v, (int, float)) for v in (threshold, estimate)):
        return None
    return threshold, estimate



def _radix_disabled(cfg) -> bool:
    """disable_radix_cache after the PD hook: a decode server decides it by
    --disaggregation-decode-enable-radix-cache; other hooks only ever disable it."""
    if cfg.disaggregation_mode == "decode":
        return not cfg.disaggregation_decode_enable_radix_cache
    return cfg.disable_radix_cache


def _speculative(cfg) -> bool:
    """A speculative algorithm is on (the aux-hidden-state flag resets it to None first)."""
    algorithm = cfg.speculative_algorithm
    return algorithm is not None and algorithm.upper() != "NONE" \
        and not cfg.get("enable_return_aux_hidden_states", False)


def _eagle(cfg) -> bool:
    """The resolved algorithm is EAGLE/EAGLE3 (NEXTN is its alias), or one unified memory refuses."""
    algorithm = cfg.speculative_algorithm
    return algorithm is not None and algorithm.upper() in ("EAGLE", "EAGLE3", "NEXTN") \
        and not cfg.get("enable_return_aux_hidden_states", False)


def _hicache_path(cfg) -> bool:
    """handle_hicache validates the host pool (no external linker; HiCache or a decode host pool)."""
    return not cfg.get("enable_unified_cache_external_linker", False) and (
        cfg.enable_hierarchical_cache
        or cfg.disaggregation_decode_enable_offload_kvcache
        or (cfg.disaggregation_mode == "decode"
            and cfg.disaggregation_decode_retraction_backup in (None, "host_pool"))
    )


# -- handle_cache_compatibility (kv_cache_hook.py) -----------------------------------

rule(
    code="SGL301",
    name="host-pool-retraction-without-pd-decode",
    errors="406962e41692",
    when=lambda cfg: cfg.disaggregation_decode_retraction_backup == "host_pool"
    and cfg.disaggregation_mode != "decode",
    at="disaggregation_decode_retraction_backup",
    message="`--disaggregation-decode-retraction-backup host_pool` is only supported on a PD decode server "
    "(`--disaggregation-mode decode`)",
    fix=remove("disaggregation_decode_retraction_backup"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-decode-retraction-backup host_pool",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-decode-retraction-backup host_pool "
    "--disaggregation-mode decode",
)

rule(
    code="SGL302",
    name="host-pool-retraction-with-dcp",
    errors="9a3d3f890e7e",
    when=lambda cfg: cfg.disaggregation_decode_retraction_backup == "host_pool" and cfg.dcp_size > 1,
    at="disaggregation_decode_retraction_backup",
    message="`--disaggregation-decode-retraction-backup host_pool` does not support `--dcp-size {dcp_size}` (> 1)",
    fix=remove("disaggregation_decode_retraction_backup"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-retraction-backup host_pool --tp-size 2 --dcp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-retraction-backup host_pool --tp-size 2",
)

rule(
    code="SGL303",
    name="host-pool-retraction-with-priority-preemption",
    errors="768c8c2177c2",
    when=lambda cfg: cfg.disaggregation_decode_retraction_backup == "host_pool"
    and cfg.enable_priority_scheduling and not cfg.disable_priority_preemption,
    at="disaggregation_decode_retraction_backup",
    message="`--disaggregation-decode-retraction-backup host_pool` with `--enable-priority-scheduling` "
    "requires `--disable-priority-preemption`",
    fix=set_("disable_priority_preemption"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-retraction-backup host_pool --enable-priority-scheduling",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-retraction-backup host_pool --enable-priority-scheduling "
    "--disable-priority-preemption",
)

rule(
    code="SGL304",
    name="tlru-eviction-negative-config",
    errors="0df229f0527f",
    when=lambda cfg: cfg.radix_eviction_policy == "tlru" and (t := _tlru(cfg)) is not None and min(t) < 0,
    at=("radix_eviction_policy_config", "radix_eviction_policy"),
    message="`--radix-eviction-policy tlru` requires non-negative 'threshold' and 'next_prompt_estimate' "
    "in `--radix-eviction-policy-config`",
    example="--model-path Qwen/Qwen3-8B --radix-eviction-policy tlru "
    "--radix-eviction-policy-config '{\"threshold\": -1, \"next_prompt_estimate\": 512}'",
    near_miss="--model-path Qwen/Qwen3-8B --radix-eviction-policy tlru "
    "--radix-eviction-policy-config '{\"threshold\": 4096, \"next_prompt_estimate\": 512}'",
)

rule(
    code="SGL305",
    name="tlru-eviction-threshold-not-above-estimate",
    errors="605e4a58cf57",
    when=lambda cfg: cfg.radix_eviction_policy == "tlru" and (t := _tlru(cfg)) is not None
    and min(t) >= 0 and t[0] <= t[1],
    at=("radix_eviction_policy_config", "radix_eviction_policy"),
    message="`--radix-eviction-policy tlru` needs 'threshold' greater than 'next_prompt_estimate' in "
    "`--radix-eviction-policy-config` (both default to 0); otherwise T-LRU is exactly LRU",
    example="--model-path Qwen/Qwen3-8B --radix-eviction-policy tlru",
    near_miss="--model-path Qwen/Qwen3-8B --radix-eviction-policy tlru "
    "--radix-eviction-policy-config '{\"threshold\": 4096, \"next_prompt_estimate\": 512}'",
)

rule(
    code="SGL306",
    name="decode-kv-offload-without-pd-decode",
    errors="a66ca6d17461",
    when=lambda cfg: cfg.disaggregation_decode_enable_offload_kvcache and cfg.disaggregation_mode != "decode",
    at="disaggregation_decode_enable_offload_kvcache",
    message="`--disaggregation-decode-enable-offload-kvcache` is only supported on a PD decode server "
    "(`--disaggregation-mode decode`)",
    fix=remove("disaggregation_decode_enable_offload_kvcache"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-decode-enable-offload-kvcache "
    "--hicache-storage-backend file",
    near_miss="--model-path Qwen/Qwen3-8B --hicache-storage-backend file",
)

rule(
    code="SGL307",
    name="decode-kv-offload-without-storage-backend",
    errors="7e49b87129e0",
    when=lambda cfg: cfg.disaggregation_decode_enable_offload_kvcache and cfg.disaggregation_mode == "decode"
    and cfg.hicache_storage_backend is None,
    at="disaggregation_decode_enable_offload_kvcache",
    message="`--disaggregation-decode-enable-offload-kvcache` requires `--hicache-storage-backend`",
    fix=remove("disaggregation_decode_enable_offload_kvcache"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-enable-offload-kvcache",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file",
)

rule(
    code="SGL308",
    name="decode-kv-offload-with-host-pool-retraction",
    errors="bd037469c2d0",
    when=lambda cfg: cfg.disaggregation_decode_enable_offload_kvcache and cfg.disaggregation_mode == "decode"
    and cfg.hicache_storage_backend is not None and cfg.disaggregation_decode_retraction_backup == "host_pool",
    at=("disaggregation_decode_retraction_backup", "disaggregation_decode_enable_offload_kvcache"),
    message="`--disaggregation-decode-enable-offload-kvcache` and "
    "`--disaggregation-decode-retraction-backup host_pool` cannot be used together: both build a decode host pool",
    fix=remove("disaggregation_decode_retraction_backup"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file "
    "--disaggregation-decode-retraction-backup host_pool",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file",
)

rule(
    code="SGL309",
    name="swa-full-tokens-ratio-out-of-range",
    errors="e1886ae5f2b5",
    # Step3p resets the ratio to 1.0 under hierarchical cache; other models fill it only when unset.
    when=lambda cfg: cfg.swa_full_tokens_ratio is not None and not 0 < cfg.swa_full_tokens_ratio <= 1.0
    and not cfg.enable_hierarchical_cache,
    at="swa_full_tokens_ratio",
    message="`--swa-full-tokens-ratio {swa_full_tokens_ratio}` is out of range: it must be in (0, 1.0]",
    example="--model-path Qwen/Qwen3-8B --swa-full-tokens-ratio 1.5",
    near_miss="--model-path Qwen/Qwen3-8B --swa-full-tokens-ratio 0.5",
)

rule(
    code="SGL310",
    name="swa-prefix-tails-negative",
    errors="8d7616b5af09",
    when=lambda cfg: cfg.swa_prefix_tails is not None and cfg.swa_prefix_tails < 0,
    at="swa_prefix_tails",
    message="`--swa-prefix-tails {swa_prefix_tails}` must be a non-negative integer",
    fix=remove("swa_prefix_tails"),
    example="--model-path Qwen/Qwen3-8B --swa-prefix-tails -1",
    near_miss="--model-path Qwen/Qwen3-8B --swa-prefix-tails 0",
)

rule(
    code="SGL311",
    name="lmcache-with-unified-cache-linker",
    errors="88a613e7c74c",
    when=lambda cfg: cfg.enable_lmcache and cfg.enable_unified_cache_external_linker,
    at="enable_lmcache",
    message="`--enable-lmcache` and `--enable-unified-cache-external-linker` cannot be used together",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --enable-unified-cache-external-linker",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker",
)

rule(
    code="SGL312",
    name="lmcache-with-radix-cache-disabled",
    errors="6b62edeb7e9d",
    # A decode server may turn the radix cache back on, but LMCache refuses PD disaggregation as well.
    when=lambda cfg: cfg.enable_lmcache and cfg.disable_radix_cache,
    at="enable_lmcache",
    message="`--enable-lmcache` requires the radix cache: it cannot be used with `--disable-radix-cache`",
    fix=remove("disable_radix_cache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --disable-radix-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache",
)

rule(
    code="SGL313",
    name="lmcache-with-speculative-decoding",
    errors="686f6a0d80e9",
    when=lambda cfg: cfg.enable_lmcache and _speculative(cfg),
    at="enable_lmcache",
    message="`--enable-lmcache` does not yet support speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`)",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --speculative-algorithm EAGLE",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE",
)

rule(
    code="SGL315",
    name="lmcache-with-dcp",
    errors="b3fc9c009d4b",
    when=lambda cfg: cfg.enable_lmcache and cfg.dcp_size > 1,
    at="enable_lmcache",
    message="`--enable-lmcache` does not support `--dcp-size {dcp_size}` (> 1): "
    "LMCache has no DCP-aware index translation",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --tp-size 2 --dcp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache --tp-size 2",
)

rule(
    code="SGL316",
    name="lmcache-with-streaming-session",
    errors="4cc021dd5068",
    when=lambda cfg: cfg.enable_lmcache and cfg.enable_streaming_session,
    at="enable_lmcache",
    message="`--enable-lmcache` does not yet support `--enable-streaming-session`",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --enable-streaming-session",
    near_miss="--model-path Qwen/Qwen3-8B --enable-streaming-session",
)

rule(
    code="SGL317",
    name="lmcache-with-buffer-only-host-memory",
    errors="85e64331c1cf",
    when=lambda cfg: cfg.enable_lmcache and cfg.hicache_host_memory_mode == "buffer_only",
    at="hicache_host_memory_mode",
    message="`--hicache-host-memory-mode buffer_only` is a HiCache-only mode: it cannot be used with "
    "`--enable-lmcache`",
    fix=remove("hicache_host_memory_mode"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --hicache-host-memory-mode buffer_only",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache --hicache-host-memory-mode cache",
)

rule(
    code="SGL318",
    name="lmcache-with-pd-disaggregation",
    errors="1de3715a4ed6",
    when=lambda cfg: cfg.enable_lmcache and cfg.disaggregation_mode != "null",
    at="enable_lmcache",
    message="`--enable-lmcache` supports colocated prefill/decode only, not "
    "`--disaggregation-mode {disaggregation_mode}`",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill",
)


# -- hicache_hook.py ----------------------------------------------------------------

rule(
    code="SGL314",
    name="hicache-host-memory-fraction-out-of-range",
    errors="b87a668e05da",
    when=lambda cfg: cfg.hicache_host_memory_fraction is not None
    and not 0 < cfg.hicache_host_memory_fraction <= 1,
    at="hicache_host_memory_fraction",
    message="`--hicache-host-memory-fraction {hicache_host_memory_fraction}` is out of range: it must be in (0, 1]",
    fix=remove("hicache_host_memory_fraction"),
    example="--model-path Qwen/Qwen3-8B --hicache-host-memory-fraction 1.5",
    near_miss="--model-path Qwen/Qwen3-8B --hicache-host-memory-fraction 0.5",
)

rule(
    code="SGL319",
    name="unified-cache-linker-config-not-an-object",
    errors="9c472a3d9c6f",
    when=lambda cfg: cfg.unified_cache_external_linker_config is not None
    and not isinstance(json_value(cfg.unified_cache_external_linker_config), (dict, type(None))),
    at="unified_cache_external_linker_config",
    message="`--unified-cache-external-linker-config` must be a JSON object",
    fix=remove("unified_cache_external_linker_config"),
    example="--model-path Qwen/Qwen3-8B --unified-cache-external-linker-config '[1, 2]'",
    near_miss="--model-path Qwen/Qwen3-8B --unified-cache-external-linker-config '{}'",
)

rule(
    code="SGL320",
    name="linker-mla-dedup-without-mooncake-linker",
    errors="75e191bdb8df",
    when=lambda cfg: cfg.enable_linker_mla_dedup and (
        not cfg.enable_unified_cache_external_linker or cfg.unified_cache_external_linker_backend != "mooncake"),
    at="enable_linker_mla_dedup",
    message="`--enable-linker-mla-dedup` requires the Mooncake linker "
    "(`--enable-unified-cache-external-linker` with `--unified-cache-external-linker-backend mooncake`)",
    fix=remove("enable_linker_mla_dedup"),
    example="--model-path Qwen/Qwen3-8B --enable-linker-mla-dedup",
    near_miss="--model-path Qwen/Qwen3-8B --enable-linker-mla-dedup --enable-unified-cache-external-linker",
)

rule(
    code="SGL321",
    name="unified-cache-linker-without-radix-cache",
    errors="37a3fc0d95cd",
    when=lambda cfg: cfg.enable_unified_cache_external_linker and (
        cfg.radix_cache_backend is not None or _radix_disabled(cfg)),
    at="enable_unified_cache_external_linker",
    message="`--enable-unified-cache-external-linker` requires the default radix cache: it cannot be used with "
    "`--disable-radix-cache`, `--radix-cache-backend` or a PD decode server without "
    "`--disaggregation-decode-enable-radix-cache`",
    example="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker --disable-radix-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker",
)

rule(
    code="SGL322",
    name="unified-cache-linker-with-hierarchical-cache",
    errors="0777be9f48ae",
    when=lambda cfg: cfg.enable_unified_cache_external_linker and cfg.enable_hierarchical_cache,
    at="enable_unified_cache_external_linker",
    message="`--enable-unified-cache-external-linker` and `--enable-hierarchical-cache` cannot be used together",
    fix=remove("enable_hierarchical_cache"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker --enable-hierarchical-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker",
)

rule(
    code="SGL323",
    name="unified-cache-linker-with-hicache-storage-backend",
    errors="d931f64fb7d9",
    when=lambda cfg: cfg.enable_unified_cache_external_linker and cfg.hicache_storage_backend is not None,
    at="hicache_storage_backend",
    message="`--enable-unified-cache-external-linker` does not use `--hicache-storage-backend`",
    fix=remove("hicache_storage_backend"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker --hicache-storage-backend file",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker",
)

rule(
    code="SGL324",
    name="hicache-buffer-only-without-storage-backend",
    errors="98ab4ddab3bf",
    when=lambda cfg: cfg.hicache_host_memory_mode == "buffer_only" and cfg.hicache_storage_backend is None
    and _hicache_path(cfg),
    at="hicache_host_memory_mode",
    message="`--hicache-host-memory-mode buffer_only` requires a storage backend (`--hicache-storage-backend`): "
    "host memory is only a staging buffer",
    fix=remove("hicache_host_memory_mode"),
    example="--model-path Qwen/Qwen3-8B --enable-hierarchical-cache --hicache-ratio 2 "
    "--hicache-host-memory-mode buffer_only --hicache-write-policy write_through",
    near_miss="--model-path Qwen/Qwen3-8B --enable-hierarchical-cache --hicache-ratio 2 "
    "--hicache-host-memory-mode buffer_only --hicache-write-policy write_through --hicache-storage-backend file",
)

rule(
    code="SGL325",
    name="hicache-buffer-only-on-pd-decode",
    errors="32bff46f68ae",
    when=lambda cfg: cfg.hicache_host_memory_mode == "buffer_only" and cfg.disaggregation_mode == "decode"
    and cfg.hicache_storage_backend is not None and _hicache_path(cfg),
    at="hicache_host_memory_mode",
    message="`--hicache-host-memory-mode buffer_only` is not supported on a PD decode server",
    fix=remove("hicache_host_memory_mode"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --hicache-host-memory-mode buffer_only "
    "--hicache-storage-backend file --hicache-write-policy write_through",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --hicache-host-memory-mode buffer_only "
    "--hicache-storage-backend file --hicache-write-policy write_through",
)


# -- unified memory and the page-major layout (kv_cache_hook.py) ------------------------

rule(
    code="SGL326",
    name="page-major-kv-layout-without-unified-memory",
    errors="308954b62492",
    when=lambda cfg: cfg.enable_page_major_kv_layout and not cfg.enable_unified_memory,
    at="enable_page_major_kv_layout",
    message="`--enable-page-major-kv-layout` without `--enable-unified-memory` is temporarily unsupported",
    fix=remove("enable_page_major_kv_layout"),
    example="--model-path Qwen/Qwen3-8B --enable-page-major-kv-layout",
    near_miss="--model-path Qwen/Qwen3-8B",
)

rule(
    code="SGL327",
    name="unified-memory-with-lmcache",
    errors="b93149de10c1",
    when=lambda cfg: cfg.enable_unified_memory and cfg.enable_lmcache,
    at="enable_lmcache",
    message="`--enable-unified-memory` is not yet compatible with `--enable-lmcache`",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-memory --enable-lmcache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache",
)

rule(
    code="SGL328",
    name="unified-memory-with-two-batch-overlap",
    errors="60b146bc7056",
    when=lambda cfg: cfg.enable_unified_memory and cfg.enable_two_batch_overlap,
    at="enable_two_batch_overlap",
    message="`--enable-unified-memory` does not support `--enable-two-batch-overlap`",
    fix=remove("enable_two_batch_overlap"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-memory --enable-two-batch-overlap --attention-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-memory --attention-backend triton",
)

rule(
    code="SGL329",
    name="unified-memory-with-unified-cache-linker",
    errors="33f37cd30ecd",
    when=lambda cfg: cfg.enable_unified_memory and cfg.enable_unified_cache_external_linker,
    at="enable_unified_cache_external_linker",
    message="`--enable-unified-memory` does not support `--enable-unified-cache-external-linker`; "
    "use `--enable-hierarchical-cache` for L2/L3 transfers",
    fix=remove("enable_unified_memory"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-memory --enable-unified-cache-external-linker",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-cache-external-linker",
)


# -- validate_prefill_only_disable_kv_cache_args (kv_cache_hook.py) ------------------------

# fa4: SGLang's own default prefill backend on a B200 (trtllm_mha) is not one prefill-only mode takes.
_PREFILL_ONLY = "--model-path Qwen/Qwen3-8B --prefill-only-disable-kv-cache --is-embedding --attention-backend fa4"
_PREFILL_ONLY_OK = f"{_PREFILL_ONLY} --chunked-prefill-size -1 --disable-radix-cache"


def _kv_dtype(cfg) -> object:
    """--kv-cache-dtype as the deprecated-argument step leaves it (tokenspeed_mla forces fp8_e4m3)."""
    if "tokenspeed_mla" in (cfg.attention_backend, cfg.decode_attention_backend):
        return known(None)
    return cfg.kv_cache_dtype


rule(
    code="SGL330",
    name="prefill-only-kv-cache-off-without-embedding",
    errors="1e46541ff42f",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and not cfg.is_embedding,
    at="prefill_only_disable_kv_cache",
    message="`--prefill-only-disable-kv-cache` currently requires `--is-embedding`",
    fix=remove("prefill_only_disable_kv_cache"),
    example="--model-path Qwen/Qwen3-8B --prefill-only-disable-kv-cache --chunked-prefill-size -1 "
    "--disable-radix-cache",
    near_miss=_PREFILL_ONLY_OK,
)

rule(
    code="SGL331",
    name="prefill-only-kv-cache-off-with-fp4-kv-cache",
    errors="8a8fb58bc9a5",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and cfg.kv_cache_dtype in ("nvfp4", "fp4_mx_block16")
    and _kv_dtype(cfg) in ("nvfp4", "fp4_mx_block16"),
    at="kv_cache_dtype",
    message="`--prefill-only-disable-kv-cache` does not support `--kv-cache-dtype {kv_cache_dtype}` (FP4)",
    fix=remove("kv_cache_dtype"),
    example=f"{_PREFILL_ONLY_OK} --kv-cache-dtype nvfp4",
    near_miss=f"{_PREFILL_ONLY_OK} --kv-cache-dtype fp8_e4m3",
)

rule(
    code="SGL332",
    name="prefill-only-kv-cache-off-with-mxfp8-kv-cache",
    errors="bbcbc2711876",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and cfg.kv_cache_dtype == "mxfp8"
    and _kv_dtype(cfg) == "mxfp8",
    at="kv_cache_dtype",
    message="`--prefill-only-disable-kv-cache` does not support `--kv-cache-dtype mxfp8`",
    fix=remove("kv_cache_dtype"),
    example=f"{_PREFILL_ONLY_OK} --kv-cache-dtype mxfp8",
    near_miss=f"{_PREFILL_ONLY_OK} --kv-cache-dtype fp8_e4m3",
)

rule(
    code="SGL333",
    name="prefill-only-kv-cache-off-with-chunked-prefill",
    errors="a2a53aa31cb6",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and cfg.chunked_prefill_size != -1,
    at=("chunked_prefill_size", "prefill_only_disable_kv_cache"),
    message="`--prefill-only-disable-kv-cache` requires `--chunked-prefill-size -1`",
    fix=set_("chunked_prefill_size", "-1"),
    safe=True,
    example=f"{_PREFILL_ONLY} --disable-radix-cache",
    near_miss=_PREFILL_ONLY_OK,
)

rule(
    code="SGL334",
    name="prefill-only-kv-cache-off-with-radix-cache",
    errors="72360472d6b7",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and not _radix_disabled(cfg),
    at="prefill_only_disable_kv_cache",
    message="`--prefill-only-disable-kv-cache` requires `--disable-radix-cache`",
    fix=set_("disable_radix_cache"),
    safe=True,
    example=f"{_PREFILL_ONLY} --chunked-prefill-size -1",
    near_miss=_PREFILL_ONLY_OK,
)

rule(
    code="SGL335",
    name="prefill-only-kv-cache-off-with-attention-cp",
    errors="289630d11398",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and cfg.attn_cp_size > 1,
    at="attn_cp_size",
    message="`--prefill-only-disable-kv-cache` is incompatible with `--attn-cp-size {attn_cp_size}` (> 1)",
    fix=remove("attn_cp_size"),
    example=f"{_PREFILL_ONLY_OK} --tp-size 2 --attn-cp-size 2",
    near_miss=f"{_PREFILL_ONLY_OK} --tp-size 2",
)

rule(
    code="SGL336",
    name="prefill-only-kv-cache-off-with-prefill-cp",
    errors="0314f97733e5",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and cfg.enable_prefill_cp,
    at="enable_prefill_cp",
    message="`--prefill-only-disable-kv-cache` is incompatible with `--enable-prefill-cp`",
    fix=remove("enable_prefill_cp"),
    example=f"{_PREFILL_ONLY_OK} --enable-prefill-cp",
    near_miss=_PREFILL_ONLY_OK,
)

rule(
    code="SGL337",
    name="prefill-only-kv-cache-off-with-hisparse",
    errors="ecb53003fc01",
    when=lambda cfg: cfg.prefill_only_disable_kv_cache and cfg.enable_hisparse,
    at="enable_hisparse",
    message="`--prefill-only-disable-kv-cache` is incompatible with `--enable-hisparse`",
    fix=remove("enable_hisparse"),
    example=f"{_PREFILL_ONLY_OK} --enable-hisparse",
    near_miss=_PREFILL_ONLY_OK,
)


# -- handle_offload_compatibility (memory_hook.py) -----------------------------------------

rule(
    code="SGL338",
    name="ple-offload-with-layer-offload",
    errors="950faf0db343",
    when=lambda cfg: cfg.ple_offload_embedding and (cfg.cpu_offload_gb > 0 or cfg.offload_group_size > 0),
    at="ple_offload_embedding",
    message="`--ple-offload-embedding` cannot be combined with `--cpu-offload-gb` or `--offload-group-size`",
    example="--model-path Qwen/Qwen3-8B --ple-offload-embedding --cpu-offload-gb 4",
    near_miss="--model-path Qwen/Qwen3-8B --ple-offload-embedding",
)

rule(
    code="SGL339",
    name="ple-offload-file-backend-without-ple-offload",
    errors="a4f10400f305",
    when=lambda cfg: cfg.ple_offload_backend == "file" and cfg.ple_offload_embedding is False,
    at="ple_offload_backend",
    message="`--ple-offload-backend file` requires `--ple-offload-embedding`, not `--no-ple-offload-embedding`",
    fix=remove("ple_offload_backend"),
    example="--model-path Qwen/Qwen3-8B --ple-offload-backend file --no-ple-offload-embedding",
    near_miss="--model-path Qwen/Qwen3-8B --ple-offload-backend file --ple-offload-embedding",
)


# -- resolve_hicache_dcp_compatibility (hicache_hook.py), unified memory under PD ----------

_HICACHE_DCP = "--model-path deepseek-ai/DeepSeek-V3 --tp-size 2 --dcp-size 2 --enable-hierarchical-cache --hicache-ratio 2"

rule(
    code="SGL340",
    name="hicache-dcp-with-lmcache",
    errors="37dc12d1e8ff",
    when=lambda cfg: cfg.dcp_size > 1 and cfg.enable_hierarchical_cache and cfg.enable_lmcache,
    at="enable_lmcache",
    message="`--enable-lmcache` with `--dcp-size {dcp_size}` (> 1) is not supported: "
    "LMCache has no DCP-aware index translation",
    fix=remove("enable_lmcache"),
    example=f"{_HICACHE_DCP} --enable-lmcache",
    near_miss=_HICACHE_DCP,
)

rule(
    code="SGL341",
    name="hicache-dcp-with-hisparse",
    errors="4f3673d24433",
    when=lambda cfg: cfg.dcp_size > 1 and cfg.enable_hierarchical_cache and cfg.enable_hisparse,
    at="enable_hisparse",
    message="`--enable-hisparse` with `--enable-hierarchical-cache` and `--dcp-size {dcp_size}` (> 1) is not "
    "supported: the HiSparse host pool has no DCP translation",
    fix=remove("enable_hisparse"),
    example=f"{_HICACHE_DCP} --enable-hisparse",
    near_miss=_HICACHE_DCP,
)

rule(
    code="SGL342",
    name="unified-memory-pd-with-hisparse",
    errors="14f39f085c4f",
    when=lambda cfg: cfg.enable_unified_memory and cfg.disaggregation_mode != "null" and cfg.enable_hisparse,
    at="enable_unified_memory",
    message="`--enable-unified-memory` with PD disaggregation (`--disaggregation-mode {disaggregation_mode}`) "
    "is not compatible with `--enable-hisparse`",
    fix=remove("enable_hisparse"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-memory --disaggregation-mode prefill --enable-hisparse "
    "--attention-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --enable-unified-memory --disaggregation-mode prefill "
    "--attention-backend triton",
)

rule(
    code="SGL343",
    name="unified-memory-pd-with-pipeline-parallel",
    errors="72dd761977f3",
    when=lambda cfg: cfg.enable_unified_memory and cfg.disaggregation_mode != "null" and cfg.pp_size != 1,
    at="enable_unified_memory",
    message="`--enable-unified-memory` with PD disaggregation (`--disaggregation-mode {disaggregation_mode}`) "
    "does not support pipeline parallelism (`--pp-size {pp_size}`)",
    fix=remove("enable_unified_memory"),
    example="--model-path Qwen/Qwen3-8B --enable-unified-memory --disaggregation-mode prefill --pp-size 2 "
    "--attention-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --pp-size 2",
)
