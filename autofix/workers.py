"""Worker processes for large runs: a map over a run's files, in the run's order, that no file can hang.

Results come back in the order of the items whatever the workers' pace, so
the output of a run does not depend on how many processes made it. The
workers are forked: they inherit what the run has loaded (configuration,
fixers), the task and the items themselves, which are never pickled; only an
item's index goes to a worker and its result comes back, over a pipe of its own.

A worker that dies (a parser's segfault, an OOM kill, kill -9) or spends more
than the per-item time budget on one item is replaced, and that item's result
is on_failure(item, reason); the items it held besides go to another worker.
Where fork is missing or fails (EAGAIN), or the run is small, the map runs in
the calling process.
"""

from __future__ import annotations

import collections
import os
import pickle
import selectors
import signal
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

__all__ = ["CRASHED", "MIN_ITEMS", "TIMED_OUT", "available_cores", "item_seconds", "ordered_map"]

Item = TypeVar("Item")
Out = TypeVar("Out")

# Fewer items than this are checked in the calling process: starting workers (each imports the parsers
# it needs again) costs more than it saves. A 1,000-file tree has about 150 files to parse.
MIN_ITEMS = 32
# Items a worker holds at once: one it works on, one waiting, so it never waits for the next.
DEPTH = 2
# What an item's failure is called (on_failure's reason).
CRASHED = "the parser crashed"
TIMED_OUT = "timed out"
# Seconds one item may take in a worker (AUTOFIX_FILE_TIMEOUT overrides it): a file checks in well under
# a second; a parser stuck on a hostile input is stopped here.
ITEM_SECONDS = 120.0

_HEADER = struct.Struct("!Q")


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def item_seconds() -> float:
    try:
        value = float(os.environ.get("AUTOFIX_FILE_TIMEOUT", ITEM_SECONDS))
    except ValueError:
        return ITEM_SECONDS
    return value if value > 0 else ITEM_SECONDS


def ordered_map(task: Callable[[Item], Out], items: Sequence[Item], jobs: int,
                on_failure: Callable[[Item, str], Out] | None = None) -> Iterator[Out]:
    """task(item) for each item, in order; in up to jobs worker processes when that pays.

    An exception task raises in a worker is raised here. on_failure(item, reason): the result of an
    item whose worker died (reason CRASHED) or ran out of time (TIMED_OUT); None: RuntimeError.
    """
    if jobs <= 1 or len(items) < MIN_ITEMS or not hasattr(os, "fork"):
        yield from map(task, items)
        return
    yield from _Pool(task, items, min(jobs, len(items)), on_failure).results()


class _Worker:
    def __init__(self, pid: int, send: int, receive: int):
        self.pid, self.send, self.receive = pid, send, receive
        self.held: collections.deque[int] = collections.deque()
        self.since = time.monotonic()  # when it started on the first item it holds
        self.buffer = bytearray()


