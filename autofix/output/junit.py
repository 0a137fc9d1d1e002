"""JUnit XML, as CI systems (GitLab's `reports: junit:`, Jenkins, Azure) show test results.

```xml
<testsuites name="autofix" tests="2" failures="2" errors="0">
  <testsuite name="deploy/launch.sh" tests="2" failures="2" errors="0">
    <testcase name="SGL001 tokenspeed-mla-without-fp8-kv-cache" classname="deploy/launch.sh" line="4" column="5">
      <failure message="`tokenspeed_mla` needs ...">line 4, col 5, `tokenspeed_mla` needs ...</failure>
```

One test suite per file with findings, one failed test case per finding (its
code and name, the file as its class, line and column as attributes). A run
with no finding is one suite `autofix` with one passing case, `No findings`,
so a report always says a check ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

if TYPE_CHECKING:
    from autofix.pipeline import Reported

__all__ = ["report"]

_LABELS = {"safe": "fix", "unsafe": "unsafe fix", "display-only": "suggestion"}


def report(findings: list[tuple[str, Reported]]) -> str:
    """The whole report as XML text: findings are (path, finding) in the run's order."""
    root = ET.Element("testsuites", name="autofix")
    by_file: dict[str, list[Reported]] = {}
    for path, r in findings:
        by_file.setdefault(path, []).append(r)
    if not by_file:
        suite = _suite(root, "autofix", 0)
        ET.SubElement(suite, "testcase", name="No findings", classname="autofix")
    for path, found in by_file.items():
        suite = _suite(root, path, len(found))
        for r in found:
            case = ET.SubElement(suite, "testcase", name=f"{r.fixer.code} {r.fixer.name}", classname=path,
                                 line=str(r.line), column=str(r.column))
            text = f"line {r.line}, col {r.column}, {r.finding.message}"
            if r.fix is not None:
                text += f"\n{'fixed' if r.fixed else _LABELS[r.fix.applicability.value]}: {r.fix.title}"
            ET.SubElement(case, "failure", message=r.finding.message).text = text
    total = len(findings)
    root.set("tests", str(max(total, 1)))
    root.set("failures", str(total))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def _suite(root: ET.Element, name: str, failures: int) -> ET.Element:
    return ET.SubElement(root, "testsuite", name=name, tests=str(max(failures, 1)), failures=str(failures),
                         errors="0")
