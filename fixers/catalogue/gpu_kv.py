"""Catalogue rules: FP4 KV caches on the GPU a launch runs on (SGLang's `kv_cache_hook.py`:
`handle_nvfp4_prefill_kv_dequant_dtype`, `handle_kv4_compatibility`).

An NVFP4 KV cache is resolved first: the prefill dequantization dtype picks the prefill
backend (`nvfp4` -> trtllm_mha, `fp8_e4m3` -> flashinfer; on `auto`, the written prefill
or base backend picks it, else native NVFP4 on SM100 and FP8 elsewhere), and decode
becomes trtllm_mha. On an SM100 GPU that makes every NVFP4 launch the "native" one,
whose KV layout the speculative, PD and host-cache paths do not carry yet.
"""

from __future__ import annotations

from autofix.rules import remove, rule, set_

from ._common import gpu, on_nvidia, served
from .kv_shard import _nvfp4_kv, _overrides_keep, _speculative_name

_PREFILL_FOR = {"nvfp4": "trtllm_mha", "fp8_e4m3": "flashinfer"}
_DEQUANT_FOR = {backend: dtype for dtype, backend in _PREFILL_FOR.items()}


def _dequant(cfg) -> str | None:  # noqa: ANN001
    """The prefill dequant dtype SGLang resolves for an nvfp4 KV cache; None where it refuses the
    written backend first (SGL372)."""
    requested = cfg.prefill_kv_cache_dequant_dtype
    if requested != "auto":
        return requested
    explicit = cfg.prefill_attention_backend or cfg.attention_backend
    if explicit is not None:
        return _DEQUANT_FOR.get(explicit)
    return "nvfp4" if gpu(cfg).is_sm100 else "fp8_e4m3"


def _nvfp4(cfg) -> bool:  # noqa: ANN001
    """An NVFP4 KV cache, for a served model whose overrides keep the written backends."""
    return served(cfg.model_path) and _nvfp4_kv(cfg.kv_cache_dtype, cfg.attention_backend, cfg.decode_attention_backend) \
        and _overrides_keep(cfg.model, cfg.attention_backend, cfg.prefill_attention_backend,
                            cfg.decode_attention_backend)


def _native_sm100(cfg) -> bool:  # noqa: ANN001
    """handle_kv4_compatibility's native-NVFP4 path: an NVFP4 KV cache on an SM100 GPU that the
    dequant handler accepts (its prefill backend and decode trtllm_mha), without unified memory."""
    dequant = _nvfp4(cfg) and on_nvidia(cfg) and gpu(cfg).is_sm100 and _dequant(cfg)
    return bool(dequant) and cfg.prefill_attention_backend in (None, _PREFILL_FOR[dequant]) \
        and cfg.decode_attention_backend in (None, "trtllm_mha") and not cfg.enable_unified_memory


def _draft_checks_pass(cfg) -> bool:  # noqa: ANN001
    """The native path's speculative checks pass: no algorithm, or EAGLE/EAGLE3/NEXTN with a
    trtllm_mha (or unset) draft backend, or NGRAM with breadth 1."""
    algorithm = _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    if algorithm is None:
        return True
    if algorithm == "NGRAM":
        return cfg.speculative_ngram_max_bfs_breadth == 1
    return algorithm in ("EAGLE", "EAGLE3") and cfg.speculative_draft_attention_backend in (None, "trtllm_mha")


_NVFP4 = "--model-path Qwen/Qwen3-8B --kv-cache-dtype nvfp4"

# -- handle_nvfp4_prefill_kv_dequant_dtype ------------------------------------------------

