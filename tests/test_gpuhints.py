"""The GPU a launch file names for itself (autofix.gpuhints), and the GPU rules it turns on."""

from __future__ import annotations

import pytest

from autofix.fixer import select
from autofix.formats import SHELL, YAML
from autofix.gpuhints import gpu_in_text, gpus_in_text
from autofix.knowledge.gpus import gpu_named
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

# -- what names a GPU ------------------------------------------------------------------------

NAMED = {
    "skypilot-inline": ("resources:\n  accelerators: H100:8\n", "h100"),
    "skypilot-no-count": ("resources:\n  accelerators: L40S\n", "l40s"),
    "skypilot-memory-variant": ("resources:\n  accelerators: A100-80GB:4  # or A100\n", "a100"),
    "skypilot-flow-map": ("resources:\n  accelerators: {H100: 8}\n", "h100"),
    "skypilot-flow-list-of-one-gpu": ("resources:\n  accelerators: [A100:8, A100-80GB:8]\n", "a100"),
    "skypilot-block": ("resources:\n  accelerators:\n    B200: 8\n  ports: 8000\n", "b200"),
    "skypilot-block-list": ("resources:\n  accelerators:\n    - H200:8\n", "h200"),
    "skypilot-quoted": ("resources:\n  accelerators: 'H100:8'\n", "h100"),
    "skypilot-cli": ("sky launch -c serve --gpus H100:8 serve.yaml\n", "h100"),
    "skypilot-python": ("task.set_resources(sky.Resources(accelerators='B200:8'))\n", "b200"),
    "k8s-node-selector": ("      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n", "h100"),
    "k8s-node-selector-quoted": ('nodeSelector:\n  "nvidia.com/gpu.product": "NVIDIA-B200"\n', "b200"),
    "k8s-label-selector": ("kubectl get nodes -l nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB\n", "a100"),
    "k8s-affinity-block": (
        "- matchExpressions:\n    - key: nvidia.com/gpu.product\n      operator: In\n"
        "      values:\n        - NVIDIA-H200\n", "h200"),
    "k8s-affinity-flow": (
        "- key: nvidia.com/gpu.product\n  operator: In\n  values: [\"NVIDIA-GB200\"]\n", "gb200"),
    "k8s-affinity-operator-first": (
        "- operator: In\n  key: nvidia.com/gpu.product\n  values: [NVIDIA-H100-80GB-HBM3]\n", "h100"),
    "gke-node-selector": ("nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-h100-80gb\n", "h100"),
    "gke-tesla": ("nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-tesla-a100\n", "a100"),
    "gke-affinity": (
        "- key: cloud.google.com/gke-accelerator\n  operator: In\n  values:\n  - nvidia-l4\n", "l4"),
    "slurm-gres": ("#!/bin/bash\n#SBATCH --gres=gpu:h100:8\n", "h100"),
    "slurm-gres-no-count": ("#SBATCH --gres=gpu:a100\n", "a100"),
    "slurm-gres-site-name": ("#SBATCH --gres=gpu:nvidia_h100_80gb_hbm3:4\n", "h100"),
    "slurm-gpus": ("#SBATCH --gpus-per-node=b200:8\n", "b200"),
    "slurm-constraint": ("#SBATCH --constraint=h100\n", "h100"),
    "slurm-constraint-short": ("#SBATCH -C h200\n", "h200"),
    "slurm-constraint-features": ('#SBATCH --constraint="gpu&a100"\n', "a100"),
    "slurm-srun-line": ("srun --gres=gpu:h100:8 python -m sglang.launch_server --model-path m\n", "h100"),
    "runner-label": ("jobs:\n  test:\n    runs-on: 8-gpu-h200\n", "h200"),
    "runner-label-b200": ("jobs:\n  test:\n    runs-on: 4-gpu-b200\n", "b200"),
    "runner-flow-list": ("jobs:\n  test:\n    runs-on: [self-hosted, h100]\n", "h100"),
    "runner-block-list": ("jobs:\n  test:\n    runs-on:\n      - self-hosted\n      - b200\n", "b200"),
    "runner-geforce-number": ("jobs:\n  test:\n    runs-on: 1-gpu-5090\n", "rtx5090"),
    "runner-amd": ("jobs:\n  test:\n    runs-on: linux-mi300-gpu-1\n", "mi300"),
    "runner-amd-mi35x": ("jobs:\n  test:\n    runs-on: linux-mi35x-gpu-8\n", "mi350"),
    "one-gpu-in-two-forms": ("#SBATCH --gres=gpu:h100:8\n#SBATCH --constraint=h100\n", "h100"),
}


@pytest.mark.parametrize(("text", "expected"), NAMED.values(), ids=NAMED.keys())
def test_a_file_names_its_gpu(text: str, expected: str) -> None:
    gpu = gpu_in_text(text)
    assert gpu is not None and gpu.name == expected


