"""Dockerfiles: launches in RUN, CMD and ENTRYPOINT, in exec form and in shell form.

Shell form is read by the shell format from a *masked* copy of the file: the
same length, spaces everywhere but the command text of the instructions that
run (newlines kept), so every span the shell format hands out is already a
file offset. `ENV A=1` lines become shell assignments in place (`    A=1`), so
a variable set once resolves; an `ARG` (overridable with `--build-arg`, and
absent when the container runs) becomes an assignment to something unknown.
Comment lines inside a continued instruction, which Docker drops, are blanked
but keep a trailing `\\` so the continuation survives.

Exec form (a JSON array) is read by a small tokenizer that keeps the offsets
of every string; Docker expands no variable there, so a `$` makes a token
unknown. `ENTRYPOINT [...]` and `CMD [...]` of one stage make one argv; the
last of each in a stage wins, and a shell-form ENTRYPOINT ignores CMD.
`["bash", "-c", "SCRIPT"]` hands SCRIPT to the shell format through an
Embedding of the JSON string.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from autofix.command import Entry, Script, recognise
from autofix.edits import Edit
from autofix.embed import Embedding
from autofix.formats import shell
from autofix.formats.jsontext import Array, String, spell, string
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch, NewFlag
from autofix.source import Source, Span

__all__ = ["find_launches", "syntax_errors"]

_INSTRUCTION = re.compile(r"[ \t]*([A-Za-z]+)(?:[ \t]+|(?=\r?\n)|\Z)")
_CONTINUED = re.compile(r"\\[ \t]*\r?\Z")
_ESCAPE_DIRECTIVE = re.compile(r"#[ \t]*escape[ \t]*=[ \t]*(\S)", re.IGNORECASE)
_CONTINUATION = re.compile(r"\\[ \t]*\r?\n")
_HEREDOC = re.compile(r"<<-?[ \t]*[\"']?([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(slots=True)
class _Instruction:
    keyword: str  # upper case
    start: int  # the keyword's first character
    body: int  # where the arguments start
    end: int  # the end of the last line, before its newline
    dropped: list[Span] = field(default_factory=list)  # comment and blank lines Docker removes
    script: Span | None = None  # a here-document that is a shell script (`RUN <<EOF`, `COPY <<EOF start.sh`)


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end without newline) of every line."""
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        out.append((at, at + len(line.rstrip("\r\n"))))
        at += len(line)
    return out


def _instructions(text: str) -> list[_Instruction] | None:
    """The file's instructions; None when it uses an escape character other than `\\`."""
    lines = _lines(text)
    found: list[_Instruction] = []
    i = 0
    for start, end in lines:  # parser directives come first
        match = _ESCAPE_DIRECTIVE.match(text, start, end)
        if match and match[1] != "\\":
            return None
        if not text[start:end].startswith("#"):
            break
    while i < len(lines):
        start, end = lines[i]
        line = text[start:end]
        match = _INSTRUCTION.match(line)
        if not line.strip() or line.lstrip().startswith("#") or match is None:
            i += 1
            continue
        inst = _Instruction(match[1].upper(), start + match.start(1), start + match.end(), end)
        heredoc = _HEREDOC.search(line)
        continued = bool(_CONTINUED.search(line))
        while continued and i + 1 < len(lines):
            i += 1
            s, e = lines[i]
            inst.end = e
            if not text[s:e].strip() or text[s:e].lstrip().startswith("#"):
                inst.dropped.append(Span(s, e))  # Docker drops it; the instruction goes on
            else:
                continued = bool(_CONTINUED.search(text[s:e]))
        i += 1
        if heredoc:  # the body lines up to the delimiter are data, not instructions
            first = lines[i][0] if i < len(lines) else len(text)
            while i < len(lines) and text[lines[i][0] : lines[i][1]].strip() != heredoc[1]:
                i += 1
            if _is_script(inst.keyword, text[inst.body : inst.end], heredoc):
                inst.script = Span(first, lines[i][0] if i < len(lines) else len(text))
            i += 1
            inst.keyword = "HEREDOC"
        found.append(inst)
    return found


_SCRIPT_TARGET = re.compile(r"\S+\.(?:sh|bash)\s*\Z")


def _is_script(keyword: str, args: str, heredoc: re.Match) -> bool:
    """`RUN <<EOF` (or `RUN bash <<EOF`): the body runs in the shell; `COPY <<EOF start.sh`: it is one."""
    before = args[: args.find("<<")].split()
    if keyword == "RUN":
        return all(w.startswith("--") for w in before) or bool(before) and before[-1].rsplit("/", 1)[-1] in ("sh", "bash")
    return keyword in ("COPY", "ADD") and bool(_SCRIPT_TARGET.search(args[heredoc.end() :]))


