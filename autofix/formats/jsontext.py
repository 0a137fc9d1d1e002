"""JSON text with the place of every string character: what the Dockerfile exec form, notebooks and
JSON files share.

`value()` reads a JSON value into dicts, lists, `String`s (each character's spelling located in the
file) and scalar source texts; with `comments=True` it reads JSON with comments as editors write it
(`//` and `/* */` comments, a trailing comma before `]` or `}`), the form of VS Code's launch.json.
`Array` spells edits of the argv strings of one JSON array in place.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from autofix.edits import Edit
from autofix.model import Arg, NewFlag
from autofix.source import Span

__all__ = ["Array", "String", "spell", "string", "value"]

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")
_CONTINUATION = re.compile(r"\\[ \t]*\r?\n")


@dataclass(slots=True)
class String:
    span: Span  # the string literal, quotes included
    text: str
    starts: list[int]  # per character: where its spelling starts and ends in the file
    ends: list[int]


def string(text: str, i: int, end: int) -> String | None:
    """The JSON string literal at text[i], read no further than end; None when there is none."""
    if i >= end or text[i] != '"':
        return None
    start, i = i, i + 1
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    while i < end:
        ch = text[i]
        if ch == '"':
            return String(Span(start, i + 1), "".join(chars), starts, ends)
        if ch in "\r\n" or ord(ch) < 0x20:
            return None
        if ch == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt in _ESCAPES:
                chars.append(_ESCAPES[nxt])
                starts.append(i)
                ends.append(i + 2)
                i += 2
                continue
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                chars.append(chr(int(text[i + 2 : i + 6], 16)))
                starts.append(i)
                ends.append(i + 6)
                i += 6
                continue
            return None
        chars.append(ch)
        starts.append(i)
        ends.append(i + 1)
        i += 1
    return None


def spell(value: str) -> str:
    """value as the inside of a JSON string literal."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def value(text: str, i: int = 0, comments: bool = False) -> tuple[object, int]:
    """The JSON value at text[i] and where it ends; ValueError (or IndexError) when there is none."""
    i = _blank(text, i, comments)
    ch = text[i : i + 1]
    if ch == '"':
        item = string(text, i, len(text))
        if item is None:
            raise ValueError(f"bad string at {i}")
        return item, item.span.end
    if ch and ch in "[{":
        close = "]" if ch == "[" else "}"
        out: list[object] | dict[str, object] = [] if ch == "[" else {}
        i = _blank(text, i + 1, comments)
        while text[i : i + 1] != close:
            if i >= len(text):
                raise ValueError("unexpected end of text")
            if isinstance(out, list):
                item, i = value(text, i, comments)
                out.append(item)
            else:
                key, i = value(text, i, comments)
                i = _blank(text, i, comments)
                if not isinstance(key, String) or text[i : i + 1] != ":":
                    raise ValueError(f"bad object at {i}")
                out[key.text], i = value(text, i + 1, comments)
            i = _blank(text, i, comments)
            if text[i : i + 1] == ",":
                i = _blank(text, i + 1, comments)
                if text[i : i + 1] == close and not comments:
                    raise ValueError(f"trailing comma at {i}")
            elif text[i : i + 1] != close:
                raise ValueError(f"bad {'list' if close == ']' else 'object'} at {i}")
        return out, i + 1
    match = _SCALAR.match(text, i)
    if match is None:
        raise ValueError(f"bad value at {i}")
    return match[0], match.end()


def _blank(text: str, i: int, comments: bool) -> int:
    """Past whitespace, and with comments past `//` and `/* */` comments."""
    while i < len(text):
        if text[i] in " \t\r\n":
            i += 1
        elif comments and text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif comments and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError(f"unterminated comment at {i}")
            i = end + 2
        else:
            break
    return i


class Array:
    """The string items of one JSON array, and how an edit of them is spelled there."""

    continues = False  # whether the program is handed more arguments after these (fixers/_argparse.may_continue)

    def __init__(self, text: str, items: Sequence[String]):
        self.text = text
        self.spans = [item.span for item in items]

    def _index(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        try:
            first = self.spans.index(args[0].span)
            last = self.spans.index(args[-1].span, first)
        except ValueError:
            return None
        return first, last

    def _line(self, offset: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return start, len(self.text) if end < 0 else end

    def _own_line(self, first: int, last: int) -> bool:
        """Items first..last hold a line of their own, ended by a comma (and in a Dockerfile a `\\`):
        `    "--a", "b", \\` or `    "--a", "b",`."""
        line_start, line_end = self._line(self.spans[first].start)
        after = self.text[self.spans[last].end : line_end]
        return not self.text[line_start : self.spans[first].start].strip() and bool(
            re.fullmatch(r"[ \t]*,[ \t]*(?:\\[ \t]*)?\r?", after)
        )

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        return () if span is None else (Edit(span, value),)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        found = self._index(args)
        if found is None:
            return ()
        first, last = found
        spans = self.spans
        if self._own_line(first, last) and last + 1 < len(spans):
            line_start, line_end = self._line(spans[first].start)
            return (Edit.delete(Span(line_start, min(line_end + 1, len(self.text)))),)
        if first > 0:
            return (Edit.delete(Span(spans[first - 1].end, spans[last].end)),)
        if last + 1 < len(spans):
            return (Edit.delete(Span(spans[first].start, spans[last + 1].start)),)
        return (Edit.delete(Span(spans[first].start, spans[last].end)),)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        found = self._index(args)
        if found is None:
            return ()
        first, last = found
        words = ", ".join(json.dumps(token, ensure_ascii=False) for token in new.tokens())
        if self._own_line(first, last):
            line_start, line_end = self._line(self.spans[first].start)
            indent = self.text[line_start : self.spans[first].start]
            suffix = self.text[self.spans[last].end : line_end]
            return (Edit.insert(line_end + 1, indent + words + suffix + "\n"),)
        return (Edit.insert(self.spans[last].end, ", " + words),)
