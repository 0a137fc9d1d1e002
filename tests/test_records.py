"""Error records come from the catalogue: a fixer names its errors, and its pattern,
range and record follow from them (autofix/knowledge/records.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from autofix.fixer import Fixer, all_fixers
from autofix.knowledge import catalogue
from autofix.knowledge.records import SEEDS, build, record_of, stored
from autofix.knowledge.releases import parse_release

ROOT = Path(__file__).resolve().parent.parent
FIXERS = all_fixers()
HAND_WRITTEN = [fx for fx in FIXERS if fx.rule is None]


def test_the_checked_in_records_are_what_the_catalogue_makes() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_records.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("fx", HAND_WRITTEN, ids=lambda f: f.code)
def test_a_fixer_names_catalogue_errors_or_is_a_warning(fx: Fixer) -> None:
    rec = record_of(fx)
    if not fx.errors:
        assert rec["catalogue"] is False and rec["errorClass"] == "Warning", "only a warning names no error"
        return
    span = catalogue.first_and_last(fx.errors)
    assert span is not None
    first, last = (parse_release(r) for r in fx.releases)
    # A fixer's range is its errors' range, or inside it where its check holds in fewer releases.
    assert parse_release(span[0]) <= first <= last <= parse_release(span[1])
    held = {e: catalogue.errors(r)[e] for r in catalogue.present_in(fx.errors[0]) for e in fx.errors
            if e in catalogue.errors(r)}
    # A pattern of its own narrows one of its errors' messages to the case it reports (a value
    # printed as None or 'None'; argparse heads a type function's message with the argument).
    filled = [error.message.replace("{}", v) for error in held.values() if error.message for v in ("None", "'None'")]
    messages = [*filled, *(f"argument --x: {m}" for m in filled)]
    for pattern in fx.patterns:
        assert pattern in catalogue.patterns(fx.errors) or any(re.search(pattern, m) for m in messages), \
            f"{pattern!r} reads none of {messages}"


@pytest.mark.parametrize("fx", HAND_WRITTEN, ids=lambda f: f.code)
def test_a_record_holds_each_site_of_its_errors_per_release(fx: Fixer) -> None:
    rec = build(fx)
    part = rec["catalogue"] if fx.record in SEEDS else rec["record"]
    if not fx.errors:
        return
    expected = {(e, r, s.file, s.line) for r in catalogue.present_in(fx.errors[0]) for e in fx.errors
                if e in catalogue.errors(r) for s in catalogue.errors(r)[e].sites}
    got = {(s["error"], r, s["filePath"], s["lineNumber"]) for s in part["sites"] for r in s["releases"]}
    assert expected <= got
    assert all(s["sourceCode"] and s["function"] for s in part["sites"])
    assert "analyzedAt" not in part


def test_the_seed_records_keep_their_own_fields() -> None:
    for record in SEEDS:
        data = stored(record)
        shared = ROOT.parent / "shared" / "records" / f"{record}.json"
        assert data is not None and data["record"]["analyzedAt"]  # as first written
        if shared.is_file():
            import json

            assert {k: v for k, v in data.items() if k != "catalogue"} == json.loads(shared.read_text())


def test_a_catalogue_rule_builds_its_record_when_asked() -> None:
    rule = next(fx for fx in FIXERS if fx.rule is not None)
    rec = record_of(rule)
    assert rec["errors"] == list(rule.errors) and rec["sites"]
