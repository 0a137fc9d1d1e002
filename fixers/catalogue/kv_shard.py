"""Catalogue rules: logical-page KV cache sharding and the KV-cache checks kv_cache.py leaves
(SGLang's `kv_shard_hook.py`: `handle_kv_cache_sharding`, `validate_kv_shard_attention_backend`;
`kv_cache_hook.py`: `handle_nvfp4_prefill_kv_dequant_dtype`, `handle_kv4_compatibility`,
`handle_prefill_only_disable_kv_cache`, `handle_cache_compatibility`, `handle_unified_memory_pool`,
`_validate_unified_memory_dcp`, `handle_page_major_kv_layout`; `hicache_hook.py`: `handle_hicache`,
`resolve_hicache_dcp_compatibility`; `hisparse_hook.py`: `validate_hisparse`).

`handle_kv_cache_sharding` runs after the model overrides, the attention backend,
the page size, HiCache and the parallel layout are resolved (and once more at the
end of the pipeline); it returns at once unless `--enable-kv-cache-sharding` is on,
and never runs for a `none`/`dummy` model path (the pipeline returns before it).
"""

from __future__ import annotations

from autofix.knowledge.models import ModelInfo
from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import on_nvidia, served

# A launch every sharding check accepts: a PD prefill worker serving an MLA model
# with plain TP over trtllm_mla (the page size resolves to 64 for it). The radix
# cache is off: 0.5.22 refuses sharding with it unless
# SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND=python (0.5.23 sets that itself).
_SHARD = "--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --disaggregation-mode prefill " \
    "--attention-backend trtllm_mla --disable-radix-cache --enable-kv-cache-sharding"
_SHARD_RADIX = _SHARD.replace(" --disable-radix-cache", "")


def _deepseek(model: ModelInfo) -> bool:
    """DeepSeek-V2/V3 (MLA): the model overrides leave a written attention backend and
    page size alone for them (the DSA branch is refused by sharding itself)."""
    if not model.known and model.architecture is None:
        raise Unresolvable("model not known")
    return model.architecture in ("DeepseekV3ForCausalLM", "DeepseekV2ForCausalLM")


def _prefill_trtllm_mla(prefill: object, attention: object) -> bool:
    """The prefill backend resolves to trtllm_mla (a split prefill backend wins over the base one)."""
    return prefill == "trtllm_mla" or (prefill is None and attention == "trtllm_mla")


# -- handle_kv_cache_sharding: the feature checks -------------------------------------

rule(
    code="SGL350",
    name="kv-cache-sharding-without-pd-prefill",
    errors="4fe263d695fe",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.disaggregation_mode != "prefill",
    at="enable_kv_cache_sharding",
    message="`--enable-kv-cache-sharding` is only supported on a PD prefill worker (`--disaggregation-mode "
    "prefill`), not `--disaggregation-mode {disaggregation_mode}`: each rank holds only its stripe of a page",
    fix=remove("enable_kv_cache_sharding"),
    example="--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --attention-backend trtllm_mla "
    "--disable-radix-cache --enable-kv-cache-sharding",
    near_miss=_SHARD,
)

rule(
    code="SGL351",
    name="kv-cache-sharding-with-dllm",
    errors="e72b4139d411",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.dllm_algorithm is not None,
    at="dllm_algorithm",
    message="`--enable-kv-cache-sharding` does not support diffusion language models "
    "(`--dllm-algorithm {dllm_algorithm}`)",
    example=f"{_SHARD} --dllm-algorithm LowConfidence",
    near_miss=_SHARD,
)

rule(
    code="SGL352",
    name="kv-cache-sharding-with-radix-cache-backend",
    errors="254ec499ced6",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.radix_cache_backend is not None,
    at="radix_cache_backend",
    message="`--enable-kv-cache-sharding` requires the built-in radix cache: it does not support "
    "`--radix-cache-backend {radix_cache_backend}`",
    fix=remove("radix_cache_backend"),
    example=f"{_SHARD} --radix-cache-backend my_pkg.cache:MyRadixCache",
    near_miss=_SHARD,
)

rule(
    code="SGL353",
    name="kv-cache-sharding-with-unified-cache-linker",
    errors="c024fd9804b0",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.enable_unified_cache_external_linker,
    at="enable_unified_cache_external_linker",
    message="`--enable-kv-cache-sharding` does not support `--enable-unified-cache-external-linker`",
    fix=remove("enable_unified_cache_external_linker"),
    example=f"{_SHARD} --enable-unified-cache-external-linker",
    near_miss=_SHARD,
)

