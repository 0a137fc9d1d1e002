"""How the shell format reads launches and spells edits. No-op cases first."""

from __future__ import annotations

import pytest

from autofix.fixer import select
from autofix.formats import SHELL
from autofix.formats.shell import find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch, Unresolvable
from autofix.pipeline import Settings, fix_text, release_in_text
from autofix.source import Source


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def only(text: str) -> Launch:
    (launch,) = launches(text)
    return launch


def fixed(text: str) -> str:
    return fix_text(Source(text), SHELL, Settings(select(["ALL"])), fix=True).text


# -- what is a launch ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("echo python -m sglang.launch_server --tp 8\n", id="echo-prints-it"),
        pytest.param("pkill -f sglang.launch_server\n", id="pkill-pattern"),
        pytest.param("python -m sglang.bench_serving --backend sglang\n", id="other-module"),
        pytest.param("python -c 'import sglang' -m sglang.launch_server\n", id="python-c"),
        pytest.param("# python -m sglang.launch_server --tp 8\n", id="comment"),
        pytest.param("sglang version\n", id="other-subcommand"),
        pytest.param("cat <<EOF\npython -m sglang.launch_server --tp 8\nEOF\n", id="heredoc-text"),
    ],
)
def test_not_a_launch(text: str) -> None:
    assert launches(text) == []


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("python -m sglang.launch_server --tp 8\n", "launch_server"),
        ("python3.11 -u -X dev -m sglang.launch_server --tp 8\n", "launch_server"),
        ("/opt/venv/bin/python3 -m sglang.launch_server --tp 8\n", "launch_server"),
        ("sglang serve m --tp 8\n", "serve"),
        ("exec sudo -E env A=1 nohup timeout 60 numactl -N 0 python -m sglang.launch_server --tp 8 &\n", "launch_server"),
        ("docker run --gpus all -e X=1 lmsysorg/sglang:latest python3 -m sglang.launch_server --tp 8\n", "launch_server"),
        ("srun --nodes=2 --ntasks-per-node=1 ./site-launcher.sh python3 -m sglang.launch_server --tp 8\n", "launch_server"),
        ("if true; then\n  sglang serve m --tp 8\nfi\n", "serve"),
        ("start() {\n  python -m sglang.launch_server --tp 8 | tee log\n}\n", "launch_server"),
    ],
)
def test_launch_forms(text: str, form: str) -> None:
    launch = only(text)
    assert launch.form == form
    assert launch.value("tp_size") == "8"


def test_several_launches_in_one_file() -> None:
    text = "sglang serve a --tp 1 &\nsglang serve b --tp 2 &\nwait\n"
    assert [launch.value("tp_size") for launch in launches(text)] == ["1", "2"]


# -- reading flags as argparse does ---------------------------------------------------------


def test_prefixes_aliases_and_equals() -> None:
    launch = only(
        "python -m sglang.launch_server --model m --tensor-parallel-size=4 --decode-attention tokenspeed_mla --mem-frac 0.8\n"
    )
    assert launch.value("model_path") == "m"
    assert launch.value("tp_size") == "4"
    assert launch.value("decode_attention_backend") == "tokenspeed_mla"
    assert launch.value("mem_fraction_static") == "0.8"


def test_ambiguous_prefix_is_not_guessed() -> None:
    launch = only("python -m sglang.launch_server --pp 2 --dcp 4\n")
    assert [(f.spelling, f.problem) for f in launch.flags] == [("--pp", "ambiguous"), ("--dcp", "ambiguous")]
    assert launch.value("dcp_size") == 1  # the default: --dcp set nothing SGLang would accept


def test_last_occurrence_wins() -> None:
    launch = only("sglang serve m --kv-cache-dtype bf16 --kv-cache-dtype fp8_e4m3\n")
    assert launch.value("kv_cache_dtype") == "fp8_e4m3"
    assert len(launch.all("kv_cache_dtype")) == 2


def test_boolean_flags_take_no_value() -> None:
    launch = only("sglang serve --trust-remote-code m2 --enable-dp-attention --tp 2\n")
    assert launch.value("trust_remote_code") is True
    assert launch.value("enable_dp_attention") is True
    assert launch.value("tp_size") == "2"


def test_serve_positional_model() -> None:
    assert only("sglang serve Qwen/Qwen3-8B --tp 2\n").model.mla is False
    assert only("sglang serve deepseek-ai/DeepSeek-V3\n").model.mla is True


# -- words and variables --------------------------------------------------------------------


def test_quotes_and_escapes() -> None:
    launch = only("""sglang serve m --served-model-name 'a b' --host "0.0.0.0" --api-key x\\"y --tp "$((1+1))"\n""")
    assert launch.value("served_model_name") == "a b"
    assert launch.value("host") == "0.0.0.0"
    assert launch.value("api_key") == 'x"y'
    with pytest.raises(Unresolvable):
        launch.value("tp_size")


def test_top_level_variables_assigned_once() -> None:
    text = (
        "MODEL=deepseek-ai/DeepSeek-V3\n"
        "export TP=8\n"
        "PORT=${PORT:-30000}\n"
        'sglang serve "$MODEL" --tp $TP --port "${PORT}" --host "${HOST:-127.0.0.1}"\n'
    )
    launch = only(text)
    assert launch.model.architecture == "DeepseekV3ForCausalLM"
    assert launch.value("tp_size") == "8"
    assert launch.value("port") == "30000"
    assert launch.value("host") == "127.0.0.1"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("TP=8\nTP=4\nsglang serve m --tp $TP\n", id="assigned-twice"),
        pytest.param("if x; then TP=8; fi\nsglang serve m --tp $TP\n", id="conditional"),
        pytest.param("sglang serve m --tp $TP\nTP=8\n", id="assigned-after"),
        pytest.param("read TP\nsglang serve m --tp $TP\n", id="read"),
        pytest.param("for TP in 1 2; do :; done\nsglang serve m --tp $TP\n", id="loop-variable"),
        pytest.param("sglang serve m --tp $1\n", id="positional"),
        pytest.param("sglang serve m --tp $(nproc)\n", id="command-substitution"),
    ],
)
def test_unknown_variables(text: str) -> None:
    with pytest.raises(Unresolvable):
        only(text).value("tp_size")


