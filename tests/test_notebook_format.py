"""How the notebook format reads code cells and edits their JSON strings in place."""

from __future__ import annotations

import json

import pytest

from autofix.fixer import select
from autofix.formats import NOTEBOOK, detect
from autofix.formats.notebook import find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch
from autofix.pipeline import Settings, fix_text
from autofix.source import Source


def notebook(*cells: list[str], kind: str = "code") -> str:
    return json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": s} for s in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def fixed(text: str):
    return fix_text(Source(text), NOTEBOOK, Settings(select(["ALL"])), fix=True)


V3 = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla"


def test_detected_by_name() -> None:
    assert detect("docs/serve.ipynb") is NOTEBOOK


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(notebook([V3], kind="markdown"), id="markdown-cell"),
        pytest.param(notebook([f"print('{V3}')"]), id="python-string-not-run"),
        pytest.param(notebook([f"# {V3}"]), id="comment"),
        pytest.param('{"cells": [', id="not-json"),
    ],
)
def test_not_a_launch(text: str) -> None:
    assert launches(text) == []


def test_source_as_one_string() -> None:
    text = json.dumps({"cells": [{"cell_type": "code", "source": f"!{V3}\n"}]})
    (launch,) = launches(text)
    assert launch.form == "launch_server"


def test_escapes_in_python_string_in_json() -> None:
    text = notebook(["# sglang==0.5.18\n", f'launch_server_cmd("{V3} --served-model-name \\"v3\\"")'])
    result = fixed(text)
    assert result.text == text.replace("tokenspeed_mla ", "tokenspeed_mla --kv-cache-dtype fp8_e4m3 ")
    json.loads(result.text)


def test_whole_line_removed_with_its_item() -> None:
    lines = ["%%bash\n", "# sglang==0.5.18\n", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \\\n",
             "  --attention-backend tokenspeed_mla \\\n", "  --port 30000\n"]
    text = notebook(lines)
    assert fixed(text).text == text.replace('    "  --attention-backend tokenspeed_mla \\\\\\n",\n', "")


def test_new_line_is_reported_without_a_fix() -> None:
    # The new flag would need a line of its own, i.e. a new list item.
    lines = ["%%bash\n", "# sglang==0.5.18\n", "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 \\\n",
             "  --attention-backend tokenspeed_mla \\\n", "  --port 30000\n"]
    text = notebook(lines)
    result = fixed(text)
    assert result.text == text
    (finding,) = result.findings
    assert finding.fix is None or not finding.fix.edits


def test_syntax_errors() -> None:
    assert syntax_errors(notebook(["!echo 'a\n"])) == 1
    assert syntax_errors('{"cells": [') == 1
    assert syntax_errors(notebook([f"!{V3}\n"])) == 0
