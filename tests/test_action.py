"""The GitHub Action: action.yml's steps, run here with a fake runner environment, and its script."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
BAD = (
    "#!/bin/bash\n"
    "python3 -m sglang.launch_server \\\n"
    "    --model-path deepseek-ai/DeepSeek-V3 \\\n"
    "    --attention-backend tokenspeed_mla \\\n"
    "    --port 30000\n"
)
ANNOTATION = ("::error file=launch.sh,line=4,col=5,endLine=4,endColumn=39,title=SGL001 "
              "tokenspeed-mla-without-fp8-kv-cache::")


def _script():  # noqa: ANN202 - the module scripts/github_action.py
    spec = importlib.util.spec_from_file_location("github_action", ROOT / "scripts" / "github_action.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


github_action = _script()


# -- the script ------------------------------------------------------------------------------


def test_default_run_is_annotations_over_the_checkout() -> None:
    assert github_action.commands({}, python="py") == [["py", "-m", "autofix", "--format", "github", "."]]


def test_args_are_shell_words_and_their_format_wins() -> None:
    env = {"INPUT_ARGS": "--sglang-version 0.5.23 'deploy dir/' --format=json", "INPUT_FORMAT": "github"}
    assert github_action.commands(env, python="py") == [
        ["py", "-m", "autofix", "--sglang-version", "0.5.23", "deploy dir/", "--format=json"]]
    assert github_action.commands({"INPUT_FORMAT": "text"}, python="py")[-1][3:] == ["--format", "text", "."]


def test_sarif_file_adds_a_check_before_the_run() -> None:
    env = {"INPUT_ARGS": "--fix --unsafe-fixes -o out.txt --format text --select SGL0 deploy/",
           "INPUT_SARIF_FILE": "autofix.sarif"}
    sarif, run = github_action.commands(env, python="py")
    assert sarif == ["py", "-m", "autofix", "--format", "sarif", "--output-file", "autofix.sarif", "--exit-zero",
                     "--select", "SGL0", "deploy/"]
    assert run == ["py", "-m", "autofix", "--fix", "--unsafe-fixes", "-o", "out.txt", "--format", "text",
                   "--select", "SGL0", "deploy/"]


# -- action.yml ------------------------------------------------------------------------------


def test_action_is_composite_and_installs_autofix_from_its_own_checkout() -> None:
    assert ACTION["runs"]["using"] == "composite"
    steps = ACTION["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    assert steps[0]["with"]["python-version"] == "${{ inputs.python-version }}"
    install = steps[1]
    assert install["env"]["AUTOFIX_SOURCE"] == "${{ github.action_path }}"
    assert 'pip install' in install["run"] and '"$AUTOFIX_SOURCE"' in install["run"]
    # Inputs reach the shell through the environment, never spliced into the script.
    for step in steps:
        assert "${{" not in step.get("run", "")
    assert set(ACTION["inputs"]) == {"args", "format", "sarif-file", "python-version"}
    assert ACTION["inputs"]["format"]["default"] == "github"


def _expand(value: str, inputs: dict[str, str]) -> str:
    """The GitHub expressions action.yml uses, evaluated as the runner would."""
    def one(match: re.Match) -> str:
        name = match[1].strip()
        if name == "github.action_path":
            return str(ROOT)
        if name.startswith("inputs."):
            key = name[len("inputs."):]
            return inputs.get(key, ACTION["inputs"][key].get("default", ""))
        raise AssertionError(f"an expression the test does not know: {name}")

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def run_action(tmp_path: Path, inputs: dict[str, str]) -> tuple[subprocess.CompletedProcess, str, Path]:
    """Each `run:` step of action.yml, in bash as GitHub runs it (`bash --noprofile --norc -eo pipefail`),
    with a `python` on PATH that records pip installs and runs everything else in this interpreter."""
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "pip.log"
    (fake / "python").write_text(
        "#!/bin/bash\n"
        f'if [ "$1 $2" = "-m pip" ]; then echo "$@" >> {log}; exit 0; fi\n'
        f'exec {sys.executable} "$@"\n'
    )
    (fake / "python").chmod(0o755)
    output = tmp_path / "github_output"
    output.touch()
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}", "GITHUB_OUTPUT": str(output),
           "AUTOFIX_NO_CACHE": "1"}
    proc = None
    for step in ACTION["runs"]["steps"]:
        if "run" not in step:
            continue
        step_env = {**env, **{k: _expand(v, inputs) for k, v in step.get("env", {}).items()}}
        assert step["shell"] == "bash"
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=tmp_path / "repo", env=step_env, capture_output=True, text=True)
        if proc.returncode:
            break
    return proc, log.read_text() if log.exists() else "", output  # type: ignore[return-value]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "launch.sh").write_text(BAD)
    return tmp_path / "repo"


def test_action_steps_install_autofix_and_annotate_the_findings(tmp_path: Path, repo: Path) -> None:
    proc, pip, output = run_action(tmp_path, {})
    assert pip.split() == ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", str(ROOT)]
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[1].startswith(ANNOTATION)
    assert output.read_text() == "exit-code=1\n"


def test_action_steps_write_a_sarif_log_and_pass_args(tmp_path: Path, repo: Path) -> None:
    proc, _, output = run_action(tmp_path, {"args": "--exit-zero launch.sh", "sarif-file": "out/autofix.sarif"})
    assert proc.returncode == 0, proc.stderr
    assert ANNOTATION in proc.stdout
    log = json.loads((repo / "out" / "autofix.sarif").read_text())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["SGL001"]
    assert output.read_text() == "exit-code=0\n"


def test_action_steps_fix_when_asked(tmp_path: Path, repo: Path) -> None:
    proc, _, output = run_action(tmp_path, {"args": "--fix ."})
    assert proc.returncode == 0, proc.stderr
    assert "--kv-cache-dtype fp8_e4m3" in (repo / "launch.sh").read_text()
    assert output.read_text() == "exit-code=0\n"
