"""`--gpu NAME`: the GPU table, GPU rules that run only when a GPU is named, and `gpu` in the configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.config import ConfigError, load_config
from autofix.fixer import all_fixers, select
from autofix.formats import SHELL
from autofix.knowledge.gpus import GPUS, gpu_named
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

# -- the table -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("h100", "h100"),
        ("H100", "h100"),
        ("H100-SXM", "h100"),
        ("h100_sxm5_80gb", "h100"),
        ("NVIDIA H200 NVL", "h200"),
        ("GH200", "gh200"),
        ("b200", "b200"),
        ("GB300", "gb300"),
        ("RTX PRO 6000 Blackwell", "rtx-pro-6000"),
        ("RTX 5090", "rtx5090"),
        ("AMD Instinct MI300X", "mi300x"),
        ("MI355X", "mi355x"),
        ("a100-80gb", "a100"),
    ],
)
def test_names_and_aliases(name: str, expected: str) -> None:
    gpu = gpu_named(name)
    assert gpu is not None and gpu.name == expected


@pytest.mark.parametrize("name", ["", "rtx", "h1000", "tpu-v5", "nvidia"])
def test_unknown_names(name: str) -> None:
    assert gpu_named(name) is None


def test_what_sglang_probes_sees() -> None:
    h100, b200, b300, rtx, mi300x = (gpu_named(n) for n in ("h100", "b200", "b300", "rtx5090", "mi300x"))
    assert (h100.is_cuda, h100.is_sm90, h100.is_sm100, h100.is_blackwell) == (True, True, False, False)
    assert (b200.is_sm100, b200.is_blackwell, b200.sm) == (True, True, 100)
    assert (b300.is_sm100, b300.sm) == (True, 103)  # SGLang's is_sm100 is the whole 10.x family
    assert (rtx.is_sm120, rtx.is_sm100, rtx.is_blackwell) == (True, False, True)
    assert (mi300x.is_cuda, mi300x.is_hip, mi300x.is_blackwell, mi300x.arch) == (False, True, False, "gfx942")
    assert h100.label == "H100 (SM90)" and mi300x.label == "MI300X (gfx942)"


@pytest.mark.parametrize(
    ("name", "expected", "cuda"),
    [
        ("b200-cu129", "b200", (12, 9)),
        ("B200-cu130", "b200", (13, 0)),
        ("h100-sxm-cu126", "h100", (12, 6)),
        ("NVIDIA GB300 cu130", "gb300", (13, 0)),
        ("h100", "h100", None),
    ],
)
def test_a_name_may_carry_the_cuda_toolkit(name: str, expected: str, cuda: tuple[int, int] | None) -> None:
    gpu = gpu_named(name)
    assert gpu is not None and (gpu.name, gpu.cuda) == (expected, cuda)


def test_the_cuda_toolkit_is_named_for_nvidia_gpus_only() -> None:
    assert gpu_named("mi300x-cu129") is None and gpu_named("max-1550-cu129") is None
    assert gpu_named("b200-cu129").label == "B200 (SM100, CUDA 12.9)"


def test_every_entry_has_a_vendor_and_an_architecture() -> None:
    # NVIDIA GPUs by compute capability, AMD ones by gfx target, the others by their platform alone.
    kinds = {("nvidia", True, False), ("amd", False, True), ("intel", False, False), ("ascend", False, False),
             ("mthreads", False, False)}
    for name, gpu in GPUS.items():
        assert gpu.name == name
        assert (gpu.vendor, gpu.sm is not None, gpu.arch is not None) in kinds


@pytest.mark.parametrize(
    ("name", "expected", "device", "label"),
    [
        ("Intel Data Center GPU Max 1550", "max-1550", "xpu", "MAX-1550 (XPU)"),
        ("Arc B580", "arc-b580", "xpu", "ARC-B580 (XPU)"),
        ("Ascend910B", "ascend-910b", "npu", "ASCEND-910B (NPU)"),
        ("Moore Threads MTT S4000", "mtt-s4000", "musa", "MTT-S4000 (MUSA)"),
        ("h100", "h100", "cuda", "H100 (SM90)"),
        ("mi300x", "mi300x", "cuda", "MI300X (gfx942)"),
    ],
)
def test_other_platforms_are_known_by_vendor(name: str, expected: str, device: str, label: str) -> None:
    gpu = gpu_named(name)
    assert (gpu.name, gpu.device, gpu.label) == (expected, device, label)
    assert (gpu.is_xpu, gpu.is_npu, gpu.is_musa) == (device == "xpu", device == "npu", device == "musa")
    assert not gpu.is_cuda or device == "cuda"


# -- opt-in ----------------------------------------------------------------------------

TRTLLM_MLA = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --attention-backend trtllm_mla\n"


def codes(text: str, gpu: str | None) -> list[str]:
    settings = Settings(select(["ALL"]), gpu=gpu_named(gpu) if gpu else None)
    return [r.fixer.code for r in fix_text(Source(text), SHELL, settings).findings]


def test_gpu_rules_are_marked_and_on_by_default() -> None:
    gpu_rules = [fx for fx in all_fixers() if fx.gpu]
    assert {fx.code for fx in gpu_rules} >= {f"SGL20{i}" for i in range(8)}
    assert all(fx.default for fx in gpu_rules)
    assert all("`--gpu " in fx.doc.split("## Example", 1)[1].split("```", 1)[0] for fx in gpu_rules)


def test_gpu_rules_run_only_when_a_gpu_is_named() -> None:
    assert "SGL200" not in codes(TRTLLM_MLA, None)
    assert "SGL200" in codes(TRTLLM_MLA, "h100")
    assert "SGL200" not in codes(TRTLLM_MLA, "b200")


def test_settings_take_a_gpu_name_too() -> None:
    assert Settings([], gpu="H100-SXM").gpu == gpu_named("h100")
    with pytest.raises(ValueError, match="unknown GPU"):
        Settings([], gpu="h1000")


# -- the command line and the configuration -------------------------------------------


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "launch.sh").write_text(TRTLLM_MLA)
    return tmp_path


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_cli_gpu_option(tree: Path) -> None:
    assert invoke("launch.sh").exit_code == 0
    result = invoke("--gpu", "H100-SXM", "--format", "json", "launch.sh")
    assert result.exit_code == 1
    assert [f["code"] for f in json.loads(result.stdout)] == ["SGL200"]
    assert "H100 (SM90)" in json.loads(result.stdout)[0]["message"]


def test_cli_unsafe_fix_on_a_named_gpu(tree: Path) -> None:
    result = invoke("--gpu", "h100", "--fix", "--unsafe-fixes", "launch.sh")
    assert result.exit_code == 0
    assert (tree / "launch.sh").read_text() == TRTLLM_MLA.replace(" --attention-backend trtllm_mla", "")


def test_cli_unknown_gpu_is_a_usage_error(tree: Path) -> None:
    result = invoke("--gpu", "h1000", "launch.sh")
    assert result.exit_code == 2
    assert "unknown GPU 'h1000'" in result.stderr
    assert "h100" in result.stderr  # the known names are listed


def test_gpu_in_the_configuration(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.autofix]\ngpu = "mi300x"\n')
    assert load_config(tree / "pyproject.toml").gpu == "mi300x"
    result = invoke("--format", "json", "launch.sh")
    assert [f["code"] for f in json.loads(result.stdout)] == ["SGL200"]
    # The command line wins.
    assert invoke("--gpu", "gb200", "launch.sh").exit_code == 0


def test_gpu_in_the_configuration_must_be_a_string(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("[tool.autofix]\ngpu = 100\n")
    with pytest.raises(ConfigError, match="gpu"):
        load_config(tree / "pyproject.toml")
