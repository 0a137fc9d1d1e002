"""Every rule in the catalogue's shape, proven by its own fields and by SGLang.

For each rule, in the first and the last release of its range (where the
catalogue holds its errors):

- autofix reports its Example and not its near miss, and the fix changes the
  Example (unless the rule offers no fix);
- SGLang's own functions (scripts/sglang_oracle.py judge) refuse the Example
  with one of the rule's catalogue errors (its message, or for a bare assert
  its file and line), and accept both the fixed Example and the near miss
  under every rule of that release.

The dests a rule reads are options of every release in its range.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

import oracle
from autofix.fixer import Fixer, all_fixers
from autofix.formats import SHELL
from autofix.knowledge import catalogue
from autofix.knowledge.gpus import gpu_named
from autofix.knowledge.options import table
from autofix.pipeline import Settings, fix_text
from autofix.ruledocs import ENTRY
from autofix.source import Source
from judging import (
    architecture_of, argv_of, launches_in, oracle_profile, patterns_holding_in, real_facts, releases_of, stand_in_folder,
)

RULES = [fx for fx in all_fixers() if fx.rule is not None]


def judged(fx: Fixer) -> list[str]:
    releases = releases_of(fx)
    return sorted({releases[0], releases[-1]})


CASES = [(fx, r) for fx in RULES for r in judged(fx)]
IDS = [f"{fx.code}-{r}" for fx, r in CASES]


def script(args: str) -> str:
    return f"{ENTRY} {args}\n"


@functools.cache
def run(fx: Fixer, release: str, args: str, fix: bool = False):  # noqa: ANN201
    gpu = gpu_named(fx.rule.gpu) if fx.rule.gpu else None
    settings = Settings([fx], unsafe=True, release=release, gpu=gpu, model_lookup=real_facts)
    return fix_text(Source(script(args)), SHELL, settings, fix=fix)


def module_of(file: str) -> str:
    return file.removeprefix("python/").removesuffix(".py").replace("/", ".")


def sites(fx: Fixer, release: str) -> list[catalogue.Site]:
    known = catalogue.errors(release)
    return [s for i in fx.errors if i in known for s in known[i].sites]


def test_rule_codes_and_names_are_unique() -> None:
    codes = [fx.code for fx in all_fixers()]
    names = [fx.name for fx in all_fixers()]
    assert len(codes) == len(set(codes)) and len(names) == len(set(names))


@pytest.mark.parametrize("fx", RULES, ids=lambda fx: fx.code)
def test_a_rule_reads_options_of_every_release_in_its_range(fx: Fixer) -> None:
    for release in releases_of(fx):
        unknown = sorted(d for d in fx.rule.reads if table(release).by_dest(d) is None)
        assert not unknown, f"{fx.code} reads {unknown}, which SGLang {release} does not have"


@pytest.mark.parametrize("fx", RULES, ids=lambda fx: fx.code)
def test_a_rule_range_is_where_the_catalogue_holds_its_errors(fx: Fixer) -> None:
    holding = [r for r in oracle.VERSIONS if any(i in catalogue.errors(r) for i in fx.errors)]
    assert holding == releases_of(fx), f"{fx.code}: the catalogue has its errors in {holding}, gaps included"


@pytest.mark.parametrize(("fx", "release"), CASES, ids=IDS)
def test_a_rule_reports_its_example_and_not_its_near_miss(fx: Fixer, release: str) -> None:
    found = run(fx, release, fx.rule.example).findings
    assert [r.fixer.code for r in found] == [fx.code], f"{fx.code} does not report its Example in {release}"
    assert not run(fx, release, fx.rule.near_miss).findings, f"{fx.code} reports its near miss in {release}"
    if fx.rule.fix:
        fixed = run(fx, release, fx.rule.example, fix=True)
        assert fixed.text != script(fx.rule.example), f"{fx.code}: the fix changes nothing in {release}"
        assert not fixed.remaining, f"{fx.code}: its fix leaves the finding in {release}"


def case(fx: Fixer, release: str, args: str, folder: Path) -> dict:
    [launch] = launches_in("rule.sh", script(args))
    argv = argv_of(launch)
    assert argv is not None, f"{fx.code}: its launches must be fully literal"
    return {"argv": argv, "cwd": str(folder), "architecture": architecture_of(launch),
            "gpu": oracle_profile(fx.rule.gpu), "model_config": stand_in_folder(launch, folder)}


def every_function(release: str) -> list[str]:
    """The functions of every rule holding in release, as the judge names them."""
    return sorted({f"{module_of(s.file)}:{s.function}" for fx in RULES if release in releases_of(fx)
                   for s in sites(fx, release)})


@pytest.fixture(scope="module")
def verdicts(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """(code, release, 'example' | 'fixed' | 'near') -> SGLang's verdict, for the cases this
    session runs (`-k SGL3` judges those alone); one judge call per release."""
    chosen = {
        (item.callspec.params["fx"].code, item.callspec.params["release"])
        for item in request.session.items
        if item.originalname == "test_sglang_refuses_the_example_and_accepts_the_fix_and_the_near_miss"
    }
    folder = tmp_path_factory.mktemp("rules")
    out: dict[tuple[str, str, str], dict] = {}
    for release in sorted({r for _, r in chosen}):
        if not oracle.available(release):
            continue
        every, functions = patterns_holding_in(release), every_function(release)
        keys, cases = [], []
        for fx in RULES:
            if (fx.code, release) not in chosen:
                continue
            own = [f"{module_of(s.file)}:{s.function}" for s in sites(fx, release)]
            fixed = run(fx, release, fx.rule.example, fix=True).text[len(ENTRY) + 1 :].strip()
            for kind, args, patterns, names in (
                ("example", fx.rule.example, list(fx.patterns), own),
                ("fixed", fixed, every, functions),
                ("near", fx.rule.near_miss, every, functions),
            ):
                keys.append((fx.code, release, kind))
                cases.append({**case(fx, release, args, folder), "patterns": patterns, "functions": names})
        _, results = oracle.judge(release, cases, every)
        out.update(zip(keys, results))
    return out


@pytest.mark.parametrize(("fx", "release"), CASES, ids=IDS)
def test_sglang_refuses_the_example_and_accepts_the_fix_and_the_near_miss(
    fx: Fixer, release: str, verdicts: dict
) -> None:
    oracle.require(release)
    bad = verdicts[(fx.code, release, "example")]
    assert not bad["ok"], f"SGLang {release} accepts the Example of {fx.code} (ran: {bad['ran']})"
    # A bare assert over several lines is reported at the line of the part that failed.
    at = {f"{s.file}:{s.line + k}" for s in sites(fx, release) for k in range(max(1, len(s.source.splitlines())))}
    assert any(re.search(p, bad["error"]) for p in fx.patterns) or bad.get("where") in at, \
        f"SGLang {release} refuses the Example of {fx.code} with another error: {bad['error']} at {bad.get('where')}"
    near = verdicts[(fx.code, release, "near")]
    assert near["ok"], f"SGLang {release} refuses the near miss of {fx.code}: {near['error']} at {near.get('where')}"
    if fx.rule.fix:
        good = verdicts[(fx.code, release, "fixed")]
        assert good["ok"], f"SGLang {release} refuses the fixed Example of {fx.code}: {good['error']}"


def test_reads_are_the_dests_a_condition_names() -> None:
    from autofix.rules import reads_of

    def when(cfg):  # noqa: ANN001, ANN202
        return cfg.has("new_option") and cfg.written("tp_size") and cfg.dp_size > 1 and cfg.model.mla \
            and any(cfg.ep_size == n for n in (2, 4))

    assert reads_of(when) == {"tp_size", "dp_size", "ep_size"}
