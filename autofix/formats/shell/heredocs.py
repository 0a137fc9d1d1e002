"""Here-documents that are scripts (fed to a shell, written to a `.sh` file) or YAML files (fed to
`kubectl apply -f -`, written to a `.yaml` file)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from autofix.command import reads_stdin_script
from autofix.formats.shell.commands import _argv
from autofix.formats.shell.doc import _Doc
from autofix.formats.shell.scripts import _script
from autofix.model import Launch
from autofix.source import Source


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


