"""`--retraction-policy priority` without `--enable-priority-scheduling`.

## What it does
Finds launches that set `--retraction-policy priority` but do not pass
`--enable-priority-scheduling`.

## Why is this bad?
SGLang refuses to start. Its final validation raises
`ValueError: --retraction-policy priority requires --enable-priority-scheduling`
Priority retraction evicts the lowest-priority running requests when the KV
cache is full; without priority scheduling, requests carry no priority to
compare.

## Example
```sh
sglang serve Qwen/Qwen3-8B --retraction-policy priority
```

## Use instead
```sh
sglang serve Qwen/Qwen3-8B
```

## Fix safety
Unsafe: the launch cannot start as written, and either of two flags may be the
mistake. The fix removes `--retraction-policy priority`, so SGLang retracts by
length (its default) and schedules as before. If you meant to schedule by
priority, add `--enable-priority-scheduling` instead: that also reorders the
waiting queue and lets high-priority requests preempt running ones.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL015",
    name="priority-retraction-without-priority-scheduling",
    record="30d47f6219b5ed9d",
    errors=("9e8f08dc77e3",),
)
def check(launch: Launch) -> Iterator[Finding]:
    policy = launch.flag("retraction_policy")
    if policy is None or policy.value != "priority":
        return
    if launch.value("enable_priority_scheduling") is not False:
        return
    yield Finding(
        at=policy.span,
        message="`--retraction-policy priority` needs `--enable-priority-scheduling`",
        fix=Fix.unsafe("Remove `--retraction-policy priority`", launch.remove_all("retraction_policy")),
    )
