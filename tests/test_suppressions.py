"""Suppression comments: AF100 (unused suppressions, opt-in) and --add-ignore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.fixer import select
from autofix.formats import FORMATS
from autofix.pipeline import Settings, fix_text
from autofix.source import Source
from autofix.suppressions import fixer_words, selects

LAUNCH = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
FIXED = LAUNCH.replace("tokenspeed_mla\n", "tokenspeed_mla --kv-cache-dtype fp8_e4m3\n")
CLEAN = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend fa3\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def af100(text: str, fmt: str = "shell", fix: bool = False):  # noqa: ANN201
    """The AF100 findings of text (and the text after --fix), with the default fixers running."""
    settings = Settings(select(), unused_suppressions=True)
    result = fix_text(Source.decode(text.encode()), FORMATS[fmt], settings, fix=fix)
    return [r.finding.message for r in result.findings if r.fixer.code == "AF100" and not r.fixed], result.text


# -- selection ---------------------------------------------------------------------------------------


def test_af100_words() -> None:
    assert selects(["AF100"]) and selects(["AF"]) and selects(["unused-suppression"]) and selects(["ALL"])
    assert not selects(["SGL001", "A"])
    assert fixer_words(["AF100", "SGL001", "ALL"]) == ["SGL001", "ALL"]


def test_af100_is_off_by_default(tree: Path) -> None:
    (tree / "launch.sh").write_text("# autofix: ignore[SGL001]\n" + CLEAN)
    assert invoke("launch.sh").exit_code == 0
    result = invoke("--extend-select", "AF100", "launch.sh")
    assert result.exit_code == 1
    assert "launch.sh:1:1: AF100 [unused-suppression] unused suppression: `SGL001`" in result.stdout
    assert invoke("--extend-select", "AF100", "--ignore", "AF100", "launch.sh").exit_code == 0


def test_af100_from_configuration_and_per_file_ignores(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.autofix]\nextend-select = ["AF100"]\n'
                                         'per-file-ignores = { "legacy/*" = ["AF100"] }\n')
    (tree / "legacy").mkdir()
    for name in ("launch.sh", "legacy/launch.sh"):
        (tree / name).write_text("# autofix: ignore[SGL001]\n" + CLEAN)
    result = invoke(".")
    assert result.exit_code == 1
    assert "launch.sh:1:1: AF100" in result.stdout
    assert "legacy/launch.sh" not in result.stdout


def test_af100_is_not_a_registered_fixer() -> None:
    assert all(not fx.code.startswith("AF") for fx in select(["ALL"]))


# -- AF100: what is unused ----------------------------------------------------------------------------


def test_used_suppression_is_not_reported() -> None:
    assert af100("# autofix: ignore[SGL001]\n" + LAUNCH)[0] == []
    assert af100("# autofix: ignore[tokenspeed-mla-without-fp8-kv-cache]\n" + LAUNCH)[0] == []
    assert af100("# autofix: ignore\n" + LAUNCH)[0] == []


def test_unused_code_on_its_own_line_goes_with_its_line() -> None:
    text = "#!/bin/bash\n# autofix: ignore[SGL001]\n" + CLEAN
    fixed = af100(text, fix=True)[1]
    assert af100(text)[0] == ["unused suppression: `SGL001`"]
    assert fixed == "#!/bin/bash\n" + CLEAN


def test_unused_bare_suppression_is_removed() -> None:
    assert af100("# autofix: ignore\n" + CLEAN)[0] == ["unused suppression: nothing here to suppress"]
    assert af100("# autofix: ignore\n" + CLEAN, fix=True)[1] == CLEAN


def test_only_the_unused_codes_are_removed() -> None:
    text = "# autofix: ignore[SGL001, SGL003, NOPE]\n" + LAUNCH
    assert af100(text)[0] == ["unused suppression: `SGL003`, `NOPE` (no such fixer)"]
    assert af100(text, fix=True)[1] == "# autofix: ignore[SGL001]\n" + LAUNCH


def test_codes_of_fixers_that_did_not_run_are_left_alone() -> None:
    # SGL001 holds up to 0.5.22: on a launch pinned to 0.5.23 it does not run, so its code is not judged.
    text = "# sglang==0.5.23\n# autofix: ignore[SGL001]\n" + LAUNCH
    assert af100(text)[0] == []
    settings = Settings(select(["SGL002"]), unused_suppressions=True)
    result = fix_text(Source.decode(("# autofix: ignore[SGL001]\n" + CLEAN).encode()), FORMATS["shell"], settings)
    assert result.findings == []


def test_a_trailing_comment_leaves_the_code_before_it() -> None:
    yaml = "command:\n  - python3\n  - -m\n  - sglang.launch_server\n" + "".join(
        f"  - {a}{'  # autofix: ignore[SGL001]' if a == 'fa3' else ''}\n"
        for a in ("--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "fa3")
    )
    fixed = af100(yaml, "yaml", fix=True)[1]
    assert af100(yaml, "yaml")[0] == ["unused suppression: `SGL001`"]
    assert fixed == yaml.replace("  # autofix: ignore[SGL001]", "")


def test_python_comment_is_removed() -> None:
    text = (
        "import sglang as sgl\n"
        "# autofix: ignore[SGL001]\n"
        'llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", attention_backend="fa3")\n'
    )
    assert af100(text, "python", fix=True)[1] == text.replace("# autofix: ignore[SGL001]\n", "")


def test_notebook_comment_line_is_removed_from_the_cell_source() -> None:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": ["# autofix: ignore[SGL001]\n", "!" + CLEAN.rstrip("\n")]}
    notebook = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    fixed = af100(notebook, "notebook", fix=True)[1]
    assert af100(notebook, "notebook")[0] == ["unused suppression: `SGL001`"]
    cell["source"] = cell["source"][1:]
    assert fixed == json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def test_notebook_trailing_comment_is_removed_from_its_line() -> None:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": ["!" + CLEAN.rstrip("\n") + "  # autofix: ignore[SGL001]\n", "print(1)"]}
    notebook = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    assert af100(notebook, "notebook", fix=True)[1] == notebook.replace("  # autofix: ignore[SGL001]", "")


def test_markdown_block_marker_is_not_judged() -> None:
    text = "# Serve\n\n<!-- autofix: ignore -->\n```sh\n" + CLEAN + "```\n"
    assert af100(text, "markdown")[0] == []


def test_crlf_line_goes_whole() -> None:
    text = ("# autofix: ignore[SGL001]\n" + CLEAN).replace("\n", "\r\n")
    assert af100(text, fix=True)[1] == CLEAN.replace("\n", "\r\n")


# -- --add-ignore ----------------------------------------------------------------------------------------


def test_add_ignore_shell(tree: Path) -> None:
    script = tree / "launch.sh"
    script.write_bytes(("#!/bin/bash\nif true; then\n    " + LAUNCH + "fi\n").replace("\n", "\r\n").encode())
    result = invoke("--add-ignore", "launch.sh")
    assert result.exit_code == 0, result.output
    assert "Added 1 suppression comment(s) in 1 file(s); 0 finding(s) left." in result.stderr
    expected = "#!/bin/bash\nif true; then\n    # autofix: ignore[SGL001]\n    " + LAUNCH + "fi\n"
    assert script.read_bytes() == expected.replace("\n", "\r\n").encode()
    assert invoke("launch.sh").exit_code == 0
    # Twice changes nothing.
    assert invoke("--add-ignore", "launch.sh").exit_code == 0
    assert script.read_bytes() == expected.replace("\n", "\r\n").encode()


def test_add_ignore_extends_an_existing_comment(tree: Path) -> None:
    (tree / "launch.sh").write_text("# autofix: ignore[SGL003]\n" + LAUNCH)
    assert invoke("--add-ignore", "launch.sh").exit_code == 0
    assert (tree / "launch.sh").read_text() == "# autofix: ignore[SGL003, SGL001]\n" + LAUNCH


def test_add_ignore_in_python_yaml_markdown_and_notebooks(tree: Path) -> None:
    (tree / "engine.py").write_text(
        "import sglang as sgl\n\n\ndef main():\n    llm = sgl.Engine(\n"
        '        model_path="deepseek-ai/DeepSeek-V3",\n        attention_backend="tokenspeed_mla",\n    )\n'
    )
    (tree / "serve.yaml").write_text(
        "spec:\n  containers:\n    - name: sglang\n      command: [python3, -m, sglang.launch_server, --model-path, "
        "deepseek-ai/DeepSeek-V3, --attention-backend, tokenspeed_mla]\n"
    )
    (tree / "README.md").write_text("# Serve\n\n```bash\n  " + LAUNCH + "```\n")
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": ["import os\n", "!" + LAUNCH.rstrip("\n")]}
    (tree / "serve.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                                  "nbformat_minor": 5}, indent=1) + "\n")
    result = invoke("--add-ignore", ".")
    assert result.exit_code == 0, result.output
    assert "    # autofix: ignore[SGL001]\n    llm = sgl.Engine(\n" in (tree / "engine.py").read_text()
    assert "    - name: sglang\n      # autofix: ignore[SGL001]\n      command:" in (tree / "serve.yaml").read_text()
    assert "```bash\n  # autofix: ignore[SGL001]\n  python3" in (tree / "README.md").read_text()
    source = json.loads((tree / "serve.ipynb").read_text())["cells"][0]["source"]
    assert source == ["import os\n", "# autofix: ignore[SGL001]\n", "!" + LAUNCH.rstrip("\n")]
    assert invoke(".").exit_code == 0


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # After a `\` continuation a comment line would end the command.
        ("Dockerfile", "FROM lmsysorg/sglang:latest\nRUN pip install x && \\\n    " + LAUNCH),
        # Inside a folded scalar a `#` line would be part of the command and comment the launch out.
        ("compose.yaml", "services:\n  s:\n    command: >\n      cd /app &&\n      " + LAUNCH),
    ],
    ids=["after-continuation", "inside-folded-scalar"],
)
def test_add_ignore_leaves_what_no_comment_can_suppress(tree: Path, name: str, text: str) -> None:
    (tree / name).write_text(text)
    result = invoke("--add-ignore", name)
    assert result.exit_code == 1
    assert "no `autofix: ignore` comment can go before this launch (left as is)" in result.stdout
    assert (tree / name).read_text() == text


def test_add_ignore_puts_the_comment_before_the_string_that_holds_the_launch(tree: Path) -> None:
    text = 'import subprocess\nsubprocess.run("""\n' + LAUNCH + '""", shell=True)\n'
    (tree / "serve.py").write_text(text)
    assert invoke("--add-ignore", "serve.py").exit_code == 0
    expected = text.replace("subprocess.run", "# autofix: ignore[SGL001]\nsubprocess.run")
    assert (tree / "serve.py").read_text() == expected


def test_add_ignore_on_stdin_prints_the_new_text(tree: Path) -> None:
    result = CliRunner().invoke(main, ["--add-ignore", "--stdin-filename", "x.sh", "-"], input=LAUNCH)
    assert result.exit_code == 0
    assert result.stdout == "# autofix: ignore[SGL001]\n" + LAUNCH


def test_explain_af100() -> None:
    result = invoke("--explain", "AF100")
    assert result.exit_code == 0
    assert result.stdout.startswith("AF100 (unused-suppression)\n")


def test_add_ignore_is_exclusive_with_fix(tree: Path) -> None:
    (tree / "launch.sh").write_text(LAUNCH)
    assert invoke("--add-ignore", "--fix", "launch.sh").exit_code == 2
    assert (tree / "launch.sh").read_text() == LAUNCH


def test_fix_then_af100_keeps_used_suppressions(tree: Path) -> None:
    (tree / "launch.sh").write_text("# autofix: ignore[SGL001]\n" + LAUNCH + LAUNCH)
    result = invoke("--fix", "--extend-select", "AF100", "launch.sh")
    assert result.exit_code == 0, result.output
    assert (tree / "launch.sh").read_text() == "# autofix: ignore[SGL001]\n" + LAUNCH + FIXED
