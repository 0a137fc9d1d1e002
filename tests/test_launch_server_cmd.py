"""`launch_server_cmd("...")` read as SGLang splits it: on whitespace, with no shell.

`sglang.utils.execute_shell_command` (what launch_server_cmd runs, 0.5.17 to
0.5.23) turns backslashes into spaces, splits on whitespace, takes leading
NAME=value words as the environment, and starts the rest with no shell: a
quote is part of its word, and `$VAR` is not expanded. `os.system` runs a
shell, so the same string there is read as a shell reads it.
"""

from __future__ import annotations

import json

import pytest

from autofix.fixer import select
from autofix.formats import FORMATS, NOTEBOOK
from autofix.formats.python.finder import _sglang_words
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

V3 = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla"


def python(call: str) -> str:
    return f"import os\nfrom sglang.utils import launch_server_cmd\n\n{call}\n"


def notebook(call: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "source": ["from sglang.utils import launch_server_cmd\n", call]}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def run(text: str, fmt=FORMATS["python"], fix: bool = False):  # noqa: ANN001, ANN201
    return fix_text(Source(text), fmt, Settings(select(["ALL"]), unsafe=True), fix=fix)


def found(text: str, fmt=FORMATS["python"]) -> list[tuple[str, str, str | None]]:  # noqa: ANN001
    return [(r.fixer.code, r.finding.message, r.fix.applicability.value if r.fix else None)
            for r in run(text, fmt).findings]


@pytest.mark.parametrize(("command", "words"), [
    ("python3 -m sglang.launch_server --port 1", ["python3", "-m", "sglang.launch_server", "--port", "1"]),
    ("A=1 B_2=x python3 -m m", ["python3", "-m", "m"]),  # the environment
    ("python3 -m m --x='a b'", ["python3", "-m", "m", "--x='a", "b'"]),  # quotes stay in their words
    ("python3 \\\n  -m m\\t", ["python3", "-m", "m", "t"]),  # a backslash is a space
    ("--a=1 python3", ["--a=1", "python3"]),  # an option word ends the environment
])
def test_words_as_execute_shell_command_splits_them(command: str, words: list[str]) -> None:
    assert [command.replace("\\", " ")[s:e] for s, e in _sglang_words(command)] == words


@pytest.mark.parametrize("wrap", [python, notebook], ids=["python", "notebook"])
def test_a_quoted_value_keeps_its_quotes(wrap) -> None:  # noqa: ANN001
    text = wrap(f"launch_server_cmd(\"{V3} --kv-cache-dtype 'fp8_e4m3'\")")
    fmt = FORMATS["python"] if wrap is python else NOTEBOOK
    assert [(code, applicability) for code, _, applicability in found(text, fmt)] == [
        ("SGL001", "display-only"), ("SGL100", None),
    ]
    assert "`'fp8_e4m3'` is not a choice of `--kv-cache-dtype`" in found(text, fmt)[1][1]
    assert run(text, fmt, fix=True).text == text  # a word a shell reads otherwise is not edited


def test_a_shell_reads_the_same_string_without_its_quotes() -> None:
    assert found(python(f"os.system(\"{V3} --kv-cache-dtype 'fp8_e4m3'\")")) == []


def test_a_variable_is_not_expanded() -> None:
    text = python('launch_server_cmd("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size $TP")')
    [(code, message, _)] = found(text)
    assert code == "SGL106" and "`$TP` is not one" in message


def test_environment_words_before_the_launch_are_skipped_and_edits_still_apply() -> None:
    text = python('launch_server_cmd("SGLANG_X=1 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B '
                  '--kv-cache-type fp8_e4m3 --served-model-name \'q\'")')
    assert [code for code, _, _ in found(text)] == ["SGL101"]
    assert run(text, fix=True).text == text.replace("--kv-cache-type", "--kv-cache-dtype")


def test_a_word_beside_a_quoted_one_is_still_edited() -> None:
    text = python(f"launch_server_cmd(\"{V3} --served-model-name 'v3'\")")
    assert run(text, fix=True).text == text.replace("tokenspeed_mla ", "tokenspeed_mla --kv-cache-dtype fp8_e4m3 ")


def test_an_fstring_field_is_unknown_as_before() -> None:
    text = python('launch_server_cmd(f"python3 -m sglang.launch_server --model-path {model} --tp-size {tp} '
                  '--kv-cache-type fp8_e4m3")')
    assert [code for code, _, _ in found(text)] == ["SGL101"]
