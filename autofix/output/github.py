"""GitHub Actions workflow commands: one `::error` annotation per finding.

`::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=CODE slug::MESSAGE`

GitHub reads `%`, CR and LF escaped as `%25`, `%0D`, `%0A` in the message, and
also `:` and `,` (`%3A`, `%2C`) in property values. Columns are 1-based
characters; the path is the one autofix reports (relative to the working
directory when inside it, which in a workflow is the checkout).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autofix.pipeline import Reported

__all__ = ["annotation", "escape_data", "escape_property"]

_LABELS = {"safe": "fix", "unsafe": "unsafe fix", "display-only": "suggestion"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(path: str, r: Reported) -> str:
    props = {
        "file": path,
        "line": r.line,
        "col": r.column,
        "endLine": r.end_line,
        "endColumn": r.end_column,
        "title": f"{r.fixer.code} {r.fixer.name}",
    }
    message = r.finding.message
    fix = r.fix
    if fix is not None:
        message += f"\n{'fixed' if r.fixed else _LABELS[fix.applicability.value]}: {fix.title}"
    fields = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items())
    return f"::error {fields}::{escape_data(message)}"
