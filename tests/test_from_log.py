"""`autofix --from-log`: every fixer's error, in a realistic SGLang log, names that fixer first."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.fixer import Fixer, all_fixers
from autofix.fromlog import match_log
from autofix.knowledge import catalogue

FIXERS = all_fixers()
# Those with an error record of their own (catalogue rules read the catalogue: test_from_log_catalogue).
RECORDED = [fx for fx in FIXERS if fx.rule is None]


def record_message(fx: Fixer) -> str:
    """The record's errorMessage, its placeholders filled as SGLang would print a value."""
    path = resources.files("autofix.knowledge").joinpath(f"records/{fx.record}.json")
    message = json.loads(path.read_text(encoding="utf-8"))["record"]["errorMessage"]
    # A fixer narrowing a generic message (argparse's) to one value is named by a log with that value.
    value = "'auto'" if fx.pattern in catalogue.patterns(fx.errors) or not fx.errors else "'None'"
    return re.sub(r"\{[^{}]*\}", value, message)


def server_log(error_class: str, message: str) -> str:
    """A startup log of `python -m sglang.launch_server` that dies in ServerArgs' checks."""
    return (
        "[2026-11-30 09:14:02] WARNING server_args.py:1312: Attention backend not specified. Use fa3 backend by default.\n"
        "[2026-11-30 09:14:02] INFO model_config.py:241: Downcasting torch.float32 to torch.bfloat16.\n"
        "[2026-11-30 09:14:03] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, "
        "attention_backend=None, kv_cache_dtype='auto', page_size=None, dcp_size=1)\n"
        "\x1b[33m[2026-11-30 09:14:03] WARNING common.py:88: Using default HuggingFace chat template\x1b[0m\n"
        "Traceback (most recent call last):\n"
        '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
        '  File "<frozen runpy>", line 88, in _run_code\n'
        '  File "/sgl-workspace/sglang/python/sglang/launch_server.py", line 32, in <module>\n'
        "    server_args = prepare_server_args(sys.argv[1:])\n"
        "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/server_args.py", line 9412, in prepare_server_args\n'
        "    return ServerArgs.from_cli_args(raw_args)\n"
        '  File "<string>", line 412, in __init__\n'
        '  File "/sgl-workspace/sglang/python/sglang/srt/server_args.py", line 871, in __post_init__\n'
        "    run_post_process_pass(self, fn)\n"
        f"{error_class}: {message}\n"
        "[2026-11-30 09:14:04] Received sigquit from a child process. It usually means the child failed.\n"
    )


def error_class(fx: Fixer) -> str:
    path = resources.files("autofix.knowledge").joinpath(f"records/{fx.record}.json")
    return json.loads(path.read_text(encoding="utf-8"))["record"].get("errorClass") or "ValueError"


def first(matches: list) -> set[str]:
    """The fixers named first: those matching the earliest line with the most literal text.

    Two fixers may share SGLang's wording (argparse's `unrecognized arguments: X`
    for an unknown and for a removed option); the log alone cannot tell them apart.
    """
    if not matches:
        return set()
    top = (matches[0].line, matches[0].literal)
    return {m.fixer.code for m in matches if (m.line, m.literal) == top}


@pytest.mark.parametrize("fx", RECORDED, ids=lambda fx: fx.name)
def test_record_message_in_a_log_names_its_fixer_first(fx: Fixer) -> None:
    log = server_log(error_class(fx), record_message(fx))
    matches = match_log(log, FIXERS)
    assert matches, f"{fx.code}: its record's message matches no pattern"
    assert fx.code in first(matches), [m.fixer.code for m in matches]
    assert matches[0].line == log.splitlines().index(next(l for l in log.splitlines() if l.startswith(error_class(fx)))) + 1