class _Pool:
    def __init__(self, task: Callable, items: Sequence, jobs: int, on_failure: Callable | None):
        self.task, self.items, self.jobs, self.on_failure = task, items, jobs, on_failure
        self.budget = item_seconds()
        self.waiting: collections.deque[int] = collections.deque(range(len(items)))
        self.done: dict[int, object] = {}
        self.workers: dict[int, _Worker] = {}  # by the descriptor its results come on
        self.selector = selectors.DefaultSelector()

    def results(self) -> Iterator:
        try:
            for _ in range(self.jobs):
                if not self._start():
                    break
            for index in range(len(self.items)):
                while index not in self.done:
                    if not self.workers:  # no worker could be started: the rest here
                        self._here()
                        continue
                    self._step()
                yield self.done.pop(index)
        finally:
            self._stop()

    # -- the workers -------------------------------------------------------------------

    def _start(self) -> bool:
        """Start a worker and hand it items; False when fork fails (EAGAIN, ENOMEM)."""
        to_child = from_child = None
        try:
            to_child, from_child = os.pipe(), os.pipe()
            pid = os.fork()
        except OSError:
            for fd in (*(to_child or ()), *(from_child or ())):
                os.close(fd)
            return False
        if pid == 0:  # the worker: never returns
            try:
                os.close(to_child[1])
                os.close(from_child[0])
                for worker in self.workers.values():
                    os.close(worker.send)
                    os.close(worker.receive)
                _serve(self.task, self.items, to_child[0], from_child[1])
            finally:
                os._exit(0)
        os.close(to_child[0])
        os.close(from_child[1])
        worker = _Worker(pid, to_child[1], from_child[0])
        self.workers[worker.receive] = worker
        self.selector.register(worker.receive, selectors.EVENT_READ, worker)
        self._feed(worker)
        return True

    def _feed(self, worker: _Worker) -> None:
        while len(worker.held) < DEPTH and self.waiting:
            index = self.waiting.popleft()
            if not worker.held:
                worker.since = time.monotonic()
            worker.held.append(index)
            try:
                os.write(worker.send, _HEADER.pack(index))
            except OSError:  # it died: found when its results pipe closes
                return

    def _step(self) -> None:
        now = time.monotonic()
        busy = [w for w in self.workers.values() if w.held]
        if not busy:  # nothing held: hand out what waits
            for worker in list(self.workers.values()):
                self._feed(worker)
            return
        first = min(w.since for w in busy) + self.budget
        for key, _ in self.selector.select(timeout=max(0.0, first - now)):
            self._receive(key.data)
        now = time.monotonic()
        for worker in [w for w in self.workers.values() if w.held and now - w.since > self.budget]:
            self._lose(worker, TIMED_OUT)

    def _receive(self, worker: _Worker) -> None:
        try:
            chunk = os.read(worker.receive, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self._lose(worker, CRASHED)
            return
        worker.buffer += chunk
        while len(worker.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(worker.buffer)
            if len(worker.buffer) < _HEADER.size + size:
                break
            payload = bytes(worker.buffer[_HEADER.size:_HEADER.size + size])
            del worker.buffer[:_HEADER.size + size]
            ok, value = pickle.loads(payload)
            if not ok:
                raise value
            self.done[worker.held.popleft()] = value
            worker.since = time.monotonic()
        self._feed(worker)

    def _lose(self, worker: _Worker, reason: str) -> None:
        """A worker that died or ran out of time: its first item failed; the others are handed out again."""
        self._end(worker, kill=True)
        if worker.held:
            index = worker.held.popleft()
            self.done[index] = self._failed(index, reason)
            self.waiting.extendleft(reversed(worker.held))
        self._start()  # a replacement; when fork fails, the others go on (or this process)

    def _failed(self, index: int, reason: str):  # noqa: ANN202
        if self.on_failure is None:
            raise RuntimeError(f"a worker process failed: {reason}")
        return self.on_failure(self.items[index], reason)

    def _here(self) -> None:
        while self.waiting:
            index = self.waiting.popleft()
            self.done[index] = self.task(self.items[index])

    def _end(self, worker: _Worker, kill: bool) -> None:
        self.workers.pop(worker.receive, None)
        try:
            self.selector.unregister(worker.receive)
        except (KeyError, ValueError):
            pass
        for fd in (worker.send, worker.receive):
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(worker.pid, 0)
        except ChildProcessError:
            pass

    def _stop(self) -> None:
        finished = not self.waiting and not any(w.held for w in self.workers.values())
        for worker in list(self.workers.values()):
            self._end(worker, kill=not finished)  # a finished worker ends when its pipe closes
        self.selector.close()


def _serve(task: Callable, items: Sequence, receive: int, send: int) -> None:
    """A worker's loop: an index in, the pickled (ok, result or exception) out, until the pipe closes."""
    _worker_signals()
    while True:
        header = _read_exactly(receive, _HEADER.size)
        if header is None:
            return
        (index,) = _HEADER.unpack(header)
        try:
            payload = pickle.dumps((True, task(items[index])), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - it reaches the run, which raises it
            try:
                payload = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        data = memoryview(_HEADER.pack(len(payload)) + payload)
        while data:
            data = data[os.write(send, data):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _worker_signals() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the run and the workers.
    # SIGTERM ends a worker at once, whatever the parent installed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