rule(
    code="SGL354",
    name="kv-cache-sharding-with-streaming-session",
    errors="4baccc1cb58d",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.enable_streaming_session,
    at="enable_streaming_session",
    message="`--enable-kv-cache-sharding` does not support `--enable-streaming-session`",
    fix=remove("enable_streaming_session"),
    example=f"{_SHARD} --enable-streaming-session",
    near_miss=_SHARD,
)

rule(
    code="SGL355",
    name="kv-cache-sharding-with-session-radix-cache",
    errors="a5d33f6a6609",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.enable_session_radix_cache,
    at="enable_session_radix_cache",
    message="`--enable-kv-cache-sharding` does not support `--enable-session-radix-cache` yet",
    fix=remove("enable_session_radix_cache"),
    example=f"{_SHARD} --enable-session-radix-cache",
    near_miss=_SHARD,
)

rule(
    code="SGL356",
    name="kv-cache-sharding-with-flexkv",
    errors="907dab127cac",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.enable_flexkv,
    at="enable_flexkv",
    message="`--enable-kv-cache-sharding` does not support `--enable-flexkv`",
    fix=remove("enable_flexkv"),
    example=f"{_SHARD} --enable-flexkv",
    near_miss=_SHARD,
)

rule(
    code="SGL357",
    name="kv-cache-sharding-with-unified-memory",
    errors="113e7856c40c",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.enable_unified_memory,
    at="enable_unified_memory",
    message="`--enable-kv-cache-sharding` does not support `--enable-unified-memory`",
    fix=remove("enable_unified_memory"),
    example=f"{_SHARD} --enable-unified-memory",
    near_miss=_SHARD,
)

rule(
    code="SGL358",
    name="kv-cache-sharding-with-dcp",
    errors="eef886ee5a2a",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.dcp_size > 1,
    at="dcp_size",
    message="`--enable-kv-cache-sharding` and decode context parallelism (`--dcp-size {dcp_size}`) "
    "cannot be used together",
    fix=remove("dcp_size"),
    example=f"{_SHARD} --dcp-size 2",
    near_miss=_SHARD,
)

rule(
    code="SGL359",
    name="kv-cache-sharding-with-hicache-storage-backend",
    errors="a3e4a594bf74",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.enable_hierarchical_cache and cfg.hicache_storage_backend is not None,
    at="hicache_storage_backend",
    message="`--enable-kv-cache-sharding` supports HiCache host offload but not "
    "`--hicache-storage-backend {hicache_storage_backend}` yet",
    fix=remove("hicache_storage_backend"),
    # 0.5.23 only, where the radix cache (which HiCache needs) may stay on under sharding.
    example=f"{_SHARD_RADIX} --enable-hierarchical-cache --hicache-ratio 2 --hicache-storage-backend file",
    near_miss=f"{_SHARD_RADIX} --enable-hierarchical-cache --hicache-ratio 2",
)

rule(
    code="SGL360",
    name="kv-cache-sharding-with-lmcache",
    errors="6bff57c0771a",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.enable_lmcache,
    at="enable_lmcache",
    message="`--enable-kv-cache-sharding` does not support `--enable-lmcache`",
    fix=remove("enable_lmcache"),
    example=f"{_SHARD} --enable-lmcache",
    near_miss=_SHARD,
)

rule(
    code="SGL361",
    name="kv-cache-sharding-with-hisparse",
    errors="5b96de8bc153",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.enable_hisparse,
    at="enable_hisparse",
    message="`--enable-kv-cache-sharding` does not support `--enable-hisparse`",
    fix=remove("enable_hisparse"),
    example=f"{_SHARD} --enable-hisparse",
    near_miss=_SHARD,
)

rule(
    code="SGL362",
    name="kv-cache-sharding-with-dynamic-chunking-and-pp",
    errors="73bfbae5b147",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.enable_dynamic_chunking and cfg.pp_size > 1,
    at="enable_dynamic_chunking",
    message="`--enable-kv-cache-sharding` does not support `--enable-dynamic-chunking` with pipeline "
    "parallelism (`--pp-size {pp_size}`)",
    fix=remove("enable_dynamic_chunking"),
    safe=True,
    example=f"{_SHARD} --pp-size 2 --enable-dynamic-chunking",
    near_miss=f"{_SHARD} --pp-size 2",
)

rule(
    code="SGL363",
    name="kv-cache-sharding-with-two-batch-overlap",
    errors="0244ba073055",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and cfg.enable_two_batch_overlap,
    at="enable_two_batch_overlap",
    message="`--enable-kv-cache-sharding` does not support `--enable-two-batch-overlap`",
    fix=remove("enable_two_batch_overlap"),
    example=f"{_SHARD} --enable-two-batch-overlap",
    near_miss=_SHARD,
)

