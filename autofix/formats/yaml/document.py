"""One YAML document: ruamel.yaml's composed nodes (libyaml where it gives the pure composer's
nodes), template expressions masked, and where each node is written."""

from __future__ import annotations

import functools
import importlib.util
import re
import warnings

from autofix.formats.yaml.args import kind
from autofix.formats.yaml.text import Masked, Written, mask_templates, read_scalar
from autofix.source import Source, Span


class Document:
    """One YAML text: masked, composed, and read at the character level.

    Offsets handed out (spans, chars) are the file's plus base: where the text
    sits in a larger offset space (a `--config` file read with its launch).
    """

    def __init__(self, source: Source, base: int = 0):
        self.source = source
        self.base = base
        self.masked: Masked = mask_templates(source.text)
        self.text = self.masked.text
        self.newline = source.newline
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a reused anchor and the like: not autofix's to report
            self.roots = [r for r in compose(self.text) if r is not None]
        self._written: dict[int, Written | None] = {}

    # positions

    def start(self, node) -> int:  # noqa: ANN001
        """Where the node's content starts, after any anchor or tag (an empty node: where it ends)."""
        return min(_PROPERTIES.match(self.text, node.start_mark.index).end(),
                   max(node.start_mark.index, node.end_mark.index))

    def anchored(self, node) -> bool:  # noqa: ANN001
        return "&" in self.text[node.start_mark.index : self.start(node)]

    def span(self, node) -> Span:  # noqa: ANN001
        return Span(self.base + self.start(node), self.base + node.end_mark.index)

    def content_end(self, node) -> int:  # noqa: ANN001
        """Just after the last character a node writes (block scalars and lists end earlier than their marks)."""
        if kind(node) == "scalar":
            written = self.written(node)
            if written is not None and node.style in ("|", ">"):
                return written.end
            return node.end_mark.index
        if node.flow_style or not node.value:
            return node.end_mark.index
        last = node.value[-1]
        return self.content_end(last[1] if isinstance(last, tuple) else last)

    def written(self, node) -> Written | None:  # noqa: ANN001
        key = id(node)
        if key not in self._written:
            found = read_scalar(self.text, self.start(node), node.end_mark.index, node.style or "")
            self._written[key] = found if found is not None and found.value == node.value else None
        return self._written[key]

    def chars(self, written: Written) -> tuple[int, ...]:
        return tuple(c + self.base if c >= 0 else -1 for c in written.chars())

    # lines

    def line(self, offset: int) -> Span:
        return self.source.line_span(offset)

    def after_line(self, offset: int) -> int:
        """The start of the line after the one holding offset (or the end of the text)."""
        end = self.line(offset).end
        if self.text.startswith("\r\n", end):
            return end + 2
        return end + 1 if end < len(self.text) else end

    def rest_is_blank(self, offset: int) -> bool:
        """Only blanks, a comma or a comment follow offset on its line."""
        rest = self.text[offset : self.line(offset).end]
        return re.fullmatch(r"[ \t]*,?[ \t]*(?:#.*)?", rest) is not None

    def markers(self, start: int, end: int) -> list[int]:
        """Template lines between two offsets that may write something."""
        return [line for line in self.masked.outputs if start <= line < end]


_PROPERTIES = re.compile(r"(?:[ \t\r\n]+|&[^ \t\r\n,\[\]{}]+|![^ \t\r\n,\[\]{}]*)*")


# -- composing: libyaml where it gives the pure composer's nodes -------------------------

# ruamel.yaml.clib: ruamel composes with libyaml when it is there. Looked for, not imported: ruamel is
# imported only when a YAML text is composed (a Markdown or shell check does not pay for it).
LIBYAML = importlib.util.find_spec("_ruamel_yaml") is not None
# libyaml's composer recurses in C, about 300 bytes of stack a level, and overflows it unchecked (the
# process dies): 1000 levels fit even a 512 KiB thread stack.
LIBYAML_DEPTH = 1000
# The pure composer recurses in Python, some 450 levels under the default recursion limit: libyaml's
# nodes stand in for it only well below that, so that "nested too deeply" stays its verdict.
PURE_DEPTH = 100
# What libyaml (YAML 1.1) and the pure composer (YAML 1.2) read differently: tabs (libyaml accepts
# some the pure composer refuses), NEL and the Unicode line breaks (which one counts as lines), a
# leading BOM (libyaml does not count it in offsets), an anchor or alias name followed by one of
# `?:%@` or a backtick (YAML 1.2 reads it as part of the name: `&a: 1` is a scalar, not a map), a
# directive (libyaml's tags do not follow `%YAML 1.1`), and a document end marker (libyaml takes
# one after another, the pure composer refuses the second).
_PURE_ONLY = re.compile(r"[\t\x85\u2028\u2029]|\A\ufeff|[&*][0-9A-Za-z_-]+[?:%@`]|^%|^\.\.\.(?:[ \r\n]|\Z)", re.M)
# What the pure composer's scanner skips to reach the token after a `:` that has no value.
_TO_TOKEN = re.compile(r"(?:[ ]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*[ ]*(?:#[^\r\n]*)?")
_BREAK = re.compile(r"\r\n|\r|\n")


