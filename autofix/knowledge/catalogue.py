"""The catalogue: every launch error of an SGLang release, read from its source.

`scripts/gen_catalogue.py` writes `data/errors-<release>.json` from each
release's own code (every raise, assert, parser.error and argparse error
reachable while SGLang reads, merges, resolves and validates its server
arguments and builds its model runner). This module reads those files; it
knows nothing of rules.

An error's `id` is the hash of its exception class and message (of its
condition, for a bare assert), so the same error keeps its id across releases
and where it moves in the source. One id can stand at several sites.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from autofix.knowledge.releases import RELEASES

__all__ = ["CLASSES", "CatalogueError", "Site", "errors", "first_and_last", "present_in"]

# What deciding an error needs, in the order coverage reports them.
CLASSES: tuple[str, ...] = ("flags", "model", "gpu", "runtime", "internal")


@dataclass(frozen=True, slots=True)
class Site:
    file: str
    line: int
    function: str
    source: str
    condition: str


@dataclass(frozen=True, slots=True)
class CatalogueError:
    """One error of one release: its message as SGLang words it, and where it is raised."""

    id: str
    release: str
    kind: str  # raise | assert | parser.error | exit | type | argparse
    exception: str
    message: str  # the literal text, each field as {}; "" for a bare assert
    pattern: str  # a regex for the message as SGLang prints it
    needs: str  # one of CLASSES
    reads: tuple[str, ...]  # the server-argument dests its condition and message name
    sites: tuple[Site, ...]

    @property
    def site(self) -> Site:
        return self.sites[0]

    @property
    def text(self) -> str:
        """The message, or for a bare assert its statement: what a person reads."""
        return self.message or self.site.source


@functools.cache
def errors(release: str) -> dict[str, CatalogueError]:
    """The catalogue of release, by id; empty for a release with no generated file."""
    if release not in RELEASES:
        raise ValueError(f"no SGLang release {release} in autofix's knowledge")
    path = resources.files("autofix.knowledge").joinpath(f"data/errors-{release}.json")
    if not path.is_file():
        return {}
    document = json.loads(path.read_text(encoding="utf-8"))
    grouped: dict[str, list[dict]] = {}
    for entry in document["errors"]:
        grouped.setdefault(entry["id"], []).append(entry)
    found: dict[str, CatalogueError] = {}
    for error_id, entries in grouped.items():
        first = entries[0]
        sites = tuple(
            Site(e["file"], e["line"], e["function"], e.get("source", ""), e.get("condition", "")) for e in entries
        )
        found[error_id] = CatalogueError(
            id=error_id,
            release=release,
            kind=first["kind"],
            exception=first["exception"],
            message=first["message"],
            pattern=first["pattern"],
            needs=_strongest(e["needs"] for e in entries),
            reads=tuple(sorted({d for e in entries for d in e.get("reads", ())})),
            sites=sites,
        )
    return found


def _strongest(needs: object) -> str:
    """Of the sites of one id, the class that asks the most of a launch: a GPU need beats flags."""
    ranked = ("runtime", "gpu", "model", "flags", "internal")
    found = set(needs)  # type: ignore[call-overload]
    return next(n for n in ranked if n in found)


@functools.cache
def _index() -> dict[str, dict[str, list[str]]]:
    """id -> the releases holding it and its patterns (data/errors-index.json): what a rule
    needs when it is registered, without reading every catalogue at start."""
    path = resources.files("autofix.knowledge").joinpath("data/errors-index.json")
    return json.loads(path.read_text(encoding="utf-8"))["ids"] if path.is_file() else {}


def present_in(error_id: str) -> tuple[str, ...]:
    """The releases whose catalogue holds error_id."""
    return tuple(_index().get(error_id, {}).get("releases", ()))


def patterns(error_ids: tuple[str, ...]) -> tuple[str, ...]:
    """Every pattern of error_ids, oldest release's first."""
    return tuple(dict.fromkeys(p for e in error_ids for p in _index().get(e, {}).get("patterns", ())))


def first_and_last(error_ids: tuple[str, ...]) -> tuple[str, str] | None:
    """The first and last release holding any of error_ids; None when none does."""
    held = {r for e in error_ids for r in present_in(e)}
    releases = [r for r in RELEASES if r in held]
    return (releases[0], releases[-1]) if releases else None


def matching(pattern: str, release: str) -> list[CatalogueError]:
    """The catalogue errors of release whose message a fixer's pattern reads: how a
    hand-written fixer, which names its error by SGLang's wording, is placed."""
    compiled = re.compile(pattern)
    found = []
    for error in errors(release).values():
        if not error.message:
            continue
        # A field of the message ({}) stands for what SGLang prints there.
        if compiled.search(error.message) or compiled.search(error.message.replace("{}", "x")):
            found.append(error)
    return found
