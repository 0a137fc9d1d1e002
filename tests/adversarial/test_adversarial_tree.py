"""`autofix --fix` over a tree of hostile files: binary, Latin-1, UTF-16, empty, 10 MB, a 1 MB line,
deep YAML, an alias bomb, broken shell, CRLF and mixed newlines, BOMs, NUL bytes, symlink loops and links
out of the tree, a FIFO, a read-only file, a folder named `x.sh`.

Each file: no traceback; a one-line `autofix: PATH: reason` where it is skipped; no byte changed unless a
fix was due, and then newlines and BOM kept; the good bad-launch file in the same tree still fixed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import adversarial_tree as adv
from autofix import files
from autofix.cli import main
from autofix.source import DecodeError, Source


@pytest.fixture(scope="module")
def fixed_tree(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("adversarial")
    root = base / "tree"
    root.mkdir()
    cases = adv.build(root)
    cases.append(adv.outside_link(root, base / "outside.sh"))
    proc = adv.run_cli("--fix", "tree", cwd=base, timeout=300)
    return base, root, cases, proc


def test_every_hostile_file(fixed_tree) -> None:  # noqa: ANN001
    base, root, cases, proc = fixed_tree
    output = proc.stdout + proc.stderr
    problems = []
    adv.STATS["cases"] += len(cases)
    if adv.crashed(output):
        adv.STATS["crashes"] += 1
        problems.append(f"crash:\n{output[-3000:]}")
    messages = [line for line in proc.stderr.splitlines() if line.startswith("autofix: ")]
    for case in cases:
        path = root / case.name
        if case.before is not None:
            now = path.read_bytes()
            if now != case.expected:
                adv.STATS["corrupted"] += 1
                problems.append(f"{case.name}: bytes {now[:120]!r} != expected {case.expected[:120]!r}")
        if case.skipped is not None:
            said = [m for m in messages if m.startswith(f"autofix: tree/{case.name}: ") and case.skipped in m]
            if len(said) != 1:
                problems.append(f"{case.name}: no one-line message saying {case.skipped!r}: {messages}")
    # Unreadable files make the run's exit code 2 (see autofix.cli), the fixes are still written.
    assert proc.returncode == 2, output[-2000:]
    assert "Fixed 8 finding(s) in 8 file(s)" in proc.stderr
    assert not problems, "\n".join(problems)


def test_links_and_special_files_untouched(fixed_tree) -> None:  # noqa: ANN001
    base, root, _, proc = fixed_tree
    assert (root / "outside-link.sh").is_symlink()
    assert (base / "outside.sh").read_bytes() == adv.BAD_SH.encode()  # nothing outside the tree is written
    assert (root / "loop-a.sh").is_symlink() and (root / "dangling.sh").is_symlink()
    assert stat.S_ISFIFO(os.lstat(root / "fifo.sh").st_mode)
    assert stat.S_IMODE((root / "read-only.sh").stat().st_mode) == 0o444
    assert (root / "x.sh").is_dir()
    for name in ("fifo.sh", "loop-a.sh", "dangling.sh", "outside-link.sh"):
        assert f"autofix: tree/{name}: " in proc.stderr


def test_check_mode_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    cases = [c for c in adv.build(root) if c.before is not None and not c.name.startswith("big")]
    (root / "big.sh").unlink()
    proc = adv.run_cli("tree", cwd=tmp_path, timeout=300)
    assert not adv.crashed(proc.stdout + proc.stderr)
    assert proc.returncode == 2  # unreadable files
    assert all((root / c.name).read_bytes() == c.before for c in cases)


# -- the bugs this suite found, one test each -----------------------------------------------------


def test_symlink_loop_resolves_without_raising(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    assert files.real_path(tmp_path / "a.yaml").parent == tmp_path.resolve()
    assert files.display(tmp_path / "a.yaml")
    index = files.ConfigIndex([tmp_path])
    assert index.referrers(tmp_path / "a.yaml") == []


def test_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "serve.sh"
    os.mkfifo(fifo)
    with pytest.raises(files.NotRegularFile):
        files.read_regular(fifo)  # would block forever with a plain open().read()
    os.mkfifo(tmp_path / "requirements.txt")
    assert files.neighbour_release(tmp_path) is None
    result = CliRunner().invoke(main, [str(fifo)])
    assert result.exit_code == 0 and "not a regular file (skipped)" in result.output


def test_fix_through_symlink_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real.sh").write_text(adv.BAD_SH)
    (tmp_path / "link.sh").symlink_to("real.sh")
    files.write_atomic(tmp_path / "link.sh", adv.GOOD_SH.encode())
    assert (tmp_path / "link.sh").is_symlink()
    assert (tmp_path / "real.sh").read_text() == adv.GOOD_SH


def test_symlink_out_of_the_walked_folder_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "outside.sh").write_text(adv.BAD_SH)
    (tmp_path / "tree" / "inside.sh").write_text(adv.BAD_SH)
    (tmp_path / "tree" / "link.sh").symlink_to(tmp_path / "outside.sh")
    (tmp_path / "tree" / "link-in.sh").symlink_to("inside.sh")
    found = {c.path.name: c.skip for c in files.walk([tmp_path / "tree"])}
    assert found == {"inside.sh": None, "link-in.sh": None, "link.sh": "symlink to a file outside the checked folder"}


def test_utf16_is_named_as_such() -> None:
    with pytest.raises(DecodeError, match="UTF-16"):
        Source.decode("\ufeffsglang\n".encode("utf-16"))


def test_file_removed_between_walk_and_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk lists a file, then it is gone (an editor's swap file, a build step): one message, the rest fixed."""
    (tmp_path / "gone.sh").write_text(adv.BAD_SH)
    (tmp_path / "stays.sh").write_text(adv.BAD_SH)
    walk = files.walk

    def walk_then_remove(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        found = list(walk(*args, **kwargs))
        (tmp_path / "gone.sh").unlink()
        return iter(found)

    monkeypatch.setattr(files, "walk", walk_then_remove)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--fix", "."])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "gone.sh: cannot read: No such file or directory" in result.output
    assert (tmp_path / "stays.sh").read_text() == adv.GOOD_SH
    assert result.exit_code == 2


# -- one file at a time: each its exit code and message -------------------------------------------

ONE_BY_ONE = {
    # name: (exit code of `autofix --fix NAME`, text of the one `autofix: NAME: ...` line or None)
    "good/bad-launch.sh": (0, None), "binary.sh": (2, "cannot decode: binary file (NUL byte)"),
    "latin1.sh": (2, "cannot decode: not UTF-8"), "utf16.sh": (2, "cannot decode: UTF-16 text is not supported"),
    "empty.sh": (0, None), "empty.yaml": (0, None), "empty.py": (0, None), "empty.md": (0, None),
    "empty.ipynb": (0, None), "Dockerfile": (0, None), "long-line.sh": (0, None), "long-line.py": (0, None),
    "nested.yaml": (2, "cannot parse: nested too deeply"), "nested-flow.yaml": (0, None),
    "bomb.yaml": (0, None), "unterminated-quote.sh": (0, None), "unterminated-single.sh": (1, None), "unterminated-heredoc.sh": (0, None),
    "crlf.sh": (0, None), "mixed-newlines.sh": (0, None), "bom.sh": (0, None), "bom-crlf.py": (0, None),
    "no-final-newline.sh": (0, None), "nul.sh": (2, "cannot decode: binary file (NUL byte)"),
    "read-only.sh": (2, "not written: the file is read-only"), "x.sh": (0, None), "loop-a.sh": (2, "cannot read: Too many levels of symbolic links"),
    "dangling.sh": (2, "cannot read: No such file or directory"), "fifo.sh": (0, "not a regular file (skipped)"),
}


@pytest.fixture(scope="module")
def pristine_tree(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("one-by-one")
    cases = {c.name: c for c in adv.build(root)}
    return root, cases


@pytest.mark.parametrize("name", sorted(ONE_BY_ONE))
def test_one_file(pristine_tree, name: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    root, cases = pristine_tree
    code, message = ONE_BY_ONE[name]
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["--fix", name])
    adv.STATS["cases"] += 1
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        adv.STATS["crashes"] += 1
        raise result.exception
    lines = [line for line in result.output.splitlines() if line.startswith("autofix: ")]
    assert lines == ([f"autofix: {name}: {message}"] if message and message.endswith(")") else lines)
    if message is not None:
        assert len(lines) == 1 and lines[0].startswith(f"autofix: {name}: {message}"), result.output
    else:
        assert lines == [], result.output
    assert result.exit_code == code, result.output
    for case in cases.values():
        if case.before is not None and (case.name == name or case.name.startswith(name + "/")):
            if (root / case.name).read_bytes() != case.expected:
                adv.STATS["corrupted"] += 1
            assert (root / case.name).read_bytes() == case.expected
