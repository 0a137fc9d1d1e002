"""`trtllm_mla` attention on a GPU that is not Blackwell.

## What it does
With `--gpu` naming a GPU that is not Blackwell (SM100, SM103, SM12x), finds
launches whose `--attention-backend` or `--decode-attention-backend` is
`trtllm_mla`.

## Why is this bad?
SGLang refuses to start. `_mla_kv_cache_dtype_checks` raises
`ValueError: TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different backend.`
The TensorRT-LLM MLA kernels are built for Blackwell only.

## Example
`--gpu h100`
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --attention-backend trtllm_mla
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8
```

## Fix safety
Unsafe: the fix removes every `trtllm_mla` backend flag so that SGLang picks
the backend that fits the GPU (`fa3` on Hopper, `aiter` or `triton` on ROCm).
That changes the kernels the launch was written for; on a Blackwell machine
the original launch is fine, so check that `--gpu` names the right GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch
from autofix.fixers._hardware import BACKENDS, effective_backends, remove_each, written

TRTLLM_MLA = "trtllm_mla"


@fixer(
    code="SGL200",
    name="trtllm-mla-on-non-blackwell-gpu",
    record="2f8960a21401c198",
    errors=("c11324526c79",),
    gpu=True,
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or gpu.is_blackwell:
        return
    values = effective_backends(launch)
    if TRTLLM_MLA not in (values["attention_backend"], values["decode_attention_backend"]):
        return
    flags = written(launch, BACKENDS, (TRTLLM_MLA,))
    if not flags:
        return
    yield Finding(
        at=flags[0].span,
        message=f"`trtllm_mla` needs a Blackwell GPU (SM100/SM12x), and {gpu.label} is not one",
        fix=Fix.unsafe("Remove the `trtllm_mla` backend flags", remove_each(launch, flags)),
    )
