"""read -> find launches -> run fixers -> splice -> re-check, to a fixpoint.

`fix_text` is the pure core: text in, text and findings out; it touches no file.

A launch may be split across files: `--config FILE` puts the YAML file's
flags first and the command line after them (SGLang's ConfigArgumentMerger).
`fix_text` does not read that file: the caller's `Settings.read_config` hands
it over. The checked text and the files its launches read are laid end to end
in one offset space (a `_Unit`), so a merged launch, its spans and the edits a
fixer asks for need nothing new; each edit is spliced into the file its
offset falls in, and what is reported is placed back in that file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from autofix.edits import Edit, Fix, choose, splice
from autofix.fixer import Finding, Fixer
from autofix.formats import FORMATS, FormatSpec, load
from autofix.gpuhints import gpu_in_text
from autofix.knowledge.gpus import Gpu, gpu_named
from autofix.knowledge.modelfacts import ModelFacts
from autofix.knowledge.options import OptionTable, table
from autofix.knowledge.releases import RELEASES, checked_as, parse_release, release_of
from autofix.model import Launch, Unresolvable
from autofix.passthrough import closed, conditional, on_written_flag
from autofix.rule_index import index_of
from autofix.source import Source, Span

__all__ = [
    "Linked", "LinkedResult", "Read", "Reading", "Reported", "Result", "Settings", "config_references", "fix_text",
    "read_launches", "release_in_text",
]

MAX_PASSES = 6
_HELP = frozenset({"-h", "--help"})

_SUPPRESS = re.compile(r"autofix:\s*ignore(?:\[([^\]]*)\])?")
# `sglang==0.5.18`, `sglang[all]==0.5.18.post1`, an image tag `sglang:v0.5.18rc1-rocm700-mi30x`.
_VERSION = r"v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)"
# A dev build (`0.0.0.dev11416+g92e8bb7`, `:v0.5.18-dev`) is no release.
_RELEASE_PINS = re.compile(rf"\bsglang(?:\[[^\]\s]*\])?\s*==\s*{_VERSION}(?!\.?[\w+])|\bsglang:{_VERSION}(?![\w.])")


@dataclass(frozen=True, slots=True)
class Linked:
    """A file a launch reads besides the checked one: the YAML of its `--config FILE`."""

    name: str  # the path the caller reports and writes
    source: Source


@dataclass(frozen=True, slots=True)
class Settings:
    fixers: Sequence[Fixer]
    release: str | None = None  # --sglang-version
    neighbour_release: str | None = None  # a pin in a file beside this one
    unsafe: bool = False
    model_lookup: Callable[[str], ModelFacts | None] | None = None  # a model path -> its config's facts
    # A `--config` value as written -> the file it names; None (or no callback): unreadable.
    read_config: Callable[[str], Linked | None] | None = None
    # Check only the launches that read this linked file (by name).
    only_config: str | None = None
    # --gpu or the configuration's; None: the GPU the checked text names (autofix.gpuhints), if any.
    # Fixers with gpu=True run only when the GPU is known.
    gpu: Gpu | None = None
    # AF100: report the suppression comments of the checked text that suppress nothing.
    unused_suppressions: bool = False
    # release is --sglang-version's: each finding the text's own release (configured_release,
    # the configuration's `sglang-version`, else the text's pin or a neighbour's) does not give
    # is marked as coming from the release change (Reported.upgrade).
    upgrading: bool = False
    configured_release: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.gpu, str):  # a name, as `--gpu` takes it
            gpu = gpu_named(self.gpu)
            if gpu is None:
                raise ValueError(f"unknown GPU {self.gpu!r}")
            object.__setattr__(self, "gpu", gpu)


@dataclass(frozen=True, slots=True)
class Reported:
    """A finding, placed in the text it was found in."""

    fixer: Fixer
    finding: Finding
    line: int
    column: int
    end_line: int
    end_column: int
    launch_line: int  # the line the launch starts on (in the checked file)
    fixed: bool = False
    path: str | None = None  # the linked file the finding is in; None: the checked file
    # Checked as --sglang-version's release, a finding the text's own release (its pin, a
    # neighbour's, or none known) does not give: what moving to that release brings.
    upgrade: bool = False

    @property
    def fix(self) -> Fix | None:
        return self.finding.fix


@dataclass(frozen=True, slots=True)
class LinkedResult:
    name: str
    source: Source
    text: str

    @property
    def changed(self) -> bool:
        return self.text != self.source.text


@dataclass(frozen=True, slots=True)
class Result:
    source: Source
    text: str  # the text after the fixes applied (the original when none were)
    findings: list[Reported]
    error: str | None = None  # an internal error: nothing is written
    linked: tuple[LinkedResult, ...] = ()  # the files the launches read, and their new texts
    # A pinned release newer than autofix knows, and the one it was checked as.
    newer: tuple[str, str] | None = None
    # A pinned release older than autofix knows: the text's launches were read, no rule of it holds.
    older: str | None = None

    @property
    def changed(self) -> bool:
        return self.text != self.source.text

    @property
    def remaining(self) -> list[Reported]:
        return [r for r in self.findings if not r.fixed]


def gpu_of(source: Source, settings: Settings) -> Gpu | None:
    """The GPU a text's launches run on: --gpu or the configuration's, else the one the text names."""
    return settings.gpu if settings.gpu is not None else gpu_in_text(source.text)


def release_in_text(text: str) -> str | None:
    """An SGLang release pinned in the text itself: `sglang==0.5.18`, `lmsysorg/sglang:v0.5.18-cu129`.

    A post release or a release candidate is its release (`release_of`): `v0.5.18.post1` pins 0.5.18.
    """
    found = {release_of(a or b) for a, b in _RELEASE_PINS.findall(text)}
    return found.pop() if len(found) == 1 else None


def fix_text(source: Source, fmt: FormatSpec, settings: Settings, fix: bool = False) -> Result:
    module = load(fmt)
    unit = _Unit(source, settings.read_config)
    fixed: list[Reported] = []
    own: set[tuple[str, str | None, str]] | None = None  # what the text's own release finds
    for round_ in range(MAX_PASSES):
        unit.lay_out()
        checked = _check(unit, module, settings)
        if round_ == 0:
            own = _own_release_findings(unit, module, settings)
        if own is not None:
            checked = [(_upgrade(r, own), f) for r, f in checked]
        fixes = [f for _, f in checked if f is not None and f.applies(settings.unsafe)]
        reported = [r for r, _ in checked]
        if not fix or not fixes:
            return unit.result(fixed + reported)
        chosen = choose(fixes)
        if not chosen:  # only fixes whose own edits overlap: none can apply, they are reported unfixed
            return unit.result(fixed + reported)
        broken = unit.apply([edit for f in chosen for edit in f.edits], module)
        applied = set(chosen)  # a finding whose fix equals a chosen one is fixed by it
        if broken:
            names = sorted({r.fixer.code for r, f in checked if f in applied})
            return Result(source, source.text, [], f"the fix of {', '.join(names)} would break {broken}")
        fixed += [replace(r, fixed=True) for r, f in checked if f in applied]
    names = sorted({r.fixer.code for r in fixed})
    return Result(source, source.text, [], f"fixes of {', '.join(names)} did not settle in {MAX_PASSES} passes")


class _Unit:
    """The checked text and the `--config` files its launches read, end to end in one offset space.

    The checked text starts at 0; each linked file starts one past the end of
    the one before, in the order the launches named them. Offsets are laid out
    again before every pass, from the texts as fixed so far.
    """

    def __init__(self, source: Source, read_config: Callable[[str], Linked | None] | None):
        self.source = source
        self.read_config = read_config
        self.texts: dict[str | None, str] = {None: source.text}  # None: the checked file
        self.linked: dict[str, Linked] = {}
        self.bases: dict[str | None, int] = {None: 0}
        self._named: dict[str, Linked | None] = {}
        self.newer: tuple[str, str] | None = None  # a pin newer than autofix knows, and what it is checked as
        self.older: str | None = None  # a pin older than autofix knows, where the text has launches
        self._current: dict[str | None, Source] = {}
        self._next = 0

    def lay_out(self) -> None:
        at = 0
        for name, text in self.texts.items():
            self.bases[name] = at
            at += len(text) + 1
        self._next = at

    def config(self, path: str) -> tuple[str, Source, int] | None:
        """The linked file a `--config` value names: its name, current text and base offset."""
        if path not in self._named:
            self._named[path] = self.read_config(path) if self.read_config is not None else None
        linked = self._named[path]
        if linked is None:
            return None
        name = linked.name
        if name not in self.linked:
            self.linked[name] = linked
            self.texts[name] = linked.source.text
            self.bases[name] = self._next
            self._next += len(linked.source.text) + 1
        return name, self.current(name), self.bases[name]

    def current(self, name: str | None) -> Source:
        text = self.texts[name]
        cached = self._current.get(name)
        if cached is None or cached.text is not text:  # one Source per text: its line index is built once
            source = self.source if name is None else self.linked[name].source
            cached = self._current[name] = source if source.text is text else source.with_text(text)
        return cached

    def locate(self, offset: int) -> tuple[str | None, int]:
        """The file an offset falls in, and the offset in that file."""
        found: str | None = None
        for name, base in self.bases.items():
            if base <= offset:
                found = name
        return found, offset - self.bases[found]

    def local(self, edit: Edit) -> Edit:
        name, start = self.locate(edit.span.start)
        return Edit(Span(start, start + edit.span.end - edit.span.start), edit.text, name)

    def apply(self, edits: Sequence[Edit], module) -> str | None:  # noqa: ANN001
        """Splice each file's edits into it; what they would break, if anything (nothing changes then)."""
        by_file: dict[str | None, list[Edit]] = {}
        for edit in edits:
            local = self.local(edit)
            by_file.setdefault(local.path, []).append(local)
        new: dict[str | None, str] = {}
        for name, file_edits in by_file.items():
            text = self.texts[name]
            new[name] = splice(text, file_edits)
            checker = module if name is None else load(FORMATS["yaml"])
            if checker.syntax_errors(new[name]) > checker.syntax_errors(text):
                return f"the syntax of {name}" if name else "the file's syntax"
        self.texts.update(new)
        return None

    def result(self, findings: list[Reported]) -> Result:
        linked = tuple(LinkedResult(name, file.source, self.texts[name]) for name, file in self.linked.items())
        return Result(self.source, self.texts[None], findings, linked=linked, newer=self.newer, older=self.older)


