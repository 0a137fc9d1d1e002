"""Configuration for a monorepo: the closest configuration to each file, extend-exclude, --config,
--show-settings, --force-exclude, and errors that name the key and the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.config import ConfigError, Resolver, find_config, load_config

BAD = (
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
    "--attention-backend tokenspeed_mla\n"
)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str, stdin: str | None = None):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def flagged(result) -> set[str]:  # noqa: ANN001
    """The files with findings in a text report."""
    return {line.split(":", 1)[0] for line in result.stdout.splitlines() if ": SGL" in line}


# -- which configuration a file gets -----------------------------------------------------------


def test_the_closest_configuration_wins_whole(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nignore = ["SGL001"]\n')
    write(tree / "packages/a/.autofix.toml", 'select = ["SGL001"]\n')
    for folder in ("", "packages/a/", "packages/a/deep/", "packages/b/"):
        write(tree / f"{folder}launch.sh", BAD)
    result = invoke(".")
    # The root's ignore does not reach packages/a: its own configuration replaces it.
    assert flagged(result) == {"packages/a/launch.sh", "packages/a/deep/launch.sh"}
    assert result.exit_code == 1


def test_a_pyproject_without_autofix_settings_is_passed_over(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nignore = ["SGL001"]\n')
    write(tree / "packages/b/pyproject.toml", '[project]\nname = "b"\n')
    write(tree / "packages/b/launch.sh", BAD)
    assert invoke(".").exit_code == 0
    assert find_config(tree / "packages/b") == tree / "pyproject.toml"


def test_autofix_toml_wins_over_pyproject_in_one_folder(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nignore = ["SGL001"]\n')
    write(tree / ".autofix.toml", "ignore = []\n")
    write(tree / "launch.sh", BAD)
    assert find_config(tree) == tree / ".autofix.toml"
    assert invoke("launch.sh").exit_code == 1


def test_sglang_version_is_resolved_per_file(tree: Path) -> None:
    write(tree / "old/.autofix.toml", 'sglang-version = "0.5.23"\n')
    write(tree / "old/launch.sh", BAD)
    write(tree / "new/launch.sh", BAD)
    assert flagged(invoke(".")) == {"new/launch.sh"}
    # --sglang-version overrides every configuration.
    assert flagged(invoke("--sglang-version", "0.5.18", ".")) == {"new/launch.sh", "old/launch.sh"}


def test_per_file_ignores_are_relative_to_their_configuration(tree: Path) -> None:
    write(tree / "packages/a/.autofix.toml", 'per-file-ignores = { "legacy/*.sh" = ["SGL001"] }\n')
    write(tree / "packages/a/legacy/launch.sh", BAD)
    write(tree / "legacy/launch.sh", BAD)
    assert flagged(invoke(".")) == {"legacy/launch.sh"}


def test_command_line_selection_applies_on_top_of_each_configuration(tree: Path) -> None:
    write(tree / "a/.autofix.toml", 'ignore = ["SGL001"]\n')
    write(tree / "a/launch.sh", BAD)
    write(tree / "b/launch.sh", BAD)
    # --ignore adds to each file's ignore; --select replaces each file's select.
    assert flagged(invoke("--ignore", "SGL001", ".")) == set()
    write(tree / "b/.autofix.toml", 'select = ["SGL002"]\n')
    assert flagged(invoke(".")) == set()
    assert flagged(invoke("--select", "SGL001", ".")) == {"b/launch.sh"}


def test_stdin_uses_the_configuration_of_stdin_filename(tree: Path) -> None:
    write(tree / "quiet/.autofix.toml", 'ignore = ["SGL001"]\n')
    assert invoke("--stdin-filename", "quiet/launch.sh", "-", stdin=BAD).exit_code == 0
    assert invoke("--stdin-filename", "loud/launch.sh", "-", stdin=BAD).exit_code == 1


def test_gpu_is_resolved_per_file(tree: Path) -> None:
    # trtllm_mla needs a Blackwell GPU (SGL200): each package names its own.
    launch = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
              "--attention-backend trtllm_mla --kv-cache-dtype fp8_e4m3\n")
    write(tree / "hopper/.autofix.toml", 'gpu = "h100"\n')
    write(tree / "blackwell/.autofix.toml", 'gpu = "b200"\n')
    write(tree / "unknown/.autofix.toml", "")
    for folder in ("hopper", "blackwell", "unknown"):
        write(tree / folder / "launch.sh", launch)
    result = invoke(".")
    assert {line.split(":")[0] for line in result.stdout.splitlines() if "SGL200" in line} == {"hopper/launch.sh"}
    # --gpu wins over every configuration.
    result = invoke("--gpu", "h100", ".")
    assert {line.split(":")[0] for line in result.stdout.splitlines() if "SGL200" in line} == {
        "hopper/launch.sh", "blackwell/launch.sh", "unknown/launch.sh"}
    write(tree / "unknown/.autofix.toml", 'gpu = "h1000"\n')
    result = invoke(".")
    assert result.exit_code == 2
    assert f"{tree / 'unknown/.autofix.toml'}: `gpu`: unknown GPU 'h1000'" in result.stderr


TRTLLM_MLA = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
              "--attention-backend trtllm_mla --kv-cache-dtype fp8_e4m3\n")


def sgl200(result) -> set[str]:  # noqa: ANN001
    return {line.split(":")[0] for line in result.stdout.splitlines() if "SGL200" in line}


def test_per_file_gpu_names_the_gpu_of_files_and_folders(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\ngpu = "b200"\n\n[tool.autofix.per-file-gpu]\n'
          '"deploy/hopper/**" = "h100"\n"deploy/hopper/b200-*.sh" = "b200"\n"legacy.sh" = "a100"\n')
    for name in ("deploy/hopper/serve.sh", "deploy/hopper/b200-serve.sh", "deploy/blackwell/serve.sh",
                 "legacy.sh", "other.sh"):
        write(tree / name, TRTLLM_MLA)
    # The last matching pattern wins; files it does not match get `gpu`.
    assert sgl200(invoke(".")) == {"deploy/hopper/serve.sh", "legacy.sh"}
    # --gpu wins over every file's entry.
    assert sgl200(invoke("--gpu", "b200", ".")) == set()
    shown = json.loads(invoke("--show-settings", "--format", "json", "deploy/hopper/serve.sh", "other.sh").stdout)
    assert [s["gpu"] for s in shown] == ["h100", "b200"]
    assert shown[0]["settings"]["per-file-gpu"]["legacy.sh"] == "a100"


def test_per_file_gpu_wins_over_the_gpu_a_file_names(tree: Path) -> None:
    write(tree / ".autofix.toml", '[per-file-gpu]\n"sky/*.yaml" = "b200"\n')
    sky = "resources:\n  accelerators: H100:8\nrun: |\n  " + TRTLLM_MLA
    write(tree / "sky/serve.yaml", sky)
    write(tree / "other/serve.yaml", sky)
    assert sgl200(invoke(".")) == {"other/serve.yaml"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[per-file-gpu]\n"*.sh" = "h1000"\n', "`per-file-gpu` '*.sh': unknown GPU 'h1000'"),
        ('per-file-gpu = ["h100"]\n', "`per-file-gpu` must be a table of GPU names"),
        ('[per-file-gpu]\n"*.sh" = 8\n', "`per-file-gpu` must be a table of GPU names"),
    ],
    ids=["unknown-gpu", "not-a-table", "not-a-name"],
)
def test_per_file_gpu_errors_name_the_file(tree: Path, text: str, message: str) -> None:
    write(tree / ".autofix.toml", text)
    write(tree / "launch.sh", TRTLLM_MLA)
    result = invoke(".")
    assert result.exit_code == 2
    assert f"{tree / '.autofix.toml'}: {message}" in result.stderr


# -- exclude and extend-exclude --------------------------------------------------------------------


def test_extend_exclude_keeps_the_default_excludes(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nextend-exclude = ["generated/"]\n')
    write(tree / "generated/launch.sh", BAD)
    write(tree / "node_modules/pkg/launch.sh", BAD)
    write(tree / "src/launch.sh", BAD)
    assert flagged(invoke(".")) == {"src/launch.sh"}


def test_exclude_replaces_the_default_excludes(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nexclude = ["generated/"]\n')
    write(tree / "generated/launch.sh", BAD)
    write(tree / "node_modules/pkg/launch.sh", BAD)
    assert flagged(invoke(".")) == {"node_modules/pkg/launch.sh"}


def test_exclude_patterns_are_relative_to_their_configuration(tree: Path) -> None:
    write(tree / "packages/a/.autofix.toml", 'extend-exclude = ["/gen/"]\n')
    write(tree / "packages/a/gen/launch.sh", BAD)
    write(tree / "packages/a/src/gen/launch.sh", BAD)
    write(tree / "gen/launch.sh", BAD)
    assert flagged(invoke(".")) == {"gen/launch.sh", "packages/a/src/gen/launch.sh"}
    # Run from inside the package, the same patterns hold.
    assert flagged(invoke("packages")) == {"packages/a/src/gen/launch.sh"}


def test_explicit_files_are_checked_unless_force_exclude(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nextend-exclude = ["vendor/", "*.generated.sh"]\n')
    write(tree / "vendor/sub/launch.sh", BAD)
    write(tree / "x.generated.sh", BAD)
    assert invoke("vendor/sub/launch.sh").exit_code == 1
    assert invoke("--force-exclude", "vendor/sub/launch.sh", "x.generated.sh").exit_code == 0
    assert invoke("--force-exclude", str(tree / "vendor/sub/launch.sh")).exit_code == 0
    # Default excludes too: pre-commit may name a file inside a virtualenv folder.
    write(tree / "pkg/.venv/launch.sh", BAD)
    write(tree / "pkg/.autofix.toml", "")
    assert invoke("--force-exclude", "pkg/.venv/launch.sh").exit_code == 0


# -- --config ------------------------------------------------------------------------------------------


def test_config_option_forces_one_configuration(tree: Path) -> None:
    write(tree / "ci/autofix.toml", 'ignore = ["SGL001"]\n')
    write(tree / "packages/a/.autofix.toml", 'select = ["SGL001"]\n')
    write(tree / "packages/a/launch.sh", BAD)
    write(tree / "launch.sh", BAD)
    assert flagged(invoke(".")) == {"packages/a/launch.sh", "launch.sh"}
    assert invoke("--config", "ci/autofix.toml", ".").exit_code == 0


def test_config_option_patterns_are_relative_to_the_working_directory(tree: Path) -> None:
    write(tree / "ci/autofix.toml", 'extend-exclude = ["/vendor/"]\n')
    write(tree / "vendor/launch.sh", BAD)
    write(tree / "src/vendor/launch.sh", BAD)
    assert flagged(invoke("--config", "ci/autofix.toml", ".")) == {"src/vendor/launch.sh"}


def test_config_option_reads_a_pyproject(tree: Path) -> None:
    write(tree / "other/pyproject.toml", '[tool.autofix]\nignore = ["SGL001"]\n')
    write(tree / "launch.sh", BAD)
    assert invoke("--config", "other/pyproject.toml", "launch.sh").exit_code == 0


def test_config_option_is_not_sglangs_config_flag(tree: Path) -> None:
    """A launch's own `--config serve.yaml` is still SGLang's; autofix's --config names a TOML file."""
    write(tree / "serve.yaml", "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\n")
    write(tree / "serve.sh", "python3 -m sglang.launch_server --config serve.yaml\n")
    result = invoke("--config", "serve.yaml", "serve.sh")
    assert result.exit_code == 2
    assert "serve.yaml" in result.stderr


