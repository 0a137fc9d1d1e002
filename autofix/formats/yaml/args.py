"""Where YAML holds argv tokens, and how an edit is spelled there.

Two containers: the top-level mapping of an SGLang `--config` file, read the
way SGLang's ConfigArgumentMerger turns it into argv tokens, and a YAML list
of argv items (`command:`/`args:` of a Kubernetes container, a compose
service's `entrypoint:`/`command:`). Both spell edits in the file's own style:
its indentation, its quotes, flow or block, one item per token or `--flag=value`.
They read ruamel's composed nodes through the document (`autofix.formats.yaml.document`),
which alone imports ruamel.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autofix.edits import Edit
from autofix.formats.yaml.text import HOLE, is_plain_string, plain_syntax, plain_token, writes_lines
from autofix.knowledge.options import Option, OptionTable
from autofix.model import Arg, NewFlag
from autofix.source import Span

if TYPE_CHECKING:
    from autofix.formats.yaml.document import Document

__all__ = ["ArgList", "ConfigMapping", "exact_option", "key_name", "kind"]

# A variable expanded in an argv item before the program sees it (`$$` writes a `$`):
# Kubernetes expands $(VAR); compose interpolates ${VAR} and $VAR in the whole file.
_KUBERNETES_VARIABLE = re.compile(r"(?<!\$)\$\(")
_COMPOSE_VARIABLE = re.compile(r"(?<!\$)\$[({A-Za-z_]")


def kind(node) -> str:  # noqa: ANN001
    """A composed node's shape: "scalar", "list" or "map"."""
    name = type(node).__name__
    return "scalar" if name == "ScalarNode" else "list" if name == "SequenceNode" else "map"


def key_name(node) -> str | None:  # noqa: ANN001
    """A mapping key written plain, as text; None for any other key."""
    return node.value if kind(node) == "scalar" and not node.style else None


def exact_option(table: OptionTable, name: str) -> Option | None:
    """The option a config key names exactly (not by a prefix)."""
    found = table.lookup("--" + name)
    return found[0] if isinstance(found, tuple) and found[1] == "--" + name else None


def _store_true(option: Option | None) -> bool:
    return option is not None and (option.action == "store_true" or option.action.endswith("storetrueaction"))


@dataclass(frozen=True, slots=True)
class _Entry:
    key: object  # the key node
    value: object  # the value node
    args: tuple[Arg, ...]


