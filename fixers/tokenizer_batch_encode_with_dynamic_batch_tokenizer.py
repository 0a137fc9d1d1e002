"""`--enable-tokenizer-batch-encode` together with `--enable-dynamic-batch-tokenizer`.

## What it does
Finds launches that pass both `--enable-tokenizer-batch-encode` and
`--enable-dynamic-batch-tokenizer`.

## Why is this bad?
SGLang refuses to start. Its tokenizer batching check raises
`ValueError: Cannot enable both --enable-tokenizer-batch-encode and --enable-dynamic-batch-tokenizer. Please choose one tokenizer batching approach.`
Both batch the tokenizer's work: one within a request that holds many texts,
the other across requests that arrive together.

## Example
```sh
sglang serve Qwen/Qwen3-8B --enable-tokenizer-batch-encode --enable-dynamic-batch-tokenizer
```

## Use instead
```sh
sglang serve Qwen/Qwen3-8B --enable-dynamic-batch-tokenizer
```

## Fix safety
Unsafe: the launch cannot start as written, and either approach may be the
one you want. The fix removes `--enable-tokenizer-batch-encode`, which must not
be used with image inputs, pre-tokenized `input_ids` or `input_embeds`, and
keeps the dynamic batch tokenizer, which has no such limits. If your traffic is
batches of texts in single requests, remove `--enable-dynamic-batch-tokenizer`
instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL017",
    name="tokenizer-batch-encode-with-dynamic-batch-tokenizer",
    record="14a665aeecb0b068",
    errors=("b24a3bbb5477",),
)
def check(launch: Launch) -> Iterator[Finding]:
    batch_encode = launch.flag("enable_tokenizer_batch_encode")
    if batch_encode is None or launch.value("enable_dynamic_batch_tokenizer") is not True:
        return
    yield Finding(
        at=batch_encode.span,
        message="`--enable-tokenizer-batch-encode` and `--enable-dynamic-batch-tokenizer` exclude each other",
        fix=Fix.unsafe(
            "Remove `--enable-tokenizer-batch-encode`", launch.remove_all("enable_tokenizer_batch_encode")
        ),
    )
