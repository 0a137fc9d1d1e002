"""Command-line edges: configuration git accepts, an empty PATH, `--`, unreadable and deep folders,
internal errors: a one-line message and the documented exit code, never a traceback."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import adversarial_tree as adv
from autofix.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str):  # noqa: ANN202
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--no-cache", "-j", "1", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.mark.parametrize("line", ["!", "foo\\", "[z-a]"])
def test_gitignore_lines_git_skips_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    (tmp_path / ".gitignore").write_text(f"{line}\nignored.sh\n")
    (tmp_path / "serve.sh").write_text(adv.BAD_SH)
    (tmp_path / "ignored.sh").write_text(adv.BAD_SH)
    result = _run(tmp_path, monkeypatch, "--fix", ".")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "serve.sh").read_text() == adv.GOOD_SH
    assert (tmp_path / "ignored.sh").read_text() == adv.BAD_SH  # the good lines still apply


@pytest.mark.parametrize(("text", "said"), [
    ('tool = "autofix"\n', "`tool` must be a table"),
    ("[tool.autofix]\n" + "x = " + "[" * 1000 + "]" * 1000 + "\n", "nested too deeply"),
    ('[tool.autofix]\nexclude = ["[z-a]"]\n', "`exclude`: not a pattern"),
    ('[tool.autofix]\nextend-exclude = ["!"]\n', "`extend-exclude`: not a pattern"),
])
def test_configuration_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
                                           said: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "serve.sh").write_text(adv.BAD_SH)
    result = _run(tmp_path, monkeypatch, "--fix", ".")
    lines = [line for line in result.output.splitlines() if line.startswith("autofix: ")]
    assert len(lines) == 1 and "pyproject.toml" in lines[0] and said in lines[0], result.output
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_an_empty_path_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "serve.sh").write_text(adv.BAD_SH)
    result = _run(tmp_path, monkeypatch, "--fix", "")
    assert result.exit_code == 2 and "empty PATH" in result.output
    assert (tmp_path / "serve.sh").read_text() == adv.BAD_SH


@pytest.mark.parametrize("name", ["--help", "--version", "--list", "--ignore=SGL"])
def test_paths_after_double_dash_are_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    (tmp_path / name).write_text(adv.BAD_SH)
    result = _run(tmp_path, monkeypatch, "--fix", "--force-exclude", "--", name)
    assert (tmp_path / name).read_text() == adv.GOOD_SH, result.output
    assert result.exit_code == 0


def test_the_hooks_end_their_options() -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hooks and all(hook["entry"].endswith(" --") for hook in hooks)


def test_an_unreadable_folder_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "serve.sh").write_text(adv.BAD_SH)
    (tmp_path / "serve.sh").write_text(adv.BAD_SH)
    real = os.scandir

    def scandir(path="."):  # noqa: ANN001, ANN202 - as for a folder of mode 000 (root reads every folder)
        if os.fspath(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = _run(tmp_path, monkeypatch, "--fix", ".")
    assert "autofix: locked: cannot read folder: Permission denied" in result.output
    assert result.exit_code == 2
    assert (tmp_path / "serve.sh").read_text() == adv.GOOD_SH


def test_a_folder_tree_1200_deep_is_walked(tmp_path: Path) -> None:
    os.chdir(tmp_path)  # relative names: an absolute one would pass PATH_MAX
    try:
        folder = "t"
        os.mkdir(folder)
        for _ in range(1200):  # os.makedirs recurses
            folder += "/d"
            os.mkdir(folder)
        folder = Path(folder)
        (folder / "serve.sh").write_text(adv.BAD_SH)
    finally:
        os.chdir(ROOT)
    try:
        proc = adv.run_cli("--fix", "t", cwd=tmp_path)
    finally:  # pytest's clean-up (shutil.rmtree) recurses: the tree goes here, deepest first
        for path in sorted(_deep_entries(tmp_path), key=lambda p: len(p.parts), reverse=True):
            (path.unlink if path.is_file() else path.rmdir)()
    assert "RecursionError" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    # Deeper than PATH_MAX: reported, not skipped without a word.
    assert proc.returncode in (0, 2) and ("Fixed 1 finding" in proc.stderr or "autofix: t/" in proc.stderr)


def _deep_entries(root: Path) -> list[Path]:
    os.chdir(root)
    try:
        found, folder = [], "t"
        while os.path.isdir(folder):
            found += [Path(folder, name) for name in os.listdir(folder) if name != "d"]
            found.append(Path(folder))
            folder += "/d"
    finally:
        os.chdir(ROOT)
    return [root / p for p in found]


def test_an_internal_error_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from autofix import run

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise ValueError("a bug")

    monkeypatch.setattr(run, "check_files", broken)
    import autofix.cli

    monkeypatch.setattr(autofix.cli, "check_files", broken)
    (tmp_path / "serve.sh").write_text(adv.BAD_SH)
    result = _run(tmp_path, monkeypatch, ".")
    assert result.exit_code == 2
    assert "autofix: internal error: ValueError: a bug" in result.output
