"""Deterministic inference on an attention backend that cannot provide it.

## What it does
Finds launches with `--enable-deterministic-inference` whose
`--attention-backend` is not one SGLang supports for it: `ascend`, `fa3`,
`fa4`, `flashinfer` or `triton` (and `intel_xpu` from SGLang 0.5.19).

## Why is this bad?
SGLang refuses to start. `_deterministic_attention_backend` raises
`ValueError: Currently only ['ascend', 'fa3', 'fa4', 'flashinfer', 'triton'] attention backends are supported for deterministic inference, but you explicitly specified 'trtllm_mha'.`
(the list names `intel_xpu` too from 0.5.19). Only those kernels have
batch-invariant reductions.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference \
    --attention-backend trtllm_mha
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference
```

## Fix safety
Unsafe: the fix removes `--attention-backend`, so SGLang picks its
deterministic default for the GPU (`fa3` on Hopper, `flashinfer` on
Blackwell, `triton` for DeepSeek models on Blackwell). That replaces the
kernels the launch asked for; dropping `--enable-deterministic-inference`
instead is just as reasonable when determinism is not needed.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.knowledge.releases import parse_release
from autofix.model import Launch

SUPPORTED = ("ascend", "fa3", "fa4", "flashinfer", "triton")


def supported(release: str | None) -> tuple[str, ...]:
    if release is not None and parse_release(release) <= (0, 5, 18):  # type: ignore[operator]
        return SUPPORTED
    return (*SUPPORTED, "intel_xpu")


@fixer(
    code="SGL023",
    name="deterministic-inference-unsupported-attention-backend",
    record="a4c2fa6893372e2b",
    errors=("e43cbc067d5b",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.value("enable_deterministic_inference") is not True:
        return
    backend = launch.flag("attention_backend")
    if backend is None or backend.value in supported(launch.release):
        return
    message = f"deterministic inference runs on {', '.join(supported(launch.release))} attention only, got `{backend.value}`"
    fix = Fix.unsafe(f"Remove `--attention-backend {backend.value}`", launch.remove_all("attention_backend"))
    yield Finding(at=backend.span, message=message, fix=fix)
