"""A value that is not JSON, given to an option SGLang reads as a JSON list.

## What it does
Finds values of the options SGLang reads with `json_list_type`
(`utils/common.py`): `--sidecar-args`, `--forward-hooks`,
`--decoupled-spec-connect-endpoints` and
`--remote-instance-weight-loader-send-weights-group-ports`, that are not JSON
(`[8001, 8002` with its bracket unclosed, `['a']` with single quotes), in
launches SGLang's argument parser reads (`python -m sglang.launch_server`,
`sglang serve` with a known language model, a `--config` file). SGLang parses
them with `orjson`; a value is reported only where Python's more lenient
`json` refuses it too.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` exits
with `error: argument --forward-hooks: Invalid JSON list: [.... Please provide
a valid JSON list.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --remote-instance-weight-loader-send-weights-group-ports "[60001, 60002"
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --remote-instance-weight-loader-send-weights-group-ports "[60001, 60002]"
```

## Fix safety
No fix: autofix does not guess the JSON that was meant.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import parsed_by_sglang, release_name, resolutions, value_texts
from autofix.model import Launch

PARSER = "json_list_type"


def not_json(value: str) -> bool:
    try:
        json.loads(value)
    except ValueError:
        return True
    return False


@fixer(
    code="SGL112",
    name="invalid-json-list",
    record="7a88b57ee47a",
    errors=("7a88b57ee47a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or option.type != PARSER:
            continue
        values = value_texts(flag)
        if values is None or len(values) != 1 or not not_json(values[0]):
            continue
        if any(o is not None and o.type != PARSER for o in resolutions(launch, flag)):
            continue
        yield Finding(
            at=flag.span,
            message=f"`{option.primary}` takes a JSON list in {release_name(launch)}; `{values[0]}` is not JSON",
        )
