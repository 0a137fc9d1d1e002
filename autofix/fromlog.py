"""`autofix --from-log FILE`: name the fixers whose SGLang error a server log or traceback shows.

Every fixer knows how SGLang words its error (`Fixer.patterns`: the record's
message pattern and the wordings of other releases). A log is read line by
line, colour codes stripped; each fixer is named once, at its first matching
line. Fixers are listed in the order their errors appear; when one line
matches several, the pattern that matched the most literal text comes first
(`... got (.+?)\\.` says less than the full sentence).

A line no fixer matches may still show an error of SGLang's catalogue (every
launch error of every release autofix knows): `match_catalogue` names that
check, where SGLang raises it, and the flags it reads, though no rule fixes it.

Pure: text in, matches and their explanations out. `cli.py` reads the file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autofix.fixer import Fixer

__all__ = ["CatalogueMatch", "LogMatch", "explain", "explain_error", "match_catalogue", "match_log", "matches_json",
           "section"]

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
        if candidate.literal < _LEAST_LITERAL:
            continue  # a message that is all field (`{}`) names no line
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


# -- errors of the catalogue that no fixer matched ---------------------------------------------

# A message must spell this much literal text to be named from a log line.
_LEAST_LITERAL = 12


@dataclass(frozen=True, slots=True)
class CatalogueMatch:
    error: object  # knowledge.catalogue.CatalogueError: the newest release's entry of the id
    line: int
    text: str
    message: str


def _first_line(error) -> str:  # noqa: ANN001
    """What one log line shows of error: its message's first line, or a bare assert's statement."""
    if error.message:
        return next((line for line in error.message.splitlines() if line.strip()), "")
    return error.site.source.splitlines()[0].strip() if error.site.source else ""


def _needle(error) -> str:  # noqa: ANN001
    """The longest literal text a log line must hold for error to be named from it."""
    return max(_first_line(error).split("{}"), key=len).strip()


def nameable(error) -> bool:  # noqa: ANN001
    """Whether a log line can name error: its text spells enough to tell it from any other line."""
    return len(_needle(error)) >= _LEAST_LITERAL


def _line_pattern(error) -> re.Pattern[str]:  # noqa: ANN001
    """error's pattern, or for a message over several lines, one for its first line."""
    if error.message and "\n" not in error.message:
        return re.compile(error.pattern)
    parts = _first_line(error).strip().split("{}")
    return re.compile(r"\s*".join(re.escape(w) for w in " ".join(parts).split()) if not error.message
                      else "(.+?)".join(re.escape(p) for p in parts))


@functools.cache
def _searchable() -> list[tuple[str, object, re.Pattern[str]]]:
    from autofix.knowledge import catalogue
    from autofix.knowledge.releases import RELEASES

    newest: dict[str, object] = {}
    for release in reversed(RELEASES):
        for error_id, error in catalogue.errors(release).items():
            newest.setdefault(error_id, error)
    found = []
    for error in newest.values():
        if nameable(error):
            found.append((_needle(error), error, _line_pattern(error)))
    return found


def match_catalogue(text: str, skip_lines: Iterable[int] = ()) -> list[CatalogueMatch]:
    """The catalogue errors the log shows, each once, at its first line; lines in skip_lines
    (those a fixer matched) are not read again."""
    searchable = _searchable()
    skipped = set(skip_lines)
    found: dict[str, CatalogueMatch] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if number in skipped:
            continue
        line = _ANSI.sub("", raw)
        best: tuple[int, CatalogueMatch] | None = None
        for needle, error, pattern in searchable:
            if needle not in line or error.id in found:  # type: ignore[attr-defined]
                continue
            match = pattern.search(line)
            if match is not None and (best is None or len(needle) > best[0]):
                best = (len(needle), CatalogueMatch(error, number, line.strip(), match.group(0)))
        if best is not None:
            found[best[1].error.id] = best[1]  # type: ignore[attr-defined]
    return sorted(found.values(), key=lambda m: m.line)


def _flags(error) -> list[str]:  # noqa: ANN001
    from autofix.knowledge.options import table

    options = table(error.release)
    return [o.primary for o in (options.by_dest(d) for d in error.reads) if o is not None]


def explain_error(match: CatalogueMatch, log_name: str) -> str:
    """What to tell a user about an SGLang error no rule fixes: the check, where, which flags."""
    error = match.error
    site = error.site  # type: ignore[attr-defined]
    lines = [
        f"{log_name}:{match.line}: SGLang error {error.id} (no autofix rule fixes it)",  # type: ignore[attr-defined]
        f"  log: {match.text}",
        f"  raised by: {site.function} ({site.file}:{site.line} in SGLang {error.release})",  # type: ignore[attr-defined]
    ]
    flags = _flags(error)
    if flags:
        lines.append(f"  flags it reads: {', '.join(flags)}")
    return "\n".join(lines)


def catalogue_json(matches: Iterable[CatalogueMatch]) -> list[dict[str, object]]:
    out = []
    for m in matches:
        error, site = m.error, m.error.site  # type: ignore[attr-defined]
        out.append({
            "code": None, "name": None, "record": error.id, "line": m.line, "text": m.text,  # type: ignore[attr-defined]
            "message": m.message, "summary": error.text, "use_instead": "", "gpu": error.needs == "gpu",  # type: ignore[attr-defined]
            "source": {"file": site.file, "line": site.line, "function": site.function,
                       "release": error.release},  # type: ignore[attr-defined]
            "flags": _flags(error),
        })
    return out
