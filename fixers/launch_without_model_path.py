"""A server launch that names no model.

## What it does
Finds `python -m sglang.launch_server` launches that give no `--model-path`
(nor its alias `--model`, nor a prefix of it such as `--model-p`), neither on
the command line nor in the `--config` file they read, where every token is
known: an expansion (`$ARGS`, `"$@"`), a config file autofix cannot read, or
an exec-form Dockerfile `ENTRYPOINT` (which takes `docker run`'s arguments)
may carry the model, and then nothing is reported. A launch with no flag at
all, or with a stray word (`[OPTIONS]`) or a flag autofix does not know, is
taken for a fragment and left alone, and so is `sglang serve` (which
reads its first word as the model path, and words its own error when there is
none) and a `--config` file read alone (the command line may name the model).

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` (the
parser `ServerArgs.add_cli_args` builds, where `--model-path` is
`required=True`) exits with
`error: the following arguments are required: --model-path/--model`.

## Example
```sh
python -m sglang.launch_server --tp 2 --port 30000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --port 30000
```

## Fix safety
No fix: only the author knows the model.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import may_continue, parsed_by_sglang, release_name, required_dests, tables_for
from autofix.model import Launch


@fixer(
    code="SGL109",
    name="launch-without-model-path",
    record="38765e3f08a4",
    errors=("38765e3f08a4",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.form != "launch_server" or not parsed_by_sglang(launch) or not launch.flags:
        return
    written = launch.written_dests()
    if written is None or may_continue(launch):
        return  # an expansion, or `docker run`'s arguments, may name the model
    if launch.all("config"):
        # A --config file SGLang's merger does not read (`--config=FILE`, `--conf FILE`) may
        # name the model: SGL121 reports the cause, and its fix makes SGLang read it.
        return
    if launch.all("model_path") or launch.positionals or any(f.option is None for f in launch.flags):
        # A stray word (`[OPTIONS]`, `<args>`) marks a fragment; an unknown or ambiguous
        # flag may be a model option of a release or fork autofix has no table for.
        return
    if not all("model_path" in required_dests(t.release) for t in tables_for(launch)):
        return
    yield Finding(
        at=launch.span,
        message=f"the launch names no model: `--model-path` is required in {release_name(launch)}",
    )
