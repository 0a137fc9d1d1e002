"""YAML files: SGLang `--config` files, argument lists in manifests, shell in scalars.

Three shapes of launch live in YAML:

- an SGLang `--config` file: a top-level mapping of option names without `--`,
  read the way SGLang's `ConfigArgumentMerger` turns it into argv tokens;
- an argument list: `command:`/`args:` of a Kubernetes container, `entrypoint:`/
  `command:` of a compose service, one argv whose items are the tokens;
- shell in a scalar: `run: |` (GitHub Actions), `script:` (GitLab CI), a
  compose `command:` string, the script of `sh -c`; the scalar's value is
  parsed as shell, with an Embedding that maps it back to the file.

ruamel.yaml composes nodes only (no tags are constructed; an alias is the
node it names, walked once) and gives each node's position; every edit is
spliced into the original text, never re-dumped. Template expressions (Helm,
Jinja) are masked before parsing: what they produce is unknown. libyaml
(ruamel.yaml.clib) composes where it gives the pure composer's nodes, several
times faster; the pure composer stays the judge of what is not YAML.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace

from autofix.command import Entry, Script, recognise
from autofix.embed import Embedding
from autofix.formats import shell
from autofix.formats.yamlargs import ArgList, ConfigMapping, exact_option, key_name, kind
from autofix.formats.yamltext import HOLE, Masked, Written, mask_templates, read_scalar, spelling
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch
from autofix.source import Source, Span

__all__ = ["config_args", "find_launches", "syntax_errors"]

# Keys whose list is an argv (Kubernetes: command + args; compose: entrypoint + command).
ARGV_KEYS = ("entrypoint", "command", "args")
# Keys whose string (or list of strings, one command each) is a shell script.
SCRIPT_KEYS = frozenset(
    "run script before_script after_script setup shell cmd cmds commands "
    "ansible.builtin.shell ansible.builtin.command".split()
)
# A tool's own key for a command string: `server_command:`, `launch-cmd:`, `start_command:`.
COMMAND_KEY = re.compile(r"[A-Za-z0-9]+[_-](?:command|cmd)\Z", re.IGNORECASE)
TEMPLATE_WORD = "${_autofix_template}"  # unknown to the shell reader: a template's output


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


# -- SGLang --config files ------------------------------------------------------------


def config_args(source: Source, table: OptionTable, base: int = 0) -> list[Arg] | None:
    """The argv tokens SGLang's ConfigArgumentMerger makes of a --config file, placed
    at base in a larger offset space; None when SGLang could not load it."""
    try:
        doc = _parse(source, base)
    except SyntaxError:
        return None
    if len(doc.roots) > 1:
        return None
    if not doc.roots:
        return []
    root = doc.roots[0]
    if kind(root) != "map":
        return None
    return ConfigMapping(doc, root, table).args


def _is_config(root, table: OptionTable) -> bool:  # noqa: ANN001
    """A top-level mapping of SGLang option names: with the model path, or several known options."""
    if kind(root) != "map" or root.flow_style or not root.value:
        return False
    names = [key_name(k) for k, _ in root.value]
    if any(name is None for name in names):
        return False
    known = [n for n in names if exact_option(table, n) is not None]
    model = next((v for k, v in root.value if key_name(k) in ("model-path", "model")), None)
    if model is not None and kind(model) == "scalar":
        return len(known) * 2 >= len(names)
    return len(known) >= 3 and len(known) * 5 >= len(names) * 4


# -- finding launches --------------------------------------------------------------------


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
    expanded: bool = False,
) -> list[Launch]:
    """Launches in a YAML file; SyntaxError when it is not YAML (unless it is a template).

    expanded: the text is a shell here-document's, so the shell expands `$X`, `${X}` and `$(...)`
    in it before the file is read (a Kubernetes object fed to `kubectl apply -f -`)."""
    try:
        doc = _parse(source)
    except SyntaxError:
        if mask_templates(source.text).templated:
            return []  # a template autofix cannot read as YAML: stay quiet
        raise
    finder = _Finder(doc, table, release, model_lookup)
    finder.expanded = expanded
    if len(doc.roots) == 1 and _is_config(doc.roots[0], table):
        finder.config(doc.roots[0])
    else:
        for root in doc.roots:
            finder.walk(root)
    return sorted(finder.launches, key=lambda launch: launch.span.start)


class _Finder:
    def __init__(self, doc: Document, table: OptionTable, release, model_lookup):  # noqa: ANN001
        self.doc = doc
        self.table = table
        self.options = {"release": release, "model_lookup": model_lookup}
        self.launches: list[Launch] = []
        self.seen: set[int] = set()
        self.kubernetes = False  # the document is a Kubernetes object ($(VAR) in argv items)
        self.expanded = False  # a shell expanded the text: $VAR is unknown in a Kubernetes object too

    def launch(self, args: Sequence[Arg], span: Span, form: str, wrappers: tuple[str, ...] = ()) -> None:
        self.launches.append(Launch.read(args, self.table, span, form, wrappers=wrappers, **self.options))  # type: ignore[arg-type]

    def config(self, root) -> None:  # noqa: ANN001
        config = ConfigMapping(self.doc, root, self.table)
        if config.args:
            end = self.doc.base + self.doc.content_end(root)
            self.launch(config.args, Span(self.doc.span(root.value[0][0]).start, end), "config")

    def walk(self, root) -> None:  # noqa: ANN001
        """Visit every node once, in document order; an alias is not followed again."""
        self.kubernetes = kind(root) == "map" and {key_name(k) for k, _ in root.value} >= {"apiVersion", "kind"} \
            and not self.expanded
        stack: list[tuple[object, bool]] = [(root, False)]
        while stack:
            node, frozen = stack.pop()
            if id(node) in self.seen:
                continue
            self.seen.add(id(node))
            frozen = frozen or self.doc.anchored(node)
            shape = kind(node)
            if shape == "map":
                handled = self.mapping(node, frozen)
                children = [v for _, v in node.value if id(v) not in handled]
            elif shape == "list":
                children = list(node.value)
            else:
                continue
            stack.extend((child, frozen) for child in reversed(children))

    def is_alias(self, parent, child, previous_end: int) -> bool:  # noqa: ANN001
        """Whether a child is an alias: its node is written before this place."""
        start = child.start_mark.index
        return id(child) in self.seen or start < previous_end or start < parent.start_mark.index

    def mapping(self, node, frozen: bool) -> set[int]:  # noqa: ANN001
        """Launches held by a mapping's keys; the ids of the values it read."""
        entries = [(key_name(k), k, v) for k, v in node.value]
        handled: set[int] = set()
        parts = [(k, v) for name, k, v in entries if name in ARGV_KEYS]
        parts.sort(key=lambda kv: ARGV_KEYS.index(key_name(kv[0])))  # type: ignore[arg-type]
        if parts:
            self.argv(parts, frozen)
            handled.update(id(v) for _, v in parts)
        for name, key, value in entries:
            if id(value) in handled or name not in SCRIPT_KEYS and not COMMAND_KEY.match(name or ""):
                continue
            if kind(value) == "scalar":
                self.script(value, key.start_mark.index, frozen, words=False,
                            opener=None if name in SCRIPT_KEYS else key)
                handled.add(id(value))
            elif kind(value) == "list":
                for item in value.value:
                    if kind(item) == "scalar" and id(item) not in self.seen:
                        self.seen.add(id(item))
                        self.script(item, self.doc.start(item), frozen or self.doc.anchored(item), words=False)
                handled.add(id(value))
        return handled

    def argv(self, parts: list[tuple[object, object]], frozen: bool) -> None:
        """command/args or entrypoint/command: one argv, or a command string."""
        doc = self.doc
        host = parts[0][0].start_mark.index  # type: ignore[attr-defined]
        kinds = [kind(v) for _, v in parts]
        if kinds == ["scalar"]:
            (key, value), = parts
            if id(value) not in self.seen and not set(value.value) <= {HOLE, " "}:  # type: ignore[attr-defined]
                self.script(value, host, frozen or doc.anchored(value), words=True)
            return
        argv: list[Arg] = []
        scripts: list[object] = []
        end = max(key.end_mark.index for key, _ in parts)  # type: ignore[attr-defined]
        for key, value in parts:
            if kind(value) == "scalar" and set(value.value) <= {HOLE, " "}:  # type: ignore[attr-defined]
                argv.append(Arg(None, doc.span(value), splat=True))  # a template: any tokens
                continue
            if kind(value) == "scalar":  # compose: `entrypoint: python3 -m ...` with `command: --tp 8`
                words = self.words(value, frozen or doc.anchored(value))
                if words is None:
                    return
                argv.extend(words)
                end = max(end, doc.content_end(value))
                self.seen.add(id(value))
                continue
            if kind(value) != "list":
                return
            alias = self.is_alias(key, value, key.end_mark.index)  # type: ignore[attr-defined]
            if not alias:
                end = max(end, doc.content_end(value))
            lst = ArgList(doc, value, frozen or alias or doc.anchored(value), self.kubernetes)

            def alias_of(item, index, seq=value, shared=alias) -> bool:  # noqa: ANN001
                previous = seq.value[index - 1].end_mark.index if index else seq.start_mark.index
                return shared or self.is_alias(seq, item, previous)

            argv.extend(lst.args(alias_of))
            scripts.extend(lst.items)
            self.seen.add(id(value))
            self.seen.update(id(item) for item in value.value)  # type: ignore[attr-defined]
        found = recognise([a.text for a in argv])
        if isinstance(found, Script):
            script = argv[found.index]
            node = next((i for i in scripts if doc.span(i) == script.span), None)
            if node is not None:
                self.script(node, host, frozen or script.container is None, words=False, wrappers=found.wrappers)
        elif isinstance(found, Entry):
            self.launch(argv[found.index:], Span(doc.base + host, doc.base + end), found.form, found.wrappers)

    def words(self, node, frozen: bool) -> list[Arg] | None:  # noqa: ANN001
        """A scalar's command words, as one argv beside another key's (None: not one command)."""
        written = self.doc.written(node)
        if written is None:
            return None
        virtual, embedding = _embedded(self.doc, written, True, frozen)
        return shell.command_words(Source(virtual), self.table, embedding)

    def script(self, node, host: int, frozen: bool, words: bool, wrappers: tuple[str, ...] = (),  # noqa: ANN001
               opener=None) -> None:  # noqa: ANN001
        """Shell in a scalar: parsed on its own, mapped back to the file.

        opener: the key of a tool's own command setting (`server_command:`); the tool
        may add flags of its own to the command, which is then open after its last word.
        """
        doc = self.doc
        written = doc.written(node)
        if written is None or "sglang" not in written.value:
            return
        virtual, embedding = _embedded(doc, written, words)
        base = doc.base
        for launch in shell.find_launches(Source(virtual), self.table, embedding=embedding, **self.options):  # type: ignore[arg-type]
            first = next((k for k, s in enumerate(embedding.starts) if s >= launch.span.start), len(virtual))
            if not virtual[:first].strip():
                # The scalar holds the launch and nothing before it: the launch starts at its key.
                launch.span = Span(min(base + host, launch.span.start), launch.span.end)
            if frozen:
                launch = launch.reread([replace(a, container=None, editable=False) for a in launch.args])
            launch.put_behind(wrappers)
            if opener is not None:
                launch = launch.reread([*launch.args, Arg(None, doc.span(opener), splat=True)])
            self.launches.append(launch)


