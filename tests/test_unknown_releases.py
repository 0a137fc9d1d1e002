"""Releases autofix does not know: a newer one is checked as the newest, with one warning; an older one is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.knowledge.releases import RELEASES, checked_as, unknown_release

NEWEST = RELEASES[-1]
# SGL300's error holds in the newest release only: a finding shows the newest knowledge was used.
BAD = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-lmcache --enable-hierarchical-cache\n"


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("release", ["0.5.24", "0.6.0", "1.0.0"])
def test_a_newer_release_is_checked_as_the_newest(release: str) -> None:
    assert checked_as(release) == NEWEST and unknown_release(release) is None


@pytest.mark.parametrize("release", RELEASES)
def test_a_known_release_is_itself(release: str) -> None:
    assert checked_as(release) == release and unknown_release(release) is None


def test_an_older_release_names_the_known_ones() -> None:
    assert unknown_release("0.5.16") == f"autofix knows SGLang {RELEASES[0]} to {NEWEST}; 0.5.16 is older than any of them"
    assert unknown_release("banana") == f"autofix knows SGLang {RELEASES[0]} to {NEWEST}; 'banana' is not an SGLang release"


def test_cli_newer_release_warns_once_and_checks_with_the_newest(tmp_path: Path) -> None:
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text(BAD)
    result = invoke("--sglang-version", "0.5.24", str(tmp_path))
    assert result.exit_code == 1
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [f"autofix: warning: SGLang 0.5.24 is newer than autofix knows; checked as {NEWEST}"]
    assert result.stdout.count("SGL300") == 2


def test_cli_older_release_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_text(BAD)
    result = invoke("--sglang-version", "0.5.16", str(tmp_path))
    assert result.exit_code == 2
    assert "autofix knows SGLang 0.5.17 to 0.5.23; 0.5.16 is older than any of them" in result.stderr


def test_a_pin_in_the_file_newer_than_known_is_checked_as_the_newest(tmp_path: Path) -> None:
    docker = tmp_path / "Dockerfile"
    docker.write_text(f"FROM lmsysorg/sglang:v0.5.24-cu129\nCMD {BAD}")
    result = invoke(str(docker))
    assert result.exit_code == 1
    assert "SGL300" in result.stdout
    assert f"{docker}: warning: SGLang 0.5.24 is newer than autofix knows; checked as {NEWEST}" in result.stderr


def test_the_releases_are_listed_once() -> None:
    """autofix/knowledge/releases.txt is the one list; no script or module spells it again."""
    import re

    root = Path(__file__).resolve().parents[1]
    sep = r"[\"']?[ ,]+[\"']?"
    spelled = re.compile(sep.join(re.escape(r) for r in RELEASES[:4]))  # a run of releases: a list
    found = [str(p.relative_to(root)) for pattern in ("autofix/**/*.py", "scripts/*", "tests/*.py", ".ci/*")
             for p in root.glob(pattern) if p.is_file() and spelled.search(p.read_text(encoding="utf-8"))]
    assert found == [], found
