"""Shell scripts: launches in commands, read with tree-sitter-bash.

Words are evaluated the way bash would, as far as that can be known without
running anything: quotes and escapes are undone, top-level variables assigned
once before the launch are expanded, bash arrays of flags are spliced in; any
other expansion is unknown. Every argv token keeps the file offsets it was read
from, so edits land exactly where a flag is written.
"""

from __future__ import annotations

from collections.abc import Callable

from autofix.embed import Embedding
from autofix.formats.shell.commands import _launches, _passed_command, command_words
from autofix.formats.shell.doc import _Doc
from autofix.formats.shell.heredocs import _heredoc
from autofix.formats.shell.kept import _kept_command
from autofix.formats.shell.tree import syntax_errors
from autofix.knowledge.options import OptionTable
from autofix.model import Launch
from autofix.source import Source

__all__ = ["command_words", "find_launches", "syntax_errors"]


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

