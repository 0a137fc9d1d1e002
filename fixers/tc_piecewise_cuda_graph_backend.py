"""The `tc_piecewise` CUDA graph backend, which SGLang removed.

## What it does
Finds `--cuda-graph-backend-prefill tc_piecewise` and
`--cuda-graph-backend-decode tc_piecewise` (on the command line or as keys of
a `--config` file), in launches SGLang's argument parser reads
(`python -m sglang.launch_server`, `sglang serve` with a known language
model). Both options read their value through
`parse_cuda_graph_backend_arg` (`model_executor/cuda_graph_config.py`), which
refuses `tc_piecewise` before argparse checks the choices. Up to 0.5.21
`tc_piecewise` was a choice: a launch whose release is not known (no
`sglang==X` pin, no `lmsysorg/sglang:vX` image) is left alone.

## Why is this bad?
SGLang refuses to start. `parser.parse_args` in `prepare_server_args` exits
with `error: argument --cuda-graph-backend-prefill:
tc_piecewise was removed; select breakable, full, or disabled`.

## Example
```sh
# sglang==0.5.23
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-backend-prefill tc_piecewise
```

## Use instead
```sh
# sglang==0.5.23
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-backend-prefill breakable
```

## Fix safety
Unsafe: the fix writes `breakable`, the piecewise capture that remains
(SGLang's piecewise graph utilities are shared between Breakable and
tc_piecewise, and its failure hint for tc_piecewise says to "change to
breakable"), but SGLang's message offers `full` and `disabled` too and names
no replacement.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._argparse import parsed_by_sglang, release_name, resolutions, value_texts
from autofix.model import Launch

REMOVED = "tc_piecewise"
PARSER = "parse_cuda_graph_backend_arg"  # the options' type in SGLang's option table


@fixer(
    code="SGL110",
    name="tc-piecewise-cuda-graph-backend",
    record="5d0c21a1d790",
    errors=("5d0c21a1d790",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if not parsed_by_sglang(launch):
        return
    for flag in launch.flags:
        option = flag.option
        if option is None or option.type != PARSER or value_texts(flag) != [REMOVED]:
            continue
        # Where the release is unknown, no release may read the option otherwise.
        if any(o is not None and o.type != PARSER for o in resolutions(launch, flag)):
            continue
        yield Finding(
            at=flag.span,
            message=f"{release_name(launch)} has no `{option.primary} {REMOVED}` (removed in 0.5.22); "
            "choose `breakable`, `full` or `disabled`",
            fix=Fix.unsafe("Use the `breakable` backend", launch.replace_value(flag, "breakable")),
        )
