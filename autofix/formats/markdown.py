"""Markdown: launches in fenced code blocks, read by the block's own format.

A block tagged `bash`, `sh`, `shell`, `zsh` or `console` (or untagged, when it
names `sglang.launch_server` or `sglang serve`, unless it opens with a mapping
key such as `services:`: then it is YAML) is shell; `yaml`/`yml` is
YAML; `python`/`py` is Python. Each block is handed to its format as a
*masked* copy of the file up to the block's end: what comes before the block
is one comment line of the same length. The spans a format hands out are then
file offsets, and its edits stay inside the block.

A block with `$ ` prompts (always so for `console`) is a terminal session:
only prompt lines and their `\\` continuations are commands, and the prompt
itself is masked; the output lines in between are not read.

Suppression: the pipeline reads `autofix: ignore` on a launch's line or the
line before it. Inside a shell or Python block, a `# autofix: ignore[...]`
comment line before the command works as in a script. A comment
`<!-- autofix: ignore -->` on the line just before a block's opening fence
ignores the whole block (its launches are not returned). A coded
`<!-- autofix: ignore[CODE] -->` there cannot reach the pipeline (it reads the
file, not the masked copy) and is not honoured: put the comment inside the
block instead.

A block that its format cannot parse (a snippet with `...` in it) is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from autofix.formats import BLOCK_TAGS, PROMPT, launchjson, python, shell, systemd, yaml
from autofix.knowledge.options import OptionTable
from autofix.model import Launch
from autofix.source import Source

__all__ = ["find_launches", "syntax_errors"]

_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`{]*)")
_SHELL_TAGS, _YAML_TAGS, _PYTHON_TAGS, _JSON_TAGS, _SYSTEMD_TAGS = (
    BLOCK_TAGS[k] for k in ("shell", "yaml", "python", "json", "systemd"))
_COMMAND = re.compile(r"sglang\.launch_server|sglang serve")
_PROMPT = PROMPT
_IGNORE_BLOCK = re.compile(r"<!--\s*autofix:\s*ignore\s*-->")


@dataclass(frozen=True, slots=True)
class _Block:
    kind: str  # "shell", "console", "yaml", "python", "json" or "systemd"
    start: int  # the first character of the block's first line
    end: int  # the end of its last line, before the closing fence
    ignored: bool


def _lines(text: str) -> list[tuple[int, int]]:
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        out.append((at, at + len(line.rstrip("\r\n"))))
        at += len(line)
    return out


def _blocks(text: str) -> Iterator[_Block]:
    lines = _lines(text)
    i = 0
    while i < len(lines):
        start, end = lines[i]
        opener = _FENCE.match(text, start, end)
        if opener is None or opener[2][0] == "`" and "`" in text[opener.end() : end]:
            i += 1
            continue
        fence = opener[2]
        closer = re.compile(rf"[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*\Z")
        j = i + 1
        while j < len(lines) and not closer.match(text[lines[j][0] : lines[j][1]]):
            j += 1
        if j > i + 1:
            body_start, body_end = lines[i + 1][0], lines[j - 1][1]
            kind = _kind(opener[3].lower(), text[body_start:body_end])
            ignored = i > 0 and bool(_IGNORE_BLOCK.search(text, lines[i - 1][0], lines[i - 1][1]))
            if kind is not None:
                yield _Block(kind, body_start, body_end, ignored)
        i = j + 1


# An untagged block that opens with a mapping key (`services:`, `spec:`) is YAML, not a command.
_YAML_START = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[A-Za-z_][\w.-]*:(?:[ \t]|\n|\Z)")


def _kind(tag: str, body: str) -> str | None:
    if not tag and _COMMAND.search(body) and _YAML_START.match(body):
        return "yaml"
    if tag in _SHELL_TAGS or not tag and _COMMAND.search(body):
        console = tag in ("console", "shell-session", "shellsession") or any(
            _PROMPT.match(line) for line in body.splitlines()
        )
        return "console" if console else "shell"
    if tag in _YAML_TAGS:
        return "yaml"
    if tag in _PYTHON_TAGS:
        return "python"
    if tag in _JSON_TAGS:
        return "json"
    if tag in _SYSTEMD_TAGS and "Exec" in body:
        return "systemd"
    return None


def _mask(text: str, block: _Block) -> str:
    """The text up to the block's end holding only the block (for a console block: its commands).

    What comes before the block becomes one comment line of the same length, and
    the text stops after the block's last line, so that offsets are the file's and
    each block costs its format a parse of about its own size, not of the whole
    file (a long document has hundreds of blocks).
    """
    before = _comment_line(text[: block.start], "//" if block.kind == "json" else "#")
    after = text[block.end : block.end + 2]  # the block's last line break; nothing after it is read
    after = "\r\n" if after.startswith("\r\n") else after[:1] if after[:1] in ("\r", "\n") else ""
    if block.kind != "console":
        return before + text[block.start : block.end] + after
    out = [" " if ch not in "\r\n" else ch for ch in text[block.start : block.end]]
    continued = False
    for start, end in _lines(text[block.start : block.end]):
        line = text[block.start + start : block.start + end]
        prompt = _PROMPT.match(line)
        if prompt is None and not continued:
            continue
        out[start : start + len(line)] = line
        if prompt is not None and not continued:
            out[start : start + prompt.end()] = " " * prompt.end()
        continued = line.rstrip().endswith("\\")
    return before + "".join(out) + after


def _comment_line(text: str, opener: str = "#") -> str:
    """text's length as one comment line: opener (`#`, `//`) and spaces, and the line break that ends it."""
    body = text.rstrip("\r\n")
    brk = text[len(body) :]
    if not brk or 0 < len(body) < len(opener):  # only at the very start of the file
        return _BLANKS.sub(" ", text)
    return (opener + " " * (len(body) - len(opener)) if body else "") + brk


_BLANKS = re.compile(r"[^\r\n]")


_MODULES = {"shell": shell, "console": shell, "yaml": yaml, "python": python, "json": launchjson, "systemd": systemd}


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
) -> list[Launch]:
    launches: list[Launch] = []
    for block in _blocks(source.text):
        if block.ignored:
            continue
        masked = Source(_mask(source.text, block))
        module = _MODULES[block.kind]
        if module is shell:
            launches.extend(shell.find_launches(masked, table, release, model_lookup))
            continue
        try:
            launches.extend(module.find_launches(masked, table, release, model_lookup))
        except (SyntaxError, python.PythonSyntaxError):
            continue  # a snippet its format cannot read is not checked
    return launches


def syntax_errors(text: str) -> int:
    """The sum over the blocks read of their format's syntax errors."""
    return sum(_MODULES[block.kind].syntax_errors(_mask(text, block)) for block in _blocks(text))
