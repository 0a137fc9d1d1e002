"""Catalogue rules of SGLang's resolution hooks that read the served model or sit in its
model-aware modules: `mamba_hook.py`, `layernorm_sp_hook.py`, `hisparse_hook.py`,
`hicache_hook.py`, `parallel_hook.py` (shared-experts TP), `pd_disaggregation_hook.py`
(encoder disaggregation), `attention_hook.py` (deterministic inference), `kv_cache_hook.py`
(unified memory), `configs/model_config.py` (`ModelConfig`'s own checks at start) and the model
runner's `spec_aux_hidden_state.py` (capture layers against the model's depth).

Rules that name the model read `cfg.model` (its architecture from the model's config.json, its
attention kind from SGLang's own table) and stay quiet when it is unknown. Where SGLang's list of
architectures changes between releases, a rule keeps to what every release of its range refuses.
"""

from __future__ import annotations

from autofix.knowledge.releases import parse_release
from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served


def _architecture(cfg) -> str:  # noqa: ANN001 (it reads the model, not a flag)
    """The served model's architectures[0], as SGLang reads it from config.json; unknown otherwise."""
    architecture = cfg.model.architecture
    if architecture is None:
        raise Unresolvable("the model's architecture is not known")
    return architecture


def _mla(cfg) -> bool:  # noqa: ANN001
    """Whether SGLang serves the model with an MLA backend (`use_mla_backend`); unknown otherwise."""
    if cfg.model.mla is None:
        raise Unresolvable("the model's attention kind is not known")
    return cfg.model.mla


def _not_instance(model_path: object) -> bool:
    """The model is not loaded through an instance connector (`instance://...`), which these checks
    treat apart (parse_connector_type)."""
    return not str(model_path).startswith("instance://")


def _release(cfg) -> tuple[int, ...]:  # noqa: ANN001
    return parse_release(cfg._launch.table.release) or (0, 0, 0)


# -- handle_mamba_backend / handle_int8_mamba_checkpoint: plain flag checks --------------------
# They run for every model, before anything resolves the Mamba options they read.

rule(
    code="SGL1100",
    name="negative-mamba-cache-philox-rounds",
    errors="40523991b223",
    when=lambda cfg: cfg.mamba_cache_philox_rounds < 0,
    at="mamba_cache_philox_rounds",
    message="`--mamba-cache-philox-rounds {mamba_cache_philox_rounds}` must be non-negative",
    fix=remove("mamba_cache_philox_rounds"),
    example="--model-path Qwen/Qwen3-8B --mamba-cache-philox-rounds -1",
    near_miss="--model-path Qwen/Qwen3-8B --mamba-cache-philox-rounds 0",
)

rule(
    code="SGL1101",
    name="invalid-mamba-max-states-per-path",
    errors="faded145fe4b",
    when=lambda cfg: cfg.mamba_max_states_per_path == 0 or cfg.mamba_max_states_per_path < -1,
    at="mamba_max_states_per_path",
    message="`--mamba-max-states-per-path {mamba_max_states_per_path}` must be -1 (unlimited) or positive",
    fix=remove("mamba_max_states_per_path"),
    example="--model-path Qwen/Qwen3-8B --mamba-max-states-per-path 0",
    near_miss="--model-path Qwen/Qwen3-8B --mamba-max-states-per-path 4",
)

