"""Machine formats: SARIF against the official 2.1.0 schema, JSON and JSON lines against
docs/autofix-json.schema.json, GitHub annotations, and SARIF fixes that give exactly --fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from autofix.fixer import all_fixers
from click.testing import CliRunner

from autofix import fixer as registry
from autofix.cli import main
from autofix.output.github import escape_data, escape_property
from judging import real_hub_cache

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
JSON_SCHEMA = json.loads((ROOT / "docs" / "autofix-json.schema.json").read_text(encoding="utf-8"))

BAD_SH = (
    "#!/bin/bash\n"
    "python3 -m sglang.launch_server \\\n"
    "    --model-path deepseek-ai/DeepSeek-V3 \\\n"
    "    --attention-backend tokenspeed_mla \\\n"
    "    --port 30000\n"
)
# Astral and non-Latin characters before the flag on its line: code points and UTF-16 units differ.
UNICODE_PY = (
    "import sglang as sgl\n"
    "# 模型 🚀\n"
    'llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", served_model_name="🚀 дипсик", '
    'attention_backend="tokenspeed_mla")\n'
)
CRLF_SH = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \\\r\n  --attention-backend tokenspeed_mla \\\r\n  --port 1\r\n"
SERVE_SH = "#!/bin/bash\npython3 -m sglang.launch_server --config serve.yaml --port 30000\n"
SERVE_YAML = "model-path: deepseek-ai/DeepSeek-V3\nattention-backend: tokenspeed_mla\ntp-size: 8\n"
DISPLAY_ONLY = (
    "KV=bf16\n"
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
    '--attention-backend tokenspeed_mla --kv-cache-dtype "$KV"\n'
)
TREE = {
    "launch.sh": BAD_SH,
    "engine.py": UNICODE_PY,
    "crlf.sh": CRLF_SH,
    "deploy/serve.sh": SERVE_SH,
    "deploy/serve.yaml": SERVE_YAML,
    "display.sh": DISPLAY_ONLY,
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name, text in TREE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(text.encode())
    return tmp_path


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def sarif(*args: str) -> dict:
    result = invoke("--format", "sarif", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


# -- SARIF -----------------------------------------------------------------------------


def test_sarif_is_valid_sarif_2_1_0(tree: Path) -> None:
    log = sarif(".")
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["columnKind"] == "utf16CodeUnits"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tree.resolve().as_uri() + "/"
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == {
        "launch.sh", "engine.py", "crlf.sh", "deploy/serve.yaml", "display.sh",
    }


def test_sarif_rules_describe_every_fixer_run(tree: Path) -> None:
    driver = sarif(".")["runs"][0]["tool"]["driver"]
    assert driver["name"] == "autofix"
    assert driver["version"]
    fixers = registry.select()
    assert [rule["id"] for rule in driver["rules"]] == [fx.code for fx in fixers]
    for rule, fx in zip(driver["rules"], fixers):
        assert rule["name"] == fx.name
        assert rule["shortDescription"]["text"] == fx.summary
        assert rule["help"]["markdown"] == fx.doc
        assert rule["fullDescription"]["markdown"] in fx.doc
        assert rule["properties"]["record"] == fx.record
        assert rule["properties"]["releases"] == list(fx.releases)
    selected = sarif("--select", "SGL002", ".")["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in selected] == ["SGL002"]


def test_sarif_results_point_at_their_rule_and_the_flag(tree: Path) -> None:
    run = sarif("launch.sh")["runs"][0]
    (result,) = run["results"]
    rules = run["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "SGL001"
    assert result["level"] == "error"
    assert result["message"]["text"] == "`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto`"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "launch.sh", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 39}
    (fix,) = result["fixes"]
    assert fix["description"]["text"] == "Set `--kv-cache-dtype fp8_e4m3`"
    assert fix["artifactChanges"][0]["replacements"] == [
        {
            "deletedRegion": {"startLine": 5, "startColumn": 1, "endLine": 5, "endColumn": 1},
            "insertedContent": {"text": "    --kv-cache-dtype fp8_e4m3 \\\n"},
        }
    ]


def test_sarif_columns_count_utf16_code_units(tree: Path) -> None:
    (found,) = json.loads(invoke("--format", "json", "engine.py").stdout)
    (result,) = sarif("engine.py")["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    # One astral character (two UTF-16 units) before the flag on its line.
    assert region["startColumn"] == found["column"] + 1
    assert region["endColumn"] == found["end_column"] + 1


def test_sarif_finding_in_a_config_file_points_at_that_file(tree: Path) -> None:
    (result,) = sarif("deploy/serve.sh")["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "deploy/serve.yaml"
    assert location["region"]["startLine"] == 2
    (change,) = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "deploy/serve.yaml"


def test_sarif_file_outside_the_working_directory_has_an_absolute_uri(tree: Path, tmp_path_factory) -> None:  # noqa: ANN001
    outside = tmp_path_factory.mktemp("elsewhere") / "launch.sh"
    outside.write_text(BAD_SH)
    (result,) = sarif(str(outside))["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": outside.resolve().as_uri()}


def test_sarif_display_only_finding_has_no_fix(tree: Path) -> None:
    (result,) = sarif("display.sh")["runs"][0]["results"]
    assert "fixes" not in result
    assert result["properties"]["fix"]["applicability"] == "display-only"


def _apply(text: str, replacements: list[dict]) -> str:
    """Apply SARIF replacements (1-based lines, UTF-16 columns, end exclusive) to text."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def offset(line: int, column: int) -> int:
        at = starts[line - 1] if line <= len(starts) else len(text)
        units = column - 1
        while units > 0:
            units -= 2 if ord(text[at]) > 0xFFFF else 1
            at += 1
        return at

    spans = []
    for rep in replacements:
        region = rep["deletedRegion"]
        start = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        spans.append((start, end, rep["insertedContent"]["text"]))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_sarif_fixes_applied_to_the_original_give_the_fix_output(tree: Path, tmp_path_factory) -> None:  # noqa: ANN001
    log = sarif(".")
    originals = {name: (tree / name).read_bytes().decode() for name in TREE}
    applied = dict(originals)
    for result in log["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            if fix["properties"]["applicability"] != "safe":
                continue
            for change in fix["artifactChanges"]:
                name = change["artifactLocation"]["uri"]
                applied[name] = _apply(applied[name], change["replacements"])
    copy = tmp_path_factory.mktemp("fixed")
    shutil.copytree(tree, copy, dirs_exist_ok=True)
    os.chdir(copy)
    assert invoke("--fix", ".").exit_code == 1  # display.sh keeps its suggestion
    fixed = {name: (copy / name).read_bytes().decode() for name in TREE}
    assert applied == fixed
    assert sum(applied[n] != originals[n] for n in TREE) == 4


# -- JSON and JSON lines -------------------------------------------------------------------


def test_json_matches_the_documented_schema(tree: Path) -> None:
    validator = jsonschema.Draft202012Validator(JSON_SCHEMA)
    validator.check_schema(JSON_SCHEMA)
    checked = json.loads(invoke("--format", "json", ".").stdout)
    validator.validate(checked)
    assert len(checked) == 5
    fixed = json.loads(invoke("--fix", "--format", "json", ".").stdout)
    validator.validate(fixed)
    assert sorted(f["fixed"] for f in fixed) == [False, True, True, True, True]


def test_a_json_finding_names_the_sglang_errors_its_rule_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # A rule's Example may name a model by its Hub id: the cache holds the real configs the tests have.
    monkeypatch.setenv("HF_HUB_CACHE", str(real_hub_cache(tmp_path / "hub")))
    rule = next(fx for fx in all_fixers() if fx.rule is not None and not fx.gpu and len(fx.errors) == 1)
    (tmp_path / "launch.sh").write_text(f"python -m sglang.launch_server {rule.rule.example}\n")
    found = json.loads(invoke("--format", "json", "--select", rule.code, "--sglang-version", rule.releases[1],
                              "launch.sh").stdout)
    jsonschema.Draft202012Validator(JSON_SCHEMA).validate(found)
    assert [(f["code"], f["record"], f["errors"]) for f in found] == [(rule.code, rule.errors[0], list(rule.errors))]


def test_json_lines_is_one_finding_per_line_as_in_json(tree: Path) -> None:
    finding = jsonschema.Draft202012Validator({**JSON_SCHEMA, "type": "object", "items": {}, "$ref": "#/$defs/finding"})
    lines = invoke("--format", "json-lines", ".").stdout.splitlines()
    parsed = [json.loads(line) for line in lines]
    for item in parsed:
        finding.validate(item)
    assert parsed == json.loads(invoke("--format", "json", ".").stdout)


def test_json_schema_is_versioned_and_described_in_the_readme() -> None:
    assert JSON_SCHEMA["$id"].rsplit(":", 1)[1].isdigit()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/autofix-json.schema.json" in readme


# -- GitHub annotations --------------------------------------------------------------------


def test_github_annotations(tree: Path) -> None:
    result = invoke("--format", "github", "launch.sh", "display.sh")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=launch.sh,line=4,col=5,endLine=4,endColumn=39,title=SGL001 tokenspeed-mla-without-fp8-kv-cache"
        "::`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto`%0Afix: Set `--kv-cache-dtype fp8_e4m3`",
        "::error file=display.sh,line=2,col=105,endLine=2,endColumn=127,title=SGL001 tokenspeed-mla-without-fp8-kv-cache"
        "::`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `bf16`%0Asuggestion: Set `--kv-cache-dtype fp8_e4m3`",
    ]


