"""An MXFP8 KV cache on a GPU that is not Blackwell.

## What it does
With `--gpu` naming a GPU that is not Blackwell (SM100, SM103, SM12x), finds
launches with `--kv-cache-dtype mxfp8`.

## Why is this bad?
SGLang refuses to start. `handle_mxfp8_kv_cache_compatibility` raises
`ValueError: --kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands used by the FA4 MXFP8 attention path.`
Hopper and ROCm GPUs have no block-scaled MXFP8 operands.

## Example
`--gpu h100`
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-dtype mxfp8
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3
```

## Fix safety
Unsafe: `fp8_e4m3` keeps an 8-bit KV cache of the same size, but with one
scale per tensor instead of per block, which may cost accuracy; the model's
own dtype (`auto`) is the other reasonable choice, at twice the memory.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL204",
    name="mxfp8-kv-cache-on-non-blackwell-gpu",
    record="653fb885f1351055",
    errors=("fee7fd9c39b1",),
    gpu=True,
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or gpu.is_blackwell:
        return
    kv = launch.flag("kv_cache_dtype")
    if kv is None or kv.value != "mxfp8":
        return
    # Kimi-K3 DCP on tokenspeed_mla sets the KV cache dtype itself.
    if launch.int_value("dcp_size") > 1 and launch.model.is_kimi_k3 is not False:
        return
    yield Finding(
        at=kv.span,
        message=f"`--kv-cache-dtype mxfp8` needs a Blackwell GPU (SM100+), and {gpu.label} is not one",
        fix=Fix.unsafe("Set `--kv-cache-dtype fp8_e4m3`", launch.replace_value(kv, "fp8_e4m3")),
    )