rule(
    code="SGL1102",
    name="mamba-stochastic-rounding-without-float16-ssm",
    errors="d83ed29e163c",
    # An unset --mamba-ssm-dtype is still None here: the linear-attention handler fills it later.
    when=lambda cfg: cfg.enable_mamba_cache_stochastic_rounding and cfg.mamba_ssm_dtype != "float16",
    at=("mamba_ssm_dtype", "enable_mamba_cache_stochastic_rounding"),
    message="`--enable-mamba-cache-stochastic-rounding` needs `--mamba-ssm-dtype float16`",
    fix=set_("mamba_ssm_dtype", "float16"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --enable-mamba-cache-stochastic-rounding --mamba-ssm-dtype bfloat16",
    near_miss="--model-path Qwen/Qwen3-8B --enable-mamba-cache-stochastic-rounding --mamba-ssm-dtype float16",
)

rule(
    code="SGL1103",
    name="int8-mamba-checkpoint-with-hierarchical-cache",
    errors="2a4628ae9f62",
    when=lambda cfg: cfg.enable_int8_mamba_checkpoint and cfg.enable_hierarchical_cache,
    at=("enable_int8_mamba_checkpoint", "enable_hierarchical_cache"),
    message="`--enable-int8-mamba-checkpoint` is not supported with `--enable-hierarchical-cache` "
    "(the host-offload path is not int8-aware)",
    fix=remove("enable_int8_mamba_checkpoint"),
    example="--model-path Qwen/Qwen3-8B --enable-int8-mamba-checkpoint --enable-hierarchical-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-int8-mamba-checkpoint",
)

rule(
    code="SGL1104",
    name="int8-mamba-checkpoint-with-radix-cache-backend",
    errors="e2b7f5877732",
    when=lambda cfg: cfg.enable_int8_mamba_checkpoint and not cfg.enable_hierarchical_cache
    and cfg.radix_cache_backend is not None,
    at=("radix_cache_backend", "enable_int8_mamba_checkpoint"),
    message="`--enable-int8-mamba-checkpoint` supports only the built-in Mamba radix cache, "
    "not `--radix-cache-backend {radix_cache_backend}`",
    fix=remove("radix_cache_backend"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --enable-int8-mamba-checkpoint --radix-cache-backend custom",
    near_miss="--model-path Qwen/Qwen3-8B --radix-cache-backend custom",
)

rule(
    code="SGL1105",
    name="int8-mamba-checkpoint-with-lmcache",
    errors="46f03811bec5",
    when=lambda cfg: cfg.enable_int8_mamba_checkpoint and not cfg.enable_hierarchical_cache
    and cfg.radix_cache_backend is None and cfg.enable_lmcache,
    at=("enable_lmcache", "enable_int8_mamba_checkpoint"),
    message="`--enable-int8-mamba-checkpoint` is not supported with `--enable-lmcache` (LMCache is not int8-aware)",
    fix=remove("enable_int8_mamba_checkpoint"),
    example="--model-path Qwen/Qwen3-8B --enable-int8-mamba-checkpoint --enable-lmcache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache",
)


# -- handle_layernorm_sp / validate_layernorm_sp ------------------------------------------------

# SP_SUPPORTED_ARCHITECTURES (layers/layernorm_sp.py): Qwen3 from 0.5.19, Muse Spark from 0.5.23.
_MUSE_SPARK = "MuseSparkForConditionalGeneration"


def _sp_supported(cfg) -> frozenset[str]:  # noqa: ANN001
    return frozenset({"Qwen3ForCausalLM", *((_MUSE_SPARK,) if _release(cfg) >= (0, 5, 23) else ())})


rule(
    code="SGL1106",
    name="layernorm-sp-on-unsupported-architecture",
    errors="8bab2a481ca8",
    when=lambda cfg: cfg.enable_layernorm_sp and not cfg.get("enable_megamoe_for_layernorm_sp", False)
    and _architecture(cfg) not in _sp_supported(cfg) and served(cfg.model_path),
    at="enable_layernorm_sp",
    message=lambda cfg: f"`--enable-layernorm-sp` supports only {', '.join(sorted(_sp_supported(cfg)))}; "
    f"this model is {_architecture(cfg)}",
    fix=remove("enable_layernorm_sp"),
    example="--model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 2 --enable-layernorm-sp",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-layernorm-sp",
)

rule(
    code="SGL1107",
    name="layernorm-sp-megamoe-on-non-muse-spark",
    errors="c328e065fbb1",
    when=lambda cfg: cfg.enable_layernorm_sp and cfg.enable_megamoe_for_layernorm_sp
    and _architecture(cfg) != _MUSE_SPARK and served(cfg.model_path),
    at="enable_megamoe_for_layernorm_sp",
    message="`--enable-megamoe-for-layernorm-sp` supports only Muse Spark",
    fix=remove("enable_megamoe_for_layernorm_sp"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-layernorm-sp --enable-megamoe-for-layernorm-sp",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-layernorm-sp",
)


# -- validate_hisparse: DSA, DeepSeek-V4 and MiniMax-M3 sparse models only ------------------------

# Every architecture some release's is_deepseek_dsa, is_deepseek_v4 or is_minimax_sparse names
# (configs/model_config.py): the rule stays quiet on them (DSA also needs the config's index_topk).
_SPARSE_ATTENTION = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "Glm5NextForConditionalGenerationNextN", "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration",
})

rule(
    code="SGL1108",
    name="hisparse-on-non-sparse-attention-model",
    errors="f89b51eb9071",
    when=lambda cfg: cfg.enable_hisparse and _architecture(cfg) not in _SPARSE_ATTENTION and served(cfg.model_path),
    at="enable_hisparse",
    message=lambda cfg: "`--enable-hisparse` supports only DSA (DeepSeek-V3.2, GLM-5), DeepSeek-V4 and MiniMax-M3 "
    f"sparse models; this model is {_architecture(cfg)}",
    fix=remove("enable_hisparse"),
    example="--model-path Qwen/Qwen3-8B --enable-hisparse --disable-radix-cache",
    near_miss="--model-path Qwen/Qwen3-8B --disable-radix-cache",
)


# -- resolve_hicache_dcp_compatibility: HiCache's DCP index translation is MLA-only ---------------

rule(
    code="SGL1109",
    name="hicache-with-dcp-on-non-mla-model",
    errors="198a6209c21d",
    # Storage backends and speculative decoding are refused earlier (differently across releases).
    when=lambda cfg: cfg.dcp_size > 1 and cfg.enable_hierarchical_cache and cfg.hicache_storage_backend is None
    and cfg.speculative_algorithm is None and not cfg.enable_lmcache and not cfg.enable_hisparse
    and not _mla(cfg) and served(cfg.model_path),
    at=("dcp_size", "enable_hierarchical_cache"),
    message="HiCache with `--dcp-size {dcp_size}` is supported only for MLA models, and this model is not one",
    fix=remove("dcp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dcp-size 2 --enable-hierarchical-cache --hicache-ratio 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-hierarchical-cache --hicache-ratio 2",
)


# -- handle_shared_experts_tp: a Kimi-K3 option ---------------------------------------------------

# Flags that split the attention TP group (attention DP or CP); attn_dp_size is new in 0.5.22.
_ATTENTION_SPLIT = ("attn_cp_size", "attn_dp_size", "dp_size", "enable_dp_attention", "enable_prefill_cp")


def _splits_attention(cfg) -> bool:  # noqa: ANN001 (it asks which of several flags are written)
    return any(cfg.written(dest) for dest in _ATTENTION_SPLIT if cfg.has(dest))


def _divides_attention_tp(size: int, tp_size: int, attention_split: bool) -> bool:
    """size divides the attention TP width (tp_size // attn_dp_size // attn_cp_size): always for 1,
    else for a divisor of tp_size where no flag splits the attention group."""
    return size == 1 or (size > 1 and not attention_split and tp_size % size == 0)


rule(
    code="SGL1110",
    name="shared-experts-tp-size-on-non-kimi-k3",
    errors="c5f4890c3115",
    when=lambda cfg: cfg.shared_experts_tp_size is not None and _divides_attention_tp(
        cfg.shared_experts_tp_size, cfg.tp_size, _splits_attention(cfg))
    and _architecture(cfg) != "KimiK3ForConditionalGeneration" and _not_instance(cfg.model_path)
    and served(cfg.model_path),
    at="shared_experts_tp_size",
    message="`--shared-experts-tp-size` is supported only for Kimi-K3",
    fix=remove("shared_experts_tp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --shared-experts-tp-size 1",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2",
)


# -- handle_encoder_disaggregation: the architectures an encoder/language split serves ------------

_ENCODER_DISAGGREGATION = frozenset({
    "Qwen2VLForConditionalGeneration", "Qwen3VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "Qwen3OmniMoeForConditionalGeneration",
    "Qwen2AudioForConditionalGeneration", "Qwen2_5OmniForConditionalGeneration", "Dots3NoteForCausalLM",
    "KimiVLForConditionalGeneration", "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "MiMoV2ForCausalLM", "Glm5NextForConditionalGeneration", "MiniMaxM3SparseForConditionalGeneration",
    "MuseSparkForConditionalGeneration",
})

rule(
    code="SGL1111",
    name="encoder-disaggregation-on-unsupported-architecture",
    errors="107966e5776e",
    when=lambda cfg: cfg.encoder_only != cfg.language_only
    and (cfg.language_only or cfg.disaggregation_mode == "null")
    and (cfg.encoder_only or not cfg.enable_prefix_mm_cache)
    and _architecture(cfg) not in _ENCODER_DISAGGREGATION and served(cfg.model_path),
    at=("encoder_only", "language_only"),
    message=lambda cfg: f"{_architecture(cfg)} is not supported for encoder disaggregation "
    "(`--encoder-only` / `--language-only`): it serves only multimodal architectures",
    fix=(remove("encoder_only"), remove("language_only")),
    example="--model-path Qwen/Qwen3-8B --language-only",
    near_miss="--model-path Qwen/Qwen2.5-VL-7B-Instruct --language-only",
)


# -- handle_deterministic_inference: absorbed-MLA DeepSeek models ---------------------------------

# The architectures every release's handle_deterministic_inference treats as DeepSeek (absorbed MLA),
# and its RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND (the same in 0.5.18 to 0.5.23).
_DETERMINISTIC_DEEPSEEK = frozenset({"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"})
_RADIX_DETERMINISTIC = ("ascend", "fa3", "fa4", "triton")

rule(
    code="SGL1112",
    name="deterministic-inference-flashinfer-on-absorbed-mla-model",
    errors="8030ba4f9685",
    # Only flashinfer: the one backend every release's deterministic list has and the radix list lacks.
    # Equal prefill and decode backends would replace --attention-backend; the rule leaves those alone.
    when=lambda cfg: cfg.enable_deterministic_inference and cfg.attention_backend == "flashinfer"
    and cfg.prefill_attention_backend is None and cfg.decode_attention_backend is None
    and _architecture(cfg) in _DETERMINISTIC_DEEPSEEK and _not_instance(cfg.model_path) and served(cfg.model_path),
    at="attention_backend",
    message="deterministic inference with an absorbed-MLA DeepSeek model supports only "
    + ", ".join(f"`{b}`" for b in _RADIX_DETERMINISTIC) + " attention, got `flashinfer`",
    fix=set_("attention_backend", "triton"),
    example="--model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend flashinfer",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend triton",
    note="On Blackwell SGLang itself picks `triton` for these models when no backend is written.",
)


# -- ModelConfig._validate_quantize_and_serve_config: the first check ModelConfig makes -----------

# _MODELOPT_QUANTIZATION_METHODS, the same in 0.5.17 to 0.5.23.
_MODELOPT = frozenset({"modelopt", "modelopt_fp8", "modelopt_fp4", "nvfp4_online", "modelopt_mixed"})

rule(
    code="SGL1113",
    name="quantize-and-serve-without-modelopt-quantization",
    errors="12adce8eebbf",
    when=lambda cfg: cfg.quantize_and_serve and cfg.quantization not in _MODELOPT and served(cfg.model_path),
    at=("quantize_and_serve", "quantization"),
    message="`--quantize-and-serve` requires a ModelOpt `--quantization` (" + ", ".join(sorted(_MODELOPT))
    + "), and SGLang then refuses it as disabled: quantize and export the model first, then serve the export",
    fix=remove("quantize_and_serve"),
    example="--model-path Qwen/Qwen3-8B --quantize-and-serve",
    near_miss="--model-path Qwen/Qwen3-8B --quantization fp8",
)

rule(
    code="SGL1114",
    name="quantize-and-serve-is-disabled",
    errors="9ebde3d3a8b1",
    when=lambda cfg: cfg.quantize_and_serve and cfg.quantization in _MODELOPT and served(cfg.model_path),
    at="quantize_and_serve",
    message="`--quantize-and-serve` is disabled in SGLang: quantize and export the model first, then serve the export",
    fix=remove("quantize_and_serve"),
    example="--model-path Qwen/Qwen3-8B --quantization modelopt_fp8 --quantize-and-serve",
    near_miss="--model-path Qwen/Qwen3-8B --quantization modelopt_fp8",
)


# -- _validate_unified_memory_dcp: the unified pool's DCP path is MLA-only ------------------------

rule(
    code="SGL1115",
    name="unified-memory-with-dcp-on-non-mla-model",
    errors="e0c4cf96e8a0",
    # What handle_unified_memory_pool refuses before it reaches DCP is left out: PD disaggregation,
    # speculative decoding, two-batch overlap, LMCache and the external cache linker.
    when=lambda cfg: cfg.enable_unified_memory and cfg.dcp_size > 1 and cfg.disaggregation_mode == "null"
    and cfg.speculative_algorithm is None and not cfg.enable_two_batch_overlap and not cfg.enable_lmcache
    and not cfg.enable_unified_cache_external_linker and not _mla(cfg) and served(cfg.model_path),
    at=("dcp_size", "enable_unified_memory"),
    message="`--enable-unified-memory` with `--dcp-size {dcp_size}` supports only MLA models, and this model is not one",
    fix=remove("dcp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dcp-size 2 --enable-unified-memory",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dcp-size 2 --enable-unified-memory",
)


# -- _check_capture_layer_ids_in_range: capture layers the target does not have ------------------

_CAPTURE_METHODS = ("EAGLE3", "DFLASH", "DSPARK")


def _capturing(enabled: bool, algorithm: object, draft: object, pp_size: int, layer_ids: object) -> bool:
    """handle_aux_hidden_state_capture accepts the launch: a capture method, no draft, PP 1, and layer
    ids that are non-empty, non-negative and distinct."""
    if not enabled or str(algorithm or "").upper() not in _CAPTURE_METHODS or draft is not None or pp_size != 1:
        return False
    return isinstance(layer_ids, list) and bool(layer_ids) and min(layer_ids) >= 0 \
        and len(set(layer_ids)) == len(layer_ids)


def _layers(cfg) -> int:  # noqa: ANN001
    """The target's layers as the model runner counts them (num_hidden_layers times num_loops)."""
    facts = cfg.model.facts
    layers = facts.num_hidden_layers if facts is not None else None
    if layers is None:
        raise Unresolvable("the model's layer count is not known")
    return layers


rule(
    code="SGL1119",
    name="aux-hidden-state-layer-ids-beyond-model-depth",
    errors="e1ba8592f064",
    when=lambda cfg: _capturing(cfg.enable_return_aux_hidden_states, cfg.speculative_algorithm,
                                cfg.speculative_draft_model_path, cfg.pp_size, cfg.return_aux_hidden_state_layer_ids)
    and cfg.revision is None and max(cfg.return_aux_hidden_state_layer_ids) >= _layers(cfg) and served(cfg.model_path),
    at="return_aux_hidden_state_layer_ids",
    message=lambda cfg: "`--return-aux-hidden-state-layer-ids` "
    f"{[i for i in cfg.return_aux_hidden_state_layer_ids if i >= _layers(cfg)]} are out of range for a model "
    f"with {_layers(cfg)} layers (ids count from 0)",
    example="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--return-aux-hidden-state-layer-ids 2 18 36",
    near_miss="--model-path Qwen/Qwen3-8B --enable-return-aux-hidden-states --speculative-algorithm EAGLE3 "
    "--return-aux-hidden-state-layer-ids 2 18 35",
    note="The ids are the user's choice, so autofix offers no fix.",
)
