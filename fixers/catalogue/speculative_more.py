"""Catalogue rules: more of speculative decoding, beside `speculative.py`.

They mirror SGLang's `speculative_hook.py` (`_handle_uno`'s tree-mode limits;
`_handle_eagle_family`, `_handle_ngram`, `_handle_dflash` and
`_init_adaptive_speculative_params`), `lora_hook.check_lora_speculative_compatibility`
and `moe_hook.validate_deepep_v2_speculative_draft`.

`_handle_uno` checks, in order: CUDA, no draft model, `--uno-lora-path`, no
deterministic inference, no strict thinking, a positive verify width Q
(`--speculative-num-draft-tokens`); then, for a candidate width K
(`--speculative-eagle-topk`, 1 when unset) above 1 (tree mode), the draft
width F (`--speculative-num-steps` + 1) and the shape of the tree, one raise
each, before PDMux, two-batch overlap and the accept thresholds.
"""

from __future__ import annotations

from autofix.rules import remove, rule

from ._common import served
from .speculative import _algorithm

# -- helpers: they take values, so that each condition names what it reads -------------


def _cuda(device: object) -> bool:
    """SGLang's device is CUDA: `--device cuda`, or unset (resolved on a GPU host)."""
    return device is None or (isinstance(device, str) and device.startswith("cuda"))


def _uno(algorithm: object, model_path: object, device: object, draft: object, lora_path: object,
         deterministic: object, strict_thinking: object, verify_width: object) -> bool:
    """`_handle_uno` runs, and passes the checks before the candidate width."""
    return (_algorithm(algorithm) == "UNO" and served(model_path) and _cuda(device) and draft is None
            and lora_path is not None and not deterministic and not strict_thinking
            and verify_width is not None and verify_width >= 1)


def _uno_tree(verify_width: int, topk: object, steps: object) -> str | None:
    """The first of `_handle_uno`'s width checks that a launch fails ("linear" when
    it runs in linear mode, None when tree mode passes them all)."""
    k = 1 if topk is None else topk
    if k < 1:
        return "topk"
    if k == 1:
        return "linear"
    if steps is None:
        return "steps-missing"
    if steps < 1:
        return "steps"
    if verify_width < steps + 1:
        return "below-draft-width"
    if verify_width > 128:
        return "above-128"
    if verify_width * k > 2048:
        return "frontier"
    capacity, nodes = 1, 1
    for _ in range(steps):
        nodes *= k
        capacity += nodes
        if capacity >= verify_width:
            break
    if verify_width > capacity:
        return "capacity"
    if verify_width - 1 > k * max(steps - 1, 0) + 1:
        return "parent-list"
    return None


# -- _handle_uno: tree mode (0.5.20 on) -------------------------------------------------

_UNO = "--model-path Qwen/Qwen3-8B --speculative-algorithm UNO --uno-lora-path org/uno-lora --attention-backend fa3"

rule(
    code="SGL540",
    name="uno-eagle-topk-below-one",
    errors="875f340f4ed0",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps) == "topk",
    at="speculative_eagle_topk",
    message="`--speculative-algorithm UNO` needs `--speculative-eagle-topk` of at least 1, "
    "got {speculative_eagle_topk}",
    fix=remove("speculative_eagle_topk"),
    example=f"{_UNO} --speculative-num-draft-tokens 4 --speculative-eagle-topk 0",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4 --speculative-eagle-topk 1",
    note="The fix drops `--speculative-eagle-topk`: UNO then runs in linear mode (K = 1).",
)

rule(
    code="SGL541",
    name="uno-tree-num-steps-not-positive",
    errors="802d6d7c33ce",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps) == "steps",
    at="speculative_num_steps",
    message="UNO tree mode (`--speculative-eagle-topk {speculative_eagle_topk}`) needs a positive "
    "`--speculative-num-steps`, got {speculative_num_steps}",
    example=f"{_UNO} --speculative-num-draft-tokens 2 --speculative-eagle-topk 2 --speculative-num-steps 0",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 2 --speculative-eagle-topk 2 --speculative-num-steps 1",
)

rule(
    code="SGL542",
    name="uno-tree-verify-width-above-128",
    errors="8bc1cb569837",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps)
    == "above-128",
    at="speculative_num_draft_tokens",
    message="UNO tree mode supports at most 128 verify nodes: `--speculative-num-draft-tokens "
    "{speculative_num_draft_tokens}` is more",
    example=f"{_UNO} --speculative-num-draft-tokens 129 --speculative-eagle-topk 8 --speculative-num-steps 17",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 128 --speculative-eagle-topk 8 --speculative-num-steps 17",
)