def test_expansions_that_may_hold_flags_make_later_flags_unknown() -> None:
    launch = only('sglang serve m --tp 2 "$@"\n')
    with pytest.raises(Unresolvable):
        launch.value("tp_size")
    earlier = only('sglang serve m $EXTRA --tp 2\n')
    assert earlier.value("tp_size") == "2"


def test_arrays_of_flags() -> None:
    text = 'ARGS=(\n  --tp 8  # tensor parallel\n  --dp 2\n)\nsglang serve m "${ARGS[@]}"\n'
    launch = only(text)
    assert (launch.value("tp_size"), launch.value("dp_size")) == ("8", "2")


def test_scalar_holding_a_whole_command() -> None:
    launch = only('CMD="python -m sglang.launch_server --tp 4"\n$CMD --port 1\n')
    assert launch.value("tp_size") == "4"
    assert not launch.flag("tp_size").editable


def test_bash_c_literal_script() -> None:
    text = "bash -c 'sglang serve deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla'\n"
    assert fixed(text) == text.replace("tokenspeed_mla'", "tokenspeed_mla --kv-cache-dtype fp8_e4m3'")


# -- edits ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "sglang serve Qwen/Qwen3-8B --attention-backend tokenspeed_mla\n",
            "sglang serve Qwen/Qwen3-8B\n",
            id="remove-last-token",
        ),
        pytest.param(
            "sglang serve Qwen/Qwen3-8B \\\n  --attention-backend tokenspeed_mla --tp 2\n",
            "sglang serve Qwen/Qwen3-8B \\\n  --tp 2\n",
            id="remove-first-on-its-line",
        ),
        pytest.param(
            "sglang serve Qwen/Qwen3-8B \\\n  --attention-backend tokenspeed_mla \\\n  --tp 2\n",
            "sglang serve Qwen/Qwen3-8B \\\n  --tp 2\n",
            id="remove-whole-line",
        ),
        pytest.param(
            "sglang serve Qwen/Qwen3-8B \\\n  --tp 2 \\\n  --attention-backend tokenspeed_mla > log &\n",
            "sglang serve Qwen/Qwen3-8B \\\n  --tp 2 > log &\n",
            id="remove-last-line-keeps-redirect",
        ),
        pytest.param(
            "sglang serve deepseek-ai/DeepSeek-V3\t--attention-backend tokenspeed_mla\t# fast\n",
            "sglang serve deepseek-ai/DeepSeek-V3\t--attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3\t# fast\n",
            id="insert-inline",
        ),
        pytest.param(
            "sglang serve deepseek-ai/DeepSeek-V3 \\\n\t--attention-backend tokenspeed_mla    \\\n\t--tp 8\n",
            "sglang serve deepseek-ai/DeepSeek-V3 \\\n\t--attention-backend tokenspeed_mla    \\\n"
            "\t--kv-cache-dtype fp8_e4m3    \\\n\t--tp 8\n",
            id="insert-line-copies-indent-and-continuation",
        ),
        pytest.param(
            "sglang serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype 'bf16' --attention-backend tokenspeed_mla\n",
            "sglang serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype 'fp8_e4m3' --attention-backend tokenspeed_mla\n",
            id="replace-inside-quotes",
        ),
    ],
)
def test_edits(before: str, after: str) -> None:
    assert fixed(before) == after
    assert fixed(after) == after


def test_escaped_value_is_not_rewritten() -> None:
    text = "sglang serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype b\\f16 --attention-backend tokenspeed_mla\n"
    result = fix_text(Source(text), SHELL, Settings(select(["ALL"])), fix=True)
    assert result.text == text
    assert result.findings[0].fix.applicability.value == "display-only"


def test_no_edit_next_to_a_parse_error() -> None:
    text = 'sglang serve deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\nif then fi "\n'
    assert syntax_errors(text) > 0
    result = fix_text(Source(text), SHELL, Settings(select(["ALL"])), fix=True)
    assert result.text == text
    assert [r.fixer.code for r in result.findings] == ["SGL001"]


def test_release_pins_in_text() -> None:
    assert release_in_text("FROM lmsysorg/sglang:v0.5.18-cu129\n") == "0.5.18"
    assert release_in_text("pip install 'sglang[all]==0.5.19'\n") == "0.5.19"
    assert release_in_text("image: lmsysorg/sglang:latest\n") is None
    assert release_in_text("sglang==0.5.18\nsglang==0.5.19\n") is None


def test_loop_over_literal_words_gives_one_unknown_word() -> None:
    launch = only("for tp in 4 8; do\n  sglang serve m --tp $tp --port 1\ndone\n")
    with pytest.raises(Unresolvable):
        launch.value("tp_size")
    assert launch.value("port") == "1"
    spread = only('for a in "--tp 4" x; do\n  sglang serve m $a --port 1\ndone\n')
    with pytest.raises(Unresolvable):
        spread.value("tp_size")  # "$a" may be several words, one of them --tp
