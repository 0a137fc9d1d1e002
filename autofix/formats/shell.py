"""Shell scripts: launches in commands, read with tree-sitter-bash.

Words are evaluated the way bash would, as far as that can be known without
running anything: quotes and escapes are undone, top-level variables assigned
once before the launch are expanded, bash arrays of flags are spliced in; any
other expansion is unknown. Every argv token keeps the file offsets it was read
from, so edits land exactly where a flag is written.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from autofix.command import Entry, Script, reads_stdin_script, recognise
from autofix.edits import Edit
from autofix.embed import Embedding
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch, NewFlag
from autofix.source import Source, Span

__all__ = ["command_words", "find_launches", "syntax_errors"]

_PARSER = None


def _parser():  # noqa: ANN202 - tree_sitter.Parser, imported lazily
    global _PARSER
    if _PARSER is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER = Parser(Language(tree_sitter_bash.language()))
    return _PARSER


def _mask_crlf(data: bytes) -> bytes:
    """Same-length bytes in which CRLF reads as LF (a '\\' continuation included)."""
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


# -- the document ---------------------------------------------------------------


@dataclass(slots=True)
class _Binding:
    offset: int  # where the assignment ends: uses after it see the value
    scalar: str | None = None  # None: unknown
    elements: list[Arg] | None = None  # a bash array of literal-enough words
    one_word: bool = False  # unknown, but always exactly one word (a loop over literal words)


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
            lines.update(range(node.start_point[0], node.end_point[0] + 1))
        return lines

    # variables

    def _collect_assignments(self) -> None:
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
            elif kind == "for_statement":
                self._loop_variable(node)
            elif kind == "command":
                self._count_builtin_writes(node)
            elif kind == "declaration_command":
                for child in node.named_children:
                    if child.type in ("variable_name", "word"):
                        self.assigned[self.node_text(child)] += 2 if node.children[0].type == "local" else 0
            stack.extend(node.named_children)
        for node in self.tree.root_node.named_children:
            targets = [node] if node.type == "variable_assignment" else []
            if node.type == "declaration_command" and node.children[0].type in ("export", "declare", "readonly", "typeset"):
                targets = [c for c in node.named_children if c.type == "variable_assignment"]
            for assignment in targets:
                self._bind(assignment)

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

    def _bind(self, assignment) -> None:  # noqa: ANN001
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
            self.bindings[name] = _Binding(offset, scalar="")
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
            self.bindings[name] = _Binding(offset, elements=elements)
        else:
            args = self.words(value, None, assignment.start_byte, split=False)
            text = args[0].text if len(args) == 1 and not args[0].splat else None
            self.bindings[name] = _Binding(offset, scalar=text)

    def lookup(self, name: str, use: int) -> _Binding | None:
        binding = self.bindings.get(name)
        if binding is None or binding.offset > self.at(use):
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


# -- containers: how an edit is spelled in a command or an array ----------------


class _ArgList:
    """The tokens of one command, or the elements of one bash array.

    Layout is decided in the shell text (vtokens); args are found by their
    file spans (tokens).
    """

    def __init__(self, doc: _Doc, opener, array: bool, frozen: bool = False):  # noqa: ANN001
        self.doc = doc
        self.vtokens: list[Span] = []
        self.tokens: list[Span] = []
        self.array = array
        self.frozen = frozen
        self.add(opener)

    def add(self, node) -> None:  # noqa: ANN001
        self.vtokens.append(self.doc.vspan(node))
        self.tokens.append(self.doc.span(node))

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        if self.frozen or span is None:
            return ()
        return (Edit(span, value),)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        return self.doc.file_edits(self._remove(*run))

    def _remove(self, first: int, last: int) -> tuple[Edit, ...]:
        text = self.doc.text
        start, end = self.vtokens[first].start, self.vtokens[last].end
        prev = self.vtokens[first - 1]
        nxt = self.vtokens[last + 1] if last + 1 < len(self.vtokens) else None
        line = self.doc.source.line_span(start)
        if nxt is not None and nxt.start <= line.end:
            return (Edit.delete(Span(start, nxt.start)),)
        if nxt is not None and self._own_line(start, end):
            newline_end = line.end + 2 if text.startswith("\r\n", line.end) else line.end + 1
            return (Edit.delete(Span(line.start, min(newline_end, len(text)))),)
        return (Edit.delete(Span(prev.end, end)),)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        return self.doc.file_edits(self._insert_after(*run, new))

    def _insert_after(self, first: int, last: int, new: NewFlag) -> tuple[Edit, ...]:
        start, end = self.vtokens[first].start, self.vtokens[last].end
        words = " ".join(_quote(token) for token in new.tokens())
        if not self._own_line(start, end):
            return (Edit.insert(end, " " + words),)
        source, nl = self.doc.source, self.doc.newline
        line = source.line_span(end)
        if source.text.startswith(("\r\n", "\n"), line.end):  # this line's own newline (files may mix them)
            nl = "\r\n" if source.text.startswith("\r\n", line.end) else "\n"
        indent = source.text[line.start : start]
        suffix = source.text[end : line.end]
        if suffix.strip() == "\\" or self.array and not suffix.strip():
            after_line = line.end + len(nl)
            return (Edit.insert(after_line, indent + words + suffix + nl),)
        if suffix.strip():
            return (Edit.insert(end, " " + words),)
        # The launch's last line: continue it in the style of the line above.
        above = source.line_text(line.start - 1) if line.start > 0 else ""
        cont = re.search(r"[ \t]*\\$", above)
        return (Edit.insert(end, (cont.group() if cont else " \\") + nl + indent + words),)

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        try:
            first = self.tokens.index(args[0].span, 1)
            last = self.tokens.index(args[-1].span, first)
        except ValueError:
            return None
        return first, last

    def _own_line(self, start: int, end: int) -> bool:
        source = self.doc.source
        line = source.line_span(start)
        if end > line.end or source.text[line.start : start].strip():
            return False
        return re.fullmatch(r"[ \t]*(\\|#.*)?", source.text[end : line.end]) is not None


def _quote(token: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", token):
        return token
    return "'" + token.replace("'", "'\"'\"'") + "'"


# -- finding launches -----------------------------------------------------------


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
    embedding: Embedding | None = None,
) -> list[Launch]:
    """Launches in a shell text: a whole file, or (with embedding) shell inside a host file."""
    doc = _Doc(source, table, source.newline, embedding)
    launches: list[Launch] = []
    stack = [doc.tree.root_node]
    while stack:
        node = stack.pop()
        chunk = doc.data[node.start_byte : node.end_byte]
        # A launch names sglang, or comes from a variable ("$CMD", "${ARGS[@]}").
        if b"sglang" not in chunk and b"$" not in chunk:
            continue
        if node.type == "command":
            launches.extend(_launches(doc, node, release, model_lookup))
            name = node.child_by_field_name("name")
            if name is not None:
                doc.calls.setdefault(doc.node_text(name), []).append(node)
        elif node.type == "heredoc_redirect":
            launches.extend(_heredoc(doc, node, release, model_lookup))
        stack.extend(reversed(node.named_children))
    for function, index in sorted(doc.run_args):
        launches.extend(_passed_command(doc, function, index, release, model_lookup))
    for name in sorted(doc.run_names):
        launches.extend(_kept_command(doc, name, release, model_lookup))
    return launches


def command_words(source: Source, table: OptionTable, embedding: Embedding) -> list[Arg] | None:
    """The argv of a text that is one command's words (a compose `entrypoint:` or `command:` string,
    written beside the other), each mapped to the file; None when it is not one simple command."""
    doc = _Doc(source, table, source.newline, embedding)
    commands = [n for n in doc.tree.root_node.named_children if n.type != "comment"]
    if len(commands) != 1 or commands[0].type != "command":
        return None
    read = _argv(doc, commands[0])
    return read[0] if read is not None else None


def _argv(doc: _Doc, node) -> tuple[list[Arg], list[object], bool] | None:  # noqa: ANN001
    """A command's argv tokens, the word node of each, and whether edits must not touch it."""
    if node.has_error:
        return None
    name = node.child_by_field_name("name")
    if name is None:
        return None
    lines = range(node.start_point[0] - 1, node.end_point[0] + 2)
    frozen = any(line in doc.error_lines for line in lines)
    container = _ArgList(doc, name, array=False, frozen=frozen)
    argv: list[Arg] = []
    nodes = []
    for child in (name, *node.children_by_field_name("argument")):
        word = child.named_children[0] if child.type == "command_name" and child.named_child_count else child
        args = doc.words(word, container, node.start_byte)
        argv.extend(args)
        nodes.extend([child] * len(args))
        if child is not name:
            container.add(child)
    return argv, nodes, frozen