def test_config_option_with_a_missing_file_is_an_error(tree: Path) -> None:
    result = invoke("--config", "nope.toml", ".")
    assert result.exit_code == 2
    assert "nope.toml" in result.stderr


# -- --show-settings ---------------------------------------------------------------------------------------


def test_show_settings_prints_what_a_file_is_checked_with(tree: Path) -> None:
    write(tree / "pyproject.toml", '[tool.autofix]\nselect = ["SGL001", "SGL002"]\nsglang-version = "0.5.19"\n'
          'per-file-ignores = { "legacy/*.sh" = ["SGL002"] }\n')
    write(tree / "legacy/launch.sh", BAD)
    result = invoke("--show-settings", "legacy/launch.sh")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "# legacy/launch.sh"
    assert f'config = "{tree / "pyproject.toml"}"' in lines
    assert 'fixers = ["SGL001"]' in lines
    assert 'release = "0.5.19"' in lines
    assert 'select = ["SGL001", "SGL002"]' in lines
    shown = json.loads(invoke("--show-settings", "--format", "json", "legacy/launch.sh", "other.sh").stdout)
    assert [s["fixers"] for s in shown] == [["SGL001"], ["SGL001", "SGL002"]]
    assert shown[1]["excluded"] is False


def test_show_settings_names_the_closest_configuration(tree: Path) -> None:
    write(tree / "pyproject.toml", "[tool.autofix]\n")
    write(tree / "packages/a/.autofix.toml", 'extend-exclude = ["gen/"]\nextend-select = ["AF100"]\n')
    shown = json.loads(invoke("--show-settings", "--format", "json", "packages/a/gen/x.sh", "x.sh").stdout)
    assert shown[0]["config"] == str(tree / "packages/a/.autofix.toml")
    assert shown[0]["excluded"] is True
    assert shown[0]["fixers"][-1] == "AF100"
    assert shown[1]["config"] == str(tree / "pyproject.toml")
    assert "AF100" not in shown[1]["fixers"]
    assert shown[1]["settings"]["exclude"][0] == ".git"


