"""SGLang's own judgement of the fixtures.

Every launch autofix fixes in a fixture is refused by SGLang's own parser and
rule functions with the fixer's record message (or that of a record the fixer
says SGLang checks first), and the same launch in the
`.fixed` file is one SGLang accepts. Runs against the parser environment that
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
from autofix.fixer import all_fixers, select
from autofix.formats import detect, load
from autofix.knowledge.options import table
from autofix.model import Launch
from autofix.pipeline import Settings, fix_text, release_in_text
from autofix.source import Source
from test_fixtures import FIXTURES, fixed_path

# Releases in which the seed records hold, checked against SGLang itself.
RELEASES = ("0.5.18", "0.5.19", "0.5.22")
# A stand-in architecture for a model family autofix knows only as "not MLA".
NOT_MLA = "LlamaForCausalLM"


def argv_of(launch: Launch) -> list[str] | None:
    """The argv SGLang's parser would see, or None when part of it is unknown."""
    if any(arg.text is None or arg.splat for arg in launch.args):
        return None
    argv = [arg.text for arg in launch.args]
    if launch.form == "serve" and launch.positionals and launch.args[0] is launch.positionals[0]:
        argv = ["--model-path", *argv]  # what `sglang serve MODEL` does before parsing
    return argv  # type: ignore[return-value]


def architecture_of(launch: Launch) -> str | None:
    model = launch.model
    if model.architecture is not None:
        return model.architecture
    return NOT_MLA if model.mla is False else None


def launches_in(path: Path, text: str) -> list[Launch]:
    release = release_in_text(text)
    return load(detect(path.name)).find_launches(Source(text), table(release), release=release)


@dataclass(frozen=True)
class Case:
    fixture: Path
    fixed: bool  # the launch as fixed, else as written
    argv: tuple[str, ...]
    architecture: str | None
    patterns: frozenset[str]  # the records the launch was flagged for
    releases: tuple[str, ...]


def flagged(case: Path) -> dict[int, set[str]]:
    """Index of each launch autofix fixes in a fixture -> the record patterns of its findings."""
    text = case.read_text(encoding="utf-8")
    source = Source(text)
    lines = [source.line_col(launch.span.start)[0] for launch in launches_in(case, text)]
    found: dict[int, set[str]] = {}
    for r in fix_text(source, detect(case.name), Settings(select(["ALL"]))).findings:
        if r.fix is not None and r.fix.applies(False) and r.launch_line in lines:
            earlier = [fx.pattern for fx in all_fixers() if fx.record in r.fixer.preceded_by]
            found.setdefault(lines.index(r.launch_line), set()).update(r.fixer.patterns, earlier)
    return found


def cases_of(fixture: Path) -> list[Case]:
    patterns = flagged(fixture)
    cases = []
    for fixed, path in ((False, fixture), (True, fixed_path(fixture))):
        text = path.read_text(encoding="utf-8")
        pinned = release_in_text(text)
        for index, launch in enumerate(launches_in(fixture, text)):
            argv = argv_of(launch)
            if index in patterns and argv is not None:
                cases.append(Case(fixture, fixed, tuple(argv), architecture_of(launch),
                                  frozenset(patterns[index]), (pinned,) if pinned else RELEASES))
    return cases


FIXTURES_WITH_FIXES = sorted(
    p for p in FIXTURES.rglob("*") if p.is_file() and ".fixed" not in p.suffixes and fixed_path(p).exists()
)


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[Case, str], dict]:
    """(case, release) -> {"parse": ..., "rules": ...} from one batch per release."""
    cases = [c for fixture in FIXTURES_WITH_FIXES for c in cases_of(fixture)]
    out: dict[tuple[Case, str], dict] = {}
    for release in sorted({r for c in cases for r in c.releases}):
        if not oracle.available(release):
            continue
        batch = [c for c in cases if release in c.releases]
        parsed = oracle.parse(release, [list(c.argv) for c in batch])
        ok = [(c, p) for c, p in zip(batch, parsed) if p["ok"]]
        ruled = oracle.rules(release, [{"args": p["args"], "architecture": c.architecture} for c, p in ok])
        rules_of = {id(c): r for (c, _), r in zip(ok, ruled)}
        for c, p in zip(batch, parsed):
            out[(c, release)] = {"parse": p, "rules": rules_of.get(id(c))}
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
        for release in case.releases:
            require_oracle(release)
            verdict = verdicts[(case, release)]
            parsed, ruled = verdict["parse"], verdict["rules"]
            assert parsed["ok"], f"SGLang {release} cannot parse {case.argv}: {parsed['error']}"
            if case.fixed:
                assert ruled["ok"], f"SGLang {release} refuses the fixed launch {case.argv}: {ruled['error']}"
            else:
                assert not ruled["ok"], f"SGLang {release} accepts the flagged launch {case.argv}"
                assert any(re.search(p, ruled["error"]) for p in case.patterns), ruled["error"]


def test_every_seed_fixer_is_judged() -> None:
    judged = {fixture.parent.name for fixture in FIXTURES_WITH_FIXES if cases_of(fixture)}
    assert {fx.name for fx in all_fixers()} <= judged
