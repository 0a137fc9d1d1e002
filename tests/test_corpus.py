"""Real public launch files (`../shared/corpus` beside the checkout): no finding, no byte changed.

They are launches SGLang users wrote and run, so every finding there is a false
alarm by default (their releases are unknown). Read in place, never copied into
the project; skipped with its reason where the corpus is not beside the checkout.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus beside the checkout ({CORPUS})")


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_corpus_gets_no_finding() -> None:
    result = CliRunner().invoke(main, ["--format", "json", "--jobs", "1", str(CORPUS)])
    assert result.exit_code == 0, result.stdout[:2000]
    assert result.stdout.strip() == "[]"


def test_fixing_the_corpus_changes_no_byte(tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    for path in copy.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    before = files(copy)
    result = CliRunner().invoke(main, ["--fix", "--unsafe-fixes", "--jobs", "1", str(copy)])
    assert result.exit_code == 0, result.output[:2000]
    assert files(copy) == before