class ConfigMapping:
    """A config file's mapping: its tokens, and how an edit is spelled there."""

    config_file = True  # what fixers/_argparse.in_config_file asks of a flag's container

    def __init__(self, doc: Document, root, table: OptionTable):  # noqa: ANN001
        self.doc = doc
        self.root = root
        self.table = table
        self.frozen = bool(root.flow_style) or doc.anchored(root)
        self.entries: list[_Entry] = []
        self.args: list[Arg] = []
        previous_end = doc.start(root)
        for key, value in root.value:
            alias = doc.start(value) < previous_end or doc.start(value) < doc.start(key)
            entry = _Entry(key, value, tuple(self._tokens(key, value, alias)))
            self.entries.append(entry)
            self.args.extend(entry.args)
            previous_end = max(previous_end, value.end_mark.index)

    def _tokens(self, key, value, alias: bool) -> Iterator[Arg]:  # noqa: ANN001
        doc = self.doc
        name = key_name(key)
        if name is None or name == "<<" or HOLE in name:
            yield Arg(None, doc.span(key), splat=True)
            return
        token = plain_token(name)
        container = None if alias or self.frozen else self
        key_written = doc.written(key)
        key_chars = (-1, -1, *doc.chars(key_written)) if key_written else None
        flag = Arg(f"--{token}", doc.span(key), container, chars=key_chars)
        shape = kind(value)
        if shape == "list":
            if value.value:
                yield flag
                for item in value.value:
                    yield self._value(item, container, alias)
            return
        if shape == "map":
            # A mapping is JSON-dumped into one token; autofix does not spell JSON.
            yield flag
            yield Arg(None, doc.span(value), container, editable=False)
            return
        got = self._scalar(value)
        if isinstance(got, bool):
            # The merger's test: the key, with dashes read as underscores, is a store_true dest.
            if _store_true(self.table.by_dest(str(token).replace("-", "_"))):
                if got:
                    yield flag
                return
            yield flag
            yield Arg("true" if got else "false", doc.span(value), container, editable=False)
            return
        yield flag
        yield self._value(value, container, alias)

    def _scalar(self, node) -> bool | str | None:  # noqa: ANN001
        """The scalar as PyYAML loads it: a bool, a token str(value), or None when unknown."""
        if HOLE in node.value:
            return None
        tag = self.doc.text[node.start_mark.index : self.doc.start(node)]
        if "!" in tag:
            return node.value if "!!str" in tag or "tag:yaml.org,2002:str" in tag else None
        return plain_token(node.value) if not node.style else node.value

    def _value(self, node, container, alias: bool) -> Arg:  # noqa: ANN001
        doc = self.doc
        if kind(node) != "scalar":
            return Arg(None, doc.span(node), container, editable=False)
        got = self._scalar(node)
        if got is None:
            return Arg(None, doc.span(node), container)
        text = str(got)
        written = doc.written(node)
        chars = doc.chars(written) if written is not None and written.value == text else None
        return Arg(text, doc.span(node), container, editable=not alias, chars=chars)

    # Container

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        region = arg.region(start, end)
        if region is None or arg.text is None:
            return ()
        new = arg.text[:start] + value + arg.text[end:]
        if self._is_key(arg):
            # A key renamed (its token is `--KEY`): still a plain key, and not one the mapping has.
            key = new[2:]
            taken = {key_name(e.key) for e in self.entries}
            return (Edit(region, value),) if new.startswith("--") and _config_plain(key) and key not in taken else ()
        node = self._node_of(arg)
        if node is None or not node.style and not _config_plain(new):
            return ()
        return (Edit(region, value),)

    def entry_args(self, key: Arg) -> tuple[Arg, ...]:
        """The tokens of the entry whose key is `key` (the key's own first); () for another arg."""
        entry = next((e for e in self.entries if e.args and e.args[0] is key), None)
        return entry.args if entry is not None else ()

    def _is_key(self, arg: Arg) -> bool:
        return any(self.doc.span(entry.key) == arg.span for entry in self.entries)

    def _node_of(self, arg: Arg):  # noqa: ANN202
        for entry in self.entries:
            nodes = [entry.value] if kind(entry.value) == "scalar" else list(entry.value.value)
            for node in nodes:
                if kind(node) == "scalar" and self.doc.span(node) == arg.span:
                    return node
        return None

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        entry = self._entry(args)
        if entry is None or tuple(args) != entry.args:
            return ()
        span = self._entry_lines(entry)
        return (Edit.delete(span),) if span is not None else ()

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        entry = self._entry(args)
        span = self._entry_lines(entry) if entry is not None else None
        if span is None:
            return ()
        doc = self.doc
        indent = doc.text[doc.line(doc.start(entry.key)).start : doc.start(entry.key)]
        value = "true" if new.value is None else self._spell(new.value)
        line = f"{indent}{new.option.primary[2:]}: {value}"
        if span.end - doc.base == doc.line(span.end - doc.base - 1).end:  # the last line, without a newline
            return (Edit.insert(span.end, doc.newline + line),)
        return (Edit.insert(span.end, line + doc.newline),)

    def _entry(self, args: Sequence[Arg]) -> _Entry | None:
        if not args:
            return None
        for entry in self.entries:
            if any(a is args[-1] for a in entry.args):
                return entry
        return None

    def _entry_lines(self, entry: _Entry) -> Span | None:
        """The whole lines of a block mapping entry, with a comment after it."""
        doc = self.doc
        start = doc.start(entry.key)
        line = doc.line(start)
        if doc.text[line.start : start].strip() or self.frozen:
            return None
        end = doc.content_end(entry.value)
        value = entry.value
        if kind(value) == "scalar" and not value.value and not value.style and "!" not in doc.text[value.start_mark.index : end]:
            # An empty value (YAML null) has its marks at the next token: the entry ends at its colon.
            end = doc.text.index(":", entry.key.end_mark.index) + 1
        if not doc.rest_is_blank(end):
            return None
        return Span(doc.base + line.start, doc.base + doc.after_line(end))

    def _spell(self, value: str) -> str:
        """A value in the file's style: quoted only if the file quotes its string values."""
        quote = _quote_style(self.doc, [e.value for e in self.entries if kind(e.value) == "scalar"])
        if quote is None and _config_plain(value):
            return value
        return _quoted(value, quote or '"')


def _config_plain(value: str) -> bool:
    """A value PyYAML reads, and SGLang's merger writes, as itself when it is not quoted."""
    return plain_syntax(value) and plain_token(value) == value


def _quote_style(doc: Document, nodes: Sequence[object]) -> str | None:
    """The quote a file uses for string values that need none, or None when it writes them plain."""
    counts = {"": 0, '"': 0, "'": 0}
    for node in nodes:
        style = getattr(node, "style", None) or ""  # a list or mapping item (no style) counts for none
        if kind(node) == "scalar" and style in counts and is_plain_string(node.value):  # type: ignore[attr-defined]
            counts[style] += 1
    quote = max(('"', "'"), key=lambda q: counts[q])
    return quote if counts[quote] > counts[""] else None


