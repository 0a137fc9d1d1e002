"""A flag's value that does not parse as the option's type.

## What it does
Finds a value given to an option that takes a number or JSON and that
SGLang's parser cannot convert: `--tp eight`, `--mem-fraction-static 0.9x`,
`--port 8000.0`, `--preferred-sampling-params '{temperature: 0}'`, in
launches SGLang's argument parser reads (`python -m sglang.launch_server`,
`sglang serve` with a known language model, a `--config` file). The value is
converted exactly as argparse converts it: Python's `int()` for an `int`
option (which refuses `8.0` and `1e3`), `float()` for a `float` one and
`json.loads` for a JSON one. When the release is not known, a value is
reported only if it is refused in every release autofix knows (0.5.17 to
0.5.23). Values autofix cannot read (`$TP`, a Python variable) are left alone,
and so is a `--config` key left empty (`config-key-without-value`'s).

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds) calls the option's type on the value
and exits with
`error: argument --tp-size/--tensor-parallel-size: invalid int value: 'eight'`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp eight
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 8
```

## Fix safety
No fix: the finding names the type and the value. Which number `eight`,
`0.9x` or `8k` stands for is the author's to say.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import (
    in_config_file, looks_like_option, parsed_by_sglang, release_name, resolutions, value_texts,
)
from autofix.fixers.config_key_without_value import null_value
from autofix.model import Launch

# argparse's conversions: it reports `invalid <type> value` when one raises ValueError.
CONVERSIONS: dict[str, Callable[[str], object]] = {"int": int, "float": float, "loads": json.loads}
TYPE_WORDS = {"int": "an integer", "float": "a number", "loads": "JSON"}


def refuses(type_name: str | None, value: str) -> bool:
    convert = CONVERSIONS.get(type_name or "")
    if convert is None:
        return False
    try:
        convert(value)
    except ValueError:  # json.JSONDecodeError is one
        return True
    return False


@fixer(
    code="SGL106",
    name="value-of-wrong-type",
    record="bfbe161989bf",
    errors=("bfbe161989bf",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or not option.takes_value or option.type not in CONVERSIONS:
            continue
        values = value_texts(flag)
        if values is None or in_config_file(flag) and null_value(flag) is not None:
            continue  # an empty config key is config-key-without-value's
        # Where the release is unknown, every release must refuse the value.
        named = resolutions(launch, flag)
        for value in values:
            if not flag.joined and looks_like_option(value):
                break  # argparse reads `-1e3` as an option: option-without-value's
            if any(o is not None and not refuses(o.type, value) for o in named):
                continue
            yield Finding(
                at=flag.span,
                message=f"`{option.primary}` takes {TYPE_WORDS[option.type]} in {release_name(launch)}; "
                f"`{value}` is not one (SGLang's `{option.type}` refuses it)",
            )
