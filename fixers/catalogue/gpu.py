"""Catalogue rules: SGLang's checks of the GPU a launch runs on (its platform probes:
`get_platform().is_cuda`, `is_hip`, `is_sm90`, `is_sm100`, `is_sm120`, the device capability).

They run only when the GPU is known (`--gpu`, the configuration, or the GPU the launch's
file names: autofix.gpuhints); each Example names the GPU it is judged on, and the judge
answers SGLang's probes as that GPU would. SGLang's `is_sm100` is compute capability 10.x
(B200, B300, GB200, GB300), `is_sm120` 12.x (RTX 5090, RTX PRO 6000, GB10).
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import gpu, on_nvidia, served
from .attention_moe_more import _FI_MEGAMOE, _MEGAMOE_MODELS, _a2a, _attn_dp, _linear_decode
from .kv_shard import _nvfp4_kv, _overrides_keep


def _backends(cfg) -> tuple[object, object]:  # noqa: ANN001
    """(prefill, decode) as the attention checks resolve them from what is written: a split
    backend wins over the base one; equal split backends become the base one; DeepSeek-V4's
    overrides replace the base one with dsv4."""
    attention, prefill, decode = cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend
    if prefill is None or prefill != decode:
        if cfg.model.architecture == "DeepseekV4ForCausalLM":
            attention = "dsv4"
    return prefill or attention, decode or attention


def _capability_major(cfg) -> int:  # noqa: ANN001
    """`torch.cuda.get_device_capability()[0]` of an NVIDIA GPU (0 elsewhere)."""
    found = gpu(cfg)
    return found.sm // 10 if found.sm is not None else 0


# -- handle_attention_backend_compatibility (attention_hook.py) --------------------------

rule(
    code="SGL900",
    name="trtllm-mha-prefill-context-parallel-on-non-sm100-gpu",
    errors="e6486318c973",
    # On another GPU than SM90/SM100/SM120 the trtllm_mha prefill is refused first (SGL206);
    # on SM120 an fp8_e4m3 KV cache is refused first.
    when=lambda cfg: served(cfg.model_path) and _backends(cfg)[0] == "trtllm_mha"
    and (gpu(cfg).is_sm90 or gpu(cfg).is_sm120)
    and not (gpu(cfg).is_sm120 and cfg.kv_cache_dtype == "fp8_e4m3")
    and _overrides_keep(cfg.model, cfg.attention_backend, cfg.prefill_attention_backend)
    and cfg.attn_cp_size > 1,
    at=("attn_cp_size", "prefill_attention_backend", "attention_backend"),
    message=lambda cfg: "prefill context parallelism (`--attn-cp-size "
    f"{cfg.attn_cp_size}`) with the `trtllm_mha` prefill backend needs an SM100 GPU: the fmha_v2 prefill "
    f"path of {gpu(cfg).label} does not mask CP shards",
    fix=remove("attn_cp_size"),
    gpu="h100",
    example="--model-path Qwen/Qwen3-8B --tp 2 --attention-backend trtllm_mha --attn-cp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp 2 --attention-backend trtllm_mha",
)

# -- the attention backends the model runner creates (attention_registry.py) -------------


def _fa3_refused(cfg) -> bool:  # noqa: ANN001
    """create_flashattention_v3_backend's capability check fails on this NVIDIA GPU: it needs
    SM90, or SM80 for a model that is not MLA (ROCm GPUs pass it)."""
    found = gpu(cfg)
    if not found.is_cuda or found.sm is None or found.sm // 10 == 9:
        return False
    if found.sm // 10 == 8:
        mla = cfg.model.mla
        if mla is None:
            raise Unresolvable("whether the model is MLA is not known")
        return mla
    return True


rule(
    code="SGL911",
    name="fa3-attention-on-unsupported-gpu",
    errors="927a773b30fc",
    # An fp8_e5m2 KV cache turns a base fa3 backend into triton first.
    when=lambda cfg: served(cfg.model_path) and "fa3" in _backends(cfg)
    and not (cfg.attention_backend == "fa3" and cfg.kv_cache_dtype == "fp8_e5m2" and "fa3" not in (
        cfg.prefill_attention_backend, cfg.decode_attention_backend))
    and _overrides_keep(cfg.model, cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    and _fa3_refused(cfg),
    at=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
    message=lambda cfg: "FlashAttention v3 (`fa3`) runs on SM90 GPUs, and on SM80 for models that are not MLA; "
    f"not on {gpu(cfg).label}: use `--attention-backend flashinfer`",
    fix=(remove("attention_backend"), remove("prefill_attention_backend"), remove("decode_attention_backend")),
    gpu="b200",
    example="--model-path Qwen/Qwen3-8B --attention-backend fa3",
    near_miss="--model-path Qwen/Qwen3-8B --attention-backend flashinfer",
)

# -- handle_linear_attn_backend (attention_hook.py) --------------------------------------
# An unset --mamba-ssm-dtype is None when these checks read it (nothing resolves it earlier).

rule(
    code="SGL901",
    name="flashinfer-linear-attn-decode-without-bf16-ssm-on-sm100",
    errors="79bc9833be0e",
    when=lambda cfg: served(cfg.model_path) and cfg.linear_attn_decode_backend != "flashkda"
    and cfg.mamba_ssm_dtype != "bfloat16"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    == "flashinfer" and on_nvidia(cfg) and _capability_major(cfg) >= 10,
    at=("linear_attn_decode_backend", "linear_attn_backend", "mamba_ssm_dtype"),
    message=lambda cfg: f"the flashinfer linear-attention decode backend on {gpu(cfg).label} needs "
    f"`--mamba-ssm-dtype bfloat16`, got {cfg.mamba_ssm_dtype!r}",
    fix=set_("mamba_ssm_dtype", "bfloat16"),
    safe=True,
    gpu="b200",
    # The flashinfer prefill backend needs CUDA 13 on SM100 (a811adbc2d65): the Example decodes with it only.
    example="--model-path Qwen/Qwen3-8B --linear-attn-decode-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --linear-attn-decode-backend flashinfer --mamba-ssm-dtype bfloat16",
)

rule(
    code="SGL902",
    name="flashinfer-linear-attn-verify-without-bf16-ssm-on-sm100",
    errors="4b680ac5dd52",
    # A flashinfer decode backend is refused first (SGL901); SGLANG_ENABLE_PP_SPEC is not set.
    when=lambda cfg: served(cfg.model_path) and cfg.linear_attn_decode_backend != "flashkda"
    and cfg.mamba_ssm_dtype != "bfloat16" and cfg.linear_attn_verify_backend == "flashinfer"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    != "flashinfer" and on_nvidia(cfg) and _capability_major(cfg) >= 10,
    at=("linear_attn_verify_backend", "mamba_ssm_dtype"),
    message=lambda cfg: f"`--linear-attn-verify-backend flashinfer` on {gpu(cfg).label} needs "
    f"`--mamba-ssm-dtype bfloat16`, got {cfg.mamba_ssm_dtype!r}",
    fix=set_("mamba_ssm_dtype", "bfloat16"),
    safe=True,
    gpu="b200",
    example="--model-path Qwen/Qwen3-8B --linear-attn-verify-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16",
)

# -- handle_mamba_backend (mamba_hook.py): stochastic rounding of the SSM cache ------------


def _stochastic_rounding(cfg) -> bool:  # noqa: ANN001
    """Stochastic rounding is on and passes the checks before the platform's: valid Philox
    rounds and states per path, and a float16 SSM cache."""
    return served(cfg.model_path) and cfg.enable_mamba_cache_stochastic_rounding \
        and cfg.get("mamba_cache_philox_rounds", 0) >= 0 \
        and cfg.get("mamba_max_states_per_path", -1) != 0 and cfg.get("mamba_max_states_per_path", -1) >= -1 \
        and cfg.mamba_ssm_dtype == "float16"


_ROUNDING = "--model-path Qwen/Qwen3-8B --enable-mamba-cache-stochastic-rounding --mamba-ssm-dtype float16"

rule(
    code="SGL903",
    name="mamba-stochastic-rounding-on-non-cuda-gpu",
    errors="69178f3a2d4e",
    when=lambda cfg: cfg.enable_mamba_cache_stochastic_rounding and _stochastic_rounding(cfg) and not on_nvidia(cfg),
    at="enable_mamba_cache_stochastic_rounding",
    message=lambda cfg: "stochastic rounding of the Mamba SSM cache runs only on NVIDIA CUDA GPUs, "
    f"not {gpu(cfg).label}",
    fix=remove("enable_mamba_cache_stochastic_rounding"),
    safe=True,
    gpu="mi300x",
    example=_ROUNDING,
    near_miss="--model-path Qwen/Qwen3-8B --mamba-ssm-dtype float16",
)

rule(
    code="SGL904",
    name="mamba-stochastic-rounding-triton-on-non-sm100-gpu",
    errors="d746208c05a7",
    when=lambda cfg: cfg.enable_mamba_cache_stochastic_rounding and _stochastic_rounding(cfg) and on_nvidia(cfg)
    and cfg.mamba_backend == "triton"
    and not gpu(cfg).is_sm100,
    at=("mamba_backend", "enable_mamba_cache_stochastic_rounding"),
    message=lambda cfg: "stochastic rounding of the Mamba SSM cache with the triton Mamba backend needs an "
    f"SM100 GPU (its cvt.rs PTX instruction), not {gpu(cfg).label}; use `--mamba-backend flashinfer`",
    fix=set_("mamba_backend", "flashinfer"),
    gpu="h100",
    example=_ROUNDING,
    near_miss=_ROUNDING + " --mamba-backend flashinfer",
)

# -- MegaMoE (mega_moe_hook.py, moe_hook.py) ---------------------------------------------

rule(
    code="SGL905",
    name="megamoe-on-unsupported-gpu",
    errors="5491fcfeec41",
    # check_mega_moe_compat runs first in the pipeline, for every model path.
    when=lambda cfg: (cfg.moe_a2a_backend == "megamoe" or cfg.moe_runner_backend == "megamoe")
    and not cfg.enable_two_batch_overlap and not cfg.enable_single_batch_overlap
    and not (gpu(cfg).is_cuda and (gpu(cfg).is_sm90 or gpu(cfg).is_sm100)) and not gpu(cfg).is_hip,
    at=("moe_a2a_backend", "moe_runner_backend"),
    message=lambda cfg: "`--moe-a2a-backend megamoe` needs an SM90 (block-FP8 experts) or SM100-class "
    f"(MXFP4/NVFP4 experts) NVIDIA GPU, or ROCm; {gpu(cfg).label} is neither",
    fix=(remove("moe_a2a_backend"), remove("moe_runner_backend")),
    gpu="a100",
    example="--model-path Qwen/Qwen3-8B --tp 8 --moe-a2a-backend megamoe",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8",
)

rule(
    code="SGL906",
    name="flashinfer-megamoe-on-non-sm100-gpu",
    errors="9de4f35ece8c",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer_megamoe" and cfg.model.architecture in _MEGAMOE_MODELS
    and cfg.quantization in ("mxfp8", "modelopt_fp4") and cfg.get("ep_join_mode") != "scale"
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and cfg.moe_runner_backend in ("auto", "flashinfer_megamoe") and not gpu(cfg).is_sm100,
    at="moe_a2a_backend",
    message=lambda cfg: "`--moe-a2a-backend flashinfer_megamoe` needs an SM100-family NVIDIA GPU, "
    f"not {gpu(cfg).label}",
    fix=remove("moe_a2a_backend"),
    gpu="h100",
    example=_FI_MEGAMOE + " --dp 8 --enable-dp-attention",
    near_miss=_FI_MEGAMOE.replace(" --moe-a2a-backend flashinfer_megamoe", "") + " --dp 8 --enable-dp-attention",
)

# -- quantization (overrides.py: _moe_runner_backend_quant_constraints) -------------------

rule(
    code="SGL907",
    name="nvfp4-online-quantization-on-non-sm100-gpu",
    errors="63225ef158cf",
    when=lambda cfg: served(cfg.model_path) and cfg.quantization == "nvfp4_online" and not gpu(cfg).is_sm100,
    at="quantization",
    message=lambda cfg: f"`--quantization nvfp4_online` runs only on SM100/SM103 NVIDIA GPUs, not {gpu(cfg).label}",
    fix=remove("quantization"),
    gpu="h100",
    example="--model-path Qwen/Qwen3-8B --quantization nvfp4_online",
    near_miss="--model-path Qwen/Qwen3-8B --quantization fp8",
)

# -- handle_environment_variables and handle_multimodal_feature_transport (serving_hook.py) ----

rule(
    code="SGL908",
    name="deepseek-v4-fp4-indexer-on-unsupported-gpu",
    errors="6b64293d1530",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_deepseek_v4_fp4_indexer
    and not (gpu(cfg).is_sm100 or gpu(cfg).is_sm120 or gpu(cfg).arch == "gfx950"),
    at="enable_deepseek_v4_fp4_indexer",
    message=lambda cfg: "`--enable-deepseek-v4-fp4-indexer` needs an SM100, SM120 or gfx95 GPU with FP4 "
    f"indexer support, not {gpu(cfg).label}",
    fix=remove("enable_deepseek_v4_fp4_indexer"),
    safe=True,
    gpu="h100",
    example="--model-path deepseek-ai/DeepSeek-V4-Flash --tp 8 --enable-deepseek-v4-fp4-indexer",
    near_miss="--model-path deepseek-ai/DeepSeek-V4-Flash --tp 8",
)

rule(
    code="SGL909",
    name="cuda-vmm-feature-transport-on-non-cuda-gpu",
    errors="8babc27d3be9",
    # encoder-only serving sends its features another way: the transport becomes cpu.
    when=lambda cfg: served(cfg.model_path) and cfg.mm_feature_transport == "cuda_vmm" and not cfg.encoder_only
    and not on_nvidia(cfg),
    at="mm_feature_transport",
    message=lambda cfg: f"`--mm-feature-transport cuda_vmm` needs NVIDIA CUDA, not {gpu(cfg).label}",
    fix=remove("mm_feature_transport"),
    safe=True,
    gpu="mi300x",
    example="--model-path Qwen/Qwen2.5-VL-7B-Instruct --mm-feature-transport cuda_vmm",
    near_miss="--model-path Qwen/Qwen2.5-VL-7B-Instruct --mm-feature-transport cpu",
)

rule(
    code="SGL910",
    name="cuda-ipc-feature-transport-on-non-cuda-gpu",
    errors="332e2894bf43",
    when=lambda cfg: served(cfg.model_path) and cfg.mm_feature_transport == "cuda_ipc" and not cfg.encoder_only
    and not on_nvidia(cfg),
    at="mm_feature_transport",
    message=lambda cfg: f"`--mm-feature-transport cuda_ipc` needs NVIDIA CUDA, not {gpu(cfg).label}",
    fix=remove("mm_feature_transport"),
    safe=True,
    gpu="mi300x",
    example="--model-path Qwen/Qwen2.5-VL-7B-Instruct --mm-feature-transport cuda_ipc",
    near_miss="--model-path Qwen/Qwen2.5-VL-7B-Instruct --mm-feature-transport cpu",
)
