"""SARIF 2.1.0, as GitHub code scanning and editors read it.

One run; `tool.driver.rules` holds a reportingDescriptor for every fixer the run
used (id = code, name = slug, the fixer's docs as its descriptions and help,
the SGLang error record and release range in its properties). Each finding is a
result of level `error` at the flag, in the file that holds it (a `--config`
YAML a script reads is its own artifact), and its fix, when it has edits, is a
SARIF `fix` whose replacements give exactly what `--fix` writes.

Locations: `uri` is relative to the working directory with `uriBaseId`
`%SRCROOT%` (declared in `originalUriBaseIds`), or an absolute `file:` URI for
a file outside it. Lines and columns are 1-based; columns count UTF-16 code
units, SARIF's default `columnKind`, written out in the run; `endColumn` is
the column just past the span.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from autofix.edits import Edit
    from autofix.fixer import Fixer
    from autofix.pipeline import Reported
    from autofix.source import Source

__all__ = ["SCHEMA_URI", "log", "result"]

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


def log(fixers: Sequence[Fixer], results: Sequence[dict[str, object]], cwd: Path) -> str:
    """The whole SARIF log as JSON text (keys in a fixed order, two-space indent)."""
    driver: dict[str, object] = {"name": "autofix", "version": _version()}
    home = _home_page()
    if home:
        driver["informationUri"] = home
    driver["rules"] = [_rule(fx) for fx in fixers]
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": cwd.resolve().as_uri().rstrip("/") + "/"}},
        "columnKind": "utf16CodeUnits",
        "results": list(results),
    }
    return json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2)


def result(
    path: str, r: Reported, sources: Mapping[str | None, Source], rule_index: int, cwd: Path
) -> dict[str, object]:
    """One finding. path: the checked file's name; sources: its Source (None) and its linked files'."""
    where = sources[r.path]
    out: dict[str, object] = {"ruleId": r.fixer.code}
    if rule_index >= 0:
        out["ruleIndex"] = rule_index
    out |= {
        "level": "error",
        "message": {"text": r.finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(r.path or path, cwd),
                    "region": _region(where, r.finding.at.start, r.finding.at.end),
                }
            }
        ],
    }
    fix = r.fix
    if fix is not None and fix.edits:
        by_file: dict[str | None, list[Edit]] = {}
        for edit in fix.edits:
            by_file.setdefault(edit.path, []).append(edit)
        changes = [
            {
                "artifactLocation": _artifact(name or path, cwd),
                "replacements": [
                    {
                        "deletedRegion": _region(sources[name], e.span.start, e.span.end),
                        "insertedContent": {"text": e.text},
                    }
                    for e in edits
                ],
            }
            for name, edits in by_file.items()
        ]
        out["fixes"] = [
            {
                "description": {"text": fix.title},
                "artifactChanges": changes,
                "properties": {"applicability": fix.applicability.value},
            }
        ]
    props: dict[str, object] = {"name": r.fixer.name, "record": r.fixer.record}
    if fix is not None:
        props["fix"] = {"applicability": fix.applicability.value, "title": fix.title}
    if r.fixed:
        props["fixed"] = True
    out["properties"] = props
    return out


def _artifact(path: str, cwd: Path) -> dict[str, str]:
    """A file relative to the working directory (under %SRCROOT%), else its absolute file: URI."""
    if path == "-":
        return {"uri": "stdin"}
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(cwd.resolve())
        except ValueError:
            return {"uri": p.as_uri()}
    rel = os.path.normpath(p).replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        return {"uri": (cwd / p).resolve().as_uri()}
    return {"uri": quote(rel), "uriBaseId": SRCROOT}


def _region(source: Source, start: int, end: int) -> dict[str, int]:
    (line, column), (end_line, end_column) = source.line_col(start), source.line_col(end)
    return {
        "startLine": line,
        "startColumn": _utf16(source.text, start, column),
        "endLine": end_line,
        "endColumn": _utf16(source.text, end, end_column),
    }


def _utf16(text: str, offset: int, column: int) -> int:
    """The 1-based UTF-16 column of offset, whose code-point column is column."""
    prefix = text[offset - column + 1 : offset]
    if prefix.isascii():
        return column
    return len(prefix.encode("utf-16-le")) // 2 + 1


def _rule(fx: Fixer) -> dict[str, object]:
    doc = fx.doc
    what = _section(doc, "What it does") or fx.summary
    rule: dict[str, object] = {
        "id": fx.code,
        "name": fx.name,
        "shortDescription": {"text": fx.summary},
        "fullDescription": {"text": what, "markdown": what},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": "error"},
        "properties": {
            "record": fx.record,
            "releases": list(fx.releases),
            "default": fx.default,
            "tags": ["sglang"],
        },
    }
    url = _record(fx.record).get("githubUrl")
    if isinstance(url, str) and url.startswith("https://"):
        rule["helpUri"] = url
    return rule


def _section(doc: str, heading: str) -> str:
    """The text under `## heading` up to the next heading."""
    marker = f"## {heading}\n"
    if marker not in doc:
        return ""
    body = doc.split(marker, 1)[1]
    return body.split("\n## ", 1)[0].strip()


@cache
def _record(record: str) -> dict[str, object]:
    path = resources.files("autofix.knowledge").joinpath(f"records/{record}.json")
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("record", data) if isinstance(data, dict) else {}


def _version() -> str:
    try:
        return metadata.version("autofix")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _home_page() -> str | None:
    """The project's home page from its metadata (`[project.urls]`), if it names one."""
    try:
        meta = metadata.metadata("autofix")
    except metadata.PackageNotFoundError:
        return None
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "repository", "source", "documentation"):
            return url.strip()
    return meta.get("Home-page") or None