# -- errors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("pyproject.toml", '[tool.autofix]\nignor = ["SGL001"]\n', "[tool.autofix]"),
        (".autofix.toml", 'ignor = ["SGL001"]\n', "the configuration"),
    ],
    ids=["pyproject", "autofix-toml"],
)
def test_unknown_key_names_the_key_and_the_file(tree: Path, name: str, text: str, where: str) -> None:
    write(tree / name, text)
    write(tree / "launch.sh", BAD)
    result = invoke("launch.sh")
    assert result.exit_code == 2
    assert f"{tree / name}: unknown key `ignor` in {where}" in result.stderr


def test_a_broken_nested_configuration_is_named_when_reached(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    write(tree / "packages/a/.autofix.toml", 'select = ["SGL001"]\nsglang_version = "0.5.19"\n')
    write(tree / "packages/a/launch.sh", BAD)
    result = invoke(".")
    assert result.exit_code == 2
    assert f"{tree / 'packages/a/.autofix.toml'}: unknown key `sglang_version`" in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('select = ["SGL999"]\n', "`select`: unknown fixer code or name: SGL999"),
        ('per-file-ignores = { "*.sh" = ["nope"] }\n', "`per-file-ignores`: unknown fixer code or name: nope"),
        ('sglang-version = "latest"\n', "`sglang-version`: not a release: latest"),
        ("select = 1\n", "`select` must be a list of strings"),
        ("unsafe-fixes = 1\n", "`unsafe-fixes` must be true or false"),
        ("select = [\n", "autofix.toml: "),
    ],
    ids=["unknown-code", "unknown-code-per-file", "bad-release", "not-a-list", "not-a-bool", "bad-toml"],
)
def test_bad_values_name_the_file(tree: Path, text: str, message: str) -> None:
    write(tree / ".autofix.toml", text)
    write(tree / "launch.sh", BAD)
    result = invoke("launch.sh")
    assert result.exit_code == 2
    assert message in result.stderr
    assert str(tree / ".autofix.toml") in result.stderr