rule(
    code="SGL364",
    name="kv-cache-sharding-with-speculative-decoding",
    errors="3e3c36ded644",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.speculative_algorithm is not None,
    at="speculative_algorithm",
    message="`--enable-kv-cache-sharding` does not support speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`)",
    example=f"{_SHARD} --speculative-algorithm EAGLE",
    near_miss=_SHARD,
)

rule(
    code="SGL365",
    name="kv-cache-sharding-with-hierarchical-cache",
    errors="a8eca24ba5a6",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.enable_hierarchical_cache,
    at="enable_hierarchical_cache",
    message="`--enable-kv-cache-sharding` does not support `--enable-hierarchical-cache` yet",
    fix=remove("enable_hierarchical_cache"),
    example=f"{_SHARD} --enable-hierarchical-cache --hicache-ratio 2",
    near_miss=_SHARD,
)


# -- handle_kv_cache_sharding: transfer backend and chunking --------------------------

rule(
    code="SGL366",
    name="kv-cache-sharding-unsupported-transfer-backend",
    errors="c0b079406050",
    # mooncake_tcp is rewritten to mooncake by the PD hook before this check.
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.disaggregation_transfer_backend not in ("mooncake", "nixl", "mooncake_tcp"),
    at="disaggregation_transfer_backend",
    message="`--enable-kv-cache-sharding` only supports the mooncake and nixl transfer backends, not "
    "`--disaggregation-transfer-backend {disaggregation_transfer_backend}`",
    fix=set_("disaggregation_transfer_backend", "mooncake"),
    example=f"{_SHARD} --disaggregation-transfer-backend mori",
    near_miss=f"{_SHARD} --disaggregation-transfer-backend nixl",
)

rule(
    code="SGL367",
    name="kv-cache-sharding-without-chunked-prefill",
    errors="f2f65a65997c",
    # A written size <= 0 stays so (DP attention floor-divides it); an unset one is filled in positive.
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and cfg.chunked_prefill_size is not None and cfg.chunked_prefill_size <= 0,
    at="chunked_prefill_size",
    message="`--enable-kv-cache-sharding` requires chunked prefill: `--chunked-prefill-size` must be above 0, "
    "got {chunked_prefill_size}",
    fix=remove("chunked_prefill_size"),
    example=f"{_SHARD} --chunked-prefill-size -1",
    near_miss=f"{_SHARD} --chunked-prefill-size 8192",
)


# -- validate_kv_shard_attention_backend: trtllm_mla is for plain-TP MLA ----------------

rule(
    code="SGL368",
    name="kv-cache-sharding-trtllm-mla-with-attention-cp",
    errors="6b3071998772",
    # Without prefill CP the DeepSeek overrides keep the written --attn-cp-size.
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and _prefill_trtllm_mla(cfg.prefill_attention_backend, cfg.attention_backend) and _deepseek(cfg.model)
    and not cfg.enable_prefill_cp and cfg.attn_cp_size > 1,
    at="attn_cp_size",
    message="`--enable-kv-cache-sharding` with the trtllm_mla prefill backend only supports plain-TP MLA: "
    "`--attn-cp-size` must be 1, got {attn_cp_size}",
    fix=remove("attn_cp_size"),
    example=f"{_SHARD} --attn-cp-size 2",
    near_miss=_SHARD,
)

rule(
    code="SGL369",
    name="kv-cache-sharding-trtllm-mla-without-chunked-prefix-cache",
    errors="bbb64226bc82",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path)
    and _prefill_trtllm_mla(cfg.prefill_attention_backend, cfg.attention_backend) and _deepseek(cfg.model)
    and cfg.disable_chunked_prefix_cache,
    at="disable_chunked_prefix_cache",
    message="`--enable-kv-cache-sharding` with the trtllm_mla prefill backend requires chunked prefix caching: "
    "it cannot be used with `--disable-chunked-prefix-cache`",
    fix=remove("disable_chunked_prefix_cache"),
    example=f"{_SHARD} --disable-chunked-prefix-cache",
    near_miss=_SHARD,
)


# -- handle_kv_cache_sharding: the page size ---------------------------------------------

rule(
    code="SGL370",
    name="kv-cache-sharding-without-real-page-size",
    errors="c55a52e77ccf",
    # fa3 is the backend that leaves page size 1 alone (trtllm_mla and the others snap it
    # up); an fp8_e5m2 KV cache turns fa3 into triton, which sharding refuses first.
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and _deepseek(cfg.model)
    and cfg.attention_backend == "fa3" and cfg.prefill_attention_backend in (None, "fa3")
    and cfg.decode_attention_backend in (None, "fa3") and cfg.kv_cache_dtype != "fp8_e5m2"
    and (cfg.page_size is None or cfg.page_size <= 1),
    at=("page_size", "enable_kv_cache_sharding"),
    message=lambda cfg: "`--enable-kv-cache-sharding` requires a real page size above 1 (`--page-size 64` "
    f"recommended); the fa3 backend keeps it at {1 if cfg.page_size is None else cfg.page_size}",
    fix=set_("page_size", "64"),
    safe=True,
    gpu="h100",
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 2 --disaggregation-mode prefill "
    "--attention-backend fa3 --disable-radix-cache --enable-kv-cache-sharding",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 2 --disaggregation-mode prefill "
    "--attention-backend fa3 --disable-radix-cache --enable-kv-cache-sharding --page-size 64",
)


