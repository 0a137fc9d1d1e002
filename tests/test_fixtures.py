"""Every fixture, for every fixer: annotations honoured, `.fixed` byte for byte,
the result still parses, a second run changes nothing, no fixable finding remains.

Annotations sit on the line before a launch (other comment lines may stand between):
`# flag: <slug>` (reported), `# ok: <slug>` (not reported),
`# todo-flag: <slug>` (should be reported, is not yet), `# todo-ok: <slug>` (a known false positive).
Every finding in a fixture must be annotated.

A fixture may name how it is checked, anywhere in its text (a comment; in a
notebook, a cell's line): `autofix-test: --gpu h100` runs the GPU rules for that
GPU, `autofix-test: --unsafe-fixes` applies unsafe fixes too (its `.fixed`
twin shows them).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autofix.fixer import all_fixers, select
from autofix.formats import detect, load
from autofix.knowledge.gpus import gpu_named
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
TEST_OPTIONS = re.compile(r"autofix-test:((?:\s+--(?:gpu[= ][\w-]+|unsafe-fixes))+)")
ANNOTATION = re.compile(r"(?:#|//|<!--)\s*(flag|ok|todo-flag|todo-ok):\s*([a-z0-9-]+)")


def fixture_cases() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and ".fixed" not in p.suffixes)


def fixed_path(case: Path) -> Path:
    stem, dot, ext = case.name.partition(".")
    return case.with_name(f"{stem}.fixed{dot}{ext}") if dot else case.with_name(f"{stem}.fixed")


def annotations(text: str) -> dict[str, set[tuple[int, str]]]:
    """kind -> {(line of the launch the annotation names, slug)}."""
    found: dict[str, set[tuple[int, str]]] = {k: set() for k in ("flag", "ok", "todo-flag", "todo-ok")}
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        match = ANNOTATION.search(line)
        if match is None:
            continue
        target = number + 1
        # Past comments and further annotations (a notebook's are inside JSON strings).
        while target <= len(lines) and (lines[target - 1].lstrip().startswith(("#", "//", "<!--"))
                                        or ANNOTATION.search(lines[target - 1])):
            target += 1
        found[match[1]].add((target, match[2]))
    return found


def settings(text: str = "") -> Settings:
    """Every fixer, with the GPU and unsafe fixes the fixture's `autofix-test:` options name."""
    options = " ".join(m[1] for m in TEST_OPTIONS.finditer(text))
    gpu = re.search(r"--gpu[= ]([\w-]+)", options)
    return Settings(select(["ALL"]), unsafe="--unsafe-fixes" in options, gpu=gpu_named(gpu[1]) if gpu else None)


def run(case: Path, text: str | None = None, fix: bool = False):  # noqa: ANN201
    source = Source.decode(case.read_bytes()) if text is None else Source(text)
    spec = detect(case.name)
    assert spec is not None, f"{case}: no format for this file name"
    return fix_text(source, spec, settings(source.text), fix=fix)


CASES = fixture_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_annotations(case: Path) -> None:
    text = case.read_text(encoding="utf-8")
    expected = annotations(text)
    result = run(case)
    got = {(r.launch_line, r.fixer.name) for r in result.findings}
    assert expected["flag"] <= got, "flagged launches not reported"
    assert not (expected["ok"] & got), "ok launches reported"
    assert not (expected["todo-flag"] & got), "a todo-flag case is now reported: make it flag"
    unannotated = got - expected["flag"] - expected["todo-ok"]
    assert not unannotated, f"findings without a flag annotation: {sorted(unannotated)}"


@pytest.mark.parametrize("case", CASES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fix(case: Path) -> None:
    original = case.read_bytes()
    result = run(case, fix=True)
    assert result.error is None
    out = result.source.encode(result.text)
    expected_path = fixed_path(case)
    if expected_path.exists():
        assert out.decode() == expected_path.read_bytes().decode(), "fix differs from .fixed"
    else:
        assert out == original, "a fix applied, but there is no .fixed file"
    module = load(detect(case.name))
    assert module.syntax_errors(result.text) <= module.syntax_errors(result.source.text)
    again = run(case, text=result.text, fix=True)
    assert again.text == result.text, "a second --fix changed the file"
    assert not [r for r in again.findings if r.fix is not None and r.fix.applies(False)], "fixable findings remain"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(
    "case", [c for c in CASES if fixed_path(c).exists() and detect(c.name).name == "shell"],
    ids=lambda p: str(p.relative_to(FIXTURES)),
)
def test_fixed_shell_parses_with_bash(case: Path) -> None:
    proc = subprocess.run(["bash", "-n", str(fixed_path(case))], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_fixer_has_flagged_and_ok_fixtures() -> None:
    # Hand-written fixers; a catalogue rule's Example and near miss are its cases (tests/test_rules.py).
    for fx in (fx for fx in all_fixers() if fx.rule is None):
        folder = FIXTURES / fx.name
        assert folder.is_dir(), f"{fx.code} has no fixtures/{fx.name}/"
        kinds = {kind for case in folder.iterdir() for kind, slugs in annotations(case.read_text()).items()
                 if any(slug == fx.name for _, slug in slugs)}
        assert {"flag", "ok"} <= kinds, f"{fx.name}: needs both flag and ok cases"


def test_every_fixture_folder_names_a_fixer() -> None:
    names = {fx.name for fx in all_fixers()}
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert folders <= names | {"_launch"}, folders - names
