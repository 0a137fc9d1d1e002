"""The command line, in-process: exit codes, stdout/stderr, file bytes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.fixer import all_fixers

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
DISPLAY_ONLY = (
    "KV=bf16\n"
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
    '--attention-backend tokenspeed_mla --kv-cache-dtype "$KV"\n'
)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str, stdin: str | None = None):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def write(path: Path, text: str, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode())
    return path


# -- modes -------------------------------------------------------------------------


def test_check_reports_and_writes_nothing(tree: Path) -> None:
    script = write(tree / "launch.sh", BAD)
    result = invoke("launch.sh")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first == (
        "launch.sh:4:5: SGL001 [tokenspeed-mla-without-fp8-kv-cache] "
        "`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto`"
    )
    assert "fix: Set `--kv-cache-dtype fp8_e4m3`" in result.stdout
    assert script.read_text() == BAD


def test_clean_file_exits_zero_silently(tree: Path) -> None:
    write(tree / "launch.sh", CLEAN)
    result = invoke("launch.sh")
    assert result.exit_code == 0
    assert result.stdout == ""


def test_diff_prints_only_the_patch(tree: Path) -> None:
    script = write(tree / "launch.sh", BAD)
    result = invoke("--diff", "launch.sh")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/launch.sh\n+++ b/launch.sh\n@@ -2,4 +2,5 @@\n"
        " python3 -m sglang.launch_server \\\n"
        "     --model-path deepseek-ai/DeepSeek-V3 \\\n"
        "     --attention-backend tokenspeed_mla \\\n"
        "+    --kv-cache-dtype fp8_e4m3 \\\n"
        "     --port 30000\n"
    )
    assert "1 fixable finding" in result.stderr
    assert script.read_text() == BAD


def test_diff_exit_code_ignores_findings_without_fix(tree: Path) -> None:
    write(tree / "launch.sh", DISPLAY_ONLY)
    result = invoke("--diff", "launch.sh")
    assert result.exit_code == 0
    assert result.stdout == ""


def test_fix_rewrites_in_place_and_converges(tree: Path) -> None:
    script = write(tree / "launch.sh", BAD)
    script.chmod(0o750)
    result = invoke("--fix", "launch.sh")
    assert result.exit_code == 0, result.output
    assert script.read_text() == FIXED
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert "Fixed 1 finding(s) in 1 file(s); 0 remaining." in result.stderr
    again = invoke("--fix", "launch.sh")
    assert again.exit_code == 0
    assert script.read_text() == FIXED
    assert [p.name for p in tree.iterdir()] == ["launch.sh"], "a temporary file was left behind"


def test_fix_keeps_crlf(tree: Path) -> None:
    script = write(tree / "launch.sh", BAD, newline="\r\n")
    assert invoke("--fix", "launch.sh").exit_code == 0
    assert script.read_bytes() == FIXED.replace("\n", "\r\n").encode()


def test_fix_exit_one_when_findings_remain(tree: Path) -> None:
    script = write(tree / "launch.sh", DISPLAY_ONLY)
    result = invoke("--fix", "launch.sh")
    assert result.exit_code == 1
    assert script.read_text() == DISPLAY_ONLY
    assert "suggestion: Set `--kv-cache-dtype fp8_e4m3`" in result.stdout


def test_diff_and_fix_are_exclusive(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    assert invoke("--diff", "--fix", "launch.sh").exit_code == 2


# -- output ------------------------------------------------------------------------


def test_json_findings(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    result = invoke("--format", "json", "launch.sh")
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)
    assert finding["record"] == "50f82a4b5a705b9a"
    assert finding["code"] == "SGL001"
    assert finding["name"] == "tokenspeed-mla-without-fp8-kv-cache"
    assert (finding["line"], finding["column"], finding["end_line"], finding["end_column"]) == (4, 5, 4, 39)
    assert finding["fix"]["applicability"] == "safe"
    assert finding["fix"]["edits"] == [
        {"start": {"line": 5, "column": 1}, "end": {"line": 5, "column": 1},
         "content": "    --kv-cache-dtype fp8_e4m3 \\\n"}
    ]
    assert finding["fixed"] is False


def test_json_with_fix_marks_fixed(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    result = invoke("--fix", "--format", "json", "launch.sh")
    assert result.exit_code == 0
    (finding,) = json.loads(result.stdout)
    assert finding["fixed"] is True


def test_list_and_explain() -> None:
    table = invoke("--list")
    assert table.exit_code == 0
    for code in ("SGL001", "SGL002", "SGL003"):
        assert code in table.stdout
    listed = json.loads(invoke("--list", "--format", "json").stdout)
    assert {f["record"] for f in listed} >= {"50f82a4b5a705b9a", "1f2bd480c921bf78", "2311bd20282a9819"}
    # Every fixer, opt-in and GPU ones too, with what it needs and where its record holds.
    assert [f["code"] for f in listed] == [fx.code for fx in all_fixers()]
    for entry, fx in zip(listed, all_fixers()):
        assert (entry["name"], entry["record"], entry["releases"], entry["default"], entry["gpu"]) == (
            fx.name, fx.record, list(fx.releases), fx.default, fx.gpu)
    assert len(listed) >= 23
    assert {f["code"] for f in json.loads(invoke("--list", "--select", "SGL0", "--format", "json").stdout)} == {
        fx.code for fx in all_fixers() if fx.code.startswith("SGL0")}
    explained = invoke("--explain", "tokenspeed-mla-on-non-mla-model")
    assert explained.exit_code == 0
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert heading in explained.stdout
    assert '"id": "1f2bd480c921bf78"' in explained.stdout
    assert invoke("--explain", "SGL999").exit_code == 2


# -- selection and configuration --------------------------------------------------------


@pytest.mark.parametrize("flag", ["--ignore=SGL001", "--ignore=tokenspeed-mla-without-fp8-kv-cache", "--select=SGL002,SGL003"])
def test_selection_turns_a_fixer_off(tree: Path, flag: str) -> None:
    write(tree / "launch.sh", BAD)
    assert invoke(flag, "launch.sh").exit_code == 0


def test_unknown_code_is_a_usage_error(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    result = invoke("--select", "SGL0999", "launch.sh")  # no fixer's code starts so
    assert result.exit_code == 2
    assert "SGL0999" in result.stderr


def test_pyproject_configuration(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    write(tree / "pyproject.toml", '[tool.autofix]\nignore = ["SGL001"]\n')
    assert invoke("launch.sh").exit_code == 1 - 1
    write(tree / "pyproject.toml", '[tool.autofix]\nper-file-ignores = { "launch.sh" = ["SGL001"] }\n')
    assert invoke("launch.sh").exit_code == 0
    write(tree / "pyproject.toml", '[tool.autofix]\nsglang-version = "0.5.23"\n')
    assert invoke("launch.sh").exit_code == 0
    write(tree / "pyproject.toml", '[tool.autofix]\nexclude = ["launch.sh"]\n')
    assert invoke(".").exit_code == 0
    write(tree / "pyproject.toml", '[tool.autofix]\nignor = ["SGL001"]\n')
    result = invoke("launch.sh")
    assert result.exit_code == 2
    assert "unknown key `ignor`" in result.stderr


def test_sglang_version_option(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    assert invoke("--sglang-version", "0.5.23", "launch.sh").exit_code == 0
    assert invoke("--sglang-version", "0.5.18", "launch.sh").exit_code == 1
    assert invoke("--sglang-version", "latest", "launch.sh").exit_code == 2


def test_release_pinned_beside_the_launch(tree: Path) -> None:
    write(tree / "deploy" / "launch.sh", BAD)
    write(tree / "deploy" / "requirements.txt", "sglang[all]==0.5.23\n")
    assert invoke("deploy/launch.sh").exit_code == 0
    write(tree / "deploy" / "requirements.txt", "sglang==0.5.19\n")
    assert invoke("deploy/launch.sh").exit_code == 1


def test_model_from_local_config_json(tree: Path) -> None:
    launch = "python3 -m sglang.launch_server --model-path ./weights/ft --attention-backend tokenspeed_mla\n"
    write(tree / "launch.sh", launch)
    write(tree / "weights" / "ft" / "config.json", json.dumps({"architectures": ["Qwen3ForCausalLM"]}))
    result = invoke("launch.sh")
    assert result.exit_code == 1
    assert "SGL002" in result.stdout and "SGL001" not in result.stdout


# -- files -------------------------------------------------------------------------


def test_folder_walk_skips_ignored_places(tree: Path) -> None:
    write(tree / "scripts" / "serve.sh", BAD)
    write(tree / "scripts" / "serve", BAD)  # a shebang, no suffix
    write(tree / ".git" / "hooks" / "x.sh", BAD)
    write(tree / "node_modules" / "pkg" / "x.sh", BAD)
    write(tree / "env" / "pyvenv.cfg", "home = /usr\n")
    write(tree / "env" / "bin" / "x.sh", BAD)
    write(tree / "build" / "x.sh", BAD)
    write(tree / ".gitignore", "build/\n")
    write(tree / "notes.txt", BAD)
    result = invoke("--format", "json")
    paths = sorted({f["path"] for f in json.loads(result.stdout)})
    assert paths == ["scripts/serve", "scripts/serve.sh"]


def test_unreadable_and_undecodable_files_do_not_stop_the_run(tree: Path) -> None:
    write(tree / "a.sh", BAD)
    latin = tree / "b.sh"
    latin.write_bytes(b"# caf\xe9\npython3 -m sglang.launch_server --model-path x\n")
    missing = "nowhere.sh"
    result = invoke("a.sh", "b.sh", missing)
    assert result.exit_code == 2
    assert "autofix: b.sh: cannot decode: not UTF-8" in result.stderr
    assert "autofix: nowhere.sh: no such file or folder" in result.stderr
    assert "a.sh:4:5: SGL001" in result.stdout


def test_stdin(tree: Path) -> None:
    result = invoke("--stdin-filename", "launch.sh", "-", stdin=BAD)
    assert result.exit_code == 1
    assert result.stdout.startswith("launch.sh:4:5: SGL001")
    fixed = invoke("--fix", "--stdin-filename", "launch.sh", "-", stdin=BAD)
    assert fixed.stdout == FIXED
    assert fixed.exit_code == 0
    remaining = invoke("--fix", "--stdin-filename", "launch.sh", "-", stdin=DISPLAY_ONLY)
    assert remaining.stdout == DISPLAY_ONLY, "findings must not be mixed into the fixed text"
    assert "SGL001" in remaining.stderr
    assert remaining.exit_code == 1
    unknown = invoke("-", stdin=BAD.replace("#!/bin/bash\n", ""))
    assert unknown.exit_code == 2


def test_checking_shell_imports_neither_libcst_nor_ruamel_nor_pathspec(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    code = (
        "import sys\n"
        "from autofix.cli import main\n"
        "try:\n    main(['launch.sh'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('libcst', 'ruamel', 'pathspec')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stderr


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("broken.py", "import sglang as sgl\nllm = sgl.Engine(model_path='x',\n", "line 2: '(' was never closed"),
        ("broken.yaml", "a: [1, 2\nkv-cache-dtype: x\n", "line 2:"),
    ],
)
def test_unparsable_file_is_named_with_line_and_reason(tree: Path, name: str, text: str, reason: str) -> None:
    path = write(tree / name, text)
    write(tree / "launch.sh", BAD)
    result = invoke(name, "launch.sh")
    assert result.exit_code == 2
    (line,) = [l for l in result.stderr.splitlines() if l.startswith(f"autofix: {name}: cannot parse: ")]
    assert reason in line
    assert path.read_text() == text
    assert "launch.sh:4:5: SGL001" in result.stdout


def test_fix_keeps_a_bom_and_a_missing_final_newline(tree: Path) -> None:
    script = tree / "launch.sh"
    script.write_bytes(b"\xef\xbb\xbf" + BAD.rstrip("\n").encode())
    assert invoke("--fix", "launch.sh").exit_code == 0
    assert script.read_bytes() == b"\xef\xbb\xbf" + FIXED.rstrip("\n").encode()


# -- ruff's reporting options ---------------------------------------------------------------

UNKNOWN_CHOICE = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend fa9\n"


def test_exit_zero_keeps_the_report_and_the_error_exit(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    result = invoke("--exit-zero", "launch.sh")
    assert result.exit_code == 0
    assert "launch.sh:4:5: SGL001" in result.stdout
    assert invoke("-e", "--diff", "launch.sh").exit_code == 0, "as ruff: --diff too"
    assert invoke("-e", "launch.sh", "nowhere.sh").exit_code == 2, "a file that cannot be read is still an error"
    assert invoke("--exit-zero", "--exit-non-zero-on-fix", "launch.sh").exit_code == 2


def test_exit_non_zero_on_fix(tree: Path) -> None:
    script = write(tree / "launch.sh", BAD)
    result = invoke("--fix", "--exit-non-zero-on-fix", "launch.sh")
    assert result.exit_code == 1
    assert script.read_text() == FIXED
    assert invoke("--fix", "--exit-non-zero-on-fix", "launch.sh").exit_code == 0, "nothing left to change"
    assert invoke("--fix", "launch.sh").exit_code == 0


def test_statistics_count_findings_per_code_with_fixable_counts(tree: Path) -> None:
    write(tree / "a.sh", BAD)
    write(tree / "b.sh", BAD)
    write(tree / "c.sh", UNKNOWN_CHOICE)
    write(tree / "d.sh", DISPLAY_ONLY)
    result = invoke("--statistics", ".")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "3  SGL001  2 fixable  tokenspeed-mla-without-fp8-kv-cache",
        "1  SGL100  0 fixable  invalid-choice",
    ]
    listed = json.loads(invoke("--statistics", "--format", "json", ".").stdout)
    assert listed == [
        {"code": "SGL001", "name": "tokenspeed-mla-without-fp8-kv-cache", "count": 3, "fixable": 2},
        {"code": "SGL100", "name": "invalid-choice", "count": 1, "fixable": 0},
    ]
    after = invoke("--fix", "--statistics", ".")  # what remains
    assert after.stdout.splitlines() == [
        "1  SGL001  0 fixable  tokenspeed-mla-without-fp8-kv-cache",
        "1  SGL100  0 fixable  invalid-choice",
    ]
    assert invoke("--statistics", "--diff", ".").exit_code == 2
    assert invoke("--statistics", "--format", "sarif", ".").exit_code == 2


def test_show_fixes_lists_what_fix_fixed(tree: Path) -> None:
    write(tree / "a.sh", BAD)
    write(tree / "d.sh", DISPLAY_ONLY)
    result = invoke("--fix", "--show-fixes", ".")
    assert result.exit_code == 1
    assert "Fixed 1 finding(s):\n- a.sh:\n    1 × SGL001 (tokenspeed-mla-without-fp8-kv-cache)\n" in result.stderr
    assert "d.sh:2:105: SGL001" in result.stdout, "what remains is reported as usual"
    again = invoke("--fix", "--show-fixes", ".")
    assert "finding(s):\n" not in again.stderr, "nothing fixed, nothing listed"
    assert invoke("--show-fixes", "--diff", ".").exit_code == 2


def test_output_file_takes_the_report(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    result = invoke("--output-file", "reports/autofix.json", "--format", "json", "launch.sh")
    assert result.exit_code == 1
    assert result.stdout == ""
    (finding,) = json.loads((tree / "reports" / "autofix.json").read_text())
    assert finding["code"] == "SGL001"
    diff = invoke("-o", "patch.diff", "--diff", "launch.sh")
    assert diff.exit_code == 1 and diff.stdout == ""
    assert (tree / "patch.diff").read_text().startswith("--- a/launch.sh\n+++ b/launch.sh\n")
    assert "1 fixable finding" in diff.stderr
    # With stdin and --fix, the fixed text still goes to stdout and the report to the file.
    fixed = invoke("-o", "left.txt", "--fix", "--stdin-filename", "launch.sh", "-", stdin=DISPLAY_ONLY)
    assert fixed.stdout == DISPLAY_ONLY
    assert (tree / "left.txt").read_text() == ""  # with --fix on stdin the findings go to stderr
    assert "SGL001" in fixed.stderr


def test_quiet_prints_the_findings_and_errors_only(tree: Path) -> None:
    write(tree / "launch.sh", BAD)
    write(tree / "notes.sh", "echo nothing to see\n")
    loud = invoke("launch.sh")
    assert "1 finding in 1 file" in loud.stdout
    quiet = invoke("-q", "launch.sh", "nowhere.sh")
    assert quiet.exit_code == 2
    assert quiet.stdout.startswith("launch.sh:4:5: SGL001") and "1 finding in 1 file" not in quiet.stdout
    assert quiet.stderr == "autofix: nowhere.sh: no such file or folder\n"
    fixed = invoke("--quiet", "--fix", "launch.sh")
    assert fixed.exit_code == 0 and fixed.stderr == "" and fixed.stdout == ""
    newer = invoke("-q", "--sglang-version", "0.9.0", "notes.sh")
    assert "newer than autofix knows" not in newer.stderr
    assert "newer than autofix knows" in invoke("--sglang-version", "0.9.0", "notes.sh").stderr


def test_reporting_options_are_in_the_help() -> None:
    shown = invoke("--help").stdout
    for option in ("--exit-zero", "--exit-non-zero-on-fix", "--statistics", "--show-fixes", "--output-file",
                   "--quiet", "gitlab", "junit", "--schema"):
        assert option in shown, option
