"""`--dcp-size` below 1.

## What it does
Finds launches whose `--dcp-size` (or `--decode-context-parallel-size`) is 0
or negative.

## Why is this bad?
SGLang refuses to start. Its decode-context-parallel validation raises
`ValueError: Decode context parallel size (--dcp-size / --decode-context-parallel-size) must be >= 1, but got dcp_size=0.`
A size of 1 (the default) means no decode context parallelism.

## Example
```sh
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --dcp-size 0
```

## Use instead
```sh
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B
```

## Fix safety
Safe: the launch cannot start as written, and no size below 1 means anything
but "no decode context parallelism". The fix removes the flag, so SGLang uses
its default of 1.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL013",
    name="dcp-size-below-one",
    record="9e1b004cfc786510",
    errors=("0c320d3aed4a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    dcp = launch.flag("dcp_size")
    if dcp is None or launch.int_value("dcp_size") >= 1:
        return
    yield Finding(
        at=dcp.span,
        message=f"`--dcp-size` must be at least 1, got {dcp.value}",
        fix=Fix.safe(f"Remove `{dcp.option.primary} {dcp.value}`", launch.remove_all("dcp_size")),
    )
