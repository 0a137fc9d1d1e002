"""`--dcp-replicate-q-proj` with the `ag_rs` DCP communication backend.

## What it does
Finds launches with decode context parallelism (`--dcp-size` above 1) that
pass `--dcp-replicate-q-proj` while the DCP communication backend is `ag_rs`:
written as `--dcp-comm-backend ag_rs`, or (up to SGLang 0.5.19, where `ag_rs`
is the default) not written at all. From 0.5.20 on an unset backend resolves
to `a2a` or `fi_a2a` under DCP, and the launch starts.

## Why is this bad?
SGLang refuses to start. Its decode-context-parallel validation raises
`ValueError: --dcp-replicate-q-proj only applies to the a2a/fi_a2a DCP communication backend (it removes the head-dim Q all-gather); got --dcp-comm-backend=ag_rs.`
The check runs on the flags as written, before any model override, so it
fires for Kimi-K3 too, although Kimi-K3 DCP would pick an all-to-all backend
and replicate the Q projection by itself.

## Example
```sh
sglang serve deepseek-ai/DeepSeek-V3 --tp 8 --dcp-size 8 --dcp-comm-backend ag_rs --dcp-replicate-q-proj
```

## Use instead
```sh
sglang serve deepseek-ai/DeepSeek-V3 --tp 8 --dcp-size 8 --dcp-comm-backend a2a --dcp-replicate-q-proj
```

## Fix safety
Unsafe when `--dcp-comm-backend ag_rs` is written, as in the Example: the two
flags ask for different backends, and the fix keeps the replicated Q
projection by changing `ag_rs` to `a2a`. Safe when no backend is written
(0.5.17 to 0.5.19): the fix adds `--dcp-comm-backend a2a`, the backend the
flag asks for (use `fi_a2a` on an MNNVL fabric such as GB200 NVL72); for
Kimi-K3 it removes `--dcp-replicate-q-proj` instead, since Kimi-K3 DCP turns
it on and picks `a2a` or `fi_a2a` itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixers._argparse import in_config_file
from autofix.fixer import Finding, fixer
from autofix.model import Launch

ALL_TO_ALL = ("a2a", "fi_a2a")


@fixer(
    code="SGL012",
    name="dcp-replicate-q-proj-with-ag-rs",
    record="0b75c5520da17579",
    errors=("f0a6a126ed5d",),
)
def check(launch: Launch) -> Iterator[Finding]:
    replicate = launch.flag("dcp_replicate_q_proj")
    if replicate is None or replicate.value is not True:
        return
    # SGLang's config merger refuses this key in a --config file before any check.
    if in_config_file(replicate) and "dcp_replicate_q_proj" in launch.table.config_unsupported:
        return
    # With dcp_size <= 1 the launch fails earlier: dcp-replicate-q-proj-without-dcp.
    if launch.int_value("dcp_size") <= 1:
        return
    backend = launch.value("dcp_comm_backend")
    # None (0.5.20+): SGLang resolves it to a2a or fi_a2a under DCP before the check.
    if backend is None or backend in ALL_TO_ALL:
        return
    written = launch.flag("dcp_comm_backend")
    got = f"`{backend}`" if written is not None else f"the default `{backend}`"
    message = f"`--dcp-replicate-q-proj` needs `--dcp-comm-backend a2a` or `fi_a2a`, got {got}"
    if written is not None:
        fix = Fix.unsafe("Set `--dcp-comm-backend a2a`", launch.replace_value(written, "a2a"))
        yield Finding(at=written.span, message=message, fix=fix)
    elif launch.model.is_kimi_k3:
        fix = Fix.safe("Remove `--dcp-replicate-q-proj`", launch.remove_all("dcp_replicate_q_proj"))
        yield Finding(at=replicate.span, message=message, fix=fix)
    else:
        fix = Fix.safe("Add `--dcp-comm-backend a2a`", launch.set_flag("dcp_comm_backend", "a2a", after=replicate))
        yield Finding(at=replicate.span, message=message, fix=fix)
