"""`autofix --from-log FILE`: name the fixers whose SGLang error a server log or traceback shows.

Every fixer knows how SGLang words its error (`Fixer.patterns`: the record's
message pattern and the wordings of other releases). A log is read line by
line, colour codes stripped; each fixer is named once, at its first matching
line. Fixers are listed in the order their errors appear; when one line
matches several, the pattern that matched the most literal text comes first
(`... got (.+?)\\.` says less than the full sentence).

Pure: text in, matches and their explanations out. `cli.py` reads the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autofix.fixer import Fixer

__all__ = ["LogMatch", "explain", "match_log", "matches_json", "section"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True, slots=True)
class LogMatch:
    fixer: Fixer
    line: int  # 1-based line of the log
    text: str  # that line, without colour codes and surrounding blanks
    message: str  # the part of the line the pattern matched
    literal: int  # characters of the match that the pattern spells literally (not captured)


def match_log(text: str, fixers: Iterable[Fixer]) -> list[LogMatch]:
    """The fixers whose error the log shows, each at its first matching line."""
    compiled = [(fx, [re.compile(p) for p in fx.patterns]) for fx in fixers]
    found: dict[str, LogMatch] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _ANSI.sub("", raw)
        for fx, patterns in compiled:
            if fx.code in found:
                continue
            best = _best(fx, patterns, line, number)
            if best is not None:
                found[fx.code] = best
    return sorted(found.values(), key=lambda m: (m.line, -m.literal, m.fixer.code))


def _best(fx: Fixer, patterns: Sequence[re.Pattern[str]], line: str, number: int) -> LogMatch | None:
    best: LogMatch | None = None
    for pattern in patterns:
        match = pattern.search(line)
        if match is None:
            continue
        captured = sum(len(g) for g in match.groups() if g)
        candidate = LogMatch(fx, number, line.strip(), match.group(0), len(match.group(0)) - captured)
        if best is None or candidate.literal > best.literal:
            best = candidate
    return best


def section(doc: str, heading: str) -> str:
    """The body of a `## heading` section of a fixer's docs, without its leading and trailing blank lines."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return match.group(1).strip("\n") if match else ""


def _code_block(body: str) -> str:
    match = re.search(r"```[a-z]*\n(.*?)```", body, re.S)
    return match.group(1).rstrip("\n") if match else body.strip()


def explain(match: LogMatch, log_name: str) -> str:
    """What to tell a user about one match: which fixer, the line, and what to write instead."""
    fx = match.fixer
    lines = [
        f"{log_name}:{match.line}: {fx.code} [{fx.name}] {fx.summary}",
        f"  log: {match.text}",
    ]
    instead = _code_block(section(fx.doc, "Use instead"))
    if instead:
        lines.append("  use instead:")
        lines.extend(f"    {line}" for line in instead.splitlines())
    if fx.gpu:
        lines.append("  (a GPU rule: check files with --gpu NAME)")
    lines.append(f"  more: autofix --explain {fx.code}")
    return "\n".join(lines)


def matches_json(matches: Iterable[LogMatch]) -> list[dict[str, object]]:
    return [
        {
            "code": m.fixer.code,
            "name": m.fixer.name,
            "record": m.fixer.record,
            "line": m.line,
            "text": m.text,
            "message": m.message,
            "summary": m.fixer.summary,
            "use_instead": _code_block(section(m.fixer.doc, "Use instead")),
            "gpu": m.fixer.gpu,
        }
        for m in matches
    ]
