"""The result cache: a second run over an unchanged tree parses nothing and says the same; what a launch
reads besides its file invalidates it; --no-cache, a corrupt entry and concurrent runs.

Nothing here is timed (benchmarks/ measures). The rest of the suite runs with the cache off
(tests/conftest.py sets AUTOFIX_NO_CACHE); these tests turn it on, each in a folder of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix import rule_index
from autofix.cli import main
from autofix.formats import shell, yaml
from autofix.resultcache import SCHEMA

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "tests" / "data" / "model-configs"

BAD = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
CLEAN = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8\n"
K8S = """\
containers:
  - name: sglang
    args: ["python", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3",
           "--attention-backend", "tokenspeed_mla"]
"""


@pytest.fixture
def cache_on(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.delenv("AUTOFIX_NO_CACHE", raising=False)
    monkeypatch.delenv("AUTOFIX_CACHE_DIR", raising=False)
    yield
    rule_index.use_cache(None)  # the next test's direct calls find facts afresh, as without a run


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the shell and YAML readers are asked to find launches in, in order."""
    texts: list[str] = []
    for module in (shell, yaml):
        original = module.find_launches

        def counting(source, *args, _original=original, **kwargs):  # noqa: ANN001, ANN202
            texts.append(source.text)
            return _original(source, *args, **kwargs)

        monkeypatch.setattr(module, "find_launches", counting)
    return texts


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "deploy").mkdir(parents=True)
    (root / "bad.sh").write_text(BAD)
    (root / "clean.sh").write_text(CLEAN)
    (root / "deploy" / "k8s.yaml").write_text(K8S)
    (root / "notes.sh").write_text("echo no launch here\n")
    monkeypatch.chdir(root)
    return root


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--jobs", "1", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/results/*/*.json"))


def test_a_second_run_over_an_unchanged_tree_parses_nothing(cache_on, tree: Path, parsed: list[str],
                                                            tmp_path: Path) -> None:  # noqa: ANN001
    cache = tmp_path / "cache"
    first = run("--cache-dir", str(cache), "--format", "json", ".")
    assert len(parsed) >= 3 and first[0] == 1
    assert len(entries(cache)) == 3  # bad.sh, clean.sh, deploy/k8s.yaml; notes.sh never reaches a parser
    parsed.clear()
    second = run("--cache-dir", str(cache), "--format", "json", ".")
    assert parsed == []
    assert second == first
    codes = sorted((f["path"], f["code"]) for f in json.loads(second[1]))
    assert codes == [("bad.sh", "SGL001"), ("deploy/k8s.yaml", "SGL001")]
    # The text report, its source lines and its fix titles, comes from the cache just the same.
    text = run("--cache-dir", str(cache), ".")
    assert parsed == [] and "Set `--kv-cache-dtype fp8_e4m3`" in text[1] and BAD.strip() in text[1]


