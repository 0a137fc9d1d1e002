"""--diff output: difflib's for ordinary files; for long ones, anchored on unique lines, still exact."""

from __future__ import annotations

import difflib
import random
import re

from autofix import report

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _apply(before: list[str], diff: str) -> list[str]:
    """before with a unified diff applied (hunk headers and context checked)."""
    out: list[str] = []
    at = 0
    lines = diff.splitlines(keepends=True)[2:]
    k = 0
    while k < len(lines):
        match = _HUNK.match(lines[k])
        assert match, lines[k]
        start = int(match[1]) - (0 if match[2] == "0" else 1)
        out += before[at:start]
        at = start
        k += 1
        while k < len(lines) and not lines[k].startswith("@@"):
            tag, text = lines[k][0], lines[k][1:]
            if tag in " -":
                assert before[at] == text, (at, before[at], text)
                at += 1
            if tag in " +":
                out.append(text)
            k += 1
    return out + before[at:]


def _edited(rng: random.Random, lines: list[str]) -> list[str]:
    after = list(lines)
    for _ in range(rng.randint(0, 400)):
        k = rng.randrange(len(after) + 1)
        roll = rng.random()
        if roll < 0.5 and k < len(after):
            after[k] = after[k].rstrip("\n") + " --kv-cache-dtype fp8_e4m3\n"
        elif roll < 0.8:
            after.insert(k, rng.choice(["```\n", "\n", "  --tp 8 \\\n"]))
        elif k < len(after):
            del after[k]
    return after


def test_long_files_get_an_exact_diff() -> None:
    rng = random.Random(7)
    repeated = ["```\n", "\n", "python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"]
    for _ in range(5):
        before = [rng.choice(repeated) if rng.random() < 0.7 else f"## step {n}\n" for n in range(6000)]
        after = _edited(rng, before)
        text = report.diff("x.md", "".join(before), "".join(after))
        assert len(before) + len(after) >= report._LONG_DIFF
        assert _apply(before, text) == after
        changed = sum(1 for line in text.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        reference = sum(1 for line in difflib.unified_diff(before, after) if line[:1] in "+-") - 2
        assert changed <= reference * 1.5 + 10  # not a rewrite of the whole file


def test_ordinary_files_get_difflibs_diff() -> None:
    before = "".join(f"line {n}\n" for n in range(50))
    after = before.replace("line 7\n", "line 7 --tp 8\n").replace("line 30\n", "")
    expected = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), "a/x.sh", "b/x.sh"))
    assert report.diff("x.sh", before, after) == expected
