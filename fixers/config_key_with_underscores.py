"""A `--config` file key spelled with underscores (`tp_size:`) instead of dashes.

## What it does
Finds keys of an SGLang `--config` YAML file written like `ServerArgs` field
names (`tp_size: 8`, `mem_fraction_static: 0.85`, `enable_metrics: true`) whose
dashed spelling is one of SGLang's options (`tp-size`), and renames the key.
The file is checked with the launch that reads it (`--config FILE`), or on its
own when most of its keys are already SGLang's dashed option names. Underscore
flags on the command line (`--tp_size 8`) are `unknown-option`'s.

A file written all in underscores (every key that names an option when
dashed, two or more of them, is underscore-spelled; `port:` counts for
neither) is a fork's format, whose merger reads such keys: it is not
reported. One dashed key among them (`mem-fraction-static:` beside
`tp_size:`) shows the file is written for SGLang, and its underscore keys
are reported.

## Why is this bad?
SGLang refuses to start. `ConfigArgumentMerger._convert_config_to_args`
(`server_args_config_parser.py`) turns each key into the token `--{key}`
exactly as written, and argparse knows only dashed options, so
`parser.parse_args` in `prepare_server_args` exits with
`error: unrecognized arguments: --tp_size 8`. A boolean key is no exception:
`enable_metrics: true` becomes `--enable_metrics` and fails the same way
(`enable_metrics: false` adds nothing, so it is harmless and not reported).

## Example
```sh
python -m sglang.launch_server --config server.yaml
```
with `server.yaml`:
```yaml
model-path: Qwen/Qwen3-8B
tp_size: 2  # two GPUs
mem-fraction-static: 0.85
```

## Use instead
```sh
python -m sglang.launch_server --config server.yaml
```
with `server.yaml`:
```yaml
model-path: Qwen/Qwen3-8B
tp-size: 2  # two GPUs
mem-fraction-static: 0.85
```

## Fix safety
Safe: the file cannot be loaded as written, and the dashed key names the
very option the underscore spelling stands for (a key that dashed is only a
prefix of one option, `mem_fraction:`, is renamed to that option in full,
which is what argparse would read). Only the key's text changes; its value,
quotes and comments stay. Unsafe when the launch sets the same option
elsewhere too, since the renamed key may then change which value wins; no
fix when the dashed key is already in the file.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import in_config_file, parsed_by_sglang, underscore_config
from autofix.model import Flag, Launch


def dashed(launch: Launch, flag: Flag) -> str | None:
    """The option string an underscore key stands for: its dashed spelling, or the one option it is a prefix of."""
    found = launch.table.lookup(flag.spelling.replace("_", "-"))
    return found[1] if isinstance(found, tuple) else None


@fixer(
    code="SGL120",
    name="config-key-with-underscores",
    record="0d3078e2edd03c4b",
    errors=("193df441b30b",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        if flag.problem != "unknown" or "_" not in flag.spelling or not in_config_file(flag):
            continue
        if underscore_config(launch, flag):
            continue  # every key underscore-spelled: a fork's file, not a slip
        if flag.spelling[2:].replace("-", "_") in launch.table.config_unsupported:
            continue  # the merger refuses the option itself: unsupported-config-option's
        spelling = dashed(launch, flag)
        if spelling is None:
            continue  # not an option with dashes either: unknown-option's
        key, new = flag.spelling[2:], spelling[2:]
        message = f"SGLang reads the key `{key}` as `{flag.spelling}`, which it does not know; the option is `{new}`"
        edits = launch.rename(flag, spelling)
        option = launch.table.lookup(spelling)[0]  # type: ignore[index]
        title = f"Rename the key `{key}` to `{new}`"
        if launch.all(option.dest):
            fix = Fix.unsafe(title, edits)  # the renamed key joins another occurrence of the option
        else:
            fix = Fix.safe(title, edits)
        yield Finding(at=flag.name.span, message=message, fix=fix)
