"""YAML text below the parser: templates, where each scalar character is written, new text.

The YAML format module parses with ruamel, which gives each node's start and
end but not where each character of a value comes from. This module reads a
scalar's text again, the way YAML folds lines and undoes escapes, and keeps
for every character of the value the file span that spells it. It also masks
template expressions (Helm, Jinja, GitHub Actions) so the parser sees YAML,
spells inserted text in each scalar style, and reads a plain scalar the way
PyYAML (which SGLang's `--config` loader uses) does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["HOLE", "Masked", "writes_lines", "Written", "is_plain_string", "mask_templates", "plain_syntax", "plain_token", "read_scalar", "spelling"]

# What stands for a character of a template expression inside a masked value.
HOLE = "\ue000"

# {{ ... }} (Helm, Jinja, ${{ }} in GitHub Actions), {% ... %} and {# ... #} (Jinja).
_TEMPLATE = re.compile(r"\$?\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


# Tags that write nothing themselves: conditions, comments, assignments. Not among
# them: `else` (what follows replaces what came before) and loops (what they hold
# is written any number of times).
_CONTROL = re.compile(
    r"\{\{-?\s*(?:/\*.*\*/|(?:if|end|with|define|block)\b|\$\w*\s*:?=)"
    r"|\{%-?\s*(?!else\b|elif\b|for\b)\w|\{#",
    re.S,
)
# Template functions that write YAML of several lines (several list items, say).
_MULTILINE = re.compile(r"\b(?:toYaml|toJson|include|tpl|nindent|indent|to_yaml|to_nice_yaml)\b")


def writes_lines(text: str) -> bool:
    """Whether a template expression may write several lines (several YAML items)."""
    return _MULTILINE.search(text) is not None


@dataclass(frozen=True, slots=True)
class Masked:
    """Text of the same length in which every template expression is masked.

    A line that holds nothing but template tags is blanked; elsewhere each
    character of a tag becomes HOLE. lines: where blanked lines start, and the
    column of their first tag; outputs: those of them whose tags may write
    something (an expression, an `else`), unknown to autofix.
    """

    text: str
    lines: dict[int, int]
    outputs: frozenset[int] = frozenset()

    @property
    def templated(self) -> bool:
        return bool(self.lines) or HOLE in self.text


def mask_templates(text: str) -> Masked:
    if "{{" not in text and "{%" not in text and "{#" not in text:
        return Masked(text, {})
    spans = [m.span() for m in _TEMPLATE.finditer(text)]
    if not spans:
        return Masked(text, {})
    writing = [start for start, _ in spans if not _CONTROL.match(text, start)]
    out = list(text)
    for start, end in spans:
        for k in range(start, end):
            if out[k] not in "\r\n":
                out[k] = HOLE
    lines: dict[int, int] = {}
    outputs: set[int] = set()
    at = 0
    while at < len(out):
        nl = text.find("\n", at)
        end = len(text) if nl < 0 else nl
        body = out[at:end]
        stripped = [c for c in body if c not in " \t\r"]
        if stripped and all(c == HOLE for c in stripped):
            first = next(i for i, c in enumerate(body) if c == HOLE)
            lines[at] = first
            if any(at <= start < end for start in writing):
                outputs.add(at)
            for k in range(at, end):
                if out[k] != "\r":
                    out[k] = " "
        at = end + 1
    return Masked("".join(out), lines, frozenset(outputs))


# -- where each character of a scalar is written ------------------------------------


@dataclass(frozen=True, slots=True)
class Written:
    """A scalar's value and, for each character, the file span that spells it."""

    value: str
    starts: list[int]
    ends: list[int]
    end: int  # just after the value's last character as written (before a closing quote)
    style: str  # "" plain, "'", '"', "|" or ">"
    indent: str  # a block scalar's content indentation

    def chars(self) -> tuple[int, ...]:
        """The file offset of each character written as itself, else -1."""
        return tuple(s if e - s == 1 else -1 for s, e in zip(self.starts, self.ends))

    def literal(self) -> bool:
        return all(e - s == 1 for s, e in zip(self.starts, self.ends))


class _Builder:
    def __init__(self) -> None:
        self.value: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, ch: str, start: int, end: int) -> None:
        self.value.append(ch)
        self.starts.append(start)
        self.ends.append(end)

    def build(self, end: int, style: str, indent: str = "") -> Written:
        return Written("".join(self.value), self.starts, self.ends, end, style, indent)


def _break_at(text: str, k: int) -> int:
    """The length of the line break at k (0 when there is none)."""
    if text.startswith("\r\n", k):
        return 2
    return 1 if k < len(text) and text[k] in "\r\n" else 0


