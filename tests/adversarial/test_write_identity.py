"""--fix writes only over the file it read: a save made since, a symlink swapped in, a read-only file, a
hard link, extended attributes and ACLs, the owner's group, long names, stale temp files, honest counts.

Each race is made deterministic by doing the "other writer's" step inside autofix's own check (a
patched fix_text), between autofix's read and its write.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import adversarial_tree as adv
from autofix import files, pipeline
from autofix.cli import main

ROOT_ONLY = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*.autofix") if p.name.startswith(".")]


def _during_check(monkeypatch: pytest.MonkeyPatch, action) -> None:  # noqa: ANN001
    """Run action() once, after autofix read the file and before it writes the fix."""
    real = pipeline.fix_text
    done = []

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        out = real(*args, **kwargs)
        if not done:
            done.append(1)
            action()
        return out

    monkeypatch.setattr(pipeline, "fix_text", spy)
    import autofix.analysis

    monkeypatch.setattr(autofix.analysis, "fix_text", spy)


def _fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str):  # noqa: ANN202
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["--fix", "--no-cache", "-j", "1", *args])


@pytest.mark.parametrize("same_size", [False, True])
def test_a_save_made_during_the_check_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               same_size: bool) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    saved = adv.BAD_SH.replace("30000", "30001" if same_size else "3000")
    mtime = path.stat().st_mtime_ns

    def save() -> None:
        path.write_text(saved)
        if same_size:  # even an editor that keeps the size and the time is caught by the bytes
            os.utime(path, ns=(mtime, mtime))

    _during_check(monkeypatch, save)
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert path.read_text() == saved
    assert "autofix: serve.sh: not written: the file changed since autofix read it" in result.output
    assert result.exit_code == 2
    assert "Fixed 0 finding(s) in 0 file(s); 1 remaining." in result.output
    assert _temps(tmp_path) == []


def test_a_file_swapped_for_a_symlink_is_not_written_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    path = tree / "serve.sh"
    path.write_text(adv.BAD_SH)
    outside = tmp_path / "outside.sh"
    outside.write_text(adv.BAD_SH)

    def swap() -> None:
        path.unlink()
        path.symlink_to(outside)

    _during_check(monkeypatch, swap)
    result = _fix(tmp_path, monkeypatch, "tree")
    assert outside.read_text() == adv.BAD_SH
    assert path.is_symlink()
    assert "autofix: tree/serve.sh: not written: the file was replaced" in result.output
    assert result.exit_code == 2


def test_a_folder_swapped_for_a_symlink_is_not_written_through(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tree" / "sub").mkdir(parents=True)
    path = tmp_path / "tree" / "sub" / "serve.sh"
    path.write_text(adv.BAD_SH)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "serve.sh").write_text(adv.BAD_SH)

    def swap() -> None:
        shutil.rmtree(tmp_path / "tree" / "sub")
        (tmp_path / "tree" / "sub").symlink_to(elsewhere)

    _during_check(monkeypatch, swap)
    result = _fix(tmp_path, monkeypatch, "tree")
    assert (elsewhere / "serve.sh").read_text() == adv.BAD_SH
    assert "not written" in result.output and result.exit_code == 2


def test_a_symlink_swapped_in_between_the_checks_and_the_open_is_not_followed(tmp_path: Path) -> None:
    # The last step: the file is opened with O_NOFOLLOW, so a link that appears after the lstat is refused.
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    outside = tmp_path / "outside.sh"
    outside.write_bytes(b"old")
    data, identity = files.read_identified(path)
    files.remember(path, identity)
    real_lstat = os.lstat
    calls = []

    def lstat_then_swap(name, *args, **kwargs):  # noqa: ANN001, ANN202
        out = real_lstat(name, *args, **kwargs)
        if os.fspath(name) == str(path) and not calls:
            calls.append(1)
            path.unlink()
            path.symlink_to(outside)
        return out

    os_lstat, os.lstat = os.lstat, lstat_then_swap
    try:
        with pytest.raises(OSError):
            files.write_atomic(path, b"new", expected=data)
    finally:
        os.lstat = os_lstat
    assert outside.read_bytes() == b"old"


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o464, 0o555])
def test_a_file_its_owner_may_not_write_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       mode: int) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    path.chmod(mode)
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert path.read_text() == adv.BAD_SH  # root included: the bits say do not edit
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert "autofix: serve.sh: not written: the file is read-only" in result.output
    assert result.exit_code == 2
    assert "Fixed 0 finding(s) in 0 file(s); 1 remaining." in result.output


def test_json_says_not_fixed_when_the_write_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    path.chmod(0o444)
    result = _fix(tmp_path, monkeypatch, "--format", "json", "serve.sh")
    out = result.output[result.output.index("["):result.output.rindex("]") + 1]
    findings = json.loads(out)
    assert findings and not any(f["fixed"] for f in findings)
    assert result.exit_code == 2


def test_a_failed_write_is_not_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.sh").write_text(adv.BAD_SH)
    (tmp_path / "b.sh").write_text(adv.BAD_SH)
    real_replace = os.replace

    def full_disk(src, dst):  # noqa: ANN001, ANN202
        if os.fspath(dst).endswith("a.sh"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", full_disk)
    result = _fix(tmp_path, monkeypatch, ".")
    assert "Fixed 1 finding(s) in 1 file(s); 1 remaining." in result.output
    assert result.exit_code == 2


def test_a_hard_linked_file_keeps_its_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    other = tmp_path / "other-name.txt"
    os.link(path, other)
    inode = path.stat().st_ino
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert result.exit_code == 0, result.output
    assert path.read_text() == adv.GOOD_SH
    assert other.read_text() == adv.GOOD_SH  # one file, two names
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert _temps(tmp_path) == []


def test_in_place_write_on_a_full_disk_keeps_the_old_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    os.link(path, tmp_path / "link")

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full, raising=False)
    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(OSError):
        files.write_atomic(path, b"new and longer", expected=b"old")
    monkeypatch.undo()
    assert path.read_bytes() == b"old"


def _can_set_xattr(folder: Path) -> bool:
    probe = folder / "probe"
    probe.write_bytes(b"")
    try:
        os.setxattr(probe, "user.autofix-probe", b"1")
        return True
    except (OSError, AttributeError):
        return False
    finally:
        probe.unlink()


def test_extended_attributes_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not _can_set_xattr(tmp_path):
        pytest.skip("this file system has no user extended attributes")
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    os.setxattr(path, "user.origin", b"downloaded")
    os.setxattr(path, "user.empty", b"")
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert result.exit_code == 0, result.output
    assert path.read_text() == adv.GOOD_SH
    assert os.getxattr(path, "user.origin") == b"downloaded"
    assert os.getxattr(path, "user.empty") == b""


def test_acls_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("setfacl") is None or shutil.which("getfacl") is None:
        pytest.skip("no setfacl here")
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    if subprocess.run(["setfacl", "-m", "u:1234:rw", str(path)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no ACLs")
    before = subprocess.run(["getfacl", "-c", str(path)], capture_output=True, text=True).stdout
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert result.exit_code == 0, result.output
    assert path.read_text() == adv.GOOD_SH
    assert subprocess.run(["getfacl", "-c", str(path)], capture_output=True, text=True).stdout == before


def test_an_attribute_the_new_file_cannot_carry_means_an_in_place_write(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    inode = path.stat().st_ino
    monkeypatch.setattr(os, "listxattr", lambda fd: ["security.unsettable"], raising=False)
    monkeypatch.setattr(os, "getxattr", lambda fd, name: b"x", raising=False)

    def refuse(*args):  # noqa: ANN002, ANN202
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "setxattr", refuse, raising=False)
    files.write_atomic(path, b"new", expected=b"old")
    assert path.read_bytes() == b"new" and path.stat().st_ino == inode
    assert _temps(tmp_path) == []


def test_a_group_that_cannot_be_kept_gains_no_rights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A user who may write a file of another group (through its group bits) cannot give a new file that
    # group: the new file would give the user's own group write access. autofix writes in place instead.
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    path.chmod(0o664)
    st = path.stat()
    inode = st.st_ino

    def no_chown(*args):  # noqa: ANN002, ANN202
        raise PermissionError(errno.EPERM, "Operation not permitted")

    real_fstat = os.fstat
    temps = []

    def fstat(fd):  # noqa: ANN001, ANN202 - the temp file is made in the user's own group
        out = real_fstat(fd)
        if out.st_ino != inode:
            temps.append(fd)
            return os.stat_result((out.st_mode, out.st_ino, out.st_dev, out.st_nlink, out.st_uid, st.st_gid + 1,
                                   out.st_size, int(out.st_atime), int(out.st_mtime), int(out.st_ctime)))
        return out

    monkeypatch.setattr(os, "fchown", no_chown)
    monkeypatch.setattr(os, "fstat", fstat)
    files.write_atomic(path, b"new", expected=b"old")
    monkeypatch.undo()
    assert temps, "the test did not reach the temp file"
    assert path.read_bytes() == b"new"
    assert path.stat().st_ino == inode and path.stat().st_gid == st.st_gid
    assert stat.S_IMODE(path.stat().st_mode) == 0o664


@ROOT_ONLY
def test_owner_and_group_kept_as_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    os.chown(path, 1234, 2345)
    path.chmod(0o660)
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert result.exit_code == 0, result.output
    st = path.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 2345, 0o660)


@pytest.mark.parametrize("length", [200, 229, 230, 250, 255])
def test_long_file_names_are_fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int) -> None:
    name = "s" * (length - 3) + ".sh"
    path = tmp_path / name
    path.write_text(adv.BAD_SH)
    result = _fix(tmp_path, monkeypatch, name)
    assert result.exit_code == 0, result.output
    assert path.read_text() == adv.GOOD_SH
    assert _temps(tmp_path) == []


def test_long_multibyte_file_names_are_fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "é" * 125 + ".sh"  # 253 bytes
    path = tmp_path / name
    path.write_text(adv.BAD_SH)
    result = _fix(tmp_path, monkeypatch, name)
    assert result.exit_code == 0, result.output
    assert path.read_text() == adv.GOOD_SH


def test_stale_temp_files_are_removed_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "serve.sh").write_text(adv.BAD_SH)
    dead = _dead_pid()
    stale = tmp_path / "sub" / f".serve.sh.{dead}.0123456789ab.autofix"
    stale.write_text("half")
    old_style = tmp_path / f".x.sh.{'a' * 16}.autofix"
    old_style.write_text("half")
    os.utime(old_style, (1, 1))
    live = tmp_path / f".y.sh.{os.getppid()}.0123456789ab.autofix"  # a live process's, young: left alone
    live.write_text("in use")
    mine = tmp_path / ".notes.autofix"  # not of autofix's naming
    mine.write_text("user's")
    result = _fix(tmp_path, monkeypatch, ".")
    assert not stale.exists() and not old_style.exists()
    assert live.exists() and mine.exists()
    assert f"autofix: sub/{stale.name}: removed a temp file an interrupted autofix run left" in result.output
    assert result.exit_code == 0, result.output


def test_stale_temp_file_beside_a_named_file_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "serve.sh").write_text(adv.BAD_SH)
    stale = tmp_path / f".serve.sh.{_dead_pid()}.0123456789ab.autofix"
    stale.write_text("half")
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert not stale.exists()
    assert "removed a temp file" in result.output and result.exit_code == 0


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_file_another_run_fixed_meanwhile_is_left_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(adv.BAD_SH)
    _during_check(monkeypatch, lambda: path.write_text(adv.GOOD_SH))  # two runs on one tree (pre-commit and CI)
    result = _fix(tmp_path, monkeypatch, "serve.sh")
    assert path.read_text() == adv.GOOD_SH
    assert result.exit_code == 0, result.output
