"""Catalogue rules of the attention backends a model can be served with: the attention registry's
creators (`layers/attention/attention_registry.py`), which refuse an encoder-decoder
(cross-attention) model, and `handle_kv4_compatibility` (`arg_groups/kv_cache_hook.py`), which
allows an FP4 KV cache only on some backends, depending on whether the model is MLA.

SGLang decides encoder-decoder by architecture (`is_encoder_decoder_model` in
configs/model_config.py); a model autofix cannot name keeps the rules quiet.
"""

from __future__ import annotations

from autofix.fixers._attention import OWN_ATTENTION_RULES
from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served

# is_encoder_decoder_model's list, the same in 0.5.17 to 0.5.23.
_ENCODER_DECODER = frozenset({
    "WhisperForConditionalGeneration", "MllamaForConditionalGeneration", "MossVLForConditionalGeneration",
})


def _encoder_decoder(cfg) -> bool:  # noqa: ANN001 (it reads the model, not a flag)
    architecture = cfg.model.architecture
    if architecture is None:
        raise Unresolvable("the model's architecture is not known")
    return architecture in _ENCODER_DECODER


rule(
    code="SGL1120",
    name="triton-attention-on-encoder-decoder-model",
    errors="d042de01b574",
    # Phase flags left alone: with them written, which backend serves which phase is theirs to say.
    when=lambda cfg: cfg.attention_backend == "triton" and cfg.prefill_attention_backend is None
    and cfg.decode_attention_backend is None and _encoder_decoder(cfg) and served(cfg.model_path),
    at="attention_backend",
    message="the `triton` attention backend does not support cross attention, which this encoder-decoder "
    "model needs: use `--attention-backend flashinfer`",
    fix=set_("attention_backend", "flashinfer"),
    safe=True,
    example="--model-path meta-llama/Llama-3.2-90B-Vision-Instruct --attention-backend triton",
    near_miss="--model-path meta-llama/Llama-3.2-90B-Vision-Instruct --attention-backend flashinfer",
)

rule(
    code="SGL1121",
    name="hpc-ops-attention-on-encoder-decoder-model",
    errors="a4908321b0e7",
    when=lambda cfg: cfg.attention_backend == "hpc_ops" and cfg.prefill_attention_backend is None
    and cfg.decode_attention_backend is None and _encoder_decoder(cfg) and served(cfg.model_path),
    at="attention_backend",
    message="the `hpc_ops` attention backend does not support cross attention, which this encoder-decoder model needs",
    fix=remove("attention_backend"),
    example="--model-path meta-llama/Llama-3.2-90B-Vision-Instruct --attention-backend hpc_ops --page-size 64",
    near_miss="--model-path Qwen/Qwen3-8B --attention-backend hpc_ops --page-size 64",
)


# -- handle_kv4_compatibility: the backends an FP4 KV cache runs on, MLA or not -------------------

# Each list as every release from 0.5.17 to 0.5.23 allows it (0.5.17 to 0.5.22 also allow cutlass_mla
# for MLA): a rule reports a backend none of them allows.
_KV4_MLA = frozenset({"flashinfer", "trtllm_mla", "cutlass_mla"})
_KV4_MHA = frozenset({"triton", "torch_native", "flex_attention", "trtllm_mha"})
_KV4_FA4_MHA = frozenset({"triton", "torch_native", "flex_attention"})


def _kv4_mla(cfg) -> bool:  # noqa: ANN001 (it reads the model, not a flag)
    """Whether the model is served as MLA; unknown for a model autofix cannot name, and for the
    architectures whose own passes rewrite the KV cache dtype or the backends (DSA, DeepSeek-V4, Kimi-K3),
    or refuse backends first (GPT-OSS's allow-list, which SGL1014 reports)."""
    model = cfg.model
    if model.mla is None or model.architecture in OWN_ATTENTION_RULES or model.is_kimi_k3 \
            or model.architecture == "GptOssForCausalLM":
        raise Unresolvable("the model's attention kind, as its KV cache sees it, is not known")
    return model.mla


def _kv4(kv_cache_dtype: object, enable_unified_memory: bool, gpu: object) -> bool:
    """The block-16 FP4 KV cache (nvfp4's checks depend on the GPU generation); unified memory is refused
    first. On a GPU known not to be NVIDIA's SGLang refuses FP4 KV altogether (SGL928 says so)."""
    return kv_cache_dtype == "fp4_mx_block16" and not enable_unified_memory \
        and (gpu is None or gpu.is_cuda)  # type: ignore[attr-defined]


