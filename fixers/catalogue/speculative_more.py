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

from autofix.rules import known, remove, rule, set_

from ._common import served
from .speculative import _algorithm, _eagle_family

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


def _attention_dp(attn_dp_size: object, dp_size: object, enable_dp_attention: object) -> object:
    """The attention-DP width SGLang resolves: `--attn-dp-size` (0.5.22 on; pass 1 where the
    release lacks it), else `--dp-size` with `--enable-dp-attention` (which 0.5.22 on reads as
    `--attn-dp-size`, and older releases turn off for `--dp-size 1`); 1 without attention DP."""
    if attn_dp_size != 1:
        return attn_dp_size
    return dp_size if enable_dp_attention else 1


def _dp_as_written(dwdp_size: object, enable_prefill_cp: object, ep_join_mode: object,
                   legacy_cp: object = False, legacy_dsa_cp: object = False) -> bool:
    """Attention DP is what the launch spells: no DWDP (it sets the width and the DP LM
    head), no prefill CP (MLA/DSA models resize CP and DP for it; 0.5.17-0.5.19 also had
    two older switches) and no EP scale joiner (whose group runs DP attention at width 1)."""
    return dwdp_size <= 1 and not enable_prefill_cp and not legacy_cp and not legacy_dsa_cp \
        and ep_join_mode != "scale"


def _lora_on(enable_lora: object, lora_paths: object) -> bool:
    """LoRA serving: `--enable-lora`, or `--lora-paths` with `--enable-lora` unset."""
    return bool(enable_lora) or (enable_lora is None and bool(lora_paths))


# The candidate steps of SGLang's default adaptive config, union over the releases
# (5 joined in 0.5.20), and the ones every release has.
_ADAPTIVE_STEPS = (0, 1, 3, 5, 7)
_ADAPTIVE_STEPS_EVERYWHERE = (0, 1, 3, 7)


def _adaptive(adaptive: object, algorithm: object, draft: object, model_path: object, aux: object,
              device: object, topk: object, attn_dp: object, dp_as_written: bool, multi_layer: object,
              two_batch_overlap: object, pdmux: object) -> bool:
    """`--speculative-adaptive` survives `_maybe_disable_adaptive`: EAGLE or EAGLE3 (NEXTN
    reads as EAGLE; a Gemma draft may promote it, and keeps this quiet), the built-in CUDA
    worker, top-k 1 or unset, no attention DP, no multi-layer EAGLE, no two-batch overlap,
    no PDMux; `--enable-return-aux-hidden-states` resets the algorithm first."""
    return (bool(adaptive) and served(model_path) and not aux and _cuda(device)
            and _eagle_family(algorithm, draft, model_path) and _algorithm(algorithm) != "STANDALONE"
            and topk in (None, 1) and attn_dp <= 1 and dp_as_written
            and not multi_layer and not two_batch_overlap and not pdmux)


def _nearest_step(steps: object) -> str:
    return str(min(_ADAPTIVE_STEPS_EVERYWHERE[1:], key=lambda c: (abs(c - steps), c)))


def _ngram_corpus_passes(corpus: object, sam_budget: object, max_tokens: object, draft_tokens: object) -> bool:
    """`_handle_ngram`'s external-corpus checks pass (SGL517-519), or there is no corpus."""
    if corpus is None:
        return True
    return sam_budget > 0 and max_tokens > 0 and sam_budget <= (12 if draft_tokens is None else draft_tokens) - 1


def _attention_backend(backend: object, prefill: object, decode: object) -> object:
    """`attention_backend` after `_attention_backend_default`: the prefill backend when the
    prefill and decode backends are set and equal; None when SGLang picks it."""
    if prefill is not None and prefill == decode:
        return prefill
    return backend


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

# -- _handle_eagle_family: STANDALONE has no DP attention ---------------------------------

_STANDALONE = ("--model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE "
               "--speculative-draft-model-path Qwen/Qwen3-0.6B --speculative-num-steps 3 "
               "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4")

rule(
    code="SGL550",
    name="standalone-speculative-with-dp-attention",
    errors="0a00dd45feca",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "STANDALONE" and served(cfg.model_path)
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False)),
    at=("enable_dp_attention", "attn_dp_size", "speculative_algorithm"),
    message="`--speculative-algorithm STANDALONE` does not support DP attention "
    "(`--enable-dp-attention`, `--attn-dp-size`)",
    example=f"{_STANDALONE} --tp-size 2 --dp-size 2 --enable-dp-attention",
    near_miss=f"{_STANDALONE} --tp-size 2 --dp-size 2",
)

