"""`trtllm_mha` decode on a GPU that is not Hopper or Blackwell.

## What it does
With `--gpu` naming a GPU outside compute capability 9.0, 10.x and 12.x
(Ampere, Ada, ROCm), finds launches whose decode attention backend
(`--decode-attention-backend`, else `--attention-backend`) is `trtllm_mha`
while the prefill backend is another one.

## Why is this bad?
SGLang refuses to start. Its attention backend checks raise
`ValueError: TRTLLM MHA backend for decode is only supported on Hopper (SM90), Blackwell (SM100) and (SM120) GPUs. Please use a different decode backend.`
When the prefill backend is `trtllm_mha` too, SGLang refuses the prefill
backend first, and `trtllm-mha-prefill-on-unsupported-gpu` reports the launch.

## Example
`--gpu a100`
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --decode-attention-backend trtllm_mha
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B
```

## Fix safety
Unsafe: the fix removes the `trtllm_mha` flag that sets the decode backend so
that SGLang picks one that fits the GPU. That changes the kernels the launch
was written for; check that `--gpu` names the right GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch
from autofix.fixers._hardware import effective_backends, remove_each, resolved, written

TRTLLM_MHA = "trtllm_mha"


@fixer(
    code="SGL207",
    name="trtllm-mha-decode-on-unsupported-gpu",
    record="7da3adac273dc739",
    errors=("2de8667d88e2",),
    gpu=True,
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or gpu.is_sm90 or gpu.is_sm100 or gpu.is_sm120:
        return
    values = effective_backends(launch)
    prefill, decode = resolved(values)
    if decode != TRTLLM_MHA or prefill == TRTLLM_MHA:
        return
    flags = written(launch, ("decode_attention_backend", "attention_backend"), (TRTLLM_MHA,))
    if not flags:
        return
    yield Finding(
        at=flags[-1].span,
        message=f"`trtllm_mha` decode does not run on {gpu.label}",
        fix=Fix.unsafe("Remove the `trtllm_mha` backend flags", remove_each(launch, flags)),
    )
