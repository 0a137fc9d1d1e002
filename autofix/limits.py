"""Bounds on what a parser is given: nesting deep enough to crash or stall one is refused before it sees it.

libcst's native parser overflows its stack (a segfault) on about 3,000 nested
calls and takes seconds per level on long chains; Python's own parser refuses
more than 200 nested brackets. So a Python text Python's parser cannot turn
into a tree, or whose tree is deeper than MAX_DEPTH, is not checked; a
notebook's or Markdown file's cells (parsed as Python inside) are refused on
bracket depth, counted over the whole text.
"""

from __future__ import annotations

import re

__all__ = ["MAX_BRACKETS", "MAX_DEPTH", "too_deep"]

# Python's tokenizer allows 200 nested brackets (MAXLEVEL); a notebook's JSON adds a few levels.
MAX_BRACKETS = 200 + 16
# Deeper than any hand-written code (Python's own compiler stops near here) and far from libcst's crash.
MAX_DEPTH = 500

_BRACKET = re.compile(r"[][(){}]")


def too_deep(text: str, kind: str) -> bool:
    """Whether text of this kind (a format's name) is nested too deeply to parse."""
    if kind == "python":
        return _python_too_deep(text)
    if kind in ("notebook", "markdown"):
        return bracket_depth(text) > MAX_BRACKETS
    return False


def bracket_depth(text: str) -> int:
    """The deepest nesting of brackets in text, strings and comments counted too (a bound, not a parse)."""
    if sum(text.count(c) for c in "([{") <= MAX_BRACKETS:
        return 0  # too few to nest deeper (the common case, at C speed)
    depth = deepest = 0
    for match in _BRACKET.finditer(text):
        if match[0] in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest


def _python_too_deep(text: str) -> bool:
    import ast

    if bracket_depth(text) > MAX_BRACKETS:
        return True
    if len(text) < MAX_DEPTH:  # each level takes a character at least
        return False
    from autofix.formats.python.parse import _ast  # the tree the format reads next, parsed once

    try:
        tree = _ast(text)
    except (RecursionError, MemoryError):  # CPython's parser: "too complex" (its stack) is a MemoryError
        return True
    except (SyntaxError, ValueError):
        return False  # the format reports it (libcst decides)
    stack = [(tree, 1)]
    while stack:  # without recursion
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False
