"""A `--config` file key left without a value (`tp-size:`, `chat-template: ~`).

## What it does
Finds keys of an SGLang `--config` YAML file whose value is YAML null (an
empty value, `~` or `null`), for options that take a number, for switches,
and for options that take free text. Options with a fixed set of choices
(`quantization:`) are `invalid-choice`'s.

## Why is this bad?
YAML reads an empty value as null, and `ConfigArgumentMerger._add_scalar_arg`
(`server_args_config_parser.py`) writes every value with `str(value)`: the
option receives the text `None`. For a number SGLang refuses to start with
`error: argument --tp-size/--tensor-parallel-size: invalid int value: 'None'`;
for a switch (`enable-metrics:`) with `error: unrecognized arguments: None`.
An option that takes text starts with the literal string `None`
(`served-model-name:` serves a model named `None`, `chat-template:` looks for
a template file called `None`).

## Example
```sh
python -m sglang.launch_server --config server.yaml
```
with `server.yaml`:
```yaml
model-path: Qwen/Qwen3-8B
tp-size:
mem-fraction-static: 0.85
```

## Use instead
```sh
python -m sglang.launch_server --config server.yaml
```
with `server.yaml`:
```yaml
model-path: Qwen/Qwen3-8B
mem-fraction-static: 0.85
```

## Fix safety
Unsafe: deleting the key gives the option SGLang's default, which is what
an empty setting usually means, but the blank may instead stand for a value
someone forgot to fill in (`tp-size:` meant for 8 GPUs). A key set to the
written text `None` (`served-model-name: None`) is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import in_config_file, parsed_by_sglang
from autofix.model import Arg, Flag, Launch

NULL_TEXT = "None"  # str(None): what the merger writes for a YAML null
NUMBERS = ("int", "float", "human_readable_int")  # argparse refuses `None` for these


def null_value(flag: Flag) -> Arg | None:
    """The entry's value when it is a YAML null (its text `None` is not written in the file)."""
    entry: tuple[Arg, ...] = flag.name.container.entry_args(flag.name)  # type: ignore[union-attr]
    if len(entry) != 2:
        return None
    value = entry[1]
    return value if value.text == NULL_TEXT and value.chars is None and not value.splat else None


@fixer(
    code="SGL123",
    name="config-key-without-value",
    record="bc480e472cfd30ef",
    errors=("bfbe161989bf", "193df441b30b", "5368527bc7dd"),
    pattern=r"argument (.+?): invalid (.+?) value: 'None'",
    # A switch; and `--context-length` (SGLang's human_readable_int words its own error).
    variants=(r"unrecognized arguments: None", r"argument (.+?): Invalid integer value: 'None'"),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or not in_config_file(flag) or flag.name.text is None:
            continue
        if option.choices is not None or option.dest in launch.table.config_unsupported:
            continue  # invalid-choice's and unsupported-config-option's
        value = null_value(flag)
        if value is None:
            continue
        key = flag.spelling[2:]
        passed = f"`{key}` has no value: SGLang passes `{flag.spelling} None`"
        if option.is_boolean:
            message = f"{passed}, and a switch takes no value"
        elif option.type in NUMBERS:
            message = f"{passed} where it expects a number"
        elif option.type in ("str", None) and option.takes_value:
            message = f"{passed}, the text `None`"
        else:
            continue  # a type of SGLang's own, which may read `None` as nothing (nullable_str)
        entry = flag.name.container.entry_args(flag.name)  # type: ignore[union-attr]
        edits = flag.name.container.remove(entry)  # type: ignore[union-attr]
        yield Finding(
            at=flag.name.span,
            message=message,
            fix=Fix.unsafe(f"Remove the empty `{key}`", edits),
        )