def config_references(source: Source, fmt: FormatSpec) -> list[str]:
    """The FILE of every `--config FILE` that SGLang reads in a text's launches."""
    module = load(fmt)
    release = release_in_text(source.text)
    found: list[str] = []
    for launch in module.find_launches(source, table(release)):
        try:
            path = launch.config_file()
        except Unresolvable:
            continue
        if path is not None and path.text not in found:
            found.append(path.text)  # type: ignore[arg-type]
    return found


def _with_config(launch: Launch, unit: _Unit, options: OptionTable) -> tuple[Launch, str | None]:
    """The launch merged with its --config file, and that file's name (None: no file read)."""
    try:
        path = launch.config_file()
    except Unresolvable:
        return launch.with_config(None), None
    if path is None:
        return launch, None
    found = unit.config(path.text)  # type: ignore[arg-type]
    if found is None:
        return launch.with_config(None), None
    name, source, base = found
    tokens = load(FORMATS["yaml"]).config_args(source, options, base)
    return launch.with_config(tokens), name


@dataclass(frozen=True, slots=True)
class Read:
    """One launch of a text, as the checks read it."""

    found: Launch  # as the format found it in the text
    launch: Launch  # merged with its --config file, on the run's GPU: what the fixers are given
    config: str | None  # the name of the --config file it read; None: none read

    @property
    def prints_help(self) -> bool:
        """`-h`/`--help`: argparse prints the help and exits; the launch is neither merged nor checked."""
        return any(arg.text in _HELP for arg in self.found.args)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the checks read in a text: the release it is checked as and its launches.

    Spans of a merged launch may fall in a --config file: `locate` names it.
    """

    release: str | None
    launches: list[Read]
    _unit: _Unit

    def locate(self, span: Span) -> tuple[str | None, Source, Span]:
        """The file a span falls in (None: the checked text), its text and the span in it."""
        name, start = self._unit.locate(span.start)
        return name, self._unit.current(name), Span(start, start + span.end - span.start)


def read_launches(source: Source, fmt: FormatSpec, settings: Settings) -> Reading:
    """The launches of a text exactly as `fix_text` hands them to the fixers (for --show-launches)."""
    unit = _Unit(source, settings.read_config)
    unit.lay_out()
    release, reads = _read(unit, load(fmt), settings)
    return Reading(release, reads, unit)


def _read(unit: _Unit, module, settings: Settings) -> tuple[str | None, list[Read]]:  # noqa: ANN001
    """The release the text is checked as, and its launches."""
    source = unit.current(None)
    release = release_of(settings.release or release_in_text(source.text) or settings.neighbour_release)
    if release is not None and checked_as(release) != release:
        unit.newer = (release, checked_as(release))
        release = checked_as(release)
    options = table(release)
    gpu = gpu_of(source, settings)
    reads: list[Read] = []
    for found in module.find_launches(source, options, release=release, model_lookup=settings.model_lookup):
        read = Read(found, found, None)
        if not read.prints_help:  # argparse prints the help and exits before anything is checked
            launch, config = _with_config(found, unit, options)
            launch.gpu = gpu
            read = Read(found, launch, config)
        reads.append(read)
    parsed = parse_release(release) if reads and release is not None else None
    if parsed is not None and parsed < parse_release(RELEASES[0]):  # type: ignore[operator]
        unit.older = release
    return release, reads


def _check(unit: _Unit, module, settings: Settings) -> list[tuple[Reported, Fix | None]]:  # noqa: ANN001
    source = unit.current(None)
    release, reads = _read(unit, module, settings)
    gpu = gpu_of(source, settings)
    checked: list[tuple[Reported, Fix | None]] = []
    seen: set[tuple[str, int, int, str | None]] = set()
    used: set[tuple[int, str | None]] = set()  # the suppressions that silenced a finding
    for read in reads:
        if read.prints_help or settings.only_config is not None and read.config != settings.only_config:
            continue
        launch = read.launch
        shut = closed(launch)
        for fx in index_of(settings.fixers).for_launch(launch):
            if not fx.holds_in(release) or fx.gpu and gpu is None:
                continue
            findings = _run(fx, launch)
            if shut is not None:
                known = {(f.at, f.message) for f in findings}
                findings += [conditional(f, launch, source.text) for f in _run(fx, shut)
                             if (f.at, f.message) not in known and on_written_flag(f, shut)]
            for finding in findings:
                # One finding per place: launches that share a bash array or a Python list
                # find a fault there once (its fix applies once), and launches reading one
                # config file find its faults once, whatever each says of them.
                linked = finding.at.start > len(source.text)
                key = (fx.code, finding.at.start, finding.at.end, None if linked else finding.message)
                if key in seen or _suppressed(unit, launch, finding, fx, used):
                    continue
                seen.add(key)
                checked.append((_place(unit, fx, finding, launch), finding.fix))
    if settings.unused_suppressions and settings.only_config is None:
        checked += _unused_suppressions(source, module, settings, release, used, gpu)
    checked.sort(key=lambda rf: (rf[0].path is not None, rf[0].path or "", rf[0].line, rf[0].column, rf[0].fixer.code))
    return checked


def _own_release_findings(unit: _Unit, module, settings: Settings) -> set[tuple[str, str | None, str]] | None:  # noqa: ANN001
    """With --sglang-version naming another release than the text's own (the configuration's, its
    pin, a neighbour's, or none known), what a check as its own release finds (code, file,
    message); else None.

    A finding of the --sglang-version check not among these comes from the release change."""
    forced = settings.release
    if not settings.upgrading or forced is None:
        return None
    own = settings.configured_release or release_in_text(unit.current(None).text) or settings.neighbour_release
    mine = release_of(own)
    if mine is not None and checked_as(mine) == checked_as(release_of(forced) or forced):
        return None
    newer, older = unit.newer, unit.older
    found = _check(unit, module, replace(settings, release=settings.configured_release, upgrading=False,
                                         unused_suppressions=False))
    unit.newer, unit.older = newer, older  # what the run reports is its own check's
    return {(r.fixer.code, r.path, r.finding.message) for r, _ in found}


def _upgrade(r: Reported, own: set[tuple[str, str | None, str]]) -> Reported:
    return r if (r.fixer.code, r.path, r.finding.message) in own else replace(r, upgrade=True)


def _run(fx: Fixer, launch: Launch) -> list[Finding]:
    try:
        return list(fx.check(launch))
    except Unresolvable:
        return []


def _place(unit: _Unit, fx: Fixer, finding: Finding, launch: Launch) -> Reported:
    """A finding in the file it points into, with its edits in theirs."""
    name, start = unit.locate(finding.at.start)
    where = unit.current(name)
    end = start + finding.at.end - finding.at.start
    line, column = where.line_col(start)
    end_line, end_column = where.line_col(end)
    fix = finding.fix
    if fix is not None:
        fix = Fix(fix.title, tuple(unit.local(e) for e in fix.edits), fix.applicability)
    local = Finding(Span(start, end), finding.message, fix)
    launch_line = unit.current(None).line_col(launch.span.start)[0]
    return Reported(fx, local, line, column, end_line, end_column, launch_line, path=name)


def _suppressed(unit: _Unit, launch: Launch, finding: Finding, fx: Fixer,
                used: set[tuple[int, str | None]] | None = None) -> bool:
    """An `autofix: ignore[...]` comment on the launch's line or the line before it, or the finding's.

    The comment that matched goes into used (for AF100), when it is in the checked text:
    (the offset of its `autofix:`, the word that matched, None for no codes).
    """
    for offset in sorted({launch.span.start, finding.at.start}):
        name, local = unit.locate(offset)
        source = unit.current(name)
        line = source.line_span(local)
        lines = [line]
        if line.start > 0:
            lines.append(source.line_span(line.start - 1))
        for span in lines:
            for match in _SUPPRESS.finditer(source.text, span.start, span.end):
                codes = match.group(1)
                word = None
                if codes is not None:
                    words = {w.strip() for w in codes.split(",")}
                    word = fx.code if fx.code in words else fx.name if fx.name in words else ""
                if word == "":
                    continue
                if used is not None and name is None:
                    used.add((match.start(), word))
                return True
    return False


def _unused_suppressions(source: Source, module, settings: Settings, release: str | None,  # noqa: ANN001
                         used: set[tuple[int, str | None]], gpu: Gpu | None) -> list[tuple[Reported, Fix | None]]:
    """AF100: the checked text's suppression comments that silenced nothing (see autofix.suppressions)."""
    from autofix.fixer import all_fixers
    from autofix.suppressions import UNUSED, unused

    ran = {fx.code for fx in settings.fixers if fx.holds_in(release) and not (fx.gpu and gpu is None)}
    known = {word: fx.code for fx in all_fixers() for word in (fx.code, fx.name)}
    out: list[tuple[Reported, Fix | None]] = []
    for finding in unused(source.text, used, ran, known, notebook=module.__name__.endswith(".notebook")):
        line, column = source.line_col(finding.at.start)
        end_line, end_column = source.line_col(finding.at.end)
        out.append((Reported(UNUSED, finding, line, column, end_line, end_column, line), finding.fix))
    return out
