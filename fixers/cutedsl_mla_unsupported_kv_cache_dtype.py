"""`cutedsl_mla` attention with a KV cache dtype it cannot read.

## What it does
Finds launches with `cutedsl_mla` as any attention backend
(`--attention-backend`, `--decode-attention-backend` or
`--prefill-attention-backend`) while `--kv-cache-dtype` is not one of
`fp8_e4m3`, `bf16`, `bfloat16` or `auto`.

## Why is this bad?
SGLang refuses to start. `_cutedsl_prefill_backend_fill` raises
`ValueError: CuteDSL MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto.`

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \
    --decode-attention-backend cutedsl_mla --kv-cache-dtype fp8_e5m2
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \
    --decode-attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3
```

## Fix safety
The fix sets `--kv-cache-dtype fp8_e4m3`. Safe for `fp8_e5m2`: the fp8 KV
cache the kernel reads, at the same size. Unsafe for `mxfp8`, `nvfp4`,
`fp4_mx_block16` and `fp4_e2m1`: a different format, and for the 4-bit ones
twice the KV cache memory. In SGLang 0.5.23, where `tokenspeed_mla` is an
alias of `cutedsl_mla` that sets fp8_e4m3 itself, a launch that names
`tokenspeed_mla` is left alone; so are models with their own KV cache rules
(DeepSeek-V3.2, GLM-5, DeepSeek-V4). Kimi-K3 with decode context parallelism
(`--dcp-size` above 1) decodes with `cutedsl_mla` by default, so its launch
is checked even when no backend flag names it.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import PHASES, owns_attention_rules, written
from autofix.knowledge.releases import parse_release
from autofix.model import Launch

CUTEDSL = "cutedsl_mla"
ACCEPTED = ("fp8_e4m3", "bf16", "bfloat16", "auto")
SAME_SIZE = ("fp8_e5m2",)


@fixer(
    code="SGL022",
    name="cutedsl-mla-unsupported-kv-cache-dtype",
    record="5a21a7f3078ff6f3",
    errors=("064fddbfb3ce",),
    # The decode-only assertion comes first in the same pass.
    preceded_by=("7661951110674ea8",),
)
def check(launch: Launch) -> Iterator[Finding]:
    values = {dest: written(launch, dest) for dest in PHASES}
    kimi_dcp = launch.int_value("dcp_size") > 1 and launch.model.is_kimi_k3 is not False
    if kimi_dcp:
        # Kimi-K3 with DCP (maybe this model) decodes with cutedsl_mla unless another decode
        # backend is written (tokenspeed_mla sets fp8 itself; the others are refused first).
        if (values["decode_attention_backend"] or values["attention_backend"]) not in (None, CUTEDSL):
            return
    cutedsl = [launch.flag(dest) for dest, value in values.items() if value == CUTEDSL]
    if not (cutedsl or kimi_dcp and launch.model.is_kimi_k3) or owns_attention_rules(launch):
        return
    kv = launch.flag("kv_cache_dtype")
    if kv is None:
        return  # auto
    dtype = kv.value
    if dtype in ACCEPTED:
        return
    # The parser refuses a value outside its choices first (Engine keywords skip the parser).
    if launch.form != "engine" and dtype not in launch.table.by_dest("kv_cache_dtype").choices:
        return
    # 0.5.23 reads tokenspeed_mla as cutedsl_mla and sets fp8_e4m3 itself.
    aliased = launch.release is not None and parse_release(launch.release) >= (0, 5, 23)  # type: ignore[operator]
    if aliased and "tokenspeed_mla" in (values["attention_backend"], values["decode_attention_backend"]):
        return
    reads = f"reads a KV cache of fp8_e4m3, bf16 or auto only, got `{dtype}`"
    message = f"`cutedsl_mla` {reads}" if cutedsl else f"Kimi-K3 with DCP decodes with `cutedsl_mla`, which {reads}"
    title = "Set `--kv-cache-dtype fp8_e4m3`"
    edits = launch.replace_value(kv, "fp8_e4m3")
    fix = Fix.safe(title, edits) if dtype in SAME_SIZE else Fix.unsafe(title, edits)
    yield Finding(at=kv.span, message=message, fix=fix)
