"""The `flex_attention` backend with speculative decoding.

## What it does
Finds launches whose attention backend is `flex_attention` and that set
`--speculative-algorithm`.

## Why is this bad?
SGLang refuses to start. `_handle_attention_backend_compatibility` asserts
`AssertionError: Speculative decoding is currently not supported with Flex Attention backend`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flex_attention --speculative-algorithm NGRAM
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM
```

## Fix safety
Unsafe: the fix removes `--attention-backend flex_attention`, so SGLang picks
a backend that supports speculative decoding for the GPU. Dropping
speculative decoding instead is just as reasonable when the flex attention
kernels are what the launch is for.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import attention_backend, written
from autofix.model import Launch

FLEX = "flex_attention"


@fixer(
    code="SGL027",
    name="flex-attention-with-speculative-decoding",
    record="82c0282bbc16d7d2",
    errors=("91b2766bddb0",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if attention_backend(launch) != FLEX or launch.flag("speculative_algorithm") is None:
        return
    if launch.value("speculative_algorithm") in (None, "None"):
        return
    anchor = launch.flag("attention_backend")
    if anchor is None or anchor.value != FLEX:
        anchor = launch.flag("prefill_attention_backend")
    edits = [e for dest in ("attention_backend", "prefill_attention_backend", "decode_attention_backend")
             if written(launch, dest) == FLEX for e in launch.remove_all(dest)]
    message = "`flex_attention` does not support speculative decoding"
    yield Finding(at=anchor.span, message=message, fix=Fix.unsafe("Remove the `flex_attention` backend flags", edits))
