"""How the Markdown format finds launches in fenced blocks and keeps edits inside them."""

from __future__ import annotations

import pytest

from autofix.fixer import select
from autofix.formats import MARKDOWN, detect
from autofix.formats.markdown import find_launches, syntax_errors
from autofix.knowledge.options import table
from autofix.model import Launch, Unresolvable
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

PIN = "sglang==0.5.18\n\n"
V3 = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --attention-backend tokenspeed_mla"


def launches(text: str) -> list[Launch]:
    return find_launches(Source(text), table(None))


def fixed(text: str) -> str:
    return fix_text(Source(text), MARKDOWN, Settings(select(["ALL"])), fix=True).text


@pytest.mark.parametrize("name", ["README.md", "docs/serve.mdx", "notes.markdown"])
def test_detected_by_name(name: str) -> None:
    assert detect(name) is MARKDOWN


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(f"Run `{V3}`.\n", id="inline-code"),
        pytest.param(f"    {V3}\n", id="indented-code-is-not-read"),
        pytest.param(f"```text\n{V3}\n```\n", id="text-block"),
        pytest.param(f"```\necho {V3}\n```\n", id="untagged-echo"),
        pytest.param(f"```console\n{V3}\n```\n", id="console-output-line"),
        pytest.param(f"<!-- autofix: ignore -->\n```bash\n{V3}\n```\n", id="ignored-block"),
        pytest.param(f"````markdown\n```bash\n{V3}\n```\n````\n", id="block-inside-a-markdown-block"),
    ],
)
def test_not_a_launch(text: str) -> None:
    assert launches(text) == []


def test_untagged_block_with_a_command() -> None:
    (launch,) = launches(f"~~~\n{V3}\n~~~\n")
    assert launch.form == "launch_server"


@pytest.mark.parametrize("tag", ["shellscript", "SH", "zsh"])
def test_editor_shell_tags(tag: str) -> None:  # `shellscript`: what VS Code and Cursor write
    (launch,) = launches(f"```{tag}\n{V3}\n```\n")
    assert launch.form == "launch_server"


@pytest.mark.parametrize("prompt", ["$ ", "(venv) $ ", "devuser@h200:~$ ", "root@node-1:/workspace# ", "  $ "])
def test_console_prompts_of_every_shape(prompt: str) -> None:
    text = f"```\n{prompt}{V3}\nLoading weights...\n```\n"
    (launch,) = launches(text)
    assert launch.span.start == text.index("python3")


def test_console_prompt_and_continuation() -> None:
    text = PIN + f"```console\n$ {V3} \\\n    --tp 8\nstarted\n```\n"
    assert fixed(text) == text.replace("tokenspeed_mla \\\n", "tokenspeed_mla --kv-cache-dtype fp8_e4m3 \\\n")


def test_blocks_do_not_share_variables() -> None:
    text = PIN + "```bash\nKV=fp8_e4m3\n```\n\n```bash\n" + V3 + " --kv-cache-dtype $KV\n```\n"
    (launch,) = launches(text)
    with pytest.raises(Unresolvable):
        _ = launch.flags[-1].value


def test_edit_stays_in_its_block_with_crlf() -> None:
    text = (PIN + f"```sh\n{V3} \\\n  --tp 8\n```\n").replace("\n", "\r\n")
    assert fixed(text) == text.replace("tokenspeed_mla \\\r\n", "tokenspeed_mla --kv-cache-dtype fp8_e4m3 \\\r\n")


def test_unclosed_block_runs_to_the_end() -> None:
    assert len(launches(f"```bash\n{V3}\n")) == 1


def test_syntax_errors_sum_over_blocks() -> None:
    text = "```bash\necho 'a\n```\n\n```python\ndef f(:\n```\n\n```yaml\nok: 1\n```\n"
    assert syntax_errors(text) >= 2
    assert syntax_errors(f"```bash\n{V3}\n```\n") == 0


def test_each_block_is_handed_over_at_about_its_own_size() -> None:
    # A long document must not cost a parse of the whole file per block: before the block is
    # one comment line (same length, so offsets stay the file's); nothing after it is handed over.
    from autofix.formats.markdown import _blocks, _mask

    launch = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"
    text = "".join(f"## Step {i}\n\nSome words é.\n\n```bash\n{launch}```\n\n" for i in range(200))
    blocks = list(_blocks(text))
    assert len(blocks) == 200
    handed = 0
    for block in blocks:
        masked = _mask(text, block)
        assert masked[block.start : block.end] == text[block.start : block.end]
        assert masked[: block.start].count("\n") == 1 and masked.startswith("#")
        assert len(masked) == block.end + 1
        handed += len(masked) - block.start
    assert handed < len(text)


def test_a_long_comment_header_is_left_out_of_the_shell_parse_with_the_same_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from autofix.formats import shell
    from autofix.formats.shell import tree as shell_tree

    header = "".join(f"# line {i} of a long licence header, é\n" for i in range(100))
    body = "MODEL=deepseek-ai/DeepSeek-V3\npython -m sglang.launch_server --model-path $MODEL \\\n  --tp 8\n"
    texts = [header + body, header + body.replace("--tp 8", "--tp 8 'unclosed")]
    assert all(shell_tree._after_leading_comments(t.encode()) is not None for t in texts)

    def seen(text: str) -> tuple[object, ...]:
        launches = shell.find_launches(Source(text), table())
        return shell.syntax_errors(text), [(la.span, [(a.text, a.span) for a in la.args]) for la in launches]

    skipped = [seen(t) for t in texts]
    monkeypatch.setattr(shell_tree, "_after_leading_comments", lambda data: None)
    assert [seen(t) for t in texts] == skipped
    (clean_errors, clean_launches), (broken_errors, _) = skipped
    assert clean_errors == 0 and len(clean_launches) == 1 and broken_errors > 0
