"""Catalogue rules of SGLang's Mamba radix-cache validators (`mamba_hook.py`'s
`validate_mamba_no_buffer` and `validate_mamba_extra_buffer`), which `handle_mamba_radix_cache`
runs during the model-specific adjustments for a hybrid linear-attention (Mamba-like) model.

An explicit `--mamba-radix-cache-strategy` reaches them only on such a model: the rules name the
architectures the judge has proven hybrid in every release of their range, and stay quiet on any
other or unknown model. They read the flags as written: the validators run before the attention
backend and page size are resolved, when the launch writes its attention backend.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served

# Architectures whose SGLang config is a Mamba-style hybrid (configs/hybrid_arch.py's mambaish_config),
# with a real config.json in the tests: Qwen3.5's gated-delta-net layers.
_MAMBA_HYBRID = frozenset({"Qwen3_5ForConditionalGeneration"})


def _mamba_hybrid(cfg) -> bool:  # noqa: ANN001 (it reads the model, not a flag)
    """Whether the served model is one of _MAMBA_HYBRID; unknown for a model autofix cannot name."""
    architecture = cfg.model.architecture
    if architecture is None:
        raise Unresolvable("the model's architecture is not known")
    return architecture in _MAMBA_HYBRID


def _plain_schedule(pp_size: int, dllm_algorithm: object, speculative_algorithm: object,
                    disable_radix_cache: bool, attention_backend: object) -> bool:
    """The validators run, on the page size as written: a radix cache (without one SGLang skips them),
    no pipeline parallelism, diffusion or speculative decoding (nothing else turns off the overlap
    schedule or sets the draft-token count they read), and a written attention backend (without one,
    Qwen3.5's override on Blackwell picks the backend and rewrites the page size first)."""
    return pp_size == 1 and dllm_algorithm is None and speculative_algorithm is None \
        and not disable_radix_cache and attention_backend is not None


rule(
    code="SGL1116",
    name="mamba-no-buffer-with-overlap-schedule",
    errors="f16f661eb17e",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "no_buffer" and cfg.page_size in (None, 1)
    and not cfg.disable_overlap_schedule
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm, cfg.disable_radix_cache,
                       cfg.attention_backend)
    and _mamba_hybrid(cfg) and served(cfg.model_path),
    at="mamba_radix_cache_strategy",
    message="`--mamba-radix-cache-strategy no_buffer` does not support the overlap schedule: "
    "set `--disable-overlap-schedule`",
    fix=set_("disable_overlap_schedule"),
    safe=True,
    example="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy no_buffer",
    near_miss="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy no_buffer "
    "--disable-overlap-schedule",
)

rule(
    code="SGL1117",
    name="mamba-no-buffer-with-trtllm-mha",
    errors="2aba2bf75ee3",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "no_buffer" and cfg.page_size in (None, 1)
    and cfg.disable_overlap_schedule and cfg.attention_backend == "trtllm_mha"
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm, cfg.disable_radix_cache,
                       cfg.attention_backend)
    and _mamba_hybrid(cfg) and served(cfg.model_path),
    at="attention_backend",
    message="`--mamba-radix-cache-strategy no_buffer` does not support the `trtllm_mha` attention backend",
    fix=remove("attention_backend"),
    example="--model-path Qwen/Qwen3.5-9B --mamba-radix-cache-strategy no_buffer --disable-overlap-schedule "
    "--attention-backend trtllm_mha",
    near_miss="--model-path Qwen/Qwen3.5-9B --mamba-radix-cache-strategy no_buffer --disable-overlap-schedule "
    "--attention-backend flashinfer",
)


