"""Reading expressions: scalars, strings, argv lists and keyword sets, names followed to what
the module binds them to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from autofix.formats.python.containers import _Item, _Items, _Statements, _UNKNOWN, _Value
from autofix.formats.python.doc import _At, _Doc, _may_change, _reads
from autofix.formats.python.names import _Binding, _Scope, _Use
from autofix.formats.python.strings import _FIELD, _Piece, _Text, _speller, _string_parts, _unescape_py
from autofix.knowledge.options import Option
from autofix.model import Arg
from autofix.source import Span


# -- reading expressions -----------------------------------------------------------


class _Reader:
    """What expressions stand for: scalars, strings, argv lists, keyword sets."""

    def __init__(self, doc: _Doc):
        import libcst as cst

        self.cst = cst
        self.doc = doc
        self.span = doc.span

    # scalars and strings

    def scalar(self, node: object, scope: _Scope, at: _At, depth: int = 0) -> _Value:
        cst = self.cst
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            text = self.string(node, scope, at)
            if text is None or text.fields:
                return _UNKNOWN
            return _Value("str", text.text, text.chars)
        if isinstance(node, cst.Integer):
            try:
                return _Value("int", int(node.value.replace("_", ""), 0))
            except ValueError:
                return _UNKNOWN
        if isinstance(node, cst.Float):
            return _Value("float", float(node.value.replace("_", "")))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.scalar(node.expression, scope, at, depth + 1)
            if inner.kind in ("int", "float") and isinstance(node.expression, (cst.Integer, cst.Float)):
                return _Value(inner.kind, -inner.value, editable=inner.editable)  # type: ignore[operator]
            return _UNKNOWN
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return _Value("bool", node.value == "True")
            if node.value == "None":
                return _Value("none")
            binding = self.doc.single(node.value, scope)
            if binding is None or depth > 8:
                return _UNKNOWN
            return self.scalar(binding.value, binding.scope, at, depth + 1).borrowed()
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, at, depth)
        if isinstance(node, cst.Call) and self.doc.qualified(node.func, scope) == {"str"}:
            args = node.args
            if len(args) == 1 and not args[0].star and args[0].keyword is None:
                inner = self.scalar(args[0].value, scope, at, depth + 1)
                if inner.kind != "unknown":
                    return _Value("str", inner.text, editable=inner.editable)
        return _UNKNOWN

    def _attribute(self, node, scope: _Scope, at: _At, depth: int) -> _Value:  # noqa: ANN001
        """`cls.model` assigned once, earlier, unconditionally, in the same function."""
        if scope is not at.scope or not isinstance(node.value, self.cst.Name):
            return _UNKNOWN
        bindings = scope.attributes.get((node.value.value, node.attr.value), [])
        if len(bindings) != 1 or bindings[0].value is None:
            return _UNKNOWN
        binding = bindings[0]
        if binding.offset > at.offset or at.blocks[: len(binding.blocks)] != binding.blocks:
            return _UNKNOWN
        return self.scalar(binding.value, scope, at, depth + 1).borrowed()

    def string(self, node: object, scope: _Scope, at: _At, keep: bool = False) -> _Text | None:
        """A string's value; keep: with its backslash-newlines kept (see _unescape_py)."""
        cst = self.cst
        if isinstance(node, cst.SimpleString):
            return self._simple(node, keep)
        if isinstance(node, cst.FormattedString):
            return self._formatted(node, scope, at, keep)
        if isinstance(node, cst.ConcatenatedString):
            left, right = self.string(node.left, scope, at, keep), self.string(node.right, scope, at, keep)
            return left.plus(right) if left is not None and right is not None else None
        return None

    def _simple(self, node, keep: bool) -> _Text | None:  # noqa: ANN001
        raw = node.value
        prefix, quote, at = _string_parts(raw)
        if "b" in prefix:
            return None
        start = self.span(node).start + at
        body = raw[at : len(raw) - len(quote)]
        decoded = _unescape_py(body, start, "r" in prefix, False, keep)
        if decoded is None:
            return None
        speller = _speller(prefix, quote, self.doc.source.newline, keep)
        piece = _Piece(self.span(node), Span(start, start + len(body)))
        return _Text(*decoded, start + len(body), speller, [], {(prefix, quote)}, [piece])

    def _formatted(self, node, scope: _Scope, at: _At, keep: bool) -> _Text | None:  # noqa: ANN001
        prefix, quote, _ = _string_parts(node.start)
        if "b" in prefix:
            return None
        text, starts, ends, fields = "", [], [], []
        for part in node.parts:
            span = self.span(part)
            if isinstance(part, self.cst.FormattedStringText):
                decoded = _unescape_py(part.value, span.start, "r" in prefix, True, keep)
                if decoded is None:
                    return None
                text += decoded[0]
                starts += decoded[1]
                ends += decoded[2]
                continue
            value = None
            if part.conversion is None and part.format_spec is None and part.equal is None:
                value = self.scalar(part.expression, scope, at).text
            value = _FIELD if value is None else value
            text += value
            starts += [span.start] * len(value)
            ends += [span.end] * len(value)
            fields.append(span)
        literal = self.span(node)
        end = literal.end - len(quote)
        piece = _Piece(literal, Span(literal.start + len(node.start), end))
        speller = _speller(prefix, quote, self.doc.source.newline, keep)
        return _Text(text, starts, ends, end, speller, fields, {(prefix, quote)}, [piece])

    # argv lists

    def argv(self, node: object, scope: _Scope, at: _At, depth: int = 0, frozen: bool = False) -> list[Arg]:
        """The argv tokens an expression stands for; a splat where that is not known."""
        cst = self.cst
        if isinstance(node, (cst.List, cst.Tuple)):
            return self.elements(node.elements, scope, at, frozen)
        if isinstance(node, cst.Name) and depth < 8:
            binding = self.doc.single(node.value, scope)
            if binding is not None and isinstance(binding.value, (cst.List, cst.Tuple, cst.BinaryOperation, cst.Name)):
                return self._bound_list(node, binding, at, depth, frozen)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = self.argv(node.left, scope, at, depth + 1, frozen)
            return left + self.argv(node.right, scope, at, depth + 1, frozen)
        if isinstance(node, cst.Call) and self.doc.qualified(node.func, scope) & {"list", "tuple"}:
            if len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None:
                return self.argv(node.args[0].value, scope, at, depth + 1, frozen)
        return [Arg(None, self.span(node), splat=True)]

    def elements(self, nodes: Sequence[object], scope: _Scope, at: _At, frozen: bool) -> list[Arg]:
        """List elements (or positional call arguments) as argv tokens, in a list container."""
        cst = self.cst
        container = _Items(self.doc, "list", [self._item(n) for n in nodes], frozen)
        args: list[Arg] = []
        for index, node in enumerate(nodes):
            if getattr(node, "keyword", None) is not None:
                continue
            if isinstance(node, cst.StarredElement) or getattr(node, "star", "") == "*":
                args += self.argv(node.value, scope, at, frozen=frozen)
            elif getattr(node, "star", "") == "**":
                continue
            else:
                args.append(container.own(self.token(node.value, scope, at, container), index))
        return args

    def token(self, node: object, scope: _Scope, at: _At, container: object) -> Arg:
        span = self.span(node)
        if "sys.executable" in self.doc.qualified(node, scope):
            return Arg("python", span, container, editable=False)  # type: ignore[arg-type]
        value = self.scalar(node, scope, at)
        if value.kind == "unknown":
            return Arg(None, span, container)  # type: ignore[arg-type]
        return Arg(value.text, span, container, editable=value.editable, chars=value.chars)  # type: ignore[arg-type]

    def _bound_list(self, node, binding: _Binding, at: _At, depth: int, frozen: bool) -> list[Arg]:  # noqa: ANN001
        """A list bound once, with what straight-line code adds to it before the launch."""
        name = node.value
        uses = sorted(self.doc.uses(binding, name), key=lambda u: u.offset)
        frozen = frozen or _reads(uses) != 1
        args = self.argv(binding.value, binding.scope, at, depth + 1, frozen)
        for use in uses:
            if not _may_change(use, node, at):
                continue
            if use.role in ("mutate", "pass") or not at.runs_after(use):
                args.append(Arg(None, self.span(use.node), splat=True, local=True))
            elif use.role == "extend":
                args += self.argv(use.operand, use.scope, at, depth + 1, frozen)
            else:
                args.append(self._appended(name, binding, use, at, frozen))
        return args

    def _appended(self, name: str, binding: _Binding, use: _Use, at: _At, frozen: bool) -> Arg:
        statements = self.doc._appends.setdefault(id(binding), _Statements(self.doc, name))
        token = self.token(use.operand, use.scope, at, None if frozen else statements)
        statement = use.statement
        lone = statement is not None and len(statement.body) == 1 and isinstance(statement.body[0], self.cst.Expr)
        if frozen or not lone:
            return replace(token, editable=False)
        return statements.own(token, self.span(statement.body[0]))

    # keyword sets

    def keywords(  # noqa: ANN001
        self, call, scope: _Scope, at: _At, frozen: bool = False, positional: Sequence[str] = ()
    ) -> list[Arg]:
        """A call's keywords (Engine, ServerArgs, dict) as SGLang flags.

        Python refuses a keyword passed twice, so nothing a `**splat` holds can
        override a keyword written in the call: those go last.
        """
        container = _Items(self.doc, "call", [self._item(a) for a in call.args], frozen)
        spread: list[Arg] = []
        written: list[Arg] = []
        for index, arg in enumerate(call.args):
            if arg.star == "**":
                spread += self.kwargs(arg.value, scope, at)
            elif arg.star or arg.keyword is None and index >= len(positional):
                spread.append(Arg(None, self.span(arg), splat=True))
            else:
                dest = arg.keyword.value if arg.keyword is not None else positional[index]
                where = self.span(arg.keyword) if arg.keyword is not None else self.span(arg.value)
                written += self.keyword(dest, where, arg.value, scope, at, container, index)
        return spread + written

    def kwargs(self, node: object, scope: _Scope, at: _At, depth: int = 0, frozen: bool = False) -> list[Arg]:
        """What `**node` passes: a dict literal's entries, a `dict(...)` call's keywords, else a splat."""
        cst = self.cst
        if isinstance(node, cst.Dict):
            return self._entries(node, scope, at, frozen)
        if isinstance(node, cst.Call) and self.doc.qualified(node.func, scope) == {"dict"}:
            return self.keywords(node, scope, at, frozen)
        if isinstance(node, cst.Name) and depth < 8:
            binding = self.doc.single(node.value, scope)
            if binding is not None and isinstance(binding.value, (cst.Dict, cst.Call, cst.Name)):
                uses = self.doc.uses(binding, node.value)
                frozen = frozen or _reads(uses) != 1
                args = self.kwargs(binding.value, binding.scope, at, depth + 1, frozen)
                # Entries set, updated or popped before the launch (or the dict handed
                # to a function that may do so): any key may differ.
                if any(_may_change(u, node, at) for u in uses):
                    args.append(Arg(None, self.span(node), splat=True, local=True))
                return args
        return [Arg(None, self.span(node), splat=True)]

    def _entries(self, node, scope: _Scope, at: _At, frozen: bool) -> list[Arg]:  # noqa: ANN001
        cst = self.cst
        container = _Items(self.doc, "dict", [self._item(e) for e in node.elements], frozen)
        args: list[Arg] = []
        for index, element in enumerate(node.elements):
            if isinstance(element, cst.StarredDictElement):
                args += self.kwargs(element.value, scope, at)
                continue
            key = self.scalar(element.key, scope, at)
            if key.kind != "str":
                args.append(Arg(None, self.span(element), splat=True))
                continue
            where = self.span(element.key)
            args += self.keyword(key.value, where, element.value, scope, at, container, index)  # type: ignore[arg-type]
        return args

    def keyword(
        self, dest: str, where: Span, node: object, scope: _Scope, at: _At, container: _Items, index: int
    ) -> list[Arg]:
        """The argv tokens of `dest=node`: the primary flag and its value."""
        option = self.doc.table.by_dest(dest)
        if option is None or dest == "config":
            # Not a flag of this release, or (--config) not a ServerArgs field: it sets nothing autofix reads.
            return []
        span = self.span(node)
        container.written[dest] = span
        value = self.scalar(node, scope, at)
        flag = Arg(option.primary, where, container)
        token = Arg(value.text, span, container, editable=value.editable, chars=value.chars)
        tokens = _keyword_tokens(option, value, flag, token)
        return [container.own(token, index) for token in tokens]

    def _item(self, node) -> _Item:  # noqa: ANN001
        span = self.span(node)
        comma = getattr(node, "comma", None)
        comma_end = self.span(comma).end if isinstance(comma, self.cst.Comma) else None
        return _Item(span.start, span.end, comma_end)


def _keyword_tokens(option: Option, value: _Value, flag: Arg, token: Arg) -> list[Arg]:
    """What a keyword stands for on the command line; an opaque token where that is not known."""
    unknown = replace(token, text=None, chars=None)
    if option.is_boolean:
        if value.kind != "bool":
            return [unknown]  # it may or may not set the flag
        if option.action == "boolean_optional":
            return [flag if value.value else replace(flag, text="--no-" + option.primary[2:])]
        on = value.value if option.action != "store_false" else not value.value
        return [flag] if on else []
    if not option.takes_value:
        return [unknown]
    if value.kind == "none":
        return [] if option.default is None else [flag, unknown]
    if value.kind in ("unknown", "bool"):
        return [flag, unknown]
    return [flag, token]


