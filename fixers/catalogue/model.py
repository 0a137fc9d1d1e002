"""Catalogue rules decided by the served model: the facts of its config.json (SGLang's
`configs/model_config.py`, the model runner's `moe_ep_setup.py`) and its attention kind (the
attention registry's backend creators).

They read `cfg.model` (autofix.knowledge.models, modelfacts: derived from the model's config.json
as SGLang derives them) and stay quiet when a fact is unknown: no config.json was found, or it
does not hold the key. They assume SGLang's default environment: a launch that sets
`SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` or `SGLANG_SHARED_EXPERT_TP1=1` turns the check
it names into a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from autofix.edits import Edit
from autofix.fixers._attention import OWN_ATTENTION_RULES, PHASES
from autofix.knowledge.modelfacts import EXPERTS_USE_INTERMEDIATE_SIZE
from autofix.model import Flag, Launch, Unresolvable
from autofix.rules import Config, Step, remove, rule, set_

from ._common import model_fact as _fact, plain_int, served


# -- context length (ModelConfig._derive_context_length) ---------------------------

def _context_above_model(cfg) -> bool:  # noqa: ANN001
    """`--context-length` asks more than `get_context_length` derives from the model's config.
    A revision or a draft checkpoint may hold another config: only the main model's, as cached."""
    asked = plain_int(cfg.context_length)
    if asked is None or cfg.revision is not None:
        return False
    return asked > _fact(cfg, "context_length")


rule(
    code="SGL1000",
    name="context-length-above-model-maximum",
    errors="fac6af3a2638",
    when=lambda cfg: cfg.context_length is not None and _context_above_model(cfg) and served(cfg.model_path),
    at="context_length",
    message=lambda cfg: f"`--context-length {cfg.context_length}` is above the model's maximum context "
    f"length, {_fact(cfg, 'context_length')} (from its config.json)",
    fix=set_("context_length", lambda cfg: str(_fact(cfg, "context_length"))),
    example="--model-path Qwen/Qwen3-8B --context-length 131072",
    near_miss="--model-path Qwen/Qwen3-8B --context-length 40960",
    note="SGLang derives the maximum as `get_context_length` does: the config's first of "
    "max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings, "
    "times the rope scaling factor. `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` makes it a warning.",
)


# -- block-quantized MoE shapes (check_quantized_moe_compatibility) ------------------

def _block_quantized_moe(cfg) -> int:  # noqa: ANN001
    """The checkpoint's MoE intermediate size, when its quantization_config has a weight_block_size
    (SGLang checks nothing otherwise). SGLang reads `moe_intermediate_size` from the config itself:
    for the models whose experts take `intermediate_size` the config holds no such key."""
    quantization = _fact(cfg, "quantization")
    if quantization.weight_block_size is None:
        raise Unresolvable("no weight block size")  # SGLang checks nothing; the rule says nothing
    if _fact(cfg, "architecture") in EXPERTS_USE_INTERMEDIATE_SIZE:
        raise Unresolvable("the config holds no moe_intermediate_size")
    return _fact(cfg, "moe_intermediate_size")  # type: ignore[return-value]


def _block_n(cfg) -> int:  # noqa: ANN001
    return _fact(cfg, "quantization").weight_block_size[0]


def _ep_as_written(ep_size: int, moe_a2a_backend: str, moe_runner_backend: str, enable_waterfill: bool,
                   dwdp_size: int, enable_prefill_cp: bool) -> bool:
    """ep_size is what the launch says when the model runner reads it: no a2a backend, waterfill,
    MegaMoE runner, DWDP or prefill CP resizes it (see parallel.py's EPLB rule)."""
    return moe_a2a_backend == "none" and moe_runner_backend != "megamoe" and not enable_waterfill \
        and dwdp_size <= 1 and not enable_prefill_cp and ep_size >= 1


def _moe_tp(cfg) -> int:  # noqa: ANN001
    """moe_tp_size as the model runner computes it: tp_size // ep_size // moe_dp_size."""
    return cfg.tp_size // cfg.ep_size // cfg.moe_dp_size


