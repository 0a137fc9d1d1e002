"""`--enable-dp-lm-head` with data parallelism but without DP attention.

## What it does
Finds launches with `--dp-size` above 1 that pass `--enable-dp-lm-head` but
not `--enable-dp-attention` (SGLang 0.5.17 to 0.5.21; from 0.5.22 on, DP
attention is sized with `--attn-dp-size` and the check reads differently).
With `--dp-size 1` SGLang turns both flags off itself, and with `--dwdp-size`
above 1 it turns both on: neither is reported.

## Why is this bad?
SGLang refuses to start. `_dp_lm_head_validation` asserts
`AssertionError: Please enable dp attention when setting enable_dp_lm_head. `
The DP LM head splits the vocabulary across the attention tensor-parallel
group of DP attention; plain data parallelism has no such group.

## Example
```sh
# requirements: sglang==0.5.21
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-lm-head
```

## Use instead
```sh
# requirements: sglang==0.5.21
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-lm-head --enable-dp-attention
```

## Fix safety
Unsafe when `--tp-size` is a multiple of `--dp-size`: the fix adds
`--enable-dp-attention`, the flag the DP LM head is made for, but that changes
the layout from `dp-size` replicas of `tp-size` GPUs each to one group of
`tp-size` GPUs. Safe otherwise: DP attention cannot run there (it needs
`tp-size % dp-size == 0`), and the fix removes `--enable-dp-lm-head`, which
plain data parallelism does not use.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL019",
    name="dp-lm-head-without-dp-attention",
    record="35b61a16f17bd382",
    errors=("c114f9ad37b8",),
)
def check(launch: Launch) -> Iterator[Finding]:
    lm_head = launch.flag("enable_dp_lm_head")
    if lm_head is None or launch.value("enable_dp_attention") is not False:
        return
    dp = launch.int_value("dp_size")
    # dp_size 1 resets both flags; DWDP sets dp_size and turns DP attention on.
    if dp <= 1 or launch.int_value("dwdp_size") > 1:
        return
    message = f"`--enable-dp-lm-head` needs `--enable-dp-attention` with `--dp-size {dp}`"
    if launch.int_value("tp_size") % dp == 0:
        fix = Fix.unsafe("Add `--enable-dp-attention`", launch.set_flag("enable_dp_attention", None, after=lm_head))
    else:
        fix = Fix.safe("Remove `--enable-dp-lm-head`", launch.remove_all("enable_dp_lm_head"))
    yield Finding(at=lm_head.span, message=message, fix=fix)
