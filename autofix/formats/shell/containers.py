"""How an edit is spelled in a command's words or a bash array."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from autofix.edits import Edit
from autofix.model import Arg, NewFlag
from autofix.source import Span

if TYPE_CHECKING:
    from autofix.formats.shell.doc import _Doc


# -- containers: how an edit is spelled in a command or an array ----------------


class _ArgList:
    """The tokens of one command, or the elements of one bash array.

    Layout is decided in the shell text (vtokens); args are found by their
    file spans (tokens).
    """

    def __init__(self, doc: _Doc, opener, array: bool, frozen: bool = False):  # noqa: ANN001
        self.doc = doc
        self.vtokens: list[Span] = []
        self.tokens: list[Span] = []
        self.array = array
        self.frozen = frozen
        self.add(opener)

    def add(self, node) -> None:  # noqa: ANN001
        self.vtokens.append(self.doc.vspan(node))
        self.tokens.append(self.doc.span(node))

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        if self.frozen or span is None:
            return ()
        return (Edit(span, value),)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        return self.doc.file_edits(self._remove(*run))

    def _remove(self, first: int, last: int) -> tuple[Edit, ...]:
        text = self.doc.text
        start, end = self.vtokens[first].start, self.vtokens[last].end
        prev = self.vtokens[first - 1]
        nxt = self.vtokens[last + 1] if last + 1 < len(self.vtokens) else None
        line = self.doc.source.line_span(start)
        if nxt is not None and nxt.start <= line.end:
            return (Edit.delete(Span(start, nxt.start)),)
        if nxt is not None and self._own_line(start, end):
            newline_end = line.end + 2 if text.startswith("\r\n", line.end) else line.end + 1
            return (Edit.delete(Span(line.start, min(newline_end, len(text)))),)
        return (Edit.delete(Span(prev.end, end)),)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        return self.doc.file_edits(self._insert_after(*run, new))

    def _insert_after(self, first: int, last: int, new: NewFlag) -> tuple[Edit, ...]:
        start, end = self.vtokens[first].start, self.vtokens[last].end
        words = " ".join(_quote(token) for token in new.tokens())
        if not self._own_line(start, end):
            return (Edit.insert(end, " " + words),)
        source, nl = self.doc.source, self.doc.newline
        line = source.line_span(end)
        if source.text.startswith(("\r\n", "\n"), line.end):  # this line's own newline (files may mix them)
            nl = "\r\n" if source.text.startswith("\r\n", line.end) else "\n"
        indent = source.text[line.start : start]
        suffix = source.text[end : line.end]
        if suffix.strip() == "\\" or self.array and not suffix.strip():
            after_line = line.end + len(nl)
            return (Edit.insert(after_line, indent + words + suffix + nl),)
        if suffix.strip():
            return (Edit.insert(end, " " + words),)
        # The launch's last line: continue it in the style of the line above.
        above = source.line_text(line.start - 1) if line.start > 0 else ""
        cont = re.search(r"[ \t]*\\$", above)
        return (Edit.insert(end, (cont.group() if cont else " \\") + nl + indent + words),)

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        try:
            first = self.tokens.index(args[0].span, 1)
            last = self.tokens.index(args[-1].span, first)
        except ValueError:
            return None
        return first, last

    def _own_line(self, start: int, end: int) -> bool:
        source = self.doc.source
        line = source.line_span(start)
        if end > line.end or source.text[line.start : start].strip():
            return False
        return re.fullmatch(r"[ \t]*(\\|#.*)?", source.text[end : line.end]) is not None


def _quote(token: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", token):
        return token
    return "'" + token.replace("'", "'\"'\"'") + "'"


