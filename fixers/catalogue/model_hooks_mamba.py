"""Catalogue rules of SGLang's Mamba radix-cache validators (`mamba_hook.py`'s
`validate_mamba_no_buffer` and `validate_mamba_extra_buffer`), which `handle_mamba_radix_cache`
runs during the model-specific adjustments for a hybrid linear-attention (Mamba-like) model.

An explicit `--mamba-radix-cache-strategy` reaches them only on such a model: the rules name the
architectures the judge has proven hybrid in every release of their range, and stay quiet on any
other or unknown model. They read the flags as written: the validators run before the attention
backend and page size are resolved.
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


def _plain_schedule(pp_size: int, dllm_algorithm: object, speculative_algorithm: object) -> bool:
    """No pipeline parallelism, diffusion or speculative decoding: nothing else turns off the overlap
    schedule or sets the draft-token count the validators read."""
    return pp_size == 1 and dllm_algorithm is None and speculative_algorithm is None


rule(
    code="SGL1116",
    name="mamba-no-buffer-with-overlap-schedule",
    errors="f16f661eb17e",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "no_buffer" and cfg.page_size in (None, 1)
    and not cfg.disable_overlap_schedule
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm)
    and _mamba_hybrid(cfg) and served(cfg.model_path),
    at="mamba_radix_cache_strategy",
    message="`--mamba-radix-cache-strategy no_buffer` does not support the overlap schedule: "
    "set `--disable-overlap-schedule`",
    fix=set_("disable_overlap_schedule"),
    safe=True,
    example="--model-path Qwen/Qwen3.5-9B --mamba-radix-cache-strategy no_buffer",
    near_miss="--model-path Qwen/Qwen3.5-9B --mamba-radix-cache-strategy no_buffer --disable-overlap-schedule",
)

rule(
    code="SGL1117",
    name="mamba-no-buffer-with-trtllm-mha",
    errors="2aba2bf75ee3",
    when=lambda cfg: cfg.mamba_radix_cache_strategy == "no_buffer" and cfg.page_size in (None, 1)
    and cfg.disable_overlap_schedule and cfg.attention_backend == "trtllm_mha"
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm)
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
    and _plain_schedule(cfg.pp_size, cfg.dllm_algorithm, cfg.speculative_algorithm)
    and _mamba_hybrid(cfg) and served(cfg.model_path),
    at=("mamba_track_interval", "page_size"),
    message="with `--mamba-radix-cache-strategy extra_buffer`, `--mamba-track-interval {mamba_track_interval}` "
    "must be a multiple of `--page-size {page_size}`",
    fix=set_("mamba_track_interval", _interval_fix),
    example="--model-path Qwen/Qwen3.5-9B --mamba-radix-cache-strategy extra_buffer --page-size 64 "
    "--mamba-track-interval 100",
    near_miss="--model-path Qwen/Qwen3.5-9B --mamba-radix-cache-strategy extra_buffer --page-size 64 "
    "--mamba-track-interval 128",
)
