"""A deprecated value SGLang still accepts and rewrites to its new name.

## What it does
Finds values SGLang keeps only as deprecated aliases and rewrites when it
starts: the attention backends `nsa` (now `dsa`) and `compressed` (now
`dsv4`), from 0.5.23 `tokenspeed_mla` (now `cutedsl_mla`), and the tool-call
parsers `qwen25` (now `qwen`) and `glm45` (now `glm`). Off by default: select
it (`--select deprecated-choice-alias`) to modernise launches.

## Why is this bad?
The launch starts, with a warning from `handle_deprecated_args`, such as
`--attention-backend=compressed is deprecated; use 'dsv4' instead.` or
`The tool_call_parser 'qwen25' is deprecated. Please use 'qwen' instead.`
A deprecated alias is removed some day (0.5.23 removed most of SGLang's
deprecated flags at once), and then the launch no longer starts.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --attention-backend nsa
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --attention-backend dsa
```

## Fix safety
Safe: the new name is the one SGLang itself switches to, so the launch does
the same thing. `tokenspeed_mla` in 0.5.23 also implied an fp8_e4m3 KV cache,
decode-kernel verification for speculative decoding and (as a prefill
backend) `trtllm_mla`: the fix writes `cutedsl_mla` only where nothing else
changes (`--kv-cache-dtype fp8_e4m3` set, no speculative algorithm), and
`trtllm_mla` for `--prefill-attention-backend`; elsewhere it says nothing,
since the new name alone would change the launch.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.knowledge.releases import parse_release
from autofix.model import Flag, Launch

BACKENDS = (
    "attention_backend", "decode_attention_backend", "prefill_attention_backend",
    "speculative_draft_attention_backend",
)
# SGLang's own alias tables: ATTENTION_BACKEND_CHOICES ("Deprecated alias for ..."),
# handle_deprecated_args' `aliases` and `deprecated_tool_call_parsers`.
ALIASES: dict[str, dict[str, str]] = {
    **{dest: {"nsa": "dsa", "compressed": "dsv4"} for dest in BACKENDS},
    "tool_call_parser": {"qwen25": "qwen", "glm45": "glm"},
}
TOKENSPEED = "tokenspeed_mla"


def new_name(launch: Launch, flag: Flag, value: str) -> tuple[str | None, bool]:
    """The value SGLang switches to (None: not an alias here), and whether writing it changes nothing else."""
    if value == TOKENSPEED and flag.dest in BACKENDS and launch.release is not None \
            and parse_release(launch.release) >= (0, 5, 23):  # type: ignore[operator]
        if flag.dest == "prefill_attention_backend":
            return "trtllm_mla", True  # cutedsl_mla is decode-only
        same = launch.value("kv_cache_dtype") == "fp8_e4m3" and launch.value("speculative_algorithm") is None
        return "cutedsl_mla", same
    return ALIASES.get(flag.dest or "", {}).get(value), True


@fixer(
    code="SGL104",
    name="deprecated-choice-alias",
    record="24bbf4579a441444",
    pattern=r"--(.+?)=(.+?) is deprecated; use '(.+?)' instead\.",
    releases=("0.5.17", "0.5.23"),
    default=False,
    variants=(
        r"--(.+?)=compressed is deprecated; use 'dsv4' instead\.",
        r"The tool_call_parser '(.+?)' is deprecated\. Please use '(.+?)' instead\.",
    ),
)
def check(launch: Launch) -> Iterator[Finding]:
    for flag in launch.flags:
        if flag.dest not in ALIASES:
            continue
        value = flag.value
        if not isinstance(value, str):
            continue
        new, same = new_name(launch, flag, value)
        option = flag.option
        if new is None or option is None or option.choices is not None and new not in option.choices:
            continue
        if not same:
            continue  # SGLang would change more than the name: another fixer's concern, if any
        message = f"`{option.primary} {value}` is a deprecated alias of `{new}`"
        yield Finding(
            at=flag.span,
            message=message,
            fix=Fix.safe(f"Replace `{value}` with `{new}`", launch.replace_value(flag, new)),
        )