# -- handle_nvfp4_prefill_kv_dequant_dtype, handle_kv4_compatibility (kv_cache_hook.py) ----


def _nvfp4_kv(kv_cache_dtype: object, attention: object, decode: object) -> bool:
    """The KV cache dtype resolves to nvfp4: 0.5.23 turns a deprecated tokenspeed_mla backend
    into cutedsl_mla with an fp8_e4m3 KV cache (the model overrides only ever pick fp8 or bf16)."""
    return kv_cache_dtype == "nvfp4" and "tokenspeed_mla" not in (attention, decode)


def _overrides_keep(model: ModelInfo, *backends: object) -> bool:
    """The model overrides keep what the launch writes: they fill only unset attention backends,
    except DeepSeek-V4's and Kimi-K3's (which also resize attention DP), and MiniCPM's
    SGLANG_MINICPM_FORCE_DENSE, which turns the minicpm_* backends into fa3/fa4/flashinfer."""
    if not model.known and model.architecture is None:
        raise Unresolvable("model not known")
    if any(isinstance(b, str) and b.startswith("minicpm_") for b in backends):
        raise Unresolvable("set by the environment")
    return not (model.architecture or "").startswith(("DeepseekV4", "KimiK3"))


rule(
    code="SGL371",
    name="prefill-kv-dequant-dtype-without-nvfp4-kv-cache",
    errors="b26ba5d1bc66",
    when=lambda cfg: cfg.prefill_kv_cache_dequant_dtype != "auto" and cfg.kv_cache_dtype != "nvfp4"
    and served(cfg.model_path),
    at="prefill_kv_cache_dequant_dtype",
    message="`--prefill-kv-cache-dequant-dtype {prefill_kv_cache_dequant_dtype}` applies only with "
    "`--kv-cache-dtype nvfp4`, not `--kv-cache-dtype {kv_cache_dtype}`",
    fix=remove("prefill_kv_cache_dequant_dtype"),
    example="--model-path Qwen/Qwen3-8B --prefill-kv-cache-dequant-dtype fp8_e4m3",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4 --prefill-kv-cache-dequant-dtype fp8_e4m3",
)

rule(
    code="SGL372",
    name="nvfp4-kv-cache-unsupported-prefill-backend",
    errors="cc740f226e93",
    # With the dequant dtype on auto, the written prefill backend (or the base one) picks it.
    when=lambda cfg: _nvfp4_kv(cfg.kv_cache_dtype, cfg.attention_backend, cfg.decode_attention_backend)
    and cfg.prefill_kv_cache_dequant_dtype == "auto"
    and (cfg.prefill_attention_backend or cfg.attention_backend) not in (None, "flashinfer", "trtllm_mha")
    and _overrides_keep(cfg.model, cfg.prefill_attention_backend, cfg.attention_backend)
    and served(cfg.model_path),
    at=("prefill_attention_backend", "attention_backend"),
    message=lambda cfg: "`--kv-cache-dtype nvfp4` prefills from an FP8 E4M3 workspace (flashinfer) or native "
    f"NVFP4 (trtllm_mha); backend `{cfg.prefill_attention_backend or cfg.attention_backend}` provides neither",
    example="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4 --attention-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4 --attention-backend trtllm_mha",
)

