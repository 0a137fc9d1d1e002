"""`--enable-priority-scheduling` with a schedule policy other than `fcfs` or `lof`.

## What it does
Finds launches that pass `--enable-priority-scheduling` while
`--schedule-policy` is set to anything but `fcfs` (the default) or `lof`:
`lpm`, `random`, `dfs-weight`, `priority`, `routing-key`, ...

## Why is this bad?
SGLang refuses to start. Its final validation asserts
`AssertionError: To use priority scheduling, schedule_policy must be 'fcfs' or 'lof'. 'lpm' is not supported.`
Priority scheduling orders the waiting queue by priority first and breaks ties
by arrival (`fcfs`) or by output length (`lof`); the other policies reorder
the queue themselves.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-priority-scheduling --schedule-policy lpm
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-priority-scheduling --schedule-policy fcfs
```

## Fix safety
Safe: the launch cannot start as written, and `fcfs` is SGLang's default
policy, the one priority scheduling is documented with. The fix replaces the
policy's value where it is written. If you would rather keep the policy (for
example `lpm`'s prefix-aware ordering), remove `--enable-priority-scheduling`
instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch

SUPPORTED = ("fcfs", "lof")


@fixer(
    code="SGL014",
    name="priority-scheduling-with-unsupported-policy",
    record="2313ef60e1a3e79f",
    errors=("a695835b8128",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.value("enable_priority_scheduling") is not True:
        return
    policy = launch.flag("schedule_policy")
    if policy is None or policy.value in SUPPORTED:
        return
    yield Finding(
        at=policy.span,
        message=f"priority scheduling needs `--schedule-policy fcfs` or `lof`, got `{policy.value}`",
        fix=Fix.safe("Set `--schedule-policy fcfs`", launch.replace_value(policy, "fcfs")),
    )
