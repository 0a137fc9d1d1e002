"""Catalogue rules: speculative decoding (SGLang's `speculative_hook.py`, `spec_info.py`),
and the CUDA graph and MegaMoE hooks (`cuda_graph_hook.py`, `mega_moe_hook.py`).

`handle_speculative_decoding` upper-cases `--speculative-algorithm`, reads NEXTN as
EAGLE, and promotes EAGLE/NEXTN to FROZEN_KV_MTP for a Gemma-4 assistant draft; it
then dispatches to one handler per algorithm (`_handle_eagle_family` for EAGLE,
EAGLE3, NEXTN and STANDALONE, `_handle_dflash`, `_handle_dspark`, `_handle_ngram`,
`_handle_uno`). The rules below mirror that dispatch.
"""

from __future__ import annotations

import difflib

from autofix.rules import known, remove, rule, set_

# Names `SpeculativeAlgorithm.from_string` accepts in some release (enum members and
# the NEXTN alias; UNO from 0.5.20 on). Plugins may register others, never these.
_BUILTIN_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO",
                       "FROZEN_KV_MTP", "NONE")
# The ones a launch names (what a misspelt name is read against).
_USER_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK")


def _algorithm(name: object) -> str:
    return name.upper() if isinstance(name, str) else ""


def _misspelt(name: object) -> str | None:
    """The builtin algorithm a name not known to SGLang is a misspelling of.

    A name close to no builtin may be a plugin's (`SpeculativeAlgorithm.register`):
    the rule says nothing about it."""
    upper = _algorithm(name)
    if not upper or upper in _BUILTIN_ALGORITHMS:
        return None
    squeezed = upper.replace("-", "").replace("_", "").replace(" ", "")
    if squeezed in _BUILTIN_ALGORITHMS:
        return squeezed
    close = difflib.get_close_matches(upper, _USER_ALGORITHMS, n=1, cutoff=0.75)
    return close[0] if close else None


def _eagle_family(algorithm: object, draft: object, model: object) -> bool:
    """Whether `_handle_eagle_family` validates the launch: EAGLE, EAGLE3, NEXTN or
    STANDALONE, not promoted to FROZEN_KV_MTP (a Gemma-4 assistant draft, which
    autofix recognises by name only: a Gemma draft or target keeps the rules quiet)."""
    upper = _algorithm(algorithm)
    if upper not in ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE"):
        return False
    if upper in ("EAGLE", "NEXTN") and draft is not None:
        names = f"{draft} {model}".lower()
        if "gemma" in names:
            return False
    return True


def _steps_for(cfg) -> str:  # noqa: ANN001
    draft_tokens = cfg.speculative_num_draft_tokens
    return str(draft_tokens - 1) if isinstance(draft_tokens, int) and draft_tokens > 1 else "3"


rule(
    code="SGL500",
    name="speculative-eagle-params-without-num-steps",
    errors=("679dd8f62170", "8e2a61de8332"),
    when=lambda cfg: _eagle_family(cfg.speculative_algorithm, cfg.speculative_draft_model_path, cfg.model_path)
    and "iquest" not in str(cfg.model_path).lower()
    and not cfg.speculative_adaptive
    and cfg.speculative_num_steps is None
    and (cfg.speculative_eagle_topk is not None or cfg.speculative_num_draft_tokens is not None),
    at=("speculative_eagle_topk", "speculative_num_draft_tokens"),
    message="`--speculative-eagle-topk` and `--speculative-num-draft-tokens` need `--speculative-num-steps`: "
    "without it SGLang chooses all three itself and asserts that neither is set",
    fix=set_("speculative_num_steps", _steps_for),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 "
    "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-eagle-topk 1 "
    "--speculative-num-draft-tokens 4",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 "
    "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
    note="IQuest Q1 targets (their MTP draft fills the steps in) keep the rule quiet.",
)

rule(
    code="SGL501",
    name="unknown-speculative-algorithm",
    errors="c007a27cc0ae",
    when=lambda cfg: _misspelt(cfg.speculative_algorithm) is not None,
    at="speculative_algorithm",
    message="`--speculative-algorithm {speculative_algorithm}` is not a speculative algorithm SGLang knows",
    fix=set_("speculative_algorithm", lambda cfg: _misspelt(cfg.speculative_algorithm)),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm EAGEL3 "
    "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 "
    "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3",
    note="Only a near-miss spelling of a builtin is reported: another name may be a plugin's "
    "(`SpeculativeAlgorithm.register`).",
)

