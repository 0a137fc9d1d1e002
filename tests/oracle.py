"""SGLang's own parser and rule functions, for tests that want the truth.

Each call runs ``scripts/sglang_oracle.py COMMAND`` once, in the parser
environment that ``scripts/sglang_env.sh`` builds (``$AUTOFIX_SGLANG_ENV`` or
``<repo>/.sglang-env``), batching every case into that one run: the import of
sglang costs about ten seconds, a case a few milliseconds.

That import is paid once per release and test process: tests/oracle_server.py
holds sglang imported and runs each call in a child forked from that state,
through the script's own ``main`` (so a call sees exactly what a fresh process
would). ``AUTOFIX_ORACLE_SERVER=0`` runs a fresh ``sglang_oracle.py`` process
for every call instead; ``fresh_run`` always does.

    from oracle import parse, require

    def test_tp_prefix():
        require("0.5.19")
        [result] = parse("0.5.19", [["--model-path", "m", "--tp", "8"]])
        assert result["args"]["tp_size"] == 8
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from autofix.knowledge.releases import RELEASES

REPO = Path(__file__).resolve().parents[1]
ORACLE = REPO / "scripts" / "sglang_oracle.py"
SERVER = Path(__file__).resolve().with_name("oracle_server.py")
TIMEOUT = 900  # seconds for one call, as for a fresh process
VERSIONS = RELEASES  # the one list: autofix/knowledge/releases.txt
SKIP_REASON = "SGLang parser environment not built: run scripts/sglang_env.sh"


class OracleError(RuntimeError):
    """The oracle process itself failed (not an SGLang error it reports)."""


def env_dir() -> Path:
    return Path(os.environ.get("AUTOFIX_SGLANG_ENV") or REPO / ".sglang-env")


def _python() -> Path:
    return env_dir() / "venv" / "bin" / "python"


def available(version: str) -> bool:
    """Whether the environment holds a usable SGLang ``version``."""
    return _python().exists() and (env_dir() / f"sglang-{version}" / ".autofix-ready").is_file()


def require(version: str) -> None:
    """Skip the calling test when SGLang ``version`` is not built; fail it
    instead when ``AUTOFIX_REQUIRE_ORACLE`` is set (CI, where it must run)."""
    if not available(version):
        import pytest

        if os.environ.get("AUTOFIX_REQUIRE_ORACLE"):
            pytest.fail(f"{SKIP_REASON} {version} (AUTOFIX_REQUIRE_ORACLE is set)")
        pytest.skip(SKIP_REASON)


def _environment(version: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SGLANG_", "SGL_")) and k != "PYTHONPATH"
    }
    env["PYTHONPATH"] = str(env_dir() / f"sglang-{version}")
    return env


def fresh_run(version: str, command: str, payload: Any = None) -> Any:
    """One call in a fresh ``sglang_oracle.py`` process."""
    if not available(version):
        raise OracleError(f"{SKIP_REASON} {version}")
    proc = subprocess.run(
        [str(_python()), str(ORACLE), command],
        input="" if payload is None else json.dumps(payload),
        capture_output=True,
        text=True,
        env=_environment(version),
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    return _answer(version, command, proc.returncode, proc.stdout, proc.stderr)


def _answer(version: str, command: str, returncode: int, stdout: str, stderr: str) -> Any:
    if returncode != 0:
        tail = "\n".join(stderr.splitlines()[-20:])
        raise OracleError(f"sglang_oracle.py {command} ({version}) exited {returncode}:\n{tail}")
    return json.loads(stdout)


class _Server:
    """tests/oracle_server.py for one release: sglang imported once, a fork per call."""

    def __init__(self, version: str) -> None:
        self.version = version
        self.lock = threading.Lock()
        self.log = tempfile.TemporaryFile()  # the server's own stderr: sglang's import-time noise
        self.proc = subprocess.Popen(
            [str(_python()), str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=_environment(version),
            cwd=REPO,
        )
        self.ready = False

    def _line(self, deadline: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.proc.kill()
                raise OracleError(f"oracle server ({self.version}) gave no answer in {TIMEOUT} s")
            if select.select([self.proc.stdout], [], [], min(left, 5.0))[0]:
                break
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.log.seek(0)
            tail = "\n".join(self.log.read().decode("utf-8", "replace").splitlines()[-20:])
            raise OracleError(f"oracle server ({self.version}) exited {self.proc.returncode}:\n{tail}")
        return json.loads(line)

    def call(self, command: str, payload: Any) -> Any:
        with self.lock:
            deadline = time.monotonic() + TIMEOUT
            if not self.ready:
                assert self._line(deadline) == {"ready": True}
                self.ready = True
            assert self.proc.stdin is not None
            request = {"command": command, "input": "" if payload is None else json.dumps(payload)}
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
            reply = self._line(deadline)
        return _answer(self.version, command, reply["returncode"], reply["stdout"], reply["stderr"])

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()


_servers: dict[str, _Server] = {}
_servers_lock = threading.Lock()


def _use_server() -> bool:
    return os.environ.get("AUTOFIX_ORACLE_SERVER", "1") != "0"


def _server(version: str) -> _Server:
    with _servers_lock:
        server = _servers.get(version)
        if server is None or server.proc.poll() is not None:
            server = _servers[version] = _Server(version)
        return server


def warm(versions: Iterable[str] = VERSIONS) -> None:
    """Start the servers of these releases now (their imports run meanwhile)."""
    if _use_server():
        for version in versions:
            if available(version):
                _server(version)


@atexit.register
def _close_servers() -> None:
    with _servers_lock:
        for server in _servers.values():
            server.close()
        _servers.clear()


def _run(version: str, command: str, payload: Any = None) -> Any:
    if not available(version):
        raise OracleError(f"{SKIP_REASON} {version}")
    if not _use_server():
        return fresh_run(version, command, payload)
    return _server(version).call(command, payload)


def parse(
    version: str, argvs: Iterable[Sequence[str]], cwd: str | os.PathLike[str] | None = None
) -> list[dict[str, Any]]:
    """Parse each argv as ``prepare_server_args`` does up to ``parse_args``.

    One result per argv: ``{"ok", "error", "args"}``. ``cwd`` is where a
    relative ``--config`` path is looked up.
    """
    cases = [{"argv": list(argv), "cwd": None if cwd is None else str(cwd)} for argv in argvs]
    return _run(version, "parse", cases)


def rules(version: str, cases: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run SGLang's rule functions for the seed records on each case.

    A case is ``{"args": {dest: value}, "architecture": "X" or None}``; the
    result is ``{"ok", "error", "overrides", "declared"}``.
    """
    return _run(version, "rules", list(cases))


def judge(
    version: str, cases: Iterable[dict[str, Any]], patterns: Iterable[str]
) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """SGLang's verdict on each launch: its parser, then its rule functions.

    A case is ``{"argv": [...], "cwd": dir or None, "architecture": X or None,
    "gpu": "b200" | "h100" | "mi300x" or None, "patterns": [...] (optional)}``.
    The rules run are the seed records' pipeline slice plus every function of
    the release whose strings hold the literal text of one of ``patterns``
    (the case's own ``patterns`` when given). Returns (pattern -> the
    functions that hold it, one ``{"ok", "stage", "error", "ran"}`` per case).
    """
    answer = _run(version, "judge", {"patterns": list(patterns), "cases": list(cases)})
    return answer["located"], answer["results"]


def options(version: str) -> dict[str, Any]:
    """The live option table (what ``options-<version>.json`` is made from)."""
    return _run(version, "options")


def mla(version: str) -> dict[str, Any]:
    """The live MLA table (what ``mla-<version>.json`` is made from)."""
    return _run(version, "mla")
