"""The format-neutral launch: SGLang flags with canonical dests, each piece with its span.

A format module turns text into `Arg` tokens grouped in containers it owns (a
shell command, a bash array, a YAML list, a Python call). `Launch.read` reads
those tokens the way SGLang's argparse parser does. Fixers ask the launch for
edits; the container of the flag concerned spells them in its format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from autofix.edits import Edit
from autofix.knowledge.gpus import Gpu
from autofix.knowledge.models import ModelInfo, resolve_model
from autofix.knowledge.options import Ambiguous, Option, OptionTable
from autofix.source import Span

__all__ = ["Arg", "Container", "Flag", "Launch", "NewFlag", "Unresolvable"]


# A value that reads the same bare or inside any quotes, in every format.
SAFE_VALUE = re.compile(r"[A-Za-z0-9_.:/+@%-]+\Z")


class Unresolvable(Exception):
    """A value the launch cannot know statically; the check asking for it stays quiet."""


@dataclass(frozen=True, slots=True)
class NewFlag:
    """A flag to add, before a format spells it."""

    option: Option
    value: str | None  # None: a boolean flag
    joined: bool  # spell as --flag=value

    def tokens(self) -> list[str]:
        if self.value is None:
            return [self.option.primary]
        if self.joined:
            return [f"{self.option.primary}={self.value}"]
        return [self.option.primary, self.value]


class Container(Protocol):
    """Where args are written, and how an edit is spelled there."""

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        """Replace arg.text[start:end] by value (which needs no quoting)."""
        ...

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]: ...

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]: ...


@dataclass(frozen=True, slots=True, eq=False)
class Arg:
    """One argv token.

    text is what the program receives, or None when it comes from something
    autofix cannot read. A splat may stand for any number of tokens
    (`$EXTRA_ARGS`, `"$@"`, `*args`); an unquoted one (`$PORT`, `$(nproc)`)
    is one word as written, which the shell may split: where a flag wants a
    value it is that value, unknown; where a flag may stand, a pass-through.
    local marks a splat for what the file itself may change before the launch
    (a list extended under a branch, a dict handed to a function): unlike a
    caller's pass-through, nothing is assumed of it. editable is False when the
    token is written somewhere an edit must not go (a scalar variable, an escape
    sequence).
    """

    text: str | None
    span: Span
    container: Container | None = None
    splat: bool = False
    unquoted: bool = False
    local: bool = False
    editable: bool = True
    # The file offset each character of text was read from, or -1 where it came
    # from an escape sequence or an expansion. None: no character is literal.
    chars: tuple[int, ...] | None = None

    def region(self, start: int, end: int) -> Span | None:
        """The file span that spells text[start:end] literally, character for character."""
        chars = self.chars
        if chars is None or self.text is None or not 0 <= start < end <= len(chars):
            return None
        first = chars[start]
        if first < 0 or any(chars[k] != first + (k - start) for k in range(start, end)):
            return None
        return Span(first, first + (end - start))


@dataclass(frozen=True, slots=True, eq=False)
class Flag:
    option: Option | None
    spelling: str  # as written, before any '=value'
    name: Arg
    values: tuple[Arg, ...]
    joined: bool  # written as --flag=value in one token
    problem: str | None = None  # 'ambiguous' or 'unknown'
    matches: tuple[str, ...] = ()

    @property
    def dest(self) -> str | None:
        return self.option.dest if self.option else None

    @property
    def args(self) -> tuple[Arg, ...]:
        return (self.name, *self.values)

    @property
    def span(self) -> Span:
        span = self.name.span
        for arg in self.values:
            span = span.cover(arg.span)
        return span

    @property
    def value_span(self) -> Span:
        """Where the value is written (the flag itself for a boolean)."""
        if self.joined and self.name.text is not None:
            text = self.name.text
            return self.name.region(text.index("=") + 1, len(text)) or self.name.span
        return self.values[-1].span if self.values else self.name.span

    @property
    def value(self) -> str | bool | tuple[str, ...]:
        """The flag's value; Unresolvable when it is not known."""
        option = self.option
        if option is not None and option.is_boolean:
            if option.action == "store_false" or self.spelling.startswith("--no-") and option.action == "boolean_optional":
                return False
            return True
        if self.joined:
            text = self.name.text
            if text is None:
                raise Unresolvable(self.spelling)
            return text.split("=", 1)[1]
        if not self.values or any(v.text is None or v.splat for v in self.values):
            raise Unresolvable(self.spelling)
        if option is not None and option.nargs in ("+", "*") or isinstance(option and option.nargs, int) and option.nargs > 1:
            return tuple(v.text for v in self.values)  # type: ignore[misc]
        return self.values[0].text  # type: ignore[return-value]

    @property
    def editable(self) -> bool:
        return all(arg.editable and arg.container is not None for arg in self.args)


