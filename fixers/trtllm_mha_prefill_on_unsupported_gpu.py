"""`trtllm_mha` prefill on a GPU its kernels do not support.

## What it does
With `--gpu` naming a GPU outside compute capability 9.0, 10.x and 12.x (from
SGLang 0.5.19; before it, anything but 10.x), finds launches whose prefill
attention backend (`--prefill-attention-backend`, else `--attention-backend`)
is `trtllm_mha`.

## Why is this bad?
SGLang refuses to start. Its attention backend checks raise
`ValueError: TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell (SM100), or SM120 GPUs. Please use a different prefill backend.`
(SGLang 0.5.17 and 0.5.18: `TRTLLM MHA backend for prefill is only supported
on Blackwell GPUs (SM100). Please use a different prefill backend.`). The
TensorRT-LLM prefill kernels are not built for Ampere, Ada or ROCm GPUs.

## Example
`--gpu a100`
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B
```

## Fix safety
Unsafe: the fix removes the `trtllm_mha` flag that sets the prefill backend
(and every other `trtllm_mha` backend flag the GPU cannot run) so that SGLang
picks backends that fit the GPU. That changes the kernels the launch was
written for; check that `--gpu` names the right GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.knowledge.gpus import Gpu
from autofix.knowledge.releases import DEFAULT_RELEASE, parse_release
from autofix.model import Launch
from autofix.fixers._hardware import effective_backends, remove_each, resolved, written

TRTLLM_MHA = "trtllm_mha"


def prefill_runs_on(gpu: Gpu, release: str | None) -> bool:
    if parse_release(release or DEFAULT_RELEASE) < (0, 5, 19):  # type: ignore[operator]
        return gpu.is_sm100
    return gpu.is_sm90 or gpu.is_sm100 or gpu.is_sm120


@fixer(
    code="SGL206",
    name="trtllm-mha-prefill-on-unsupported-gpu",
    record="5128090d0009c5c2",
    errors=("d99bf785b619", "1219aa9ed143"),
    gpu=True,
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or prefill_runs_on(gpu, launch.release):
        return
    values = effective_backends(launch)
    prefill, decode = resolved(values)
    if prefill != TRTLLM_MHA:
        return
    dests = ["prefill_attention_backend", "attention_backend"]
    if not (gpu.is_sm90 or gpu.is_sm100 or gpu.is_sm120):
        dests.append("decode_attention_backend")  # decode cannot run there either
    flags = written(launch, tuple(dests), (TRTLLM_MHA,))
    if not flags:
        return
    yield Finding(
        at=flags[0].span,
        message=f"`trtllm_mha` prefill does not run on {gpu.label}",
        fix=Fix.unsafe("Remove the `trtllm_mha` backend flags", remove_each(launch, flags)),
    )
