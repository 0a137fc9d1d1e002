"""Places in a text that mention an SGLang launch, and why one that was not read as a launch is not.

For `--show-launches`: a user who sees a launch in a file and no finding for it
needs to know whether autofix read it. The mentions are a small set of words
that name a launch (`sglang.launch_server`, `sglang_router.launch_server`,
`sglang serve`, `launch_server_cmd(`, `popen_launch_server(`, `sgl.Engine(`,
and `Engine(` where the file imports it from sglang); the view lists those
outside every launch the format modules found. The reason is told from the
text around the mention alone (its line, the heredoc or Markdown block it is
in, a Python token), never from a second reading of the launch: where nothing
more specific can be told, it is "not a command autofix reads".
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from autofix.formats import BLOCK_TAGS, PROMPT
from autofix.source import Source, Span

__all__ = ["Mention", "unread_mentions"]

_MENTION = re.compile(
    r"\bsglang(?:_router)?\.launch_server\b|\bsglang[ \t]+serve\b"
    r"|\b(?:launch_server_cmd|popen_launch_server)[ \t]*\(|\b(?:sglang|sgl)\.Engine[ \t]*\("
)
_BARE_ENGINE = re.compile(r"(?<![\w.])Engine[ \t]*\(")
_IMPORTS_ENGINE = re.compile(r"^[ \t]*from[ \t]+sglang(?:\.[\w.]+)?[ \t]+import[ \t]+(?:\([^)]*|[^\n]*)\bEngine\b", re.M)

GENERIC = "not a command autofix reads"


@dataclass(frozen=True, slots=True)
class Mention:
    span: Span
    text: str  # the words matched
    cause: str  # a short stable word for the reason (tests and scripts match on it)
    reason: str  # the reason, for a reader


def unread_mentions(source: Source, fmt: str, read: Sequence[Span], arguments: Sequence[int] = (),
                    help_launches: Sequence[Span] = ()) -> list[Mention]:
    """The mentions outside the spans read as launches, each with why it was not read.

    arguments: where the first argument of each launch read is written. The entry point of a
    launch whose arguments are a list kept apart from the call that runs it (`cmd = [sys.executable,
    "-m", "sglang.launch_server", "--tp", "2"]`) is outside the launch's span, right before them.
    help_launches: launches found that print SGLang's help (`--help`), which nothing checks.
    """
    text = source.text
    found = [(m.start(), m.end()) for m in _MENTION.finditer(text)]
    if fmt in ("python", "notebook", "markdown") and _IMPORTS_ENGINE.search(text):
        found += [(m.start(), m.end()) for m in _BARE_ENGINE.finditer(text)]
    reasons = _Reasons(source, fmt)
    out: list[Mention] = []
    for start, end in sorted(found):
        if any(s.start <= start < s.end for s in read) or any(_ENTRY_GAP.fullmatch(text, end, a) for a in arguments):
            continue
        words = text[start:end].rstrip(" \t(")
        span = Span(start, start + len(words))
        if any(s.start <= start < s.end for s in help_launches):
            out.append(Mention(span, words, "help", "`--help`: SGLang prints its help and exits, nothing is checked"))
        else:
            out.append(Mention(span, words, *reasons.why(start)))
    return out


# What may stand between an entry point and the launch's first argument in an argv list.
_ENTRY_GAP = re.compile(r"""[\s"',\\]{0,80}""")


