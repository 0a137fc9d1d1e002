"""Text embedded in a host file: a string's value and where each character is written.

A YAML block scalar or a Python string holds shell text. Its value (the
*virtual* text) is parsed on its own; an Embedding maps virtual offsets back
to the file, and spells inserted text the way the host writes it. An edit
maps onto the file when it keeps or deletes each escape sequence whole and
its new text can be written in the host exactly; otherwise there is no edit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autofix.edits import Edit
from autofix.source import Span

__all__ = ["Embedding"]


@dataclass(frozen=True, slots=True)
class Embedding:
    # For each character of the virtual text: where its spelling starts and ends in the file.
    starts: Sequence[int]
    ends: Sequence[int]
    end: int  # the file offset just after the embedded text (before a closing quote)
    spell: Callable[[str], str | None]  # the host's spelling of inserted text, None when impossible

    @classmethod
    def literal(cls, start: int, length: int, spell: Callable[[str], str | None]) -> Embedding:
        """A value written verbatim at start (a plain or single-quoted scalar without escapes)."""
        starts = range(start, start + length)
        return cls(starts, range(start + 1, start + length + 1), start + length, spell)

    def point(self, offset: int) -> int:
        return self.starts[offset] if offset < len(self.starts) else self.end

    def span(self, span: Span) -> Span:
        if span.start == span.end:
            at = self.point(span.start)
            return Span(at, at)
        return Span(self.starts[span.start], self.ends[span.end - 1])

    def char(self, offset: int) -> int:
        """The file offset of a character written as itself, else -1 (an escape sequence)."""
        start = self.starts[offset]
        return start if self.ends[offset] - start == 1 else -1

    def edit(self, edit: Edit) -> Edit | None:
        text = self.spell(edit.text) if edit.text else ""
        if text is None:
            return None
        return Edit(self.span(edit.span), text)

    def inside(self, outer: Embedding) -> Embedding:
        """This embedding, of text embedded in outer's virtual text, as an embedding in outer's host:
        a script inside a script (`bash -c "..."` in a YAML `run:` scalar)."""

        def spell(text: str) -> str | None:
            inner = self.spell(text)
            return None if inner is None else outer.spell(inner)

        starts = [outer.starts[s] for s in self.starts]
        ends = [outer.ends[e - 1] for e in self.ends]
        return Embedding(starts, ends, outer.point(self.end), spell)

