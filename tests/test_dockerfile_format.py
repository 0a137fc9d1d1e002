"""How the Dockerfile format reads launches and spells edits. No-op cases first."""

from __future__ import annotations

import pytest

from autofix.fixer import select
from autofix.formats import DOCKERFILE, detect
from autofix.formats.dockerfile import find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch, Unresolvable
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

FROM = "FROM lmsysorg/sglang:v0.5.18-cu129\n"
LAUNCH = '"python3", "-m", "sglang.launch_server"'


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def fixed(text: str) -> str:
    return fix_text(Source(text), DOCKERFILE, Settings(select(["ALL"])), fix=True).text


@pytest.mark.parametrize(
    "name", ["Dockerfile", "Dockerfile.dev", "serve.Dockerfile", "Containerfile", "docker/Dockerfile"],
)
def test_detected_by_name(name: str) -> None:
    assert detect(name) is DOCKERFILE


# -- what is a launch ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(f'CMD [{LAUNCH}]\nCMD ["bash"]\n', id="an-earlier-cmd-is-not-run"),
        pytest.param('ENTRYPOINT ["/start.sh"]\nCMD python3 -m sglang.launch_server --tp 8\n', id="shell-cmd-after-exec-entrypoint"),
        pytest.param("ENTRYPOINT /start.sh\nCMD [\"python3\", \"-m\", \"sglang.launch_server\"]\n", id="shell-entrypoint-ignores-cmd"),
        pytest.param("# python3 -m sglang.launch_server\nCMD [\"bash\"]\n", id="comment"),
        pytest.param("RUN pip install sglang\n", id="install"),
        pytest.param('CMD ["python3", "-m", "sglang.launch_server", \'--tp\']\n', id="invalid-json-is-shell-form"),
        pytest.param("# escape=`\nCMD python3 -m sglang.launch_server --tp 8\n", id="backtick-escape-is-not-read"),
        pytest.param("COPY <<EOF /notes.txt\nCMD python3 -m sglang.launch_server\nEOF\n", id="heredoc-body-is-not-an-instruction"),
        pytest.param("RUN python3 <<EOF\nprint('python3 -m sglang.launch_server')\nEOF\n", id="heredoc-for-python-is-not-shell"),
    ],
)
def test_not_a_launch(text: str) -> None:
    assert launches(text) == []


def test_entrypoint_and_cmd_make_one_argv() -> None:
    (launch,) = launches(f'ENTRYPOINT [{LAUNCH}]\nCMD ["--tp", "8"]\n')
    assert [a.text for a in launch.args] == ["--tp", "8"]


def test_stages_are_separate() -> None:
    text = f'FROM a\nENTRYPOINT [{LAUNCH}]\nFROM b\nCMD ["--tp", "8"]\n'
    (launch,) = launches(text)
    assert launch.args == []


def test_exec_form_dollar_is_literal_and_unknown() -> None:
    (launch,) = launches(f'ENV TP=8\nCMD [{LAUNCH}, "--tp", "$TP"]\n')
    assert launch.flags[0].values[0].text is None


def test_env_resolves_in_shell_form_but_arg_does_not() -> None:
    (env,) = launches("ENV TP=8\nCMD python3 -m sglang.launch_server --tp $TP\n")
    assert env.flags[0].value == "8"
    # --build-arg may change it, and a running container does not see it.
    (arg,) = launches("ARG TP=8\nRUN python3 -m sglang.launch_server --tp ${TP:-4}\n")
    with pytest.raises(Unresolvable):
        _ = arg.flags[0].value


def test_json_escapes_are_decoded() -> None:
    (launch,) = launches(f'CMD [{LAUNCH}, "--model-path", "Qwen\\/Qwen3-8B"]\n')
    arg = launch.flags[0].values[0]
    assert arg.text == "Qwen/Qwen3-8B"
    assert arg.chars is not None and arg.chars[4] == -1


# -- syntax errors ----------------------------------------------------------------------


def test_syntax_errors_count_broken_arrays_and_shell() -> None:
    assert syntax_errors(f'CMD [{LAUNCH}]\nRUN echo "a" \\\n    && ls\n') == 0
    assert syntax_errors('CMD ["python3", "-m" "x"]\n') == 1
    assert syntax_errors("RUN echo 'unterminated\n") >= 1


# -- edits ------------------------------------------------------------------------------

MLA = '"--model-path", "deepseek-ai/DeepSeek-V3"'


def test_insert_on_one_line() -> None:
    text = FROM + f'CMD [{LAUNCH}, {MLA}, "--attention-backend", "tokenspeed_mla", "--tp", "8"]\n'
    assert fixed(text) == FROM + (
        f'CMD [{LAUNCH}, {MLA}, "--attention-backend", "tokenspeed_mla", '
        '"--kv-cache-dtype", "fp8_e4m3", "--tp", "8"]\n'
    )


def test_insert_own_line_keeps_crlf() -> None:
    text = FROM.replace("\n", "\r\n") + (
        f"CMD [{LAUNCH}, \\\r\n"
        f"     {MLA}, \\\r\n"
        '     "--attention-backend", "tokenspeed_mla", \\\r\n'
        '     "--tp", "8"]\r\n'
    )
    assert fixed(text) == text.replace(
        '"tokenspeed_mla", \\\r\n', '"tokenspeed_mla", \\\r\n     "--kv-cache-dtype", "fp8_e4m3", \\\r\n'
    )


def test_remove_own_line_and_last_item() -> None:
    qwen = '"--model-path", "Qwen/Qwen3-8B"'
    own = FROM + f'CMD [{LAUNCH}, \\\n     {qwen}, \\\n     "--attention-backend", "tokenspeed_mla", \\\n     "--tp", "2"]\n'
    assert fixed(own) == FROM + f'CMD [{LAUNCH}, \\\n     {qwen}, \\\n     "--tp", "2"]\n'
    last = FROM + f'CMD [{LAUNCH}, {qwen}, "--attention-backend", "tokenspeed_mla"]\n'
    assert fixed(last) == FROM + f"CMD [{LAUNCH}, {qwen}]\n"


def test_remove_first_item_of_cmd() -> None:
    text = FROM + f'ENTRYPOINT [{LAUNCH}]\nCMD ["--attention-backend", "tokenspeed_mla", "--model-path", "Qwen/Qwen3-8B"]\n'
    assert fixed(text) == FROM + f'ENTRYPOINT [{LAUNCH}]\nCMD ["--model-path", "Qwen/Qwen3-8B"]\n'


def test_bash_c_script_keeps_its_escapes() -> None:
    text = FROM + (
        'CMD ["bash", "-c", "cd /app && python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 '
        '--attention-backend tokenspeed_mla --served-model-name \\"v3\\""]\n'
    )
    assert fixed(text) == text.replace("tokenspeed_mla ", "tokenspeed_mla --kv-cache-dtype fp8_e4m3 ")


def test_shell_form_with_comment_line_inside() -> None:
    text = FROM + (
        "RUN python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 \\\n"
        "    # a comment Docker drops\n"
        "    --attention-backend tokenspeed_mla\n"
    )
    assert fixed(text) == text.replace("tokenspeed_mla\n", "tokenspeed_mla \\\n    --kv-cache-dtype fp8_e4m3\n")


def test_suppression_comment() -> None:
    text = FROM + "# autofix: ignore[SGL001]\n" + f'CMD [{LAUNCH}, {MLA}, "--attention-backend", "tokenspeed_mla"]\n'
    assert fixed(text) == text
