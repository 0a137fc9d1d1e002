"""A chunked prefill size that is not a whole number of KV cache pages.

## What it does
Finds launches whose `--chunked-prefill-size` is positive and not a multiple
of the page size SGLang resolves: `--page-size`, or the size it forces for
the attention backend (64 for `trtllm_mla`, `cutedsl_mla`, `flashmla`,
`trtllm_mha` with another size, 128 for `cutlass_mla`...).

## Why is this bad?
SGLang refuses to start. Its final argument checks assert
`AssertionError: chunked_prefill_size must be divisible by page_size`
(skipped for a PD-disaggregation decode server). A backend that needs
64-token pages changes `--page-size` silently first, so a size that was a
multiple of the written page size can fail too.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --attention-backend trtllm_mla --chunked-prefill-size 10000
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --attention-backend trtllm_mla --chunked-prefill-size 9984
```

## Fix safety
Safe: the fix rounds `--chunked-prefill-size` down to the nearest multiple
of the page size (up to one page when it is smaller), which changes the
prefill chunk by less than a page and never raises peak memory. Launches
where the page size depends on the GPU (no `--attention-backend`, `fa4`,
`aiter`, ...), on the model (DeepSeek-V3.2, GLM-5, DeepSeek-V4, diffusion
LLMs, an MLA backend on a model that is not MLA, which its own fixer
removes), or where SGLang rescales the chunk (`--enable-dp-attention`,
`--enable-mis`, `--is-embedding`) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import page_size
from autofix.model import Launch


@fixer(
    code="SGL029",
    name="chunked-prefill-not-multiple-of-page-size",
    record="652bac872995b391",
    errors=("b533b4fb2053",),
)
def check(launch: Launch) -> Iterator[Finding]:
    chunk_flag = launch.flag("chunked_prefill_size")
    if chunk_flag is None:
        return
    chunk = launch.int_value("chunked_prefill_size")
    if chunk <= 0 or launch.value("disaggregation_mode") == "decode":
        return
    # SGLang divides the chunk by the DP size, or disables chunked prefill, before checking.
    if any(launch.value(dest) is True for dest in ("enable_dp_attention", "enable_mis", "is_embedding")):
        return
    page = page_size(launch)
    if page is None or chunk % page == 0:
        return
    fixed = max(chunk - chunk % page, page)
    message = f"`--chunked-prefill-size {chunk}` is not a multiple of the page size {page}"
    fix = Fix.safe(f"Set `--chunked-prefill-size {fixed}`", launch.replace_value(chunk_flag, str(fixed)))
    yield Finding(at=chunk_flag.span, message=message, fix=fix)
