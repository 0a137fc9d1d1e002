"""One parsed shell text: its variables, and words evaluated as bash would where that is known."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from autofix.edits import Edit
from autofix.embed import Embedding
from autofix.formats.shell.containers import _ArgList
from autofix.formats.shell.tree import _NON_ASCII, _after_leading_comments, _error_nodes, parse
from autofix.knowledge.options import OptionTable
from autofix.model import Arg
from autofix.source import Source, Span


# -- the document ---------------------------------------------------------------


@dataclass(slots=True)
class _Binding:
    offset: int  # where the assignment ends: uses after it see the value
    scalar: str | None = None  # None: unknown
    elements: list[Arg] | None = None  # a bash array of literal-enough words
    one_word: bool = False  # unknown, but always exactly one word (a loop over literal words)
    within: tuple[int, int] | None = None  # a function's body: uses elsewhere do not see it


class _Doc:
    """One parsed shell text: offsets, variables, and the evaluation of words.

    The text may be embedded in a host file (a YAML scalar, a Python string):
    then offsets inside the shell text are *virtual*, and the embedding maps
    them to the file. Spans handed out (args, launches, edits) are the file's.
    """

    def __init__(self, source: Source, table: OptionTable, newline: str, embedding: Embedding | None = None):
        self.source = source
        self.text = source.text
        self.table = table
        self.newline = newline
        self.embedding = embedding
        self.data = self.text.encode("utf-8")
        self._char_of: list[int] | None = None
        if len(self.data) != len(self.text):
            # byte -> character; one step per character that is not ASCII, the runs between in C.
            char_of: list[int] = []
            ascii_from = 0
            for match in _NON_ASCII.finditer(self.text):
                index = match.start()
                char_of.extend(range(ascii_from, index))
                char_of.extend([index] * len(match.group().encode("utf-8")))
                ascii_from = index + 1
            char_of.extend(range(ascii_from, len(self.text) + 1))
            self._char_of = char_of
        self.tree = parse(self.data, _after_leading_comments(self.data))
        self.error_lines = self._error_lines()
        self.assigned = Counter[str]()
        self.appended = Counter[str]()  # `NAME+=...`: an array keeps its elements, and may gain more
        self.assignments: dict[str, list[object]] = {}  # every assignment's value node, by name
        self.run_names: set[str] = set()  # variables expanded as a command (`$CMD`, `bash -c "$CMD"`, eval)
        self.run_args: set[tuple[str, int]] = set()  # (function, N): its body runs "$N" as a command or script
        self.calls: dict[str, list[object]] = {}  # the commands run by name, for the functions above
        self.bindings: dict[str, _Binding] = {}
        self._loops: dict[str, int] = {}
        self._collect_assignments()
        for name, offset in self._loops.items():
            if self.assigned[name] == 1 and not self.appended[name]:
                self.bindings[name] = _Binding(offset, one_word=True)

    # offsets

    def at(self, byte: int) -> int:
        return self._char_of[byte] if self._char_of is not None else byte

    def vspan(self, node) -> Span:  # noqa: ANN001
        """A node's span in the shell text."""
        return Span(self.at(node.start_byte), self.at(node.end_byte))

    def span(self, node) -> Span:  # noqa: ANN001
        """A node's span in the file."""
        span = self.vspan(node)
        return span if self.embedding is None else self.embedding.span(span)

    def file_char(self, offset: int) -> int:
        if offset < 0 or self.embedding is None:
            return offset
        return self.embedding.char(offset)

    def file_edits(self, edits: Sequence[Edit]) -> tuple[Edit, ...]:
        """Edits in the shell text, as edits of the file; nothing when one cannot be spelled there."""
        if self.embedding is None:
            return tuple(edits)
        mapped = [self.embedding.edit(edit) for edit in edits]
        return () if any(m is None for m in mapped) else tuple(mapped)  # type: ignore[misc]

    def node_text(self, node) -> str:  # noqa: ANN001
        return self.data[node.start_byte : node.end_byte].decode("utf-8")

    def _error_lines(self) -> set[int]:
        root = self.tree.root_node
        if not root.has_error:
            return set()
        lines: set[int] = set()
        for node in _error_nodes(root):
            if not self.literal_dollar(node):
                lines.update(range(node.start_point[0], node.end_point[0] + 1))
        return lines

    def literal_dollar(self, error) -> bool:  # noqa: ANN001
        """A parse error that is only a `$` no name follows (`$HOST$:5757`): bash keeps it as a character."""
        return error.type == "ERROR" and self.node_text(error) == "$" and error.parent is not None \
            and error.parent.type == "concatenation"

    # variables

    def _collect_assignments(self) -> None:
        functions: list[object] = []
        stack = [self.tree.root_node]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "variable_assignment":
                name = node.child_by_field_name("name")
                if name is not None:
                    op = node.children[1].type if node.child_count > 1 else "="
                    (self.assigned if op == "=" else self.appended)[self.node_text(name)] += 1
                    value = node.child_by_field_name("value")
                    if value is not None:
                        self.assignments.setdefault(self.node_text(name), []).append(value)
            elif kind == "function_definition" and node.child_by_field_name("body") is not None:
                functions.append(node.child_by_field_name("body"))
            elif kind == "for_statement":
                self._loop_variable(node)
            elif kind == "command":
                self._count_builtin_writes(node)
            elif kind == "declaration_command":
                for child in node.named_children:
                    if child.type in ("variable_name", "word"):
                        self.assigned[self.node_text(child)] += 2 if node.children[0].type == "local" else 0
            stack.extend(node.named_children)
        self._bind_block(self.tree.root_node, None, ("export", "declare", "readonly", "typeset"))
        for body in functions:  # `run() { cmd=(python -m sglang.launch_server ...); "${cmd[@]}"; }`
            within = (self.at(body.start_byte), self.at(body.end_byte))
            self._bind_block(body, within, ("export", "declare", "readonly", "typeset", "local"))

    def _bind_block(self, block, within: tuple[int, int] | None, declarations: tuple[str, ...]) -> None:  # noqa: ANN001
        """Bind the assignments written as statements of a block (the file, a function's body)."""
        for node in block.named_children:
            targets = [node] if node.type == "variable_assignment" else []
            if node.type == "declaration_command" and node.children[0].type in declarations:
                targets = [c for c in node.named_children if c.type == "variable_assignment"]
            for assignment in targets:
                self._bind(assignment, within)

    def _loop_variable(self, node) -> None:  # noqa: ANN001
        """`for tp in 4 8; do ...`: tp is unknown, but one word when every item is a literal word."""
        var = node.child_by_field_name("variable")
        if var is None:
            return
        name = self.node_text(var)
        items = node.children_by_field_name("value")
        literal = items and all(
            item.type in ("word", "number", "raw_string") and not re.search(r"[\s*?\[$`\\]", self.node_text(item))
            for item in items
        )
        self.assigned[name] += 1 if literal else 2
        if literal:
            self._loops[name] = self.at(node.start_byte)

    def _count_builtin_writes(self, node) -> None:  # noqa: ANN001
        name = node.child_by_field_name("name")
        if name is None or self.node_text(name) not in ("read", "mapfile", "readarray", "getopts", "unset", "printf"):
            return
        for arg in node.children_by_field_name("argument"):
            text = self.node_text(arg)
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
                self.assigned[text] += 2

    def _bind(self, assignment, within: tuple[int, int] | None = None) -> None:  # noqa: ANN001
        name_node = assignment.child_by_field_name("name")
        value = assignment.child_by_field_name("value")
        if name_node is None or name_node.type != "variable_name":
            return
        if assignment.child_count > 1 and assignment.children[1].type == "+=":
            return  # an append: the binding is the assignment's, with what appends may add
        name = self.node_text(name_node)
        if self.assigned[name] != 1 or self.appended[name] and (value is None or value.type != "array"):
            return
        offset = self.at(assignment.end_byte)
        if value is None:
            self.bindings[name] = _Binding(offset, scalar="", within=within)
        elif value.type == "array":
            container = _ArgList(self, value.children[0], array=True)
            elements: list[Arg] = []
            for element in value.named_children:
                if element.type == "comment":
                    continue
                elements.extend(self.words(element, container, assignment.start_byte))
                container.add(element)
            if self.appended[name]:  # `CMD+=(--flag ...)`, often under a condition: what it adds is not known
                elements.append(Arg(None, Span(offset, offset), splat=True, local=True))
            self.bindings[name] = _Binding(offset, elements=elements, within=within)
        else:
            args = self.words(value, None, assignment.start_byte, split=False)
            text = args[0].text if len(args) == 1 and not args[0].splat else None
            self.bindings[name] = _Binding(offset, scalar=text, within=within)

    def lookup(self, name: str, use: int) -> _Binding | None:
        binding = self.bindings.get(name)
        at = self.at(use)
        if binding is None or binding.offset > at or binding.within and not binding.within[0] <= at < binding.within[1]:
            return None
        return binding

    # words

    def words(self, node, container, use: int, split: bool = True) -> list[Arg]:  # noqa: ANN001
        """The argv tokens a word node stands for."""
        kind = node.type
        span = self.span(node)
        if kind in ("simple_expansion", "expansion") and split:
            return self._unquoted_expansion(node, container, use)
        if kind == "string" and split:
            inner = [c for c in node.children if c.type != '"']
            if len(inner) == 1 and inner[0].type == "expansion":
                ref = _Reference.of(self.node_text(inner[0]))
                if ref is not None and ref.array:  # "${ARGS[@]}": one word per element
                    return self._unquoted_expansion(inner[0], container, use)
        if kind in ("command_substitution", "arithmetic_expansion"):
            return [Arg(None, span, container, splat=split, unquoted=split)]
        if kind in ("process_substitution", "brace_expression"):
            return [Arg(None, span, container, splat=split)]
        piece = self._piece(node, use)
        if piece is None:
            return [Arg(None, span, container)]
        text, chars = piece
        chars = [self.file_char(c) for c in chars]
        literal = tuple(chars) if any(c >= 0 for c in chars) else None
        return [Arg(text, span, container, chars=literal)]

    def _unquoted_expansion(self, node, container, use: int) -> list[Arg]:  # noqa: ANN001
        span = self.span(node)
        text = self.node_text(node)
        ref = _Reference.of(text)
        if ref is None:  # "$@", "$*", ${#x}, ${x/a/b} ...: only $@ and $* stand for many words
            return [Arg(None, span, container, splat=True, unquoted=not _ALL_ARGS.match(text))]
        binding = self.lookup(ref.name, use)
        if ref.array:
            if binding is None or binding.elements is None:
                return [Arg(None, span, container, splat=True)]
            return list(binding.elements)
        value = self._scalar(ref, binding)
        if value is None:
            one_word = binding is not None and binding.one_word and ref.default is None
            return [Arg(None, span, container, splat=not one_word, unquoted=not one_word)]
        # Word splitting: each field is read from the variable, not written here.
        return [Arg(field, span, container, editable=False) for field in value.split()]

    def _scalar(self, ref: _Reference, binding: _Binding | None) -> str | None:
        if binding is not None:
            value = binding.scalar
            if value is None or binding.elements is not None:
                return None
            if ref.default is not None and ref.colon and value == "":
                return ref.default
            return value
        if ref.default is not None and self.assigned[ref.name] + self.appended[ref.name] <= 1:
            # Unset in the script itself: the script's own default.
            return ref.default
        return None

    def _piece(self, node, use: int) -> tuple[str, list[int]] | None:  # noqa: ANN001
        """Text and per-character offsets of a word that makes exactly one token."""
        kind = node.type
        start = self.at(node.start_byte)
        if kind in ("word", "number"):
            return _unescape(self.node_text(node), start, _BARE_ESCAPES)
        if kind == "raw_string":
            text = self.node_text(node)[1:-1]
            return text, list(range(start + 1, start + 1 + len(text)))
        if kind == "string":
            return self._string(node, use)
        if kind == "concatenation":
            text, chars = "", []
            for child in node.children:
                part = self._piece(child, use) if child.type not in ("simple_expansion", "expansion") else self._quoted_expansion(child, use)
                if part is None:
                    return None
                text += part[0]
                chars += part[1]
            return text, chars
        if kind in ("simple_expansion", "expansion"):
            return self._quoted_expansion(node, use)
        return None

    def _string(self, node, use: int) -> tuple[str, list[int]] | None:  # noqa: ANN001
        text, chars = "", []
        for child in node.children:
            kind = child.type
            if kind == '"':
                continue
            if kind == "string_content":
                part = _unescape(self.node_text(child), self.at(child.start_byte), _QUOTED_ESCAPES)
            elif kind in ("simple_expansion", "expansion"):
                part = self._quoted_expansion(child, use)
            else:
                return None
            if part is None:
                return None
            text += part[0]
            chars += part[1]
        return text, chars

    def _quoted_expansion(self, node, use: int) -> tuple[str, list[int]] | None:  # noqa: ANN001
        ref = _Reference.of(self.node_text(node))
        if ref is None or ref.array:
            return None
        value = self._scalar(ref, self.lookup(ref.name, use))
        if value is None:
            return None
        return value, [-1] * len(value)


