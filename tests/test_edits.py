"""Choosing the fixes of one pass: the same choice as comparing every pair, without the pairs."""

from __future__ import annotations

import random

from autofix.edits import Edit, Fix, choose
from autofix.source import Span


def _pairwise(fixes: list[Fix]) -> list[Fix]:
    chosen: list[Fix] = []
    for fix in fixes:
        edits = fix.edits
        inner = any(a.span.overlaps(b.span) for i, a in enumerate(edits) for b in edits[i + 1 :])
        if not inner and not any(fix.overlaps(other) for other in chosen):
            chosen.append(fix)
    return chosen


def test_choose_agrees_with_comparing_every_pair() -> None:
    rng = random.Random(20261130)
    for _ in range(2000):
        fixes = []
        for number in range(rng.randint(1, 12)):
            edits = []
            for _ in range(rng.randint(1, 3)):
                start = rng.randint(0, 40)
                edits.append(Edit(Span(start, start + rng.choice([0, 0, 1, 2, 5, 15])), "x"))
            fixes.append(Fix.safe(f"fix {number}", edits))
        assert choose(fixes) == _pairwise(fixes), fixes


def test_insertions_at_one_point_and_inside_a_replacement_conflict() -> None:
    replace = Fix.safe("replace", [Edit(Span(10, 20), "y")])
    inside = Fix.safe("inside", [Edit(Span(15, 15), "x")])
    at_start = Fix.safe("at start", [Edit(Span(10, 10), "x")])
    at_end = Fix.safe("at end", [Edit(Span(20, 20), "x")])
    assert choose([replace, inside, at_start, at_end]) == [replace, at_end]
