"""SGLang's own judgement of the fixtures.

Every launch autofix fixes in a fixture is refused by SGLang's own parser and
rule functions with the message of a fixer that reported it (or of a record
such a fixer says SGLang checks first), and the same launch in the `.fixed`
file passes SGLang's parser and every rule function of every fixer that holds
in that release. Runs against the parser environment that
`scripts/sglang_env.sh` builds; skipped with that reason when it is absent.
Each release is asked once, with every case in one batch.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import oracle
from autofix.fixer import all_fixers, lookup
from autofix.formats import detect
from autofix.pipeline import fix_text, release_in_text
from autofix.source import Source
from judging import architecture_of, argv_of, launches_in, oracle_profile, patterns_holding_in, refusals, releases_of
from test_fixtures import FIXTURES, fixed_path, settings

# Releases an unpinned fixture is judged in (where its fixers hold): SGLang
# before and after the arg_groups split, and the release an unpinned launch
# is checked as.
RELEASES = ("0.5.18", "0.5.19", "0.5.22")


@dataclass(frozen=True)
class Case:
    fixture: Path
    fixed: bool  # the launch as fixed, else as written
    argv: tuple[str, ...]
    architecture: str | None
    gpu: str | None
    patterns: frozenset[str]  # the messages SGLang may refuse the launch with
    releases: tuple[str, ...]
    modernisation: bool  # flagged by opt-in fixers only: SGLang accepts the old spelling too


def flagged(case: Path) -> dict[int, set[str]]:
    """Index of each launch autofix fixes in a fixture -> the codes of its fixable findings."""
    text = case.read_text(encoding="utf-8")
    source = Source(text)
    lines = [source.line_col(launch.span.start)[0] for launch in launches_in(case, text)]
    found: dict[int, set[str]] = {}
    options = settings(text)
    for r in fix_text(source, detect(case.name), options).findings:
        if r.fix is not None and r.fix.applies(options.unsafe) and r.launch_line in lines:
            found.setdefault(lines.index(r.launch_line), set()).add(r.fixer.code)
    return found


def cases_of(fixture: Path) -> list[Case]:
    codes = flagged(fixture)
    options = settings(fixture.read_text(encoding="utf-8"))
    cases = []
    for fixed, path in ((False, fixture), (True, fixed_path(fixture))):
        text = path.read_text(encoding="utf-8")
        pinned = release_in_text(text)
        for index, launch in enumerate(launches_in(fixture, text)):
            argv = argv_of(launch)
            if index not in codes or argv is None:
                continue
            fixers = [lookup(code) for code in sorted(codes[index])]
            holding = [r for r in RELEASES if all(r in releases_of(fx) for fx in fixers)]
            releases = (pinned,) if pinned else tuple(holding)
            patterns = frozenset(p for fx in fixers for p in refusals(fx))
            gpu = oracle_profile(options.gpu.name) if options.gpu else None
            modernisation = all(not fx.default for fx in fixers)
            cases.append(Case(fixture, fixed, tuple(argv), architecture_of(launch), gpu, patterns, releases,
                              modernisation))
    return cases


FIXTURES_WITH_FIXES = sorted(
    p for p in FIXTURES.rglob("*") if p.is_file() and ".fixed" not in p.suffixes and fixed_path(p).exists()
)


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[Case, str], dict]:
    """(case, release) -> SGLang's verdict, from one batch per release."""
    cases = [c for fixture in FIXTURES_WITH_FIXES for c in cases_of(fixture)]
    out: dict[tuple[Case, str], dict] = {}
    for release in sorted({r for c in cases for r in c.releases}):
        if not oracle.available(release):
            continue
        batch = [c for c in cases if release in c.releases]
        every = patterns_holding_in(release)
        requests = [
            {"argv": list(c.argv), "cwd": str(c.fixture.parent), "architecture": c.architecture, "gpu": c.gpu,
             "patterns": every if c.fixed else sorted(c.patterns)}
            for c in batch
        ]
        _, results = oracle.judge(release, requests, every)
        out.update({(c, release): r for c, r in zip(batch, results)})
    return out


def require_oracle(release: str) -> None:
    if os.environ.get("AUTOFIX_REQUIRE_ORACLE") and not oracle.available(release):
        pytest.fail(f"SGLang {release}'s parser environment is required here: run scripts/sglang_env.sh")
    oracle.require(release)


@pytest.mark.parametrize("fixture", FIXTURES_WITH_FIXES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_sglang_refuses_the_flagged_launch_and_accepts_the_fix(fixture: Path, verdicts: dict) -> None:
    cases = cases_of(fixture)
    if not cases:
        pytest.skip("no launch autofix fixes here is fully known (values from the environment)")
    for case in cases:
        assert case.releases, f"{case.argv}: no release both SGLang and the fixers agree on; pin one"
        for release in case.releases:
            require_oracle(release)
            verdict = verdicts[(case, release)]
            if case.fixed or case.modernisation:
                assert verdict["ok"], f"SGLang {release} refuses the launch {case.argv}: {verdict['error']}"
            else:
                assert not verdict["ok"], f"SGLang {release} accepts the flagged launch {case.argv}"
                assert any(re.search(p, verdict["error"]) for p in case.patterns), verdict["error"]


def test_every_fixer_with_fixed_fixtures_is_judged_on_one() -> None:
    """Each fixer's own Example is judged in test_fixer_examples; its fixtures are
    judged here wherever a fixed launch is fully known (not report-only fixers,
    nor launches with values from the environment)."""
    judged = {fixture.parent.name for fixture in FIXTURES_WITH_FIXES if cases_of(fixture)}
    fixing = {fixture.parent.name for fixture in FIXTURES_WITH_FIXES}
    missing = {fx.name for fx in all_fixers() if fx.default and fx.name in fixing} - judged
    assert not missing, f"no fully known fixed launch in the fixtures of {sorted(missing)}"
