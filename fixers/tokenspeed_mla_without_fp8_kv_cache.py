"""`tokenspeed_mla` attention without an fp8_e4m3 KV cache.

## What it does
Finds launches whose `--attention-backend` or `--decode-attention-backend` is
`tokenspeed_mla` while `--kv-cache-dtype` is anything but `fp8_e4m3` (absent
means `auto`).

## Why is this bad?
SGLang refuses to start. `_mla_kv_cache_dtype_checks` raises
`ValueError: tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto.`
The kernels of `tokenspeed_mla` only read an fp8_e4m3 KV cache. The one
exception: Kimi-K3 with decode context parallelism (`--dcp-size` > 1) whose
decode backend is `tokenspeed_mla`, where SGLang sets fp8_e4m3 itself.

On a model that is not MLA, `tokenspeed-mla-on-non-mla-model` reports the
launch instead: the backend has to go, and fp8 would not help.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --attention-backend tokenspeed_mla
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3
```

## Fix safety
Safe: the launch cannot start as written, and setting the KV cache dtype is
SGLang's own first solution. The fix replaces the value of `--kv-cache-dtype`
where it is written, or adds the flag next to the backend flag. If an fp8 KV
cache is not acceptable, choose another MLA backend instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch

TOKENSPEED = "tokenspeed_mla"


@fixer(
    code="SGL001",
    name="tokenspeed-mla-without-fp8-kv-cache",
    record="50f82a4b5a705b9a",
    errors=("2c1ac6513cd3",),
)
def check(launch: Launch) -> Iterator[Finding]:
    backends = [
        flag
        for flag in (launch.flag("attention_backend"), launch.flag("decode_attention_backend"))
        if flag is not None and flag.value == TOKENSPEED
    ]
    if not backends:
        return
    # A non-MLA model needs the backend removed, which clears this error too.
    if launch.model.mla is False:
        return
    if launch.int_value("dcp_size") > 1:
        # Kimi-K3 DCP decoding with tokenspeed_mla forces fp8_e4m3 itself.
        if launch.model.is_kimi_k3 is None:
            return
        decode = launch.value("decode_attention_backend") or launch.value("attention_backend")
        if launch.model.is_kimi_k3 and decode == TOKENSPEED:
            return
    kv = launch.flag("kv_cache_dtype")
    dtype = kv.value if kv is not None else "auto"
    if dtype == "fp8_e4m3":
        return
    anchor = min(backends, key=lambda f: f.span.start)
    yield Finding(
        at=(kv or anchor).span,
        message=f"`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `{dtype}`",
        fix=Fix.safe("Set `--kv-cache-dtype fp8_e4m3`", launch.set_flag("kv_cache_dtype", "fp8_e4m3", after=anchor)),
    )
