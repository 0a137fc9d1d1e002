"""Which fixers can apply to a launch: rules in the catalogue's shape, indexed by the
flags they read.

A rule whose condition reads none of the flags a launch writes, and which SGLang's
defaults do not trip, cannot report that launch: it is not even asked. Hand-written
fixers are always asked; so is every fixer when an expansion may write any flag.
"""

from __future__ import annotations

from collections.abc import Sequence

from autofix.fixer import Fixer
from autofix.model import Launch

__all__ = ["RuleIndex", "index_of"]


class RuleIndex:
    def __init__(self, fixers: Sequence[Fixer]):
        self.fixers = tuple(fixers)
        self._always = frozenset(i for i, fx in enumerate(self.fixers) if fx.rule is None)
        by_dest: dict[str, set[int]] = {}
        for i, fx in enumerate(self.fixers):
            if fx.rule is not None:
                for dest in fx.rule.reads:  # type: ignore[attr-defined]
                    by_dest.setdefault(dest, set()).add(i)
        self._by_dest = {dest: frozenset(found) for dest, found in by_dest.items()}
        self._on_defaults: dict[str, frozenset[int]] = {}

    def _defaults_trip(self, release: str) -> frozenset[int]:
        """The rules SGLang's defaults of release may trip with none of their flags written."""
        from autofix.rules import _defaults_fire

        if release not in self._on_defaults:
            self._on_defaults[release] = frozenset(
                i for i, fx in enumerate(self.fixers)
                if fx.rule is not None and _defaults_fire(fx.rule, release)  # type: ignore[arg-type]
            )
        return self._on_defaults[release]

    def for_launch(self, launch: Launch) -> Sequence[Fixer]:
        """The fixers that can report launch, in their order."""
        written = launch.written_dests()
        if written is None:
            return self.fixers
        chosen = set(self._always) | self._defaults_trip(launch.table.release)
        for dest in written:
            chosen.update(self._by_dest.get(dest, ()))
        return [self.fixers[i] for i in sorted(chosen)]


_INDEXES: dict[int, tuple[Sequence[Fixer], RuleIndex]] = {}


def index_of(fixers: Sequence[Fixer]) -> RuleIndex:
    """The index of one selection of fixers (a run holds one or two), found by identity:
    each entry holds its selection, so an id is never reused while it is cached."""
    held = _INDEXES.get(id(fixers))
    if held is None or held[0] is not fixers:
        if len(_INDEXES) >= 8:
            _INDEXES.clear()
        held = _INDEXES[id(fixers)] = (fixers, RuleIndex(fixers))
    return held[1]
