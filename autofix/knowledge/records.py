"""Error records: the SGLang error a fixer reports, as the catalogue holds it.

A fixer names its catalogue errors (`errors=`); its record is made from them:
SGLang's message and exception, the fixer's pattern, the releases that hold the
errors, and per release each site's file, line, function and source excerpt.
Nothing in a record is typed by hand. `scripts/gen_records.py` writes one
`records/<record>.json` per hand-written fixer (`--check` verifies them); a rule
in the catalogue's shape has no file, its record is built the same way when asked.

Two kinds of record keep fields of their own. The three seed records
(`SEEDS`) keep every field they were written with; the catalogue's part goes
beside them, under `catalogue`. A fixer of a warning SGLang logs, which the
catalogue of errors does not hold, keeps the message, pattern, source place and
releases of its own record (`catalogue: false`).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

from autofix.knowledge import catalogue
from autofix.knowledge.releases import RELEASES

if TYPE_CHECKING:
    from autofix.fixer import Fixer

__all__ = ["SEEDS", "build", "record_of"]

REPO = "sgl-project/sglang"
# The records autofix began with: their fields are kept as written.
SEEDS = frozenset({"50f82a4b5a705b9a", "1f2bd480c921bf78", "2311bd20282a9819"})
# What a warning's record keeps of its own (no catalogue holds it).
_WARNING_FIELDS = ("errorMessage", "errorClass", "severity", "filePath", "lineNumber")


def _path(record: str):  # noqa: ANN202
    return resources.files("autofix.knowledge").joinpath(f"records/{record}.json")


@functools.cache
def stored(record: str) -> dict[str, Any] | None:
    """The checked-in file of record, or None."""
    path = _path(record)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def sites(error_ids: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each site of error_ids, once, with the releases in which it stands where it stands."""
    found: dict[tuple, dict[str, Any]] = {}
    for release in RELEASES:
        held = catalogue.errors(release)
        for error_id in error_ids:
            if error_id not in held:
                continue
            for site in held[error_id].sites:
                key = (error_id, site.file, site.line, site.function, site.source)
                entry = found.setdefault(key, {
                    "error": error_id, "filePath": site.file, "lineNumber": site.line,
                    "function": site.function, "sourceCode": site.source, "releases": [],
                })
                entry["releases"].append(release)
    return list(found.values())


def _newest(error_id: str) -> catalogue.CatalogueError | None:
    for release in reversed(RELEASES):
        error = catalogue.errors(release).get(error_id)
        if error is not None:
            return error
    return None


def from_catalogue(fx: Fixer) -> dict[str, Any]:
    """The fields the catalogue gives fx's record."""
    first = _newest(fx.errors[0])
    return {
        "errors": list(fx.errors),
        "errorMessage": first.text if first else None,
        "errorClass": first.exception if first else None,
        "messagePattern": fx.pattern,
        "variants": list(fx.variants),
        "releases": list(fx.releases),
        "sites": sites(fx.errors),
    }


def build(fx: Fixer) -> dict[str, Any]:
    """fx's record file, as the generator writes it."""
    head = {"id": fx.record, "repo": REPO, "slug": fx.name}
    if fx.record in SEEDS:
        seed = stored(fx.record)
        if seed is None:
            raise LookupError(f"seed record {fx.record} is missing")
        return {key: value for key, value in seed.items() if key != "catalogue"} | {"catalogue": from_catalogue(fx)}
    if not fx.errors:
        own = (stored(fx.record) or {}).get("record", {})
        kept = {key: own.get(key) for key in _WARNING_FIELDS}
        return {"record": head | kept | {
            "catalogue": False, "errors": [], "messagePattern": fx.pattern, "variants": list(fx.variants),
            "releases": list(fx.releases),
        }}
    return {"record": head | from_catalogue(fx)}


def record_of(fx: Fixer) -> dict[str, Any]:
    """fx's record: its file where it has one, else built from the catalogue."""
    data = stored(fx.record) or build(fx)
    return data["record"]
