"""SGLang's own parser and rule functions, for tests that want the truth.

Each call runs ``scripts/sglang_oracle.py`` once, in the parser environment
that ``scripts/sglang_env.sh`` builds (``$AUTOFIX_SGLANG_ENV`` or
``<repo>/.sglang-env``), batching every case into that one subprocess: the
import of sglang costs about ten seconds, a case a few milliseconds.

    from oracle import parse, require

    def test_tp_prefix():
        require("0.5.19")
        [result] = parse("0.5.19", [["--model-path", "m", "--tp", "8"]])
        assert result["args"]["tp_size"] == 8
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ORACLE = REPO / "scripts" / "sglang_oracle.py"
VERSIONS = ("0.5.17", "0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")
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


def _run(version: str, command: str, payload: Any = None) -> Any:
    if not available(version):
        raise OracleError(f"{SKIP_REASON} {version}")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SGLANG_", "SGL_")) and k != "PYTHONPATH"
    }
    env["PYTHONPATH"] = str(env_dir() / f"sglang-{version}")
    proc = subprocess.run(
        [str(_python()), str(ORACLE), command],
        input="" if payload is None else json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.splitlines()[-20:])
        raise OracleError(f"sglang_oracle.py {command} ({version}) exited {proc.returncode}:\n{tail}")
    return json.loads(proc.stdout)


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
