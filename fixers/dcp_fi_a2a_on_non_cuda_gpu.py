"""`--dcp-comm-backend fi_a2a` on a GPU that is not NVIDIA's.

## What it does
With `--gpu` naming a GPU that is not an NVIDIA CUDA GPU (AMD Instinct),
finds launches with decode context parallelism (`--dcp-size` above 1) whose
`--dcp-comm-backend` is `fi_a2a`.

## Why is this bad?
SGLang refuses to start. `handle_decode_context_parallelism` raises
`ValueError: --dcp-comm-backend fi_a2a delegates the exchange to FlashInfer's MNNVL All-to-All kernel, which requires Blackwell and a DCP group within one MNNVL domain. Use 'a2a' or 'ag_rs' elsewhere, or leave the flag unset to resolve it.`
(SGLang 0.5.17 to 0.5.19 word it `... which requires an NVIDIA CUDA platform
with SM90+ and MNNVL fabric memory (e.g. GB200 NVL72). ...`.) FlashInfer's
MNNVL kernel exists only on CUDA. With `--dcp-size` 1 SGLang refuses
`fi_a2a` for another reason first; Kimi-K3 (and a model autofix cannot name)
is left alone, as Kimi-K3's own DCP overrides choose the exchange.

## Example
`--gpu mi300x`
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dcp-size 8 --dcp-comm-backend fi_a2a
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dcp-size 8 --dcp-comm-backend a2a
```

## Fix safety
Safe: the launch cannot start as written, and `a2a` is the all-to-all
exchange SGLang itself picks on ROCm when the flag is unset; it keeps what
`fi_a2a` was chosen for (an all-to-all reduction, which
`--dcp-replicate-q-proj` needs).
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL203",
    name="dcp-fi-a2a-on-non-cuda-gpu",
    record="a6afb8989b1c25db",
    errors=("009e8204ed15", "ca303180db7c"),
    gpu=True,
)
def check(launch: Launch) -> Iterator[Finding]:
    gpu = launch.gpu
    if gpu is None or gpu.is_cuda:
        return
    backend = launch.flag("dcp_comm_backend")
    if backend is None or backend.value != "fi_a2a":
        return
    # With --dcp-size 1 SGLang refuses any a2a backend first, for another reason.
    if launch.int_value("dcp_size") <= 1:
        return
    # Kimi-K3 DCP picks its own exchange (before 0.5.20 it overwrites this flag) and
    # checks its own decode kernels first: stay quiet where the model may be Kimi-K3.
    if launch.model.is_kimi_k3 is not False:
        return
    yield Finding(
        at=backend.span,
        message=f"`--dcp-comm-backend fi_a2a` needs an NVIDIA GPU, and {gpu.label} is not one",
        fix=Fix.safe("Set `--dcp-comm-backend a2a`", launch.replace_value(backend, "a2a")),
    )
