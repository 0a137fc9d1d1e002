"""Values read from expressions, and the containers that spell an edit in a call, a list, a dict
or a command string written in adjacent literals."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from autofix.edits import Edit
from autofix.formats.python.strings import _Piece, _py_str, _py_value
from autofix.model import Arg, NewFlag
from autofix.source import Span

if TYPE_CHECKING:
    from autofix.formats.python.doc import _Doc


# -- values -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Value:
    kind: str  # "str", "int", "float", "bool", "none", "unknown"
    value: object = None
    chars: tuple[int, ...] | None = None  # a string literal written here: each character's offset
    editable: bool = True  # False: read from a constant bound elsewhere

    @property
    def text(self) -> str | None:
        """The argv token, as str() writes it."""
        return None if self.kind == "unknown" else str(self.value)

    def borrowed(self) -> _Value:
        return replace(self, chars=None, editable=False) if self.kind != "unknown" else self


_UNKNOWN = _Value("unknown")


# -- containers: how an edit is spelled in a call, a list, a dict ---------------------


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    comma_end: int | None  # just after the comma that follows it, if any

    @property
    def stop(self) -> int:
        return self.comma_end if self.comma_end is not None else self.end


class _Layout:
    """Line-level facts about the file, shared by the containers."""

    def __init__(self, doc: _Doc):
        self.source = doc.source
        self.text = doc.text

    def line_of(self, offset: int) -> int:
        return self.source.line_col(offset)[0]

    def own_lines(self, start: int, stop: int) -> bool:
        """Nothing but indentation before start, nothing but a comment after stop, on their lines."""
        line = self.source.line_span(start)
        if self.text[line.start : start].strip():
            return False
        rest = self.text[stop : self.source.line_span(stop).end].strip()
        return not rest or rest.startswith("#")

    def indent(self, offset: int) -> str:
        return self.text[self.source.line_span(offset).start : offset]

    def next_line(self, offset: int) -> int:
        """Where the line after offset's line starts (the end of the text on the last line)."""
        end = self.source.line_span(offset).end
        if self.text.startswith("\r\n", end):
            return end + 2
        return min(end + 1, len(self.text))


class _Items:
    """Comma-separated items between brackets: a call's arguments, a list's
    elements or a dict's entries. Edits follow the layout the items are written
    in: one per line, several per line, or all on one line.
    """

    def __init__(self, doc: _Doc, kind: str, items: Sequence[_Item], frozen: bool = False):
        self.doc = doc
        self.layout = doc.layout
        self.kind = kind  # "call" (keywords), "dict" (string keys), "list" (argv tokens)
        self.items = list(items)
        self.frozen = frozen
        self.owner: dict[Arg, int] = {}
        self.tokens: dict[int, list[Arg]] = {}
        self.written: dict[str, Span] = {}  # dest -> its value's span, for call and dict items

    def own(self, arg: Arg, index: int) -> Arg:
        self.owner[arg] = index
        self.tokens.setdefault(index, []).append(arg)
        return arg

    # Container

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        if self.frozen or not arg.editable or span is None:
            return ()
        return (Edit(span, value),)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        return (Edit.delete(self._removal(*run)),)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        if self.kind != "list" and new.option.dest in self.written:
            return self._rewrite(new)
        first, last = (self.items[i] for i in run)
        quote = self._quote(run)
        entries = self._entries(new, quote)
        layout = self.layout
        if not layout.own_lines(first.start, last.stop):
            return (Edit.insert(last.end, ", " + ", ".join(entries)),)
        indent = layout.indent(first.start)
        nl = self.doc.source.newline
        lines = entries if self.kind == "list" and self._one_per_line() else [", ".join(entries)]
        after = layout.next_line(last.stop)
        if last.comma_end is not None:
            return (Edit.insert(after, "".join(f"{indent}{line},{nl}" for line in lines)),)
        # The last item, without a trailing comma: keep it that way.
        body = f",{nl}".join(f"{indent}{line}" for line in lines)
        return (Edit.insert(last.end, ","), Edit.insert(after, body + nl))

    # layout

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        """The items args fill, first and last, when they fill them exactly."""
        indices = [self.owner.get(arg) for arg in args]
        if not indices or None in indices:
            return None
        first, last = min(indices), max(indices)  # type: ignore[type-var]
        covered = {arg for i in range(first, last + 1) for arg in self.tokens.get(i, ())}
        if not covered or not covered <= set(args) or set(indices) != set(range(first, last + 1)):
            return None
        return first, last

    def _removal(self, first: int, last: int) -> Span:
        items, layout = self.items, self.layout
        a, b = items[first], items[last]
        prev = items[first - 1] if first > 0 else None
        nxt = items[last + 1] if last + 1 < len(items) else None
        if layout.own_lines(a.start, b.stop):
            return Span(self.doc.source.line_span(a.start).start, layout.next_line(b.stop))
        if nxt is not None and layout.line_of(b.stop) == layout.line_of(nxt.start):
            return Span(a.start, nxt.start)
        if prev is not None:
            return Span(prev.end, b.end)
        if nxt is not None:
            return Span(a.start, nxt.start)
        return Span(a.start, b.stop)

    def _one_per_line(self) -> bool:
        lines = [self.layout.line_of(item.start) for item in self.items]
        return len(set(lines)) == len(lines)

    def _quote(self, run: tuple[int, int]) -> str:
        text = self.doc.text
        order = [*range(run[0], run[1] + 1), *range(len(self.items))]
        for i in order:
            item = self.items[i]
            match = _QUOTE.search(text, item.start, item.end)
            if match is not None:
                return match.group(1)
        return self.doc.quote

    def _entries(self, new: NewFlag, quote: str) -> list[str]:
        if self.kind == "list":
            return [_py_str(token, quote) for token in new.tokens()]
        value = "True" if new.value is None else _py_value(new.option, new.value, quote)
        if self.kind == "call":
            return [f"{new.option.dest}={value}"]
        return [f"{_py_str(new.option.dest, quote)}: {value}"]

    def _rewrite(self, new: NewFlag) -> tuple[Edit, ...]:
        """The dest is written already, as `False`: a boolean turned on is `True` there."""
        span = self.written[new.option.dest]
        if new.value is None and self.doc.text[span.start : span.end] == "False":
            return (Edit(span, "True"),)
        return ()


