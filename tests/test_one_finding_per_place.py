"""One finding per place, however many launches share it.

A bash array or a Python argv list expanded by several launches holds each
flag once: a fault in it is reported once, and its fix applies once.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from autofix.cli import main

SCRIPT = """ARGS=(--model-path Qwen/Qwen3-8B --kv-cache-type fp8_e4m3)
python -m sglang.launch_server "${ARGS[@]}" --port 30000
python -m sglang.launch_server "${ARGS[@]}" --port 30001
python -m sglang.launch_server "${ARGS[@]}" --port 30002
"""


def run(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def places(path: Path) -> list[tuple[str, int, int]]:
    result = run("--format", "json", str(path))
    return [(f["code"], f["line"], f["column"]) for f in json.loads(result.stdout)]


def test_a_flag_of_an_array_three_launches_expand_is_reported_once(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(SCRIPT)
    assert places(script) == [("SGL101", 1, 34)]


def test_its_fix_applies_once(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(SCRIPT)
    result = run("--fix", "--unsafe-fixes", str(script))
    assert result.exit_code == 0
    assert script.read_text() == SCRIPT.replace("--kv-cache-type", "--kv-cache-dtype")
    assert "Fixed 1 finding" in result.output


def test_the_same_fault_in_each_launch_is_reported_in_each(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-type fp8_e4m3\n" * 2)
    assert places(script) == [("SGL101", 1, 59), ("SGL101", 2, 59)]


def test_a_python_argv_list_two_launches_share_is_reported_once(tmp_path: Path) -> None:
    module = tmp_path / "serve.py"
    module.write_text(
        "import subprocess\n\n"
        'ARGV = ["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--kv-cache-type", "fp8_e4m3"]\n'
        "subprocess.run(ARGV)\n"
        "subprocess.Popen(ARGV)\n"
    )
    assert places(module) == [("SGL101", 3, 82)]
