"""`tokenspeed_mla` attention on a GPU that is not Blackwell.

## What it does
With `--gpu` naming a GPU that is not Blackwell (SM100, SM103, SM12x), finds
launches whose `--attention-backend` or `--decode-attention-backend` is
`tokenspeed_mla`.

## Why is this bad?
SGLang refuses to start. `_mla_kv_cache_dtype_checks` raises
`ValueError: tokenspeed_mla backend is only supported on Blackwell GPUs (SM100/SM12x).`
before it looks at the KV cache dtype: the tokenspeed MLA kernels are built
for Blackwell only. (From SGLang 0.5.23 `tokenspeed_mla` is an alias of
`cutedsl_mla`, and `cutedsl-mla-on-non-sm100-gpu` reports it.)

## Example
`--gpu h100`
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --kv-cache-dtype fp8_e4m3
```

## Fix safety
Unsafe: the fix removes every `tokenspeed_mla` backend flag so that SGLang
picks the backend that fits the GPU. That changes the kernels the launch was
written for; on a Blackwell machine the original launch is fine, so check
that `--gpu` names the right GPU. An fp8 KV cache written for tokenspeed stays.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch
from autofix.fixers._hardware import BACKENDS, effective_backends, remove_each, written

TOKENSPEED = "tokenspeed_mla"


@fixer(
    code="SGL201",
    name="tokenspeed-mla-on-non-blackwell-gpu",
    record="8272f32e3d6d03fa",
    errors=("3c47ce472dd0",),
    gpu=True,
    # The trtllm_mla check of the same function runs first.
    preceded_by=("2f8960a21401c198",),
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or gpu.is_blackwell:
        return
    values = effective_backends(launch)
    if TOKENSPEED not in (values["attention_backend"], values["decode_attention_backend"]):
        return
    flags = written(launch, BACKENDS, (TOKENSPEED,))
    if not flags:
        return
    yield Finding(
        at=flags[0].span,
        message=f"`tokenspeed_mla` needs a Blackwell GPU (SM100/SM12x), and {gpu.label} is not one",
        fix=Fix.unsafe("Remove the `tokenspeed_mla` backend flags", remove_each(launch, flags)),
    )
