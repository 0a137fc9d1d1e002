"""Kimi-K3 with decode context parallelism on a decode backend it cannot use.

## What it does
Finds Kimi-K3 launches with `--dcp-size` (or `--decode-context-parallel-size`)
above 1 whose decode attention backend (`--decode-attention-backend`, else
`--attention-backend`) is set to something other than `cutedsl_mla` or
`tokenspeed_mla` (or `aiter`, from SGLang 0.5.20). In 0.5.23 `tokenspeed_mla`
is an alias of `cutedsl_mla`, and SGLang names only `cutedsl_mla` and `aiter`.

## Why is this bad?
SGLang refuses to start. `_kimi_k3_overrides` raises
`AssertionError: Decode attention backend for Kimi-K3 DCP must be 'cutedsl_mla' or 'tokenspeed_mla', got 'trtllm_mla'.`
Only those kernels implement Kimi-K3's decode context parallelism.

## Example
```sh
sglang serve moonshotai/Kimi-K3 --tp 8 --dcp-size 8 --attention-backend trtllm_mla
```

## Use instead
```sh
sglang serve moonshotai/Kimi-K3 --tp 8 --dcp-size 8
```

## Fix safety
Safe: the launch cannot start as written. A written
`--decode-attention-backend X` becomes `cutedsl_mla`; a lone
`--attention-backend X` is removed, so Kimi-K3 DCP picks its defaults
(`cutedsl_mla` decode, `trtllm_mla` prefill).
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.knowledge.releases import parse_release
from autofix.model import Launch

SUPPORTED = ("cutedsl_mla", "tokenspeed_mla")


def supported(release: str | None) -> tuple[str, ...]:
    if release is None or parse_release(release) >= (0, 5, 20):  # type: ignore[operator]
        return (*SUPPORTED, "aiter")
    return SUPPORTED


@fixer(
    code="SGL003",
    name="kimi-k3-dcp-unsupported-decode-backend",
    record="2311bd20282a9819",
    errors=("38c11f74f598", "d6b85062cbce", "711e37743214"),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.model.is_kimi_k3 is not True:
        return
    dcp = launch.int_value("dcp_size")
    if dcp <= 1:
        return
    decode = launch.flag("decode_attention_backend")
    attention = launch.flag("attention_backend")
    written = decode or attention
    if written is None or written.value in supported(launch.release):
        return
    allowed = " or ".join(f"`{b}`" for b in supported(launch.release))
    message = f"Kimi-K3 with `--dcp-size {dcp}` decodes with {allowed} only, got `{written.value}`"
    if decode is not None:
        fix = Fix.safe("Set `--decode-attention-backend cutedsl_mla`", launch.replace_value(decode, "cutedsl_mla"))
    else:
        fix = Fix.safe(f"Remove `--attention-backend {written.value}`", launch.remove_all("attention_backend"))
    yield Finding(at=written.span, message=message, fix=fix)