rule(
    code="SGL373",
    name="nvfp4-kv-cache-unsupported-decode-backend",
    errors="45bd0739930b",
    when=lambda cfg: _nvfp4_kv(cfg.kv_cache_dtype, cfg.attention_backend, cfg.decode_attention_backend)
    and cfg.decode_attention_backend not in (None, "trtllm_mha")
    and _overrides_keep(cfg.model, cfg.decode_attention_backend) and served(cfg.model_path),
    at="decode_attention_backend",
    message="`--kv-cache-dtype nvfp4` decodes with trtllm_mha only, not "
    "`--decode-attention-backend {decode_attention_backend}`: remove the option and NVFP4 selects it",
    fix=remove("decode_attention_backend"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4 --decode-attention-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4 --decode-attention-backend trtllm_mha",
)



rule(
    code="SGL374",
    name="fp4-kv-cache-with-unified-memory",
    errors="27c74ba9ad7b",
    when=lambda cfg: cfg.kv_cache_dtype in ("nvfp4", "fp4_mx_block16") and cfg.enable_unified_memory
    and "tokenspeed_mla" not in (cfg.attention_backend, cfg.decode_attention_backend)
    and on_nvidia(cfg) and served(cfg.model_path),
    at="enable_unified_memory",
    message="`--kv-cache-dtype {kv_cache_dtype}` (FP4) does not yet support `--enable-unified-memory`: "
    "the unified pool allocates no FP4 block scales",
    fix=remove("enable_unified_memory"),
    gpu="b200",
    example="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4 --enable-unified-memory",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4",
)


# -- handle_prefill_only_disable_kv_cache, handle_cache_compatibility (kv_cache_hook.py) ----

_PREFILL_ONLY = "--model-path Qwen/Qwen3-8B --prefill-only-disable-kv-cache --is-embedding " \
    "--chunked-prefill-size -1 --disable-radix-cache"

rule(
    code="SGL375",
    name="prefill-only-kv-cache-off-without-fa-backend",
    errors="6eb1881f1271",
    # A written prefill (or base) backend is what resolves: nothing turns one into fa3/fa4.
    when=lambda cfg: cfg.prefill_only_disable_kv_cache
    and (cfg.prefill_attention_backend or cfg.attention_backend) not in (None, "fa3", "fa4")
    and _overrides_keep(cfg.model, cfg.prefill_attention_backend, cfg.attention_backend)
    and served(cfg.model_path),
    at=("prefill_attention_backend", "attention_backend"),
    message=lambda cfg: "`--prefill-only-disable-kv-cache` requires the FA prefill backend (fa3 or fa4), not "
    f"`{cfg.prefill_attention_backend or cfg.attention_backend}`",
    example=f"{_PREFILL_ONLY} --attention-backend triton",
    near_miss=f"{_PREFILL_ONLY} --attention-backend fa4",
)


def _attention_dp(attn_dp_size: object, enable_dp_attention: object, dp_size: object) -> bool:
    """Attention DP is on: `--attn-dp-size` above 1 (0.5.22+), or the older
    `--enable-dp-attention` with `--dp-size` above 1 (which 0.5.22+ turns into it)."""
    return attn_dp_size > 1 or bool(enable_dp_attention and dp_size > 1)  # type: ignore[operator]


rule(
    code="SGL376",
    name="lmcache-with-dp-attention",
    errors="d03c5553379a",
    # Prefill CP, DWDP and DeepSeek-V4 resize attention DP; the rule keeps to launches they leave alone.
    when=lambda cfg: cfg.enable_lmcache
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.enable_dp_attention, cfg.dp_size)
    and not cfg.get("enable_prefill_cp", False) and cfg.get("dwdp_size", 1) <= 1
    and _overrides_keep(cfg.model) and served(cfg.model_path),
    at="enable_lmcache",
    message="`--enable-lmcache` does not yet support DP attention",
    fix=remove("enable_lmcache"),
    example="--model-path Qwen/Qwen3-8B --enable-lmcache --tp-size 2 --dp-size 2 --enable-dp-attention",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache --tp-size 2",
)


# -- handle_unified_memory_pool (kv_cache_hook.py) -------------------------------------------

_UNIFIED = "--model-path Qwen/Qwen3-8B --enable-unified-memory --attention-backend triton"


def _speculative_name(algorithm: object, aux_capture: object) -> str | None:
    """--speculative-algorithm as the unified-memory check reads it: upper-cased, NEXTN read as EAGLE
    (a Gemma4 assistant draft makes either FROZEN_KV_MTP), None where 0.5.23's
    --enable-return-aux-hidden-states resets it."""
    if algorithm is None or aux_capture:
        return None
    name = str(algorithm).upper()
    return "EAGLE" if name == "NEXTN" else name


rule(
    code="SGL377",
    name="unified-memory-pd-unsupported-transfer-backend",
    errors="ce7081bfd9a5",
    # mooncake_tcp is rewritten to mooncake by the PD hook first.
    when=lambda cfg: cfg.enable_unified_memory and cfg.disaggregation_mode != "null"
    and cfg.disaggregation_transfer_backend not in ("mooncake", "mooncake_tcp") and served(cfg.model_path),
    at="disaggregation_transfer_backend",
    message="`--enable-unified-memory` with PD disaggregation supports only the mooncake transfer backend, "
    "not `--disaggregation-transfer-backend {disaggregation_transfer_backend}`",
    fix=set_("disaggregation_transfer_backend", "mooncake"),
    example=f"{_UNIFIED} --disaggregation-mode prefill --disaggregation-transfer-backend nixl",
    near_miss=f"{_UNIFIED} --disaggregation-mode prefill --disaggregation-transfer-backend mooncake",
)

