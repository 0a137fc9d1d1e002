"""Scale: `autofix --fix` over a tree of many files is right for every file, alone and with two processes
on the same tree at once. CI runs ~2,000 files; AUTOFIX_SCALE_FILES=N (or scripts/scale.py, which also
reports the child's peak RSS) runs more."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

import pytest

import adversarial_tree as adv
import scale_tree

FILES = int(os.environ.get("AUTOFIX_SCALE_FILES", "2000"))


@pytest.mark.scale
@pytest.mark.parametrize("processes", [1, 2])
def test_many_files(tmp_path: Path, processes: int) -> None:
    expected = scale_tree.build(tmp_path / "tree", FILES)
    start = time.monotonic()
    procs = [subprocess.Popen(adv.command("--fix", "tree"), cwd=tmp_path, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(processes)]
    outputs = [p.communicate(timeout=600) for p in procs]
    seconds = time.monotonic() - start
    for proc, (_, err) in zip(procs, outputs):
        assert b"Traceback" not in err, err[-2000:]
        # Two runs fixing one tree at once: a file the other run rewrote after this one read it is left
        # to that run (exit 2, said per file), never overwritten with a fix of the old bytes.
        refused = [line for line in err.splitlines() if line.startswith(b"autofix: ") and b"not written" in line]
        assert all(b"the file changed since autofix read it" in line for line in refused), err[-2000:]
        assert proc.returncode == (2 if refused else 0), err[-2000:]
    wrong = [p for p, (_, after) in expected.items() if p.read_bytes() != after]
    assert wrong == []
    assert not [p for p in (tmp_path / "tree").rglob(".*.autofix")]
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(f"\n{FILES} files, {processes} process(es): {seconds:.1f} s, peak RSS of the children so far {rss} MiB")
    if processes == 1:
        launches = sum(b != a for b, a in expected.values())
        assert f"Fixed {launches} finding(s) in {launches} file(s)".encode() in outputs[0][1]