def _ep_fix(cfg) -> str:  # noqa: ANN001
    """EP over the whole TP group: every rank holds whole experts (moe_tp_size 1)."""
    return str(cfg.tp_size // cfg.moe_dp_size)


rule(
    code="SGL1001",
    name="tp-size-not-multiple-of-ep-size-for-block-quantized-moe",
    errors="80779ad75a52",
    when=lambda cfg: cfg.tp_size % cfg.ep_size != 0 and _ep_as_written(
        cfg.ep_size, cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill, cfg.dwdp_size,
        cfg.enable_prefill_cp) and cfg.moe_dp_size == 1 and _block_quantized_moe(cfg) and served(cfg.model_path),
    at=("ep_size", "tp_size"),
    message="the checkpoint's MoE weights are block-quantized: `--tp-size {tp_size}` must be a multiple "
    "of `--ep-size {ep_size}`",
    fix=set_("ep_size", _ep_fix),
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --ep-size 3",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --ep-size 4",
)

rule(
    code="SGL1002",
    name="moe-intermediate-size-not-multiple-of-moe-tp-size",
    errors="e6109d990d67",
    when=lambda cfg: cfg.tp_size % cfg.ep_size == 0 and _ep_as_written(
        cfg.ep_size, cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill, cfg.dwdp_size,
        cfg.enable_prefill_cp) and cfg.moe_dp_size == 1
    and _block_quantized_moe(cfg) % _moe_tp(cfg) != 0 and served(cfg.model_path),
    at=("tp_size", "ep_size"),
    message=lambda cfg: f"the checkpoint's moe_intermediate_size, {_block_quantized_moe(cfg)}, is not a multiple "
    f"of the MoE TP size, {_moe_tp(cfg)} (`--tp-size {cfg.tp_size}` over `--ep-size {cfg.ep_size}`)",
    fix=set_("ep_size", _ep_fix),
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 24",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 16",
)

rule(
    code="SGL1003",
    name="moe-tp-shard-not-multiple-of-weight-block",
    errors="02f802d601b4",
    when=lambda cfg: cfg.tp_size % cfg.ep_size == 0 and _ep_as_written(
        cfg.ep_size, cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill, cfg.dwdp_size,
        cfg.enable_prefill_cp) and cfg.moe_dp_size == 1
    and _block_quantized_moe(cfg) % _moe_tp(cfg) == 0
    and (_block_quantized_moe(cfg) // _moe_tp(cfg)) % _block_n(cfg) != 0 and served(cfg.model_path),
    at=("tp_size", "ep_size"),
    message=lambda cfg: f"each MoE TP rank's share of moe_intermediate_size, {_block_quantized_moe(cfg)} / "
    f"{_moe_tp(cfg)}, is not a multiple of the checkpoint's weight block, {_block_n(cfg)}",
    fix=set_("ep_size", _ep_fix),
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 32",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 32 --ep-size 2",
    note="SGLang skips this check with `SGLANG_SHARED_EXPERT_TP1=1`, or on ROCm with `SGLANG_USE_AITER=1`.",
)


# -- the checkpoint's quantization (ModelConfig._verify_quantization) ----------------

# `--quantization` values no method's override_quantization_method turns into another for a
# checkpoint of a different method (awq's and gptq's act on their own checkpoints, marlin's on
# `gptq` requests, humming's and moe_wna16's on their own names), and that no release's
# compatible_quantization_methods table lists: SGLang compares them with the checkpoint's as written.
_PLAIN_METHODS = frozenset({"fp8", "awq"})


def _quantization_mismatch(quantization: object, cfg) -> bool:  # noqa: ANN001
    """The launch asks a plain method the checkpoint's quantization_config does not name. ModelOpt
    checkpoints are left out: their override turns an `fp8` request into `modelopt_fp8`."""
    if not isinstance(quantization, str) or quantization.lower() not in _PLAIN_METHODS:
        return False
    method = _fact(cfg, "quantization").method
    if method is None or method.startswith("modelopt"):
        raise Unresolvable("the checkpoint's quantization method is not known")
    return method != quantization.lower()


rule(
    code="SGL1004",
    name="quantization-not-matching-checkpoint",
    errors="797bc1954284",
    when=lambda cfg: cfg.quantization is not None and cfg.revision is None
    and _quantization_mismatch(cfg.quantization, cfg) and served(cfg.model_path),
    at="quantization",
    message=lambda cfg: f"`--quantization {cfg.quantization}` does not match the checkpoint's quantization "
    f"method, `{_fact(cfg, 'quantization').method}` (its config.json's quantization_config)",
    fix=remove("quantization"),
    example="--model-path deepseek-ai/DeepSeek-V3 --quantization awq",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --quantization fp8",
    note="Without `--quantization`, SGLang serves the checkpoint with the method its config names.",
)


# -- the attention kind a backend serves (attention_registry's creators) -------------

@dataclass(frozen=True, slots=True)
class _RemoveBackend(Step):
    """Remove the flags of dest that name this backend, and no other."""

    backend: str = ""

    def needed(self, launch: Launch) -> bool:
        return any(flag.value == self.backend for flag in launch.all(self.dest))

    def edits(self, launch: Launch, cfg: Config, anchor: Flag | None) -> tuple[Edit, ...]:
        return tuple(e for flag in launch.all(self.dest) if flag.value == self.backend for e in launch.remove(flag))


def _drop(backend: str) -> tuple[Step, ...]:
    return tuple(_RemoveBackend(dest, removes=True, backend=backend) for dest in PHASES)


def _serves(backend: str, attention: object, prefill: object, decode: object) -> bool:
    """The model runner builds backend for a phase: what `attention_backends_of` gives it (the
    phase's own flag, else `--attention-backend`)."""
    return backend in ((prefill or attention), (decode or attention))


def _kind(cfg, mla: bool) -> bool:  # noqa: ANN001 (it reads the model, not a flag)
    """The model is known to be (mla=True) or not to be an MLA model as SGLang serves it; the
    architectures whose own passes rewrite the backends are left out."""
    model = cfg.model
    if model.mla is None:
        raise Unresolvable("the model's attention kind is not known")
    if model.architecture in OWN_ATTENTION_RULES or model.is_kimi_k3:
        raise Unresolvable("its overrides pick the backends")
    return model.mla is mla


def _prefill_fill(attention: object, prefill: object, decode: object) -> object:
    """The prefill backend after `_cutedsl_prefill_backend_fill`: with `cutedsl_mla` in any phase and
    no prefill backend written, SGLang prefills with `trtllm_mla`."""
    if prefill is None and "cutedsl_mla" in (attention, decode):
        return "trtllm_mla"
    return prefill


rule(
    code="SGL1010",
    name="trtllm-mla-on-non-mla-model",
    errors="ca291c5e6351",
    when=lambda cfg: _serves("trtllm_mla", cfg.attention_backend, _prefill_fill(
        cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend),
        cfg.decode_attention_backend) and _kind(cfg, mla=False) and served(cfg.model_path),
    at=PHASES,
    message="`trtllm_mla` serves only MLA models, and this model is not one (`cutedsl_mla` decode "
    "prefills with `trtllm_mla` unless a prefill backend is set)",
    fix=(*_drop("trtllm_mla"), *_drop("cutedsl_mla")),
    example="--model-path Qwen/Qwen3-8B --attention-backend trtllm_mla",
    near_miss="--model-path Qwen/Qwen3-8B --attention-backend trtllm_mha",
)

rule(
    code="SGL1011",
    name="cutedsl-mla-on-non-mla-model",
    errors="acfcfdacb15e",
    when=lambda cfg: _serves("cutedsl_mla", cfg.attention_backend, cfg.prefill_attention_backend,
                             cfg.decode_attention_backend)
    and cfg.prefill_attention_backend not in (None, "trtllm_mla", "cutedsl_mla")
    and _kind(cfg, mla=False) and served(cfg.model_path),
    at=PHASES,
    message="`cutedsl_mla` serves only MLA models, and this model is not one",
    fix=_drop("cutedsl_mla"),
    example="--model-path Qwen/Qwen3-8B --prefill-attention-backend flashinfer --decode-attention-backend cutedsl_mla",
    near_miss="--model-path Qwen/Qwen3-8B --prefill-attention-backend flashinfer --decode-attention-backend flashinfer",
)

rule(
    code="SGL1012",
    name="trtllm-mha-on-mla-model",
    errors="e1bc7cf47eef",
    when=lambda cfg: _serves("trtllm_mha", cfg.attention_backend, cfg.prefill_attention_backend,
                             cfg.decode_attention_backend) and _kind(cfg, mla=True) and served(cfg.model_path),
    at=PHASES,
    message="`trtllm_mha` serves only models that are not MLA, and this is an MLA model",
    fix=_drop("trtllm_mha"),
    example="--model-path deepseek-ai/DeepSeek-V3 --attention-backend trtllm_mha",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --attention-backend trtllm_mla",
)

rule(
    code="SGL1013",
    name="hpc-ops-on-mla-model",
    errors="7a283ca404e6",
    when=lambda cfg: _serves("hpc_ops", cfg.attention_backend, cfg.prefill_attention_backend,
                             cfg.decode_attention_backend) and _kind(cfg, mla=True) and served(cfg.model_path),
    at=PHASES,
    message="`hpc_ops` serves only models that are not MLA, and this is an MLA model",
    fix=_drop("hpc_ops"),
    example="--model-path deepseek-ai/DeepSeek-V3 --attention-backend hpc_ops",
    near_miss="--model-path Qwen/Qwen3-8B --attention-backend hpc_ops --page-size 64",
)


# -- model-family backend allow-lists (handle_model_specific_adjustments) -------------

# The backends GptOssForCausalLM accepts, the same list in 0.5.17 to 0.5.23.
_GPT_OSS_BACKENDS = frozenset({"triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_amx", "intel_xpu", "aiter"})


def _outside(allowed: frozenset[str], attention: object, prefill: object, decode: object) -> bool:
    """A phase's backend (`attention_backends_of`) is written and not allowed. With no backend
    written the model's override picks an allowed one; with a phase left to SGLang, unknown."""
    phases = (prefill or attention, decode or attention)
    if attention is None and prefill is None and decode is None:
        return False
    if None in phases:
        raise Unresolvable("a phase's backend is left to SGLang")
    return any(backend not in allowed for backend in phases)


rule(
    code="SGL1014",
    name="gpt-oss-unsupported-attention-backend",
    errors="7d6bf45f9c8e",
    when=lambda cfg: _outside(_GPT_OSS_BACKENDS, cfg.attention_backend, cfg.prefill_attention_backend,
                              cfg.decode_attention_backend)
    and _fact(cfg, "architecture") == "GptOssForCausalLM" and served(cfg.model_path),
    at=PHASES,
    message="GPT-OSS needs one of " + ", ".join(f"`{b}`" for b in sorted(_GPT_OSS_BACKENDS))
    + " for prefill and decode",
    fix=tuple(remove(dest) for dest in PHASES),
    example="--model-path openai/gpt-oss-120b --attention-backend flashinfer",
    near_miss="--model-path openai/gpt-oss-120b --attention-backend triton",
    note="Without a backend flag, GPT-OSS's model override picks one for the GPU.",
)

rule(
    code="SGL1015",
    name="gpt-oss-triton-kernel-moe-with-expert-parallelism",
    errors="805d7436e57d",
    when=lambda cfg: cfg.moe_runner_backend == "triton_kernel" and cfg.ep_size > 1 and _ep_as_written(
        cfg.ep_size, cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill, cfg.dwdp_size,
        cfg.enable_prefill_cp)
    and not _outside(_GPT_OSS_BACKENDS, cfg.attention_backend, cfg.prefill_attention_backend,
                     cfg.decode_attention_backend)
    and _fact(cfg, "architecture") == "GptOssForCausalLM" and served(cfg.model_path),
    at=("ep_size", "moe_runner_backend"),
    message="GPT-OSS with `--moe-runner-backend triton_kernel` needs `--ep-size 1`, got `--ep-size {ep_size}`",
    fix=remove("ep_size"),
    example="--model-path openai/gpt-oss-120b --tp-size 2 --ep-size 2 --moe-runner-backend triton_kernel",
    near_miss="--model-path openai/gpt-oss-120b --tp-size 2 --moe-runner-backend triton_kernel",
)