def _embedded(doc: Document, written: Written, words: bool, frozen: bool = False) -> tuple[str, Embedding]:
    """The shell text a scalar holds, and how it maps onto the file (frozen: no edit is spelled)."""
    virtual, starts, ends, indent = _virtual(doc, written, words)
    spell = spelling(written, doc.newline)
    if words:
        spell = _words_spelling(spell, doc.newline, indent)
    if frozen:
        spell = _never
    base = doc.base
    return virtual, Embedding([s + base for s in starts], [e + base for e in ends], written.end + base, spell)


def _never(_: str) -> None:
    return None


def _virtual(doc: Document, written: Written, words: bool) -> tuple[str, list[int], list[int], str | None]:
    """The shell text a scalar holds, where each of its characters is written, and the
    indentation of the scalar's next lines (None: it has one line).

    A template expression reads as an unknown expansion; a template line
    continues a `\\`-continued command with one. In a command string that is
    not a script (words), a line break is a blank between words, read as a
    `\\` continuation so that a flag on a line of its own stays one.
    """
    value, w_starts, w_ends = written.value, written.starts, written.ends
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    indent: str | None = written.indent or None

    def emit(text: str, start: int, end: int) -> None:
        out.extend(text)
        starts.extend([start] * len(text))
        ends.extend([end] * len(text))

    i = 0
    while i < len(value):
        j = value.find("\n", i)
        j = len(value) if j < 0 else j
        at = w_starts[i] if i < j else w_starts[j] if j < len(value) else None
        line = doc.line(at) if at is not None else None
        if line is not None and line.start in doc.masked.lines and not value[i:j].strip():
            # A template line: what it may write is unknown, and it does not end a command.
            writes = line.start in doc.masked.outputs
            previous = "".join(out).rsplit("\n", 1)[-1].rstrip()
            if words:
                emit(TEMPLATE_WORD if writes else "", line.start, line.end)
            elif previous.endswith("\\"):
                emit(TEMPLATE_WORD + " \\" if writes else "\\", line.start, line.end)
        else:
            k = i
            while k < j:
                start, end = w_starts[k], w_ends[k]
                if value[k] == HOLE:
                    run = k
                    while k < j and value[k] == HOLE:
                        k += 1
                    emit(TEMPLATE_WORD, w_starts[run], w_ends[k - 1])
                    continue
                if words and value[k] == " " and "\n" in doc.text[start:end]:
                    emit(" \\\n", start, end)  # a folded line break
                    indent = indent or doc.text[doc.line(end).start : end]
                else:
                    emit(value[k], start, end)
                k += 1
        if j < len(value):
            more = words and value[j + 1 :].strip()
            emit(" \\\n" if more else "\n", w_starts[j], w_ends[j])
        i = j + 1
    # A line break also spells the next line's indentation: deleting a whole line takes it along.
    for k in range(len(out) - 1):
        if out[k] == "\n" and ends[k] < starts[k + 1] and not doc.text[ends[k] : starts[k + 1]].strip(" \t"):
            ends[k] = starts[k + 1]
    return "".join(out), starts, ends, indent


def _words_spelling(spell: Callable[[str], str | None], newline: str, indent: str | None) -> Callable[[str], str | None]:
    """A command string's spelling: a `\\` continuation is a line break with the scalar's indentation."""

    def words(text: str) -> str | None:
        parts = [spell(part) for part in text.split(" \\\n")]
        if None in parts or len(parts) > 1 and indent is None:
            return None
        return (newline + (indent or "")).join(parts)  # type: ignore[arg-type]

    return words