rule(
    code="SGL543",
    name="uno-tree-frontier-above-2048",
    errors="e589746bd24d",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps)
    == "frontier",
    at=("speculative_eagle_topk", "speculative_num_draft_tokens"),
    message="UNO tree mode supports Q*K of at most 2048: `--speculative-num-draft-tokens "
    "{speculative_num_draft_tokens}` times `--speculative-eagle-topk {speculative_eagle_topk}` is more",
    example=f"{_UNO} --speculative-num-draft-tokens 128 --speculative-eagle-topk 17 --speculative-num-steps 17",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 128 --speculative-eagle-topk 16 --speculative-num-steps 17",
)

rule(
    code="SGL544",
    name="uno-tree-verify-width-above-capacity",
    errors="591c2646bbe2",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps)
    == "capacity",
    at="speculative_num_draft_tokens",
    message="UNO tree mode cannot build `--speculative-num-draft-tokens {speculative_num_draft_tokens}` verify "
    "nodes from `--speculative-num-steps {speculative_num_steps}` and `--speculative-eagle-topk "
    "{speculative_eagle_topk}`: the tree holds fewer",
    example=f"{_UNO} --speculative-num-draft-tokens 8 --speculative-eagle-topk 2 --speculative-num-steps 2",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4 --speculative-eagle-topk 2 --speculative-num-steps 2",
)

rule(
    code="SGL545",
    name="uno-tree-verify-width-above-parent-list",
    errors="1be2d04df167",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps)
    == "parent-list",
    at="speculative_num_draft_tokens",
    message="UNO tree mode cannot represent `--speculative-num-draft-tokens {speculative_num_draft_tokens}` in "
    "EAGLE's parent list: Q - 1 must be at most K * (F - 2) + 1 (`--speculative-eagle-topk "
    "{speculative_eagle_topk}`, `--speculative-num-steps {speculative_num_steps}`)",
    example=f"{_UNO} --speculative-num-draft-tokens 3 --speculative-eagle-topk 2 --speculative-num-steps 1",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 2 --speculative-eagle-topk 2 --speculative-num-steps 1",
)

_UNO_TREE = f"{_UNO} --speculative-num-draft-tokens 4 --speculative-eagle-topk 2 --speculative-num-steps 2"

rule(
    code="SGL546",
    name="uno-tree-with-pdmux",
    errors="40236fb206c2",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps) is None
    and cfg.enable_pdmux,
    at="enable_pdmux",
    message="UNO tree mode (`--speculative-eagle-topk {speculative_eagle_topk}`) does not support `--enable-pdmux`",
    fix=remove("enable_pdmux"),
    example=f"{_UNO_TREE} --enable-pdmux",
    near_miss=_UNO_TREE,
)

rule(
    code="SGL547",
    name="uno-tree-with-two-batch-overlap",
    errors="492fa771f396",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps) is None
    and not cfg.enable_pdmux and cfg.enable_two_batch_overlap,
    at="enable_two_batch_overlap",
    message="UNO tree mode (`--speculative-eagle-topk {speculative_eagle_topk}`) does not support "
    "`--enable-two-batch-overlap`",
    fix=remove("enable_two_batch_overlap"),
    example=f"{_UNO_TREE} --enable-two-batch-overlap",
    near_miss=_UNO_TREE,
)

rule(
    code="SGL548",
    name="uno-tree-with-accept-thresholds",
    errors="a9e51171520b",
    when=lambda cfg: _uno(cfg.speculative_algorithm, cfg.model_path, cfg.device, cfg.speculative_draft_model_path,
                          cfg.uno_lora_path, cfg.enable_deterministic_inference, cfg.enable_strict_thinking,
                          cfg.speculative_num_draft_tokens)
    and _uno_tree(cfg.speculative_num_draft_tokens, cfg.speculative_eagle_topk, cfg.speculative_num_steps) is None
    and not cfg.enable_pdmux and not cfg.enable_two_batch_overlap
    and (cfg.speculative_accept_threshold_single != 1.0 or cfg.speculative_accept_threshold_acc != 1.0),
    at=("speculative_accept_threshold_single", "speculative_accept_threshold_acc"),
    message="UNO tree mode reuses EAGLE's target-only sampling: `--speculative-accept-threshold-single` and "
    "`--speculative-accept-threshold-acc` must both be 1.0",
    fix=(remove("speculative_accept_threshold_single"), remove("speculative_accept_threshold_acc")),
    safe=True,
    example=f"{_UNO_TREE} --speculative-accept-threshold-single 0.5",
    near_miss=f"{_UNO_TREE} --speculative-accept-threshold-single 1.0",
)
