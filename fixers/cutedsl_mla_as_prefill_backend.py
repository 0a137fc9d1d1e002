"""`cutedsl_mla` as the prefill attention backend, which it cannot run.

## What it does
Finds launches with `--prefill-attention-backend cutedsl_mla`.

## Why is this bad?
SGLang refuses to start. `_cutedsl_prefill_backend_fill` asserts
`AssertionError: CuteDSL MLA only supports decoding for now`. CuteDSL MLA
is a decode kernel; with `cutedsl_mla` as the decode or the attention
backend and no prefill backend, SGLang prefills with `trtllm_mla` itself.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \
    --attention-backend cutedsl_mla --prefill-attention-backend cutedsl_mla
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \
    --attention-backend cutedsl_mla
```

## Fix safety
Safe when the decode backend is written (`--decode-attention-backend`, else
`--attention-backend`): the fix removes `--prefill-attention-backend
cutedsl_mla`, so prefill runs on what SGLang picks for it (`trtllm_mla`
next to a `cutedsl_mla` decode). Unsafe when no decode backend is written:
the fix moves the flag to `--decode-attention-backend cutedsl_mla`, which
the launch most likely meant, but which replaces the decode kernel SGLang
would have chosen. Kimi-K3 with decode context parallelism sets both backends
itself, and is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import written
from autofix.model import Launch

CUTEDSL = "cutedsl_mla"


@fixer(
    code="SGL021",
    name="cutedsl-mla-as-prefill-backend",
    record="7661951110674ea8",
    errors=("3e9c90821f3a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    prefill = launch.flag("prefill_attention_backend")
    if prefill is None or prefill.value != CUTEDSL:
        return
    # Kimi-K3 with DCP replaces the prefill backend with trtllm_mla.
    if launch.int_value("dcp_size") > 1 and launch.model.is_kimi_k3 is not False:
        return
    message = "`cutedsl_mla` only decodes; it cannot be the prefill attention backend"
    removed = [e for f in launch.all("prefill_attention_backend") for e in launch.remove(f)]
    if written(launch, "decode_attention_backend") or written(launch, "attention_backend"):
        fix = Fix.safe("Remove `--prefill-attention-backend cutedsl_mla`", removed)
    else:
        # The new flag goes after the flag before it: an insertion inside a removal would be lost.
        before = [f for f in launch.flags if f.span.end <= prefill.span.start]
        added = launch.set_flag("decode_attention_backend", CUTEDSL, after=before[-1]) if before else ()
        edits = [*removed, *added] if added and removed else []
        fix = Fix.unsafe("Use `--decode-attention-backend cutedsl_mla` instead", edits)
    yield Finding(at=prefill.span, message=message, fix=fix)
