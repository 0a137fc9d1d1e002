"""`trtllm_mha` attention with an EAGLE draft tree wider than one.

## What it does
Finds EAGLE-family speculative decoding launches (`EAGLE`, `EAGLE3`,
`NEXTN`, `STANDALONE`) with `--speculative-eagle-topk` above 1 whose
prefill or decode attention backend is `trtllm_mha`.

## Why is this bad?
SGLang refuses to start. `_handle_eagle_family` raises
`ValueError: trtllm_mha backend only supports topk = 1 for speculative decoding.`
The TensorRT-LLM MHA kernels verify a chain of draft tokens, not a tree.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
    --speculative-algorithm EAGLE3 --speculative-draft-model-path yuhuili/EAGLE3-LLaMA3.1-Instruct-8B \
    --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8 \
    --attention-backend trtllm_mha
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
    --speculative-algorithm EAGLE3 --speculative-draft-model-path yuhuili/EAGLE3-LLaMA3.1-Instruct-8B \
    --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8 \
    --attention-backend trtllm_mha
```

## Fix safety
Safe: the launch cannot start as written, and a chain (`topk 1`) is the
draft shape the backend supports. SGLang then sets the number of draft
tokens to `--speculative-num-steps` + 1 itself. To keep a wider tree,
choose another backend (`flashinfer`, `fa3` or `triton`) instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.fixers._attention import phase_backends
from autofix.fixers._speculative import eagle_topk
from autofix.model import Launch

TRTLLM_MHA = "trtllm_mha"


@fixer(
    code="SGL024",
    name="trtllm-mha-speculative-topk-above-one",
    record="6768e5f4237366c9",
    errors=("40cf93dd136a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    if launch.flag("speculative_eagle_topk") is None:
        return  # SGLang chooses the tree shape itself
    topk = eagle_topk(launch)
    if topk is None or int(topk.value) <= 1:  # type: ignore[arg-type]
        return
    if TRTLLM_MHA not in phase_backends(launch):
        return
    message = f"`trtllm_mha` verifies EAGLE drafts with `--speculative-eagle-topk 1` only, got `{topk.value}`"
    fix = Fix.safe("Set `--speculative-eagle-topk 1`", launch.replace_value(topk, "1"))
    yield Finding(at=topk.span, message=message, fix=fix)