# -- exec form: a JSON array of strings ---------------------------------------

def _exec_items(text: str, inst: _Instruction) -> list[String] | None:
    """The strings of an exec-form array, or None when the arguments are not one."""
    i = _skip(text, inst.body, inst)
    if i >= inst.end or text[i] != "[":
        return None
    i = _skip(text, i + 1, inst)
    items: list[String] = []
    if i < inst.end and text[i] == "]":
        return items if _skip(text, i + 1, inst) >= inst.end else None
    while True:
        item = string(text, i, inst.end)
        if item is None:
            return None
        items.append(item)
        i = _skip(text, item.span.end, inst)
        if i < inst.end and text[i] == ",":
            i = _skip(text, i + 1, inst)
            continue
        if i < inst.end and text[i] == "]":
            return items if _skip(text, i + 1, inst) >= inst.end else None
        return None


def _skip(text: str, i: int, inst: _Instruction) -> int:
    """Past whitespace, `\\` continuations and dropped lines."""
    while i < inst.end:
        dropped = next((d for d in inst.dropped if d.start <= i < d.end), None)
        if dropped is not None:
            i = dropped.end
        elif text[i] in " \t\r\n":
            i += 1
        elif text[i] == "\\" and (m := _CONTINUATION.match(text, i)):
            i = m.end()
        else:
            break
    return i


class _ExecArray(Array):
    """An exec-form array: `docker run IMAGE ARGS...` appends ARGS to an ENTRYPOINT's."""

    continues = True


def _exec_args(text: str, items: Sequence[String]) -> list[Arg]:
    container = _ExecArray(text, items)
    args = []
    for item in items:
        if "$" in item.text:  # a literal `$X` the program receives: nothing autofix can know
            args.append(Arg(None, item.span, container, editable=False))
            continue
        chars = tuple(s if e - s == 1 else -1 for s, e in zip(item.starts, item.ends))
        args.append(Arg(item.text, item.span, container, chars=chars))
    return args


# -- the file --------------------------------------------------------------------


@dataclass(slots=True)
class _Stage:
    entrypoint: _Instruction | None = None
    cmd: _Instruction | None = None
    runs: list[_Instruction] = field(default_factory=list)


def _stages(instructions: Sequence[_Instruction]) -> list[_Stage]:
    stages = [_Stage()]
    for inst in instructions:
        if inst.keyword == "FROM":
            stages.append(_Stage())
        elif inst.keyword == "ENTRYPOINT":
            stages[-1].entrypoint = inst
        elif inst.keyword == "CMD":
            stages[-1].cmd = inst
        elif inst.keyword == "RUN":
            stages[-1].runs.append(inst)
    return stages


def _mask(text: str, instructions: Sequence[_Instruction], shell_form: Sequence[_Instruction]) -> str:
    """Same-length text: shell-form commands and ENV/ARG assignments, spaces elsewhere."""
    out = [ch if ch in "\r\n" else " " for ch in text]

    def copy(start: int, end: int) -> None:
        out[start:end] = text[start:end]

    for inst in shell_form:
        copy(inst.body, inst.end)
        _blank_dropped(out, text, inst)
    for inst in instructions:
        if inst.keyword not in ("ENV", "ARG"):
            continue
        body = text[inst.body : inst.end]
        name = re.match(r"[A-Za-z_][A-Za-z0-9_]*", body)
        if name is None:
            continue
        if inst.keyword == "ENV" and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", body):
            copy(inst.body, inst.end)
            _blank_dropped(out, text, inst)
        else:
            # Unknown: a build argument, or the legacy `ENV NAME value` form.
            unknown = f"{name[0]}=$@"
            out[inst.start : inst.start + len(unknown)] = unknown
    return "".join(out)


