"""GitLab Code Quality: a JSON list of issues, as `artifacts: reports: codequality:` reads it.

```json
[{"description": "...", "check_name": "SGL001", "fingerprint": "...", "severity": "critical",
  "location": {"path": "deploy/launch.sh", "lines": {"begin": 4, "end": 4}}}]
```

GitLab's required fields, and no others: `description` (the message, then the
fix), `check_name` (the code), `fingerprint`, `severity`, `location.path`
(relative to `$CI_PROJECT_DIR` when set and the file is inside it, else to the
working directory) and `location.lines`. A fingerprint is the SHA-256 of the
code, path and message (not the line, so an edit above a finding keeps it the
same issue), with a counter for the same finding twice in one file. Every
finding is a launch SGLang refuses to start, so `critical`; autofix's own
check of unused suppressions (AF100) is `minor`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autofix.pipeline import Reported

__all__ = ["issue", "report"]

_LABELS = {"safe": "fix", "unsafe": "unsafe fix", "display-only": "suggestion"}


def issue(path: str, r: Reported, cwd: Path, seen: dict[str, int]) -> dict[str, object]:
    """One finding; seen counts the fingerprints given so far, so each one is unique in the report."""
    where = _relative(path, cwd)
    description = r.finding.message
    if r.fix is not None:
        description += f" ({'fixed' if r.fixed else _LABELS[r.fix.applicability.value]}: {r.fix.title})"
    key = f"{r.fixer.code}\0{where}\0{r.finding.message}"
    count = seen.get(key, 0)
    seen[key] = count + 1
    return {
        "description": description,
        "check_name": r.fixer.code,
        "fingerprint": hashlib.sha256(f"{key}\0{count}".encode()).hexdigest(),
        "severity": "minor" if r.fixer.code.startswith("AF") else "critical",
        "location": {"path": where, "lines": {"begin": r.line, "end": r.end_line}},
    }


def report(issues: list[dict[str, object]]) -> str:
    return json.dumps(issues, indent=2)


def _relative(path: str, cwd: Path) -> str:
    if path == "-":
        return "stdin"
    root = Path(os.environ.get("CI_PROJECT_DIR") or cwd).resolve()
    full = (cwd / path).resolve() if not Path(path).is_absolute() else Path(path)
    try:
        return full.relative_to(root).as_posix()
    except ValueError:
        return Path(os.path.normpath(path)).as_posix()