def _quoted(value: str, quote: str) -> str:
    if quote == "'":
        return "'" + value.replace("'", "''") + "'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ArgList:
    """A YAML sequence of argv items, and how an edit is spelled there."""

    def __init__(self, doc: Document, node, frozen: bool, kubernetes: bool = False):  # noqa: ANN001
        self.doc = doc
        self.node = node
        self.variable = _KUBERNETES_VARIABLE if kubernetes else _COMPOSE_VARIABLE
        self.flow = bool(node.flow_style)
        self.frozen = frozen
        self.items: list[object] = []  # item nodes written here (aliases excluded)
        self.positions: list[int] = []  # each one's index in the list

    def args(self, alias_of: Callable[[object, int], bool]) -> list[Arg]:
        """The argv tokens of the list; template lines inside it may stand for any tokens."""
        doc, node = self.doc, self.node
        items = node.value
        markers = set(doc.markers(node.start_mark.index, node.end_mark.index))
        if items and not self.flow:
            last = doc.content_end(items[-1])
            column = node.start_mark.column
            markers = {m for m in markers if m < last or doc.masked.lines[m] >= column}
        args: list[Arg] = []
        for index, item in enumerate(items):
            before = sorted(m for m in markers if m < item.start_mark.index)
            for m in before:
                args.append(Arg(None, Span(doc.base + m, doc.base + m), self, splat=True))
                markers.discard(m)
            if alias_of(item, index):
                args.append(self._alias(item))
                continue
            self.items.append(item)
            self.positions.append(index)
            args.append(self._item(item))
        for m in sorted(markers):
            args.append(Arg(None, Span(doc.base + m, doc.base + m), self, splat=True))
        return args

    def _alias(self, item) -> Arg:  # noqa: ANN001
        text = item.value if kind(item) == "scalar" and HOLE not in item.value else None
        return Arg(text, self.doc.span(item), None, editable=False)

    def _item(self, item) -> Arg:  # noqa: ANN001
        doc = self.doc
        container = None if self.frozen or doc.anchored(item) else self
        if kind(item) != "scalar":
            return Arg(None, doc.span(item), container)
        value = item.value
        if HOLE in value:
            # A template: one unknown item, or (YAML it writes) any number of them.
            span = doc.span(item)
            source = doc.source.text[span.start - doc.base : span.end - doc.base]
            return Arg(None, span, container, splat=not item.style and writes_lines(source))
        if self.variable.search(value):
            return Arg(None, doc.span(item), container)  # a value from the environment
        written = doc.written(item)
        chars = doc.chars(written) if written is not None else None
        return Arg(value, doc.span(item), container, chars=chars)

    def _index(self, arg: Arg) -> int | None:
        for index, item in enumerate(self.items):
            if self.doc.span(item) == arg.span:
                return index
        return None

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        found = [self._index(a) for a in args]
        if self.frozen or not found or None in found:
            return None
        positions = [self.positions[i] for i in found]  # type: ignore[index]
        if positions != list(range(positions[0], positions[0] + len(positions))):
            return None
        return found[0], found[-1]  # type: ignore[return-value]

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        index = self._index(arg)
        region = arg.region(start, end)
        if self.frozen or index is None or region is None or arg.text is None:
            return ()
        new = arg.text[:start] + value + arg.text[end:]
        if not self.items[index].style and not is_plain_string(new, self.flow):
            return ()
        return (Edit(region, value),)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if run is None:
            return ()
        first, last = run
        doc = self.doc
        start, end = doc.start(self.items[first]), doc.content_end(self.items[last])
        if self._own_lines(first, last):
            return (Edit.delete(Span(doc.base + doc.line(start).start, doc.base + doc.after_line(end))),)
        if not self.flow:
            return ()
        if first > 0:
            return (Edit.delete(Span(doc.base + doc.content_end(self.items[first - 1]), doc.base + end)),)
        if last + 1 < len(self.items):
            return (Edit.delete(Span(doc.base + start, doc.base + doc.start(self.items[last + 1]))),)
        return (Edit.delete(Span(doc.base + start, doc.base + end)),)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if run is None:
            return ()
        doc = self.doc
        item = self.items[run[1]]
        tokens = [self._spell(token) for token in new.tokens()]
        end = doc.content_end(item)
        if self.flow:
            return (Edit.insert(doc.base + end, "".join(", " + t for t in tokens)),)
        if not self._own_lines(run[1], run[1]):
            return ()
        start = doc.start(item)
        prefix = doc.text[doc.line(start).start : start]
        lines = [prefix + t for t in tokens]
        after = doc.after_line(end)
        if after == doc.line(end).end:  # the last line, without a newline
            return (Edit.insert(doc.base + after, "".join(doc.newline + line for line in lines)),)
        return (Edit.insert(doc.base + after, "".join(line + doc.newline for line in lines)),)

    def _own_lines(self, first: int, last: int) -> bool:
        """Items first..last fill their lines (a block list's `- item`, or a flow list's line)."""
        doc = self.doc
        start = doc.start(self.items[first])
        prefix = doc.text[doc.line(start).start : start]
        pattern = r"[ \t]*" if self.flow else r"[ \t]*-[ \t]+"
        if re.fullmatch(pattern, prefix) is None:
            return False
        if self.flow and first == 0 or self.flow and last + 1 == len(self.items):
            return False
        return doc.rest_is_blank(doc.content_end(self.items[last]))

    def _spell(self, token: str) -> str:
        quote = _quote_style(self.doc, self.items)
        if quote is None and is_plain_string(token, self.flow):
            return token
        return _quoted(token, quote or '"')
