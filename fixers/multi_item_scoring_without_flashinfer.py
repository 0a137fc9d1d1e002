"""Multi-item scoring on an attention backend other than flashinfer.

## What it does
Finds launches with `--enable-mis` whose prefill or decode attention backend
is written and is not `flashinfer`.

## Why is this bad?
SGLang refuses to start. `_handle_multi_item_scoring` asserts
`AssertionError: Multi-item scoring requires flashinfer attention backend for custom attention mask support. Please set --attention-backend flashinfer when using --enable-mis. Current backends: prefill=fa3, decode=fa3`.
Only flashinfer takes the custom attention mask that scores several items
in one sequence.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mis --attention-backend fa3
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mis --attention-backend flashinfer
```

## Fix safety
Safe: the launch cannot start as written, and the fix does what SGLang's
message asks for: flashinfer attention. Each backend flag that decides a
phase (`--prefill-attention-backend` or `--decode-attention-backend`, else
`--attention-backend`) and names another backend gets the value
`flashinfer`. When only one phase is written, the other is SGLang's choice
for the GPU, and the fix is only shown.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import phase_backends
from autofix.model import Launch

FLASHINFER = "flashinfer"


@fixer(
    code="SGL028",
    name="multi-item-scoring-without-flashinfer",
    record="2eff99e0590d1afd",
    errors=("081e5f6d18b6",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.value("enable_mis") is not True:
        return
    prefill, decode = phase_backends(launch)
    wrong = [b for b in (prefill, decode) if b is not None and b != FLASHINFER]
    if not wrong:
        return  # flashinfer, or backends SGLang picks from the GPU
    # The flags that decide each phase: its own, else --attention-backend.
    attention = launch.flag("attention_backend")
    deciding = {launch.flag(dest) or attention for dest in ("prefill_attention_backend", "decode_attention_backend")}
    flags = sorted((f for f in deciding if f is not None and f.value != FLASHINFER), key=lambda f: f.span.start)
    edits = [e for f in flags for e in launch.replace_value(f, FLASHINFER)]
    message = f"multi-item scoring needs flashinfer attention, got prefill `{prefill}`, decode `{decode}`"
    title = "Use `flashinfer` attention"
    # A phase SGLang fills from the GPU could still be something else: show the fix only.
    fix = Fix.safe(title, edits) if None not in (prefill, decode) else Fix.display(title, edits)
    yield Finding(at=flags[0].span, message=message, fix=fix)