rule(
    code="SGL378",
    name="unified-memory-pd-mooncake-with-speculative-decoding",
    errors="f8e8a12e0efa",
    when=lambda cfg: cfg.enable_unified_memory and cfg.disaggregation_mode != "null"
    and cfg.disaggregation_transfer_backend in ("mooncake", "mooncake_tcp")
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    is not None and served(cfg.model_path),
    at="speculative_algorithm",
    message="`--enable-unified-memory` with PD disaggregation over mooncake does not support speculative "
    "decoding (`--speculative-algorithm {speculative_algorithm}`)",
    fix=remove("speculative_algorithm"),
    example=f"{_UNIFIED} --disaggregation-mode prefill --speculative-algorithm NGRAM",
    near_miss=f"{_UNIFIED} --disaggregation-mode prefill",
)

rule(
    code="SGL379",
    name="unified-memory-decode-offload-without-file-storage",
    errors="ebee04e9ea61",
    # An unset storage backend is refused earlier, by the decode-offload check itself.
    when=lambda cfg: cfg.enable_unified_memory and cfg.disaggregation_mode != "null"
    and cfg.disaggregation_decode_enable_offload_kvcache
    and cfg.hicache_storage_backend not in (None, "file") and served(cfg.model_path),
    at="hicache_storage_backend",
    message="`--enable-unified-memory` with decode KV offload supports only `--hicache-storage-backend file`, "
    "not `{hicache_storage_backend}`",
    fix=set_("hicache_storage_backend", "file"),
    example=f"{_UNIFIED} --disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache "
    "--hicache-storage-backend mooncake",
    near_miss=f"{_UNIFIED} --disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache "
    "--hicache-storage-backend file",
)

rule(
    code="SGL380",
    name="unified-memory-unsupported-speculative-algorithm",
    errors="5a40154c8a76",
    # "NONE" stays quiet: other checks read it as no speculation.
    when=lambda cfg: cfg.enable_unified_memory
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    not in (None, "NONE", "DSPARK", "EAGLE", "EAGLE3", "DFLASH") and served(cfg.model_path),
    at="speculative_algorithm",
    message="`--enable-unified-memory` supports only the DSPARK, DFLASH, EAGLE and EAGLE3 speculative algorithms, "
    "not `--speculative-algorithm {speculative_algorithm}`",
    fix=remove("speculative_algorithm"),
    example=f"{_UNIFIED} --speculative-algorithm NGRAM",
    near_miss=_UNIFIED,
)

rule(
    code="SGL381",
    name="unified-memory-with-draft-tree",
    errors="a7bffb7aebf5",
    # DFLASH and DSPARK set the top-k to 1 themselves; EAGLE keeps a written one.
    when=lambda cfg: cfg.enable_unified_memory and cfg.speculative_eagle_topk is not None
    and cfg.speculative_eagle_topk != 1
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    in (None, "EAGLE", "EAGLE3") and served(cfg.model_path),
    at="speculative_eagle_topk",
    message="`--enable-unified-memory` supports a linear draft chain only: `--speculative-eagle-topk` must be "
    "1, got {speculative_eagle_topk}",
    fix=set_("speculative_eagle_topk", "1"),
    example=f"{_UNIFIED} --speculative-eagle-topk 4",
    near_miss=f"{_UNIFIED} --speculative-eagle-topk 1",
)

rule(
    code="SGL382",
    name="unified-memory-dcp-with-pd-disaggregation",
    errors="d88783d97ebf",
    when=lambda cfg: cfg.enable_unified_memory and cfg.dcp_size > 1 and cfg.disaggregation_mode != "null"
    and served(cfg.model_path),
    at="enable_unified_memory",
    message="`--enable-unified-memory` with decode context parallelism (`--dcp-size {dcp_size}`) does not "
    "support PD disaggregation (`--disaggregation-mode {disaggregation_mode}`)",
    fix=remove("dcp_size"),
    example="--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --dcp-size 2 --enable-unified-memory "
    "--attention-backend trtllm_mla --disaggregation-mode prefill",
    near_miss="--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --dcp-size 2 --enable-unified-memory "
    "--attention-backend trtllm_mla",
)


# -- handle_page_major_kv_layout (kv_cache_hook.py): --enable-unified-memory implies the layout -----

# Linear-attention backends no release lets read the strided conv/SSM state (cutedsl and helion
# are allowed for MLA models, flashinfer for prefill only from 0.5.21).
_NEVER_LINEAR = ("nvidia_kda", "ptx_kda", "intel_xpu")