rule(
    code="SGL502",
    name="dflash-without-draft-model",
    errors="6c56e4d6b2b9",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and cfg.speculative_draft_model_path is None,
    at="speculative_algorithm",
    message="`--speculative-algorithm DFLASH` needs `--speculative-draft-model-path` (the DFlash draft model)",
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-num-draft-tokens 16 "
    "--speculative-draft-attention-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH "
    "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --speculative-num-draft-tokens 16 "
    "--speculative-draft-attention-backend flashinfer",
)

# -- handle_speculative_decoding: every launch, whatever the algorithm ----------------

rule(
    code="SGL503",
    name="speculative-draft-window-size-not-positive",
    errors="f3f39ac77a90",
    when=lambda cfg: cfg.speculative_draft_window_size is not None and cfg.speculative_draft_window_size <= 0,
    at="speculative_draft_window_size",
    message="`--speculative-draft-window-size {speculative_draft_window_size}` must be positive",
    fix=remove("speculative_draft_window_size"),
    example="--model-path Qwen/Qwen3-8B --speculative-draft-window-size 0",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-draft-window-size 1024",
)

rule(
    code="SGL504",
    name="speculative-draft-sink-size-negative",
    errors="c3304ad3b9ba",
    when=lambda cfg: cfg.speculative_draft_sink_size is not None and cfg.speculative_draft_sink_size < 0,
    at="speculative_draft_sink_size",
    message="`--speculative-draft-sink-size {speculative_draft_sink_size}` must not be negative",
    fix=remove("speculative_draft_sink_size"),
    example="--model-path Qwen/Qwen3-8B --speculative-draft-window-size 1024 --speculative-draft-sink-size -1",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-draft-window-size 1024 --speculative-draft-sink-size 4",
)

rule(
    code="SGL505",
    name="speculative-draft-sink-size-without-window-size",
    errors="5aa4cf4ddbe1",
    when=lambda cfg: cfg.speculative_draft_sink_size is not None and cfg.speculative_draft_sink_size >= 0
    and cfg.speculative_draft_window_size is None,
    at="speculative_draft_sink_size",
    message="`--speculative-draft-sink-size` needs `--speculative-draft-window-size`",
    fix=remove("speculative_draft_sink_size"),
    example="--model-path Qwen/Qwen3-8B --speculative-draft-sink-size 4",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-draft-window-size 1024 --speculative-draft-sink-size 4",
)

