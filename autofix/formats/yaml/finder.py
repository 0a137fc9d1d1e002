"""Where a YAML document holds launches: SGLang `--config` mappings, argument lists in manifests,
and shell in scalars, each read with the format that reads it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from autofix.command import Entry, Script, recognise
from autofix.embed import Embedding
from autofix.formats import shell
from autofix.formats.yaml.args import ArgList, ConfigMapping, exact_option, key_name, kind
from autofix.formats.yaml.document import Document, _parse
from autofix.formats.yaml.text import HOLE, Written, spelling
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch
from autofix.source import Source, Span


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
        starts: list[int] = []  # where each part's words start in argv
        end = max(key.end_mark.index for key, _ in parts)  # type: ignore[attr-defined]
        for key, value in parts:
            starts.append(len(argv))
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
        elif found is None and len(parts) > 1:
            self.behind_entrypoint(argv, starts[-1], Span(doc.base + host, doc.base + end))

    def behind_entrypoint(self, argv: list[Arg], start: int, span: Span) -> None:
        """`entrypoint: [/bin/bash, /start.sh]` with `command: python3 -m sglang.launch_server ...`: a
        program autofix does not read is handed a launch (a script that ends in `exec "$@"`, as such
        scripts do). Read as that launch; the program may add flags of its own, so it stays open."""
        found = recognise([a.text for a in argv[start:]])
        if not isinstance(found, Entry) or found.index == 0:
            return
        program = " ".join(a.text or "?" for a in argv[:start])
        args = argv[start + found.index :]
        tail = Span(args[-1].span.end, args[-1].span.end) if args else span
        self.launch([*args, Arg(None, tail, splat=True, local=True)], span, found.form, (program, *found.wrappers))

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

