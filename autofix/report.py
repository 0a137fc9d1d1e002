"""Output: findings as text or JSON, fixers as a table, and unified diffs."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence

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
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=path if path.startswith("/") else f"a/{path}",
        tofile=path if path.startswith("/") else f"b/{path}",
    )
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


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
