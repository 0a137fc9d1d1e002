"""Builds the adversarial tree the tests in this folder run autofix over, and runs the real CLI.

Imported by module name (tests/ holds no __init__.py: pytest puts each test
file's folder on sys.path), so the name is unique across tests/.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUTOFIX = ROOT / ".venv" / "bin" / "autofix"

# A launch the seed fixer tokenspeed-mla-without-fp8-kv-cache fixes (adds --kv-cache-dtype fp8_e4m3).
BAD = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
       "--attention-backend tokenspeed_mla --port 30000")
GOOD = BAD.replace("tokenspeed_mla", "tokenspeed_mla --kv-cache-dtype fp8_e4m3")
BAD_SH = f"#!/bin/bash\n{BAD}\n"
GOOD_SH = f"#!/bin/bash\n{GOOD}\n"


def command(*args: str) -> list[str]:
    exe = str(AUTOFIX) if AUTOFIX.exists() else None
    return [exe, *args] if exe else [sys.executable, "-m", "autofix.cli", *args]


def run_cli(*args: str, cwd: Path, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run(command(*args), cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=environment, stdin=subprocess.DEVNULL)


@dataclass
class Case:
    name: str  # the path, relative to the tree
    before: bytes | None  # None: not a regular file (FIFO, symlink loop, folder)
    expected: bytes | None  # the bytes after --fix (None: as before)
    skipped: str | None = None  # a word the one-line skip message must hold, if the file is skipped


def build(root: Path) -> list[Case]:
    """The adversarial tree under root; what each file must hold after `autofix --fix`."""
    cases: list[Case] = []

    def put(name: str, data: bytes, expected: bytes | None = None, skipped: str | None = None) -> Path:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        cases.append(Case(name, data, data if expected is None else expected, skipped))
        return path

    # The control: a bad launch among all the rest still gets fixed.
    put("good/bad-launch.sh", BAD_SH.encode(), GOOD_SH.encode())
    put("binary.sh", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4 + b"sglang", skipped="binary")
    put("latin1.sh", f"# caf\xe9\n{BAD}\n".encode("latin-1"), skipped="UTF-8")
    put("utf16.sh", f"\ufeff#!/bin/bash\n{BAD}\n".encode("utf-16-le"),
        skipped="UTF-16")
    put("utf16be.yaml", ("\ufeffargs: [--model-path, x, sglang]\n").encode("utf-16-be"), skipped="UTF-16")
    put("empty.sh", b"")
    put("empty.yaml", b"")
    put("empty.py", b"")
    put("empty.md", b"")
    put("empty.ipynb", b"")
    put("Dockerfile", b"")
    big = (b"# filler line mentioning sglang but launching nothing\n" * 200_000)[: 10 * 1024 * 1024]
    put("big.sh", big + BAD_SH.encode(), big + GOOD_SH.encode())
    put("long-line.sh", b"echo " + b"a" * (1 << 20) + b" sglang\n")
    put("long-line.py", b"X = '" + b"sglang" * (1 << 20 // 6) + b"'\n")
    nested = "".join("  " * i + f"k{i}:\n" for i in range(3000)) + "  " * 3000 + "sglang: 1\n"
    put("nested.yaml", nested.encode())
    nested_flow = "a: " + "[" * 300 + "sglang" + "]" * 300 + "\n"  # deeper: ruamel is quadratic in flow depth
    put("nested-flow.yaml", nested_flow.encode())
    bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, (prev, cur) in enumerate(zip("abcdefgh", "bcdefghi")):
        bomb.append(f"{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
    bomb.append("command: [python3, -m, sglang.launch_server, --model-path, *i]")
    put("bomb.yaml", ("\n".join(bomb) + "\n").encode())
    put("unterminated-quote.sh", f"#!/bin/bash\n{BAD} --served-model-name \"oops\n".encode())
    put("unterminated-single.sh", f"#!/bin/bash\n{BAD} --served-model-name 'oops\n".encode())
    put("unterminated-heredoc.sh", f"#!/bin/bash\ncat <<EOF\n{BAD}\n".encode())
    put("heredoc-bash.sh", f"#!/bin/bash\nbash <<'EOF'\n{BAD}\n".encode())
    put("crlf.sh", BAD_SH.replace("\n", "\r\n").encode(), GOOD_SH.replace("\n", "\r\n").encode())
    put("mixed-newlines.sh", f"#!/bin/bash\r\necho hi\n{BAD}\r\necho bye\n".encode(),
        f"#!/bin/bash\r\necho hi\n{GOOD}\r\necho bye\n".encode())
    put("bom.sh", b"\xef\xbb\xbf" + BAD_SH.encode(), b"\xef\xbb\xbf" + GOOD_SH.encode())
    put("bom-crlf.py", b"\xef\xbb\xbf" + f"import subprocess\r\nsubprocess.run({BAD.split()!r})\r\n".encode(),
        b"\xef\xbb\xbf" + f"import subprocess\r\nsubprocess.run({GOOD.split()!r})\r\n".encode())
    put("no-final-newline.sh", f"#!/bin/bash\n{BAD}".encode(), f"#!/bin/bash\n{GOOD}".encode())
    put("nul.sh", f"#!/bin/bash\n{BAD}\n\x00\n".encode(), skipped="NUL")
    put("nul.py", f"import os\nos.system('{BAD}')\x00\n".encode(), skipped="NUL")
    # A read-only file with a fixable launch: its bits say "do not edit me"; autofix does not, even as root.
    ro = put("read-only.sh", BAD_SH.encode(), skipped="not written: the file is read-only")
    ro.chmod(0o444)
    # A folder named like a launch file, holding one.
    put("x.sh/inner.sh", BAD_SH.encode(), GOOD_SH.encode())
    # A symlink loop, a symlink to a file outside the tree, a dangling symlink, a FIFO.
    (root / "loop-a.sh").symlink_to("loop-b.sh")
    (root / "loop-b.sh").symlink_to("loop-a.sh")
    cases.append(Case("loop-a.sh", None, None))
    cases.append(Case("loop-b.sh", None, None))
    (root / "dangling.sh").symlink_to("nowhere.sh")
    cases.append(Case("dangling.sh", None, None))
    os.mkfifo(root / "fifo.sh")
    cases.append(Case("fifo.sh", None, None))
    return cases


def outside_link(root: Path, outside: Path) -> Case:
    """A symlink in root to a launch file outside it: autofix does not write through it."""
    outside.write_bytes(BAD_SH.encode())
    (root / "outside-link.sh").symlink_to(outside)
    return Case("outside-link.sh", None, None, skipped="outside")


# What the suite tried and found, printed by this folder's conftest at the end of the session.
STATS: dict[str, int] = {"cases": 0, "crashes": 0, "corrupted": 0, "properties": 0, "examples": 0,
                         "fuzz inputs": 0, "fuzz crashes": 0, "fuzz unparsable writes": 0}


def crashed(output: str) -> bool:
    """Whether a run's output shows a crash: a traceback or autofix's internal-error message."""
    return "Traceback (most recent call last)" in output or "internal error" in output
