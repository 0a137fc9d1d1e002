"""A flag abbreviated to a prefix of several SGLang options.

## What it does
Finds flags written as a prefix that more than one option of SGLang's server
starts with (`--pp` for `--pp-size`, `--pp-max-micro-batch-size` and
`--pp-async-batch-depth`; `--kv`; `--dcp`), in launches SGLang's argument
parser reads (`python -m sglang.launch_server`, `sglang serve` with a known
language model, a `--config` file). argparse accepts a prefix only when it is
unique (`--tp` is `--tp-size`). When the release is not known, a prefix is
reported only if it names no single option in any release autofix knows
(0.5.17 to 0.5.23) and it is a short abbreviation (up to `--trust`): a longer
one, like `--disable-flashinfer`, may be the full name of an older option. A name a release removed that now prefixes newer options
(`--cuda-graph-max-bs` in 0.5.20) is `removed-option`'s.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) exits with
`error: ambiguous option: --pp could match --pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 4 --pp 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 4 --pp-size 2
```

## Fix safety
Unsafe: autofix picks the option meant, and the user may have meant another.
It renames the prefix only when one candidate fits: the one option whose
choices hold the value written, else the prefix's own `-size` option
(`--pp 2` is `--pp-size 2`, as `--tp` is `--tp-size`), else the one option
that takes what follows the flag. Otherwise the finding lists the candidates.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import (
    accepts, exact, listing, older_tables, parsed_by_sglang, release_name, router_option, value_count,
    value_texts,
)
from autofix.knowledge.options import Ambiguous, Option, all_tables
from autofix.model import Flag, Launch


def meant(flag: Flag, options: list[Option]) -> Option | None:
    """The one candidate the flag's values point at, or None."""
    values, count = value_texts(flag), value_count(flag)
    fitting = [o for o in options if accepts(o, values, count)]
    chosen = [o for o in fitting if o.choices and values]
    if len(chosen) == 1:
        return chosen[0]
    sized = [o for o in fitting if flag.spelling + "-size" in o.flags]
    if len(sized) == 1 and not chosen:
        return sized[0]
    return fitting[0] if len(fitting) == 1 else None


# The longest abbreviation reported where the launch's release is unknown ("--trust").
MAX_UNPINNED_ABBREVIATION = 7


@fixer(
    code="SGL102",
    name="ambiguous-option-prefix",
    record="c2f7428e6af6b187",
    errors=("3ba756a8c88a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        if flag.problem != "ambiguous":
            continue
        if router_option(launch, flag):
            continue
        if launch.release is None and any(isinstance(t.lookup(flag.spelling), tuple) for t in all_tables()):
            continue  # some release reads it as one option
        if launch.release is None and len(flag.spelling) > MAX_UNPINNED_ABBREVIATION:
            # A long prefix (`--disable-flashinfer`) may be the full name of an
            # option of an SGLang older than autofix's tables; `--pp` is no name.
            continue
        if any(exact(t, flag.spelling) is not None for t in older_tables(launch)):
            continue  # removed-option's
        found = launch.table.lookup(flag.spelling)
        if not isinstance(found, Ambiguous):
            continue
        options: list[Option] = []
        for match in found.matches:
            option = exact(launch.table, match)
            if option is not None and option not in options:
                options.append(option)
        message = f"`{flag.spelling}` is ambiguous in {release_name(launch)}: it could be {listing(found.matches)}"
        option = meant(flag, options)
        if option is None:
            yield Finding(at=flag.span, message=message)
            continue
        yield Finding(
            at=flag.span,
            message=message,
            fix=Fix.unsafe(f"Spell it `{option.primary}`", launch.rename(flag, option.primary)),
        )
