"""A warm scripts/sglang_oracle.py: sglang imported once, each call in a fork.

Run by tests/oracle.py in the parser environment, one process per release
(``PYTHONPATH=<env>/sglang-<version> <env>/venv/bin/python oracle_server.py``).
It loads scripts/sglang_oracle.py as the script itself would load (its
torchvision stub, its offline switches), does what the script's ``main`` does
before it runs a command (``logging.disable``, then ``import sglang.version``,
the ~10 s import that every call pays), and then answers requests.

Each request is answered by a child forked from that state, which runs the
script's own ``main([command])`` with the request's JSON as its stdin and exits:
a call starts from exactly the state a fresh ``sglang_oracle.py COMMAND``
process has after importing sglang, and nothing one call does (patches,
working directories, caches) reaches the next.

Protocol, one JSON object a line: the client writes
``{"command": ..., "input": "<stdin text>"}`` to our stdin; we write
``{"returncode": N, "stdout": "...", "stderr": "..."}`` to the stdout we were
started with. Whatever sglang prints goes to stderr. EOF on stdin ends us.
"""

from __future__ import annotations

import importlib.util
import io
import json
import logging
import os
import sys
import tempfile
import traceback
from pathlib import Path

ORACLE = Path(__file__).resolve().parents[1] / "scripts" / "sglang_oracle.py"


def load_oracle():  # noqa: ANN201
    sys.path.insert(0, str(ORACLE.parent))  # as `python scripts/sglang_oracle.py` has it
    spec = importlib.util.spec_from_file_location("sglang_oracle", ORACLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sglang_oracle"] = module
    spec.loader.exec_module(module)
    return module


def answer(oracle, command: str, stdin_text: str) -> dict:  # noqa: ANN001
    """Run ``main([command])`` in a forked child; its stdout and stderr go to files."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: a fresh `sglang_oracle.py COMMAND`, sglang already imported
            code = 1
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdin = io.StringIO(stdin_text)
                try:
                    code = oracle.main([command])
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                except BaseException:  # noqa: BLE001 - reported as the script would: a traceback, exit 1
                    traceback.print_exc()
                    code = 1
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        return {
            "returncode": os.waitstatus_to_exitcode(status),
            "stdout": out.read().decode("utf-8", "replace"),
            "stderr": err.read().decode("utf-8", "replace"),
        }


def serve() -> int:
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # sglang's prints must not reach the replies
    oracle = load_oracle()
    logging.disable(logging.CRITICAL)
    import sglang.version  # noqa: F401 - the import every call would pay

    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        replies.write(json.dumps(answer(oracle, request["command"], request.get("input", ""))) + "\n")
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