# -- _handle_ngram: a draft tree on paged attention ----------------------------------------

rule(
    code="SGL551",
    name="ngram-tree-with-paged-non-flashinfer-attention",
    errors="d7ca1b6a48ab",
    # _handle_ngram sets the top-k to --speculative-ngram-max-bfs-breadth (10 by default).
    # A page size or attention backend left to SGLang is chosen from the GPU and model;
    # backends only ever raise a written page size above 1.
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "NGRAM" and served(cfg.model_path)
    and _cuda(cfg.device) and cfg.speculative_ngram_max_bfs_breadth > 1
    and _ngram_corpus_passes(cfg.speculative_ngram_external_corpus_path, cfg.speculative_ngram_external_sam_budget,
                             cfg.speculative_ngram_external_corpus_max_tokens, cfg.speculative_num_draft_tokens)
    and cfg.dllm_algorithm is None and known(cfg.page_size) > 1
    and known(_attention_backend(cfg.attention_backend, cfg.prefill_attention_backend,
                                 cfg.decode_attention_backend)) != "flashinfer",
    at=("attention_backend", "page_size"),
    message="`--speculative-algorithm NGRAM` drafts a tree (`--speculative-ngram-max-bfs-breadth "
    "{speculative_ngram_max_bfs_breadth}`), which with `--page-size {page_size}` is only supported on "
    "`--attention-backend flashinfer`",
    fix=set_("attention_backend", "flashinfer"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --page-size 16 --attention-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --page-size 16 --attention-backend flashinfer",
    note="The fix is unsafe: it changes the attention backend; `--speculative-ngram-max-bfs-breadth 1` or "
    "`--page-size 1` are the other ways out.",
)

# -- _init_adaptive_speculative_params ---------------------------------------------------------

_EAGLE3 = ("--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 "
           "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3")

rule(
    code="SGL552",
    name="adaptive-speculative-num-steps-not-a-candidate",
    errors="99617538d04b",
    when=lambda cfg: _adaptive(cfg.speculative_adaptive, cfg.speculative_algorithm, cfg.speculative_draft_model_path,
                               cfg.model_path, cfg.get("enable_return_aux_hidden_states", False), cfg.device,
                               cfg.speculative_eagle_topk,
                               _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention),
                               _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode),
                               cfg.enable_multi_layer_eagle, cfg.enable_two_batch_overlap, cfg.enable_pdmux)
    and cfg.speculative_adaptive_config is None
    and cfg.speculative_num_steps is not None and cfg.speculative_num_steps not in _ADAPTIVE_STEPS,
    at="speculative_num_steps",
    message="`--speculative-adaptive` needs `--speculative-num-steps` to be one of the adaptive config's "
    "candidate steps (0, 1, 3, 7; 5 too from 0.5.20 on), got {speculative_num_steps}",
    fix=set_("speculative_num_steps", lambda cfg: _nearest_step(cfg.speculative_num_steps)),
    example=f"{_EAGLE3} --speculative-adaptive --speculative-num-steps 2",
    near_miss=f"{_EAGLE3} --speculative-adaptive --speculative-num-steps 3",
    note="With `--speculative-adaptive-config` the candidates are that file's, and the rule stays quiet; "
    "`--speculative-num-steps 5`, refused before 0.5.20, is not reported.",
)

# -- _handle_dflash: DP attention (0.5.23) -------------------------------------------------

_DFLASH = ("--model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH "
           "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --speculative-draft-attention-backend flashinfer "
           "--speculative-num-draft-tokens 16")

rule(
    code="SGL553",
    name="dflash-dp-attention-without-dp-lm-head",
    errors="0f186f0c4a05",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and served(cfg.model_path)
    and not cfg.enable_return_aux_hidden_states and _cuda(cfg.device)
    and _attention_dp(cfg.attn_dp_size, cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode)
    and not cfg.enable_dp_lm_head,
    at=("attn_dp_size", "enable_dp_attention", "speculative_algorithm"),
    message="`--speculative-algorithm DFLASH` with DP attention requires `--enable-dp-lm-head`",
    fix=set_("enable_dp_lm_head"),
    safe=True,
    example=f"{_DFLASH} --tp-size 2 --attn-dp-size 2",
    near_miss=f"{_DFLASH} --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head",
)

