"""Source text: decoding, newline style, offsets <-> line:column."""

from __future__ import annotations

import bisect
import codecs
from dataclasses import dataclass, field

__all__ = ["DecodeError", "Source", "Span"]


class DecodeError(ValueError):
    """The bytes are not text autofix can edit faithfully."""


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A half-open range of character offsets into a Source's text."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"bad span {self.start}..{self.end}")

    def overlaps(self, other: Span) -> bool:
        if self.start == self.end or other.start == other.end:
            # Two insertions at one point, or an insertion inside a replaced range.
            return self.start == other.start or (
                self.start < other.end and other.start < self.end
            )
        return self.start < other.end and other.start < self.end

    def cover(self, other: Span) -> Span:
        return Span(min(self.start, other.start), max(self.end, other.end))


@dataclass(frozen=True, slots=True)
class Source:
    """A file's text as autofix sees it, and what is needed to write it back unchanged."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def decode(cls, data: bytes) -> Source:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise DecodeError("UTF-16 text is not supported")
        if b"\x00" in data:
            raise DecodeError("binary file (NUL byte)")
        bom = data.startswith(codecs.BOM_UTF8)
        try:
            text = data[3 if bom else 0 :].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"not UTF-8 (byte {exc.start})") from None
        return cls(text, "utf-8", bom)

    def encode(self, text: str | None = None) -> bytes:
        body = (self.text if text is None else text).encode(self.encoding)
        return codecs.BOM_UTF8 + body if self.bom else body

    def with_text(self, text: str) -> Source:
        return Source(text, self.encoding, self.bom)

    @property
    def newline(self) -> str:
        """The file's newline: CRLF when its first line ends so, else LF."""
        first = self.text.find("\n")
        return "\r\n" if first > 0 and self.text[first - 1] == "\r" else "\n"

    def line_starts(self) -> list[int]:
        if not self._line_starts:
            starts = [0]
            find = self.text.find
            at = find("\n")
            while at != -1:
                starts.append(at + 1)
                at = find("\n", at + 1)
            self._line_starts.extend(starts)
        return self._line_starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def line_span(self, offset: int) -> Span:
        """The line holding offset, without its newline."""
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        start = starts[line]
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self.text)
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return Span(start, end)

    def line_text(self, offset: int) -> str:
        span = self.line_span(offset)
        return self.text[span.start : span.end]