def _interval_fix(cfg) -> str:  # noqa: ANN001
    """The track interval rounded up to a whole number of pages."""
    page = cfg.page_size
    return str(-(-cfg.mamba_track_interval // page) * page)


rule(
    code="SGL1118",
    name="mamba-track-interval-not-multiple-of-page-size",
    errors="ee8329d81aa1",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "extra_buffer" and cfg.page_size is not None
    and cfg.page_size > 0 and cfg.mamba_track_interval % cfg.page_size != 0
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm, cfg.disable_radix_cache,
                       cfg.attention_backend)
    and _mamba_hybrid(cfg) and served(cfg.model_path),
    at=("mamba_track_interval", "page_size"),
    message="with `--mamba-radix-cache-strategy extra_buffer`, `--mamba-track-interval {mamba_track_interval}` "
    "must be a multiple of `--page-size {page_size}`",
    fix=set_("mamba_track_interval", _interval_fix),
    example="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy extra_buffer "
    "--page-size 64 --mamba-track-interval 100",
    near_miss="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy extra_buffer "
    "--page-size 64 --mamba-track-interval 128",
)


# FLA's CHUNK_SIZE (kernels/ops/attention/fla/chunk_delta_h.py, 64 in every release): the chunk
# `mamba_cache_chunk_size` takes for a config with no mamba_chunk_size, as Qwen3.5's has none.
_FLA_CHUNK = 64


def _chunk_fix(cfg) -> str:  # noqa: ANN001
    """The largest page size at most the one written that divides the chunk, or a multiple of it."""
    page = cfg.page_size
    return str(page // _FLA_CHUNK * _FLA_CHUNK if page > _FLA_CHUNK else max(p for p in (1, 2, 4, 8, 16, 32) if p <= page))


rule(
    code="SGL1128",
    name="mamba-page-size-not-dividing-chunk-size",
    errors="945de6e939f5",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "extra_buffer" and cfg.page_size is not None
    and cfg.page_size > 0 and cfg.mamba_track_interval % cfg.page_size == 0
    and max(cfg.page_size, _FLA_CHUNK) % min(cfg.page_size, _FLA_CHUNK) != 0
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm, cfg.disable_radix_cache,
                       cfg.attention_backend)
    and _mamba_hybrid(cfg) and served(cfg.model_path),
    at="page_size",
    message=f"`--page-size {{page_size}}` and this model's SSM chunk size, {_FLA_CHUNK}, must divide one another "
    "(`--mamba-radix-cache-strategy extra_buffer` caches at chunk boundaries)",
    fix=set_("page_size", _chunk_fix),
    example="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy extra_buffer "
    "--page-size 48 --mamba-track-interval 288",
    near_miss="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy extra_buffer "
    "--page-size 32 --mamba-track-interval 288",
)


def _covering_interval(cfg) -> str:  # noqa: ANN001
    """The draft-token count, rounded up to a whole number of pages when the launch writes a page size."""
    tokens, page = cfg.speculative_num_draft_tokens, cfg.page_size or 1
    return str(-(-tokens // page) * page)


rule(
    code="SGL1139",
    name="mamba-track-interval-below-speculative-draft-tokens",
    errors="0548c64f2734",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "extra_buffer" and cfg.speculative_algorithm is not None
    and cfg.speculative_num_draft_tokens is not None and cfg.mamba_track_interval < cfg.speculative_num_draft_tokens
    and cfg.pp_size == 1 and cfg.dllm_algorithm is None and not cfg.disable_radix_cache
    and cfg.attention_backend is not None and _mamba_hybrid(cfg) and served(cfg.model_path),
    at=("mamba_track_interval", "speculative_num_draft_tokens"),
    message="with `--mamba-radix-cache-strategy extra_buffer`, `--mamba-track-interval {mamba_track_interval}` "
    "must be at least `--speculative-num-draft-tokens {speculative_num_draft_tokens}`",
    fix=set_("mamba_track_interval", _covering_interval),
    example="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy extra_buffer "
    "--speculative-algorithm EAGLE --speculative-num-draft-tokens 4 --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --mamba-track-interval 2",
    near_miss="--model-path Qwen/Qwen3.5-9B --attention-backend flashinfer --mamba-radix-cache-strategy extra_buffer "
    "--speculative-algorithm EAGLE --speculative-num-draft-tokens 4 --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --mamba-track-interval 4",
)
