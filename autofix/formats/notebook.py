"""Jupyter notebooks: launches in code cells, edited inside the cells' JSON strings.

A code cell's source (a JSON list of strings, or one string) is read as one
text; each of its characters keeps the place it is written in the file, so
an edit lands inside the string literals and nothing is re-serialised (key
order, indentation and outputs stay). Python cells go through the Python
format (`!` and `%` lines read as comments), `!` lines and `%%bash` cells
through the shell format. An edit is spelled exactly or not at all: inserted
text with a newline would need a new list item, so such a fix is reported
without an edit; a deletion of whole source lines removes their list items.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from autofix.edits import Edit
from autofix.embed import Embedding
from autofix.formats import python, shell
from autofix.formats.jsontext import String, value
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch, NewFlag
from autofix.source import Source, Span

__all__ = ["find_launches", "syntax_errors"]


@dataclass(slots=True)
class _Cell:
    items: list[String]
    text: str
    starts: list[int]
    ends: list[int]
    item_starts: list[int]  # the virtual offset each item starts at

    def embedding(self) -> _CellEmbedding:
        return _CellEmbedding(self)


def _cells(text: str) -> list[_Cell]:
    try:
        doc, _ = value(text)
    except (ValueError, IndexError):
        return []
    cells = doc.get("cells") if isinstance(doc, dict) else None
    found = []
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), String):
            continue
        if cell["cell_type"].text != "code":
            continue
        source = cell.get("source")
        items = [source] if isinstance(source, String) else source if isinstance(source, list) else []
        items = [item for item in items if isinstance(item, String)]
        if not items:
            continue
        starts, ends, item_starts = [], [], []
        for item in items:
            item_starts.append(len(starts))
            starts.extend(item.starts)
            ends.extend(item.ends)
        found.append(_Cell(items, "".join(item.text for item in items), starts, ends, item_starts))
    return found


class _CellEmbedding(Embedding):
    """An Embedding whose deletions of whole source lines remove their list items."""

    def __init__(self, cell: _Cell):
        last = cell.items[-1].span.end - 1
        object.__setattr__(self, "starts", cell.starts)
        object.__setattr__(self, "ends", cell.ends)
        object.__setattr__(self, "end", last)
        object.__setattr__(self, "spell", _spell)
        object.__setattr__(self, "cell", cell)

    __slots__ = ("cell",)

    def edit(self, edit: Edit) -> Edit | None:
        cell = self.cell
        span = edit.span
        bounds = [*cell.item_starts, len(cell.starts)]
        if not edit.text and span.start in bounds and span.end in bounds and span.start < span.end:
            first, last = bounds.index(span.start), bounds.index(span.end) - 1
            items = cell.items
            if last + 1 < len(items):
                return Edit.delete(Span(items[first].span.start, items[last + 1].span.start))
            if first > 0:
                return Edit.delete(Span(items[first - 1].span.end, items[last].span.end))
        return Embedding.edit(self, edit)


def _spell(text: str) -> str | None:
    if "\n" in text:
        return None  # a new line would need a new list item
    return json.dumps(text, ensure_ascii=False)[1:-1]


# -- launches ---------------------------------------------------------------------


def _shell_text(cell: _Cell) -> str | None:
    """The cell's shell commands, same length: `%%bash` cells, else `!` lines (the `!` masked)."""
    text = cell.text
    if text.startswith(("%%bash", "%%sh", "%%script bash")):
        first = text.find("\n")
        return None if first < 0 else " " * first + text[first:]
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.lstrip().startswith("!"):
            at = body.index("!")
            out.append(body[:at] + " " + body[at + 1 :] + line[len(body) :])
        else:
            out.append(re.sub(r"[^\r\n]", " ", line))
    return "".join(out) if any(line.lstrip().startswith("!") for line in text.splitlines()) else None


def _python_text(cell: _Cell) -> str | None:
    if cell.text.startswith("%%"):
        return None
    lines = cell.text.splitlines(keepends=True)
    return "".join("#" + line[1:] if line.lstrip()[:1] in ("!", "%") and line[:1] in ("!", "%") else line
                   for line in lines)


class _Mapped:
    """A container of a launch read from a cell's text, spelling its edits in the file."""

    def __init__(self, inner, embedding: _CellEmbedding, originals: dict[int, Arg]):
        self.inner = inner
        self.embedding = embedding
        self.originals = originals

    def _map(self, edits: Sequence[Edit]) -> tuple[Edit, ...]:
        mapped = [self.embedding.edit(edit) for edit in edits]
        return () if not mapped or any(m is None for m in mapped) else tuple(mapped)  # type: ignore[misc]

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        return self._map(self.inner.replace(self.originals[id(arg)], start, end, value))

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        return self._map(self.inner.remove([self.originals[id(a)] for a in args]))

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        return self._map(self.inner.insert_after([self.originals[id(a)] for a in args], new))


def _mapped(launch: Launch, embedding: _CellEmbedding) -> Launch:
    """A launch read from virtual text, with file spans, file chars and file edits."""
    originals: dict[int, Arg] = {}
    wrappers: dict[int, _Mapped] = {}
    args = []
    for arg in launch.args:
        container = None
        if arg.container is not None:
            container = wrappers.setdefault(id(arg.container), _Mapped(arg.container, embedding, originals))
        chars = None
        if arg.chars is not None:
            chars = tuple(embedding.char(c) if c >= 0 else -1 for c in arg.chars)
        new = replace(arg, span=embedding.span(arg.span), container=container, chars=chars)
        originals[id(new)] = arg
        args.append(new)
    return launch.reread(args, embedding.span(launch.span))


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
) -> list[Launch]:
    launches: list[Launch] = []
    for cell in _cells(source.text):
        if "sglang" not in cell.text:
            continue
        embedding = cell.embedding()
        script = _shell_text(cell)
        if script is not None:
            launches.extend(shell.find_launches(Source(script), table, release, model_lookup, embedding))
        code = _python_text(cell)
        if code is None or "sglang" not in code:
            continue
        try:
            found = python.find_launches(Source(code), table, release, model_lookup)
        except python.PythonSyntaxError:
            continue
        launches.extend(_mapped(launch, embedding) for launch in found)
    return launches


def syntax_errors(text: str) -> int:
    """1 when the notebook is not JSON, else the shell errors of its shell cells."""
    try:
        json.loads(text)
    except ValueError:
        return 1
    errors = 0
    for cell in _cells(text):
        script = _shell_text(cell)
        if script is not None:
            errors += shell.syntax_errors(script)
    return errors
