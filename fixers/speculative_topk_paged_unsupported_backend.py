"""An EAGLE draft tree wider than one on paged KV, with a backend that cannot verify it.

## What it does
Finds EAGLE-family speculative decoding launches with
`--speculative-eagle-topk` above 1 whose resolved page size is above 1
(`--page-size`, or the size SGLang forces for the backend: 64 for
`flashmla`, `trtllm_mla`, `cutedsl_mla`...) and whose attention backend is
not `flashinfer`, `fa3` or `triton`.

## Why is this bad?
SGLang refuses to start. `_handle_eagle_family` raises
`ValueError: speculative_eagle_topk > 1 with page_size > 1 is only supported on ('flashinfer', 'fa3', 'triton'); got attention_backend='trtllm_mla'. Use page_size == 1 or one of those backends.`
Only those backends implement the two-pass cascade that a draft tree needs
on paged KV.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 \
    --speculative-num-draft-tokens 6 --attention-backend trtllm_mla
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 \
    --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 6 --attention-backend trtllm_mla
```

## Fix safety
The fix sets `--speculative-eagle-topk 1`. Safe when the backend forces a
page size above 1 (`flashmla`, `trtllm_mla`, `tokenspeed_mla`,
`cutedsl_mla`, `hpc_ops`, `cutlass_mla`): a chain is then the only draft shape
the written backend can verify. Unsafe when the page size above 1 is the
launch's own `--page-size`: `--page-size 1`, which SGLang suggests, keeps the
draft tree, and another backend would too. `trtllm_mha` launches are
reported by `trtllm-mha-speculative-topk-above-one`, which SGLang checks first.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import PHASES, attention_backend, page_size, phase_backends, written
from autofix.fixers._speculative import eagle_topk
from autofix.model import Launch

TREE_BACKENDS = ("flashinfer", "fa3", "triton")
# Backends that turn page size 1 into 64 (128 for cutlass_mla).
FORCE_PAGES = ("flashmla", "trtllm_mla", "tokenspeed_mla", "cutedsl_mla", "hpc_ops", "cutlass_mla")


@fixer(
    code="SGL025",
    name="speculative-topk-paged-unsupported-backend",
    record="0474a432a886a717",
    errors=("4f1496bd3916",),
    preceded_by=("6768e5f4237366c9",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.flag("speculative_eagle_topk") is None:
        return  # SGLang chooses the tree shape itself
    topk = eagle_topk(launch)
    if topk is None or int(topk.value) <= 1:  # type: ignore[arg-type]
        return
    backend = attention_backend(launch)
    if backend is None or backend in TREE_BACKENDS:
        return
    if "trtllm_mha" in phase_backends(launch):
        return  # SGLang raises trtllm-mha-speculative-topk-above-one first
    page = page_size(launch)
    if page is None or page <= 1:
        return
    message = (
        f"an EAGLE draft tree (`--speculative-eagle-topk {topk.value}`) on pages of {page} "
        f"needs flashinfer, fa3 or triton attention, got `{backend}`"
    )
    title = "Set `--speculative-eagle-topk 1`"
    edits = launch.replace_value(topk, "1")
    forced = any(written(launch, dest) in FORCE_PAGES for dest in PHASES)
    yield Finding(at=topk.span, message=message, fix=Fix.safe(title, edits) if forced else Fix.unsafe(title, edits))