def test_github_escaping() -> None:
    assert escape_data("100% a:b,c\r\nd") == "100%25 a:b,c%0D%0Ad"
    assert escape_property("dir,x/a:b%.sh\n") == "dir%2Cx/a%3Ab%25.sh%0A"
    assert escape_property("%3A") == "%253A", "% is escaped first, so escapes are not doubled"


# -- start-up ------------------------------------------------------------------------------


def test_machine_formats_import_no_schema_library(tree: Path) -> None:
    code = (
        "import sys\n"
        "from autofix.cli import main\n"
        "for fmt in ('text', 'json', 'json-lines', 'github', 'sarif', 'gitlab', 'junit'):\n"
        "    try:\n        main(['--format', fmt, 'launch.sh'])\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'referencing', 'rpds')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stderr


# -- GitLab Code Quality and JUnit -----------------------------------------------------------


def test_gitlab_code_quality(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = invoke("--format", "gitlab", ".")
    assert result.exit_code == 1
    issues = json.loads(result.stdout)
    assert len(issues) == 5
    for issue in issues:  # GitLab's required fields, each of the type it reads
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert len({i["fingerprint"] for i in issues}) == 5
    launch = next(i for i in issues if i["location"]["path"] == "launch.sh")
    assert launch == {
        "description": "`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto` "
                       "(fix: Set `--kv-cache-dtype fp8_e4m3`)",
        "check_name": "SGL001",
        "fingerprint": launch["fingerprint"],
        "severity": "critical",
        "location": {"path": "launch.sh", "lines": {"begin": 4, "end": 4}},
    }
    assert "deploy/serve.yaml" in {i["location"]["path"] for i in issues}, "a --config finding is in its file"
    # A line added above a finding keeps its fingerprint: GitLab still sees the same issue.
    (tree / "launch.sh").write_text("# a comment\n" + BAD_SH)
    moved = next(i for i in json.loads(invoke("--format", "gitlab", ".").stdout) if i["location"]["path"] == "launch.sh")
    assert moved["fingerprint"] == launch["fingerprint"] and moved["location"]["lines"]["begin"] == 5
    # Paths are relative to the project GitLab checked out.
    monkeypatch.setenv("CI_PROJECT_DIR", str(tree.parent))
    paths = {i["location"]["path"] for i in json.loads(invoke("--format", "gitlab", "launch.sh").stdout)}
    assert paths == {f"{tree.name}/launch.sh"}


def test_gitlab_fingerprints_tell_the_same_finding_twice_apart(tree: Path) -> None:
    (tree / "twice.sh").write_text(BAD_SH + BAD_SH)
    issues = json.loads(invoke("--format", "gitlab", "twice.sh").stdout)
    assert len(issues) == 2 and issues[0]["fingerprint"] != issues[1]["fingerprint"]


def test_junit_report(tree: Path) -> None:
    from xml.etree import ElementTree as ET

    result = invoke("--format", "junit", ".")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "5", "5")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"launch.sh", "engine.py", "crlf.sh", "deploy/serve.yaml", "display.sh"}
    (case,) = suites["launch.sh"].findall("testcase")
    assert case.attrib == {"name": "SGL001 tokenspeed-mla-without-fp8-kv-cache", "classname": "launch.sh",
                           "line": "4", "column": "5"}
    failure = case.find("failure")
    assert failure.get("message") == "`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto`"
    assert failure.text == ("line 4, col 5, `tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto`\n"
                            "fix: Set `--kv-cache-dtype fp8_e4m3`")


def test_junit_report_of_a_clean_run_has_one_passing_case(tree: Path) -> None:
    (tree / "clean.sh").write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n")
    from xml.etree import ElementTree as ET

    result = invoke("--format", "junit", "clean.sh")
    assert result.exit_code == 0
    root = ET.fromstring(result.stdout)
    assert (root.get("tests"), root.get("failures")) == ("1", "0")
    (case,) = root.iter("testcase")
    assert case.get("name") == "No findings" and case.find("failure") is None