def _gpu(cfg):  # noqa: ANN001, ANN202 (it reads the GPU autofix was told of, not a flag)
    return cfg._launch.gpu


rule(
    code="SGL1133",
    name="fp4-kv-cache-unsupported-mha-backend",
    errors="a96f40831f13",
    when=lambda cfg: _kv4(cfg.kv_cache_dtype, cfg.enable_unified_memory, _gpu(cfg)) and cfg.attention_backend is not None
    and cfg.attention_backend not in _KV4_MHA and cfg.attention_backend != "fa4"
    and cfg.prefill_attention_backend is None and cfg.decode_attention_backend is None
    and _kv4_mla(cfg) is False and served(cfg.model_path),
    at="attention_backend",
    message="an FP4 KV cache on a model that is not MLA needs one of "
    + ", ".join(f"`{b}`" for b in sorted(_KV4_MHA)) + " attention, got `{attention_backend}`",
    fix=set_("attention_backend", "triton"),
    example="--model-path Qwen/Qwen3-8B --kv-cache-dtype fp4_mx_block16 --attention-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype fp4_mx_block16 --attention-backend triton",
)

rule(
    code="SGL1134",
    name="fp4-kv-cache-unsupported-mla-backend",
    errors="52ea246277e8",
    when=lambda cfg: _kv4(cfg.kv_cache_dtype, cfg.enable_unified_memory, _gpu(cfg)) and cfg.attention_backend is not None
    and cfg.attention_backend not in _KV4_MLA and cfg.attention_backend != "fa4"
    and cfg.prefill_attention_backend is None and cfg.decode_attention_backend is None
    and _kv4_mla(cfg) is True and served(cfg.model_path),
    at="attention_backend",
    message="an FP4 KV cache on an MLA model needs `flashinfer` or `trtllm_mla` attention, got `{attention_backend}`",
    fix=set_("attention_backend", "flashinfer"),
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --kv-cache-dtype fp4_mx_block16 --attention-backend triton",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --kv-cache-dtype fp4_mx_block16 "
    "--attention-backend flashinfer",
)

rule(
    code="SGL1135",
    name="fp4-kv-cache-fa4-prefill-unsupported-mha-decode-backend",
    errors="f88adadf43de",
    when=lambda cfg: _kv4(cfg.kv_cache_dtype, cfg.enable_unified_memory, _gpu(cfg)) and cfg.prefill_attention_backend == "fa4"
    and cfg.decode_attention_backend is not None and cfg.decode_attention_backend not in _KV4_FA4_MHA
    and _kv4_mla(cfg) is False and served(cfg.model_path),
    at="decode_attention_backend",
    message="an FP4 KV cache with `fa4` prefill on a model that is not MLA needs one of "
    + ", ".join(f"`{b}`" for b in sorted(_KV4_FA4_MHA)) + " for decode, got `{decode_attention_backend}`",
    fix=set_("decode_attention_backend", "triton"),
    example="--model-path Qwen/Qwen3-8B --kv-cache-dtype fp4_mx_block16 --prefill-attention-backend fa4 "
    "--decode-attention-backend fa4",
    near_miss="--model-path Qwen/Qwen3-8B --kv-cache-dtype fp4_mx_block16 --prefill-attention-backend fa4 "
    "--decode-attention-backend triton",
)

rule(
    code="SGL1136",
    name="fp4-kv-cache-fa4-prefill-unsupported-mla-decode-backend",
    errors="09927f2967ab",
    when=lambda cfg: _kv4(cfg.kv_cache_dtype, cfg.enable_unified_memory, _gpu(cfg)) and cfg.prefill_attention_backend == "fa4"
    and cfg.decode_attention_backend is not None and cfg.decode_attention_backend not in _KV4_MLA
    and _kv4_mla(cfg) is True and served(cfg.model_path),
    at="decode_attention_backend",
    message="an FP4 KV cache with `fa4` prefill on an MLA model needs `flashinfer` or `trtllm_mla` for decode, "
    "got `{decode_attention_backend}`",
    fix=set_("decode_attention_backend", "flashinfer"),
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --kv-cache-dtype fp4_mx_block16 "
    "--prefill-attention-backend fa4 --decode-attention-backend triton",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --kv-cache-dtype fp4_mx_block16 "
    "--prefill-attention-backend fa4 --decode-attention-backend flashinfer",
)