rule(
    code="SGL920",
    name="native-nvfp4-prefill-on-non-sm100-gpu",
    errors="95a89b2e439e",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _nvfp4(cfg) and _dequant(cfg) == "nvfp4"
    and not gpu(cfg).is_sm100,
    at=("prefill_kv_cache_dequant_dtype", "prefill_attention_backend", "attention_backend"),
    message=lambda cfg: f"native NVFP4 prefill needs an SM100 GPU, not {gpu(cfg).label}; use "
    "`--prefill-kv-cache-dequant-dtype fp8_e4m3` there",
    fix=set_("prefill_kv_cache_dequant_dtype", "fp8_e4m3"),
    gpu="rtx5090",
    example=_NVFP4 + " --prefill-kv-cache-dequant-dtype nvfp4",
    near_miss=_NVFP4 + " --prefill-kv-cache-dequant-dtype fp8_e4m3",
)

rule(
    code="SGL921",
    name="prefill-kv-dequant-dtype-with-other-prefill-backend",
    errors="f3832e74b0a0",
    # Native NVFP4 on another GPU than SM100 is refused first (SGL920).
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _nvfp4(cfg) and cfg.prefill_kv_cache_dequant_dtype != "auto"
    and (cfg.prefill_kv_cache_dequant_dtype == "fp8_e4m3" or gpu(cfg).is_sm100)
    and cfg.prefill_attention_backend is not None
    and cfg.prefill_attention_backend != _PREFILL_FOR[cfg.prefill_kv_cache_dequant_dtype],
    at="prefill_attention_backend",
    message=lambda cfg: f"`--prefill-kv-cache-dequant-dtype {cfg.prefill_kv_cache_dequant_dtype}` prefills with "
    f"`{_PREFILL_FOR[cfg.prefill_kv_cache_dequant_dtype]}`, not `--prefill-attention-backend "
    f"{cfg.prefill_attention_backend}`: remove the backend option and select the KV dtype only",
    fix=remove("prefill_attention_backend"),
    safe=True,
    example=_NVFP4 + " --prefill-kv-cache-dequant-dtype fp8_e4m3 --prefill-attention-backend trtllm_mha",
    near_miss=_NVFP4 + " --prefill-kv-cache-dequant-dtype fp8_e4m3 --prefill-attention-backend flashinfer",
)

# -- handle_kv4_compatibility: native NVFP4 on SM100 --------------------------------------

rule(
    code="SGL922",
    name="native-nvfp4-kv-cache-with-dflash-or-dspark",
    errors="0c8f28998bec",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _native_sm100(cfg)
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    in ("DFLASH", "DSPARK"),
    at=("speculative_algorithm", "kv_cache_dtype"),
    message=lambda cfg: f"NVFP4 KV cache on {gpu(cfg).label} (native trtllm_mha layout) does not yet support "
    f"`--speculative-algorithm {cfg.speculative_algorithm}`; use EAGLE/NEXTN or NGRAM",
    gpu="b200",
    example=_NVFP4 + " --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH "
    "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16",
)

rule(
    code="SGL923",
    name="native-nvfp4-kv-cache-with-unsupported-speculative-algorithm",
    errors="350439ec4834",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _native_sm100(cfg)
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    not in (None, "EAGLE", "EAGLE3", "NGRAM", "DFLASH", "DSPARK"),
    at=("speculative_algorithm", "kv_cache_dtype"),
    message=lambda cfg: f"NVFP4 KV cache on {gpu(cfg).label} (native trtllm_mha layout) supports EAGLE, EAGLE3, "
    f"NEXTN and breadth-1 NGRAM speculative decoding, not `{cfg.speculative_algorithm}`",
    gpu="b200",
    example=_NVFP4 + " --speculative-algorithm STANDALONE --speculative-draft-model-path Qwen/Qwen3-0.6B",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B",
)

rule(
    code="SGL924",
    name="native-nvfp4-kv-cache-with-ngram-tree",
    errors="b9dcfcfd34ce",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _native_sm100(cfg)
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False)) == "NGRAM"
    and cfg.speculative_ngram_max_bfs_breadth != 1,
    at=("speculative_ngram_max_bfs_breadth", "speculative_algorithm"),
    message=lambda cfg: f"NVFP4 KV cache on {gpu(cfg).label} verifies NGRAM drafts as a linear chain only: "
    "set `--speculative-ngram-max-bfs-breadth 1`, "
    f"not {cfg.speculative_ngram_max_bfs_breadth}",
    fix=set_("speculative_ngram_max_bfs_breadth", "1"),
    safe=True,
    gpu="b200",
    example=_NVFP4 + " --speculative-algorithm NGRAM",
    near_miss=_NVFP4 + " --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1",
)

