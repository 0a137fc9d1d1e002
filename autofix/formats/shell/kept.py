"""Commands kept in a variable and run later, with the additions that grow them."""

from __future__ import annotations

from collections.abc import Sequence

from autofix.embed import Embedding
from autofix.formats.shell.commands import command_words
from autofix.formats.shell.doc import _Doc
from autofix.formats.shell.scripts import _inner_script, _script
from autofix.model import Arg, Launch
from autofix.source import Source, Span


def _kept_command(doc: _Doc, name: str, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    """`CMD="python -m sglang.launch_server ..."` run later as `$CMD`, `eval "$CMD"` or `bash -c "$CMD"`:
    each string assigned to CMD is read as a command. When CMD is assigned again (`CMD="$CMD --flag"`),
    what those assignments add is not known: the launch may gain flags."""
    launches: list[Launch] = []
    values = sorted(doc.assignments.get(name, []), key=lambda v: v.start_byte)
    for index, value in enumerate(values):
        if b"sglang" not in doc.data[value.start_byte : value.end_byte]:
            continue
        if value.type == "command_substitution":  # cmd=$(cat <<EOF ... EOF): the body is the command
            launches.extend(_captured_heredoc(doc, name, value, release, model_lookup))
            continue
        if value.type not in ("string", "raw_string"):
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


def _captured_heredoc(doc: _Doc, name: str, value, release, model_lookup) -> list[Launch]:  # noqa: ANN001
    """`cmd=$(cat <<EOF ... EOF)` run later as `eval $cmd`: the here-document's body, as `cat` prints it,
    is the command. Open when the variable is assigned again."""
    statements = [c for c in value.named_children if c.type != "comment"]
    if len(statements) != 1 or statements[0].type != "redirected_statement":
        return []
    statement = statements[0]
    command = next((c for c in statement.named_children if c.type == "command"), None)
    heredoc = next((c for c in statement.named_children if c.type == "heredoc_redirect"), None)
    if command is None or heredoc is None or doc.node_text(command).split() != ["cat"]:
        return []
    body = next((c for c in heredoc.named_children if c.type == "heredoc_body"), None)
    start = next((c for c in heredoc.named_children if c.type == "heredoc_start"), None)
    if body is None or start is None or any(c.type not in ("heredoc_start", "heredoc_body", "heredoc_end")
                                            for c in heredoc.named_children):
        return []
    quoted = doc.node_text(start)[:1] in "'\"\\"
    launches = _script(doc, body, release, model_lookup, False, (f"${name}",), None if quoted else '$`\\')
    if doc.assigned[name] + doc.appended[name] > 1:
        launches = [launch.reread([*launch.args, Arg(None, Span(launch.span.end, launch.span.end), splat=True,
                                                     local=True)]) for launch in launches]
    return launches
