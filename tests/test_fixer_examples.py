"""Each fixer's own `Example`, judged by SGLang.

For every fixer, the launch in its docs' `## Example` block is refused by
SGLang's parser and rule functions with the fixer's record message, in the
first and the last release the fixer names; autofix's fix of it passes
SGLang's parser and every rule function of every fixer that holds in that
release. The rule functions are found by the record message itself (see
`judge` in scripts/sglang_oracle.py), so a fixer whose message no function of
a release spells fails here rather than passing untested. A GPU rule names its
GPU in the Example section as `--gpu NAME`; a fixer of `--config` files shows
one as a yaml block, judged as `--config FILE`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

import oracle
from autofix.fixer import Fixer, all_fixers
from autofix.pipeline import release_in_text
from judging import (
    DocExample, architecture_of, check_example, doc_example, launches_in, oracle_profile, patterns_holding_in,
    refusals, releases_of,
)

# Hand-written fixers; rules in the catalogue's shape are judged by tests/test_rules.py.
FIXERS = [fx for fx in all_fixers() if fx.rule is None]


def judged_releases(fx: Fixer) -> list[str]:
    """The first and last release the fixer names, or the release its Example pins."""
    pinned = release_in_text(doc_example(fx.doc, "## Example").script or "")
    if pinned is not None:
        return [pinned]
    releases = releases_of(fx)
    return sorted({releases[0], releases[-1]})


@functools.cache
def example_of(fx: Fixer) -> tuple[DocExample, DocExample]:
    """The Example, and what autofix --fix --unsafe-fixes makes of it."""
    example = doc_example(fx.doc, "## Example")
    _, fixed = check_example(example, [fx], fix=True, unsafe=True)
    return example, fixed


def case_of(fx: Fixer, fixed: bool, folder: Path) -> dict:
    """SGLang's argv for the Example (or its fix); its config file is written
    into a folder of its own, which SGLang reads it from."""
    example = example_of(fx)[1 if fixed else 0]
    where = folder / f"{fx.code}-{'fixed' if fixed else 'example'}"
    where.mkdir(exist_ok=True)
    if example.config is not None:
        (where / example.config_name).write_text(example.config, encoding="utf-8")
    case = {"architecture": None, "gpu": oracle_profile(example.gpu), "cwd": str(where)}
    if example.script is None:
        return {**case, "argv": example.argv(None)}
    [launch] = launches_in("example.sh", example.script)
    argv = example.argv(launch)
    assert argv is not None, "the Example must be a fully literal launch"
    return {**case, "argv": argv, "architecture": architecture_of(launch)}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, bool], tuple[dict, dict]]:
    """(code, release, fixed) -> (located functions, SGLang's verdict), one batch per release."""
    out: dict[tuple[str, str, bool], tuple[dict, dict]] = {}
    folder = tmp_path_factory.mktemp("examples")
    for release in sorted({r for fx in FIXERS for r in judged_releases(fx)}):
        if not oracle.available(release):
            continue
        every = patterns_holding_in(release)
        keys, cases = [], []
        for fx in FIXERS:
            if release not in judged_releases(fx):
                continue
            for fixed in (False, True):
                keys.append((fx.code, release, fixed))
                cases.append({**case_of(fx, fixed, folder), "patterns": every if fixed else refusals(fx)})
        located, results = oracle.judge(release, cases, every)
        out.update({key: (located, result) for key, result in zip(keys, results)})
    return out


@pytest.mark.parametrize(
    ("fx", "release"),
    [(fx, r) for fx in FIXERS for r in judged_releases(fx)],
    ids=lambda v: v.code if isinstance(v, Fixer) else v,
)
def test_sglang_refuses_the_example_and_accepts_its_fix(fx: Fixer, release: str, verdicts: dict) -> None:
    oracle.require(release)
    located, bad = verdicts[(fx.code, release, False)]
    _, good = verdicts[(fx.code, release, True)]
    if not fx.default:
        # A modernisation: SGLang still accepts the old spelling, and the new one.
        assert bad["ok"], f"SGLang {release} refuses the Example of an opt-in fixer: {bad['error']}"
    else:
        assert not bad["ok"], f"SGLang {release} accepts the Example (rules run: {bad['ran']}; located: " \
            f"{ {p: located.get(p) for p in fx.patterns} })"
        assert any(re.search(p, bad["error"]) for p in refusals(fx)), bad["error"]
    example, fixed = example_of(fx)
    if fixed != example:
        assert good["ok"], f"SGLang {release} refuses the fixed Example: {good['error']}"
    else:
        # A report-only fixer: nothing to judge after the fix.
        assert fixed == example
