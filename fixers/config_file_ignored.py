"""A `--config` file SGLang never reads: `--config=FILE`, or an abbreviation such as `--conf FILE`.

## What it does
Finds launches that name their config file as `--config=server.yaml` (one
token) or with an abbreviated flag (`--conf server.yaml`), and writes the
bare `--config server.yaml` that SGLang looks for.

## Why is this bad?
`prepare_server_args` merges a config file only when the exact token
`--config` is in argv (`ConfigArgumentMerger._extract_config_file_path` in
`server_args_config_parser.py` looks for `arg == "--config"`). Any other
spelling reaches argparse, which stores it in an unused `config` field: the
file is silently ignored and the server runs on defaults. When the file held
the model, SGLang refuses to start with
`error: the following arguments are required: --model-path/--model`
(`sglang serve` wants the model on its own command line in any case).

## Example
```sh
python -m sglang.launch_server --config=qwen3.yaml
```
with `qwen3.yaml`:
```yaml
model-path: Qwen/Qwen3-8B
tp-size: 2
```

## Use instead
```sh
python -m sglang.launch_server --config qwen3.yaml
```
with `qwen3.yaml`:
```yaml
model-path: Qwen/Qwen3-8B
tp-size: 2
```

## Fix safety
Safe when no model is given on the command line: the launch cannot start as
written, and the file was obviously meant to be read. Unsafe otherwise: the
launch starts today without the file's settings, and reading the file
changes the server's configuration (its flags may not fit this machine). No
fix when the file is not a `.yaml`/`.yml` path (SGLang's merger refuses any
other), when the launch names a config file twice, or when an expansion may
already hold a bare `--config`.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import in_config_file, parsed_by_sglang
from autofix.model import Flag, Launch, Unresolvable

CONFIG = "--config"


def _path(flag: Flag) -> str | None:
    try:
        value = flag.value
    except Unresolvable:
        return None
    return value if isinstance(value, str) else None


def _model_on_command_line(launch: Launch) -> bool:
    if launch.form == "serve" and launch.positionals:
        return True
    try:
        return launch.flag("model_path") is not None
    except Unresolvable:
        return True  # an expansion may give one


def _may_hold_flags(launch: Launch) -> bool:
    """An expansion that may stand for flags (a bare `--config` among them): not a flag's value."""
    values = {id(v) for f in launch.flags for v in f.values}
    return any(arg.splat or arg.text is None and id(arg) not in values for arg in launch.args)


@fixer(
    code="SGL121",
    name="config-file-ignored",
    record="2c828e8990fe3dde",
    errors=("38765e3f08a4",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    found = [f for f in launch.all("config") if f.joined or f.spelling != CONFIG]
    if not found:
        return
    flag = found[-1]
    path = _path(flag)
    written = f"{flag.spelling}=" if flag.joined else f"{flag.spelling} "
    message = f"SGLang merges a config file only after the bare token `--config`; `{written}...` is ignored"
    title = f"Write `--config {path}`" if path else "Write `--config FILE`"
    if (
        path is None
        or not path.lower().endswith((".yaml", ".yml"))
        or len(launch.all("config")) > 1
        or _may_hold_flags(launch)
        or any(in_config_file(f) for f in launch.flags)  # a bare `--config FILE` is read already
    ):
        yield Finding(at=flag.span, message=message, fix=Fix.display(title))
        return
    edits = launch.unjoin(flag, CONFIG) if flag.joined else launch.rename(flag, CONFIG)
    if _model_on_command_line(launch):
        fix = Fix.unsafe(title, edits)  # the launch starts today, without the file's settings
    else:
        fix = Fix.safe(title, edits)
    yield Finding(at=flag.span, message=message, fix=fix)