rule(
    code="SGL925",
    name="native-nvfp4-kv-cache-with-other-draft-attention-backend",
    errors="00d3a0db852c",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _native_sm100(cfg)
    and _speculative_name(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    in ("EAGLE", "EAGLE3") and cfg.speculative_draft_attention_backend not in (None, "trtllm_mha"),
    at="speculative_draft_attention_backend",
    message=lambda cfg: f"NVFP4 KV cache on {gpu(cfg).label} needs `--speculative-draft-attention-backend "
    f"trtllm_mha` so the draft reads its native NVFP4 layout, not `{cfg.speculative_draft_attention_backend}`",
    fix=set_("speculative_draft_attention_backend", "trtllm_mha"),
    safe=True,
    gpu="b200",
    example=_NVFP4 + " --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 "
    "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--speculative-draft-attention-backend flashinfer",
    near_miss=_NVFP4 + " --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 "
    "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
)

rule(
    code="SGL926",
    name="native-nvfp4-kv-cache-with-pd-disaggregation",
    errors="a9ab1f653c60",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _native_sm100(cfg) and _draft_checks_pass(cfg) and cfg.disaggregation_mode != "null",
    at=("disaggregation_mode", "kv_cache_dtype"),
    message=lambda cfg: f"NVFP4 KV cache on {gpu(cfg).label} (native trtllm_mha block scales) does not yet support "
    "PD disaggregation: the KV transfer path does not carry its layout",
    gpu="b200",
    example=_NVFP4 + " --disaggregation-mode prefill",
    near_miss=_NVFP4,
)

rule(
    code="SGL927",
    name="native-nvfp4-kv-cache-with-host-kv-cache",
    errors="ddca73ed11f9",
    when=lambda cfg: cfg.kv_cache_dtype == "nvfp4" and _native_sm100(cfg) and _draft_checks_pass(cfg) and cfg.disaggregation_mode == "null"
    and (cfg.enable_hierarchical_cache or cfg.enable_lmcache),
    at=("enable_hierarchical_cache", "enable_lmcache", "kv_cache_dtype"),
    message=lambda cfg: f"NVFP4 KV cache on {gpu(cfg).label} (native trtllm_mha block scales) does not yet support "
    "the hierarchical KV cache or LMCache: their host pools do not keep its layout",
    fix=(remove("enable_hierarchical_cache"), remove("enable_lmcache")),
    gpu="b200",
    example=_NVFP4 + " --enable-hierarchical-cache",
    near_miss=_NVFP4,
)

# -- handle_kv4_compatibility: other platforms --------------------------------------------

rule(
    code="SGL928",
    name="fp4-kv-cache-on-non-cuda-gpu",
    errors="8f42ff3ee8f4",
    # From 0.5.21 the dequant handler gives an nvfp4 cache a trtllm_mha decode backend, which the
    # attention checks refuse first off CUDA; fp4_mx_block16 needs its dequant dtype on auto there.
    when=lambda cfg: cfg.kv_cache_dtype in ("nvfp4", "fp4_mx_block16") and served(cfg.model_path)
    and not on_nvidia(cfg) and (
        not cfg.has("prefill_kv_cache_dequant_dtype")
        or (cfg.kv_cache_dtype == "fp4_mx_block16" and cfg.get("prefill_kv_cache_dequant_dtype") == "auto")),
    at="kv_cache_dtype",
    message=lambda cfg: f"an FP4 KV cache (`--kv-cache-dtype {cfg.kv_cache_dtype}`) runs only on NVIDIA CUDA GPUs, "
    f"not {gpu(cfg).label}",
    fix=remove("kv_cache_dtype"),
    gpu="mi300x",
    example="--model-path Qwen/Qwen3-8B --kv-cache-dtype fp4_mx_block16",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3",
)
