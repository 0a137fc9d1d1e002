"""How the systemd format reads a service's ExecStart= command lines. No-op cases first."""

from __future__ import annotations

import pytest

from autofix.fixer import select
from autofix.formats import MARKDOWN, SYSTEMD, detect
from autofix.formats.systemd import find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

UNIT = """\
[Unit]
Description=SGLang server
After=network-online.target

[Service]
Environment=MODEL=/models/qwen
ExecStartPre=-/bin/mkdir -p /var/log/sglang
ExecStart=/opt/venv/bin/python -m sglang.launch_server --model-path ${MODEL} \\
    --port 3000%i --tp 2 \\
    --attention-backend FA3
Restart=always
"""


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def check(text: str, fmt=SYSTEMD):  # noqa: ANN001, ANN201
    result = fix_text(Source(text), fmt, Settings(select(["ALL"])), fix=True)
    assert result.error is None
    return [r.fixer.name for r in result.findings], result.text


def test_detected_by_name() -> None:
    assert detect("deploy/sglang.service") is SYSTEMD


@pytest.mark.parametrize("text", [
    pytest.param("[Service]\nDescription=python -m sglang.launch_server --tp 3\nExecStart=/bin/true\n", id="not-exec"),
    pytest.param("[Service]\n# ExecStart=python -m sglang.launch_server --tp 3\n", id="comment"),
])
def test_not_a_launch(text: str) -> None:
    assert launches(text) == []


def test_the_command_line_with_continuations_variables_and_specifiers() -> None:
    (launch,) = launches(UNIT)
    assert [a.text for a in launch.args] == ["--model-path", None, "--port", None, "--tp", "2",
                                             "--attention-backend", "FA3"]  # ${MODEL} and 3000%i: unknown
    assert launch.span.start == UNIT.index("/opt/venv")
    assert check(UNIT) == (["invalid-choice"], UNIT.replace("FA3", "fa3"))
    assert syntax_errors(UNIT) == 0


def test_prefix_characters_and_other_exec_keys() -> None:
    text = "[Service]\nExecStart=-+/usr/bin/python3 -m sglang.launch_server --model-path m --attention-backend FA3\n"
    assert check(text) == (["invalid-choice"], text.replace("FA3", "fa3"))


def test_an_ini_block_in_markdown() -> None:
    text = f"Install the unit:\n\n```ini\n{UNIT}```\n"
    names, fixed = check(text, MARKDOWN)
    assert names == ["invalid-choice"] and fixed == text.replace("FA3", "fa3")
    assert launches_in_markdown("```ini\n[core]\neditor = vim\n```\n") == []


def launches_in_markdown(text: str) -> list[Launch]:
    from autofix.formats.markdown import find_launches as markdown_launches

    return markdown_launches(Source(text), table(None))
