"""A true/false value written after an option that is a switch.

## What it does
Finds a switch (an option that takes no value, like `--enable-mixed-chunk`)
followed by a boolean word, `--enable-mixed-chunk true`, or joined to one,
`--enable-mixed-chunk=true`, in launches SGLang's argument parser reads
(`python -m sglang.launch_server`, `sglang serve` with a known language
model, a `--config` file). SGLang's parser has no positional argument (`sglang
serve MODEL` turns its first word into `--model-path MODEL` before parsing),
so nothing else can take the word. In a `--config` file, `enable-mixed-chunk:
true` is right (the merger passes the switch alone); a quoted `"true"`
reaches the parser as a word of its own and is reported (a key of a
`--foo/--no-foo` pair is refused by the merger first:
`unsupported-config-option`'s). Other words after a switch are left alone; when the release
is not known, the option must be a switch in every release autofix knows.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) exits with
`error: unrecognized arguments: true`, or, for the joined spelling, with
`error: argument --enable-mixed-chunk: ignored explicit argument 'true'`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mixed-chunk true
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mixed-chunk
```

## Fix safety
Safe for a true word (`true`, `True`, `1`, `yes`, `on`): the fix removes the
word, and SGLang then reads the switch as on, which is what was written.
Unsafe for a false word (`false`, `0`, `no`, `off`): the author meant the
switch off, and the fix removes the switch with its word, which leaves the
option at its default, the opposite of the switch (nothing is offered where
the default is not that). Where the word cannot be removed on its own (a
quoted `"true"` in a `--config` file), the finding has no fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import (
    in_config_file, next_arg, parsed_by_sglang, release_name, remove_args, resolutions,
)
from autofix.model import Arg, Flag, Launch

TRUE_WORDS = frozenset({"true", "True", "TRUE", "1", "yes", "Yes", "YES", "on", "On", "ON"})
FALSE_WORDS = frozenset({"false", "False", "FALSE", "0", "no", "No", "NO", "off", "Off", "OFF"})


def stray_word(launch: Launch, flag: Flag) -> tuple[str, Arg | None] | None:
    """The boolean word written after (or joined to) the switch, and its token when separate."""
    if flag.joined:
        word = (flag.name.text or "").split("=", 1)[1]
        return (word, None) if word in TRUE_WORDS | FALSE_WORDS else None
    after = next_arg(launch, flag.name)
    if after is None or after.splat or after.text not in TRUE_WORDS | FALSE_WORDS:
        return None
    # Only a word argparse leaves over: one autofix read as a positional, not a flag's value.
    if not any(p is after for p in launch.positionals) or "--" in [a.text for a in launch.args]:
        return None
    return after.text, after


def unjoin(flag: Flag) -> tuple:
    """Edits that drop `=WORD` from a joined `--switch=WORD`."""
    name, text = flag.name, flag.name.text or ""
    if not flag.editable or name.container is None or name.region(len(flag.spelling), len(text)) is None:
        return ()
    return name.container.replace(name, len(flag.spelling), len(text), "")


def switch_off_by_default(launch: Launch, flag: Flag) -> bool:
    """Whether leaving the switch out gives the opposite of what it sets."""
    default = flag.option.default  # type: ignore[union-attr]
    return isinstance(default, bool) and default is not flag.value


@fixer(
    code="SGL108",
    name="value-after-boolean-switch",
    record="193df441b30b",
    errors=("193df441b30b", "bdd1b9d5bddd"),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or not option.is_boolean:
            continue
        if in_config_file(flag) and option.dest in launch.table.config_unsupported:
            continue  # the merger refuses the key first: unsupported-config-option's
        found = stray_word(launch, flag)
        if found is None:
            continue
        if any(o is None or not o.is_boolean for o in resolutions(launch, flag)):
            continue  # a release where the spelling takes a value, or is no option
        word, token = found
        how = "ignores the explicit argument" if token is None else "leaves it as an unrecognized argument"
        message = f"`{flag.spelling}` is a switch in {release_name(launch)} and takes no value: SGLang {how} `{word}`"
        if word in TRUE_WORDS:
            edits = unjoin(flag) if token is None else remove_args([token])
            fix = Fix.safe(f"Remove `{word}`", edits) if edits else None
        elif switch_off_by_default(launch, flag):
            edits = launch.remove(flag) if token is None else remove_args([*flag.args, token])
            fix = Fix.unsafe(f"Remove `{flag.spelling}` and `{word}`: `{word}` meant off", edits) if edits else None
        else:
            fix = None
        yield Finding(at=flag.span if token is None else flag.span.cover(token.span), message=message, fix=fix)