def compose(text: str) -> list:
    """The documents of a YAML text as ruamel nodes (None: an empty document); the
    pure composer's errors where the text is not YAML."""
    roots = libyaml_roots(text) if LIBYAML else None
    if roots is None:
        from ruamel.yaml import YAML

        roots = list(YAML(typ="safe", pure=True).compose_all(text))
    return roots


@functools.cache
def _resolver() -> type:
    from ruamel.yaml.resolver import VersionedResolver

    class Resolver(VersionedResolver):
        """The pure composer's tags: YAML 1.2's, as no `%YAML` directive reaches libyaml,
        without looking the version up again for every scalar (half of libyaml's time)."""

        processing_version = (1, 2)

    return Resolver


def libyaml_roots(text: str) -> list | None:
    """libyaml's documents, made the pure composer's; None where they may differ
    or libyaml refuses the text (the pure composer then says why, as ever)."""
    if _PURE_ONLY.search(text) or not _shallow(text):
        return None
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=False)
    yaml.Resolver = _resolver()
    try:
        roots = list(yaml.compose_all(text))
    except Exception:  # noqa: BLE001 - a YAML error, or a lone surrogate that cannot be UTF-8
        return None
    return roots if _as_pure(roots, text) else None


def _shallow(text: str) -> bool:
    """Whether libyaml surely nests less than LIBYAML_DEPTH deep: a block collection in
    another starts at a greater column at least every second level, and a flow
    collection opens with a bracket of its own."""
    longest = max(map(len, text.split("\n")))
    return 2 * (longest + 2) + text.count("[") + text.count("{") < LIBYAML_DEPTH


def _as_pure(roots: list, text: str) -> bool:
    """Make libyaml's nodes the pure composer's; False where that cannot be told,
    or when collections nest deeper than PURE_DEPTH.

    A plain scalar's style is "" (None in the pure composer). An empty value
    of a block mapping is placed just after its `:` where the pure composer
    places it at the next token. In a flow mapping libyaml places an empty key
    or value at the next token, the pure composer after its indicator; and of
    a single pair in a flow sequence (`[a: b]`) YAML 1.2 refuses some that
    libyaml reads (`["a":b]`).
    """
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    stack = [(root, 1) for root in reversed(roots) if root is not None]
    seen: set[int] = set()
    while stack:  # collections in document order, so that each is met first where it is composed
        node, depth = stack.pop()
        if type(node) is ScalarNode:
            node.style = node.style or None
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if depth > PURE_DEPTH:
            return False
        if type(node) is MappingNode:
            if node.flow_style and not _flow_as_pure(node, text):
                return False
            for _, value in node.value:
                if not node.flow_style and _empty(value) and text[value.start_mark.index - 1] == ":":
                    if not _move_to_token(value, text):
                        return False
            children = [child for pair in node.value for child in pair]
        else:
            children = node.value
        for child in reversed(children):
            if type(child) is ScalarNode:
                child.style = child.style or None
            else:
                stack.append((child, depth + 1))
    return True


def _flow_as_pure(node, text: str) -> bool:  # noqa: ANN001
    """A flow mapping in braces without an empty key or value."""
    if text[_PROPERTIES.match(text, node.start_mark.index).end()] != "{":
        return False
    return not any(_empty(key) or _empty(value) for key, value in node.value)


def _empty(node) -> bool:  # noqa: ANN001
    """An empty plain scalar with no properties: it has no text of its own to be placed at."""
    from ruamel.yaml.nodes import ScalarNode

    return (type(node) is ScalarNode and not node.value and not node.style
            and node.start_mark.index == node.end_mark.index)


def _move_to_token(node, text: str) -> bool:  # noqa: ANN001
    """Place an empty value where the pure composer does: at the token after its `:`.

    False when that token is an explicit key or value indicator, which the
    pure composer places after itself.
    """
    mark = node.start_mark
    at = _TO_TOKEN.match(text, mark.index).end()
    if text[at : at + 1] in ("?", ":"):
        return False
    breaks = list(_BREAK.finditer(text, mark.index, at))
    line = mark.line + len(breaks)
    column = at - breaks[-1].end() if breaks else mark.column + at - mark.index
    node.start_mark = node.end_mark = type(mark)(mark.name, at, line, column, None, None)
    return True


def _parse(source: Source, base: int = 0) -> Document:
    from ruamel.yaml.error import YAMLError

    try:
        return Document(source, base)
    except (YAMLError, RecursionError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = "nested too deeply" if isinstance(exc, RecursionError) else getattr(exc, "problem", None)
        problem = problem or type(exc).__name__
        raise SyntaxError(f"{where}{problem}") from None


def syntax_errors(text: str) -> int:
    """1 when the text (templates masked) is not YAML, else 0."""
    try:
        _parse(Source(text))
    except SyntaxError:
        return 1
    return 0


