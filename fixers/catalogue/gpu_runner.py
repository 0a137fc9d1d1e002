"""Catalogue rules: what SGLang checks of the device a launch's memory and model run on: the
CPU graph's batch sizes (`handle_gpu_memory_settings` in `memory_hook.py`), and the GPU as the
model runner loads the model (`maybe_downgrade_dtype_for_legacy_gpu` in
`model_runner_components/load_model_utils.py`).

They run only when the GPU is known (`--gpu`); the judge answers SGLang's device probes as
that GPU would.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule

from ._common import gpu, served

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
