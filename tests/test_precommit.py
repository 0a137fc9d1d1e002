"""The pre-commit hooks, run by the real pre-commit (`pre-commit try-repo`) in scratch repositories.

pre-commit builds a virtualenv and pip-installs autofix into it from a
snapshot of this repository (its HEAD plus the uncommitted changes to tracked
files, as try-repo itself would take them). `try-repo` installs into a store
of its own each time, so one test runs it and the others run `pre-commit run`
with the configuration try-repo would write, in a PRE_COMMIT_HOME shared by
the session: two installs in all. Skipped when pre-commit is not installed,
unless AUTOFIX_REQUIRE_ORACLE is set (CI), where that is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BAD = (
    "#!/bin/bash\n"
    "python3 -m sglang.launch_server \\\n"
    "    --model-path deepseek-ai/DeepSeek-V3 \\\n"
    "    --attention-backend tokenspeed_mla \\\n"
    "    --port 30000\n"
)
FIXED = BAD.replace(
    "--attention-backend tokenspeed_mla \\\n",
    "--attention-backend tokenspeed_mla \\\n    --kv-cache-dtype fp8_e4m3 \\\n",
)
CLEAN = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend fa3\n"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "autofix tests", "GIT_AUTHOR_EMAIL": "tests@autofix.invalid",
    "GIT_COMMITTER_NAME": "autofix tests", "GIT_COMMITTER_EMAIL": "tests@autofix.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _require_pre_commit() -> None:
    if importlib.util.find_spec("pre_commit") is not None:
        return
    reason = "pre-commit is not installed (pip install -e '.[test]')"
    if os.environ.get("AUTOFIX_REQUIRE_ORACLE"):
        pytest.fail(f"{reason} (AUTOFIX_REQUIRE_ORACLE is set)")
    pytest.skip(reason)


def _git(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess:  # noqa: ANN003
    return subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, **kwargs)


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """A snapshot of this repository as a commit (path, sha), and the PRE_COMMIT_HOME every test shares."""
    _require_pre_commit()
    if subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("this checkout of autofix is not a git repository")
    base = tmp_path_factory.mktemp("precommit")
    snapshot = base / "autofix"
    _git("clone", "--quiet", str(ROOT), str(snapshot), cwd=base)
    diff = _git("diff", "HEAD", "--binary", cwd=ROOT).stdout
    if diff:
        _git("apply", "--index", "-", cwd=snapshot, input=diff)
        _git("commit", "--quiet", "--no-verify", "-m", "uncommitted changes", cwd=snapshot)
    sha = _git("rev-parse", "HEAD", cwd=snapshot).stdout.decode().strip()
    home = base / "pre-commit-home"
    home.mkdir()
    return snapshot, sha, home


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """An empty git repository to run the hooks in."""
    repo = tmp_path / "scratch"
    repo.mkdir()
    _git("init", "--quiet", cwd=repo)
    return repo


def commit(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    _git("add", "--", *files, cwd=repo)
    _git("commit", "--quiet", "--no-verify", "-m", "launches", cwd=repo)


def _pre_commit(hook_repo: tuple[Path, str, Path], repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(hook_repo[2]), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)


def try_repo(hook_repo: tuple[Path, str, Path], repo: Path, hook: str) -> subprocess.CompletedProcess:
    """`pre-commit try-repo` on the snapshot: what a hook author runs (it installs afresh each time)."""
    snapshot, sha, _ = hook_repo
    return _pre_commit(hook_repo, repo, "try-repo", str(snapshot), hook, "--ref", sha, "--all-files")


def run_hook(hook_repo: tuple[Path, str, Path], repo: Path, hook: str) -> subprocess.CompletedProcess:
    """`pre-commit run` with the configuration try-repo writes, installed once per session."""
    snapshot, sha, _ = hook_repo
    config = repo.parent / f"{hook}-pre-commit-config.yaml"
    config.write_text(f"repos:\n- repo: {snapshot}\n  rev: {sha}\n  hooks:\n  - id: {hook}\n")
    return _pre_commit(hook_repo, repo, "run", "--config", str(config), "--all-files", hook)


# -- the hooks, run by pre-commit --------------------------------------------------------------------


def test_autofix_hook_rewrites_a_bad_launch_and_fails(hook_repo, scratch: Path) -> None:  # noqa: ANN001
    commit(scratch, {"serve/launch.sh": BAD, "serve/ok.sh": CLEAN})
    result = try_repo(hook_repo, scratch, "autofix")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout
    assert (scratch / "serve/launch.sh").read_bytes() == FIXED.encode()
    assert (scratch / "serve/ok.sh").read_bytes() == CLEAN.encode()
    # Once fixed, the hook passes.
    _git("commit", "--quiet", "--no-verify", "-am", "fixed", cwd=scratch)
    again = run_hook(hook_repo, scratch, "autofix")
    assert again.returncode == 0, again.stdout + again.stderr


def test_autofix_hook_passes_on_a_clean_repository(hook_repo, scratch: Path) -> None:  # noqa: ANN001
    commit(scratch, {"launch.sh": CLEAN, "README.md": "# serving\n\n```sh\n" + CLEAN + "```\n"})
    result = run_hook(hook_repo, scratch, "autofix")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (scratch / "launch.sh").read_bytes() == CLEAN.encode()


def test_check_hook_fails_and_writes_nothing(hook_repo, scratch: Path) -> None:  # noqa: ANN001
    commit(scratch, {"launch.sh": BAD})
    result = run_hook(hook_repo, scratch, "autofix-check")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "SGL001" in result.stdout
    assert (scratch / "launch.sh").read_bytes() == BAD.encode()


def test_check_hook_passes_on_a_clean_repository(hook_repo, scratch: Path) -> None:  # noqa: ANN001
    commit(scratch, {"launch.sh": CLEAN})
    result = run_hook(hook_repo, scratch, "autofix-check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_hooks_honour_the_configured_exclude(hook_repo, scratch: Path) -> None:  # noqa: ANN001
    """pre-commit names every file; the hooks pass --force-exclude so `exclude` still holds."""
    commit(scratch, {"vendor/launch.sh": BAD, "pyproject.toml": '[tool.autofix]\nextend-exclude = ["vendor/"]\n'})
    result = run_hook(hook_repo, scratch, "autofix-check")
    assert result.returncode == 0, result.stdout + result.stderr


# -- which files the hooks hand to autofix -------------------------------------------------------------


def _hooks() -> list[dict]:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())


def _selected(hook: dict, path: Path, rel: str) -> bool:
    """pre-commit's filter: `files` matches, `exclude` does not, and identify's tags satisfy types/types_or."""
    from identify.identify import tags_from_path

    if not re.search(hook.get("files", ""), rel) or re.search(hook.get("exclude", "^$"), rel):
        return False
    tags = tags_from_path(str(path))
    return set(hook.get("types", ["file"])) <= tags and (
        not hook.get("types_or") or bool(set(hook["types_or"]) & tags)
    )


def test_hooks_select_every_file_autofix_reads(tmp_path: Path) -> None:
    """Every file a walk of autofix reads, in every format, reaches both hooks."""
    _require_pre_commit()
    from autofix.files import walk

    extra = {
        "serve.mdx": "```sh\n" + CLEAN + "```\n",
        "gpu.dockerfile": "FROM lmsysorg/sglang:v0.5.22\n",
        "Containerfile.gpu": "FROM lmsysorg/sglang:v0.5.22\n",
        "DOCS.MD": "# x\n",
        "run-server": "#!/bin/bash\n" + CLEAN,  # a script without the executable bit
        "serve-py": "#!/usr/bin/env python3\nimport sglang\n",
    }
    for name, text in extra.items():
        (tmp_path / name).write_text(text)
    read = [c.path for c in walk([ROOT / "fixtures", tmp_path]) if c.spec is not None]
    assert len({p.suffix for p in read}) >= 6
    for hook in _hooks():
        missed = [
            p for p in read
            if not _selected(hook, p, p.relative_to(tmp_path if p.is_relative_to(tmp_path) else ROOT).as_posix())
        ]
        assert not missed, (hook["id"], missed[:5])


def test_hooks_leave_out_files_autofix_does_not_read(tmp_path: Path) -> None:
    _require_pre_commit()
    for name in ("notes.txt", "data.json", "image.png", "setup.cfg"):
        (tmp_path / name).write_bytes(b"\x89PNG\x00" if name.endswith(".png") else b"sglang\n")
    for hook in _hooks():
        assert not [n for n in ("notes.txt", "data.json", "image.png", "setup.cfg")
                    if _selected(hook, tmp_path / n, n)], hook["id"]
