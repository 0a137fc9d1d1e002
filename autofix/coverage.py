"""Coverage: how many of a release's catalogue errors some rule reports.

The product's main number. An error is covered in a release when a fixer that
holds in that release names it: a catalogue rule by its ids, a hand-written
fixer by SGLang's wording (its pattern reads the catalogue's message). Errors
are counted once per id, in the class of what deciding them needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autofix.fixer import Fixer
from autofix.knowledge import catalogue
from autofix.knowledge.releases import RELEASES

__all__ = ["ReleaseCoverage", "covered_ids", "measure", "table_text", "to_json"]


@dataclass(frozen=True, slots=True)
class ReleaseCoverage:
    release: str
    errors: dict[str, catalogue.CatalogueError]
    covered: frozenset[str]

    def count(self, needs: str | None = None) -> tuple[int, int]:
        """(covered, all) errors of one class, or of every class."""
        ids = [i for i, e in self.errors.items() if needs is None or e.needs == needs]
        return sum(1 for i in ids if i in self.covered), len(ids)

    def missing(self) -> list[catalogue.CatalogueError]:
        return sorted(
            (e for i, e in self.errors.items() if i not in self.covered),
            key=lambda e: (catalogue.CLASSES.index(e.needs), e.site.file, e.site.line),
        )


def covered_ids(fx: Fixer, release: str) -> set[str]:
    """The catalogue errors of release that fx reports there."""
    if not fx.holds_in(release):
        return set()
    known = catalogue.errors(release)
    if fx.errors:
        return {i for i in fx.errors if i in known}
    return {e.id for p in fx.patterns for e in catalogue.matching(p, release)}


def measure(fixers: Sequence[Fixer], releases: Iterable[str] = RELEASES) -> list[ReleaseCoverage]:
    return [
        ReleaseCoverage(r, catalogue.errors(r), frozenset(i for fx in fixers for i in covered_ids(fx, r)))
        for r in releases
    ]


def _share(covered: int, total: int) -> str:
    return f"{covered}/{total} {100 * covered / total:.0f}%" if total else "-"


def table_text(measured: Sequence[ReleaseCoverage], missing_of: str | None = None) -> str:
    """One row per release, a column per class; then the missing errors of one release."""
    head = ["release", *catalogue.CLASSES, "flags+model+gpu", "all"]
    rows = [head]
    for m in measured:
        decidable = [m.count(c) for c in ("flags", "model", "gpu")]
        row = [m.release, *(_share(*m.count(c)) for c in catalogue.CLASSES),
               _share(sum(c for c, _ in decidable), sum(t for _, t in decidable)), _share(*m.count())]
        rows.append(row)
    widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(r, widths)))
             for r in rows]
    chosen = next((m for m in measured if m.release == missing_of), None)
    if chosen is not None:
        lines += ["", f"not reported in {chosen.release} (id, class, where, message):"]
        for error in chosen.missing():
            text = " ".join(error.text.split())
            lines.append(f"  {error.id}  {error.needs:<8} {error.site.file}:{error.site.line}  {text[:110]}")
    return "\n".join(lines)


def to_json(measured: Sequence[ReleaseCoverage]) -> dict[str, object]:
    out: dict[str, object] = {}
    for m in measured:
        out[m.release] = {
            "classes": {c: dict(zip(("covered", "errors"), m.count(c))) for c in catalogue.CLASSES},
            "covered": sorted(m.covered & set(m.errors)),
            "missing": [
                {"id": e.id, "needs": e.needs, "message": e.text, "file": e.site.file, "line": e.site.line,
                 "function": e.site.function}
                for e in m.missing()
            ],
        }
    return {"releases": out}
