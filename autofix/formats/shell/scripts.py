"""Scripts inside a command (`bash -c '...'`, a here-document's body), read as shell of their own."""

from __future__ import annotations


from autofix.embed import Embedding
from autofix.formats.shell.doc import _Doc
from autofix.model import Launch
from autofix.source import Source


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
    from autofix.formats.shell import find_launches  # a script in a script: the whole reader again

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

