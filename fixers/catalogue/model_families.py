"""Catalogue rules of SGLang's per-model-family checks: `handle_model_specific_adjustments` and
`handle_language_model_only` (arg_groups/model_hook.py; ServerArgs methods of the same names up to
0.5.18), and the family override providers of arg_groups/model_overrides/.

Each reads the served model's config.json facts (`cfg.model.facts`, autofix.knowledge.modelfacts)
as SGLang reads them, and stays quiet when a fact is unknown.
"""

from __future__ import annotations

from autofix.knowledge.modelfacts import dsa
from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import model_fact as _fact, served


def _dsa(cfg) -> bool:  # noqa: ANN001
    """`is_deepseek_dsa(hf_config)`: the model is a DeepSeek Sparse Attention checkpoint."""
    found = dsa(cfg.model.facts)
    if found is None:
        raise Unresolvable("whether the model is DSA is not known")
    return found


# -- handle_model_specific_adjustments: flags one model family serves --------------------

rule(
    code="SGL1020",
    name="dsa-cache-layer-split-on-non-dsa-model",
    errors="fd1599889187",
    when=lambda cfg: cfg.enable_dsa_cache_layer_split and not _dsa(cfg) and served(cfg.model_path),
    at="enable_dsa_cache_layer_split",
    message="`--enable-dsa-cache-layer-split` serves only DeepSeek Sparse Attention (DSA) models, and this "
    "model is not one",
    fix=remove("enable_dsa_cache_layer_split"),
    example="--model-path Qwen/Qwen3-8B --enable-dsa-cache-layer-split",
    near_miss="--model-path Qwen/Qwen3-8B --enable-hierarchical-cache",
    note="SGLang's `is_deepseek_dsa` takes a DeepSeek-V3.2-family architecture whose config.json has "
    "`index_topk`.",
)

# `layers/cp/cp_decode_attn_tp.py: CP_DECODE_ATTN_TP_SUPPORTED_ARCHS`, the same in 0.5.17 to 0.5.23.
_CP_DECODE_ATTN_TP_ARCHS = frozenset({
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
})

rule(
    code="SGL1021",
    name="cp-decode-attn-tp-on-unsupported-model",
    errors="d55613cfe7de",
    when=lambda cfg: cfg.enable_cp_decode_attn_tp and _fact(cfg, "architecture") not in _CP_DECODE_ATTN_TP_ARCHS
    and served(cfg.model_path),
    at="enable_cp_decode_attn_tp",
    message=lambda cfg: "`--enable-cp-decode-attn-tp` serves only "
    + ", ".join(f"`{a}`" for a in sorted(_CP_DECODE_ATTN_TP_ARCHS))
    + f"; this model is `{_fact(cfg, 'architecture')}`",
    fix=remove("enable_cp_decode_attn_tp"),
    example="--model-path Qwen/Qwen3-8B --enable-cp-decode-attn-tp",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2",
)


# -- handle_language_model_only -----------------------------------------------------------

def _language_model_only_alone(cfg) -> bool:  # noqa: ANN001
    """`--language-model-only` with none of the flags its first check refuses beside it."""
    return cfg.language_model_only and not (
        cfg.encoder_only or cfg.language_only or cfg.enable_prefix_mm_cache
        or cfg.enable_broadcast_mm_inputs_process or cfg.mm_enable_dp_encoder)


# LANGUAGE_MODEL_ONLY_ARCHITECTURES of every release that has the check (0.5.18 to 0.5.23): the
# list only grew, so a model none of them names is refused in each.
_LANGUAGE_MODEL_ONLY_ARCHS = frozenset({
    "DeepseekV4ForCausalLM", "MuseGlimmerForConditionalGeneration", "Cosmos3ForConditionalGeneration",
    "Cosmos3EdgeForConditionalGeneration",
})

rule(
    code="SGL1022",
    name="language-model-only-with-pd-disaggregation",
    errors="9812b985e423",
    when=lambda cfg: _language_model_only_alone(cfg) and cfg.disaggregation_mode != "null"
    and _fact(cfg, "model_type") != "deepseek_v41" and served(cfg.model_path),
    at=("language_model_only", "disaggregation_mode"),
    message="`--language-model-only` cannot serve a PD-disaggregated worker "
    "(`--disaggregation-mode {disaggregation_mode}`)",
    fix=remove("language_model_only"),
    example="--model-path Qwen/Qwen3-8B --language-model-only --disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill",
    note="From 0.5.22 on, DeepSeek-V4.1 checkpoints (`model_type` `deepseek_v41`) are let through.",
)

rule(
    code="SGL1023",
    name="language-model-only-on-unsupported-model",
    errors="f011d9e427b2",
    when=lambda cfg: _language_model_only_alone(cfg) and cfg.disaggregation_mode == "null"
    and not set(_fact(cfg, "architectures")) & _LANGUAGE_MODEL_ONLY_ARCHS and served(cfg.model_path),
    at="language_model_only",
    message=lambda cfg: "`--language-model-only` serves only "
    + ", ".join(f"`{a}`" for a in sorted(_LANGUAGE_MODEL_ONLY_ARCHS))
    + f" models; this model is `{_fact(cfg, 'architecture')}`",
    fix=remove("language_model_only"),
    example="--model-path Qwen/Qwen3-8B --language-model-only",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2",
    note="Older releases list fewer architectures; a model none of them names is refused in every release.",
)
