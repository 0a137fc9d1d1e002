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


# -- a worker that dies or stalls does not hang the run ------------------------------------------------


def _die_or_stall(item: int) -> int:
    import signal
    import time

    if item == 3:
        os.kill(os.getpid(), signal.SIGSEGV)  # a parser's segfault
    if item == 5:
        os.kill(os.getpid(), signal.SIGKILL)  # kill -9, the OOM killer
    if item == 8:
        time.sleep(600)  # a parser stuck on a hostile input
    return item * 10


@NEEDS_FORK
def test_a_dead_or_stalled_worker_is_replaced_and_its_item_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("AUTOFIX_FILE_TIMEOUT", "3")
    items = list(range(workers.MIN_ITEMS * 2))
    started = time.monotonic()
    out = list(workers.ordered_map(_die_or_stall, items, jobs=2, on_failure=lambda item, why: (item, why)))
    assert time.monotonic() - started < 60
    expected = {3: (3, workers.CRASHED), 5: (5, workers.CRASHED), 8: (8, workers.TIMED_OUT)}
    assert out == [expected.get(i, i * 10) for i in items]


@NEEDS_FORK
def test_fork_failure_falls_back_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    def no_fork() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    items = list(range(workers.MIN_ITEMS * 2))
    out = list(workers.ordered_map(_square_and_pid, items, jobs=2))
    assert out == [(i * i, os.getpid()) for i in items]


@NEEDS_FORK
def test_fork_failing_after_a_first_worker_still_finishes(monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    real_fork, forks = os.fork, []

    def one_fork() -> int:
        if forks:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", one_fork)
    items = list(range(workers.MIN_ITEMS * 2))
    out = list(workers.ordered_map(_die_or_stall, [i if i not in (5, 8) else 1 for i in items], jobs=2,
                                   on_failure=lambda item, why: why))
    # The one worker dies on 3; no replacement can be forked: the rest are checked here.
    assert out[3] == workers.CRASHED and out[4] == 40 and out[-1] == (len(items) - 1) * 10


@NEEDS_FORK
def test_a_crashing_check_in_a_run_is_reported_and_the_rest_fixed(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from autofix import analysis
    from autofix.cli import main

    bad = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
    for i in range(workers.MIN_ITEMS + 8):
        (tmp_path / f"s{i:02}.sh").write_text(bad)
    real = analysis.Analyser.file

    def crash_on_one(self, path, name, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if name.endswith("s07.sh") and os.getpid() != parent:
            os.kill(os.getpid(), 9)
        return real(self, path, name, *args, **kwargs)

    parent = os.getpid()
    monkeypatch.setattr(analysis.Analyser, "file", crash_on_one)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--fix", "--no-cache", "-j", "2", "."])
    assert "autofix: s07.sh: not checked: the parser crashed" in result.output
    assert result.exit_code == 2
    assert (tmp_path / "s07.sh").read_text() == bad
    fixed = [p for p in tmp_path.glob("s*.sh") if "--kv-cache-dtype" in p.read_text()]
    assert len(fixed) == workers.MIN_ITEMS + 7
    assert f"Fixed {workers.MIN_ITEMS + 7} finding(s)" in result.output


DEEP = {
    "calls": "x = " + "f(" * 3000 + ")" * 3000 + "\n",
    "minus": "x = " + "-" * 20000 + "1\n",
    "lambdas": "x = " + "lambda: " * 5000 + "1\n",
    "sums": "x = " + "a + " * 5000 + "1\n",
}


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_deep_nesting_is_refused_before_the_parser(tmp_path: Path, kind: str) -> None:
    launch = "import subprocess\nsubprocess.run(['python3', '-m', 'sglang.launch_server', '--model-path', 'x'])\n"
    (tmp_path / "deep.py").write_text(launch + DEEP[kind])
    (tmp_path / "deep.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": '
        + __import__("json").dumps(launch + DEEP["calls"]) + '}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    done = _run(tmp_path, "--jobs", "1", "deep.py", "deep.ipynb")
    assert "autofix: deep.py: not checked: nested too deeply" in done.stderr, done.stderr[-2000:]
    assert "autofix: deep.ipynb: not checked: nested too deeply" in done.stderr, done.stderr[-2000:]
    assert done.returncode == 2 and "Traceback" not in done.stderr
