"""read -> find launches -> run fixers -> splice -> re-check, to a fixpoint.

`fix_text` is the pure core: text in, text and findings out; it touches no file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from autofix.edits import Fix, choose, splice
from autofix.fixer import Finding, Fixer
from autofix.formats import FormatSpec, load
from autofix.knowledge.options import table
from autofix.knowledge.releases import parse_release
from autofix.model import Launch, Unresolvable
from autofix.source import Source

__all__ = ["Reported", "Result", "Settings", "fix_text", "release_in_text"]

MAX_PASSES = 6

_SUPPRESS = re.compile(r"autofix:\s*ignore(?:\[([^\]]*)\])?")
_RELEASE_PINS = re.compile(
    r"\bsglang(?:\[[^\]\s]*\])?\s*==\s*v?(\d+\.\d+\.\d+)|\bsglang:v?(\d+\.\d+\.\d+)(?![\w.])"
)


@dataclass(frozen=True, slots=True)
class Settings:
    fixers: Sequence[Fixer]
    release: str | None = None  # --sglang-version
    neighbour_release: str | None = None  # a pin in a file beside this one
    unsafe: bool = False
    model_lookup: Callable[[str], str | None] | None = None


@dataclass(frozen=True, slots=True)
class Reported:
    """A finding, placed in the text it was found in."""

    fixer: Fixer
    finding: Finding
    line: int
    column: int
    end_line: int
    end_column: int
    launch_line: int  # the line the launch starts on
    fixed: bool = False

    @property
    def fix(self) -> Fix | None:
        return self.finding.fix


@dataclass(frozen=True, slots=True)
class Result:
    source: Source
    text: str  # the text after the fixes applied (the original when none were)
    findings: list[Reported]
    error: str | None = None  # an internal error: nothing is written

    @property
    def changed(self) -> bool:
        return self.text != self.source.text

    @property
    def remaining(self) -> list[Reported]:
        return [r for r in self.findings if not r.fixed]


def release_in_text(text: str) -> str | None:
    """An SGLang release pinned in the text itself: `sglang==0.5.18`, `lmsysorg/sglang:v0.5.18-cu129`."""
    found = {a or b for a, b in _RELEASE_PINS.findall(text)}
    return found.pop() if len(found) == 1 else None


def fix_text(source: Source, fmt: FormatSpec, settings: Settings, fix: bool = False) -> Result:
    module = load(fmt)
    text = source.text
    fixed: list[Reported] = []
    for _ in range(MAX_PASSES):
        current = source.with_text(text)
        reported = _check(current, module, settings)
        fixes = [r.fix for r in reported if r.fix is not None and r.fix.applies(settings.unsafe)]
        if not fix or not fixes:
            return Result(source, text, fixed + reported)
        chosen = choose(fixes)
        new_text = splice(text, [edit for f in chosen for edit in f.edits])
        if module.syntax_errors(new_text) > module.syntax_errors(text):
            names = sorted({r.fixer.code for r in reported if r.fix in chosen})
            return Result(source, source.text, [], f"the fix of {', '.join(names)} would break the file's syntax")
        fixed += [replace(r, fixed=True) for r in reported if r.fix in chosen]
        text = new_text
    names = sorted({r.fixer.code for r in fixed})
    return Result(source, source.text, [], f"fixes of {', '.join(names)} did not settle in {MAX_PASSES} passes")


def _check(source: Source, module, settings: Settings) -> list[Reported]:  # noqa: ANN001
    release = settings.release or release_in_text(source.text) or settings.neighbour_release
    if release is not None and parse_release(release) is None:
        release = None
    launches: list[Launch] = module.find_launches(
        source, table(release), release=release, model_lookup=settings.model_lookup
    )
    reported: list[Reported] = []
    for launch in launches:
        for fx in settings.fixers:
            if not fx.holds_in(release):
                continue
            try:
                findings = list(fx.check(launch))
            except Unresolvable:
                continue
            for finding in findings:
                if not _suppressed(source, launch, finding, fx):
                    reported.append(_place(source, fx, finding, launch))
    reported.sort(key=lambda r: (r.finding.at.start, r.fixer.code))
    return reported


def _place(source: Source, fx: Fixer, finding: Finding, launch: Launch) -> Reported:
    line, column = source.line_col(finding.at.start)
    end_line, end_column = source.line_col(finding.at.end)
    return Reported(fx, finding, line, column, end_line, end_column, source.line_col(launch.span.start)[0])


def _suppressed(source: Source, launch: Launch, finding: Finding, fx: Fixer) -> bool:
    """An `autofix: ignore[...]` comment on the launch's line or the line before it, or the finding's."""
    for offset in {launch.span.start, finding.at.start}:
        line = source.line_span(offset)
        texts = [source.text[line.start : line.end]]
        if line.start > 0:
            texts.append(source.line_text(line.start - 1))
        for text in texts:
            for match in _SUPPRESS.finditer(text):
                codes = match.group(1)
                if codes is None:
                    return True
                words = {w.strip() for w in codes.split(",")}
                if fx.code in words or fx.name in words:
                    return True
    return False