NOT_NAMED = {
    "nothing": "python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n",
    "gpu-count-k8s": "resources:\n  limits:\n    nvidia.com/gpu: 8\n",
    "gpu-count-slurm": "#SBATCH --gres=gpu:8\n#SBATCH --gpus=4\n",
    "gpu-count-docker": "docker run --gpus all lmsysorg/sglang:latest\n",
    "runner-without-gpu-name": "jobs:\n  test:\n    runs-on: 1-gpu-runner\n",
    "runner-ubuntu": "jobs:\n  test:\n    runs-on: ubuntu-22.04\n",
    "runner-expression": "jobs:\n  test:\n    runs-on: ${{ matrix.runner-h100 }}\n",
    "unknown-gpu-name": "resources:\n  accelerators: TPU-v5p:8\n",
    "affinity-not-in": "- key: nvidia.com/gpu.product\n  operator: NotIn\n  values: [NVIDIA-H100-80GB-HBM3]\n",
    "affinity-operator-first-not-in": "- operator: NotIn\n  key: nvidia.com/gpu.product\n  values: [NVIDIA-A100]\n",
    "two-skypilot-alternatives": "resources:\n  accelerators: {L4:1, A10G:1, A100:1}\n",
    "two-runners": "jobs:\n  a:\n    runs-on: 4-gpu-h100\n  b:\n    runs-on: 8-gpu-h200\n",
    "either-constraint": '#SBATCH --constraint="a100|h100"\n',
    "two-sources-disagree": "#SBATCH --gres=gpu:h100:8\nnodeSelector:\n  nvidia.com/gpu.product: NVIDIA-B200\n",
    "constraint-off-a-slurm-line": "pip install --constraint=h100 -C a100 sglang\n",
    "accelerators-in-prose": "accelerators per engine, so it doubles as a placement\n",
}


@pytest.mark.parametrize("text", NOT_NAMED.values(), ids=NOT_NAMED.keys())
def test_a_file_names_no_gpu(text: str) -> None:
    assert gpu_in_text(text) is None


def test_two_gpus_named_are_both_seen() -> None:
    assert {g.name for g in gpus_in_text(NOT_NAMED["two-runners"])} == {"h100", "h200"}


# -- the GPU rules it turns on -----------------------------------------------------------------

# trtllm_mla needs a Blackwell GPU: SGL200 reports it on Hopper.
LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --attention-backend trtllm_mla"
SKYPILOT = f"resources:\n  accelerators: {{gpu}}:8\n\nrun: |\n  {LAUNCH}\n"
SLURM = f"#!/bin/bash\n#SBATCH --gres=gpu:{{gpu}}:8\nsrun {LAUNCH}\n"
KUBERNETES = (
    "spec:\n  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-{gpu}\n  containers:\n    - name: sglang\n"
    '      command: ["python3", "-m", "sglang.launch_server"]\n'
    '      args: ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "trtllm_mla"]\n'
)
WORKFLOW = f"jobs:\n  test:\n    runs-on: 8-gpu-{{gpu}}\n    steps:\n      - run: {LAUNCH}\n"
FORMS = {"skypilot": (SKYPILOT, YAML), "slurm": (SLURM, SHELL), "kubernetes": (KUBERNETES, YAML),
         "workflow": (WORKFLOW, YAML)}


def gpu_codes(text: str, fmt, gpu: str | None = None) -> list[str]:  # noqa: ANN001
    settings = Settings(select(["ALL"]), gpu=gpu_named(gpu) if gpu else None)
    return [r.fixer.code for r in fix_text(Source(text), fmt, settings).findings if r.fixer.gpu]


@pytest.mark.parametrize(("template", "fmt"), FORMS.values(), ids=FORMS.keys())
def test_the_gpu_a_file_names_turns_its_gpu_rules_on(template: str, fmt) -> None:  # noqa: ANN001
    assert gpu_codes(template.format(gpu="H100"), fmt) == ["SGL200"]
    assert gpu_codes(template.format(gpu="B200"), fmt) == []


def test_a_file_that_names_no_gpu_leaves_gpu_rules_off() -> None:
    assert gpu_codes(f"{LAUNCH}\n", SHELL) == []
    assert gpu_codes(f"#SBATCH --gres=gpu:8\nsrun {LAUNCH}\n", SHELL) == []


def test_a_gpu_named_for_the_run_wins_over_the_files() -> None:
    # --gpu (or the configuration's gpu, which reaches the pipeline the same way) wins.
    assert gpu_codes(SLURM.format(gpu="b200"), SHELL, gpu="h100") == ["SGL200"]
    assert gpu_codes(SLURM.format(gpu="h100"), SHELL, gpu="b200") == []
