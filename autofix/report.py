"""Output: findings as text or JSON, fixers as a table, and unified diffs."""

from __future__ import annotations

import bisect
import difflib
import json
from collections.abc import Iterator, Sequence

from autofix.fixer import Fixer
from autofix.pipeline import Reported
from autofix.source import Source

__all__ = ["diff", "finding_json", "finding_text", "fixers_json", "fixers_text"]


def finding_text(path: str, r: Reported) -> str:
    head = f"{path}:{r.line}:{r.column}: {r.fixer.code} [{r.fixer.name}] {r.finding.message}"
    fix = r.fix
    if r.fixed:
        return f"{head}\n  fixed: {fix.title}" if fix else head
    if fix is None:
        return head
    label = {"safe": "fix", "unsafe": "unsafe fix", "display-only": "suggestion"}[fix.applicability.value]
    return f"{head}\n  {label}: {fix.title}"


def finding_json(path: str, r: Reported, source: Source) -> dict[str, object]:
    fix = r.fix
    fix_json = None
    if fix is not None:
        fix_json = {
            "applicability": fix.applicability.value,
            "title": fix.title,
            "edits": [_edit_json(source, e.span.start, e.span.end, e.text) for e in fix.edits],
        }
    return {
        "path": path,
        "line": r.line,
        "column": r.column,
        "end_line": r.end_line,
        "end_column": r.end_column,
        "code": r.fixer.code,
        "name": r.fixer.name,
        "record": r.fixer.record,
        "errors": list(r.fixer.errors),
        "message": r.finding.message,
        "fix": fix_json,
        "fixed": r.fixed,
    }


def _edit_json(source: Source, start: int, end: int, text: str) -> dict[str, object]:
    line, column = source.line_col(start)
    end_line, end_column = source.line_col(end)
    return {
        "start": {"line": line, "column": column},
        "end": {"line": end_line, "column": end_column},
        "content": text,
    }


def diff(path: str, before: str, after: str) -> str:
    """A unified diff that keeps each line's own newline and marks a missing final one."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    fromfile = path if path.startswith("/") else f"a/{path}"
    tofile = path if path.startswith("/") else f"b/{path}"
    if len(a) + len(b) < _LONG_DIFF:
        lines = difflib.unified_diff(a, b, fromfile=fromfile, tofile=tofile)
    else:
        lines = _unified(_Anchored(a, b), fromfile, tofile)
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


# Above this many lines in all, lines found once in each text anchor the diff (as patience
# diff does), and difflib matches only the stretches between anchors: difflib alone takes
# time that grows with the file times the number of changes.
_LONG_DIFF = 4000


class _Anchored(difflib.SequenceMatcher):
    def __init__(self, a: list[str], b: list[str]):
        super().__init__(None, a, b)

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.matching_blocks is not None:
            return self.matching_blocks
        a, b = self.a, self.b
        blocks: list[tuple[int, int, int]] = []
        i0 = j0 = 0
        for i, j in [*_anchors(a, b), (len(a), len(b))]:
            if i > i0 and j > j0:
                inner = difflib.SequenceMatcher(None, a[i0:i], b[j0:j], autojunk=False)
                blocks += [(i0 + x, j0 + y, n) for x, y, n in inner.get_matching_blocks() if n]
            if i < len(a):
                blocks.append((i, j, 1))
            i0, j0 = i + 1, j + 1
        merged: list[tuple[int, int, int]] = []
        for i, j, n in blocks:
            if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
                merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
            else:
                merged.append((i, j, n))
        self.matching_blocks = [difflib.Match(*m) for m in [*merged, (len(a), len(b), 0)]]
        return self.matching_blocks


def _anchors(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines found once in a and once in b, the longest run in order in both."""
    once_a: dict[str, int | None] = {}
    for i, line in enumerate(a):
        once_a[line] = None if line in once_a else i
    once_b: dict[str, int | None] = {}
    for j, line in enumerate(b):
        once_b[line] = None if line in once_b else j
    pairs = [(i, once_b[line]) for line, i in once_a.items() if i is not None and once_b.get(line) is not None]
    pairs.sort()
    # The longest increasing run of the j's (patience sorting), O(n log n).
    tails: list[int] = []  # tails[k]: the pair ending the best run of length k + 1 found so far
    tail_js: list[int] = []  # the j of each tails[k], increasing
    back: list[int] = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tail_js, j)
        back[index] = tails[k - 1] if k else -1
        if k == len(tails):
            tails.append(index)
            tail_js.append(j)  # type: ignore[arg-type]
        else:
            tails[k], tail_js[k] = index, j  # type: ignore[assignment]
    run: list[tuple[int, int]] = []
    at = tails[-1] if tails else -1
    while at != -1:
        run.append(pairs[at])  # type: ignore[arg-type]
        at = back[at]
    return run[::-1]


def _unified(matcher: difflib.SequenceMatcher, fromfile: str, tofile: str) -> Iterator[str]:
    """difflib.unified_diff's lines, from a given matcher."""
    for number, group in enumerate(matcher.get_grouped_opcodes(3)):
        if number == 0:
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        yield f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n"
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                yield from (" " + line for line in matcher.a[a1:a2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in matcher.a[a1:a2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in matcher.b[b1:b2])


def _range(start: int, stop: int) -> str:
    """A hunk's line range as unified diffs write it (difflib's _format_range_unified)."""
    length = stop - start
    first = start + 1
    if length == 1:
        return str(first)
    if not length:
        first -= 1
    return f"{first},{length}"


def fixers_text(fixers: Sequence[Fixer]) -> str:
    rows = [("code", "name", "record", "releases", "default", "needs")]
    for fx in fixers:
        rows.append((fx.code, fx.name, fx.record, f"{fx.releases[0]}-{fx.releases[1]}", "yes" if fx.default else "no",
                     "--gpu" if fx.gpu else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def fixers_json(fixers: Sequence[Fixer]) -> str:
    return json.dumps(
        [
            {
                "code": fx.code,
                "name": fx.name,
                "record": fx.record,
                "releases": list(fx.releases),
                "default": fx.default,
                "gpu": fx.gpu,
                "summary": fx.summary,
            }
            for fx in fixers
        ],
        indent=2,
    )
