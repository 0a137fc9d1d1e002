"""Catalogue rules: what SGLang asks of a launch on Intel XPU beyond its backends:
`_check_xpu_dcp` in `attention_hook.py` (decode context parallelism on the intel_xpu
kernels: the model's head layout, speculative decoding, the model's kind) and
`_gpt_oss_overrides` (GPT-OSS serves in bfloat16 only).

The GPU is named like any other (`--gpu max-1550`); the model's shapes come from its
config.json (num_attention_heads, num_key_value_heads, head_dim), and an unknown one keeps
the rules that read them quiet.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import gpu, served
from .gpu import _backends
from .kv_shard import _overrides_keep
from .model import _fact

# Largest GQA group the intel_xpu decode kernel is built for (XPU_DECODE_MAX_Q_GROUP_SIZE).
_XPU_MAX_Q_GROUP = 16


def _xpu_dcp(cfg, dcp_size: int, *backends: object) -> bool:  # noqa: ANN001 (it reads the GPU and the model)
    """`_check_xpu_dcp` runs and passes its first checks: DCP on an Intel XPU with every phase on
    intel_xpu as written (a backend left unset is the model's choice: quiet), a model known not to
    be MLA whose V head width is its K head width."""
    if dcp_size <= 1 or not gpu(cfg).is_xpu:
        return False
    if not _overrides_keep(cfg.model, *backends) or set(_backends(cfg)) != {"intel_xpu"}:
        return False
    if cfg.model.mla is not False:
        raise Unresolvable("the model's attention kind is not known")
    if _fact(cfg, "v_head_dim") != _fact(cfg, "head_dim"):
        raise Unresolvable("unequal K and V head dims are refused first")
    return True


def _kv_heads(cfg, tp: int, dcp: int = 1) -> int:  # noqa: ANN001
    """`ModelConfig.get_num_kv_heads(tp, dcp)`: the KV heads of one rank."""
    return max(1, _fact(cfg, "num_key_value_heads") // (tp // dcp))


def _kv_layout_held(cfg, tp_size: int, dcp_size: int) -> bool:  # noqa: ANN001
    """Every rank of a DCP group holds its group's KV heads: Qwen3.5 shards them so; other models
    only when the heads per rank do not change with DCP."""
    if (cfg.model.architecture or "").startswith("Qwen3_5"):
        raise Unresolvable("is_qwen3_5 reads the checkpoint's config")
    return _kv_heads(cfg, tp_size, dcp_size) == _kv_heads(cfg, tp_size)


def _q_group(cfg, tp_size: int, dcp_size: int, attn_dp: int, attn_cp_size: int) -> int:  # noqa: ANN001
    """The GQA group the intel_xpu decode kernel gets: query heads per attention-TP rank, times DCP,
    over the KV heads a rank holds."""
    attn_tp = tp_size // attn_dp // attn_cp_size
    q_heads = max(1, _fact(cfg, "num_attention_heads") // attn_tp)
    return q_heads * dcp_size // _kv_heads(cfg, attn_tp, dcp_size)


def _xpu_dcp_shapes_pass(cfg, tp_size: int, dcp_size: int, attn_dp: int, attn_cp_size: int) -> bool:  # noqa: ANN001
    return tp_size % dcp_size == 0 and _kv_layout_held(cfg, tp_size, dcp_size) \
        and _q_group(cfg, tp_size, dcp_size, attn_dp, attn_cp_size) <= _XPU_MAX_Q_GROUP


_XPU = " --attention-backend intel_xpu"

rule(
    code="SGL984",
    name="xpu-decode-context-parallel-not-dividing-tp",
    errors="b13988437c8b",
    when=lambda cfg: served(cfg.model_path)
    and _xpu_dcp(cfg, cfg.dcp_size, cfg.attention_backend, cfg.prefill_attention_backend,
                 cfg.decode_attention_backend)
    and cfg.tp_size % cfg.dcp_size != 0,
    at=("dcp_size", "tp_size"),
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` on {gpu(cfg).label} must divide `--tp-size {cfg.tp_size}`",
    fix=remove("dcp_size"),
    gpu="max-1550",
    example="--model-path Qwen/Qwen3-8B --tp 6 --dcp-size 4" + _XPU,
    near_miss="--model-path Qwen/Qwen3-8B --tp 16 --dcp-size 2" + _XPU,
)

rule(
    code="SGL985",
    name="xpu-decode-context-parallel-splitting-kv-heads",
    errors="5f8084d66563",
    when=lambda cfg: served(cfg.model_path)
    and _xpu_dcp(cfg, cfg.dcp_size, cfg.attention_backend, cfg.prefill_attention_backend,
                 cfg.decode_attention_backend)
    and cfg.tp_size % cfg.dcp_size == 0 and not _kv_layout_held(cfg, cfg.tp_size, cfg.dcp_size),
    at="dcp_size",
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` at `--tp-size {cfg.tp_size}` on {gpu(cfg).label} leaves a "
    f"rank without its DCP group's KV heads (the model has {_fact(cfg, 'num_key_value_heads')}); use a "
    "smaller `--dcp-size`",
    fix=remove("dcp_size"),
    gpu="max-1550",
    example="--model-path Qwen/Qwen3-8B --tp 4 --dcp-size 2" + _XPU,
    near_miss="--model-path Qwen/Qwen3-8B --tp 16 --dcp-size 2" + _XPU,
    note="The rule reads the model's `num_key_value_heads` from its config.json; Qwen3.5 models, "
    "which shard their KV heads per DCP group, are left to SGLang.",
)

rule(
    code="SGL996",
    name="xpu-decode-context-parallel-gqa-group-too-large",
    errors="02669019fce4",
    when=lambda cfg: served(cfg.model_path)
    and _xpu_dcp(cfg, cfg.dcp_size, cfg.attention_backend, cfg.prefill_attention_backend,
                 cfg.decode_attention_backend)
    and cfg.tp_size % cfg.dcp_size == 0 and _kv_layout_held(cfg, cfg.tp_size, cfg.dcp_size)
    and _q_group(cfg, cfg.tp_size, cfg.dcp_size, cfg.dp_size if cfg.enable_dp_attention else 1,
                 cfg.attn_cp_size) > _XPU_MAX_Q_GROUP,
    at="dcp_size",
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` gives the intel_xpu decode kernel on {gpu(cfg).label} a GQA "
    f"group of {_q_group(cfg, cfg.tp_size, cfg.dcp_size, cfg.dp_size if cfg.enable_dp_attention else 1, cfg.attn_cp_size)}"
    f", above the {_XPU_MAX_Q_GROUP} it is built for; use a smaller `--dcp-size` or a larger `--tp-size`",
    fix=remove("dcp_size"),
    gpu="max-1550",
    example="--model-path Qwen/Qwen3-8B --tp 256 --dcp-size 32" + _XPU,
    near_miss="--model-path Qwen/Qwen3-8B --tp 256 --dcp-size 16" + _XPU,
    note="The group is the query heads of an attention-TP rank times `--dcp-size`, over the KV heads a rank "
    "holds; the rule reads the heads from the model's config.json.",
)

rule(
    code="SGL986",
    name="xpu-decode-context-parallel-with-speculative-decoding",
    errors="148f337d79b6",
    when=lambda cfg: served(cfg.model_path)
    and _xpu_dcp(cfg, cfg.dcp_size, cfg.attention_backend, cfg.prefill_attention_backend,
                 cfg.decode_attention_backend)
    and cfg.speculative_algorithm is not None
    and _xpu_dcp_shapes_pass(cfg, cfg.tp_size, cfg.dcp_size, cfg.dp_size if cfg.enable_dp_attention else 1,
                             cfg.attn_cp_size),
    at=("speculative_algorithm", "dcp_size"),
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` with speculative decoding is not supported on "
    f"{gpu(cfg).label}",
    fix=remove("dcp_size"),
    gpu="max-1550",
    example="--model-path Qwen/Qwen3-8B --tp 16 --dcp-size 2 --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1" + _XPU,
    near_miss="--model-path Qwen/Qwen3-8B --tp 16 --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1" + _XPU,
)

# is_encoder_decoder_model's architectures (configs/model_config.py, 0.5.22 and 0.5.23); none of
# them has chunked local attention, which SGLang refuses first.
_ENCODER_DECODER = ("WhisperForConditionalGeneration", "MllamaForConditionalGeneration",
                    "MossVLForConditionalGeneration")

_MLLAMA = "--model-path meta-llama/Llama-3.2-90B-Vision-Instruct --tp 16"

rule(
    code="SGL987",
    name="xpu-decode-context-parallel-for-encoder-decoder-model",
    errors="8422b5432ae6",
    when=lambda cfg: served(cfg.model_path)
    and _xpu_dcp(cfg, cfg.dcp_size, cfg.attention_backend, cfg.prefill_attention_backend,
                 cfg.decode_attention_backend)
    and cfg.model.architecture in _ENCODER_DECODER
    and cfg.speculative_algorithm is None
    and _xpu_dcp_shapes_pass(cfg, cfg.tp_size, cfg.dcp_size, cfg.dp_size if cfg.enable_dp_attention else 1,
                             cfg.attn_cp_size),
    at="dcp_size",
    message=lambda cfg: f"`--dcp-size {cfg.dcp_size}` is not supported on {gpu(cfg).label} for encoder-decoder "
    f"models such as {cfg.model.architecture}",
    fix=remove("dcp_size"),
    gpu="max-1550",
    example=_MLLAMA + " --dcp-size 2" + _XPU,
    near_miss=_MLLAMA + _XPU,
)
