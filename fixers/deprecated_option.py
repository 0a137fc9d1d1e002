"""A deprecated flag SGLang still accepts under another name.

## What it does
Finds flags that the launch's release keeps only as deprecated spellings of
another option: in 0.5.17 to 0.5.19 `--cuda-graph-max-bs` (now
`--cuda-graph-max-bs-decode`), `--cuda-graph-bs`, `--nsa-decode-backend`,
`--nsa-prefill-backend`, `--mamba-scheduler-strategy`, `--stream-output`,
`--piecewise-cuda-graph-tokens` and the like. They are the flags SGLang
registers with a deprecated-alias action that stores into the destination of
a current option. Off by default: select it
(`--select deprecated-option`) to modernise launches.

## Why is this bad?
The launch starts, with a warning from SGLang's deprecated-argument action:
`'--cuda-graph-max-bs' is deprecated and will be removed in a future release. Use '--cuda-graph-max-bs-decode' instead.`
SGLang 0.5.20 removed these flags, and a launch that still uses one then
fails with `unrecognized arguments` (see `removed-option`).

## Example
```sh
# sglang==0.5.19
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs 160
```

## Use instead
```sh
# sglang==0.5.19
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs-decode 160
```

## Fix safety
Safe: the deprecated action stores the value where the new option does, so
the launch does the same thing. Deprecated flags whose replacement is a
value of another option (`--disable-cuda-graph`, `--enable-dp-attention`,
`--enforce-piecewise-cuda-graph`) are not reported, and neither are keys of
a `--config` file: 0.5.17 to 0.5.19's config merger refuses the new keys
(their destination is shared with a deprecated action), so the old key is
the only one a config file can hold there.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import accepts, in_config_file, value_count, value_texts
from autofix.knowledge.options import Option, all_tables
from autofix.model import Flag, Launch

RENAMES = {"deprecatedaliasstoreaction": "store", "deprecatedstoretrueaction": "store_true"}


def current(launch: Launch, flag: Flag) -> Option | None:
    """The current option the deprecated flag stores into, in every table the launch may run on."""
    old = flag.option
    if old is None or old.action not in RENAMES:
        return None
    new = next((o for o in launch.table.options if o.dest == old.dest and o.action == RENAMES[old.action]), None)
    if new is None or (old.nargs, old.type) != (new.nargs, new.type):
        return None
    if not accepts(new, value_texts(flag), value_count(flag)):
        return None
    if in_config_file(flag) and new.primary[2:].replace("-", "_") in launch.table.config_unsupported:
        return None  # the config merger refuses the new key (its destination is shared with the old flag)
    if launch.release is None:
        # Unpinned: the new name must mean the same wherever the old one is deprecated.
        for t in all_tables():
            was = t.lookup(flag.spelling)
            if isinstance(was, tuple) and was[0].action == old.action and not any(
                f == new.primary and o.dest == old.dest for o in t.options for f in o.flags
            ):
                return None
    return new


@fixer(
    code="SGL105",
    name="deprecated-option",
    record="9af5e3022218880d",
    pattern=r"'(.+?)' is deprecated and will be removed in a future release\. Use '(.+?)' instead\.",
    releases=("0.5.17", "0.5.23"),
    default=False,
)
def check(launch: Launch) -> Iterator[Finding]:
    for flag in launch.flags:
        new = current(launch, flag)
        if new is None:
            continue
        yield Finding(
            at=flag.span,
            message=f"`{flag.spelling}` is a deprecated spelling of `{new.primary}`",
            fix=Fix.safe(f"Rename `{flag.spelling}` to `{new.primary}`", launch.rename(flag, new.primary)),
        )
