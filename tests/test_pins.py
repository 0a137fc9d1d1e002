"""Release pins with the suffixes SGLang's releases and images carry.

`lmsysorg/sglang:v0.5.5.post3`, `v0.5.18rc1`, `v0.5.18-cu129`,
`v0.5.18-rocm700-mi30x`, `sglang==0.5.18.post1`: a post release is its
release's options; a release candidate is checked as the release it was cut
for (one newer than autofix knows as the newest, with the usual warning); a
release older than autofix knows leaves every fixer quiet.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.knowledge.releases import RELEASES, release_of

# `--enable-lean-attention` came in SGLang 0.5.19.
LAUNCH = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-lean-attention\n"
ADDED = "`--enable-lean-attention` is not an option of SGLang 0.5.18 (SGLang 0.5.19 added it)"


def messages(path: Path, *options: str) -> list[str]:
    result = CliRunner().invoke(main, ["--format", "json", *options, str(path)], catch_exceptions=False)
    return [f["message"] for f in json.loads(result.stdout)]


@pytest.mark.parametrize(("version", "release"), [
    ("0.5.18", "0.5.18"), ("v0.5.18", "0.5.18"), ("0.5.18.post1", "0.5.18"), ("v0.5.5.post3", "0.5.5"),
    ("0.5.19rc1", "0.5.19"), ("latest", None), ("0.5.18.1", None),
])
def test_release_of(version: str, release: str | None) -> None:
    assert release_of(version) == release


@pytest.mark.parametrize("tag", [
    "v0.5.18", "v0.5.18.post1", "v0.5.18rc1", "v0.5.18-cu129", "v0.5.18.post1-cu126",
    "v0.5.18-rocm700-mi30x", "v0.5.18rc1-rocm700-mi30x",
])
def test_an_image_tag_pins_its_release(tmp_path: Path, tag: str) -> None:
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(f"FROM lmsysorg/sglang:{tag}\nCMD {LAUNCH}")
    assert messages(dockerfile) == [ADDED]


@pytest.mark.parametrize("tag", ["v0.5.19rc1", "v0.5.19.post2-cu129", "latest", "v0.5.18.1"])
def test_a_tag_of_a_release_with_the_option_or_of_no_release_gets_no_finding(tmp_path: Path, tag: str) -> None:
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(f"FROM lmsysorg/sglang:{tag}\nCMD {LAUNCH}")
    assert messages(dockerfile) == []


@pytest.mark.parametrize(("name", "pin"), [
    ("requirements.txt", "sglang==0.5.18.post1\n"),
    ("requirements-serve.txt", "sglang[all]==0.5.18rc2  # the release candidate\n"),
    ("pyproject.toml", '[project]\ndependencies = ["sglang[all]==0.5.18.post3"]\n'),
])
def test_a_pin_beside_the_launch_pins_its_release(tmp_path: Path, name: str, pin: str) -> None:
    (tmp_path / name).write_text(pin)
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    assert messages(script) == [ADDED]


def test_pins_of_one_release_with_and_without_a_suffix_agree(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("sglang==0.5.18\n")
    (tmp_path / "requirements-dev.txt").write_text("sglang==0.5.18.post1\n")
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    assert messages(script) == [ADDED]


def test_a_post_release_older_than_autofix_knows_leaves_every_fixer_quiet(tmp_path: Path) -> None:
    launch = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-type fp8_e4m3\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    unpinned, pinned = tmp_path / "a" / "serve.sh", tmp_path / "b" / "Dockerfile"
    unpinned.write_text(launch)
    pinned.write_text(f"FROM lmsysorg/sglang:v0.5.5.post3-cu129-amd64\nCMD {launch}")
    assert len(messages(unpinned)) == 1
    assert messages(pinned) == []


def test_a_release_candidate_newer_than_known_is_checked_as_the_newest(tmp_path: Path) -> None:
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(f"FROM lmsysorg/sglang:v0.5.99rc1\nCMD {LAUNCH}")
    result = CliRunner().invoke(main, [str(dockerfile)], catch_exceptions=False)
    assert f"warning: SGLang 0.5.99 is newer than autofix knows; checked as {RELEASES[-1]}" in result.stderr


def test_sglang_version_with_a_suffix_is_its_release(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    assert messages(script, "--sglang-version", "0.5.18.post1") == [ADDED]


@pytest.mark.parametrize(("where", "text"), [
    ("python/pyproject.toml", '[project]\nname = "sglang"\nversion = "0.5.18.post1"\n'),
    ("python/sglang/version.py", '__version__ = "0.5.18"\n'),
])
def test_a_file_in_a_checkout_of_sglang_itself_is_checked_as_its_version(tmp_path: Path, where: str,
                                                                        text: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "python" / "sglang").mkdir(parents=True)
    if where.endswith("version.py"):
        (tmp_path / "python" / "pyproject.toml").write_text('[project]\nname = "sglang"\ndynamic = ["version"]\n')
    (tmp_path / where).write_text(text)
    (tmp_path / "docs").mkdir()
    script = tmp_path / "docs" / "serve.sh"
    script.write_text(LAUNCH)
    assert messages(script) == [ADDED]  # a fork's docs launch the fork's SGLang


def test_a_checkout_whose_version_comes_from_git_pins_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "pyproject.toml").write_text('[project]\nname = "sglang"\ndynamic = ["version"]\n')
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    assert messages(script) == []  # unpinned: the option exists in a release autofix knows


def test_another_project_named_in_a_pyproject_is_no_checkout(tmp_path: Path) -> None:
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "pyproject.toml").write_text('[project]\nname = "sglang-tools"\nversion = "0.5.18"\n')
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    assert messages(script) == []


def test_a_launch_pinned_older_than_autofix_knows_is_named_in_a_warning(tmp_path: Path) -> None:
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(f"FROM lmsysorg/sglang:v0.5.5.post3-cu129-amd64\nCMD {LAUNCH}")
    result = CliRunner().invoke(main, [str(dockerfile)], catch_exceptions=False)
    assert result.exit_code == 0
    assert (f"warning: SGLang 0.5.5 is older than autofix knows ({RELEASES[0]} to {RELEASES[-1]}): its launches "
            "were read but not checked") in result.stderr
    (tmp_path / "notes.sh").write_text("# sglang==0.5.5\necho no launch here\n")
    quiet = CliRunner().invoke(main, [str(tmp_path / "notes.sh")], catch_exceptions=False)
    assert "older" not in quiet.stderr  # no launch: nothing left unchecked