rule(
    code="SGL506",
    name="block-verification-with-unsupported-speculative-algorithm",
    errors="c46ea7d96e6c",
    when=lambda cfg: cfg.speculative_use_block_verification
    and _algorithm(cfg.speculative_algorithm) not in ("EAGLE", "EAGLE3", "NEXTN", "DFLASH", "DSPARK"),
    at="speculative_use_block_verification",
    message="`--speculative-use-block-verification` supports only `--speculative-algorithm` "
    "EAGLE, EAGLE3, NEXTN, DFLASH or DSPARK",
    fix=remove("speculative_use_block_verification"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --speculative-use-block-verification",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM",
)

rule(
    code="SGL507",
    name="disaggregation-decode-radix-cache-with-speculative-algorithm",
    errors="f7c70a8fdf86",
    when=lambda cfg: cfg.disaggregation_mode == "decode" and cfg.disaggregation_decode_enable_radix_cache
    and cfg.speculative_algorithm is not None
    and _algorithm(cfg.speculative_algorithm) not in ("DSPARK", "EAGLE", "EAGLE3", "NEXTN"),
    at="disaggregation_decode_enable_radix_cache",
    message="`--disaggregation-decode-enable-radix-cache` cannot be used with "
    "`--speculative-algorithm {speculative_algorithm}` (only EAGLE, EAGLE3, NEXTN and DSPARK)",
    fix=remove("disaggregation_decode_enable_radix_cache"),
    example="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-decode-enable-radix-cache "
    "--speculative-algorithm NGRAM",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode decode --speculative-algorithm NGRAM",
)

rule(
    code="SGL508",
    name="speculative-skip-dp-mlp-sync-without-eagle",
    errors="f4deddecf993",
    when=lambda cfg: cfg.speculative_skip_dp_mlp_sync
    and _algorithm(cfg.speculative_algorithm) not in ("EAGLE", "NEXTN"),
    at="speculative_skip_dp_mlp_sync",
    message="`--speculative-skip-dp-mlp-sync` is only supported with `--speculative-algorithm EAGLE` (or NEXTN)",
    fix=remove("speculative_skip_dp_mlp_sync"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --speculative-skip-dp-mlp-sync",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM",
)

# -- _handle_dflash ------------------------------------------------------------------

_DFLASH = ("--model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH "
           "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --speculative-draft-attention-backend flashinfer")

rule(
    code="SGL509",
    name="dflash-with-pipeline-parallelism",
    errors="f271ea32fd7e",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and cfg.pp_size != 1,
    at="pp_size",
    message="`--speculative-algorithm DFLASH` supports only `--pp-size 1`",
    fix=remove("pp_size"),
    example=f"{_DFLASH} --speculative-num-draft-tokens 16 --pp-size 2",
    near_miss=f"{_DFLASH} --speculative-num-draft-tokens 16",
)

rule(
    code="SGL510",
    name="dflash-block-size-not-positive",
    errors="818feeb79278",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and cfg.speculative_draft_model_path is not None
    and cfg.speculative_dflash_block_size is not None and cfg.speculative_dflash_block_size <= 0,
    at="speculative_dflash_block_size",
    message="`--speculative-dflash-block-size {speculative_dflash_block_size}` must be positive",
    fix=remove("speculative_dflash_block_size"),
    example=f"{_DFLASH} --speculative-num-draft-tokens 16 --speculative-dflash-block-size 0",
    near_miss=f"{_DFLASH} --speculative-num-draft-tokens 16 --speculative-dflash-block-size 16",
)

rule(
    code="SGL511",
    name="dflash-block-size-differs-from-num-draft-tokens",
    errors="7d00662ac496",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and cfg.speculative_draft_model_path is not None
    and cfg.speculative_dflash_block_size is not None and cfg.speculative_dflash_block_size > 0
    and cfg.speculative_num_draft_tokens is not None
    and cfg.speculative_num_draft_tokens != cfg.speculative_dflash_block_size,
    at="speculative_num_draft_tokens",
    message="for DFLASH, `--speculative-num-draft-tokens {speculative_num_draft_tokens}` must equal "
    "`--speculative-dflash-block-size {speculative_dflash_block_size}`",
    fix=remove("speculative_num_draft_tokens"),
    example=f"{_DFLASH} --speculative-num-draft-tokens 8 --speculative-dflash-block-size 16",
    near_miss=f"{_DFLASH} --speculative-num-draft-tokens 16 --speculative-dflash-block-size 16",
)

rule(
    code="SGL512",
    name="dflash-draft-window-smaller-than-block-size",
    errors="488e62eca685",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and cfg.speculative_draft_model_path is not None
    and cfg.speculative_draft_window_size is not None and cfg.speculative_draft_window_size > 0
    and (cfg.speculative_dflash_block_size is None or cfg.speculative_dflash_block_size > 0)
    and cfg.speculative_draft_window_size < known(
        cfg.speculative_dflash_block_size if cfg.speculative_dflash_block_size is not None
        else cfg.speculative_num_draft_tokens),
    at="speculative_draft_window_size",
    message="for DFLASH, `--speculative-draft-window-size {speculative_draft_window_size}` must be at least "
    "the block size (`--speculative-num-draft-tokens`)",
    fix=remove("speculative_draft_window_size"),
    example=f"{_DFLASH} --speculative-num-draft-tokens 16 --speculative-draft-window-size 8",
    near_miss=f"{_DFLASH} --speculative-num-draft-tokens 16 --speculative-draft-window-size 16",
    note="Without `--speculative-num-draft-tokens` or `--speculative-dflash-block-size` the block size comes from "
    "the draft model's config, and the rule stays quiet.",
)

# -- _handle_eagle_family: rejection sampling ----------------------------------------

_EAGLE3 = ("--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 "
           "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3")

rule(
    code="SGL513",
    name="rejection-sampling-with-standalone-speculative-decoding",
    errors="1b1fe6a13a4b",
    when=lambda cfg: cfg.speculative_use_rejection_sampling and _algorithm(cfg.speculative_algorithm) == "STANDALONE",
    at="speculative_use_rejection_sampling",
    message="`--speculative-use-rejection-sampling` is only supported for EAGLE, EAGLE3 and NEXTN, "
    "not `--speculative-algorithm STANDALONE`",
    fix=remove("speculative_use_rejection_sampling"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE --speculative-draft-model-path Qwen/Qwen3-0.6B "
    "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--speculative-use-rejection-sampling",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE --speculative-draft-model-path Qwen/Qwen3-0.6B "
    "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
)

rule(
    code="SGL514",
    name="rejection-sampling-with-eagle-topk-above-one",
    errors="63e1ad49aa1b",
    when=lambda cfg: cfg.speculative_use_rejection_sampling
    and _eagle_family(cfg.speculative_algorithm, cfg.speculative_draft_model_path, cfg.model_path)
    and _algorithm(cfg.speculative_algorithm) != "STANDALONE"
    and cfg.speculative_num_steps is not None
    and cfg.speculative_eagle_topk is not None and cfg.speculative_eagle_topk != 1,
    at="speculative_eagle_topk",
    message="`--speculative-use-rejection-sampling` requires `--speculative-eagle-topk 1`",
    fix=set_("speculative_eagle_topk", "1"),
    safe=True,
    example=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8 "
    "--attention-backend flashinfer --speculative-use-rejection-sampling",
    near_miss=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--attention-backend flashinfer --speculative-use-rejection-sampling",
)

rule(
    code="SGL515",
    name="rejection-sampling-with-accept-thresholds",
    errors="b9db0d97a842",
    when=lambda cfg: cfg.speculative_use_rejection_sampling
    and _eagle_family(cfg.speculative_algorithm, cfg.speculative_draft_model_path, cfg.model_path)
    and (cfg.speculative_accept_threshold_single != 1.0 or cfg.speculative_accept_threshold_acc != 1.0),
    at=("speculative_accept_threshold_single", "speculative_accept_threshold_acc"),
    message="`--speculative-use-rejection-sampling` ignores the accept thresholds and cannot be used with "
    "`--speculative-accept-threshold-single` / `--speculative-accept-threshold-acc`",
    fix=remove("speculative_use_rejection_sampling"),
    example=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--speculative-use-rejection-sampling --speculative-accept-threshold-single 0.5",
    near_miss=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--speculative-use-rejection-sampling",
)

rule(
    code="SGL516",
    name="rejection-sampling-with-deterministic-inference",
    errors="c6cf1516becb",
    when=lambda cfg: cfg.speculative_use_rejection_sampling and cfg.enable_deterministic_inference
    and _eagle_family(cfg.speculative_algorithm, cfg.speculative_draft_model_path, cfg.model_path),
    at="speculative_use_rejection_sampling",
    message="`--speculative-use-rejection-sampling` cannot be used with `--enable-deterministic-inference`",
    fix=remove("speculative_use_rejection_sampling"),
    example=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--attention-backend flashinfer --speculative-use-rejection-sampling --enable-deterministic-inference",
    near_miss=f"{_EAGLE3} --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--attention-backend flashinfer --enable-deterministic-inference",
)

# -- _handle_ngram: the external SAM corpus ------------------------------------------

_NGRAM = "--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --speculative-ngram-external-corpus-path corpus.jsonl"

rule(
    code="SGL517",
    name="ngram-external-corpus-without-sam-budget",
    errors="ed509c322f79",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "NGRAM"
    and cfg.speculative_ngram_external_corpus_path is not None and cfg.speculative_ngram_external_sam_budget <= 0,
    at=("speculative_ngram_external_sam_budget", "speculative_ngram_external_corpus_path"),
    message="`--speculative-ngram-external-corpus-path` needs a positive `--speculative-ngram-external-sam-budget` "
    "(it is {speculative_ngram_external_sam_budget})",
    example=_NGRAM,
    near_miss=f"{_NGRAM} --speculative-ngram-external-sam-budget 4",
)

rule(
    code="SGL518",
    name="ngram-external-corpus-max-tokens-not-positive",
    errors="afbd76e556c6",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "NGRAM"
    and cfg.speculative_ngram_external_corpus_path is not None and cfg.speculative_ngram_external_sam_budget > 0
    and cfg.speculative_ngram_external_corpus_max_tokens <= 0,
    at="speculative_ngram_external_corpus_max_tokens",
    message="`--speculative-ngram-external-corpus-max-tokens {speculative_ngram_external_corpus_max_tokens}` "
    "must be positive when `--speculative-ngram-external-corpus-path` is set",
    fix=remove("speculative_ngram_external_corpus_max_tokens"),
    example=f"{_NGRAM} --speculative-ngram-external-sam-budget 4 --speculative-ngram-external-corpus-max-tokens 0",
    near_miss=f"{_NGRAM} --speculative-ngram-external-sam-budget 4 --speculative-ngram-external-corpus-max-tokens 1000",
)

rule(
    code="SGL519",
    name="ngram-sam-budget-above-num-draft-tokens",
    errors="a81311f57e6e",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "NGRAM"
    and cfg.speculative_ngram_external_corpus_path is not None and cfg.speculative_ngram_external_sam_budget > 0
    and cfg.speculative_ngram_external_corpus_max_tokens > 0
    and cfg.speculative_ngram_external_sam_budget > (
        12 if cfg.speculative_num_draft_tokens is None else cfg.speculative_num_draft_tokens) - 1,
    at="speculative_ngram_external_sam_budget",
    message="`--speculative-ngram-external-sam-budget {speculative_ngram_external_sam_budget}` must be at most "
    "`--speculative-num-draft-tokens` - 1 (12 - 1 when unset)",
    example=f"{_NGRAM} --speculative-num-draft-tokens 8 --speculative-ngram-external-sam-budget 8",
    near_miss=f"{_NGRAM} --speculative-num-draft-tokens 8 --speculative-ngram-external-sam-budget 7",
)

# -- _handle_uno (0.5.20 on) -------------------------------------------------------------

_UNO = "--model-path Qwen/Qwen3-8B --speculative-algorithm UNO --uno-lora-path org/uno-lora --attention-backend fa3"

rule(
    code="SGL523",
    name="uno-with-draft-model",
    errors="6f39aee9a019",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and cfg.speculative_draft_model_path is not None,
    at="speculative_draft_model_path",
    message="`--speculative-algorithm UNO` reuses the target model and does not accept "
    "`--speculative-draft-model-path`",
    fix=remove("speculative_draft_model_path"),
    safe=True,
    example=f"{_UNO} --speculative-num-draft-tokens 4 --speculative-draft-model-path Qwen/Qwen3-0.6B",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4",
)

rule(
    code="SGL524",
    name="uno-without-lora-path",
    errors="af2ccc1a2b0e",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and cfg.speculative_draft_model_path is None
    and cfg.uno_lora_path is None,
    at="speculative_algorithm",
    message="`--speculative-algorithm UNO` needs `--uno-lora-path`",
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm UNO --attention-backend fa3 "
    "--speculative-num-draft-tokens 4",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4",
)

rule(
    code="SGL525",
    name="uno-with-deterministic-inference",
    errors="24f63278966d",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and cfg.enable_deterministic_inference,
    at="enable_deterministic_inference",
    message="`--speculative-algorithm UNO` does not support `--enable-deterministic-inference` "
    "(its sampling does not use per-request seeds)",
    fix=remove("enable_deterministic_inference"),
    example=f"{_UNO} --speculative-num-draft-tokens 4 --enable-deterministic-inference",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4",
)

rule(
    code="SGL526",
    name="uno-with-strict-thinking",
    errors="badbd87d09d4",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and cfg.enable_strict_thinking,
    at="enable_strict_thinking",
    message="`--speculative-algorithm UNO` does not support `--enable-strict-thinking` (it needs grammar decoding)",
    fix=remove("enable_strict_thinking"),
    example=f"{_UNO} --speculative-num-draft-tokens 4 --enable-strict-thinking",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4",
)

rule(
    code="SGL527",
    name="uno-without-num-draft-tokens",
    errors="8f233276becb",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO"
    and (cfg.speculative_num_draft_tokens is None or cfg.speculative_num_draft_tokens < 1),
    at=("speculative_num_draft_tokens", "speculative_algorithm"),
    message="`--speculative-algorithm UNO` needs a positive `--speculative-num-draft-tokens` "
    "(the linear width or tree verify width Q)",
    example=_UNO,
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4",
)

rule(
    code="SGL528",
    name="uno-tree-without-num-steps",
    errors="1da3dccdf2aa",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO"
    and cfg.speculative_eagle_topk is not None and cfg.speculative_eagle_topk > 1
    and cfg.speculative_num_steps is None,
    at="speculative_eagle_topk",
    message="UNO tree mode (`--speculative-eagle-topk {speculative_eagle_topk}`) needs `--speculative-num-steps`",
    example=f"{_UNO} --speculative-num-draft-tokens 8 --speculative-eagle-topk 2",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 8 --speculative-eagle-topk 2 --speculative-num-steps 4",
)

rule(
    code="SGL529",
    name="uno-tree-verify-width-below-draft-width",
    errors="3b104e03f8a8",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO"
    and cfg.speculative_eagle_topk is not None and cfg.speculative_eagle_topk > 1
    and cfg.speculative_num_steps is not None and cfg.speculative_num_steps >= 1
    and cfg.speculative_num_draft_tokens is not None and cfg.speculative_num_draft_tokens >= 1
    and cfg.speculative_num_draft_tokens < cfg.speculative_num_steps + 1,
    at="speculative_num_draft_tokens",
    message="UNO tree mode needs `--speculative-num-draft-tokens` (Q = {speculative_num_draft_tokens}) of at least "
    "`--speculative-num-steps` + 1 (F)",
    example=f"{_UNO} --speculative-num-draft-tokens 3 --speculative-eagle-topk 2 --speculative-num-steps 4",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 8 --speculative-eagle-topk 2 --speculative-num-steps 4",
)

rule(
    code="SGL530",
    name="uno-with-tensor-or-pipeline-parallelism",
    errors="1ce4b404c887",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and (cfg.tp_size, cfg.pp_size) != (1, 1),
    at=("tp_size", "pp_size"),
    message="`--speculative-algorithm UNO` requires `--tp-size 1` and `--pp-size 1`",
    example=f"{_UNO} --speculative-num-draft-tokens 4 --tp-size 2",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4 --tp-size 1",
)

rule(
    code="SGL531",
    name="uno-with-lora",
    errors="3b79f68ebfba",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and (cfg.enable_lora or cfg.lora_paths),
    at=("enable_lora", "lora_paths"),
    message="`--speculative-algorithm UNO` does not support multi-LoRA serving (`--enable-lora`, `--lora-paths`)",
    example=f"{_UNO} --speculative-num-draft-tokens 4 --enable-lora --max-lora-rank 16 --lora-target-modules all",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4 --max-lora-rank 16 --lora-target-modules all",
)

rule(
    code="SGL532",
    name="uno-with-rejection-sampling",
    errors="f09d0f6a624e",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and cfg.speculative_use_rejection_sampling,
    at="speculative_use_rejection_sampling",
    message="`--speculative-algorithm UNO` manages its own stochastic verification and does not use "
    "`--speculative-use-rejection-sampling`",
    fix=remove("speculative_use_rejection_sampling"),
    safe=True,
    example=f"{_UNO} --speculative-num-draft-tokens 4 --speculative-use-rejection-sampling",
    near_miss=f"{_UNO} --speculative-num-draft-tokens 4",
)

# -- mega_moe_hook.check_mega_moe_compat (0.5.21 on) -------------------------------------

rule(
    code="SGL533",
    name="megamoe-with-batch-overlap",
    errors="244ab370abfa",
    when=lambda cfg: (cfg.moe_a2a_backend == "megamoe" or cfg.moe_runner_backend == "megamoe")
    and (cfg.enable_two_batch_overlap or cfg.enable_single_batch_overlap),
    at=("enable_two_batch_overlap", "enable_single_batch_overlap"),
    message="`--moe-a2a-backend megamoe` has no two-batch / single-batch overlap: it cannot be used with "
    "`--enable-two-batch-overlap` or `--enable-single-batch-overlap`",
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-a2a-backend megamoe --enable-two-batch-overlap",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-a2a-backend megamoe",
    note="`--moe-runner-backend megamoe` is read as `--moe-a2a-backend megamoe`.",
)