rule(
    code="SGL383",
    name="page-major-kv-layout-unsupported-linear-decode-backend",
    errors="32de633efdf0",
    when=lambda cfg: (cfg.enable_page_major_kv_layout or cfg.enable_unified_memory)
    and (cfg.linear_attn_decode_backend or cfg.linear_attn_backend) in _NEVER_LINEAR and served(cfg.model_path),
    at=("linear_attn_decode_backend", "linear_attn_backend"),
    message=lambda cfg: "the page-major KV layout (`--enable-unified-memory` implies it) reads the strided "
    "conv/SSM state with triton or flashinfer linear-attention decode, not "
    f"`{cfg.linear_attn_decode_backend or cfg.linear_attn_backend}`",
    example=f"{_UNIFIED} --linear-attn-decode-backend ptx_kda",
    near_miss=f"{_UNIFIED} --linear-attn-decode-backend triton",
)

rule(
    code="SGL384",
    name="page-major-kv-layout-unsupported-linear-prefill-backend",
    errors="d01a0868021a",
    when=lambda cfg: (cfg.enable_page_major_kv_layout or cfg.enable_unified_memory)
    and (cfg.linear_attn_prefill_backend or cfg.linear_attn_backend) in _NEVER_LINEAR
    and served(cfg.model_path),
    at=("linear_attn_prefill_backend", "linear_attn_backend"),
    message=lambda cfg: "the page-major KV layout (`--enable-unified-memory` implies it) reads the strided "
    "conv/SSM state with triton or flashkda linear-attention prefill, not "
    f"`{cfg.linear_attn_prefill_backend or cfg.linear_attn_backend}`",
    example=f"{_UNIFIED} --linear-attn-prefill-backend ptx_kda",
    near_miss=f"{_UNIFIED} --linear-attn-prefill-backend triton",
)

rule(
    code="SGL385",
    name="page-major-kv-layout-with-flashinfer-mamba-backend",
    errors="fdde234b82bd",
    when=lambda cfg: (cfg.enable_page_major_kv_layout or cfg.enable_unified_memory)
    and cfg.mamba_backend not in (None, "triton") and served(cfg.model_path),
    at="mamba_backend",
    message="the page-major KV layout (`--enable-unified-memory` implies it) requires the Triton Mamba kernels, "
    "not `--mamba-backend {mamba_backend}`",
    fix=set_("mamba_backend", "triton"),
    safe=True,
    example=f"{_UNIFIED} --mamba-backend flashinfer",
    near_miss=f"{_UNIFIED} --mamba-backend triton",
)


# -- handle_hicache, resolve_hicache_dcp_compatibility (hicache_hook.py) ----------------------

_HICACHE_DCP = "--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --dcp-size 2 --enable-hierarchical-cache " \
    "--hicache-ratio 2"

rule(
    code="SGL386",
    name="hicache-storage-backend-with-dcp",
    errors="c78c5145b58a",
    when=lambda cfg: cfg.enable_hierarchical_cache and cfg.dcp_size > 1 and cfg.hicache_storage_backend is not None
    and served(cfg.model_path),
    at="hicache_storage_backend",
    message="`--hicache-storage-backend {hicache_storage_backend}` (L3) with `--dcp-size {dcp_size}` (> 1) is not "
    "supported yet: run HiCache with DCP on L1/L2 only",
    fix=remove("hicache_storage_backend"),
    safe=True,
    example=f"{_HICACHE_DCP} --hicache-storage-backend file",
    near_miss=_HICACHE_DCP,
)

rule(
    code="SGL387",
    name="hicache-dcp-with-speculative-decoding",
    errors="67d47979d41d",
    # HiCache reads the algorithm as written (before the speculative hook upper-cases it).
    when=lambda cfg: cfg.enable_hierarchical_cache and cfg.dcp_size > 1 and cfg.speculative_algorithm is not None
    and cfg.speculative_algorithm.upper() != "DSPARK" and not cfg.get("enable_return_aux_hidden_states", False)
    and served(cfg.model_path),
    at="speculative_algorithm",
    message="HiCache with `--dcp-size {dcp_size}` (> 1) supports only DSPARK speculative decoding, not "
    "`--speculative-algorithm {speculative_algorithm}`",
    example=f"{_HICACHE_DCP} --speculative-algorithm EAGLE",
    near_miss=_HICACHE_DCP,
)

rule(
    code="SGL388",
    name="hicache-l3-dcp-with-buffer-only-host-memory",
    errors="9e7a250bf865",
    when=lambda cfg: cfg.enable_hierarchical_cache and cfg.dcp_size > 1 and cfg.hicache_storage_backend is not None
    and cfg.hicache_host_memory_mode == "buffer_only" and served(cfg.model_path),
    at="hicache_host_memory_mode",
    message="HiCache L3 (`--hicache-storage-backend {hicache_storage_backend}`) with `--dcp-size {dcp_size}` "
    "(> 1) does not support `--hicache-host-memory-mode buffer_only`",
    fix=remove("hicache_host_memory_mode"),
    example=f"{_HICACHE_DCP} --hicache-storage-backend file --hicache-host-memory-mode buffer_only "
    "--hicache-write-policy write_through",
    near_miss=f"{_HICACHE_DCP} --hicache-storage-backend file --hicache-write-policy write_through",
)

