"""The text format as a person sees it: snapshots with colour off and forced on, the
underline under exact columns, the summary line, coloured diffs, the progress line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from autofix.cli import main
from autofix.edits import Edit, Fix
from autofix.fixer import Finding, Fixer
from autofix.output.terminal import Progress, Style, finding_block, summary, use_colour
from autofix.pipeline import Reported
from autofix.source import Source, Span

BAD = (
    "#!/bin/bash\n"
    "python3 -m sglang.launch_server \\\n"
    "    --model-path deepseek-ai/DeepSeek-V3 \\\n"
    "    --attention-backend tokenspeed_mla \\\n"
    "    --port 30000\n"
)
DISPLAY_ONLY = (
    "KV=bf16\n"
    "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
    '--attention-backend tokenspeed_mla --kv-cache-dtype "$KV"\n'
)
MESSAGE = "`tokenspeed_mla` needs `--kv-cache-dtype fp8_e4m3`, got `auto`"

A_BLOCK = (
    f"a.sh:4:5: SGL001 [tokenspeed-mla-without-fp8-kv-cache] {MESSAGE}\n"
    "  |\n"
    "4 |     --attention-backend tokenspeed_mla \\\n"
    "  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "  = [*] fix: Set `--kv-cache-dtype fp8_e4m3`\n"
    "\n"
)
B_BLOCK = (
    f"b.sh:2:105: SGL001 [tokenspeed-mla-without-fp8-kv-cache] {MESSAGE.replace('auto', 'bf16')}\n"
    "  |\n"
    '2 | ...k-V3 --attention-backend tokenspeed_mla --kv-cache-dtype "$KV"\n'
    "  |                                            ^^^^^^^^^^^^^^^^^^^^^^\n"
    "  = suggestion: Set `--kv-cache-dtype fp8_e4m3`\n"
    "\n"
)
PLAIN = A_BLOCK + B_BLOCK + "2 findings in 2 files, 1 fixable with --fix\n"
PLAIN_A = A_BLOCK + "1 finding in 1 file, 1 fixable with --fix\n"

B, R, BL, C, G, X = "\x1b[1m", "\x1b[1;31m", "\x1b[1;34m", "\x1b[1;36m", "\x1b[32m", "\x1b[0m"
COLOURED = (
    f"{B}a.sh{X}:4:5: {R}SGL001{X} [tokenspeed-mla-without-fp8-kv-cache] {MESSAGE}\n"
    f"  {BL}|{X}\n"
    f"{BL}4{X} {BL}|{X}     --attention-backend tokenspeed_mla \\\n"
    f"  {BL}|{X}     {R}^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^{X}\n"
    f"  {BL}={X} {C}[*]{X} fix: Set `--kv-cache-dtype fp8_e4m3`\n"
    "\n"
    f"{B}1 finding in 1 file, 1 fixable with --fix{X}\n"
)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "a.sh").write_text(BAD)
    (tmp_path / "b.sh").write_text(DISPLAY_ONLY)
    return tmp_path


def invoke(*args: str, env: dict[str, str] | None = None):  # noqa: ANN201
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


# -- the whole report, through the command line -------------------------------------------


def test_plain_report_snapshot(tree: Path) -> None:
    result = invoke("a.sh", "b.sh")
    assert result.exit_code == 1
    assert result.stdout == PLAIN


def test_coloured_report_snapshot(tree: Path) -> None:
    result = invoke("--color", "always", "a.sh")
    assert result.stdout == COLOURED


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ((), {}, False),  # not a terminal
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # NO_COLOR wins over FORCE_COLOR
        ((), {"NO_COLOR": ""}, False),  # an empty NO_COLOR means unset
        (("--color", "always"), {"NO_COLOR": "1"}, True),  # the command line wins over both
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
    ],
)
def test_when_colour_is_on(tree: Path, args: tuple[str, ...], env: dict[str, str], coloured: bool) -> None:
    result = invoke(*args, "a.sh", env=env)
    assert result.stdout == (COLOURED if coloured else PLAIN_A)


def test_machine_formats_never_colour(tree: Path) -> None:
    for fmt in ("json", "json-lines", "github", "sarif"):
        plain = invoke("--format", fmt, "a.sh")
        forced = invoke("--format", fmt, "--color", "always", "a.sh", env={"FORCE_COLOR": "1"})
        assert forced.stdout == plain.stdout
        assert "\x1b[" not in plain.stdout


def test_diff_is_coloured_only_when_asked(tree: Path) -> None:
    plain = invoke("--diff", "a.sh")
    assert "\x1b[" not in plain.stdout
    coloured = invoke("--diff", "--color", "always", "a.sh")
    assert coloured.stdout == (
        f"{B}--- a/a.sh{X}\n{B}+++ b/a.sh{X}\n\x1b[36m@@ -2,4 +2,5 @@{X}\n"
        " python3 -m sglang.launch_server \\\n"
        "     --model-path deepseek-ai/DeepSeek-V3 \\\n"
        "     --attention-backend tokenspeed_mla \\\n"
        f"{G}+    --kv-cache-dtype fp8_e4m3 \\{X}\n"
        "     --port 30000\n"
    )


def test_fix_reports_what_remains_without_a_summary_on_stdout(tree: Path) -> None:
    result = invoke("--fix", "a.sh", "b.sh")
    assert result.exit_code == 1
    assert result.stdout.startswith("b.sh:2:105: SGL001")
    assert "a.sh:" not in result.stdout
    assert "Fixed 1 finding(s) in 1 file(s); 1 remaining." in result.stderr


# -- one finding, in detail ----------------------------------------------------------------


def _fixer(code: str = "SGL900", name: str = "demo-rule") -> Fixer:
    return Fixer(code, name, "0" * 16, "x", ("0.5.17", "0.5.23"), lambda launch: iter(()))


def _reported(text: str, start: int, end: int, fix: Fix | None = None) -> tuple[Source, Reported]:
    source = Source(text)
    (line, column), (end_line, end_column) = source.line_col(start), source.line_col(end)
    finding = Finding(Span(start, end), "demo message", fix)
    return source, Reported(_fixer(), finding, line, column, end_line, end_column, 1)


def test_multi_line_span_is_underlined_on_its_first_line() -> None:
    text = "llm = sgl.Engine(\n    attention_backend=(\n        'tokenspeed_mla'),\n)\n"
    start = text.index("attention_backend")
    source, r = _reported(text, start, text.index(")"), None)
    assert finding_block("x.py", r, source, Style(False), unsafe=False) == (
        "x.py:2:5: SGL900 [demo-rule] demo message\n"
        "  |\n"
        "2 |     attention_backend=(\n"
        "  |     ^^^^^^^^^^^^^^^^^^^\n"
    )


def test_tabs_wide_characters_and_crlf_keep_the_carets_under_the_flag() -> None:
    text = "# x\r\n\tMODEL=模型 --attention-backend tokenspeed_mla\r\n"
    start = text.index("--attention")
    source, r = _reported(text, start, start + len("--attention-backend tokenspeed_mla"))
    lines = finding_block("x.sh", r, source, Style(False), unsafe=False).splitlines()
    assert lines[2] == "2 |     MODEL=模型 --attention-backend tokenspeed_mla"
    # The tab shows as four columns, each CJK character as two.
    assert lines[3] == "  |" + " " * (1 + 4 + 6 + 4 + 1) + "^" * 34


def test_unsafe_fix_is_marked_only_when_unsafe_fixes_are_on() -> None:
    text = "sglang serve m --x 1\n"
    fix = Fix.unsafe("Remove `--x 1`", [Edit(Span(14, 20), "")])
    source, r = _reported(text, 15, 20, fix)
    assert finding_block("x.sh", r, source, Style(False), unsafe=False).splitlines()[-1] == (
        "  = unsafe fix: Remove `--x 1`"
    )
    assert finding_block("x.sh", r, source, Style(False), unsafe=True).splitlines()[-1] == (
        "  = [*] unsafe fix: Remove `--x 1`"
    )


def test_empty_span_gets_one_caret() -> None:
    source, r = _reported("sglang serve m\n", 14, 14)
    assert finding_block("x.sh", r, source, Style(False), unsafe=False).splitlines()[3] == "  |" + " " * 15 + "^"


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((1, 1, 1, 0), "1 finding in 1 file, 1 fixable with --fix"),
        ((3, 2, 3, 0), "3 findings in 2 files, 3 fixable with --fix"),
        ((3, 2, 2, 1), "3 findings in 2 files, 2 fixable with --fix, 1 more with --unsafe-fixes"),
        ((2, 1, 0, 0), "2 findings in 1 file"),
        ((2, 1, 0, 2), "2 findings in 1 file, 2 more with --unsafe-fixes"),
    ],
)
def test_summary_line(counts: tuple[int, int, int, int], expected: str) -> None:
    assert summary(*counts, Style(False)) == expected


# -- colour choice and the progress line ---------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_use_colour_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert use_colour("auto", _Terminal()) is True
    assert use_colour("auto", io.StringIO()) is False
    monkeypatch.setenv("TERM", "dumb")
    assert use_colour("auto", _Terminal()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_colour("auto", _Terminal()) is False
    assert use_colour("always", io.StringIO()) is True


def test_progress_shows_on_a_terminal_after_the_delay_and_clears() -> None:
    stream = _Terminal()
    progress = Progress(3, stream, delay=0.0)
    progress.step(1, "a.sh")
    assert stream.getvalue() == "\r\x1b[Kautofix: 1/3 files a.sh"
    progress.clear()
    assert stream.getvalue().endswith("\r\x1b[K")
    progress.clear()  # nothing shown: nothing to clear
    assert stream.getvalue().count("\r\x1b[K") == 2


def test_progress_is_silent_off_a_terminal_and_before_the_delay() -> None:
    piped = io.StringIO()
    Progress(3, piped, delay=0.0).step(1, "a.sh")
    assert piped.getvalue() == ""
    early = _Terminal()
    Progress(3, early, delay=60.0).step(1, "a.sh")
    assert early.getvalue() == ""
