"""Which fixers can apply to a launch: rules in the catalogue's shape, indexed by the
flags they read.

A rule whose condition reads none of the flags a launch writes, and which SGLang's
defaults do not trip, cannot report that launch: it is not even asked. Hand-written
fixers are always asked; so is every fixer when an expansion may write any flag.

What the index knows of a rule (its facts: the dests its condition reads, read from the
condition's bytecode, and the releases whose defaults may trip it) costs about half a
millisecond a rule to find, which hundreds of rules would pay in every process. With a
cache folder (autofix.cache) the facts of every rule are found once per build of autofix
and kept in `rules.json`; a run loads them in about a millisecond. Without one, each fact is
found when first asked. Either way the answers are the same (tests/test_rule_index.py).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autofix.fixer import Fixer
from autofix.model import Launch

__all__ = ["RuleFacts", "RuleIndex", "build_facts", "facts", "index_of", "reads", "trips", "use_cache"]

FACTS_FILE = "rules.json"


@dataclass(frozen=True, slots=True)
class RuleFacts:
    """Per rule code: where its condition is written (module:line, so a fact is never taken
    for another rule's), the dests it reads, and the releases whose defaults may trip it."""

    owners: dict[str, str]
    reads: dict[str, frozenset[str]]
    trips: dict[str, frozenset[str]]

    def to_json(self) -> dict[str, object]:
        return {"rules": {code: {"owner": owner, "reads": sorted(self.reads[code]), "trips": sorted(self.trips[code])}
                          for code, owner in sorted(self.owners.items())}}

    @classmethod
    def from_json(cls, data: object) -> RuleFacts | None:
        """The facts a cache entry holds; None when it is not what to_json writes."""
        try:
            rules = data["rules"]  # type: ignore[index]
            owners = {code: str(entry["owner"]) for code, entry in rules.items()}
            found = {code: frozenset(map(str, entry["reads"])) for code, entry in rules.items()}
            trips = {code: frozenset(map(str, entry["trips"])) for code, entry in rules.items()}
        except (KeyError, TypeError, AttributeError):
            return None
        return cls(owners, found, trips)


@functools.cache
def owner(rule) -> str:  # noqa: ANN001 - rules.CatalogueRule
    when = rule.when
    return f"{getattr(when, '__module__', rule.module)}.{when.__qualname__}:{when.__code__.co_firstlineno}"


def build_facts(rules: Iterable, releases: Sequence[str]) -> RuleFacts:  # rules: CatalogueRule
    """The facts of rules, found afresh from their conditions, for each release of releases."""
    from autofix.rules import _defaults_fire, reads_of

    owners: dict[str, str] = {}
    found: dict[str, frozenset[str]] = {}
    trips: dict[str, frozenset[str]] = {}
    for rule in rules:
        owners[rule.code] = owner(rule)
        found[rule.code] = reads_of(rule.when)
        trips[rule.code] = frozenset(r for r in releases if _defaults_fire(rule, r))
    return RuleFacts(owners, found, trips)


_STORE = None  # autofix.cache.Store: where the facts are kept; None: found when asked
_FACTS: RuleFacts | None = None


def use_cache(store) -> None:  # noqa: ANN001 - autofix.cache.Store | None
    """Keep the rule facts in store (None: no cache; each fact is found when first asked)."""
    global _STORE, _FACTS
    if store is not _STORE:
        _STORE, _FACTS = store, None


def facts() -> RuleFacts | None:
    """Every registered rule's facts: from the cache, or found now and saved there; None without a cache."""
    global _FACTS
    if _STORE is None:
        return None
    if _FACTS is None:
        from autofix.fixer import all_fixers
        from autofix.knowledge.releases import RELEASES

        rules = [fx.rule for fx in all_fixers() if fx.rule is not None]
        loaded = RuleFacts.from_json(_STORE.read(FACTS_FILE))
        if loaded is None or any(loaded.owners.get(r.code) != owner(r) for r in rules):
            loaded = build_facts(rules, RELEASES)
            _STORE.write(FACTS_FILE, loaded.to_json())
        _FACTS = loaded
    return _FACTS


def reads(rule) -> frozenset[str]:  # noqa: ANN001 - rules.CatalogueRule
    """The dests rule's condition reads."""
    known = facts()
    if known is not None and known.owners.get(rule.code) == owner(rule):
        return known.reads[rule.code]
    from autofix.rules import reads_of

    return reads_of(rule.when)


def trips(rule, release: str) -> bool:  # noqa: ANN001 - rules.CatalogueRule
    """Whether SGLang's defaults of release may trip rule (it holds, or cannot be known, on a
    launch that writes none of the flags it reads)."""
    known = facts()
    if known is not None and known.owners.get(rule.code) == owner(rule):
        from autofix.knowledge.releases import RELEASES

        if release in RELEASES:
            return release in known.trips[rule.code]
    from autofix.rules import _defaults_fire

    return _defaults_fire(rule, release)


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
        if release not in self._on_defaults:
            self._on_defaults[release] = frozenset(
                i for i, fx in enumerate(self.fixers) if fx.rule is not None and trips(fx.rule, release)
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
