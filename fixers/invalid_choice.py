"""A flag's value that is not one of the choices SGLang's parser allows.

## What it does
Finds a flag with a fixed list of choices (`--kv-cache-dtype`,
`--attention-backend`, `--dcp-comm-backend`, ...) given a value that is not
one of them, in launches SGLang's argument parser reads
(`python -m sglang.launch_server`, `sglang serve`, a `--config` file). When the
release is not known, a value is reported only if no release autofix knows
(0.5.17 to 0.5.23) accepts it and it is a near miss of a choice (`fp8` for
`fp8_e4m3`), or the `None` an empty `--config` key becomes: other releases
and forks have choices of their own.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) exits with
`error: argument --kv-cache-dtype: invalid choice: 'fp8' (choose from 'auto', 'fp8_e5m2', 'fp8_e4m3', ...)`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend FA3
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend fa3
```

## Fix safety
Safe, and only when exactly one choice is the value written another way
(another case, `-` for `_`, or either left out): `FA3` becomes `fa3`,
`fp8-e4m3` becomes `fp8_e4m3`. Otherwise (`fp8`: `fp8_e4m3` or `fp8_e5m2`?)
the finding names the closest choices and nothing is changed.
`sgl.Engine(...)` keywords are not checked: argparse never sees them.
Out-of-tree plugins can add attention backends at startup; autofix knows
only SGLang's own.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import (
    close, in_config_file, listing, parsed_by_sglang, release_name, tables_for, value_texts,
)
from autofix.model import Launch

# Choices SGLang computes from the environment when it builds the parser.
DYNAMIC = frozenset({"sampling_backend"})


def _normal(word: str) -> str:
    return word.lower().replace("-", "").replace("_", "")


@fixer(
    code="SGL100",
    name="invalid-choice",
    record="55c96945ab50f827",
    errors=("f0ed208294ae",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or not option.choices or option.type not in ("str", None) or option.dest in DYNAMIC:
            continue
        values = value_texts(flag)
        if not values:
            continue
        # A value some release accepts may be right where the release is unknown.
        accepted = {c for t in tables_for(launch) if (o := t.by_dest(option.dest)) and o.choices for c in o.choices}
        for value in values:
            if value in accepted or value in option.choices:
                continue
            same = [c for c in option.choices if _normal(c) == _normal(value)]
            message = f"`{value}` is not a choice of `{option.primary}` in {release_name(launch)}"
            if len(same) == 1 and len(values) == 1:
                yield Finding(
                    at=flag.span,
                    message=f"{message}; `{same[0]}` is",
                    fix=Fix.safe(f"Replace `{value}` with `{same[0]}`", launch.replace_value(flag, same[0])),
                )
                continue
            near = [c for c in option.choices if c.startswith(value)][:4] or close(value, option.choices, 0.6)
            if not near and launch.release is None and not (value == "None" and in_config_file(flag)):
                # Another SGLang release, or a fork, may offer it: only near misses are typos.
                # (An empty config key reaches the parser as `None`, which no release offers.)
                continue
            hint = f"; did you mean {listing(near)}?" if near else f"; choose from {listing(option.choices)}"
            yield Finding(at=flag.span, message=message + hint)
