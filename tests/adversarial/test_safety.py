"""What a scan must never do: import or run a scanned Python file or notebook, construct a YAML python
tag, read a model's config.json outside the scanned tree and working directory (or one over 1 MiB), use
the network."""

from __future__ import annotations

import builtins
import io
import json
import os
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

import adversarial_tree as adv
from autofix.cli import main

EVIL_PY = """\
import pathlib, sys
pathlib.Path({marker!r}).write_text("imported")
print("I " + "ran")
import subprocess
subprocess.run(["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3",
                "--attention-backend", "tokenspeed_mla"])
raise SystemExit(3)
"""

EVIL_YAML = """\
boom: !!python/object/apply:os.system ["touch {marker}"]
also: !!python/object/apply:pathlib.Path.touch [!!python/object/apply:pathlib.Path ["{marker}"]]
command: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-V3, --attention-backend, tokenspeed_mla]
"""


def _evil_tree(root: Path, marker: Path) -> None:
    (root / "evil.py").write_text(EVIL_PY.format(marker=str(marker)))
    (root / "conftest.py").write_text(EVIL_PY.format(marker=str(marker)))
    (root / "evil.yaml").write_text(EVIL_YAML.format(marker=marker))
    (root / "serve.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --config evil-config.yaml\n")
    (root / "evil-config.yaml").write_text(
        EVIL_YAML.format(marker=marker).replace("command: [", "# ").replace("]\n", "\n")
        + "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\n")
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": EVIL_PY.format(marker=str(marker)).splitlines(keepends=True)}
    (root / "evil.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                                 "nbformat_minor": 5}))


@pytest.mark.parametrize("mode", [[], ["--fix"], ["--diff"], ["--add-ignore"], ["--fix", "--unsafe-fixes"]])
def test_scanned_code_is_never_run_nor_yaml_tags_built(tmp_path: Path, mode: list[str]) -> None:
    marker = tmp_path / "MARKER"
    root = tmp_path / "tree"
    root.mkdir()
    _evil_tree(root, marker)
    proc = adv.run_cli(*mode, "tree", cwd=tmp_path)
    assert not marker.exists(), proc.stdout + proc.stderr
    assert "I ran" not in proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1, 2)


class _Opened:
    """Every path opened, by any of open(), io.open, os.open."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.paths: list[str] = []
        real_open, real_io_open, real_os_open = builtins.open, io.open, os.open

        def record(path: object) -> None:
            if isinstance(path, (str, bytes, os.PathLike)):
                self.paths.append(os.path.realpath(os.fsdecode(path)))

        def wrapped_open(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            record(file)
            return real_open(file, *args, **kwargs)

        def wrapped_io_open(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            record(file)
            return real_io_open(file, *args, **kwargs)

        def wrapped_os_open(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            record(path)
            return real_os_open(path, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", wrapped_open)
        monkeypatch.setattr(io, "open", wrapped_io_open)
        monkeypatch.setattr(os, "open", wrapped_os_open)

    def saw(self, path: Path) -> bool:
        return os.path.realpath(path) in self.paths


def _model(folder: Path, arch: str, pad: int = 0) -> None:
    folder.mkdir(parents=True)
    data = {"architectures": [arch], "model_type": "deepseek_v3", "padding": "x" * pad}
    (folder / "config.json").write_text(json.dumps(data))


def test_model_config_outside_the_tree_or_too_big_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "tree"
    _model(tmp_path / "outside-model", "DeepseekV3ForCausalLM")
    _model(root / "big-model", "DeepseekV3ForCausalLM", pad=(1 << 20) + 10)
    _model(root / "local-model", "DeepseekV3ForCausalLM")
    (root / "serve.sh").write_text(
        "#!/bin/bash\n"
        "python3 -m sglang.launch_server --model-path ../outside-model --attention-backend tokenspeed_mla\n"
        "python3 -m sglang.launch_server --model-path ./big-model --attention-backend tokenspeed_mla\n"
        "python3 -m sglang.launch_server --model-path ./local-model --attention-backend tokenspeed_mla\n"
        f"python3 -m sglang.launch_server --model-path {tmp_path / 'outside-model'} --attention-backend tokenspeed_mla\n")
    monkeypatch.chdir(root)
    opened = _Opened(monkeypatch)
    result = CliRunner().invoke(main, ["."])
    monkeypatch.undo()
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert opened.saw(root / "local-model" / "config.json")  # the recorder works: an in-tree model is read
    assert not opened.saw(tmp_path / "outside-model" / "config.json")
    assert not opened.saw(root / "big-model" / "config.json")


def test_no_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole run (a fixture folder in every format, a model folder, --fix) with sockets refused."""
    calls: list[str] = []

    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(repr(args)[:80])
        raise OSError("network use in a test of autofix")

    for name in ("socket", "create_connection", "getaddrinfo", "gethostbyname", "socketpair"):
        monkeypatch.setattr(socket, name, refuse)
    root = tmp_path / "tree"
    import shutil

    shutil.copytree(adv.ROOT / "fixtures" / "tokenspeed-mla-without-fp8-kv-cache", root)
    _model(root / "local-model", "DeepseekV3ForCausalLM")
    (root / "local.sh").write_text("sglang serve ./local-model --attention-backend tokenspeed_mla\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--fix", "--gpu", "h100", "tree"])
    assert isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    assert calls == []


def test_add_ignore_does_not_expand_a_yaml_alias_bomb(tmp_path: Path) -> None:
    """--add-ignore compared the loaded data before and after: 9^9 list items compared, seconds per level.

    Expanded, the run would not end; the subprocess timeout is only a guard against a hang."""
    bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefghij", "bcdefghijk"):
        bomb.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    bomb.append("command: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-V3, "
                "--attention-backend, tokenspeed_mla]")
    (tmp_path / "bomb.yaml").write_text("\n".join(bomb) + "\n")
    proc = adv.run_cli("--add-ignore", "bomb.yaml", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "# autofix: ignore[SGL001]\ncommand:" in (tmp_path / "bomb.yaml").read_text()