def _launches(doc: _Doc, node, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    read = _argv(doc, node)
    if read is None:
        return []
    argv, nodes, frozen = read
    texts = [a.text for a in argv]
    found = recognise(texts)
    if isinstance(found, Entry):
        return [Launch.read(argv[found.index:], doc.table, doc.span(node), found.form, release=release,
                            model_lookup=model_lookup, wrappers=found.wrappers)]
    if isinstance(found, Script):  # bash -c 'python3 -m sglang.launch_server ...'
        script = nodes[found.index]
        if _run_name(doc, script) is not None:  # bash -c "$CMD": read where CMD is assigned
            _runs(doc, script)
            return []
        return _inner_script(doc, script, release, model_lookup, frozen, found.wrappers)
    if texts and texts[0] is None and _run_name(doc, nodes[0]) is not None:
        _runs(doc, nodes[0])  # $CMD run as a command
    elif texts and texts[0] == "eval":
        for word in dict.fromkeys(nodes[1:]):
            if _run_name(doc, word) is not None:
                _runs(doc, word)
            elif word.type in ("string", "raw_string"):
                return _inner_script(doc, word, release, model_lookup, frozen, ("eval",))
    return []


_WRITES_FILE = re.compile(r"(?:.*/)?[^/]*\.(?:sh|bash)\Z")


def _heredoc(doc: _Doc, node, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    """A here-document that is a script: fed to a shell (`bash <<EOF`, `ssh HOST <<EOF`), or written
    to a shell script (`cat > start.sh <<EOF`) that is run later."""
    body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
    end = next((c for c in node.named_children if c.type == "heredoc_end"), None)
    if end is None or end.is_missing or node.has_error:
        return []  # no delimiter: bash reads to the end of the file, with a warning; not edited
    statement = node.parent
    command = next((c for c in statement.named_children if c.type == "command"), None) if statement else None
    if body is None or command is None or b"sglang" not in doc.data[body.start_byte : body.end_byte]:
        return []
    read = _argv(doc, command)
    if read is None:
        return []
    texts = [a.text for a in read[0]]
    start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
    quoted = start is not None and doc.node_text(start)[:1] in "'\"\\"
    targets = [doc.node_text(c.named_children[-1]) for c in (*statement.named_children, *node.named_children)
               if c.type == "file_redirect" and c.named_child_count]
    wrappers = reads_stdin_script(texts)
    if wrappers is None:
        yaml_reader = _yaml_reader(doc, node, texts, targets)
        if yaml_reader is not None:
            return _yaml_heredoc(doc, body, yaml_reader, quoted, release, model_lookup)
        if not (texts[:1] in (["cat"], ["tee"]) and any(_WRITES_FILE.match(t) for t in targets)):
            return []
        wrappers = (f"> {targets[-1]}",)
    return _script(doc, body, release, model_lookup, read[2], wrappers, None if quoted else '$`\\')


_EXPANSION = re.compile(r"\$(?:\{[^}\n]*\}|\((?:[^()\n]|\([^()\n]*\))*\)|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])")
_WRITES_YAML = re.compile(r"(?:.*/)?[^/]*\.ya?ml\Z")
# Programs that read a YAML file from stdin: `kubectl apply -f -`, `oc create -f -`, `helm ... -f -`.
_READS_YAML = re.compile(r"(?:kubectl|oc|helm)\b.*\s(?:-f|--filename|--values)(?:=|\s+)-(?:\s|\Z)")


def _yaml_reader(doc: _Doc, node, texts: Sequence[str | None], targets: Sequence[str]) -> str | None:  # noqa: ANN001
    """The program a here-document is a YAML file for (`kubectl apply -f - <<EOF`, `cat <<EOF |
    kubectl apply -f -`, `cat > deploy.yaml <<EOF`), as its words; None when it is not one."""
    if texts[:1] in (["cat"], ["tee"]) and any(_WRITES_YAML.match(t) for t in targets):
        return f"> {targets[-1]}"
    # As written: the parse leaves a lone `-` before `<<EOF` out of the command's words.
    words = " ".join(doc.data[node.parent.start_byte : node.start_byte].decode("utf-8", "replace").split())
    if _READS_YAML.match(words):
        return words
    pipeline = next((c for c in node.named_children if c.type == "pipeline"), None)
    if texts[:1] == ["cat"] and pipeline is not None:
        words = " ".join(doc.node_text(pipeline).lstrip("|").split())
        if _READS_YAML.match(words):
            return words
    return None


def _yaml_heredoc(doc: _Doc, body, reader: str, quoted: bool, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    """The launches of a here-document that is a YAML file, read with the YAML format where the
    body's text is the file's: a quoted delimiter, or one whose body has no `\\` or backquote (the
    shell then only expands `$...`, which stays unknown). Not inside a host file's script."""
    from autofix.formats import yaml

    text = doc.text
    start, end = doc.at(body.start_byte), doc.at(body.end_byte)
    if doc.embedding is not None or (not quoted and any(ch in text[start:end] for ch in "\\`")):
        return []
    prefix = text[:start]
    head = prefix.rstrip("\r\n")
    yaml_text = text[start:end]
    if not quoted:  # each expansion as a word of its length that reads as unknown (`${MODEL}` in `[a, ${MODEL}]`)
        yaml_text = _EXPANSION.sub(lambda m: "$" + "_" * (len(m[0]) - 1), yaml_text)
    masked = ("#" + " " * (len(head) - 1) if head else "") + prefix[len(head):] + yaml_text
    try:
        launches = yaml.find_launches(Source(masked), doc.table, release, model_lookup, expanded=not quoted)
    except SyntaxError:
        return []
    for launch in launches:
        launch.put_behind((reader,))
    return launches


_POSITIONAL = re.compile(r"\$(?:([1-9])|\{([1-9])\})\Z")


def _run_name(doc: _Doc, node) -> str | None:  # noqa: ANN001
    """NAME (or a positional parameter's digit), when a word is just `$NAME`, `${NAME}`, `$1`
    or either in double quotes."""
    if node.type == "command_name" and node.named_child_count:
        node = node.named_children[0]
    if node.type == "string" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type not in ("simple_expansion", "expansion"):
        return None
    text = doc.node_text(node)
    positional = _POSITIONAL.match(text)
    if positional:
        return positional[1] or positional[2]
    ref = _Reference.of(text)
    return ref.name if ref is not None and not ref.array and ref.default is None else None


def _runs(doc: _Doc, node) -> None:  # noqa: ANN001
    """A word run as a command or script: a variable, read where it is assigned, or a function's
    parameter, read where the function is called."""
    name = _run_name(doc, node)
    if name is None:
        return
    if not name.isdigit():
        doc.run_names.add(name)
        return
    function = node.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    named = function.child_by_field_name("name") if function is not None else None
    if named is not None:
        doc.run_args.add((doc.node_text(named), int(name)))


def _passed_command(doc: _Doc, function: str, index: int, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    """`run() { docker exec box bash -c "$1"; }` called as `run "python -m sglang.launch_server ..."`:
    the argument is the script, read where the call writes it."""
    launches: list[Launch] = []
    for call in doc.calls.get(function, []):
        words = call.children_by_field_name("argument")
        if len(words) < index:
            continue
        word = words[index - 1]
        if _run_name(doc, word) is not None:
            _runs(doc, word)  # run "$CMD": CMD's assignments are read
        elif word.type in ("string", "raw_string"):
            launches.extend(_inner_script(doc, word, release, model_lookup, False, (function,)))
    return launches


def _kept_command(doc: _Doc, name: str, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    """`CMD="python -m sglang.launch_server ..."` run later as `$CMD`, `eval "$CMD"` or `bash -c "$CMD"`:
    each string assigned to CMD is read as a command. When CMD is assigned again (`CMD="$CMD --flag"`),
    what those assignments add is not known: the launch may gain flags."""
    launches: list[Launch] = []
    values = sorted(doc.assignments.get(name, []), key=lambda v: v.start_byte)
    for index, value in enumerate(values):
        if value.type not in ("string", "raw_string") or b"sglang" not in doc.data[value.start_byte : value.end_byte]:
            continue
        if _addition(doc, name, value) is not None:
            continue  # CMD="$CMD ...": an addition to the command, not a command
        followed = _later_additions(doc, name, value, values[index + 1 :])
        additions = _additions(doc, followed)
        # Any other assignment (under a condition, after the run, `read`): the launch may gain flags.
        again = additions is None or doc.assigned[name] + doc.appended[name] > 1 + len(followed)
        for launch in _inner_script(doc, value, release, model_lookup, False, (f"${name}",)):
            args = [*launch.args, *(additions or ())]
            if again:
                end = Span(args[-1].span.end, args[-1].span.end) if args else Span(launch.span.end, launch.span.end)
                args.append(Arg(None, end, splat=True, local=True))
            launches.append(launch.reread(args) if args != launch.args else launch)
    return launches


def _addition(doc: _Doc, name: str, value) -> str | None:  # noqa: ANN001
    """The words a `CMD="$CMD words"` (or `CMD+=" words"`) assignment adds, as written in value; else None."""
    assignment = value.parent
    op = assignment.children[1].type if assignment is not None and assignment.child_count > 1 else "="
    if value.type != "string":
        return None
    text = doc.node_text(value)[1:-1]
    if op == "+=":
        return text
    for ref in (f"${name}", f"${{{name}}}"):
        if text.startswith(ref) and (len(text) == len(ref) or text[len(ref)] in " \t"):
            return text[len(ref):]
    return None


def _later_additions(doc: _Doc, name: str, base, later: Sequence[object]) -> list[object]:  # noqa: ANN001
    """The additions after base, in order, up to the next assignment that is not one: those in base's
    own block run whenever base does; one under a condition or loop inside it stands for words that
    may be added (a ("maybe", value) pair in the list)."""
    block = base.parent.parent
    found: list[object] = []
    for value in later:
        if value.parent is None or _addition(doc, name, value) is None:
            break
        if value.parent.parent == block:
            found.append(value)
            continue
        inside = value.parent.parent
        while inside is not None and inside != block:
            inside = inside.parent
        if inside is None:
            break
        found.append(("maybe", value))
    return found


def _additions(doc: _Doc, followed: Sequence[object]) -> list[Arg] | None:
    """The argv words additions add (`CMD="$CMD --tp 8"`), mapped to the file; None when one of
    them cannot be read."""
    args: list[Arg] = []
    for value in followed:
        if isinstance(value, tuple):
            span = doc.span(value[1])
            args.append(Arg(None, span, splat=True, local=True))
            continue
        words = _script_words(doc, value)
        if words is None:
            return None
        args.extend(words)
    return args


def _script_words(doc: _Doc, value) -> list[Arg] | None:  # noqa: ANN001
    """The words a `"$CMD --tp 8"` string adds to the command: its words after `$CMD`."""
    text = doc.node_text(value)
    raw = text[1:-1]
    start = doc.at(value.start_byte) + 1
    if doc.embedding is not None or "\\" in raw:
        return None
    embedding = Embedding.literal(start, len(raw), lambda new: None if any(ch in '"$`\\' for ch in new) else new)
    words = command_words(Source(raw), doc.table, embedding)
    if words is None:
        return None
    assignment = value.parent
    if assignment.child_count > 1 and assignment.children[1].type == "+=":
        return words
    return words[1:]


def _inner_script(doc: _Doc, node, release, model_lookup, frozen: bool,  # noqa: ANN001
                  wrappers: tuple[str, ...] = ()) -> list[Launch]:
    """Launches in the script of `bash -c SCRIPT` (a quoted string), edited in place where that is exact."""
    if node.type not in ("raw_string", "string"):
        return []
    return _script(doc, node, release, model_lookup, frozen, wrappers, None if node.type == "raw_string" else '"$`\\',
                   quotes=1)


def _script(doc: _Doc, node, release, model_lookup, frozen: bool, wrappers: tuple[str, ...],  # noqa: ANN001
            escapable: str | None, quotes: int = 0) -> list[Launch]:
    """Launches in the script a node holds (a quoted string, a here-document's body).

    Expansions inside it stay in it, and the script's own parse reads them as
    unknown; an escape (`\\"`, `\\$`, with escapable the characters a backslash
    escapes there) is read as what it stands for, and an edit that would touch
    one, or insert a character the host would read differently, is not made.
    """
    text = doc.node_text(node)
    raw = text[quotes : len(text) - quotes]
    start = doc.at(node.start_byte) + quotes
    forbidden = "'" if escapable is None and quotes else escapable or ""

    def spell(new: str) -> str | None:
        return None if frozen or any(ch in forbidden for ch in new) else new

    if escapable is None or "\\" not in raw:
        virtual, embedding = raw, Embedding.literal(start, len(raw), spell)
    else:
        virtual, starts, ends = _unescaped(raw, start, escapable)
        embedding = Embedding(starts, ends, start + len(raw), spell)
    if doc.embedding is not None:  # a script in a script: mapped through both to the file
        embedding = embedding.inside(doc.embedding)
    launches = find_launches(Source(virtual), doc.table, release, model_lookup, embedding)
    for launch in launches:
        launch.put_behind(wrappers)
    return launches


def _unescaped(raw: str, start: int, escapable: str) -> tuple[str, list[int], list[int]]:
    """A string's value, and where each of its characters is written (`\\<newline>`
    is kept: the script's own parse reads it as the continuation it is)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = 0
    while i < len(raw):
        width = 2 if raw[i] == "\\" and i + 1 < len(raw) and raw[i + 1] in escapable else 1
        out.append(raw[i + width - 1])
        starts.append(start + i)
        ends.append(start + i + width)
        i += width
    return "".join(out), starts, ends
