"""A `--config` file key SGLang's config merger refuses (`dcp-replicate-q-proj: true`).

## What it does
Finds keys of an SGLang `--config` YAML file that name an option whose
argparse action the merger does not handle: the `--X/--no-X` switches
(`dcp-replicate-q-proj`, `lora-strict-loading`, `experts-shared-outer-loras`),
deprecated switches (`disable-cuda-graph`; `enable-dp-attention` from 0.5.22),
`lora-paths`, and in 0.5.17 to 0.5.19 every option that shares its
destination with a deprecated alias (`cuda-graph-bs-decode`,
`cuda-graph-max-bs-decode`, `dsa-decode-backend`, `mamba-radix-cache-strategy`).
The list is each release's own, read from its merger. For a launch whose
release is not known, a key is reported only when every release refuses it.

## Why is this bad?
SGLang refuses to start before parsing anything.
`ConfigArgumentMerger._convert_config_to_args` (`server_args_config_parser.py`)
raises
`ValueError: Unsupported config option 'dcp_replicate_q_proj' with action 'BooleanOptionalAction'`
for such a key, whatever its value (`false` too). The same flag is fine on
the command line.

## Example
```sh
python -m sglang.launch_server --config server.yaml
```
with `server.yaml`:
```yaml
model-path: deepseek-ai/DeepSeek-V3
tp-size: 8
dcp-size: 8
dcp-comm-backend: a2a
dcp-replicate-q-proj: true
```

## Use instead
```sh
python -m sglang.launch_server --config server.yaml --dcp-replicate-q-proj
```
with `server.yaml`:
```yaml
model-path: deepseek-ai/DeepSeek-V3
tp-size: 8
dcp-size: 8
dcp-comm-backend: a2a
```

## Fix safety
Unsafe, and only when the file is checked with the launch that reads it: the
fix moves the key onto that launch's command line, right after
`--config FILE` (`dcp-replicate-q-proj: false` becomes
`--no-dcp-replicate-q-proj`), or just deletes it when the command line sets
the option already (the command line wins over the file). Another launch
reading the same file would lose the setting. A file checked on its own,
and a list or mapping value, are reported without a fix. A deprecated switch
set to `false` (`disable-cuda-graph: false`) is not reported yet: autofix
reads the file as the merger's output, where such a key leaves no token.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import exact, in_config_file, parsed_by_sglang
from autofix.knowledge.options import Option, OptionTable, all_tables
from autofix.model import Arg, Flag, Launch, NewFlag


def refused(table: OptionTable, key: str) -> bool:
    return key.replace("-", "_") in table.config_unsupported


def refused_by_sglang(launch: Launch, key: str) -> bool:
    """The launch's release refuses the key; every release that knows it, when the release is unknown."""
    if launch.release is not None:
        return refused(launch.table, key)
    tables = [t for t in all_tables() if t.lookup("--" + key.replace("_", "-")) is not None]
    return refused(launch.table, key) and all(refused(t, key) for t in tables)


def command_line_flag(option: Option, spelling: str, values: list[str | None]) -> NewFlag | None:
    """The command-line flag that says what the file's entry says; None when autofix cannot write it."""
    if option.action == "boolean_optional":
        if values not in (["true"], ["false"]):
            return None
        positive = spelling.startswith("--no-") == (values == ["false"])
        name = option.flags[0] if positive else next((f for f in option.flags if f.startswith("--no-")), None)
        return NewFlag(replace(option, flags=(name,)), None, False) if name else None
    if option.is_boolean:
        return NewFlag(replace(option, flags=(spelling,)), None, False) if values == [] else None
    if option.nargs is None and len(values) == 1 and values[0] is not None:
        return NewFlag(replace(option, flags=(spelling,)), values[0], False)
    return None


@fixer(
    code="SGL122",
    name="unsupported-config-option",
    record="3f13a3b767124d83",
    errors=("dce5cf886402",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        if not in_config_file(flag) or flag.name.text is None or not flag.spelling.startswith("--"):
            continue
        key = flag.spelling[2:]
        if not refused_by_sglang(launch, key):
            continue
        spelling = "--" + key.replace("_", "-")
        option = exact(launch.table, spelling)
        message = f"SGLang's config merger refuses the key `{key}`; `{spelling}` works only on the command line"
        yield Finding(at=flag.name.span, message=message, fix=_move(launch, flag, option, spelling))


def _move(launch: Launch, flag: Flag, option: Option | None, spelling: str) -> Fix:
    title = f"Move `{spelling}` to the command line"
    if option is None or len(launch.config) != 2 or launch.config[-1].container is None:
        return Fix.display(title)  # the file checked on its own: the launch reading it is elsewhere
    entry: tuple[Arg, ...] = flag.name.container.entry_args(flag.name)  # type: ignore[union-attr]
    removed = flag.name.container.remove(entry) if entry else ()  # type: ignore[union-attr]
    if not removed:
        return Fix.display(title)
    if any(not in_config_file(f) for f in launch.all(option.dest)):
        return Fix.unsafe(f"Remove `{flag.spelling[2:]}`: the command line sets it", removed)
    new = command_line_flag(option, spelling, [a.text for a in entry[1:]])
    if new is None:
        return Fix.display(title)
    added = launch.config[-1].container.insert_after(launch.config, new)
    if not added:
        return Fix.display(title)
    return Fix.unsafe(f"Move `{' '.join(new.tokens())}` to the command line", removed + added)