def _blank_dropped(out: list[str], text: str, inst: _Instruction) -> None:
    """Comment lines Docker drops inside a continued instruction: blank, still continued."""
    for dropped in inst.dropped:
        blank = [ch if ch in "\r\n" else " " for ch in text[dropped.start : dropped.end]]
        if blank:
            blank[-1] = "\\"
        out[dropped.start : dropped.end] = blank


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
) -> list[Launch]:
    text = source.text
    instructions = _instructions(text)
    if instructions is None:
        return []
    launches: list[Launch] = []
    shell_form: list[_Instruction] = []
    for stage in _stages(instructions):
        for run in stage.runs:
            items = _exec_items(text, run)
            if items is None:
                shell_form.append(run)
            else:
                launches.extend(_exec_launches(text, [(run, items)], table, release, model_lookup))
        entry = stage.entrypoint
        entry_items = _exec_items(text, entry) if entry else None
        if entry is not None and entry_items is None:
            shell_form.append(entry)  # a shell-form ENTRYPOINT ignores CMD
            continue
        cmd = stage.cmd
        cmd_items = _exec_items(text, cmd) if cmd else None
        parts = [(entry, entry_items)] if entry is not None else []
        if cmd is not None and cmd_items is None and entry is None:
            shell_form.append(cmd)
        elif cmd is not None and cmd_items is not None:
            parts.append((cmd, cmd_items))
        elif cmd is not None and parts:
            parts.append((cmd, None))  # ENTRYPOINT [...] with a shell-form CMD: /bin/sh -c ... follows
        if parts:
            launches.extend(_exec_launches(text, parts, table, release, model_lookup))
    # A here-document's script reads as shell-form commands of their own.
    shell_form += [_Instruction("RUN", i.script.start, i.script.start, i.script.end) for i in instructions if i.script]
    if shell_form:
        masked = Source(_mask(text, instructions, shell_form))
        dropped = [span for inst in shell_form for span in inst.dropped]
        for launch in shell.find_launches(masked, table, release, model_lookup):
            launches.append(_restyled(launch, text, dropped) if dropped else launch)
    return launches


class _Restyled:
    """A shell command whose last line follows a dropped comment line.

    The shell format continues a last line in the style of the line above,
    which in the masked text is a blanked comment line (`      \\`); take
    the style of the nearest line Docker keeps instead.
    """

    def __init__(self, inner, text: str, dropped: Sequence[Span]):
        self.inner = inner
        self.text = text
        self.dropped = dropped

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        return self.inner.replace(arg, start, end, value)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        return self.inner.remove(args)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        return tuple(self._restyle(edit) for edit in self.inner.insert_after(args, new))

    def _restyle(self, edit: Edit) -> Edit:
        match = re.match(r"[ \t]*\\(?=\r?\n)", edit.text)
        line_start = self.text.rfind("\n", 0, edit.span.start) + 1
        if match is None or line_start == 0:
            return edit
        above = line_start - 1
        while True:
            start = self.text.rfind("\n", 0, above) + 1
            if not any(d.start == start for d in self.dropped) or start == 0:
                break
            above = start - 1
        if above == line_start - 1:
            return edit
        cont = re.search(r"[ \t]*\\[ \t]*\r?\Z", self.text[start:above])
        style = cont.group().rstrip("\r").rstrip(" \t") if cont else " \\"
        return Edit(edit.span, style + edit.text[match.end() :])


def _restyled(launch: Launch, text: str, dropped: Sequence[Span]) -> Launch:
    wrapped: dict[int, _Restyled] = {}

    def wrap(arg: Arg) -> Arg:
        if arg.container is None:
            return arg
        container = wrapped.setdefault(id(arg.container), _Restyled(arg.container, text, dropped))
        return replace(arg, container=container)

    return launch.reread([wrap(arg) for arg in launch.args])


def _exec_launches(text, parts, table, release, model_lookup) -> list[Launch]:
    argv: list[Arg] = []
    owner: list[tuple[_Instruction, String | None]] = []
    for inst, items in parts:
        if items is None:
            argv.append(Arg(None, Span(inst.body, inst.end), splat=True))
            owner.append((inst, None))
            continue
        argv.extend(_exec_args(text, items))
        owner.extend((inst, item) for item in items)
    found = recognise([arg.text for arg in argv])
    if isinstance(found, Entry):
        inst = owner[max(found.index - 1, 0)][0]
        return [Launch.read(argv[found.index:], table, Span(inst.start, inst.end), found.form,
                            release=release, model_lookup=model_lookup, wrappers=found.wrappers)]
    if isinstance(found, Script):
        item = owner[found.index][1]
        if item is None:
            return []
        embedding = Embedding(item.starts, item.ends, item.span.end - 1, spell)
        launches = shell.find_launches(Source(item.text), table, release, model_lookup, embedding)
        for launch in launches:
            launch.put_behind(found.wrappers)
        return launches
    return []


def syntax_errors(text: str) -> int:
    """Exec-form arrays that are not valid JSON, plus shell errors in the shell-form commands."""
    instructions = _instructions(text)
    if instructions is None:
        return 0
    broken = 0
    shell_form = []
    for inst in instructions:
        if inst.keyword not in ("RUN", "CMD", "ENTRYPOINT"):
            continue
        if _exec_items(text, inst) is not None:
            continue
        if text[_skip(text, inst.body, inst) : inst.end].startswith("["):
            broken += 1
        else:
            shell_form.append(inst)
    return broken + shell.syntax_errors(_mask(text, instructions, shell_form))