@pytest.mark.parametrize("fx", [fx for fx in RECORDED if fx.variants], ids=lambda fx: fx.name)
def test_each_variant_of_a_message_names_its_fixer(fx: Fixer) -> None:
    for variant in fx.variants:
        # A variant is a regex; unescape its literal text and fill its groups.
        text = re.sub(r"\(\.\+\?\)", "'auto'", variant)
        text = re.sub(r"\\(.)", r"\1", text)
        matches = match_log(server_log("ValueError", text), FIXERS)
        assert fx.code in first(matches), (variant, [m.fixer.code for m in matches])


def test_a_log_without_a_known_error_matches_nothing() -> None:
    assert match_log(server_log("RuntimeError", "CUDA out of memory. Tried to allocate 2.00 GiB"), FIXERS) == []


def test_each_fixer_is_named_once_at_its_first_line() -> None:
    fx = next(f for f in FIXERS if f.code == "SGL001")
    message = record_message(fx)
    log = server_log("ValueError", message) + f"[rank0] ValueError: {message}\n"
    matches = match_log(log, FIXERS)
    assert [m.fixer.code for m in matches] == ["SGL001"]
    assert matches[0].text == f"ValueError: {message}"


# -- the command line ----------------------------------------------------------------

SGL001_LOG = server_log("ValueError", "tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto.")
BAD = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla\n"
QWEN = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend tokenspeed_mla\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str, stdin: str | None = None):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def test_cli_names_the_fixer_and_what_to_write_instead(tree: Path) -> None:
    (tree / "server.log").write_text(SGL001_LOG)
    result = invoke("--from-log", "server.log")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("server.log:16: SGL001 [tokenspeed-mla-without-fp8-kv-cache] ")
    assert lines[1] == "  log: ValueError: tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto."
    assert "  use instead:" in lines
    assert any("--kv-cache-dtype fp8_e4m3" in line for line in lines)


def test_cli_json_and_stdin(tree: Path) -> None:
    result = invoke("--from-log", "-", "--format", "json", stdin=SGL001_LOG)
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert [(o["code"], o["name"], o["record"], o["line"]) for o in out] == [
        ("SGL001", "tokenspeed-mla-without-fp8-kv-cache", "50f82a4b5a705b9a", 16)
    ]
    assert out[0]["message"] == "tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto."


def test_cli_no_match_exits_zero(tree: Path) -> None:
    result = invoke("--from-log", "-", stdin="INFO: The server is fired up and ready to roll!\n")
    assert result.exit_code == 0
    assert "no fixer matches" in result.stdout
    assert json.loads(invoke("--from-log", "-", "--format", "json", stdin="ok\n").stdout) == []


def test_cli_unreadable_log_is_an_error(tree: Path) -> None:
    result = invoke("--from-log", "missing.log")
    assert result.exit_code == 2
    assert "missing.log: cannot read" in result.stderr


def test_cli_with_paths_checks_them_with_the_matched_fixers_only(tree: Path) -> None:
    (tree / "server.log").write_text(SGL001_LOG)
    (tree / "deepseek.sh").write_text(BAD)
    (tree / "qwen.sh").write_text(QWEN)  # SGL002's fault: not in this log
    result = invoke("--from-log", "server.log", "--format", "json", ".")
    assert result.exit_code == 1
    assert "SGL001" in result.stderr  # the log's matches go to stderr; stdout is the check's
    assert {(f["path"], f["code"]) for f in json.loads(result.stdout)} == {("deepseek.sh", "SGL001")}


def test_cli_with_paths_and_no_match_checks_nothing(tree: Path) -> None:
    (tree / "server.log").write_text("all good\n")
    (tree / "deepseek.sh").write_text(BAD)
    result = invoke("--from-log", "server.log", ".")
    assert result.exit_code == 0
    assert result.stdout == ""


def test_cli_stdin_twice_is_a_usage_error(tree: Path) -> None:
    result = invoke("--from-log", "-", "-", stdin="x\n")
    assert result.exit_code == 2
