"""A token count SGLang's `human_readable_int` cannot read (`32K`, `1.5Ki`).

## What it does
Finds values of the options SGLang reads with `human_readable_int`
(`utils/common.py`): `--context-length`, `--max-total-tokens`,
`--max-prefill-tokens` and, from 0.5.21, `--cuda-graph-prefill-max-context`,
in launches SGLang's argument parser reads (`python -m sglang.launch_server`,
`sglang serve` with a known language model, a `--config` file). The function
takes a plain integer, an SI suffix (`32k`, `1M`, `25.6k`) or an IEC suffix
(`32Ki`); suffixes are case-sensitive (`32K` is refused) and an IEC suffix
takes no decimals (`1.5Ki` is refused). The check mirrors it exactly. A
`--config` key left empty is `config-key-without-value`'s.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` exits
with `error: argument --context-length: Invalid integer value: '32K'. Use a
plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). Suffixes are
case-sensitive.`, or `Decimals are not allowed with IEC suffixes like 'Ki'. ...`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32K
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768
```

## Fix safety
No fix: `32K` may mean 32000 (`32k`) or 32768 (`32Ki`), and `1.5Ki` either
`1536` or `1.5k`; the finding names both readings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import in_config_file, parsed_by_sglang, release_name, resolutions, value_texts
from autofix.fixers.config_key_without_value import null_value
from autofix.model import Launch

PARSER = "human_readable_int"
SUFFIXED = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")


def refusal(value: str) -> str | None:
    """Why `human_readable_int` refuses value (its own test, step for step), or None."""
    value = value.strip()
    match = SUFFIXED.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if len(suffix) == 2 and "." in number:
            return f"an IEC suffix (`{suffix}`) takes no decimals: write `{int(float(number))}{suffix}` or `{number}{suffix[0]}`"
        return None
    try:
        int(value)
    except ValueError:
        upper = re.fullmatch(r"(\d+(?:\.\d+)?)([KkMmGgTt])(i?)", value, re.IGNORECASE)
        if upper:
            return "suffixes are case-sensitive: SI is `k`, `M`, `G`, `T`, IEC is `Ki`, `Mi`, `Gi`, `Ti`"
        return "use a plain integer, an SI suffix (`1k`, `1M`) or an IEC one (`1Ki`, `1Mi`)"
    return None


@fixer(
    code="SGL111",
    name="invalid-human-readable-int",
    record="5368527bc7dd",
    errors=("5368527bc7dd", "02a2a12f82e8"),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or option.type != PARSER:
            continue
        values = value_texts(flag)
        if values is None or len(values) != 1 or in_config_file(flag) and null_value(flag) is not None:
            continue
        why = refusal(values[0])
        if why is None or any(o is not None and o.type != PARSER for o in resolutions(launch, flag)):
            continue
        yield Finding(
            at=flag.span,
            message=f"`{option.primary}` cannot read `{values[0]}` in {release_name(launch)}: {why}",
        )
