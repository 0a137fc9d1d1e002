"""The text format, for people: each finding with its source line and the flag underlined.

```
launch.sh:4:5: SGL001 [tokenspeed-mla-without-fp8-kv-cache] `tokenspeed_mla` needs ...
  |
4 |     --attention-backend tokenspeed_mla \\
  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  = [*] fix: Set `--kv-cache-dtype fp8_e4m3`
```

The first line is the grep-able `path:line:col: CODE [name] message`; `[*]`
marks a fix that `--fix` applies in this run. Colour is decided once per stream
(`use_colour`); without it the output is plain ASCII art around the source.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from autofix.pipeline import Reported
    from autofix.source import Source

__all__ = ["Progress", "Style", "colour_diff", "finding_block", "group_by_file", "summary", "use_colour"]

# A line longer than this many characters is shown as a window around the flag.
MAX_LINE = 120
_CONTEXT = 40
TAB = "    "

_LABELS = {"safe": "fix", "unsafe": "unsafe fix", "display-only": "suggestion"}


def use_colour(choice: str, stream: TextIO) -> bool:
    """`--color always|never|auto`; auto: NO_COLOR off, else FORCE_COLOR on, else a terminal (not TERM=dumb)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@dataclass(frozen=True, slots=True)
class Style:
    """ANSI SGR codes when colour is on; the text unchanged when it is off."""

    colour: bool

    def __call__(self, text: str, *codes: int) -> str:
        if not self.colour or not text:
            return text
        return f"\x1b[{';'.join(map(str, codes))}m{text}\x1b[0m"

    def path(self, text: str) -> str:
        return self(text, 1)

    def code(self, text: str) -> str:
        return self(text, 1, 31)

    def gutter(self, text: str) -> str:
        return self(text, 1, 34)

    def caret(self, text: str) -> str:
        return self(text, 1, 31)

    def marker(self, text: str) -> str:
        return self(text, 1, 36)


BOLD, RED, GREEN, CYAN = 1, 31, 32, 36


def finding_block(path: str, r: Reported, source: Source, style: Style, unsafe: bool) -> str:
    """One finding: head line, the source line with the span underlined, the fix; a blank line after."""
    head = (
        f"{style.path(path)}:{r.line}:{r.column}: {style.code(r.fixer.code)} "
        f"[{r.fixer.name}] {r.finding.message}"
    )
    line_no = str(r.line)
    pad = " " * len(line_no)
    bar = style.gutter("|")
    text, under = _underline(source, r)
    out = [
        head,
        f"{pad} {bar}",
        f"{style.gutter(line_no)} {bar} {text}".rstrip(),
        f"{pad} {bar} {under[0]}{style.caret(under[1])}",
    ]
    fix = r.fix
    if fix is not None:
        marker = style.marker("[*]") + " " if fix.applies(unsafe) else ""
        label = "fixed" if r.fixed else _LABELS[fix.applicability.value]
        out.append(f"{pad} {style.gutter('=')} {marker}{label}: {fix.title}")
    return "\n".join(out) + "\n"


def _underline(source: Source, r: Reported) -> tuple[str, tuple[str, str]]:
    """The finding's first line as shown, and the blanks and carets under its span."""
    span = source.line_span(r.finding.at.start)
    line = source.text[span.start : span.end]
    start = r.finding.at.start - span.start
    end = min(r.finding.at.end, span.end) - span.start  # a span over several lines: its first line
    lead, tail = "", ""
    if len(line) > MAX_LINE:
        cut = max(0, start - _CONTEXT)
        stop = min(len(line), max(end + _CONTEXT // 2, cut + MAX_LINE))
        lead, tail = ("..." if cut else ""), ("..." if stop < len(line) else "")
        line, start, end = line[cut:stop], start - cut, end - cut
    blanks = " " * len(lead) + "".join(" " * _width(ch) for ch in line[:start])
    carets = "^" * max(1, sum(_width(ch) for ch in line[start:end]))
    return lead + "".join(_shown(ch) for ch in line) + tail, (blanks, carets)


def _shown(ch: str) -> str:
    if ch == "\t":
        return TAB
    if ch < " " or ch == "\x7f":
        return " "
    return ch


def _width(ch: str) -> int:
    if ch == "\t":
        return len(TAB)
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def summary(findings: int, files: int, fixable: int, unsafe_fixable: int, style: Style) -> str:
    """`3 findings in 2 files, 2 fixable with --fix, 1 more with --unsafe-fixes`."""
    text = f"{_count(findings, 'finding')} in {_count(files, 'file')}"
    if fixable:
        text += f", {fixable} fixable with --fix"
    if unsafe_fixable:
        text += f", {unsafe_fixable} more with --unsafe-fixes"
    return style(text, BOLD)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def colour_diff(text: str, style: Style) -> str:
    """A unified diff with git's colours: headers bold, hunks cyan, removals red, additions green."""
    if not style.colour:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body, nl = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        if body.startswith(("---", "+++")):
            body = style(body, BOLD)
        elif body.startswith("@@"):
            body = style(body, CYAN)
        elif body.startswith("-"):
            body = style(body, RED)
        elif body.startswith("+"):
            body = style(body, GREEN)
        out.append(body + nl)
    return "".join(out)


class Progress:
    """`autofix: 120/1000 files` on stderr, redrawn in place, shown only on a terminal after `delay` s.

    Whatever prints to the same terminal calls `clear()` first.
    """

    def __init__(self, total: int, stream: TextIO | None = None, delay: float = 1.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.enabled = total > 1 and _isatty(self.stream) and os.environ.get("TERM") != "dumb"
        self.started = time.monotonic()
        self.delay = delay
        self.shown = False
        self._last = 0.0

    def step(self, done: int, name: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < self.delay or now - self._last < 0.1:
            return
        self._last = now
        head = f"autofix: {done}/{self.total} files "
        # One line that never wraps, or \r could not redraw it.
        width = max(0, shutil.get_terminal_size((80, 24)).columns - 1 - len(head))
        label = name if len(name) <= width else ("..." + name[-(width - 3) :] if width > 3 else "")
        self.stream.write(f"\r\x1b[K{head}{label}")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def group_by_file(findings: Sequence[tuple[str, Reported]]) -> list[tuple[str, Reported]]:
    """The findings with each file's together, files in the order they first appear."""
    order: dict[str, list[tuple[str, Reported]]] = {}
    for path, r in findings:
        order.setdefault(path, []).append((path, r))
    return [item for items in order.values() for item in items]
