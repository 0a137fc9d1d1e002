"""An NVFP4 KV cache on an NVIDIA GPU that is neither SM100 nor SM120.

## What it does
With `--gpu` naming an NVIDIA GPU outside compute capability 10.x and 12.x
(Hopper, Ada, Ampere), finds launches with `--kv-cache-dtype nvfp4`.

## Why is this bad?
SGLang refuses to start. `handle_kv4_compatibility` raises
`RuntimeError: --kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. Use --kv-cache-dtype=fp4_mx_block16 for the block-size-16 FP4 recipe.`
NVFP4 needs Blackwell's FP4 hardware. (On ROCm SGLang refuses any FP4 KV
cache with another message.)

## Example
`--gpu h100`
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend triton --kv-cache-dtype nvfp4
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend triton --kv-cache-dtype fp4_mx_block16
```

## Fix safety
Unsafe: `fp4_mx_block16` is SGLang's own suggestion, the same 4-bit size
with block-16 scales, but a different number format. The fix is offered only
where SGLang's next FP4 checks pass: the attention backend is written and
reads FP4 KV (`triton`, `torch_native`, `flex_attention` for most models,
`flashinfer` for MLA ones) and the model is known. Elsewhere the finding has
no fix, since the backend would have to change too.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch
from autofix.fixers._hardware import effective_backends

# handle_kv4_compatibility's assertions on a GPU that is neither SM100 nor SM120.
FP4_MHA_BACKENDS = ("triton", "torch_native", "flex_attention")
FP4_MLA_BACKENDS = ("flashinfer",)


@fixer(
    code="SGL205",
    name="nvfp4-kv-cache-on-unsupported-gpu",
    record="a68d41a30d66ba0e",
    errors=("464e1fadea3b",),
    gpu=True,
    # From 0.5.21 an NVFP4 cache's prefill backend is checked first (SGL372): triton provides neither
    # an FP8 workspace nor native NVFP4.
    preceded_by=("cc740f226e93",),
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or not gpu.is_cuda or gpu.is_sm100 or gpu.is_sm120:
        return
    kv = launch.flag("kv_cache_dtype")
    if kv is None or kv.value != "nvfp4":
        return
    if launch.int_value("dcp_size") > 1 and launch.model.is_kimi_k3 is not False:
        return  # Kimi-K3 DCP on tokenspeed_mla sets the KV cache dtype itself
    message = f"`--kv-cache-dtype nvfp4` needs an SM100 or SM120 GPU, and {gpu.label} is neither"
    if not _fp4_backend_fits(launch):
        yield Finding(at=kv.span, message=message)
        return
    yield Finding(
        at=kv.span,
        message=message,
        fix=Fix.unsafe("Set `--kv-cache-dtype fp4_mx_block16`", launch.replace_value(kv, "fp4_mx_block16")),
    )


def _fp4_backend_fits(launch: Launch) -> bool:
    """Whether fp4_mx_block16 passes SGLang's next checks: one written backend that reads FP4 KV."""
    values = effective_backends(launch)
    attention = values["attention_backend"]
    if values["prefill_attention_backend"] not in (None, attention):
        return False
    if values["decode_attention_backend"] not in (None, attention):
        return False
    mla = launch.model.mla
    if mla is None:
        return False
    return attention in (FP4_MLA_BACKENDS if mla else FP4_MHA_BACKENDS)