_QUOTE = re.compile(r"""(?<![\w'"])[rRuUfF]{0,2}(['"])""")


class _Statements:
    """`cmd.append(x)` statements, one token each: removed or added a whole line at a time."""

    def __init__(self, doc: _Doc, name: str):
        self.doc = doc
        self.layout = doc.layout
        self.name = name
        self.spans: list[Span] = []
        self.owner: dict[Arg, int] = {}

    def own(self, arg: Arg, span: Span) -> Arg:
        self.spans.append(span)
        self.owner[arg] = len(self.spans) - 1
        return arg

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        return (Edit(span, value),) if span is not None and arg.editable else ()

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if run is None:
            return ()
        spans = self.spans[run[0] : run[1] + 1]
        line_start = self.doc.source.line_span
        return tuple(Edit.delete(Span(line_start(s.start).start, self.layout.next_line(s.end))) for s in spans)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if run is None:
            return ()
        last = self.spans[run[1]]
        indent, nl = self.layout.indent(last.start), self.doc.source.newline
        quote = _QUOTE.search(self.doc.text, last.start, last.end)
        q = quote.group(1) if quote else self.doc.quote
        lines = "".join(f"{indent}{self.name}.append({_py_str(token, q)}){nl}" for token in new.tokens())
        return (Edit.insert(self.layout.next_line(last.end), lines),)

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        indices = sorted(self.owner.get(arg, -1) for arg in args)
        if not indices or indices[0] < 0 or indices != list(range(indices[0], indices[-1] + 1)):
            return None
        if not all(self.layout.own_lines(self.spans[i].start, self.spans[i].end) for i in indices):
            return None
        return indices[0], indices[-1]


def _embedded(arg: Arg, fields: Sequence[Span], frozen: bool) -> Arg:
    """A shell token read from a Python string, with what the string's f-string fields hide."""
    if any(arg.span.start < f.end and f.start < arg.span.end for f in fields):
        if arg.text is not None and "__AUTOFIX_FIELD__" in arg.text:
            return replace(arg, text=None, chars=None, editable=False)
        return replace(arg, editable=False)
    return replace(arg, editable=False) if frozen else arg


class _Tidy:
    """A shell command written in adjacent literals (`"..." "..."`): a deletion
    that empties one literal takes the literal, and its line, with it."""

    def __init__(self, inner: object, pieces: Sequence[_Piece], layout: _Layout):
        self.inner = inner
        self.pieces = pieces
        self.layout = layout

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        return self.inner.replace(arg, start, end, value)  # type: ignore[attr-defined]

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        return self.inner.insert_after(args, new)  # type: ignore[attr-defined]

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        return tuple(self._tidy(edit) for edit in self.inner.remove(args))  # type: ignore[attr-defined]

    def _tidy(self, edit: Edit) -> Edit:
        pieces, layout = self.pieces, self.layout
        for i, piece in enumerate(pieces):
            if edit.text or edit.span != piece.body:
                continue
            literal = piece.literal
            if layout.own_lines(literal.start, literal.end):
                return Edit.delete(Span(layout.source.line_span(literal.start).start, layout.next_line(literal.end)))
            # Take the blank between it and its neighbour, unless a comment is there.
            span = Span(pieces[i - 1].literal.end, literal.end) if i else Span(literal.start, pieces[1].literal.start)
            if "#" not in layout.text[span.start : span.end].replace(layout.text[literal.start : literal.end], ""):
                return Edit.delete(span)
        return edit

