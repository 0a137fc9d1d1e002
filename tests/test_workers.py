"""Worker processes: a run's output and writes are the same for any number of them.

Nothing here is timed; speed is measured in benchmarks/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autofix import workers

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
NEEDS_FORK = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes are forked")


def _square_and_pid(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


@NEEDS_FORK
def test_ordered_map_keeps_the_order_and_uses_other_processes() -> None:
    items = list(range(workers.MIN_ITEMS * 2))
    out = list(workers.ordered_map(_square_and_pid, items, jobs=2))
    assert [value for value, _ in out] == [i * i for i in items]
    assert os.getpid() not in {pid for _, pid in out}


@pytest.mark.parametrize(("count", "jobs"), [(workers.MIN_ITEMS - 1, 2), (workers.MIN_ITEMS * 2, 1)])
def test_small_runs_and_one_job_stay_in_this_process(count: int, jobs: int) -> None:
    out = list(workers.ordered_map(_square_and_pid, list(range(count)), jobs=jobs))
    assert {pid for _, pid in out} == {os.getpid()}
    assert [value for value, _ in out] == [i * i for i in range(count)]


def _fail_on_seven(item: int) -> int:
    if item == 7:
        raise ValueError(f"item {item}")
    return item


@NEEDS_FORK
def test_an_error_in_a_worker_reaches_the_caller() -> None:
    with pytest.raises(ValueError, match="item 7"):
        list(workers.ordered_map(_fail_on_seven, list(range(workers.MIN_ITEMS)), jobs=2))


def _tree(tmp_path: Path, name: str) -> Path:
    """Every fixture (bad, clean, split across --config files, unparsable), enough files for workers."""
    root = tmp_path / name
    shutil.copytree(FIXTURES, root / "fixtures")
    (root / "latin1.sh").write_bytes(b"python -m sglang.launch_server --model-path caf\xe9\n")
    (root / "broken.py").write_text("import sglang as sgl\nsgl.Engine(model_path='x',\n")
    return root


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autofix", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}, timeout=600)


def _contents(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@NEEDS_FORK
@pytest.mark.parametrize("args", [(), ("--format", "json"), ("--diff",)], ids=["text", "json", "diff"])
def test_output_is_the_same_with_one_process_or_two(tmp_path: Path, args: tuple[str, ...]) -> None:
    tree = _tree(tmp_path, "tree")
    one, two = _run(tree, "--jobs", "1", *args, "."), _run(tree, "--jobs", "2", *args, ".")
    assert one.returncode == 2, one.stderr[-2000:]  # the broken and undecodable files are errors
    assert "Traceback" not in one.stderr + two.stderr
    shown = one.stdout.count("\n+++ b/") if "--diff" in args else one.stdout.count("SGL")
    assert shown > 200, "too little output to prove anything"
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)


@NEEDS_FORK
def test_fix_writes_the_same_bytes_with_one_process_or_two(tmp_path: Path) -> None:
    first, second = _tree(tmp_path, "first"), _tree(tmp_path, "second")
    before = _contents(first)
    one, two = _run(first, "--jobs", "1", "--fix", "."), _run(second, "--jobs", "2", "--fix", ".")
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
    after = _contents(first)
    assert sum(before[k] != after[k] for k in before) > 100, "the fix changed too little to prove anything"
    assert _contents(second) == after


def test_python_dash_m_autofix_is_the_command(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_text("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend tokenspeed_mla\n")
    done = _run(tmp_path, "a.sh")
    assert done.returncode == 1 and "SGL002" in done.stdout, done.stderr