def read_scalar(text: str, start: int, end: int, style: str) -> Written | None:
    """Read the scalar written at text[start:end] (start after any anchor or tag)."""
    if style in ("|", ">"):
        return _block(text, start, end, style)
    if style == '"':
        return _flow(text, start + 1, end - 1, style, _double_escape)
    if style == "'":
        return _flow(text, start + 1, end - 1, style, _single_escape)
    return _flow(text, start, end, "", None)


Escape = Callable[[str, int, int], "tuple[str, int] | None"]


def _flow(text: str, start: int, end: int, style: str, escape: Escape | None) -> Written:
    """A plain or quoted scalar: line breaks fold, leading and trailing blanks of lines go."""
    out = _Builder()
    pending: list[tuple[str, int]] = []  # blanks that an unescaped line break would drop
    k = start
    while k < end:
        ch = text[k]
        brk = _break_at(text, k)
        if brk:
            pending.clear()
            fold_from = out.ends[-1] if out.ends else start
            k, empty = _skip_break(text, k, end)
            for _ in range(max(empty, 1)):
                out.add("\n" if empty else " ", fold_from, k)
            continue
        if ch in " \t":
            pending.append((ch, k))
            k += 1
            continue
        for blank, at in pending:
            out.add(blank, at, at + 1)
        pending.clear()
        if escape is not None:
            if style == '"' and ch == "\\" and _break_at(text, k + 1):
                # An escaped line break: nothing, and the next line's leading blanks go too.
                escaped = k
                k, empty = _skip_break(text, k + 1, end)
                for _ in range(empty):
                    out.add("\n", escaped, k)
                continue
            got = escape(text, k, end)
            if got is not None:
                ch, size = got
                out.add(ch, k, k + size)
                k += size
                continue
        out.add(ch, k, k + 1)
        k += 1
    for blank, at in pending:
        out.add(blank, at, at + 1)
    return out.build(end, style)


def _skip_break(text: str, k: int, end: int) -> tuple[int, int]:
    """Skip a line break, any empty lines after it and the next line's indentation."""
    k += _break_at(text, k)
    empty = 0
    while True:
        j = k
        while j < end and text[j] in " \t":
            j += 1
        brk = _break_at(text, j) if j < end else 0
        if not brk:
            return j, empty
        empty += 1
        k = j + brk


_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX = {"x": 2, "u": 4, "U": 8}


def _double_escape(text: str, k: int, end: int) -> tuple[str, int] | None:
    if text[k] != "\\" or k + 1 >= end:
        return None
    code = text[k + 1]
    if code in _ESCAPES:
        return _ESCAPES[code], 2
    width = _HEX.get(code)
    if width is None:
        return None
    digits = text[k + 2 : k + 2 + width]
    if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
        return None
    return chr(int(digits, 16)), 2 + width


def _single_escape(text: str, k: int, end: int) -> tuple[str, int] | None:
    if text.startswith("''", k) and k + 1 < end:
        return "'", 2
    return None


_HEADER = re.compile(r"[|>](?P<indicators>[1-9][+-]?|[+-][1-9]?)?[ \t]*(?:#[^\r\n]*)?")


def _block(text: str, start: int, end: int, style: str) -> Written | None:
    """A literal (|) or folded (>) block scalar, its indentation detected from its first line."""
    header = _HEADER.match(text, start)
    if header is None:
        return None
    indicators = header.group("indicators") or ""
    chomp = "-" if "-" in indicators else "+" if "+" in indicators else ""
    k = header.end()
    k += _break_at(text, k)
    lines: list[tuple[int, int, int]] = []  # (line start, content end, break length)
    while k < end:
        nl = k
        while nl < len(text) and text[nl] not in "\r\n":
            nl += 1
        lines.append((k, nl, _break_at(text, nl)))
        k = nl + _break_at(text, nl)
    indent = None
    for line_start, line_end, _ in lines:
        body = text[line_start:line_end]
        if body.strip(" "):
            indent = len(body) - len(body.lstrip(" "))
            break
    if indent is None:
        return Written("", [], [], start, style, "")
    out = _Builder()
    content: list[tuple[int, int, int]] = []  # trimmed lines: (content start, content end, break length)
    for line_start, line_end, brk in lines:
        if line_end - line_start <= indent and not text[line_start:line_end].strip(" "):
            content.append((line_end, line_end, brk))  # an empty line
        else:
            content.append((line_start + indent, line_end, brk))
    last = max((i for i, (s, e, _) in enumerate(content) if e > s), default=-1)
    previous: tuple[int, int, int] | None = None
    pending_empty: list[tuple[int, int]] = []
    for i, (s, e, brk) in enumerate(content[: last + 1]):
        if s == e:
            pending_empty.append((e, brk))
            continue
        if previous is None:
            for at, size in pending_empty:
                out.add("\n", at, at + size)
        elif style == "|":
            _, pe, pbrk = previous
            out.add("\n", pe, pe + pbrk)
            for at, size in pending_empty:
                out.add("\n", at, at + size)
        else:
            _fold(text, out, previous, (s, e, brk), len(pending_empty))
        pending_empty = []
        for j in range(s, e):
            out.add(text[j], j, j + 1)
        previous = (s, e, brk)
    if previous is None:
        return Written("", [], [], start, style, " " * indent)
    _, pe, pbrk = previous
    value_end = pe
    if chomp != "-" and pbrk:
        out.add("\n", pe, pe + pbrk)
    if chomp == "+":
        for s, e, brk in content[last + 1 :]:
            if brk:
                out.add("\n", e, e + brk)
    return out.build(value_end, style, " " * indent)


