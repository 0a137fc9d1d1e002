"""`tokenspeed_mla` attention on a model that is not MLA.

## What it does
Finds launches that force `tokenspeed_mla` (`--attention-backend`,
`--decode-attention-backend` or `--prefill-attention-backend`) for a model
SGLang does not serve with multi-head latent attention: Qwen, Llama, Mistral,
Gemma, GLM-4.5, DeepSeek-V4 and the like.

## Why is this bad?
SGLang refuses to start. `create_tokenspeed_mla_backend` in
`attention_registry.py` raises
`ValueError: tokenspeed_mla backend can only be used with MLA models.`
With the default KV cache dtype the launch first fails with
`tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto.`, and
adding fp8 only moves the failure to the GPU worker, after the model loaded.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend tokenspeed_mla
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B
```

## Fix safety
Safe: the launch cannot start as written, and SGLang's first solution is to
drop the override so it picks a backend that fits the model and the GPU. The
fix removes the `tokenspeed_mla` flags and adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch

TOKENSPEED = "tokenspeed_mla"
BACKENDS = ("attention_backend", "decode_attention_backend", "prefill_attention_backend")


@fixer(
    code="SGL002",
    name="tokenspeed-mla-on-non-mla-model",
    record="1f2bd480c921bf78",
    errors=("4c7cbc3cee5f",),
    # With the default KV cache dtype, the kv check at config time fails first.
    preceded_by=("50f82a4b5a705b9a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.model.mla is not False:
        return
    for dest in BACKENDS:
        flag = launch.flag(dest)
        if flag is None or flag.value != TOKENSPEED:
            continue
        edits = [e for f in launch.all(dest) if f.value == TOKENSPEED for e in launch.remove(f)]
        yield Finding(
            at=flag.span,
            message="`tokenspeed_mla` needs an MLA model, and this model is not one",
            fix=Fix.safe(f"Remove `{flag.option.primary} tokenspeed_mla`", edits),
        )
