"""The GPUs `--gpu NAME` knows: vendor and compute capability, as SGLang's platform probes see them.

SGLang decides hardware rules with probes on the running machine
(`utils/common.py`, `runtime_context.get_platform()`): `is_cuda`, `is_hip`,
`is_sm90` (major 9), `is_sm100` (major 10: B200, B300, GB200, GB300),
`is_sm120` (major 12), `is_blackwell` (major 10, 11 or 12). A static check
cannot probe, so the user names the GPU and this table answers for it.

Sources: NVIDIA's CUDA GPU compute capability table; AMD's ROCm GPU
specifications (gfx942: MI300X, MI300A, MI325X; gfx950: MI350X, MI355X). A
series name stands for its members where they share the architecture SGLang
probes: `mi300` (the MI300 series, gfx942) and `mi350` (gfx950, which SGLang's
CI runner labels spell `mi35x`). The other platforms SGLang runs on are
known by vendor, which is what their probes answer (`is_xpu`, `is_npu`,
`is_musa`): Intel's Data Center GPU Max (1550, 1100) and Arc (B580, A770) GPUs
(XPU), Huawei's Ascend 910B and 910C (NPU), Moore Threads' MTT S3000 and S4000
(MUSA).

A name may end in the CUDA toolkit SGLang runs with, spelled as SGLang's image tags spell it
(`b200-cu129`: CUDA 12.9, `gb300-cu130`: CUDA 13.0); without one the CUDA version is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

__all__ = ["GPUS", "Gpu", "gpu_named"]


@dataclass(frozen=True, slots=True)
class Gpu:
    name: str
    vendor: str  # "nvidia", "amd", "intel" (XPU), "ascend" (NPU) or "mthreads" (MUSA)
    sm: int | None = None  # NVIDIA compute capability as major*10+minor (90, 100, 103, 120)
    arch: str | None = None  # AMD gfx target
    cuda: tuple[int, int] | None = None  # the CUDA toolkit (torch.version.cuda), when named

    @property
    def is_cuda(self) -> bool:
        return self.vendor == "nvidia"

    @property
    def is_hip(self) -> bool:
        return self.vendor == "amd"

    @property
    def is_xpu(self) -> bool:
        return self.vendor == "intel"

    @property
    def is_npu(self) -> bool:
        return self.vendor == "ascend"

    @property
    def is_musa(self) -> bool:
        return self.vendor == "mthreads"

    @property
    def device(self) -> str:
        """SGLang's device on it when `--device` is unset: cuda on NVIDIA and ROCm GPUs."""
        return {"intel": "xpu", "ascend": "npu", "mthreads": "musa"}.get(self.vendor, "cuda")

    def _major(self, *majors: int) -> bool:
        return self.sm is not None and self.sm // 10 in majors

    @property
    def is_sm90(self) -> bool:
        return self._major(9)

    @property
    def is_sm100(self) -> bool:
        return self._major(10)

    @property
    def is_sm120(self) -> bool:
        return self._major(12)

    @property
    def is_blackwell(self) -> bool:
        return self._major(10, 11, 12)

    @property
    def label(self) -> str:
        """How messages name the GPU: `H100 (SM90)`, `MI300X (gfx942)`, `MAX-1550 (XPU)`."""
        detail = f"SM{self.sm}" if self.sm is not None else self.arch or self.device.upper()
        if self.cuda is not None:
            detail += f", CUDA {self.cuda[0]}.{self.cuda[1]}"
        return f"{self.name.upper()} ({detail})"


def _nvidia(sm: int, *names: str) -> dict[str, Gpu]:
    return {n: Gpu(n, "nvidia", sm=sm) for n in names}


def _amd(arch: str, *names: str) -> dict[str, Gpu]:
    return {n: Gpu(n, "amd", arch=arch) for n in names}


def _other(vendor: str, *names: str) -> dict[str, Gpu]:
    return {n: Gpu(n, vendor) for n in names}


GPUS: dict[str, Gpu] = {
    **_nvidia(70, "v100"),
    **_nvidia(75, "t4"),
    **_nvidia(80, "a100", "a800", "a30"),
    **_nvidia(86, "a10", "a10g", "a40", "a6000", "rtx3090"),
    **_nvidia(89, "l4", "l40", "l40s", "rtx4090", "rtx-6000-ada"),
    **_nvidia(90, "h100", "h200", "h800", "h20", "gh200"),
    **_nvidia(100, "b200", "b100", "gb200"),
    **_nvidia(103, "b300", "gb300"),
    **_nvidia(120, "rtx-pro-6000", "rtx5090", "rtx5080"),
    **_nvidia(121, "gb10", "dgx-spark"),
    **_amd("gfx90a", "mi210", "mi250", "mi250x"),
    **_amd("gfx942", "mi300x", "mi300a", "mi325x", "mi300"),
    **_amd("gfx950", "mi350x", "mi355x", "mi350"),
    **_other("intel", "max-1550", "max-1100", "arc-b580", "arc-a770"),
    **_other("ascend", "ascend-910b", "ascend-910c"),
    **_other("mthreads", "mtt-s3000", "mtt-s4000"),
}

_ALIASES = {
    "rtx-pro-6000-blackwell": "rtx-pro-6000", "rtx-pro6000": "rtx-pro-6000", "spark": "dgx-spark",
    "mi325": "mi325x", "mi35x": "mi350",
    "ascend910b": "ascend-910b", "ascend910c": "ascend-910c",
}
_VENDOR = re.compile(r"^(?:nvidia|amd|instinct|geforce|tesla|intel|data-center-gpu|huawei|moore-threads)-+")
_SPACED_RTX = re.compile(r"^rtx-(\d{4})\b")
_CUDA_TAG = re.compile(r"-cu(\d{2})(\d)$")  # SGLang's image tags: cu126, cu129, cu130


def gpu_named(name: str) -> Gpu | None:
    """The GPU a name means, case-insensitive: `H100`, `h100-sxm`, `NVIDIA H200 NVL`, `mi300x`, `RTX 5090`.

    Variants of a known name (form factor, memory size) are the same GPU:
    trailing `-words` are dropped until a known name remains.
    """
    key = re.sub(r"[\s_]+", "-", name.strip().lower())
    while True:
        stripped = _VENDOR.sub("", key)
        if stripped == key:
            break
        key = stripped
    key = _SPACED_RTX.sub(r"rtx\1", key)  # "RTX 5090" -> rtx5090; "RTX PRO 6000" stays
    tag = _CUDA_TAG.search(key)
    if tag is not None:
        found = gpu_named(key[: tag.start()])
        return replace(found, cuda=(int(tag[1]), int(tag[2]))) if found is not None and found.is_cuda else None
    while key:
        key = _ALIASES.get(key, key)
        if key in GPUS:
            return GPUS[key]
        if "-" not in key:
            return None
        key = key.rsplit("-", 1)[0]
    return None
