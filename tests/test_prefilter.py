"""What a file that cannot hold a launch costs: one read and one search, no parser, no import.

Structural checks only, nothing timed (speed is measured in benchmarks/).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autofix.formats import FORMATS, detect

ROOT = Path(__file__).resolve().parent.parent

PLAIN = {  # one file of every kind autofix reads, none saying anything SGLang's launches need
    "deploy.sh": "#!/bin/bash\nset -e\npython3 -m http.server 8080 --bind 0.0.0.0\n",
    "tool": "#!/usr/bin/env bash\nexec vllm serve Qwen/Qwen3-8B --port 8000\n",
    "job.yaml": "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - args: [--port, '8000']\n",
    "ci.yml": "jobs:\n  test:\n    steps:\n      - run: pytest -q\n",
    "serve.py": "import subprocess\nsubprocess.run(['python', '-m', 'http.server'])\n",
    "Dockerfile": 'FROM python:3.11\nCMD ["python", "-m", "http.server"]\n',
    "README.md": "# Notes\n\n```bash\nmake test\n```\n",
    "demo.ipynb": json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
    "launch.json": '{"configurations": [{"type": "debugpy", "module": "http.server", "args": ["8080"]}]}\n',
    "web.service": "[Service]\nExecStart=/usr/bin/python3 -m http.server 8080\n",
}
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend tokenspeed_mla\n"
HEAVY = ("libcst", "ruamel", "tree_sitter", "tree_sitter_bash", "pathspec", "multiprocessing")

PROBE = """
import collections, json, sys
import autofix.files as files
reads = collections.Counter()
real, real_identified = files.read_regular, files.read_identified
def counting(path, limit=None):
    if limit is None:
        reads[str(path)] += 1
    return real(path, limit)
def counting_identified(path):
    reads[str(path)] += 1
    return real_identified(path)
files.read_regular = counting
files.read_identified = counting_identified
from autofix.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"exit": code, "reads": reads, "modules": sorted(sys.modules)}))
"""


def _probe(tree: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _write(tree: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tree / name).write_text(text)


def test_the_plain_files_are_one_of_each_kind() -> None:
    kinds = {detect(name, text.encode()[:128]).name for name, text in PLAIN.items()}  # type: ignore[union-attr]
    assert kinds == set(FORMATS)
    assert not any(spec.worth_parsing(text.encode()) for name, text in PLAIN.items()
                   for spec in [detect(name, text.encode()[:128])])  # type: ignore[union-attr]


def test_a_tree_without_launches_is_read_once_per_file_and_parses_nothing(tmp_path: Path) -> None:
    _write(tmp_path, PLAIN)
    out = _probe(tmp_path, ".")
    assert out["exit"] == 0
    assert out["reads"] == {name: 1 for name in PLAIN}
    loaded = [m for m in out["modules"] if m.split(".")[0] in HEAVY or m in {s.module for s in FORMATS.values()}]
    assert loaded == []


@pytest.mark.parametrize(("name", "module"), [("launch.sh", "shell"), ("serve.yaml", "yaml"),
                                              ("launch.py", "python")])
def test_only_the_parser_a_launch_needs_is_imported(tmp_path: Path, name: str, module: str) -> None:
    _write(tmp_path, PLAIN)
    text = {
        "launch.sh": LAUNCH,
        "serve.yaml": "command: [" + LAUNCH.strip().replace(" ", ", ") + "]\n",
        "launch.py": f"import subprocess\nsubprocess.run({LAUNCH.split()!r})\n",
    }[name]
    (tmp_path / name).write_text(text)
    out = _probe(tmp_path, "--jobs", "1", ".")
    assert out["exit"] == 1  # the launch is found: the parser did run
    assert out["reads"][name] <= 2, "screened once, parsed once"
    assert all(count == 1 for path, count in out["reads"].items() if Path(path).name in PLAIN)
    formats = {m.split(".")[2] for m in out["modules"] if m.startswith("autofix.formats.")}
    formats = {"yaml" if name.startswith("yaml") else name for name in formats}  # yamlargs, yamltext
    assert formats <= {module, "shell"}  # YAML and Python hand shell text to the shell format
    assert module in formats
    heavy = {m.split(".")[0] for m in out["modules"] if m.split(".")[0] in HEAVY}
    needed = {"shell": {"tree_sitter", "tree_sitter_bash"}, "yaml": {"ruamel", "tree_sitter", "tree_sitter_bash"},
              "python": {"libcst", "tree_sitter", "tree_sitter_bash"}}[module]
    assert heavy <= needed, heavy - needed


@pytest.mark.parametrize(("text", "config"), [
    ("model-path: Qwen/Qwen3-8B\ntp-size: 2\n", True),
    ("tp_size: 2\n", True),  # underscores: SGL120 reports it, so the file is still a config file
    ('"kv-cache-dtype": fp8_e4m3\n', True),
    ("apiVersion: v1\nkind: Pod\nspec:\n  model-path: x\n", False),  # nested: not a --config file
    ("services:\n  server:\n    command: sglang serve\n", False),
])
def test_only_yaml_with_an_option_key_at_the_top_is_taken_for_a_config_file(text: str, config: bool) -> None:
    from autofix.files import may_be_config

    assert may_be_config(text.encode()) is config


def test_a_named_yaml_that_is_no_config_file_costs_no_search_for_its_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from autofix import files
    from autofix.cli import main

    for n in range(20):
        (tmp_path / f"script{n}.sh").write_text("python -m sglang.launch_server --config serve.yaml\n")
    (tmp_path / "serve.yaml").write_text("model-path: Qwen/Qwen3-8B\nattention-backend: tokenspeed_mla\n")
    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n")
    searched: list[Path] = []
    real = files._read_bytes
    monkeypatch.setattr(files, "_read_bytes", lambda path, *a: searched.append(path) or real(path, *a))
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["pod.yaml"]).exit_code == 0
    assert searched == []
    result = CliRunner().invoke(main, ["serve.yaml"])
    assert result.exit_code == 1 and "SGL002" in result.output  # found through the scripts that read it
    assert len(searched) >= 20


def test_naming_many_files_costs_work_per_file_not_per_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each launch file's lookups (model folders, --config files) may be read inside the folders of
    # the run: with every file in a folder of its own, resolving all of them for each file was quadratic.
    from click.testing import CliRunner

    from autofix.cli import main

    names = []
    for n in range(60):
        (tmp_path / f"d{n}").mkdir()
        (tmp_path / f"d{n}" / "serve.sh").write_text(LAUNCH)
        names.append(f"d{n}/serve.sh")
    calls = []
    real = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda self, *a, **k: calls.append(self) or real(self, *a, **k))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--jobs", "1", *names])
    assert result.exit_code == 1 and result.output.count("SGL002") == 60
    assert len(calls) < 60 * 20, f"{len(calls)} resolves for 60 files"


def test_a_markdown_launch_imports_no_yaml_or_python_parser(tmp_path: Path) -> None:
    # The Markdown format reads shell, YAML and Python blocks, so it imports their format modules;
    # ruamel and libcst are imported only when a block of their kind is parsed.
    _write(tmp_path, PLAIN)
    (tmp_path / "guide.md").write_text(f"# Serving\n\n```bash\n{LAUNCH}```\n")
    out = _probe(tmp_path, "--jobs", "1", ".")
    assert out["exit"] == 1  # the launch in the block is found
    heavy = {m.split(".")[0] for m in out["modules"] if m.split(".")[0] in HEAVY}
    assert heavy <= {"tree_sitter", "tree_sitter_bash"}, heavy
