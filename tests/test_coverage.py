"""Coverage, the product's main number, can only rise.

`tests/coverage-floor.json` holds, per release and class, how many catalogue
errors some fixer reported when it was last raised. Coverage below it fails;
above it, raise the floor (and the README's table) with
`python tests/test_coverage.py --raise-floor`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix import coverage
from autofix.cli import main
from autofix.fixer import all_fixers
from autofix.knowledge import catalogue
from autofix.knowledge.releases import RELEASES

FLOOR = Path(__file__).with_name("coverage-floor.json")
README = Path(__file__).resolve().parents[1] / "README.md"
START, END = "<!-- coverage:start (autofix --coverage; kept in sync by tests/test_coverage.py) -->", "<!-- coverage:end -->"


def readme_block() -> str:
    rows = coverage.table_text(coverage.measure(all_fixers())).splitlines()
    return f"{START}\n```\n" + "\n".join(rows) + f"\n```\n{END}"


def test_the_readme_shows_the_current_coverage() -> None:
    text = README.read_text(encoding="utf-8")
    shown = START + text.split(START, 1)[1].split(END, 1)[0] + END
    assert shown == readme_block(), "run: python tests/test_coverage.py --raise-floor"


def measured() -> dict[str, dict[str, int]]:
    return {m.release: {c: m.count(c)[0] for c in catalogue.CLASSES} for m in coverage.measure(all_fixers())}


@pytest.mark.parametrize("release", RELEASES)
def test_coverage_does_not_fall_below_its_floor(release: str) -> None:
    floor = json.loads(FLOOR.read_text(encoding="utf-8"))[release]
    now = measured()[release]
    fallen = {c: (now[c], floor[c]) for c in floor if now[c] < floor[c]}
    assert not fallen, f"SGLang {release}: coverage fell below the floor (now, floor): {fallen}"


def test_every_release_has_a_catalogue() -> None:
    assert all(catalogue.errors(r) for r in RELEASES)


def test_the_coverage_command_counts_every_error_once() -> None:
    result = CliRunner().invoke(main, ["--coverage", "--format", "json", "--sglang-version", RELEASES[-1]])
    assert result.exit_code == 0, result.output
    [(release, shown)] = json.loads(result.output)["releases"].items()
    errors = catalogue.errors(release)
    assert len(shown["covered"]) + len(shown["missing"]) == len(errors)
    assert sum(c["covered"] for c in shown["classes"].values()) == len(shown["covered"])
    assert {m["id"] for m in shown["missing"]}.isdisjoint(shown["covered"])


def test_a_hand_written_fixer_covers_the_error_its_pattern_reads() -> None:
    # SGL016 names its error by SGLang's wording, not by a catalogue id.
    [fx] = [f for f in all_fixers() if f.code == "SGL016"]
    [found] = coverage.covered_ids(fx, "0.5.23")
    assert "hierarchical-cache and disable-radix-cache" in catalogue.errors("0.5.23")[found].message


def test_the_text_table_lists_what_is_not_reported() -> None:
    result = CliRunner().invoke(main, ["--coverage", "--sglang-version", "0.5.23"])
    assert result.exit_code == 0
    assert result.output.splitlines()[0].split()[:3] == ["release", "flags", "model"]
    missing = coverage.measure(all_fixers(), ["0.5.23"])[0].missing()
    assert f"{missing[0].id}  {missing[0].needs}" in result.output


if __name__ == "__main__" and sys.argv[1:] == ["--raise-floor"]:
    FLOOR.write_text(json.dumps(measured(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    README.write_text(head + readme_block() + rest.split(END, 1)[1], encoding="utf-8")
