"""The Python format: launches in Engine/ServerArgs calls, argv lists and command
strings, and how edits are spelled there. Each case asserts the exact output.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autofix.edits import Applicability
from autofix.fixer import select
from autofix.formats import PYTHON, load
from autofix.formats.python import PythonSyntaxError, find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch
from autofix.pipeline import Settings, fix_text
from autofix.source import Source
from judging import argv_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def fix(text: str) -> str:
    result = fix_text(Source(text), PYTHON, Settings(select(["ALL"])), fix=True)
    assert result.error is None
    return result.text


def findings(text: str) -> list[tuple[str, str | None]]:
    """(fixer name, applicability of its fix) for each finding."""
    result = fix_text(Source(text), PYTHON, Settings(select(["ALL"])))
    return [(r.fixer.name, r.fix.applicability.value if r.fix else None) for r in result.findings]


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def argv(launch: Launch) -> list[str | None]:
    return ["*" if arg.splat else arg.text for arg in launch.args]


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


KV = "tokenspeed-mla-without-fp8-kv-cache"
NON_MLA = "tokenspeed-mla-on-non-mla-model"


# -- nothing to do -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("import os\nos.system('python3 -m vllm.entrypoints.api_server')\n", id="no-sglang-in-file"),
        pytest.param("def broken(:\n", id="no-sglang-not-even-parsed"),
        pytest.param(
            "import sglang as sgl\nllm = sgl.Engine(model_path='deepseek-ai/DeepSeek-V3', attention_backend='fa3')\n",
            id="engine-other-backend",
        ),
        pytest.param(
            "from mylib import Engine  # not sglang's\n"
            "Engine(model_path='deepseek-ai/DeepSeek-V3', attention_backend='tokenspeed_mla')\n",
            id="engine-not-from-sglang",
        ),
        pytest.param(
            "import sglang as sgl\n"
            "print('python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla')\n",
            id="printed-command-is-not-a-launch",
        ),
    ],
)
def test_no_finding_and_no_change(text: str) -> None:
    assert findings(text) == []
    assert fix(text) == text


# -- keyword launches ------------------------------------------------------------------


def test_keyword_added_on_its_own_line_after_the_backend() -> None:
    text = dedent('''
        import sglang as sgl

        llm = sgl.Engine(
            model_path="deepseek-ai/DeepSeek-V3",
            attention_backend="tokenspeed_mla",  # Blackwell only
            tp_size=8,
        )
    ''')
    assert fix(text) == text.replace(
        '  # Blackwell only\n', '  # Blackwell only\n    kv_cache_dtype="fp8_e4m3",\n'
    )


def test_keyword_added_after_a_last_argument_without_trailing_comma() -> None:
    text = dedent('''
        from sglang import Engine

        engine = Engine(
            model_path='deepseek-ai/DeepSeek-V3',
            attention_backend='tokenspeed_mla'
        )
    ''')
    assert fix(text) == dedent('''
        from sglang import Engine

        engine = Engine(
            model_path='deepseek-ai/DeepSeek-V3',
            attention_backend='tokenspeed_mla',
            kv_cache_dtype='fp8_e4m3'
        )
    ''')


def test_keyword_added_inline_in_the_calls_quote_style() -> None:
    text = "import sglang\nsglang.Engine(model_path='deepseek-ai/DeepSeek-R1', attention_backend='tokenspeed_mla', tp_size=8)\n"
    assert fix(text) == (
        "import sglang\nsglang.Engine(model_path='deepseek-ai/DeepSeek-R1', attention_backend='tokenspeed_mla', "
        "kv_cache_dtype='fp8_e4m3', tp_size=8)\n"
    )


def test_keyword_value_replaced_inside_its_string() -> None:
    text = 'from sglang.srt.server_args import ServerArgs\nargs = ServerArgs(model_path="deepseek-ai/DeepSeek-V3", kv_cache_dtype="bf16", attention_backend="tokenspeed_mla")\n'
    assert fix(text) == text.replace('"bf16"', '"fp8_e4m3"')


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            'Engine(model_path="Qwen/Qwen3-8B", attention_backend="tokenspeed_mla", tp_size=2)',
            'Engine(model_path="Qwen/Qwen3-8B", tp_size=2)',
            id="middle-inline",
        ),
        pytest.param(
            'Engine(model_path="Qwen/Qwen3-8B", attention_backend="tokenspeed_mla")',
            'Engine(model_path="Qwen/Qwen3-8B")',
            id="last-inline",
        ),
        pytest.param(
            'Engine(model_path="Qwen/Qwen3-8B", attention_backend="tokenspeed_mla",)',
            'Engine(model_path="Qwen/Qwen3-8B",)',
            id="last-with-trailing-comma",
        ),
        pytest.param(
            'Engine(\n    model_path="Qwen/Qwen3-8B",\n    attention_backend="tokenspeed_mla",  # fast\n    tp_size=2,\n)',
            'Engine(\n    model_path="Qwen/Qwen3-8B",\n    tp_size=2,\n)',
            id="own-line-with-comment",
        ),
        pytest.param(
            'Engine(\n    model_path="Qwen/Qwen3-8B",\n    attention_backend="tokenspeed_mla"\n)',
            'Engine(\n    model_path="Qwen/Qwen3-8B",\n)',
            id="own-line-last",
        ),
        pytest.param(
            'Engine(model_path="Qwen/Qwen3-8B",\n       attention_backend="tokenspeed_mla")',
            'Engine(model_path="Qwen/Qwen3-8B")',
            id="continuation-line-last",
        ),
    ],
)
def test_keyword_removed_with_its_comma(before: str, after: str) -> None:
    head = "from sglang import Engine\n"
    assert fix(head + before + "\n") == head + after + "\n"


def test_dict_splat_edited_in_place_in_its_style() -> None:
    text = dedent('''
        import sglang as sgl

        def main():
            engine_kwargs = {
                "model_path": "deepseek-ai/DeepSeek-V3",
                "attention_backend": "tokenspeed_mla",
                "mem_fraction_static": 0.85,
            }
            return sgl.Engine(**engine_kwargs, log_level="info")
    ''')
    assert fix(text) == text.replace(
        '"tokenspeed_mla",\n', '"tokenspeed_mla",\n        "kv_cache_dtype": "fp8_e4m3",\n'
    )


def test_dict_splat_entry_removed() -> None:
    text = "import sglang as sgl\nkw = {'model_path': 'Qwen/Qwen3-8B', 'attention_backend': 'tokenspeed_mla', 'tp_size': 2}\nsgl.Engine(**kw)\n"
    assert fix(text) == "import sglang as sgl\nkw = {'model_path': 'Qwen/Qwen3-8B', 'tp_size': 2}\nsgl.Engine(**kw)\n"


def test_dict_call_splat_gets_a_keyword() -> None:
    text = dedent('''
        import sglang as sgl

        kwargs = dict(model_path="deepseek-ai/DeepSeek-V3", attention_backend="tokenspeed_mla")
        llm = sgl.Engine(**kwargs)
    ''')
    assert fix(text) == text.replace(
        'attention_backend="tokenspeed_mla")', 'attention_backend="tokenspeed_mla", kv_cache_dtype="fp8_e4m3")'
    )


def test_boolean_written_false_is_turned_on_in_place() -> None:
    from autofix.model import NewFlag

    text = "import sglang as sgl\nsgl.Engine(model_path='deepseek-ai/DeepSeek-V3', attention_backend='fa3', enable_dp_attention=False)\n"
    (launch,) = launches(text)
    backend = launch.flag("attention_backend")
    option = launch.table.by_dest("enable_dp_attention")
    edits = backend.name.container.insert_after(backend.args, NewFlag(option, None, joined=False))
    assert [(text[e.span.start : e.span.end], e.text) for e in edits] == [("False", "True")]


def test_module_constants_resolve_but_are_not_edited() -> None:
    text = dedent('''
        import sglang as sgl

        MODEL = "deepseek-ai/DeepSeek-V3"
        KV_DTYPE = "bf16"
        llm = sgl.Engine(model_path=MODEL, attention_backend="tokenspeed_mla", kv_cache_dtype=KV_DTYPE)
    ''')
    (launch,) = launches(text)
    assert argv(launch) == [
        "--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "tokenspeed_mla", "--kv-cache-dtype", "bf16",
    ]
    assert findings(text) == [(KV, Applicability.DISPLAY.value)]
    assert fix(text) == text


def test_constant_backend_still_gets_the_kv_keyword_beside_it() -> None:
    text = "import sglang as sgl\nBACKEND = 'tokenspeed_mla'\nsgl.Engine(model_path='deepseek-ai/DeepSeek-V3', attention_backend=BACKEND)\n"
    assert fix(text) == text.replace("attention_backend=BACKEND)", "attention_backend=BACKEND, kv_cache_dtype='fp8_e4m3')")


def test_dict_read_twice_is_display_only() -> None:
    text = dedent('''
        import sglang as sgl

        KW = {"model_path": "deepseek-ai/DeepSeek-V3", "attention_backend": "tokenspeed_mla"}
        a = sgl.Engine(**KW)
        b = sgl.Engine(**KW, tp_size=2)
    ''')
    assert findings(text) == [(KV, "display-only")]  # one place, however many launches read it
    assert fix(text) == text


def test_a_splat_cannot_override_a_written_keyword() -> None:
    text = dedent('''
        import sglang as sgl

        def make(**overrides):
            return sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="tokenspeed_mla", **overrides)
    ''')
    (launch,) = launches(text)
    assert argv(launch) == ["*", "--model-path", "Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla"]
    assert launch.flag("attention_backend").value == "tokenspeed_mla"
    # The splat may hold an override of the architecture: the finding is for the keywords
    # written, with no fix, since Python refuses a keyword passed twice.
    assert findings(text) == [(NON_MLA, None)]


def test_kwargs_pass_through_gets_the_finding_without_a_fix() -> None:
    text = dedent('''
        import sglang as sgl
        def make(**kwargs):
            return sgl.Engine(model_path='deepseek-ai/DeepSeek-V3', attention_backend='tokenspeed_mla', **kwargs)
    ''')
    result = fix_text(Source(text), PYTHON, Settings(select(["ALL"]), unsafe=True), fix=True)
    assert [(r.fixer.name, r.fix) for r in result.findings] == [(KV, None)]
    assert "`kwargs` may add others" in result.findings[0].finding.message
    assert result.text == text


def test_dict_updated_before_the_launch_is_unknown() -> None:
    text = dedent('''
        import sglang as sgl

        kw = {"model_path": "deepseek-ai/DeepSeek-V3", "attention_backend": "tokenspeed_mla"}
        kw.update(extra)
        sgl.Engine(**kw)
    ''')
    assert findings(text) == []


def test_unknown_values_and_booleans() -> None:
    text = dedent('''
        from sglang.srt.server_args import ServerArgs

        def build(path, tp):
            return ServerArgs(
                model_path=path,
                tp_size=tp,
                enable_dp_attention=False,
                trust_remote_code=True,
                skip_server_warmup=tp > 1,
                attention_backend=None,
            )
    ''')
    (launch,) = launches(text)
    # False and None write nothing; a boolean of unknown value may set its flag.
    assert argv(launch) == ["--model-path", None, "--tp-size", None, "--trust-remote-code", None]
    assert launch.form == "engine"


def test_launch_server_of_server_args_starts_at_the_outer_call() -> None:
    text = dedent('''
        from sglang.srt.entrypoints.http_server import launch_server
        from sglang.srt.server_args import ServerArgs

        # autofix: ignore[SGL001]
        launch_server(
            ServerArgs(model_path="deepseek-ai/DeepSeek-V3", attention_backend="tokenspeed_mla")
        )
    ''')
    (launch,) = launches(text)
    assert Source(text).line_col(launch.span.start) == (5, 1)
    assert findings(text) == []


# -- argument vectors -----------------------------------------------------------------------


def test_popen_other_args_one_per_line() -> None:
    text = dedent('''
        from sglang.test.test_utils import DEFAULT_URL_FOR_TEST, popen_launch_server

        process = popen_launch_server(
            "deepseek-ai/DeepSeek-V3",
            DEFAULT_URL_FOR_TEST,
            timeout=600,
            other_args=[
                "--tp",
                8,
                "--attention-backend",
                "tokenspeed_mla",
            ],
        )
    ''')
    (launch,) = launches(text)
    assert argv(launch) == ["--model-path", "deepseek-ai/DeepSeek-V3", "--tp", "8", "--attention-backend", "tokenspeed_mla"]
    assert launch.form == "serve"
    assert fix(text) == text.replace(
        '"tokenspeed_mla",\n', '"tokenspeed_mla",\n        "--kv-cache-dtype",\n        "fp8_e4m3",\n'
    )


def test_argv_pairs_per_line_get_a_pair_line() -> None:
    text = dedent('''
        import subprocess

        cmd = [
            "python3", "-m", "sglang.launch_server",
            "--model-path", "deepseek-ai/DeepSeek-V3",
            "--attention-backend", "tokenspeed_mla",
        ]
        subprocess.Popen(cmd)
    ''')
    assert fix(text) == text.replace(
        '"tokenspeed_mla",\n', '"tokenspeed_mla",\n    "--kv-cache-dtype", "fp8_e4m3",\n'
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla", "--port", "30000"]',
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--port", "30000"]',
            id="inline",
        ),
        pytest.param(
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla"]',
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]',
            id="inline-last",
        ),
        pytest.param(
            '[\n    "python3", "-m", "sglang.launch_server",\n    "--model-path", "Qwen/Qwen3-8B",\n'
            '    "--attention-backend", "tokenspeed_mla",\n    "--port", "30000",\n]',
            '[\n    "python3", "-m", "sglang.launch_server",\n    "--model-path", "Qwen/Qwen3-8B",\n'
            '    "--port", "30000",\n]',
            id="pair-on-its-line",
        ),
        pytest.param(
            '[\n    "python3",\n    "-m",\n    "sglang.launch_server",\n    "--model-path",\n    "Qwen/Qwen3-8B",\n'
            '    "--attention-backend",\n    "tokenspeed_mla"\n]',
            '[\n    "python3",\n    "-m",\n    "sglang.launch_server",\n    "--model-path",\n    "Qwen/Qwen3-8B",\n]',
            id="one-per-line-last-without-comma",
        ),
        pytest.param(
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B",\n'
            ' "--attention-backend=tokenspeed_mla",\n "--port", "30000"]',
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B",\n "--port", "30000"]',
            id="joined-flag-on-its-line",
        ),
    ],
)
def test_argv_elements_removed_with_their_commas(before: str, after: str) -> None:
    head = "import subprocess\nsubprocess.run("
    assert fix(head + before + ")\n") == head + after + ")\n"


def test_straight_line_extensions_are_known_and_edited_where_written() -> None:
    text = dedent('''
        import subprocess
        import sys

        def serve(port):
            cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3"]
            cmd += ["--attention-backend", "tokenspeed_mla"]
            cmd.extend(["--port", str(port)])
            return subprocess.Popen(cmd)
    ''')
    (launch,) = launches(text)
    assert argv(launch) == ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "tokenspeed_mla", "--port", None]
    assert fix(text) == text.replace('"tokenspeed_mla"]', '"tokenspeed_mla", "--kv-cache-dtype", "fp8_e4m3"]')


def test_appends_are_edited_a_line_at_a_time() -> None:
    text = dedent('''
        import subprocess

        cmd = ["sglang", "serve", "--model-path", "Qwen/Qwen3-8B"]
        cmd.append("--attention-backend")
        cmd.append("tokenspeed_mla")
        cmd.append("--trust-remote-code")
        subprocess.run(cmd, check=True)
    ''')
    assert fix(text) == text.replace('cmd.append("--attention-backend")\ncmd.append("tokenspeed_mla")\n', "")


def test_appended_flag_gets_append_lines() -> None:
    text = dedent('''
        import subprocess

        def serve():
            cmd = ["sglang", "serve", "--model-path", "deepseek-ai/DeepSeek-V3"]
            cmd.append('--attention-backend')
            cmd.append('tokenspeed_mla')
            subprocess.run(cmd)
    ''')
    assert fix(text) == text.replace(
        "cmd.append('tokenspeed_mla')\n",
        "cmd.append('tokenspeed_mla')\n    cmd.append('--kv-cache-dtype')\n    cmd.append('fp8_e4m3')\n",
    )


def test_list_read_by_two_launches_is_display_only() -> None:
    text = dedent('''
        from sglang.test.test_utils import DEFAULT_URL_FOR_TEST, popen_launch_server

        ARGS = ["--attention-backend", "tokenspeed_mla"]
        a = popen_launch_server("deepseek-ai/DeepSeek-V3", DEFAULT_URL_FOR_TEST, 600, None, ARGS)
        b = popen_launch_server("deepseek-ai/DeepSeek-R1", DEFAULT_URL_FOR_TEST, 600, None, ARGS)
    ''')
    assert findings(text) == [(KV, "display-only")]  # one place, however many launches read it


def test_exec_style_and_prepare_server_args() -> None:
    text = dedent('''
        import asyncio
        from sglang.srt.server_args import prepare_server_args

        async def main():
            await asyncio.create_subprocess_exec("sglang", "serve", "Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla")

        server_args = prepare_server_args(["--model-path", "Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla"])
    ''')
    first, second = launches(text)
    assert (first.form, argv(first)) == ("serve", ["Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla"])
    assert (second.form, argv(second)) == ("launch_server", ["--model-path", "Qwen/Qwen3-8B", "--attention-backend", "tokenspeed_mla"])
    assert fix(text) == text.replace(', "--attention-backend", "tokenspeed_mla"', "")


def test_append_under_a_condition_makes_later_arguments_unknown() -> None:
    text = dedent('''
        import subprocess

        def serve(fp8):
            cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3",
                   "--attention-backend", "tokenspeed_mla"]
            if fp8:
                cmd += ["--kv-cache-dtype", "fp8_e4m3"]
            subprocess.Popen(cmd)
    ''')
    (launch,) = launches(text)
    assert argv(launch)[-1] == "*"
    assert findings(text) == []


@pytest.mark.parametrize(
    "between",
    [
        pytest.param("add_common_args(args)", id="handed-to-a-function"),
        pytest.param("extra = args\n    extra += ['--kv-cache-dtype', 'fp8_e4m3']", id="aliased"),
        pytest.param("args[1] = 'fa3'", id="item-set"),
    ],
)
def test_list_that_may_change_before_the_launch_is_unknown_from_there(between: str) -> None:
    text = (
        "from sglang.test.test_utils import DEFAULT_URL_FOR_TEST, popen_launch_server\n\n"
        "def setup():\n"
        "    args = ['--attention-backend', 'tokenspeed_mla']\n"
        f"    {between}\n"
        "    return popen_launch_server('deepseek-ai/DeepSeek-V3', DEFAULT_URL_FOR_TEST, 600, other_args=args)\n"
    )
    (launch,) = launches(text)
    assert argv(launch)[-1] == "*"
    assert findings(text) == []


def test_printing_or_joining_a_list_does_not_change_it() -> None:
    text = dedent('''
        import logging
        import subprocess

        logger = logging.getLogger(__name__)

        def serve():
            cmd = ["sglang", "serve", "deepseek-ai/DeepSeek-V3", "--attention-backend", "tokenspeed_mla"]
            print(cmd)
            logger.info("launching: %s", " ".join(cmd))
            return subprocess.Popen(cmd)
    ''')
    assert fix(text) == text.replace('"tokenspeed_mla"]', '"tokenspeed_mla", "--kv-cache-dtype", "fp8_e4m3"]')


def test_dict_whose_entry_is_reassigned_is_unknown() -> None:
    text = dedent('''
        import sglang as sgl

        kw = {"model_path": "deepseek-ai/DeepSeek-V3", "attention_backend": "tokenspeed_mla"}
        kw["attention_backend"] = "fa3"
        sgl.Engine(**kw)
    ''')
    assert findings(text) == []


def test_interpreter_in_a_variable_and_a_rest_splat() -> None:
    text = dedent('''
        import subprocess

        def serve(python, extra):
            subprocess.Popen([python, "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3",
                              "--attention-backend", "tokenspeed_mla", *extra])
    ''')
    (launch,) = launches(text)
    assert argv(launch) == ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "tokenspeed_mla", "*"]
    # The rest may set --kv-cache-dtype: reported for the flags written, the fix unsafe and before it.
    assert findings(text) == [(KV, "unsafe")]
    fixed = fix_text(Source(text), PYTHON, Settings(select(["ALL"]), unsafe=True), fix=True).text
    assert '"tokenspeed_mla", "--kv-cache-dtype", "fp8_e4m3", *extra]' in fixed


# -- command strings ------------------------------------------------------------------------


def test_continued_line_of_a_triple_quoted_command_is_removed_whole() -> None:
    text = dedent('''
        from sglang.utils import launch_server_cmd

        server_process, port = launch_server_cmd(
            """
        python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct \\
            --attention-backend tokenspeed_mla \\
            --host 0.0.0.0
        """
        )
    ''')
    assert fix(text) == text.replace("    --attention-backend tokenspeed_mla \\\n", "")


def test_raw_string_continuations_get_a_new_continued_line() -> None:
    text = dedent('''
        import os

        os.system(r"""
        python3 -m sglang.launch_server \\
            --model-path deepseek-ai/DeepSeek-V3 \\
            --attention-backend tokenspeed_mla \\
            --port 30000
        """)
    ''')
    assert fix(text) == text.replace(
        "tokenspeed_mla \\\n", "tokenspeed_mla \\\n    --kv-cache-dtype fp8_e4m3 \\\n"
    )


def test_escaped_newlines_spelled_as_escapes() -> None:
    text = (
        "import subprocess\n"
        'subprocess.run("python3 -m sglang.launch_server \\\\\\n  --model-path deepseek-ai/DeepSeek-V3 \\\\\\n'
        '  --attention-backend tokenspeed_mla", shell=True)\n'
    )
    assert fix(text) == text.replace(
        'tokenspeed_mla"', 'tokenspeed_mla \\\\\\n  --kv-cache-dtype fp8_e4m3"'
    )


def test_docs_style_command_gets_a_continued_line_of_its_own() -> None:
    text = dedent('''
        from sglang.utils import launch_server_cmd

        server_process, port = launch_server_cmd(
            """
        python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 \\
            --attention-backend tokenspeed_mla \\
            --host 0.0.0.0
        """
        )
    ''')
    assert fix(text) == text.replace(
        "tokenspeed_mla \\\n", "tokenspeed_mla \\\n    --kv-cache-dtype fp8_e4m3 \\\n"
    )


def test_continuation_inside_shell_quotes_is_read_as_python_does() -> None:
    # Python drops the backslash-newline; inside shell quotes a shell would keep it,
    # so the string is read as its Python value and the flag goes on the same line.
    text = dedent('''
        import os

        os.system("""python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla \\
            --chat-template '{{ messages \\
            }}'""")
    ''')
    (launch,) = launches(text)
    assert launch.args[-1].text == "{{ messages     }}"
    assert fix(text) == text.replace("tokenspeed_mla \\\n", "tokenspeed_mla --kv-cache-dtype fp8_e4m3 \\\n")


def test_value_spelled_with_an_escape_is_not_rewritten() -> None:
    text = (
        "import os\n"
        'os.system("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 '
        '--attention-backend tokenspeed_mla --kv-cache-dtype bf\\x316")\n'
    )
    (launch,) = launches(text)
    assert launch.flag("kv_cache_dtype").value == "bf16"
    assert findings(text) == [(KV, "display-only")]
    assert fix(text) == text


def test_adjacent_literals_of_one_kind_are_edited_across_the_join() -> None:
    text = dedent('''
        from sglang.utils import launch_server_cmd

        launch_server_cmd(
            "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
            "--attention-backend tokenspeed_mla "
            "--port 30000"
        )
    ''')
    assert fix(text) == text.replace('    "--attention-backend tokenspeed_mla "\n', "")


def test_adjacent_literals_of_mixed_kinds_are_not_edited() -> None:
    text = dedent('''
        from sglang.utils import launch_server_cmd

        launch_server_cmd(
            "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
            r"--attention-backend tokenspeed_mla "
            "--port 30000"
        )
    ''')
    assert findings(text) == [(NON_MLA, "display-only")]


def test_fstring_fields_resolve_from_constants_or_stay_unknown() -> None:
    text = dedent('''
        import subprocess

        MODEL = "deepseek-ai/DeepSeek-V3"

        def serve(port):
            subprocess.run(f"python3 -m sglang.launch_server --model-path {MODEL} --attention-backend tokenspeed_mla", shell=True)
            subprocess.run(f"python3 -m sglang.launch_server --model-path {MODEL} --attention-backend tokenspeed_mla --port {port}", shell=True)
    ''')
    first, second = launches(text)
    assert argv(first) == ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "tokenspeed_mla"]
    assert argv(second)[-1] == "*"  # a field may stand for several words ...
    assert second.flag("port").values[0].splat  # ... but after --port it is the port, unknown
    assert fix(text) == text.replace(
        'tokenspeed_mla", shell=True)', 'tokenspeed_mla --kv-cache-dtype fp8_e4m3", shell=True)', 1
    ).replace('tokenspeed_mla --port', 'tokenspeed_mla --kv-cache-dtype fp8_e4m3 --port')
    opened = text.replace("--port {port}", "{port}")
    (_, passthrough) = launches(opened)
    assert passthrough.written_dests() is None  # where a flag may stand, a field may write any
    assert fix(opened).count("--kv-cache-dtype") == 1


def test_fstring_braces_are_doubled_when_inserted() -> None:
    from autofix.formats.python.strings import _speller

    spell = _speller("f", '"', "\n")
    assert spell('--json-model-override-args {"a": 1}') == '--json-model-override-args {{\\"a\\": 1}}'
    assert _speller("r", "'", "\n")("a\nb") is None  # no newline in a one-line raw string


def test_command_string_held_in_a_variable_read_once_is_edited() -> None:
    text = dedent('''
        import subprocess

        command = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla"
        print(command)
        subprocess.Popen(command, shell=True)
    ''')
    assert fix(text) == text.replace("tokenspeed_mla\"\n", "tokenspeed_mla --kv-cache-dtype fp8_e4m3\"\n")


@pytest.mark.parametrize(
    "call",
    [
        "subprocess.Popen(shlex.split('{}'))",
        "subprocess.Popen('{}'.split())",
        "subprocess.Popen(['bash', '-c', '{}'])",
    ],
)
def test_split_and_shell_c_strings_are_read_as_commands(call: str) -> None:
    head = "import shlex, subprocess\n"
    text = head + call.format("sglang serve Qwen/Qwen3-8B --attention-backend tokenspeed_mla") + "\n"
    assert fix(text) == head + call.format("sglang serve Qwen/Qwen3-8B") + "\n"


# -- offsets, newlines, syntax -------------------------------------------------------------


def test_crlf_and_non_ascii_offsets() -> None:
    text = dedent('''
        # 启动服务器 — démarrage
        import sglang as sgl

        llm = sgl.Engine(
            model_path="deepseek-ai/DeepSeek-V3",  # modèle
            attention_backend="tokenspeed_mla",
        )
        cmd = """python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 \\
            --attention-backend tokenspeed_mla"""
        import os; os.system(cmd)
    ''').replace("\n", "\r\n")
    assert fix(text) == text.replace(
        '"tokenspeed_mla",\r\n', '"tokenspeed_mla",\r\n    kv_cache_dtype="fp8_e4m3",\r\n'
    ).replace('tokenspeed_mla"""', 'tokenspeed_mla \\\r\n    --kv-cache-dtype fp8_e4m3"""')


def test_syntax_error_is_reported_with_its_line() -> None:
    text = "import sglang as sgl\n\nllm = sgl.Engine(model_path='x',\n"
    assert syntax_errors(text) == 1
    with pytest.raises(PythonSyntaxError, match=r"^line 3: "):
        find_launches(Source(text), table(None))
    assert syntax_errors("import sglang\n") == 0


def test_format_module_is_loaded_through_the_registry() -> None:
    assert load(PYTHON).find_launches is find_launches


# -- SGLang's own parser accepts every fixed launch ----------------------------------------------


FIXED_PY = sorted(FIXTURES.rglob("*.fixed.py"))


@pytest.fixture(scope="module")
def sglang_verdicts() -> dict[Path, list[tuple[list[str], dict]]]:
    """SGLang's parser on every fully known launch of every .fixed.py, one oracle run per release."""
    oracle = pytest.importorskip("oracle", reason="tests/oracle.py (SGLang's parser) is not in this checkout")
    from autofix.pipeline import release_in_text

    by_release: dict[str, list[tuple[Path, list[str]]]] = {}
    for case in FIXED_PY:
        text = case.read_text(encoding="utf-8")
        release = release_in_text(text) or "0.5.22"
        for launch in find_launches(Source(text), table(release), release=release):
            if launch.form == "engine":
                continue  # keywords never meet the parser: ServerArgs(attention_backend="FA3") constructs
            tokens = argv_of(launch)  # keyword launches as their flags
            if tokens is not None:
                by_release.setdefault(release, []).append((case, tokens))
    verdicts: dict[Path, list[tuple[list[str], dict]]] = {}
    for release, cases in by_release.items():
        oracle.require(release)
        # A --config file is read beside its fixture: one batch per folder.
        for folder in sorted({c.parent for c, _ in cases}):
            batch = [(c, t) for c, t in cases if c.parent == folder]
            for (case, tokens), result in zip(batch, oracle.parse(release, [t for _, t in batch], cwd=folder)):
                verdicts.setdefault(case, []).append((tokens, result))
    return verdicts


@pytest.mark.parametrize("case", FIXED_PY, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_sglang_parses_every_fixed_python_launch(case: Path, sglang_verdicts) -> None:  # noqa: ANN001
    if case not in sglang_verdicts:
        pytest.skip("no launch in this file is fully known")
    for tokens, result in sglang_verdicts[case]:
        assert result["ok"], f"SGLang refuses {tokens}: {result['error']}"