def _fold(text: str, out: _Builder, previous: tuple[int, int, int], line: tuple[int, int, int], empty: int) -> None:
    """The characters between two content lines of a folded block scalar."""
    ps, pe, _ = previous
    s, _, _ = line
    spaced = text[ps] in " \t" or text[s] in " \t"
    if spaced:
        count, ch = empty + 1, "\n"
    elif empty:
        count, ch = empty, "\n"
    else:
        count, ch = 1, " "
    for _ in range(count):
        out.add(ch, pe, s)


# -- spelling new text in a scalar ------------------------------------------------------


def spelling(written: Written, newline: str) -> Callable[[str], str | None]:
    """How text inserted into this scalar is written; None where that cannot be exact."""
    style = written.style
    if style == "|":
        indent = written.indent

        def literal(text: str) -> str | None:
            return None if "\r" in text else text.replace("\n", newline + indent)

        return literal
    if style == '"':
        return _double_quote
    if style == "'":
        return lambda text: None if "\n" in text else text.replace("'", "''")
    if style == ">":
        return lambda text: None if "\n" in text else text
    return _plain


def _plain(text: str) -> str | None:
    if "\n" in text or "\t" in text or ": " in text or " #" in text:
        return None
    return text


def _double_quote(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


# -- a plain scalar as PyYAML reads it (YAML 1.1) -------------------------------------------

_BOOL = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}
_BOOL_SPELLINGS = {s for word in _BOOL for s in (word, word.capitalize(), word.upper())}
_NULL = {"", "~", "null", "Null", "NULL"}
_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_INT = re.compile(
    r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_TIMESTAMP = re.compile(r"[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+|$)")

def plain_token(text: str) -> bool | str | None:
    """PyYAML's value of a plain scalar as SGLang's merger writes it: True/False,
    the token str(value) (`None` for null), or None when autofix cannot tell (a date)."""
    if text in _BOOL_SPELLINGS:
        return _BOOL[text.lower()]
    if text in _NULL:
        return "None"
    if text[:1] in "-+0123456789." and _FLOAT.fullmatch(text):
        return str(_float(text))
    if text[:1] in "-+0123456789" and _INT.fullmatch(text):
        return str(_int(text))
    if _TIMESTAMP.match(text):
        return None
    return text


def _sign(text: str) -> tuple[int, str]:
    text = text.replace("_", "")
    if text[:1] in "+-":
        return (-1 if text[0] == "-" else 1), text[1:]
    return 1, text


def _sexagesimal(text: str, number: Callable[[str], float]) -> float:
    value = 0.0
    for part in text.split(":"):
        value = value * 60 + number(part)
    return value


def _int(text: str) -> int:
    sign, text = _sign(text)
    if text == "0":
        return 0
    if text.startswith("0b"):
        return sign * int(text[2:], 2)
    if text.startswith("0x"):
        return sign * int(text[2:], 16)
    if text.startswith("0"):
        return sign * int(text, 8)
    if ":" in text:
        return sign * int(_sexagesimal(text, int))
    return sign * int(text)


def _float(text: str) -> float:
    sign, text = _sign(text.lower())
    if text == ".inf":
        return sign * math.inf
    if text == ".nan":
        return math.nan
    if ":" in text:
        return sign * _sexagesimal(text, float)
    return sign * float(text)


def plain_syntax(text: str, flow: bool = False) -> bool:
    """Whether text can be written as a plain scalar that YAML reads back whole, as text."""
    if not text or text != text.strip() or "\n" in text or "\t" in text:
        return False
    if flow and any(c in text for c in ",[]{}"):
        return False
    if text[0] in "-?:" and len(text) > 1 and text[1] not in " \t":
        pass
    elif text[0] in "-?:,[]{}#&*!|>'\"%@`":
        return False
    return ": " not in text and " #" not in text and not text.endswith(":")


def is_plain_string(text: str, flow: bool = False) -> bool:
    """Whether text written as a plain scalar reads back as that same string (YAML 1.1 and 1.2)."""
    if not plain_syntax(text, flow) or plain_token(text) != text:
        return False
    # A number in YAML 1.2 (Kubernetes, compose) that YAML 1.1 reads as a string.
    return re.fullmatch(r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|0o[0-7]+|\.inf|\.nan)", text, re.I) is None
