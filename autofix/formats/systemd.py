"""systemd unit files: the command lines of a service's `ExecStart=` (and the other `Exec*=` keys).

`ExecStart=/opt/venv/bin/python -m sglang.launch_server --model-path ... \\` runs
its command with no shell: systemd splits it into words by quotes, joins
`\\`-continued lines, and expands `$VAR` / `${VAR}` from `Environment=` and
`%i`-style specifiers itself. autofix reads each such command with the shell
format, in a copy of the file where everything else is blank (offsets stay the
file's): the key and systemd's prefix characters (`-`, `@`, `+`, `!`, `:`)
become spaces, and each specifier an expansion of its own length, so that it
is an unknown value. `.service` files, and Markdown blocks tagged `ini` or
`systemd` that hold an `Exec*=` line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from autofix.formats import shell
from autofix.knowledge.options import OptionTable
from autofix.model import Launch
from autofix.source import Source

__all__ = ["find_launches", "syntax_errors"]

_EXEC = re.compile(r"[ \t]*Exec(?:Start|StartPre|StartPost|Reload|Stop|StopPost|Condition)[ \t]*=[ \t]*[-@:+!]*")
_SPECIFIER = re.compile(r"%[A-Za-z]")  # `%%` is a `%`: kept as written
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")


def _commands(text: str) -> str:
    """text with only the Exec*= command lines (and their continuations), the rest blank."""
    out: list[str] = []
    continued = False
    for match in _LINE.finditer(text):
        line = match.group()
        if not line:
            break
        body = line.rstrip("\r\n")
        brk = line[len(body):]
        key = None if continued else _EXEC.match(body)
        if continued or key is not None:
            start = key.end() if key is not None else 0
            command = _SPECIFIER.sub(lambda m: "$_", body[start:])
            out.append(" " * start + command + brk)
            continued = body.endswith("\\")
        else:
            out.append(" " * len(body) + brk)
    return "".join(out)


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
) -> list[Launch]:
    if "sglang" not in source.text or "Exec" not in source.text:
        return []
    return shell.find_launches(Source(_commands(source.text)), table, release, model_lookup)


def syntax_errors(text: str) -> int:
    """The shell reading's errors in the command lines."""
    return shell.syntax_errors(_commands(text))
