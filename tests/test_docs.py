"""Each fixer's docs, record and README row; the examples in its docs run as tests."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from autofix.fixer import Fixer, all_fixers, select
from autofix.knowledge.options import table
from autofix.knowledge import catalogue
from autofix.knowledge.releases import RELEASES, parse_release
from judging import check_example, doc_example

ROOT = Path(__file__).resolve().parent.parent
HEADINGS = ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"]
# Hand-written fixers; rules in the catalogue's shape are proven by tests/test_rules.py.
FIXERS = [fx for fx in all_fixers() if fx.rule is None]


def record(fx: Fixer) -> dict:
    path = resources.files("autofix.knowledge").joinpath(f"records/{fx.record}.json")
    return json.loads(path.read_text(encoding="utf-8"))["record"]


def section(doc: str, heading: str) -> str:
    body = doc.split(heading, 1)[1]
    return body.split("\n## ", 1)[0]


def code_block(doc: str, heading: str) -> str:
    match = re.search(r"```(?:sh|bash)\n(.*?)```", section(doc, heading), re.S)
    assert match, f"no shell block under {heading}"
    return match.group(1)


def releases_of(fx: Fixer) -> list[str]:
    first, last = (parse_release(r) for r in fx.releases)
    return [r for r in RELEASES if first <= parse_release(r) <= last]


@pytest.mark.parametrize("fx", FIXERS, ids=lambda f: f.code)
def test_docs_have_the_headings_in_order(fx: Fixer) -> None:
    positions = [fx.doc.find(h) for h in HEADINGS]
    assert all(p > 0 for p in positions), [h for h, p in zip(HEADINGS, positions) if p < 0]
    assert positions == sorted(positions)


@pytest.mark.parametrize("fx", FIXERS, ids=lambda f: f.code)
def test_record_matches_the_fixer(fx: Fixer) -> None:
    rec = record(fx)
    assert rec["id"] == fx.record
    # The record's own message, with its placeholder filled, is what the pattern matches.
    # A fixer narrowing a generic message (argparse's) to one value reads it with that value.
    value = "'trtllm_mla'" if fx.pattern in catalogue.patterns(fx.errors) or not fx.errors else "'None'"
    message = re.sub(r"\{[^}]*\}", value, rec["errorMessage"])
    assert any(re.search(p, message) for p in fx.patterns), message
    assert fx.doc.count(rec["errorMessage"].split("{")[0].strip()[:40]) >= 1, "docs must quote SGLang's message"


@pytest.mark.parametrize("fx", FIXERS, ids=lambda f: f.code)
def test_fixer_reads_only_options_the_tables_know(fx: Fixer) -> None:
    source = Path(fx.check.__code__.co_filename).read_text()
    dests = set(re.findall(r"""launch\.(?:flag|value|int_value|all|remove_all|set_flag)\(\s*["'](\w+)["']""", source))
    dests |= set(re.findall(r'"(\w+_backend)"', source))
    # The argparse-level fixers (SGL100-SGL119) read every written flag through the launch's own table.
    assert dests or "for flag in launch.flags" in source, "no option read?"
    for release in releases_of(fx):
        known = table(release)
        missing = sorted(d for d in dests if known.by_dest(d) is None)
        assert not missing, f"SGLang {release} has no option {missing}"


@pytest.mark.parametrize("fx", FIXERS, ids=lambda f: f.code)
def test_example_is_flagged_and_fixed_into_use_instead(fx: Fixer) -> None:
    # An Example is a shell launch, the `--config` file it reads ("with `server.yaml`:"),
    # or a config file alone; a GPU rule names its GPU: `--gpu h100`.
    # Use instead shows the fix, safe or unsafe.
    example = doc_example(fx.doc, "## Example")
    use_instead = replace(doc_example(fx.doc, "## Use instead"), gpu=example.gpu)
    flagged, fixed = check_example(example, [fx], fix=True, unsafe=True)
    assert [r.fixer.code for r in flagged.findings] == [fx.code]
    # A report-only fixer's Use instead is written by hand: it need only be clean.
    if any(r.finding.fix is not None for r in flagged.findings):
        assert fixed == use_instead
    clean, _ = check_example(use_instead, select(["ALL"]))
    assert clean.findings == []


def readme_rows() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- fixers:start", 1)[1].split("<!-- fixers:end -->", 1)[0]
    return [line for line in block.splitlines() if line.startswith("| SGL")]


def test_readme_table_matches_the_registry() -> None:
    expected = [
        f"| {fx.code} | `{fx.name}` | `{fx.record}` | {fx.releases[0]}–{fx.releases[1]} | {fx.summary} |"
        for fx in FIXERS
    ]
    assert readme_rows() == expected


def test_codes_and_names_are_unique() -> None:
    assert len({fx.code for fx in FIXERS}) == len(FIXERS)
    assert len({fx.name for fx in FIXERS}) == len(FIXERS)
    assert len({fx.record for fx in FIXERS}) == len(FIXERS)
