"""`trtllm_mla` attention with a KV cache dtype it cannot read.

## What it does
Finds launches whose `--attention-backend` or `--decode-attention-backend` is
`trtllm_mla` while `--kv-cache-dtype` is not one of `fp8_e4m3`, `bf16` or
`auto` (nor `fp4_e2m1`, which SGLang 0.5.17 to 0.5.20 also accept).

## Why is this bad?
SGLang refuses to start. `_mla_kv_cache_dtype_checks` raises
`ValueError: TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto.`
(up to 0.5.20: `... of fp8_e4m3, fp4_e2m1, bf16, or auto.`). The check
compares names: `bfloat16`, which other backends accept as a spelling of
`bf16`, fails here.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --attention-backend trtllm_mla --kv-cache-dtype bfloat16
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --attention-backend trtllm_mla --kv-cache-dtype bf16
```

## Fix safety
Safe for `bfloat16`, which becomes `bf16`: the same dtype under the name
the check knows. Safe for `fp8_e5m2`, which becomes `fp8_e4m3`: the fp8
KV cache the kernels read, at the same size. Unsafe for the other dtypes
(`mxfp8`, `nvfp4`, `fp4_mx_block16`, and `fp4_e2m1` from 0.5.21), which
also become `fp8_e4m3`: a different format, and for the 4-bit ones twice the
KV cache memory. Models with their own KV cache rules (DeepSeek-V3.2,
GLM-5, DeepSeek-V4) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import owns_attention_rules, written
from autofix.knowledge.releases import parse_release
from autofix.model import Launch

TRTLLM_MLA = "trtllm_mla"
# The same dtype or the same size: the fix keeps what the user asked for.
RENAMES = {"bfloat16": "bf16", "fp8_e5m2": "fp8_e4m3"}


def accepted(release: str | None) -> tuple[str, ...]:
    if release is not None and parse_release(release) <= (0, 5, 20):  # type: ignore[operator]
        return ("fp8_e4m3", "fp4_e2m1", "bf16", "auto")
    return ("fp8_e4m3", "bf16", "auto")


@fixer(
    code="SGL020",
    name="trtllm-mla-unsupported-kv-cache-dtype",
    record="1a8c881383cfb240",
    errors=("390d4b8612af", "18433cb5b340"),
)
def check(launch: Launch) -> Iterator[Finding]:
    backends = [
        flag
        for flag in (launch.flag("attention_backend"), launch.flag("decode_attention_backend"))
        if flag is not None and flag.value == TRTLLM_MLA
    ]
    if not backends or owns_attention_rules(launch):
        return
    kv = launch.flag("kv_cache_dtype")
    if kv is None:
        return  # auto
    dtype = kv.value
    if dtype in accepted(launch.release):
        return
    # The parser refuses a value outside its choices first (Engine keywords skip the parser).
    if launch.form != "engine" and dtype not in launch.table.by_dest("kv_cache_dtype").choices:
        return
    # Kimi-K3 with DCP (maybe this model) replaces the decode backend: only a written
    # --attention-backend trtllm_mla beside a cutedsl_mla decode still reaches this check.
    if launch.int_value("dcp_size") > 1 and launch.model.is_kimi_k3 is not False:
        if written(launch, "attention_backend") != TRTLLM_MLA or written(launch, "decode_attention_backend") != "cutedsl_mla":
            return
    message = f"`trtllm_mla` reads a KV cache of {', '.join(accepted(launch.release))} only, got `{dtype}`"
    target = RENAMES.get(dtype, "fp8_e4m3")
    title = f"Set `--kv-cache-dtype {target}`"
    edits = launch.replace_value(kv, target)
    fix = Fix.safe(title, edits) if dtype in RENAMES else Fix.unsafe(title, edits)
    yield Finding(at=kv.span, message=message, fix=fix)
