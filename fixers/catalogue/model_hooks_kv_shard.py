"""Catalogue rules of `handle_kv_cache_sharding` (`arg_groups/kv_shard_hook.py`, 0.5.22 on) that read
the served model: KV sharding on a PD prefill worker refuses encoder-decoder models, and shards
MLA models across attention TP and GQA models across attention CP.

`handle_kv_cache_sharding` checks many flags before the model; a rule reports only a launch that
passes every one of those (`_reaches_model_checks`), so its message is the one SGLang prints first.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import served

# Switches handle_kv_cache_sharding refuses before it reads the model.
_REFUSED_FIRST = (
    "enable_unified_cache_external_linker", "enable_streaming_session", "enable_session_radix_cache",
    "enable_flexkv", "enable_unified_memory", "enable_lmcache", "enable_hisparse", "enable_two_batch_overlap",
)
# is_deepseek_dsa's architectures (configs/model_config.py, 0.5.22 and 0.5.23): DSA with an index_topk.
_DSA = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "Glm5NextForConditionalGenerationNextN", "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN",
})
# is_encoder_decoder_model's list; and the architectures whose config has an attention_chunk_size.
_ENCODER_DECODER = frozenset({
    "WhisperForConditionalGeneration", "MllamaForConditionalGeneration", "MossVLForConditionalGeneration",
})
_CHUNKED_ATTENTION = frozenset({"Llama4ForConditionalGeneration", "Llama4ForCausalLM"})


def _reaches_model_checks(cfg) -> bool:  # noqa: ANN001 (it reads many switches, each as SGLang does)
    """Sharding on a PD prefill worker with none of what handle_kv_cache_sharding refuses first: no
    speculative or diffusion decoding, no custom radix cache, no radix cache at all (0.5.22's Rust tree
    core is refused with one), no DCP, no HiCache storage backend, no dynamic chunking under PP."""
    if not cfg.enable_kv_cache_sharding or cfg.disaggregation_mode != "prefill":
        return False
    if cfg.speculative_algorithm is not None or cfg.dllm_algorithm is not None or cfg.radix_cache_backend is not None:
        return False
    if not cfg.disable_radix_cache or cfg.dcp_size > 1 or any(cfg.get(dest, False) for dest in _REFUSED_FIRST):
        return False
    if cfg.enable_hierarchical_cache and cfg.hicache_storage_backend is not None:
        return False
    return not (cfg.enable_dynamic_chunking and cfg.pp_size > 1)


def _architecture(cfg) -> str:  # noqa: ANN001 (it reads the model, not a flag)
    architecture = cfg.model.architecture
    if architecture is None or cfg.model.facts is None or cfg.model.mla is None:
        raise Unresolvable("the model is not known")
    return architecture


def _plain_model(cfg) -> bool:  # noqa: ANN001
    """Neither encoder-decoder, chunked-attention nor DSA (is_deepseek_dsa): DeepSeek-V3's own
    config type holds no index_topk, so only one whose file names it is DSA."""
    architecture = _architecture(cfg)
    if architecture in _ENCODER_DECODER or architecture in _CHUNKED_ATTENTION:
        return False
    facts = cfg.model.facts
    if architecture in _DSA and not (facts.model_type == "deepseek_v3" and facts.index_topk is None):
        raise Unresolvable("the model may be a DSA model")
    return True


def _prefill_backend(cfg) -> object:  # noqa: ANN001
    """The effective prefill backend (`attention_backends_of`), as written; unknown when SGLang picks it."""
    backend = cfg.prefill_attention_backend or cfg.attention_backend
    if backend is None:
        raise Unresolvable("SGLang picks the attention backend")
    return backend


def _backend_passes(cfg, mla: bool) -> bool:  # noqa: ANN001
    """validate_kv_shard_attention_backend accepts it: fa3, or trtllm_mla for plain-TP MLA with chunked
    prefix caching; then the transfer backend is one that shards."""
    backend = _prefill_backend(cfg)
    plain_mla = backend == "trtllm_mla" and mla and cfg.attn_cp_size == 1 and not cfg.disable_chunked_prefix_cache
    return (backend == "fa3" or plain_mla) and cfg.disaggregation_transfer_backend in ("mooncake", "nixl")


_SHARDED = "--enable-kv-cache-sharding --disaggregation-mode prefill --disable-radix-cache"

rule(
    code="SGL1124",
    name="kv-cache-sharding-on-encoder-decoder-model",
    errors="edbc776504a7",
    when=lambda cfg: _reaches_model_checks(cfg) and _architecture(cfg) in _ENCODER_DECODER and served(cfg.model_path),
    at="enable_kv_cache_sharding",
    message="`--enable-kv-cache-sharding` does not support encoder-decoder models: cross attention's encoder "
    "page table is not part of the sharded gather plan",
    fix=remove("enable_kv_cache_sharding"),
    example=f"--model-path meta-llama/Llama-3.2-90B-Vision-Instruct {_SHARDED} --attention-backend fa3",
    near_miss="--model-path meta-llama/Llama-3.2-90B-Vision-Instruct --disaggregation-mode prefill "
    "--disable-radix-cache --attention-backend fa3",
)

rule(
    code="SGL1125",
    name="kv-cache-sharding-on-gqa-model-without-prefill-cp",
    errors="6583dcb53903",
    when=lambda cfg: _reaches_model_checks(cfg) and not (cfg.enable_prefill_cp and cfg.attn_cp_size > 1)
    and not cfg.model.mla and _plain_model(cfg) and _backend_passes(cfg, mla=False) and served(cfg.model_path),
    at="enable_kv_cache_sharding",
    message="`--enable-kv-cache-sharding` shards a GQA model across attention-CP ranks: it needs "
    "`--enable-prefill-cp` with `--attn-cp-size` above 1",
    fix=remove("enable_kv_cache_sharding"),
    example=f"--model-path Qwen/Qwen3-8B {_SHARDED} --attention-backend fa3",
    near_miss=f"--model-path Qwen/Qwen3-8B {_SHARDED} --attention-backend fa3 --tp-size 2 --enable-prefill-cp "
    "--attn-cp-size 2 --cp-strategy zigzag --page-size 64",
)

rule(
    code="SGL1126",
    name="kv-cache-sharding-on-mla-model-with-attention-dp",
    errors="210ae16f2a98",
    when=lambda cfg: _reaches_model_checks(cfg) and cfg.attn_cp_size <= 1 and cfg.attn_dp_size > 1
    and cfg.model.mla is True and _plain_model(cfg) and _backend_passes(cfg, mla=True) and served(cfg.model_path),
    at=("attn_dp_size", "enable_kv_cache_sharding"),
    message="`--enable-kv-cache-sharding` shards an MLA model without prefill CP across attention TP: "
    "it needs plain TP attention, not `--attn-dp-size {attn_dp_size}`",
    fix=remove("attn_dp_size"),
    safe=True,
    example=f"--model-path deepseek-ai/DeepSeek-V3 {_SHARDED} --attention-backend trtllm_mla --tp-size 8 "
    "--attn-dp-size 8 --page-size 64",
    near_miss=f"--model-path deepseek-ai/DeepSeek-V3 {_SHARDED} --attention-backend trtllm_mla --tp-size 8 "
    "--page-size 64",
)

rule(
    code="SGL1127",
    name="kv-cache-sharding-on-mla-model-with-one-tp-rank",
    errors="01d8df9484ce",
    when=lambda cfg: _reaches_model_checks(cfg) and cfg.attn_cp_size <= 1 and cfg.attn_dp_size <= 1
    and not cfg.enable_dp_attention and cfg.tp_size <= 1
    and cfg.model.mla is True and _plain_model(cfg) and _backend_passes(cfg, mla=True) and served(cfg.model_path),
    at=("tp_size", "enable_kv_cache_sharding"),
    message="`--enable-kv-cache-sharding` shards an MLA model without prefill CP across attention-TP ranks: "
    "it needs `--tp-size` above 1",
    fix=remove("enable_kv_cache_sharding"),
    example=f"--model-path deepseek-ai/DeepSeek-V3 {_SHARDED} --attention-backend trtllm_mla",
    near_miss=f"--model-path deepseek-ai/DeepSeek-V3 {_SHARDED} --attention-backend trtllm_mla --tp-size 8 "
    "--page-size 64",
)

rule(
    code="SGL1140",
    name="kv-cache-sharding-with-speculative-decoding-on-non-glm-dsa",
    errors="b8fd17b31e2b",
    # The first check after the PD-prefill one; only GLM DSA's single-layer NextN MTP passes it.
    when=lambda cfg: cfg.enable_kv_cache_sharding and cfg.disaggregation_mode == "prefill"
    and cfg.speculative_algorithm is not None and _architecture(cfg) != "GlmMoeDsaForCausalLM"
    and served(cfg.model_path),
    at=("speculative_algorithm", "enable_kv_cache_sharding"),
    message=lambda cfg: "`--enable-kv-cache-sharding` supports speculative decoding only for GLM DSA's single-layer "
    f"NextN MTP (EAGLE, top-k 1), not for {_architecture(cfg)}",
    fix=remove("enable_kv_cache_sharding"),
    example=f"--model-path Qwen/Qwen3-8B {_SHARDED} --attention-backend fa3 --speculative-algorithm NGRAM",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disable-radix-cache --attention-backend fa3 "
    "--speculative-algorithm NGRAM",
)
