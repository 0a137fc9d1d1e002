"""Parsing shell text with tree-sitter-bash, and counting what it cannot parse."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

_PARSER = None


def _parser():  # noqa: ANN202 - tree_sitter.Parser, imported lazily
    global _PARSER
    if _PARSER is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER = Parser(Language(tree_sitter_bash.language()))
    return _PARSER


# A `$` that starts no expansion (`$HOST$:5757`, `$/path`): bash keeps it as a character; the parser
# reads an error there, and may lose the rest of the line to it.
_LITERAL_DOLLAR = re.compile(rb"(?<![\\$])\$(?=[:/.,=\]])")


def _mask_crlf(data: bytes) -> bytes:
    """Same-length bytes for the parser: CRLF reads as LF (a '\\' continuation included), and a literal
    `$` as a word character (each node's text is still read from the original)."""
    if b"$" in data:
        data = _LITERAL_DOLLAR.sub(b"_", data)
    if b"\r" not in data:
        return data
    return data.replace(b"\\\r\n", b" \\\n").replace(b"\r\n", b" \n")


def parse(data: bytes, ranges: Sequence[object] | None = None):  # noqa: ANN201
    parser = _parser()
    if ranges is not None:
        parser.included_ranges = list(ranges)
    try:
        return parser.parse(_mask_crlf(data))
    finally:
        if ranges is not None:
            parser.included_ranges = []


# Leading comment lines longer than this are left out of the parse (a Markdown block's
# masked prefix is one such line, as long as the document before the block).
_LONG_PREFIX = 1024
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _after_leading_comments(data: bytes) -> list[object] | None:
    """The range to parse when data opens with long comment lines: what follows them (their
    lines still count), as tree-sitter's included ranges; None to parse all of data."""
    at = row = 0
    while data.startswith(b"#", at):
        end = data.find(b"\n", at)
        if end == -1:
            return None
        at, row = end + 1, row + 1
    if at < _LONG_PREFIX or at == len(data):
        return None
    from tree_sitter import Point, Range

    last = data.rfind(b"\n")
    end_point = Point(data.count(b"\n"), len(data) - last - 1)
    return [Range(Point(row, 0), end_point, at, len(data))]


def syntax_errors(text: str) -> int:
    """How many ERROR or MISSING nodes bash's grammar finds in text."""
    data = text.encode("utf-8")
    root = parse(data, _after_leading_comments(data)).root_node
    return sum(1 for _ in _error_nodes(root)) if root.has_error else 0


def _error_nodes(node) -> Iterator[object]:  # noqa: ANN001
    stack = [node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            yield node
        elif node.has_error:
            stack.extend(node.children)