rule(
    code="SGL554",
    name="dflash-dp-attention-with-context-parallel",
    errors="8478eeaabbc1",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and served(cfg.model_path)
    and not cfg.enable_return_aux_hidden_states and _cuda(cfg.device)
    and _attention_dp(cfg.attn_dp_size, cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode)
    and cfg.enable_dp_lm_head and cfg.attn_cp_size != 1,
    at="attn_cp_size",
    message="`--speculative-algorithm DFLASH` with DP attention does not support context parallelism "
    "(`--attn-cp-size {attn_cp_size}`)",
    fix=remove("attn_cp_size"),
    example=f"{_DFLASH} --tp-size 4 --attn-dp-size 2 --attn-cp-size 2 --enable-dp-lm-head",
    near_miss=f"{_DFLASH} --tp-size 4 --attn-dp-size 2 --enable-dp-lm-head",
)

# -- lora_hook.check_lora_speculative_compatibility (0.5.19 on; after the pipeline) ----------

_LORA = "--enable-lora --max-lora-rank 16 --lora-target-modules all"

rule(
    code="SGL555",
    name="lora-with-standalone-speculative-decoding",
    errors="043c11886e9e",
    # UNO refuses LoRA in its own handler first (SGL531); a Gemma-4 draft's FROZEN_KV_MTP
    # and plugin algorithms are not known here.
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "STANDALONE" and served(cfg.model_path)
    and _lora_on(cfg.enable_lora, cfg.lora_paths),
    at=("enable_lora", "lora_paths"),
    message="LoRA serving (`--enable-lora`, `--lora-paths`) is not supported with `--speculative-algorithm "
    "STANDALONE`: only NGRAM, EAGLE, NEXTN, EAGLE3, DFLASH and DSPARK",
    example=f"{_STANDALONE} {_LORA}",
    near_miss=f"{_STANDALONE} --max-lora-rank 16 --lora-target-modules all",
)

rule(
    code="SGL556",
    name="lora-with-adaptive-speculative-decoding",
    errors="a66a9318cacc",
    when=lambda cfg: _lora_on(cfg.enable_lora, cfg.lora_paths)
    and _adaptive(cfg.speculative_adaptive, cfg.speculative_algorithm, cfg.speculative_draft_model_path,
                  cfg.model_path, cfg.get("enable_return_aux_hidden_states", False), cfg.device,
                  cfg.speculative_eagle_topk,
                  _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention),
                  _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode),
                  cfg.enable_multi_layer_eagle, cfg.enable_two_batch_overlap, cfg.enable_pdmux)
    and cfg.speculative_adaptive_config is None
    and cfg.speculative_num_steps in (None, *_ADAPTIVE_STEPS_EVERYWHERE),
    at=("speculative_adaptive", "enable_lora"),
    message="LoRA serving with EAGLE speculative decoding does not support `--speculative-adaptive` "
    "(the draft is built from a static snapshot of the arguments)",
    fix=remove("speculative_adaptive"),
    example=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    f"--speculative-adaptive {_LORA}",
    near_miss=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--speculative-adaptive --max-lora-rank 16 --lora-target-modules all",
    note="Only the `--speculative-adaptive` case of this error is reported: the others depend on "
    "environment variables or on the MoE runner SGLang resolves.",
)

# -- moe_hook.validate_deepep_v2_speculative_draft (0.5.19 on; last in the pipeline) ------------

rule(
    code="SGL557",
    name="deepep-v2-speculative-moe-a2a-backend",
    errors="82a587e75af7",
    when=lambda cfg: served(cfg.model_path) and cfg.speculative_moe_a2a_backend == "deepep_v2",
    at="speculative_moe_a2a_backend",
    message="DeepEP v2 is not validated as a speculative draft MoE backend: choose another "
    "`--speculative-moe-a2a-backend` than `deepep_v2`",
    fix=set_("speculative_moe_a2a_backend", "none"),
    example=f"{_EAGLE3} --speculative-moe-a2a-backend deepep_v2",
    near_miss=f"{_EAGLE3} --speculative-moe-a2a-backend none",
    note="A draft that inherits `--moe-a2a-backend deepep_v2` (no `--speculative-moe-a2a-backend`) is "
    "refused too; the rule reports only the backend written for the draft.",
)
