"""`cutedsl_mla` attention on a GPU that is not datacenter Blackwell (SM100).

## What it does
With `--gpu` naming a GPU whose compute capability is not 10.x (B200, B300,
GB200, GB300), finds launches whose attention backend flags name
`cutedsl_mla` (and, from SGLang 0.5.23, its alias `tokenspeed_mla` as
attention or decode backend).

## Why is this bad?
SGLang refuses to start. `_cutedsl_prefill_backend_fill` raises
`ValueError: CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a different backend.`
The CuteDSL MLA decode kernels run on SM100 only: not on Hopper, not on
ROCm, and not on SM120 (RTX PRO 6000, RTX 5090) either.

## Example
`--gpu h100`
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --decode-attention-backend cutedsl_mla
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8
```

## Fix safety
Unsafe: the fix removes every `cutedsl_mla` backend flag so that SGLang picks
the backends that fit the GPU. That changes the kernels the launch was
written for; on an SM100 machine the original launch is fine, so check that
`--gpu` names the right GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.knowledge.releases import DEFAULT_RELEASE, parse_release
from autofix.model import Launch
from autofix.fixers._hardware import BACKENDS, effective_backends, remove_each, written

CUTEDSL = "cutedsl_mla"


def names(release: str | None) -> tuple[str, ...]:
    """What SGLang reads as cutedsl_mla in an attention or decode backend flag."""
    if parse_release(release or DEFAULT_RELEASE) >= (0, 5, 23):  # type: ignore[operator]
        return (CUTEDSL, "tokenspeed_mla")
    return (CUTEDSL,)


@fixer(
    code="SGL202",
    name="cutedsl-mla-on-non-sm100-gpu",
    record="da6f09da9ac64a7e",
    errors=("c516e669eff6",),
    gpu=True,
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or gpu.is_sm100:
        return
    values = effective_backends(launch)
    cutedsl = names(launch.release)
    if values["prefill_attention_backend"] == CUTEDSL:
        return  # SGLang asserts "CuteDSL MLA only supports decoding for now" first
    if values["attention_backend"] not in cutedsl and values["decode_attention_backend"] not in cutedsl:
        return
    flags = written(launch, ("attention_backend", "decode_attention_backend"), cutedsl)
    if not flags:
        return
    yield Finding(
        at=flags[0].span,
        message=f"`cutedsl_mla` needs an SM100 Blackwell GPU (B200, B300, GB200, GB300), and {gpu.label} is not one",
        fix=Fix.unsafe(f"Remove the `{flags[0].value}` backend flags", remove_each(launch, flags)),
    )
