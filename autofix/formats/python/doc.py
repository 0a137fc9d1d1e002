"""One parsed file: node spans, its scopes, and where a launch is (`_At`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from autofix.formats.python.containers import _Layout, _Statements
from autofix.formats.python.index import _indexer
from autofix.formats.python.names import _Binding, _Scope, _Use
from autofix.formats.python.parse import _parse, _reduced
from autofix.knowledge.options import OptionTable
from autofix.source import Source, Span


def _char_offsets(text: str) -> list[int]:
    """For each UTF-8 byte of text, the index of its character (and len(text) at the end)."""
    offsets: list[int] = []
    for index, ch in enumerate(text):
        offsets.extend([index] * len(ch.encode("utf-8")))
    offsets.append(len(text))
    return offsets


class _Doc:
    """One parsed file: node spans, and what each scope binds and reads."""

    def __init__(self, source: Source, table: OptionTable, release: str | None, model_lookup: object):
        from libcst.metadata import ByteSpanPositionProvider, MetadataWrapper

        self.source = source
        # The original: what edits copy (quotes, indentation) is read here. libcst
        # sees the reduced text, offset for offset the same, its own bytes counted.
        self.text = source.text
        self.table = table
        self.release = release
        self.model_lookup = model_lookup
        parsed = _reduced(self.text)
        self.module = _parse(parsed)
        self._spans = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(ByteSpanPositionProvider)
        self._char_of = None if len(parsed.encode("utf-8")) == len(parsed) else _char_offsets(parsed)
        self.quote = _file_quote(self.text)
        self.layout = _Layout(self)
        self._appends: dict[int, _Statements] = {}
        index = _indexer(self)
        self.calls = index.calls
        self.returns = index.returns
        self.parent_call = index.parent_call
        self.functions = index.functions
        self.module_scope = index.module
        _resolve_uses(self.module_scope, index.scopes)

    def span(self, node: object) -> Span:
        code = self._spans[node]
        start, end = code.start, code.start + code.length
        if self._char_of is not None:
            start, end = self._char_of[start], self._char_of[end]
        return Span(start, end)

    # names

    def lookup(self, name: str, scope: _Scope) -> list[_Binding]:
        """The bindings a read of name in scope may see (Python's LEGB, without builtins)."""
        if scope.declared.get(name) == "global":
            scope = self.module_scope
        start = scope
        while scope is not None:
            if name in scope.bindings and (scope is start or scope.kind != "class"):
                return scope.bindings[name]
            scope = scope.parent
        return []

    def single(self, name: str, scope: _Scope) -> _Binding | None:
        bindings = self.lookup(name, scope)
        if len(bindings) != 1 or bindings[0].value is None:
            return None
        return bindings[0]

    def owner(self, binding: _Binding, name: str) -> _Scope:
        scope = binding.scope
        while name not in scope.bindings or binding not in scope.bindings[name]:
            scope = scope.parent  # type: ignore[assignment]
        return scope

    def uses(self, binding: _Binding, name: str) -> list[_Use]:
        return self.owner(binding, name).uses.get(name, [])

    def qualified(self, node: object, scope: _Scope) -> set[str]:
        """Dotted names an expression may stand for: `sgl.Engine` -> {"sglang.Engine"}."""
        import libcst as cst

        if isinstance(node, cst.Name):
            bindings = self.lookup(node.value, scope)
            if not bindings:
                return {node.value}
            return {b.qualified for b in bindings if b.qualified}
        if isinstance(node, cst.Attribute):
            return {f"{q}.{node.attr.value}" for q in self.qualified(node.value, scope)}
        return set()


def _resolve_uses(module: _Scope, all_scopes: Sequence[_Scope]) -> None:
    """Move each recorded use to the scope that binds its name."""
    pending = [(name, use) for scope in all_scopes for name, uses in scope.uses.items() for use in uses]
    for scope in all_scopes:
        scope.uses = {}
    for name, use in pending:
        scope = use.scope
        if scope.declared.get(name) == "global":
            scope = module
        start = scope
        while scope.parent is not None and not (
            name in scope.bindings and (scope is start or scope.kind != "class")
        ):
            scope = scope.parent
        scope.uses.setdefault(name, []).append(use)


def _file_quote(text: str) -> str:
    double, single = text.count('"'), text.count("'")
    return "'" if single > double else '"'


@dataclass(frozen=True, slots=True)
class _At:
    """Where a launch is: its scope, offset and the conditional suites around it."""

    scope: _Scope
    offset: int
    blocks: tuple[int, ...]

    def runs_after(self, use: _Use) -> bool:
        """Whether use ran, unconditionally, before every run of this launch."""
        if use.scope is self.scope:
            return use.offset < self.offset and self.blocks[: len(use.blocks)] == use.blocks
        # Straight-line module code runs at import, before any function is called.
        return use.scope.kind == "module" and self.scope.kind != "module" and not use.blocks

    def before(self, use: _Use) -> bool:
        """Whether use may run before this launch."""
        return use.scope is not self.scope or use.offset < self.offset


def _reads(uses: Sequence[_Use]) -> int:
    """How many expressions read a collection (a launch among them)."""
    return sum(1 for use in uses if use.role in ("read", "pass"))


def _may_change(use: _Use, own: object, at: _At) -> bool:
    """Whether use, other than the launch's own read, may change the collection before the launch."""
    return use.role in ("extend", "append", "mutate", "pass") and use.node is not own and at.before(use)