def test_a_new_cache_folder_says_it_is_one(cache_on, tree: Path, tmp_path: Path) -> None:  # noqa: ANN001
    run(".")  # the default: .autofix_cache in the project root (the working directory, without configuration)
    made = tree / ".autofix_cache"
    assert (made / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (made / ".gitignore").read_text().splitlines()[-1] == "*"
    assert entries(made) and list(made.glob("*/rules.json"))
    # The walk skips it, and a configuration's cache-dir moves it (relative to the configuration's folder).
    (tree / ".autofix.toml").write_text('cache-dir = "build/af-cache"\n')
    run(".")
    assert entries(tree / "build" / "af-cache")


def test_a_changed_config_file_invalidates_the_launch_that_reads_it(cache_on, tree: Path, parsed: list[str],
                                                                   tmp_path: Path) -> None:  # noqa: ANN001
    cache = str(tmp_path / "cache")
    (tree / "serve.sh").write_text("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
                                   "--config serve.yaml\n")
    (tree / "serve.yaml").write_text("attention-backend: tokenspeed_mla\n")
    code, out = run("--cache-dir", cache, "serve.sh")
    assert code == 1 and "serve.yaml:1:1: SGL001" in out
    parsed.clear()
    assert run("--cache-dir", cache, "serve.sh") == (code, out) and parsed == []
    (tree / "serve.yaml").write_text("attention-backend: tokenspeed_mla\nkv-cache-dtype: fp8_e4m3\n")
    assert run("--cache-dir", cache, "serve.sh") == (0, "")
    assert any("--config serve.yaml" in text for text in parsed)  # serve.sh itself unchanged, parsed again
    parsed.clear()
    (tree / "serve.yaml").unlink()  # a file it read that is gone
    assert run("--cache-dir", cache, "serve.sh") == run("--no-cache", "serve.sh")
    assert parsed[0] == parsed[1]  # checked again, as --no-cache checks it


def test_a_changed_model_config_invalidates_the_launch_that_reads_it(cache_on, tree: Path, parsed: list[str],
                                                                    tmp_path: Path) -> None:  # noqa: ANN001
    cache = str(tmp_path / "cache")
    model = tree / "models" / "local"
    model.mkdir(parents=True)
    shutil.copy(CONFIGS / "Qwen--Qwen3-8B" / "config.json", model / "config.json")
    (tree / "local.sh").write_text("python -m sglang.launch_server --model-path ./models/local "
                                   "--attention-backend tokenspeed_mla\n")
    assert "SGL002" in run("--cache-dir", cache, "local.sh")[1]  # a Qwen3 checkpoint is not MLA
    parsed.clear()
    assert "SGL002" in run("--cache-dir", cache, "local.sh")[1] and parsed == []
    shutil.copy(CONFIGS / "deepseek-ai--DeepSeek-V3" / "config.json", model / "config.json")
    out = run("--cache-dir", cache, "local.sh")[1]
    assert parsed and "SGL001" in out and "SGL002" not in out


def test_no_cache_reads_and_writes_none(cache_on, tree: Path, parsed: list[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    cache = tmp_path / "cache"
    first = run("--cache-dir", str(cache), ".")
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    parsed.clear()
    assert run("--no-cache", "--cache-dir", str(cache), ".") == first
    assert len(parsed) >= 3
    assert {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()} == before
    parsed.clear()
    monkeypatch.setenv("AUTOFIX_NO_CACHE", "1")
    assert run("--cache-dir", str(cache), ".") == first and len(parsed) >= 3
    assert not (tree / ".autofix_cache").exists()


def test_a_corrupt_entry_is_a_miss(cache_on, tree: Path, parsed: list[str], tmp_path: Path) -> None:  # noqa: ANN001
    cache = tmp_path / "cache"
    first = run("--cache-dir", str(cache), ".")
    kept = entries(cache)
    held = json.dumps(SCHEMA).encode()
    for path, junk in zip(kept, (b"", b'{"schema": ' + held + b', "deps"', b'{"schema": ' + held + b', "deps": 3}')):
        path.write_bytes(junk)  # empty, cut short, of another shape
    [facts] = cache.glob("*/rules.json")
    facts.write_bytes(b"\x00\xff not json")
    parsed.clear()
    assert run("--cache-dir", str(cache), ".") == first
    assert len(parsed) == 3  # each corrupt entry checked again, and written whole
    assert all(json.loads(p.read_bytes())["schema"] == SCHEMA for p in entries(cache))
    assert json.loads(facts.read_bytes())["rules"]
    parsed.clear()
    assert run("--cache-dir", str(cache), ".") == first and parsed == []


def test_fix_uses_an_entry_only_when_it_leaves_nothing_to_fix(cache_on, tree: Path, parsed: list[str],
                                                              tmp_path: Path) -> None:  # noqa: ANN001
    cache = str(tmp_path / "cache")
    run("--cache-dir", cache, ".")
    parsed.clear()
    code, _ = run("--cache-dir", cache, "--fix", ".")
    assert code == 0
    assert (tree / "bad.sh").read_text() != BAD and (tree / "clean.sh").read_text() == CLEAN
    assert CLEAN not in parsed  # a clean entry: nothing to fix, nothing parsed
    assert BAD in parsed and K8S in parsed  # entries with fixes to apply: checked and fixed
    parsed.clear()
    assert run("--cache-dir", cache, "--diff", ".") == (0, "")
    assert CLEAN not in parsed


def test_concurrent_runs_share_one_cache(cache_on, tree: Path, tmp_path: Path) -> None:  # noqa: ANN001
    cache = tmp_path / "cache"
    for i in range(40):
        (tree / f"launch-{i}.sh").write_text(BAD.replace("tokenspeed_mla", "tokenspeed_mla --tp %d" % (i % 8 + 1)))
    env = {k: v for k, v in os.environ.items() if k != "AUTOFIX_NO_CACHE"}
    command = [sys.executable, "-m", "autofix", "--cache-dir", str(cache), "--format", "json", "--jobs", "1", "."]
    runs = [subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in runs]
    assert [p.returncode for p in runs] == [1, 1], outputs[0][1]
    assert outputs[0][0] == outputs[1][0]
    assert len(json.loads(outputs[0][0])) == 42
    kept = entries(cache)
    assert len(kept) == 43 and all(json.loads(p.read_bytes())["schema"] == SCHEMA for p in kept)
    assert not list(cache.rglob(".tmp-*"))  # no temporary file left behind
    written = {p: p.stat().st_mtime_ns for p in kept}
    again = subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False, timeout=300)
    assert again.stdout == outputs[0][0]
    assert {p: p.stat().st_mtime_ns for p in entries(cache)} == written  # every file a hit: nothing written


def test_where_the_cache_folder_is(cache_on, tree: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """--cache-dir, else AUTOFIX_CACHE_DIR, else the configuration's cache-dir, else the project root's."""
    (tree / "pyproject.toml").write_text('[tool.autofix]\ncache-dir = "../elsewhere"\n')
    (tree / "deploy" / "sub").mkdir()
    monkeypatch.chdir(tree / "deploy" / "sub")  # the configuration that applies here is the project's
    run(str(tree / "bad.sh"))
    assert entries(tmp_path / "elsewhere") and not (tree / "deploy" / "sub" / ".autofix_cache").exists()
    monkeypatch.setenv("AUTOFIX_CACHE_DIR", str(tmp_path / "from-env"))
    run(str(tree / "bad.sh"))
    assert entries(tmp_path / "from-env")
    run("--cache-dir", str(tmp_path / "given"), str(tree / "bad.sh"))
    assert entries(tmp_path / "given")
    monkeypatch.delenv("AUTOFIX_CACHE_DIR")
    (tree / "pyproject.toml").write_text("[tool.autofix]\nselect = [\"SGL\"]\n")
    run(str(tree / "bad.sh"))
    assert entries(tree / ".autofix_cache")  # beside the project's pyproject.toml, not in the working directory
    (tree / "pyproject.toml").write_text("[tool.autofix]\ncache-dir = 3\n")
    result = CliRunner().invoke(main, [str(tree / "bad.sh")])
    assert result.exit_code == 2 and "`cache-dir` must be a folder's path" in result.output


@pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes are forked")
def test_workers_fill_the_cache_and_a_run_of_hits_keeps_the_order(cache_on, tree: Path,
                                                                  tmp_path: Path) -> None:  # noqa: ANN001
    """Files the cache holds are answered by the run itself, the others by workers: the output is the
    same, in the walk's order, however they mix."""
    cache = str(tmp_path / "cache")
    for i in range(40):
        (tree / f"launch-{i:02}.sh").write_text(CLEAN if i % 3 else BAD)
    expected = CliRunner().invoke(main, ["--no-cache", "--jobs", "1", "--format", "json", "."]).stdout
    assert len(json.loads(expected)) == 16

    def two_workers() -> str:
        return CliRunner().invoke(main, ["--cache-dir", cache, "--jobs", "2", "--format", "json", "."]).stdout

    assert two_workers() == expected  # every file in a worker, which writes its entry
    assert len(entries(Path(cache))) == 43
    assert two_workers() == expected  # every file a hit
    for i in range(0, 40, 4):
        (tree / f"launch-{i:02}.sh").write_text(BAD if i % 3 else CLEAN)  # some misses among the hits
    expected = CliRunner().invoke(main, ["--no-cache", "--jobs", "1", "--format", "json", "."]).stdout
    assert two_workers() == expected