_BARE_ESCAPES = None  # every backslash escapes the next character
_QUOTED_ESCAPES = '$`"\\\n'


def _unescape(raw: str, start: int, escapable: str | None) -> tuple[str, list[int]]:
    text: list[str] = []
    chars: list[int] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw) and (escapable is None or raw[i + 1] in escapable):
            nxt = raw[i + 1]
            if nxt != "\n":
                text.append(nxt)
                chars.append(-1)
            i += 2
            continue
        text.append(ch)
        chars.append(start + i)
        i += 1
    return "".join(text), chars


_ALL_ARGS = re.compile(r"\$(?:[@*]|\{[@*]\}|\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\})\Z")
_REFERENCE = re.compile(
    r"\$(?:\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<index>\[[@*]\])?(?:(?P<op>:?[-=])(?P<default>[^}$`'\"\\]*))?\}"
    r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))\Z"
)


@dataclass(frozen=True, slots=True)
class _Reference:
    name: str
    array: bool
    default: str | None
    colon: bool

    @classmethod
    def of(cls, text: str) -> _Reference | None:
        match = _REFERENCE.match(text)
        if match is None:
            return None
        if match["bare"]:
            return cls(match["bare"], False, None, False)
        if match["index"] == "[*]":
            return None
        op = match["op"] or ""
        return cls(match["name"], match["index"] == "[@]", match["default"], op.startswith(":"))


