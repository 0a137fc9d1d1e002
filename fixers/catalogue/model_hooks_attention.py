"""Catalogue rules of the attention registry's backend creators
(`layers/attention/attention_registry.py`) that read the served model beyond its attention kind:
the model runner builds the backend for each phase and the creator refuses an encoder-decoder
(cross-attention) model.

SGLang decides encoder-decoder by architecture (`is_encoder_decoder_model` in
configs/model_config.py); a model autofix cannot name keeps the rules quiet.
"""

from __future__ import annotations

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
