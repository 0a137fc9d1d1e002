"""Catalogue rules: what SGLang checks of the device and GPU a launch runs on beyond its attention
backends: the CPU graph's batch sizes (`handle_gpu_memory_settings` in `memory_hook.py`), the
GPU as the model runner loads the model (`maybe_downgrade_dtype_for_legacy_gpu` in
`model_runner_components/load_model_utils.py`), the CUDA toolkit FlashInfer's GDN prefill
needs (`handle_linear_attn_backend`), and the CUDA-only paths of elastic EP's graph recapture
(`handle_elastic_ep`) and DSA KV sharding (`validate_kv_shard_attention_backend`).

They run only when the GPU is known (`--gpu`); the judge answers SGLang's device probes as
that GPU would.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import gpu, served
from .elastic_ep import BEFORE_GRAPHS_PASS, _elastic_refusal
from .kv_shard import _deepseek

# A primary elastic EP scale-up deployment (elastic_ep.py's), with no prefill CUDA graph.
_SCALE_UP_GRAPHS = ("--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
                    "--ep-size 2 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 4 "
                    "--load-balance-method round_robin --cuda-graph-backend-prefill disabled")

rule(
    code="SGL992",
    name="gpu-below-sm75",
    errors="8db21d652292",
    # The runner checks a CUDA device only (an unset --device is cuda on an NVIDIA GPU).
    when=lambda cfg: cfg.device in (None, "cuda") and served(cfg.model_path) and gpu(cfg).is_cuda
    and gpu(cfg).sm is not None and gpu(cfg).sm < 75,
    at=("device", "model_path"),
    message=lambda cfg: f"SGLang serves on NVIDIA GPUs of SM75 (Turing) and newer; {gpu(cfg).label} is older",
    gpu="v100",
    example="--model-path Qwen/Qwen3-8B",
    near_miss="--model-path Qwen/Qwen3-8B --device cpu",
    note="Below SM80 SGLang serves float16 (no bfloat16); a T4 (SM75) still starts.",
)


# -- handle_gpu_memory_settings: the CPU graph (memory_hook.py) ---------------------------
# On `--device cpu` the graph is torch.compile's, sized by the decode batch sizes: their largest
# becomes torch_compile_max_bs, which must be positive.


def _no_positive_decode_batch(cuda_graph_config: object, sizes: object) -> bool:
    if cuda_graph_config is not None:
        raise Unresolvable("--cuda-graph-config is read by SGLang's own parser")
    return isinstance(sizes, list) and bool(sizes) and max(sizes) <= 0


rule(
    code="SGL993",
    name="cpu-graph-without-positive-batch-size",
    errors="5d65152dec96",
    when=lambda cfg: cfg.device == "cpu" and served(cfg.model_path)
    and _no_positive_decode_batch(cfg.cuda_graph_config, cfg.cuda_graph_bs_decode),
    at="cuda_graph_bs_decode",
    message=lambda cfg: "on `--device cpu` the largest `--cuda-graph-bs-decode` size bounds the torch.compile "
    f"graph and must be positive, got `{' '.join(map(str, cfg.cuda_graph_bs_decode))}`",
    fix=remove("cuda_graph_bs_decode"),
    example="--model-path Qwen/Qwen3-8B --device cpu --cuda-graph-bs-decode 0",
    near_miss="--model-path Qwen/Qwen3-8B --device cpu --cuda-graph-bs-decode 0 4",
)

# -- handle_linear_attn_backend: FlashInfer's GDN prefill and the CUDA toolkit (attention_hook.py) --
# On compute capability 10 and above (SM100, SM103, SM120: `get_device_capability()[0] >= 10`),
# FlashInfer's GDN prefill is a CuTe DSL kernel built for CUDA 13. The toolkit is known only
# when the GPU's name carries it (`--gpu b200-cu129`).


def _linear_backends_pass(decode_backend: object, backend: object, verify_backend: object,
                          mamba_ssm_dtype: object) -> bool:
    """The decode and verify checks before it pass: flashinfer there needs a bfloat16 SSM state.
    An unset decode backend may become flashinfer on SM100 (with a bfloat16 state: it passes)."""
    decode = decode_backend or backend
    verify = verify_backend or ("flashinfer" if decode == "flashinfer" else None)
    if "flashinfer" not in (decode, verify):
        return True
    if mamba_ssm_dtype is None:
        raise Unresolvable("the SSM state dtype is resolved from the model")
    return mamba_ssm_dtype == "bfloat16"


def _cuda_below_13(cfg) -> bool:  # noqa: ANN001 (it reads the GPU, not a flag)
    found = gpu(cfg)
    if not found.is_cuda or found.sm is None or found.sm // 10 < 10:
        return False
    if found.cuda is None:
        raise Unresolvable("the CUDA toolkit is not known")
    return found.cuda[0] < 13


rule(
    code="SGL994",
    name="flashinfer-gdn-prefill-on-sm100-below-cuda-13",
    errors="a811adbc2d65",
    when=lambda cfg: (cfg.linear_attn_prefill_backend or cfg.linear_attn_backend) == "flashinfer"
    and _cuda_below_13(cfg)
    and _linear_backends_pass(cfg.linear_attn_decode_backend, cfg.linear_attn_backend,
                              cfg.linear_attn_verify_backend, cfg.mamba_ssm_dtype),
    at=("linear_attn_prefill_backend", "linear_attn_backend"),
    message=lambda cfg: f"FlashInfer's linear-attention (GDN) prefill on {gpu(cfg).label} needs CUDA 13 or newer",
    fix=set_("linear_attn_prefill_backend", "triton"),
    gpu="b200-cu129",
    example="--model-path Qwen/Qwen3-8B --linear-attn-prefill-backend flashinfer",
    near_miss="--model-path Qwen/Qwen3-8B --linear-attn-prefill-backend triton",
    note="Name the GPU with its CUDA toolkit, as SGLang's image tags spell it (`--gpu b200-cu129`, "
    "`--gpu b200-cu130`), for autofix to check this.",
)

# -- handle_elastic_ep: recapturing the decode CUDA graph on scale-up (parallel_hook.py) -------
# Elastic EP scale-up with a full decode CUDA graph recaptures it as ranks join, on CUDA only.
# The device is the launch's `--device`, else the GPU's; the judge confirms Intel XPU's.


def _graphs_full_decode(cuda_graph_config: object, disable: object, decode: object, prefill: object,
                        disable_prefill: object) -> bool:
    """The launch asks a full decode graph and no prefill graph itself (the resolution keeps both)."""
    if cuda_graph_config is not None:
        raise Unresolvable("--cuda-graph-config is read by SGLang's own parser")
    return not disable and decode == "full" and (prefill == "disabled" or (prefill is None and bool(disable_prefill)))


def _device_of(cfg, device: object) -> str:  # noqa: ANN001 (it reads the GPU when --device is unset)
    found = str(device).split(":", 1)[0] if device is not None else gpu(cfg).device
    if found not in ("cuda", "xpu"):
        raise Unresolvable("whether the decode graph stays on is not known for this device")
    return found


rule(
    code="SGL995",
    name="elastic-ep-decode-graph-recapture-off-cuda",
    errors="edb855299a05",
    when=lambda cfg: cfg.elastic_ep_backend is not None and cfg.max_ep_size is not None
    and _graphs_full_decode(cfg.cuda_graph_config, cfg.disable_cuda_graph, cfg.cuda_graph_backend_decode,
                            cfg.cuda_graph_backend_prefill, cfg.get("disable_prefill_cuda_graph", False))
    and _device_of(cfg, cfg.device) != "cuda" and served(cfg.model_path)
    and _elastic_refusal(cfg, upto_graphs=True) == BEFORE_GRAPHS_PASS,
    at=("cuda_graph_backend_decode", "device"),
    message=lambda cfg: "elastic EP scale-up recaptures the full decode CUDA graph on CUDA only, not on "
    f"`{_device_of(cfg, cfg.device)}`",
    fix=set_("cuda_graph_backend_decode", "disabled"),
    gpu="max-1550",
    example=_SCALE_UP_GRAPHS + " --cuda-graph-backend-decode full",
    near_miss=_SCALE_UP_GRAPHS + " --cuda-graph-backend-decode disabled",
)

# -- validate_kv_shard_attention_backend (kv_shard_hook.py) ----------------------------------
# KV cache sharding with the dsa prefill backend shards DeepSeek sparse attention's KV over
# prefill context parallelism, on CUDA. A DeepSeek-V2/V3 model keeps the backend as written.


def _dsa_shard_layout_missing(enable_prefill_cp: object, attn_cp_size: object, cp_strategy: object,
                              pp_size: object) -> bool:
    return not enable_prefill_cp or attn_cp_size <= 1 or cp_strategy != "interleave" or pp_size != 1


rule(
    code="SGL997",
    name="dsa-kv-sharding-without-cuda-interleave-prefill-cp",
    errors="86683d29cb9f",
    when=lambda cfg: cfg.enable_kv_cache_sharding and served(cfg.model_path) and _deepseek(cfg.model)
    and (cfg.prefill_attention_backend or cfg.attention_backend) == "dsa"
    and (_dsa_shard_layout_missing(cfg.enable_prefill_cp, cfg.attn_cp_size, cfg.cp_strategy, cfg.pp_size)
         or _device_of(cfg, cfg.device) != "cuda"),
    at=("prefill_attention_backend", "attention_backend", "enable_kv_cache_sharding"),
    message="`--enable-kv-cache-sharding` with the dsa prefill backend needs CUDA, prefill context parallelism "
    "over the interleave strategy (`--enable-prefill-cp --attn-cp-size` above 1 `--cp-strategy interleave`) "
    "and `--pp-size 1`",
    example="--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --disaggregation-mode prefill "
    "--attention-backend dsa --disable-radix-cache --enable-kv-cache-sharding",
    near_miss="--model-path deepseek-ai/DeepSeek-V2-Lite --tp-size 2 --disaggregation-mode prefill "
    "--attention-backend trtllm_mla --disable-radix-cache --enable-kv-cache-sharding",
)