class _Reasons:
    """Why a mention at an offset is not a launch, from the text around it."""

    def __init__(self, source: Source, fmt: str):
        self.source = source
        self.fmt = fmt
        self.heredocs = list(_heredocs(source.text)) if fmt not in ("python", "notebook") else []
        self.fences = list(_fences(source.text)) if fmt == "markdown" else []
        self.cells = _cell_parts(source.text) if fmt == "notebook" else []
        self._tokens: list[tokenize.TokenInfo] | None = None

    def why(self, offset: int) -> tuple[str, str]:
        if self.fmt == "markdown":
            fence = next((f for f in self.fences if f.start <= offset < f.end), None)
            if fence is None:
                return "prose", "in the Markdown text, not in a code block"
            if fence.ignored:
                return "block-ignored", "in a code block skipped by `<!-- autofix: ignore -->`"
            if fence.tag not in _READ_TAGS:
                return "block-language", f"in a code block tagged `{fence.tag}`, not a language autofix reads"
            if _output_line(self.source, fence, offset):
                return "output", "a line of output in a terminal session, not a command"
        if self.fmt == "notebook":
            place = _notebook_place(self.cells, offset)
            if place is not None:
                return place
        if self.fmt == "python":
            token = self._python_token(offset)
            if token is not None:
                return token
        for doc in self.heredocs:
            if doc.start <= offset < doc.end:
                if doc.target is not None:
                    return "heredoc-file", f"in a heredoc written to {doc.target}, not run here"
                return "heredoc", f"in a heredoc fed to `{doc.command}`, which autofix does not read"
        line = self.source.line_span(offset)
        before = self.source.text[line.start : offset]
        if self.fmt == "notebook":  # the line of a cell is a JSON string: `"!echo ...\\n",`
            before = before.partition('"')[2].replace('\\"', '"').lstrip("!%")
        return _line_reason(before)

    def _python_token(self, offset: int) -> tuple[str, str] | None:
        if self._tokens is None:
            try:
                self._tokens = list(tokenize.generate_tokens(io.StringIO(self.source.text).readline))
            except (tokenize.TokenError, SyntaxError, IndentationError):
                self._tokens = []
        line, column = self.source.line_col(offset)
        before = tokenize.ENCODING  # the kind of the last token before this one that is not a comment
        for token in self._tokens:
            if token.start <= (line, column - 1) < token.end:
                if token.type == tokenize.COMMENT:
                    return "comment", "in a comment"
                if token.type == tokenize.STRING and before in _STATEMENT_START:
                    return "docstring", "in a string standing alone (a docstring)"
                if token.type == tokenize.STRING:
                    return "string", "in a string autofix does not read as a command"
                if token.line.lstrip().startswith(("import ", "from ")):
                    return "import", "an import, not a launch"
                return None
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                before = token.type
        return None