rule(
    code="SGL389",
    name="decode-host-receive-with-page-layout-storage",
    errors="b91ad187d8df",
    # A threshold strictly between 0 and 1 turns decode host receive on in every release (0.5.21 reads
    # it as `> 0`, later ones as `< 1`), which pins the host pool to layer_first; mooncake (unless
    # DCP keeps its layout, 0.5.23) and npu_memcache then rewrite it for the kernel and direct I/O.
    when=lambda cfg: 0 < cfg.disaggregation_decode_host_receive_threshold < 1
    and not cfg.enable_unified_cache_external_linker
    and (cfg.enable_hierarchical_cache or cfg.disaggregation_decode_enable_offload_kvcache
         or cfg.disaggregation_mode == "decode")
    and cfg.hicache_storage_backend in ("mooncake", "npu_memcache")
    and (cfg.hicache_storage_backend != "mooncake" or cfg.dcp_size <= 1)
    and cfg.hicache_io_backend in ("kernel", "direct") and served(cfg.model_path),
    at=("hicache_storage_backend", "disaggregation_decode_host_receive_threshold"),
    message="`--hicache-storage-backend {hicache_storage_backend}` rewrites the HiCache layout away from "
    "layer_first, which decode host receive (`--disaggregation-decode-host-receive-threshold "
    "{disaggregation_decode_host_receive_threshold}`) shares with KV transfer",
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-host-receive-threshold 0.5 --hicache-storage-backend mooncake",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode "
    "--disaggregation-decode-host-receive-threshold 0.5 --hicache-storage-backend file",
)


# -- validate_hisparse (hisparse_hook.py), run by check_server_args ----------------------------
# Each check follows the assert that the model is a DSA, DeepSeek-V4 or MiniMax-M3 one, so any
# other model is refused first; the rules need only what resolution does to the flags they read.

_HISPARSE = "--model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --enable-hisparse --disable-radix-cache"

rule(
    code="SGL390",
    name="hisparse-with-radix-cache",
    errors="12ac48649d2c",
    # A PD decode server, multi-item scoring, deterministic inference and embedding mode may
    # turn the radix cache off themselves.
    when=lambda cfg: cfg.enable_hisparse and not cfg.disable_radix_cache and cfg.disaggregation_mode != "decode"
    and not cfg.get("enable_mis", False) and not cfg.get("enable_deterministic_inference", False)
    and not cfg.is_embedding and served(cfg.model_path),
    at="enable_hisparse",
    message="`--enable-hisparse` (hierarchical sparse attention) currently requires `--disable-radix-cache`",
    fix=set_("disable_radix_cache"),
    safe=True,
    example="--model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --enable-hisparse",
    near_miss=_HISPARSE,
)

rule(
    code="SGL391",
    name="hisparse-with-mixed-chunk",
    errors="8d51c6d4035b",
    # Speculative decoding and dLLM turn mixed chunking off themselves.
    when=lambda cfg: cfg.enable_hisparse and cfg.enable_mixed_chunk and cfg.disable_radix_cache
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False)) is None
    and cfg.dllm_algorithm is None and served(cfg.model_path),
    at="enable_mixed_chunk",
    message="`--enable-hisparse` does not support `--enable-mixed-chunk` yet",
    fix=remove("enable_mixed_chunk"),
    example=f"{_HISPARSE} --enable-mixed-chunk",
    near_miss=_HISPARSE,
)

rule(
    code="SGL392",
    name="hisparse-speculative-draft-tree",
    errors="888c25ebd029",
    # EAGLE keeps a written top-k; with a draft model path an EAGLE/NEXTN may become FROZEN_KV_MTP.
    when=lambda cfg: cfg.enable_hisparse and cfg.disable_radix_cache
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    in ("EAGLE", "EAGLE3") and cfg.speculative_draft_model_path is None
    and cfg.speculative_eagle_topk is not None and cfg.speculative_eagle_topk > 1 and served(cfg.model_path),
    at="speculative_eagle_topk",
    message="`--enable-hisparse` supports linear speculation only: `--speculative-eagle-topk` must be 1, "
    "got {speculative_eagle_topk}",
    fix=set_("speculative_eagle_topk", "1"),
    safe=True,
    example=f"{_HISPARSE} --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 4 "
    "--speculative-num-draft-tokens 8",
    near_miss=f"{_HISPARSE} --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
    "--speculative-num-draft-tokens 4",
)
