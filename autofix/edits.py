"""Edits, fixes and how they are spliced into the original text."""

from __future__ import annotations

import bisect

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autofix.source import Span

__all__ = ["Applicability", "Edit", "Fix", "choose", "splice"]


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace span of the original text with text (an empty span inserts).

    path: the file the edit belongs to when it is not the checked file (a
    `--config` file the launch reads), as the pipeline reports it.
    """

    span: Span
    text: str
    path: str | None = None

    @classmethod
    def insert(cls, at: int, text: str) -> Edit:
        return cls(Span(at, at), text)

    @classmethod
    def delete(cls, span: Span) -> Edit:
        return cls(span, "")


class Applicability(enum.Enum):
    """ruff's model: safe fixes run with --fix, unsafe ones need --unsafe-fixes."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY = "display-only"


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability

    @classmethod
    def safe(cls, title: str, edits: Iterable[Edit]) -> Fix:
        return cls._make(title, edits, Applicability.SAFE)

    @classmethod
    def unsafe(cls, title: str, edits: Iterable[Edit]) -> Fix:
        return cls._make(title, edits, Applicability.UNSAFE)

    @classmethod
    def display(cls, title: str, edits: Iterable[Edit] = ()) -> Fix:
        return cls._make(title, edits, Applicability.DISPLAY)

    @classmethod
    def _make(cls, title: str, edits: Iterable[Edit], applicability: Applicability) -> Fix:
        edits = tuple(sorted(edits, key=lambda e: (e.span.start, e.span.end)))
        if not edits:
            applicability = Applicability.DISPLAY
        return cls(title, edits, applicability)

    def applies(self, unsafe: bool) -> bool:
        if self.applicability is Applicability.SAFE:
            return True
        return unsafe and self.applicability is Applicability.UNSAFE

    def overlaps(self, other: Fix) -> bool:
        return any(a.span.overlaps(b.span) for a in self.edits for b in other.edits)

    def touches(self, span: Span) -> bool:
        return any(e.span.overlaps(span) for e in self.edits)


def choose(fixes: Iterable[Fix]) -> list[Fix]:
    """The fixes, in order, that do not overlap an earlier one; the rest wait for the next pass.

    The chosen edits are kept sorted by start, so each new edit is compared only
    with those that start close enough to reach it (a file with thousands of fixes
    is not quadratic).
    """
    chosen: list[Fix] = []
    taken: list[Span] = []  # the chosen fixes' edit spans, sorted
    longest = 0
    for fix in fixes:
        if _self_overlapping(fix) or any(_hits(taken, longest, edit.span) for edit in fix.edits):
            continue
        chosen.append(fix)
        for edit in fix.edits:
            bisect.insort(taken, edit.span)
            longest = max(longest, edit.span.end - edit.span.start)
    return chosen


def _hits(taken: list[Span], longest: int, span: Span) -> bool:
    # A taken span that overlaps span starts at most `longest` before it, and not after its end.
    low = bisect.bisect_left(taken, span.start - longest, key=_start)
    high = bisect.bisect_right(taken, span.end, key=_start)
    return any(taken[k].overlaps(span) for k in range(low, high))


def _start(span: Span) -> int:
    return span.start


def _self_overlapping(fix: Fix) -> bool:
    edits = fix.edits
    return any(a.span.overlaps(b.span) for i, a in enumerate(edits) for b in edits[i + 1 :])


def splice(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits, slicing everything else from text."""
    out: list[str] = []
    at = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        if edit.span.start < at:
            raise ValueError(f"overlapping edits at offset {edit.span.start}")
        out.append(text[at : edit.span.start])
        out.append(edit.text)
        at = edit.span.end
    out.append(text[at:])
    return "".join(out)