def test_load_config_and_resolver(tmp_path: Path) -> None:
    write(tmp_path / "a/.autofix.toml", 'extend-select = ["AF100"]\nexclude = []\n')
    config = load_config(tmp_path / "a/.autofix.toml")
    assert config.extend_select == ("AF100",)
    assert config.exclude == ()
    assert not config.excludes(tmp_path / "a/.git", True)  # exclude = [] drops the defaults
    resolver = Resolver()
    assert resolver.for_path(tmp_path / "a/b/c.sh").path == tmp_path / "a/.autofix.toml"
    assert resolver.effective(tmp_path / "a/x.sh").unused_suppressions
    write(tmp_path / "bad/.autofix.toml", "nope = 1\n")
    with pytest.raises(ConfigError, match="unknown key `nope`"):
        resolver.for_path(tmp_path / "bad/x.sh")


def test_a_broken_configuration_elsewhere_under_the_working_directory_is_no_concern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Finding the scripts that read a config file walks the working directory too;
    # a broken configuration in an unrelated folder there must not stop the run.
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / ".autofix.toml").write_text("sglang_version = '0.5.18'\n")
    (tmp_path / "elsewhere" / "run.sh").write_text("python -m sglang.launch_server --config conf.yaml\n")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "serve.yaml").write_text("model-path: Qwen/Qwen3-8B\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["work/serve.yaml"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
