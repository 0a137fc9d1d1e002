"""write_atomic: mode and owner kept, a temp file beside the target used and removed, the old file intact
when the write is interrupted; SIGINT/SIGTERM mid-run leave every file old or new, and no temp file."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import adversarial_tree as adv
import scale_tree
from autofix import files
from autofix.cli import main


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*.autofix") if p.name.startswith(".")]


@pytest.mark.parametrize("mode", [0o644, 0o600, 0o755, 0o2755, 0o604])
def test_mode_kept(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    path.chmod(mode)
    files.write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert _temps(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_owner_kept(tmp_path: Path) -> None:
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    os.chown(path, 1234, 2345)
    files.write_atomic(path, b"new")
    assert (path.stat().st_uid, path.stat().st_gid) == (1234, 2345)


def test_temp_file_beside_the_target_then_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old")
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src, dst):  # noqa: ANN001, ANN202
        replaced.append((os.fspath(src), os.fspath(dst)))
        assert Path(src).read_bytes() == b"new" and path.read_bytes() == b"old"
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    files.write_atomic(path, b"new")
    [(src, dst)] = replaced
    assert Path(src).parent == tmp_path and Path(dst) == path
    assert not Path(src).exists() and _temps(tmp_path) == []


@pytest.mark.parametrize("where", ["write", "fsync", "chmod", "replace", "interrupt"])
def test_interrupted_write_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old bytes")
    error: BaseException = KeyboardInterrupt() if where == "interrupt" else OSError(errno.ENOSPC, "No space left")

    def fail(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise error

    if where == "write":  # the disk fills up half way through the temp file
        real_fdopen = os.fdopen

        class Full:
            def __init__(self, handle) -> None:  # noqa: ANN001
                self.handle = handle

            def __enter__(self):  # noqa: ANN204
                return self

            def __exit__(self, *exc: object) -> None:
                self.handle.close()

            def write(self, data: bytes) -> int:
                self.handle.write(data[:3])
                raise error

        monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k)))
    else:
        monkeypatch.setattr(os, {"interrupt": "replace"}.get(where, where), fail)
    with pytest.raises(type(error)):
        files.write_atomic(path, b"new bytes")
    monkeypatch.undo()
    assert path.read_bytes() == b"old bytes"
    assert _temps(tmp_path) == []


def test_cli_reports_a_failed_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.sh").write_text(adv.BAD_SH)
    (tmp_path / "b.sh").write_text(adv.BAD_SH)
    real_replace = os.replace

    def full_disk(src, dst):  # noqa: ANN001, ANN202
        if os.fspath(dst).endswith("a.sh"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", full_disk)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--fix", "."])
    assert result.exit_code == 2
    assert "a.sh: cannot write: No space left on device" in result.output
    assert (tmp_path / "a.sh").read_text() == adv.BAD_SH and (tmp_path / "b.sh").read_text() == adv.GOOD_SH
    assert _temps(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_mid_run_leaves_files_old_or_new(tmp_path: Path, sig: signal.Signals) -> None:
    expected = scale_tree.build(tmp_path / "tree", 1200, launch_share=0.5)
    launches = [p for p, (before, after) in expected.items() if before != after]
    proc = subprocess.Popen(adv.command("--fix", "tree"), cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    deadline = time.monotonic() + 60
    # Wait until the run is writing: some launch files fixed, not all.
    while time.monotonic() < deadline and proc.poll() is None:
        done = sum(p.read_bytes() == expected[p][1] for p in launches[::20])
        if done:
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    text = err.decode(errors="replace")
    assert "Traceback" not in text, text[-2000:]
    states = {p: p.read_bytes() for p in expected}
    torn = [p for p, data in states.items() if data not in expected[p]]
    assert torn == []
    new = sum(states[p] == expected[p][1] for p in launches)
    assert 0 < new < len(launches), "the signal came before or after the writes: the test proved nothing"
    assert _temps(tmp_path) == []
    assert proc.returncode != 0


def test_interrupt_just_after_the_temp_file_is_created_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A signal between creating the temp file and knowing its name left it behind (tempfile.mkstemp
    # names its file only once it exists); with worker threads about, masking signals did not help.
    path = tmp_path / "serve.sh"
    path.write_bytes(b"old bytes")
    real_open = os.open

    def open_then_interrupt(name, flags, *args, **kwargs):  # noqa: ANN001, ANN202
        fd = real_open(name, flags, *args, **kwargs)
        if flags & os.O_CREAT:
            os.close(fd)
            raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(os, "open", open_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(path, b"new bytes")
    monkeypatch.undo()
    assert path.read_bytes() == b"old bytes"
    assert _temps(tmp_path) == []
