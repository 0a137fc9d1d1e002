"""`--dcp-replicate-q-proj` without decode context parallelism.

## What it does
Finds launches that pass `--dcp-replicate-q-proj` while `--dcp-size` (or
`--decode-context-parallel-size`) is 1 or absent.

## Why is this bad?
SGLang refuses to start. Its decode-context-parallel validation raises
`ValueError: --dcp-replicate-q-proj requires --dcp-size > 1.`
Replicating the Q projection only saves the all-gather of queries between DCP
ranks; without DCP there are no such ranks.

## Example
```sh
sglang serve deepseek-ai/DeepSeek-V3 --tp 8 --dcp-replicate-q-proj
```

## Use instead
```sh
sglang serve deepseek-ai/DeepSeek-V3 --tp 8
```

## Fix safety
Safe: the launch cannot start as written, and without DCP the flag changes
nothing. The fix removes `--dcp-replicate-q-proj`. If you meant to run decode
context parallelism, set `--dcp-size` above 1 instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixers._argparse import in_config_file
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL011",
    name="dcp-replicate-q-proj-without-dcp",
    record="4884b2d7c455c2f0",
    errors=("eccca56451cd",),
    # The dcp_size and --dcp-comm-backend checks come first in the same function.
    preceded_by=("9e1b004cfc786510", "6af928874d12c258"),
)
def check(launch: Launch) -> Iterator[Finding]:
    replicate = launch.flag("dcp_replicate_q_proj")
    # --no-dcp-replicate-q-proj (False) is what SGLang accepts here.
    if replicate is None or replicate.value is not True:
        return
    # SGLang's config merger refuses this key in a --config file before any check.
    if in_config_file(replicate) and "dcp_replicate_q_proj" in launch.table.config_unsupported:
        return
    dcp = launch.int_value("dcp_size")
    if dcp > 1:
        return
    yield Finding(
        at=replicate.span,
        message=f"`--dcp-replicate-q-proj` needs `--dcp-size` above 1, got {dcp}",
        fix=Fix.safe("Remove `--dcp-replicate-q-proj`", launch.remove_all("dcp_replicate_q_proj")),
    )
