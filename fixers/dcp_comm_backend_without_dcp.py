"""`--dcp-comm-backend a2a` or `fi_a2a` without decode context parallelism.

## What it does
Finds launches that set `--dcp-comm-backend` to `a2a` or `fi_a2a` while
`--dcp-size` (or `--decode-context-parallel-size`) is 1 or absent.

## Why is this bad?
SGLang refuses to start. Its decode-context-parallel validation raises
`ValueError: --dcp-comm-backend a2a only affects the decode context-parallel attention reduction and therefore requires --dcp-size / --decode-context-parallel-size > 1, but got dcp_size=1.`
The all-to-all backends only exchange the partial attention outputs of DCP
ranks; without DCP there is nothing to exchange.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dcp-comm-backend a2a
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8
```

## Fix safety
Safe: the launch cannot start as written, and without DCP the flag selects
nothing. The fix removes `--dcp-comm-backend`. If you meant to run decode
context parallelism, set `--dcp-size` above 1 instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch

ALL_TO_ALL = ("a2a", "fi_a2a")


@fixer(
    code="SGL010",
    name="dcp-comm-backend-without-dcp",
    record="6af928874d12c258",
    errors=("d06e372f365a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    backend = launch.flag("dcp_comm_backend")
    if backend is None or backend.value not in ALL_TO_ALL:
        return
    dcp = launch.int_value("dcp_size")
    if dcp > 1:
        return
    yield Finding(
        at=backend.span,
        message=f"`--dcp-comm-backend {backend.value}` needs `--dcp-size` above 1, got {dcp}",
        fix=Fix.safe("Remove `--dcp-comm-backend`", launch.remove_all("dcp_comm_backend")),
    )
