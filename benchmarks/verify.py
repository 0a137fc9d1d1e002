"""What autofix, Semgrep and ast-grep found and fixed on a generated tree, against what was planted.

The benchmark reads the outputs of its last timed runs here, so the 20,000-file
tree is not checked, diffed and fixed a second time just to be verified. Stdlib only.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

from trees import K3_BAD_BACKENDS, KIND_WEIGHTS, Planted

# autofix's text format: `path:line:column: CODE [slug] message`, then context lines.
FINDING = re.compile(r"^(?P<path>.+?):\d+:\d+: (?P<code>[A-Z]+\d+) \[", re.MULTILINE)
COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def crash_reason(rc: int, stderr: str) -> str | None:
    """Why a run counts as a crash (exit 2, a signal, a traceback), with its errors summarised; else None."""
    lines = stderr.splitlines()
    traceback = "Traceback (most recent call last):" in lines
    if not traceback and rc in (0, 1):
        return None
    errors = Counter(re.sub(r"^autofix: \S+: ", "", line) for line in lines if line.startswith("autofix: "))
    summary = [f"{n} x {message}" for message, n in errors.most_common(5)]
    return "\n  ".join([f"exit {rc}" + (", traceback" if traceback else ""), *summary,
                        *(lines[-6:] if traceback else [])])


def autofix_findings(output: str, tree: str) -> dict[str, set[str]]:
    """Codes by path relative to the tree, from autofix's text output."""
    found: dict[str, set[str]] = {}
    for match in FINDING.finditer(COLOUR.sub("", output)):
        found.setdefault(os.path.relpath(match["path"], tree), set()).add(match["code"])
    return found


def score(found: dict[str, set[str]], planted: list[Planted]) -> tuple[dict, list[str]]:
    """Per kind of file: bad launches, found, with the right code, false positives; and the misfits."""
    per_kind = {kind: {"bad": 0, "found": 0, "right_code": 0, "false_positive": 0} for kind in KIND_WEIGHTS}
    wrong: list[str] = []
    for p in planted:
        row = per_kind[p.kind]
        codes = found.get(p.path, set())
        if p.category == "bad":
            row["bad"] += 1
            row["found"] += bool(codes)
            row["right_code"] += p.code in codes
            if codes and p.code not in codes:
                wrong.append(f"{p.path}: expected {p.code}, got {sorted(codes)}")
        elif codes:
            row["false_positive"] += 1
            wrong.append(f"{p.path} ({p.category}): unexpected {sorted(codes)}")
    return per_kind, wrong


def rival_score(found: dict[str, set[str]], planted: list[Planted], by_code: bool) -> dict:
    """Totals of score() for another tool; by_code: its rule ids map to autofix codes."""
    per_kind, _ = score(found, planted)
    keys = ("bad", "found", "right_code", "false_positive")
    totals = {key: sum(row[key] for row in per_kind.values()) for key in keys}
    if not by_code:
        del totals["right_code"]
    return {"flagged": len(found), **totals}


def fix_results(original: Path, fixed: Path, planted: list[Planted], diff_output: str,
                tree: str) -> tuple[dict, list[str]]:
    """Whether --fix changed only bad files, only on launch lines, the files --diff showed; and the files changed."""
    bad = {p.path for p in planted if p.category == "bad"}
    changed, unexpected, suspicious = [], [], []
    for p in planted:
        before, after = original / p.path, fixed / p.path
        old, new = before.read_text(encoding="utf-8"), after.read_text(encoding="utf-8")
        if before.stat().st_mode != after.stat().st_mode:
            unexpected.append(f"{p.path}: mode changed")
        if old == new:
            continue
        changed.append(p.path)
        if p.path not in bad:
            unexpected.append(f"{p.path} ({p.category}) changed")
        elif not fix_looks_right(p.code, old, new):
            suspicious.append(p.path)
    diffed = {os.path.relpath(line[6:], tree) for line in diff_output.splitlines() if line.startswith("+++ b/")}
    notes = {"fix_changed": len(changed), "fix_unexpected": unexpected, "fix_suspicious": suspicious,
             "diff_matches_fix": diffed == set(changed)}
    return notes, changed


def fix_looks_right(code: str | None, old: str, new: str) -> bool:
    """The fix edits only launch lines, and does what its code says."""
    # Lines removed or added, whatever a diff would pair them with: a diff may show an untouched
    # closing fence as removed and added again.
    before, after = Counter(old.splitlines()), Counter(new.splitlines())
    edited = [*(before - after), *(after - before)]
    # Launch lines carry a flag, a planted backend, the dtype, or `auto` (the only replaced value planted).
    words = ("--", "tokenspeed_mla", "fp8_e4m3", "auto", "sglang", *K3_BAD_BACKENDS)
    if not all(any(word in line for word in words) for line in edited):
        return False
    if code == "SGL001":
        return new.count("fp8_e4m3") > old.count("fp8_e4m3")
    if code == "SGL003":
        return new.count("attention-backend") < old.count("attention-backend")
    return new.count("tokenspeed_mla") < old.count("tokenspeed_mla")
