"""The README's "Upgrading SGLang" example: its commands, run in examples/upgrade, print what it shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def session() -> list[tuple[str, str]]:
    """(command, the output shown after it) for each `$ ` line of the example's console block."""
    block = README.split("<!-- upgrade:start", 1)[1].split("<!-- upgrade:end -->", 1)[0]
    body = re.search(r"```console\n(.*?)```", block, re.S)[1]  # type: ignore[index]
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(command, "".join(f"{line}\n" for line in output)) for command, output in steps]


def test_the_example_is_two_autofix_runs_in_the_bundled_folder() -> None:
    commands = [command for command, _ in session()]
    assert commands[0] == "cd examples/upgrade"
    assert all(c.startswith("autofix --sglang-version 0.5.23 ") for c in commands[1:]) and len(commands) == 3


@pytest.mark.parametrize(("command", "shown"), session()[1:], ids=lambda v: v if v.startswith("autofix") else "")
def test_readme_shows_what_autofix_prints(command: str, shown: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = ROOT / "examples" / "upgrade"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    monkeypatch.chdir(folder)
    monkeypatch.setenv("AUTOFIX_NO_CACHE", "1")
    result = CliRunner().invoke(main, command.split()[1:], catch_exceptions=False)
    assert result.exit_code == 1
    # The diff (or the counts) on stdout, then the summary autofix writes to stderr.
    assert result.stdout + result.stderr == shown
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before, "the example is left as it was"


def test_the_example_is_clean_for_the_release_it_was_written_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "examples" / "upgrade")
    monkeypatch.setenv("AUTOFIX_NO_CACHE", "1")
    for args in (["--sglang-version", "0.5.19", "."], ["."]):
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert (result.exit_code, result.stdout) == (0, ""), args


def _run(folder: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--no-cache", *args, str(folder)], catch_exceptions=False)
    return result.stdout + result.stderr


# A launch every release refuses: an MLA-only backend on a model that is not MLA (SGL1010, 0.5.17 to 0.5.23).
BROKEN_EVERYWHERE = "--model-path Qwen/Qwen3-8B --attention-backend trtllm_mla"


def test_the_move_counts_only_what_the_files_own_release_does_not_give(tmp_path: Path) -> None:
    # Pinned to 0.5.19: a flag 0.5.20 removed (the move's), and a conflict every release refuses (not).
    (tmp_path / "serve.sh").write_text(
        "# sglang==0.5.19\n"
        f"python3 -m sglang.launch_server {BROKEN_EVERYWHERE} --cuda-graph-max-bs 160\n")
    assert "come from the move" not in _run(tmp_path)
    out = _run(tmp_path, "--sglang-version", "0.5.23")
    assert "SGL103" in out and "SGL1010" in out
    assert "1 of them come from the move to SGLang 0.5.23" in out
    diff = _run(tmp_path, "--sglang-version", "0.5.23", "--diff")
    assert "1 of them come from the move to SGLang 0.5.23" in diff


def test_checking_a_file_as_its_own_release_names_no_move(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text(
        f"# sglang==0.5.23\npython3 -m sglang.launch_server {BROKEN_EVERYWHERE}\n")
    out = _run(tmp_path, "--sglang-version", "0.5.23")
    assert "SGL1010" in out and "come from the move" not in out


def test_the_configured_release_is_the_files_own(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.autofix]\nsglang-version = "0.5.19"\n')
    (tmp_path / "serve.sh").write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                                       "--cuda-graph-max-bs 160\n")
    assert "SGL103" not in _run(tmp_path)
    assert "1 of them come from the move to SGLang 0.5.23" in _run(tmp_path, "--sglang-version", "0.5.23")
    # Checked as the configured release on the command line too: nothing moves.
    assert "come from the move" not in _run(tmp_path, "--sglang-version", "0.5.19")


def test_the_count_survives_the_result_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "serve.sh").write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                                       "--cuda-graph-max-bs 160\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    runs = [CliRunner().invoke(main, ["--sglang-version", "0.5.23", "serve.sh"]) for _ in range(2)]
    assert all("1 of them come from the move" in r.stderr for r in runs)
