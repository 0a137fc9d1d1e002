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
