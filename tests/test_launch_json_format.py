"""How the JSON format reads editors' launch configurations (VS Code's launch.json) and spells
edits in their `"args"` lists. No-op cases first."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.fixer import select
from autofix.formats import JSON, MARKDOWN, detect
from autofix.formats.launchjson import find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch
from autofix.pipeline import Settings, fix_text
from autofix.source import Source


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def check(text: str, fmt=JSON):  # noqa: ANN001, ANN201
    result = fix_text(Source(text), fmt, Settings(select(["ALL"])), fix=True)
    assert result.error is None
    return [r.fixer.name for r in result.findings], result.text


def config(args: str, extra: str = "") -> str:
    return textwrap.dedent(f"""\
        {{
            // Use IntelliSense to learn about possible attributes.
            "version": "0.2.0",
            "configurations": [
                {{
                    "name": "Python Debugger: launch_server",
                    "type": "debugpy",
                    "request": "launch",
                    "module": "sglang.launch_server",{extra}
                    "args": {args},
                    "justMyCode": false,
                }},
            ],
        }}
        """)


KV = '["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "tokenspeed_mla"]'


@pytest.mark.parametrize("name", [".vscode/launch.json", "Launch.json", "sglang.code-workspace"])
def test_detected_by_name(name: str) -> None:
    assert detect(name) is JSON


@pytest.mark.parametrize("name", ["model/config.json", "tokenizer.json", "package.json", "settings.jsonc"])
def test_other_json_files_are_data(name: str) -> None:
    assert detect(name) is None


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"name": "sglang", "dependencies": {"sglang": "0.5.23"}}\n', id="no-module"),
        pytest.param(config(KV).replace("sglang.launch_server", "sglang.bench_serving"), id="other-module"),
        pytest.param('{"module": "sglang.launch_server", "args": ["--tp", \n', id="not-json"),
        pytest.param('[{"program": "python -m sglang.launch_server --tp 3"}]\n', id="program-is-not-read"),
    ],
)
def test_not_a_launch(text: str) -> None:
    assert launches(text) == []


def test_a_configuration_with_comments_and_trailing_commas() -> None:
    (launch,) = launches(config(KV))
    assert [a.text for a in launch.args] == ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend",
                                             "tokenspeed_mla"]
    assert launch.form == "launch_server" and launch.written_dests() == {"model_path", "attention_backend"}


def test_the_fix_adds_items_on_the_line_of_the_flag_it_joins() -> None:
    text = config('[\n                "--model-path", "deepseek-ai/DeepSeek-V3",\n'
                  '                "--attention-backend", "tokenspeed_mla",\n            ]')
    names, fixed = check(text)
    assert names == ["tokenspeed-mla-without-fp8-kv-cache"]
    line = next(line for line in text.splitlines() if "tokenspeed_mla" in line)
    indent = line[: len(line) - len(line.lstrip())]
    assert fixed == text.replace(f"{line}\n", f'{line}\n{indent}"--kv-cache-dtype", "fp8_e4m3",\n')
    assert syntax_errors(fixed) == 0


def test_a_value_is_replaced_inside_its_string() -> None:
    text = config('["--model-path", "m", "--kv-cache-dtype", "fp8-e4m3"]')
    assert check(text) == (["invalid-choice"], text.replace("fp8-e4m3", "fp8_e4m3"))


def test_editor_variables_are_unknown_values_and_a_string_of_args_is_a_pass_through() -> None:
    (launch,) = launches(config('["--model-path", "${input:model}", "--tp", "${env:TP}"]'))
    assert [a.text for a in launch.args] == ["--model-path", None, "--tp", None]
    assert not any(a.splat for a in launch.args)
    (launch,) = launches(config('"${command:pickArgs}"'))
    assert launch.written_dests() is None  # the user picks any flags
    names, _ = check(config('"${command:pickArgs}"', extra='\n"env": {},'))
    assert names == []  # nothing about a missing --model-path


def test_the_router_module_and_a_workspace_launch_section() -> None:
    text = ('{"folders": [], "launch": {"configurations": [{"module": "sglang_router.launch_server",'
            ' "args": ["--model-path", "m", "--attention-backend", "FA3"]}]}}\n')
    (launch,) = launches(text)
    assert launch.form == "router"
    assert check(text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_a_json_block_in_markdown() -> None:
    text = f"Add this to `launch.json`:\n\n```json\n{config(KV)}```\n"
    names, fixed = check(text, MARKDOWN)
    assert names == ["tokenspeed-mla-without-fp8-kv-cache"]
    assert '"tokenspeed_mla", "--kv-cache-dtype", "fp8_e4m3"]' in fixed


def test_a_hand_written_suppression_comment_is_read_and_none_is_added(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = config(KV).replace('            "module"', '            // autofix: ignore[SGL001]\n            "module"')
    assert check(text) == ([], text)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "launch.json").write_text(config(KV))
    (tmp_path / "README.md").write_text(f"```json\n{config(KV)}```\n")
    result = CliRunner().invoke(main, ["--add-ignore", "."], catch_exceptions=False)
    assert "Added 0 suppression comment(s) in 0 file(s); 2 finding(s) left." in result.stderr
    assert (tmp_path / "launch.json").read_text() == config(KV)  # a `#` line would break the JSON
    assert (tmp_path / "README.md").read_text() == f"```json\n{config(KV)}```\n"