_STATEMENT_START = frozenset({tokenize.ENCODING, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})
# What a command line that mentions a launch but runs something else starts with.
_PRINTERS = frozenset({"echo", "printf", "print"})
_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "pgrep", "pkill", "killall", "ps", "pidof"})
# Words before the command itself: prompts, a YAML item or key, a Dockerfile instruction, shell keywords.
_LEADERS = frozenset({"$", ">", "-", "!", "RUN", "CMD", "ENTRYPOINT", "sudo", "then", "do", "else", "{", "time"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


_ASSIGNED = re.compile(r"[ \t]*(?:(?:export|local|readonly|declare(?:[ \t]+-\w+)*)[ \t]+)?([A-Za-z_]\w*)\+?=[\"'(]")


def _line_reason(before: str) -> tuple[str, str]:
    """The reason told by the part of the mention's line before it: a comment, a variable, echo, grep."""
    scan = _Scan(before)
    if scan.comment:
        return "comment", "in a comment"
    assigned = _ASSIGNED.match(before)
    if assigned is not None and _Scan(before[assigned.end() - 1 :]).open:
        return "variable", f"kept in the variable `{assigned[1]}`, not run where it is written"
    words = [w.strip("\"'") for w in scan.command.split()]
    while words and (words[0] in _LEADERS or words[0].endswith(":") or _ASSIGNMENT.match(words[0])):
        words.pop(0)
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program in _PRINTERS and len(words) > 1:
        return "printed", f"printed by `{program}`, not run"
    if program in _SEARCHERS and len(words) > 1:
        return "searched", f"a pattern given to `{program}`, not a launch"
    return "not-read", GENERIC


class _Scan:
    """A line's text up to a mention, read as shell: whether it ends in a comment, the command it
    ends in, and whether a quote or a parenthesis is still open there. Quotes are followed so that
    `#`, `|` and `;` inside them count for nothing."""

    def __init__(self, before: str):
        quote: str | None = None
        start = depth = i = 0
        self.comment = False
        while i < len(before):
            ch = before[i]
            if quote is not None:
                if ch == quote:
                    quote = None
                elif ch == "\\" and quote == '"':
                    i += 1
            elif ch in "'\"":
                quote = ch
            elif ch == "\\":
                i += 1
            elif ch == "#" and (i == 0 or before[i - 1].isspace()):
                self.comment = True
                break
            elif ch in "|;&(`)":
                start = i + 1
                depth += {"(": 1, ")": -1}.get(ch, 0)
            i += 1
        self.command = "" if self.comment else before[start:]
        self.open = quote is not None or depth > 0


@dataclass(frozen=True, slots=True)
class _Region:
    start: int
    end: int
    command: str = ""  # a heredoc: the program its opening line runs
    target: str | None = None  # a heredoc: the file its opening line writes it to
    tag: str = ""  # a Markdown block: its info string's first word
    ignored: bool = False  # a Markdown block with `<!-- autofix: ignore -->` before it


_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
_WRITTEN_TO = re.compile(r"(?<![<>&0-9])>>?[ \t]*([^\s;&|<>]+)|\btee[ \t]+(?:-a[ \t]+)?([^\s;&|<>-][^\s;&|<>]*)")


def _bodies(text: str, opens: Callable[[str], re.Match | None],
            closes: Callable[[re.Match, str], bool]) -> Iterator[tuple[list[tuple[int, str]], int, re.Match, int]]:
    """The bodies between a line that opens one and the first later line that closes it:
    the text's lines (offset, text), the opening line's index, its match, and the body's end offset."""
    lines, at = [], 0
    for line in text.splitlines(keepends=True):
        lines.append((at, line.rstrip("\r\n")))
        at += len(line)
    i = 0
    while i < len(lines):
        match = opens(lines[i][1])
        j = i + 1
        while match is not None and j < len(lines) and not closes(match, lines[j][1]):
            j += 1
        if match is not None and j > i + 1:
            yield lines, i, match, lines[j - 1][0] + len(lines[j - 1][1])
        i = j + 1 if match is not None else i + 1


def _heredocs(text: str) -> Iterator[_Region]:
    """Heredoc bodies: the program that reads each, and the file it is written to, if any."""

    def opens(line: str) -> re.Match | None:
        match = _HEREDOC.search(line)
        return None if match is None or _Scan(line[: match.start()]).comment else match

    def closes(match: re.Match, line: str) -> bool:
        return (line.lstrip("\t") if match[1] else line) == match[3]

    for lines, i, match, end in _bodies(text, opens, closes):
        opener = lines[i][1]
        written = _WRITTEN_TO.search(opener)
        target = (written[1] or written[2]).strip("\"'") if written else None
        command = _Scan(opener[: match.start()]).command.split()
        yield _Region(lines[i + 1][0], end, command[0] if command else "", target)


# The block tags formats/markdown.py reads (an untagged block is read when it names a launch).
_READ_TAGS = frozenset({""}).union(*BLOCK_TAGS.values())
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*([^\s`{]*)")
_IGNORE_BLOCK = re.compile(r"<!--\s*autofix:\s*ignore\s*-->")


def _fences(text: str) -> Iterator[_Region]:
    """Fenced code blocks (their bodies), with their tags."""

    def closes(opener: re.Match, line: str) -> bool:
        fence = opener[1]
        return re.fullmatch(rf"[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*", line) is not None

    for lines, i, opener, end in _bodies(text, _FENCE.match, closes):
        ignored = i > 0 and bool(_IGNORE_BLOCK.search(lines[i - 1][1]))
        yield _Region(lines[i + 1][0], end, tag=opener[2].lower(), ignored=ignored)


_PROMPT = PROMPT


def _output_line(source: Source, block: _Region, offset: int) -> bool:
    """Whether offset is on a line of a terminal session (a block with `$ ` prompts) that is
    neither a prompt nor the `\\` continuation of one."""
    lines = source.text[block.start : block.end].splitlines()
    if block.tag not in ("console", "shell-session", "shellsession") and not any(map(_PROMPT.match, lines)):
        return False
    line = source.line_span(offset)
    if _PROMPT.match(source.text, line.start):
        return False
    return line.start == block.start or not source.line_text(line.start - 1).rstrip().endswith("\\")


_CELL_PART = re.compile(r'"(cell_type|outputs|source)"[ \t]*:[ \t]*("(?:markdown|raw)")?')


def _cell_parts(text: str) -> list[tuple[int, str | None, str | None]]:
    """Where each part of a notebook's cells starts: (offset, the cell's kind when not code, the part)."""
    parts: list[tuple[int, str | None, str | None]] = []
    kind: str | None = None
    for match in _CELL_PART.finditer(text):
        if match[1] == "cell_type":
            kind = match[2] and match[2].strip('"')
        parts.append((match.start(), kind, match[1] if match[1] != "cell_type" else None))
    return parts


def _notebook_place(parts: list[tuple[int, str | None, str | None]], offset: int) -> tuple[str, str] | None:
    """A mention in a cell's output or in a Markdown cell (the nearest keys before it say which)."""
    before = bisect.bisect_right(parts, (offset, "\uffff", "\uffff"))
    if before == 0:
        return None
    _, kind, _ = parts[before - 1]
    part = next((p for _, _, p in reversed(parts[:before]) if p is not None), None)
    if part == "outputs":
        return "output", "in a cell's output, not its code"
    if kind is not None:
        return "cell-text", f"in a {kind} cell, not code"
    return None
