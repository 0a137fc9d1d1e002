"""Worker processes for large runs: a map over a run's files, in chunks, in the run's order.

Results come back in the order of the items whatever the workers' pace, so
the output of a run does not depend on how many processes made it. The
workers are forked: they inherit what the run has loaded (configuration,
fixers), and the task itself, which is never pickled; only items and results
cross between processes. Where fork is missing, or the run is small, the map
runs in the calling process.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

__all__ = ["MIN_ITEMS", "available_cores", "ordered_map"]

Item = TypeVar("Item")
Out = TypeVar("Out")

# Fewer items than this are checked in the calling process: starting workers (each imports the parsers
# it needs again) costs more than it saves. A 1,000-file tree has about 150 files to parse.
MIN_ITEMS = 32
# Items per chunk at most: small enough to keep both cores busy to the end, large enough to amortise
# the round trip.
MAX_CHUNK = 32

_task: Callable | None = None  # set in the parent before the fork; the workers inherit it


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def ordered_map(task: Callable[[Item], Out], items: Sequence[Item], jobs: int) -> Iterator[Out]:
    """task(item) for each item, in order; in up to jobs worker processes when that pays."""
    global _task
    if jobs <= 1 or len(items) < MIN_ITEMS or not hasattr(os, "fork"):
        yield from map(task, items)
        return
    jobs = min(jobs, len(items))
    chunk = max(1, min(MAX_CHUNK, len(items) // (jobs * 8)))
    import multiprocessing  # only for a run that uses it

    _task = task
    try:
        with multiprocessing.get_context("fork").Pool(jobs, initializer=_worker_signals) as pool:
            yield from pool.imap(_call, items, chunksize=chunk)
    finally:
        _task = None


def _call(item):  # noqa: ANN001, ANN202 - runs in a worker process
    return _task(item)  # type: ignore[misc]


def _worker_signals() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the run and the pool.
    # SIGTERM (how the pool ends its workers) ends a worker at once, whatever the parent installed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