@dataclass(eq=False)
class Launch:
    """One SGLang server launch, read from its argv tokens."""

    args: list[Arg]
    table: OptionTable
    span: Span
    form: str  # "launch_server", "serve", "engine", ...
    flags: list[Flag] = field(default_factory=list)
    positionals: list[Arg] = field(default_factory=list)
    release: str | None = None
    model_lookup: object = None  # callable(path) -> architecture or None, for local config.json
    gpu: Gpu | None = None  # the GPU the launch runs on (--gpu), None when not named
    # The `--config FILE` tokens of the command line a merged launch was read from (see with_config).
    config: tuple[Arg, ...] = ()
    # What runs the entry point, outermost first (`docker run`, `bash -c`, `torchrun` ...).
    wrappers: tuple[str, ...] = ()
    _model: ModelInfo | None = None
    # Indices of args that may set any flag: splats, and unknown words where a flag could stand.
    _opaque: list[int] = field(default_factory=list)
    _written: frozenset[str] | None = None

    @classmethod
    def read(cls, args: Sequence[Arg], table: OptionTable, span: Span, form: str, **kw: object) -> Launch:
        launch = cls(list(args), table, span, form, **kw)  # type: ignore[arg-type]
        launch._parse()
        return launch

    def put_behind(self, wrappers: Sequence[str]) -> None:
        """The launch was found inside a script those wrappers run (`docker exec BOX bash -c '...'`)."""
        self.wrappers = (*wrappers, *self.wrappers)

    def reread(self, args: Sequence[Arg], span: Span | None = None) -> Launch:
        """The same launch read from other tokens (the same words, re-spelled or moved)."""
        return Launch.read(args, self.table, self.span if span is None else span, self.form, release=self.release,
                           model_lookup=self.model_lookup, gpu=self.gpu, wrappers=self.wrappers)

    def _parse(self) -> None:
        args = self.args
        i = 0
        while i < len(args):
            arg = args[i]
            text = arg.text
            if arg.splat or text is None:
                self._opaque.append(i)
                i += 1
                continue
            if not text.startswith("-") or text in ("-", "--") or _is_number(text):
                if text != "--":
                    self.positionals.append(arg)
                i += 1
                continue
            flag, i = self._read_flag(i)
            self.flags.append(flag)

    def _read_flag(self, i: int) -> tuple[Flag, int]:
        arg = self.args[i]
        text = arg.text or ""
        spelling, joined = text, False
        found = self.table.lookup(text)
        if found is None and "=" in text:
            spelling, joined = text.split("=", 1)[0], True
            found = self.table.lookup(spelling)
        if isinstance(found, Ambiguous):
            values, j = self._take_values(i + 1, None, joined)
            return Flag(None, spelling, arg, values, joined, "ambiguous", found.matches), j
        if found is None:
            values, j = self._take_values(i + 1, None, joined)
            return Flag(None, spelling, arg, values, joined, "unknown"), j
        option, _ = found
        if joined or not option.takes_value:
            return Flag(option, spelling, arg, (), joined), i + 1
        values, j = self._take_values(i + 1, option, joined)
        return Flag(option, spelling, arg, values, joined), j

    def _take_values(self, i: int, option: Option | None, joined: bool) -> tuple[tuple[Arg, ...], int]:
        """argparse's consumption: one value, or (nargs + and *) all up to the next flag."""
        if joined:
            return (), i
        nargs = option.nargs if option else "*"
        limit = nargs if isinstance(nargs, int) else 1 if nargs in (None, "?") else len(self.args)
        taken: list[Arg] = []
        while i < len(self.args) and len(taken) < limit:
            arg = self.args[i]
            if arg.splat and (taken or not arg.unquoted):
                break  # a pass-through, or an expansion after the values: it may hold flags
            if arg.text is not None and arg.text.startswith("-") and len(arg.text) > 1 and not _is_number(arg.text):
                break
            taken.append(arg)
            i += 1
        return tuple(taken), i

    # -- a --config file ---------------------------------------------------------

    def config_file(self) -> Arg | None:
        """The FILE of `--config FILE`, as SGLang's ConfigArgumentMerger finds it; None without one.

        The merger reads only a bare `--config` token (`--config=FILE` is ignored)
        and refuses two of them, a missing FILE and a FILE that is not YAML:
        those are Unresolvable, and so is a FILE autofix cannot read.
        """
        found = [i for i, arg in enumerate(self.args) if arg.text == "--config"]
        if not found:
            return None
        i = found[0]
        if len(found) > 1 or i + 1 == len(self.args):
            raise Unresolvable("SGLang reads one --config FILE")
        path = self.args[i + 1]
        if path.text is None or path.splat or not path.text.lower().endswith((".yaml", ".yml")):
            raise Unresolvable("--config FILE is not a YAML file autofix can name")
        return path

    def with_config(self, tokens: Sequence[Arg] | None) -> Launch:
        """The launch SGLang runs: the config file's tokens, then the command line without
        `--config FILE`, so the command line wins. tokens None: a file autofix cannot read,
        which may set any flag the command line does not."""
        args = list(self.args)
        if self.form == "serve" and args and args[0].text and not args[0].text.startswith("-"):
            # `sglang serve MODEL` reads as `--model-path MODEL` before the merge.
            model = args[0]
            args.insert(0, Arg("--model-path", Span(model.span.start, model.span.start), editable=False))
        found = [i for i, arg in enumerate(args) if arg.text == "--config"]
        config: tuple[Arg, ...] = ()
        if found and found[0] + 1 < len(args):
            config = tuple(args[found[0] : found[0] + 2])
            del args[found[0] : found[0] + 2]
        if tokens is None:
            at = next((arg.span for arg in self.args if arg.text == "--config"), self.span)
            tokens = [Arg(None, at, splat=True)]
        return Launch.read([*tokens, *args], self.table, self.span, self.form,
                           release=self.release, model_lookup=self.model_lookup, gpu=self.gpu, config=config,
                           wrappers=self.wrappers)

    # -- reading -------------------------------------------------------------

    @property
    def passthroughs(self) -> list[Arg]:
        """The args that may set any flag: pass-throughs (`"$@"`, `*args`) and unknown words in a flag's place."""
        return [self.args[i] for i in self._opaque]

    def written_dests(self) -> frozenset[str] | None:
        """The dests the launch writes; None when an expansion may write any."""
        if self._opaque:
            return None
        if self._written is None:
            self._written = frozenset(f.dest for f in self.flags if f.dest is not None)
        return self._written

    def all(self, dest: str) -> list[Flag]:
        return [f for f in self.flags if f.dest == dest]

    def flag(self, dest: str) -> Flag | None:
        """The occurrence of dest that SGLang uses (the last), or None when it is absent.

        Unresolvable when an unknown splat after it (or anywhere, when it is
        absent) could set it again.
        """
        found = self.all(dest)
        last = found[-1] if found else None
        after = self.args.index(last.args[-1]) if last else -1
        if any(i > after for i in self._opaque):
            raise Unresolvable(f"{dest} may be set by an expansion")
        return last

    def value(self, dest: str) -> object:
        """The effective value of dest: the flag's, else SGLang's default."""
        flag = self.flag(dest)
        if flag is not None:
            return flag.value
        option = self.table.by_dest(dest)
        if option is None:
            raise Unresolvable(f"{dest} is not an option of SGLang {self.table.release}")
        return option.default

    def int_value(self, dest: str) -> int:
        value = self.value(dest)
        try:
            return int(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise Unresolvable(f"{dest}={value!r} is not an integer") from None

    @property
    def model(self) -> ModelInfo:
        if self._model is None:
            self._model = self._resolve_model()
        return self._model

    def _resolve_model(self) -> ModelInfo:
        try:
            if self.flag("json_model_override_args") is not None:
                return ModelInfo.unknown()
            flag = self.flag("model_path")
        except Unresolvable:
            return ModelInfo.unknown()
        path: object = None
        if flag is not None:
            try:
                path = flag.value
            except Unresolvable:
                return ModelInfo.unknown()
        elif self.form == "serve" and self.positionals:
            path = self.positionals[0].text
        if not isinstance(path, str):
            return ModelInfo.unknown()
        return resolve_model(path, self.model_lookup, self.release)  # type: ignore[arg-type]

    # -- edits ---------------------------------------------------------------

    def set_flag(self, dest: str, value: str | None, after: Flag) -> tuple[Edit, ...]:
        """Edits that make dest's effective value `value`: replace it, or add it after `after`."""
        existing = self.flag(dest)
        if existing is not None:
            return self.replace_value(existing, value) if value is not None else ()
        option = self.table.by_dest(dest)
        # Inserting next to a flag needs its place, not an editable value.
        if option is None or after.args[-1].container is None:
            return ()
        new = NewFlag(option, value, joined=self._prefers_joined())
        return after.name.container.insert_after(after.args, new)  # type: ignore[union-attr]

    def replace_value(self, flag: Flag, value: str) -> tuple[Edit, ...]:
        """Replace the value where it is written; nothing when that is not exact."""
        if not flag.editable or not SAFE_VALUE.match(value):
            return ()
        if flag.joined:
            arg, text = flag.name, flag.name.text or ""
            start = text.find("=") + 1
        elif len(flag.values) == 1:
            arg = flag.values[0]
            text, start = arg.text or "", 0
        else:
            return ()
        return arg.container.replace(arg, start, len(text), value)  # type: ignore[union-attr]

    def rename(self, flag: Flag, spelling: str) -> tuple[Edit, ...]:
        """Spell flag's name as `spelling` (a long option), keeping its value; nothing when not exact.

        Only what follows `--` is replaced, so a `--config` file's key (written
        without the dashes) is renamed in place too.
        """
        text = flag.name.text
        if not flag.name.editable or flag.name.container is None or text is None:
            return ()
        if not spelling.startswith("--") or not SAFE_VALUE.match(spelling) or not text.startswith("--"):
            return ()
        return flag.name.container.replace(flag.name, 2, len(flag.spelling), spelling[2:])

    def unjoin(self, flag: Flag, spelling: str) -> tuple[Edit, ...]:
        """Write a joined `--flag=value` as two tokens, `spelling value`; nothing when not exact."""
        text = flag.name.text
        if not flag.joined or flag.option is None or text is None or not flag.editable:
            return ()
        if not spelling.startswith("--") or not SAFE_VALUE.match(spelling):
            return ()
        keep = 2
        while keep < min(len(text), len(spelling)) and text[keep] == spelling[keep]:
            keep += 1
        head = flag.name.container.replace(flag.name, keep, len(text), spelling[keep:])  # type: ignore[union-attr]
        # The value as a token of its own, spelled by the container like any new token.
        word = NewFlag(replace(flag.option, flags=(text.split("=", 1)[1],), action="store_true", nargs=0), None, False)
        tail = flag.name.container.insert_after((flag.name,), word)  # type: ignore[union-attr]
        return head + tail if head and tail else ()

    def remove(self, flag: Flag) -> tuple[Edit, ...]:
        if not flag.editable:
            return ()
        return flag.name.container.remove(flag.args)  # type: ignore[union-attr]

    def remove_all(self, dest: str) -> tuple[Edit, ...]:
        """Remove every occurrence of dest; nothing when one of them cannot be edited."""
        edits: list[Edit] = []
        for flag in self.all(dest):
            removed = self.remove(flag)
            if not removed:
                return ()
            edits.extend(removed)
        return tuple(edits)

    def _prefers_joined(self) -> bool:
        valued = [f for f in self.flags if f.option is not None and f.option.takes_value]
        joined = sum(1 for f in valued if f.joined)
        return joined * 2 > len(valued)

    def iter_flags(self) -> Iterator[Flag]:
        return iter(self.flags)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
