"""Python string literals: their values, where each character is spelled, and spelling new text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from autofix.knowledge.options import Option
from autofix.source import Span


# -- string literals ----------------------------------------------------------------

_SIMPLE_ESCAPES = {
    "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_NUMERIC_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{([^}]*)\})")
# An f-string field autofix cannot know, as shell text: a variable nobody sets.
_FIELD = "${__AUTOFIX_FIELD__}"


@dataclass(slots=True)
class _Text:
    """A string expression's value, and where each character is spelled in the file."""

    text: str
    starts: list[int]
    ends: list[int]
    end: int  # just before the closing quote
    spell: Callable[[str], str | None]  # inserted text in this literal's syntax
    fields: list[Span]  # f-string fields: their characters are not written here
    kinds: set[tuple[str, str]]  # (prefix, quote) of each piece
    pieces: list[_Piece]  # the adjacent literals it is written in

    @property
    def chars(self) -> tuple[int, ...]:
        return tuple(s if e - s == 1 else -1 for s, e in zip(self.starts, self.ends))

    @property
    def uniform(self) -> bool:
        """One syntax throughout: a deletion across adjacent literals stays exact."""
        return len(self.kinds) == 1

    def plus(self, other: _Text) -> _Text:
        return _Text(
            self.text + other.text, self.starts + other.starts, self.ends + other.ends, other.end,
            _agree(self.spell, other.spell), self.fields + other.fields, self.kinds | other.kinds,
            self.pieces + other.pieces,
        )


@dataclass(frozen=True, slots=True)
class _Piece:
    """One literal of an implicit concatenation: the whole literal and its body."""

    literal: Span
    body: Span


def _string_parts(raw: str) -> tuple[str, str, int]:
    """A literal's lower-case prefix, its quote, and where its body starts."""
    at = 0
    while raw[at] not in "'\"":
        at += 1
    quote = raw[at : at + 3] if raw[at : at + 3] in ('"""', "'''") else raw[at]
    return raw[:at].lower(), quote, at + len(quote)


def _unescape_py(
    body: str, base: int, raw: bool, fstring: bool, keep: bool = False
) -> tuple[str, list[int], list[int]] | None:
    """A literal body's value, with the file span of each character.

    None for an escape autofix does not map (an unrecognised one, which Python
    keeps with its backslash). keep: a backslash-newline, which Python drops,
    is kept as those two characters (a shell reads them as nothing too).
    """
    text: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(ch: str, start: int, end: int) -> None:
        text.append(ch)
        starts.append(base + start)
        ends.append(base + end)

    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\r":  # Python reads CRLF (and a lone CR) in source as a newline
            width = 2 if body.startswith("\r\n", i) else 1
            emit("\n", i, i + width)
            i += width
        elif fstring and ch in "{}":
            if body[i + 1 : i + 2] != ch:
                return None
            emit(ch, i, i + 2)
            i += 2
        elif ch != "\\" or raw:
            emit(ch, i, i + 1)
            i += 1
        elif i + 1 == len(body):
            return None
        elif body[i + 1] in "\r\n":  # a continuation inside the string: stands for nothing
            width = 3 if body.startswith("\r\n", i + 1) else 2
            if keep:
                emit("\\", i, i + 1)
                emit("\n", i + 1, i + width)
            i += width
        elif body[i + 1] in _SIMPLE_ESCAPES:
            emit(_SIMPLE_ESCAPES[body[i + 1]], i, i + 2)
            i += 2
        else:
            match = _NUMERIC_ESCAPE.match(body, i)
            if match is None:
                return None
            octal, byte, short, long, name = match.groups()
            try:
                if name is not None:
                    code = ord(unicodedata.lookup(name))
                else:
                    code = int(octal, 8) if octal else int(byte or short or long, 16)
                emit(chr(code), i, match.end())
            except (KeyError, ValueError):
                return None
            i = match.end()
    return "".join(text), starts, ends


def _speller(prefix: str, quote: str, newline: str, keep: bool = False) -> Callable[[str], str | None]:
    """How text inserted into a literal of this kind is written; None when it cannot be, exactly.

    keep: the text was read with continuations kept (see _unescape_py), so a
    backslash-newline is written as one.
    """
    raw, formatted, triple, q = "r" in prefix, "f" in prefix, len(quote) == 3, quote[0]

    def spell(text: str) -> str | None:
        out: list[str] = []
        skip = False
        for i, ch in enumerate(text):
            if skip:
                skip = False
            elif keep and not raw and text.startswith("\\\n", i):
                out.append("\\" + newline)
                skip = True
            elif ch == "\n":
                if raw and not triple:
                    return None
                out.append(newline if triple else "\\n")
            elif formatted and ch in "{}":
                out.append(ch * 2)
            elif ch == "\\":
                if raw and i + 1 == len(text):
                    return None  # it would escape the character after it
                out.append(ch if raw else "\\\\")
            elif ch == q:
                if raw:
                    return None
                out.append("\\" + ch)
            elif ch == "\t" or ch.isprintable():
                out.append(ch)
            else:
                return None
        return "".join(out)

    return spell


def _agree(first: Callable[[str], str | None], second: Callable[[str], str | None]) -> Callable[[str], str | None]:
    """Adjacent literals: inserted text is exact only when both spell it alike."""

    def spell(text: str) -> str | None:
        written = first(text)
        return written if written is not None and written == second(text) else None

    return spell


def _py_str(value: str, quote: str) -> str:
    if not value.isprintable():
        return repr(value)
    return quote + value.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote


def _py_value(option: Option, value: str, quote: str) -> str:
    if option.type == "int" and re.fullmatch(r"-?[0-9]+", value):
        return value
    if option.type == "float" and re.fullmatch(r"-?[0-9]+(\.[0-9]*)?", value):
        return value
    return _py_str(value, quote)


