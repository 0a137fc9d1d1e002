"""Commands: the argv of one, whether it is a launch, and the words it runs as a command or script
(`$CMD`, `eval`, `bash -c "$CMD"`, a function's `"$1"`)."""

from __future__ import annotations

import re

from autofix.command import Entry, Script, program_at, recognise
from autofix.embed import Embedding
from autofix.formats.shell.containers import _ArgList
from autofix.formats.shell.doc import _Doc, _Reference
from autofix.formats.shell.scripts import _inner_script
from autofix.formats.shell.tree import _error_nodes
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch
from autofix.source import Source


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
    if node.has_error and not all(doc.literal_dollar(e) for e in _error_nodes(node)):
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
        # A word holding a literal `$` the parse marks as an error: one word, its value not read.
        args = [Arg(None, doc.span(word), container)] if word.has_error else doc.words(word, container, node.start_byte)
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
    at = program_at(texts)
    if at is not None and _run_name(doc, nodes[at]) is not None:
        _runs(doc, nodes[at])  # $CMD run as a command, behind any wrappers (`exec $CMD`, `nohup $CMD &`)
    elif texts and texts[0] == "eval":
        for word in dict.fromkeys(nodes[1:]):
            if _run_name(doc, word) is not None:
                _runs(doc, word)
            elif word.type in ("string", "raw_string"):
                return _inner_script(doc, word, release, model_lookup, frozen, ("eval",))
    return []


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


