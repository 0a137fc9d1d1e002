"""An option that needs a value, written with none.

## What it does
Finds an option that takes a value written last in the launch (`--port` with
nothing after it) or right before another option (`--tp --dp 2`), in
launches SGLang's argument parser reads (`python -m sglang.launch_server`,
`sglang serve` with a known language model, a `--config` file). A word
after it that argparse reads as a value is one: `-1`, `-0.5` (a negative
number), `-` or a text with a space; `-1e3` is not (argparse takes it for an
option). Where an expansion follows (`$ARGS`, `"$@"`) or the launch can be
continued when it runs (an exec-form Dockerfile `ENTRYPOINT`, which takes
`docker run`'s arguments), the value may come from there: nothing is reported;
nor for a launch that is that one flag alone.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) finds no value to match the option
(argparse's `_match_argument`) and exits with
`error: argument --port: expected one argument`, or, for an option that
takes a list, `error: argument --cuda-graph-bs: expected at least one argument`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp --dp 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --dp 2
```

## Fix safety
No fix: only the author knows the value that is missing (or whether the
option should go).
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import (
    looks_like_option, may_continue, next_arg, parsed_by_sglang, release_name, resolutions,
)
from autofix.model import Launch

# The nargs argparse matches with at least one value, and how it words the miss.
NEEDS_A_VALUE = {None: "expected one argument", "+": "expected at least one argument"}


@fixer(
    code="SGL107",
    name="option-without-value",
    record="27657d7a9747",
    errors=("27657d7a9747", "3c3a1f7390b8"),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or flag.joined or not option.takes_value or option.nargs not in NEEDS_A_VALUE:
            continue
        # The model takes `-1e3` for a number; argparse, for an option.
        if flag.values and not looks_like_option(flag.values[0].text or ""):
            continue
        after = next_arg(launch, flag.name)
        if after is None:
            # A launch that is nothing but this flag is more likely cut short where autofix
            # stopped reading (an expansion it cannot parse) than written so.
            if may_continue(launch) or len(launch.flags) < 2:
                continue
            where = "nothing follows it"
        elif after.splat or after.text is None or not looks_like_option(after.text):
            continue  # an expansion, or a word argparse takes as the value
        else:
            where = f"`{after.text}` follows it"
        # Where the release is unknown, it must need a value in every release that has it.
        named = [o for o in resolutions(launch, flag) if o is not None]
        if any(not o.takes_value or o.nargs not in NEEDS_A_VALUE for o in named):
            continue
        yield Finding(
            at=flag.name.span,
            message=f"`{flag.spelling}` needs a value in {release_name(launch)}, but {where} "
            f"(argparse: {NEEDS_A_VALUE[option.nargs]})",
        )
