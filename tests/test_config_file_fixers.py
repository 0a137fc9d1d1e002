"""The config-file fixers (SGL120-SGL123) on launches split between a script and its `--config` file.

The fixture harness checks files one at a time; here a script and the YAML
file it names are checked together, as `autofix` does in a folder. A docs
Example of these fixers is a `sh` block and the `yaml` file its `--config`
names; Use instead shows both after the fix.
"""

from __future__ import annotations

import re

import pytest

from autofix.fixer import lookup, select
from autofix.formats import FORMATS
from autofix.pipeline import Linked, Settings, fix_text
from autofix.source import Source

CONFIG_FIXERS = ("SGL120", "SGL122", "SGL123")


def run(script: str, config: str, codes=("ALL",), unsafe: bool = False, fix: bool = True):  # noqa: ANN001, ANN201
    def read_config(path: str) -> Linked | None:
        return Linked(path, Source(config)) if path == "server.yaml" else None

    settings = Settings(select(list(codes)), unsafe=unsafe, read_config=read_config)
    return fix_text(Source(script), FORMATS["shell"], settings, fix=fix)


def linked_text(result) -> str:  # noqa: ANN001
    [linked] = result.linked
    return linked.text


def test_underscore_key_is_renamed_in_the_file_the_launch_reads() -> None:
    result = run("sglang serve --config server.yaml --port 30000\n",
                 "model-path: Qwen/Qwen3-8B\ntp_size: 2  # two GPUs\n")
    assert linked_text(result) == "model-path: Qwen/Qwen3-8B\ntp-size: 2  # two GPUs\n"
    assert [(r.fixer.code, r.path, r.line, r.fixed) for r in result.findings] == [("SGL120", "server.yaml", 2, True)]


def test_underscore_key_set_on_the_command_line_too_is_an_unsafe_rename() -> None:
    result = run("python -m sglang.launch_server --config server.yaml --tp-size 4\n",
                 "model-path: Qwen/Qwen3-8B\ntp_size: 2\n")
    [reported] = result.findings
    assert (reported.fixer.code, reported.fix.applicability.value, reported.fixed) == ("SGL120", "unsafe", False)


def test_refused_key_moves_next_to_config_on_the_command_line() -> None:
    script = "python -m sglang.launch_server \\\n    --config server.yaml \\\n    --port 30000\n"
    config = "model-path: Qwen/Qwen3-8B\nlora-strict-loading: false  # lenient\nport: 30000\n"
    result = run(script, config, unsafe=True)
    assert result.text == (
        "python -m sglang.launch_server \\\n    --config server.yaml \\\n    --no-lora-strict-loading \\\n"
        "    --port 30000\n"
    )
    assert linked_text(result) == "model-path: Qwen/Qwen3-8B\nport: 30000\n"


def test_refused_key_the_command_line_sets_is_only_deleted() -> None:
    result = run("python -m sglang.launch_server --config server.yaml --dcp-replicate-q-proj\n",
                 "model-path: deepseek-ai/DeepSeek-V3\ntp-size: 8\ndcp-size: 8\ndcp-replicate-q-proj: true\n",
                 unsafe=True)
    assert result.text == "python -m sglang.launch_server --config server.yaml --dcp-replicate-q-proj\n"
    assert linked_text(result) == "model-path: deepseek-ai/DeepSeek-V3\ntp-size: 8\ndcp-size: 8\n"


def test_refused_key_is_not_moved_without_unsafe_fixes() -> None:
    config = "model-path: Qwen/Qwen3-8B\nlora-strict-loading: true\n"
    result = run("python -m sglang.launch_server --config server.yaml\n", config)
    assert linked_text(result) == config
    assert [(r.fixer.code, r.fixed) for r in result.findings] == [("SGL122", False)]


def test_refused_list_value_is_reported_without_a_fix() -> None:
    config = "# sglang==0.5.19\nmodel-path: Qwen/Qwen3-8B\ncuda-graph-bs-decode: [1, 2, 4]\n"
    result = run("# sglang==0.5.19\npython -m sglang.launch_server --config server.yaml\n", config, unsafe=True)
    [reported] = result.findings
    assert (reported.fixer.code, reported.fix.applicability.value) == ("SGL122", "display-only")


def test_bare_config_beside_a_joined_one_is_left_alone() -> None:
    # SGLang reads server.yaml; writing the second as `--config b.yaml` would make it refuse two files.
    result = run("python -m sglang.launch_server --config server.yaml --config=b.yaml\n",
                 "model-path: Qwen/Qwen3-8B\n", codes=("SGL121",))
    [reported] = result.findings
    assert reported.fix.applicability.value == "display-only"


def blocks(doc: str, heading: str) -> tuple[str, str]:
    body = doc.split(heading, 1)[1].split("\n## ", 1)[0]
    sh = re.search(r"```sh\n(.*?)```", body, re.S)
    yaml = re.search(r"```yaml\n(.*?)```", body, re.S)
    assert sh and yaml, heading
    return sh.group(1), yaml.group(1)


@pytest.mark.parametrize("code", CONFIG_FIXERS)
def test_two_block_example_is_fixed_into_use_instead(code: str) -> None:
    fx = lookup(code)
    script, config = blocks(fx.doc, "## Example")
    want_script, want_config = blocks(fx.doc, "## Use instead")
    flagged = run(script, config, codes=(code,), fix=False)
    assert [r.fixer.code for r in flagged.findings] == [code]
    fixed = run(script, config, codes=(code,), unsafe=True)
    assert (fixed.text, linked_text(fixed)) == (want_script, want_config)
    assert run(want_script, want_config, fix=False).findings == []
