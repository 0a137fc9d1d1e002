"""One file's check, with nothing printed or written: what the run shows and writes comes back as an Outcome.

It runs in the run's own process or in a worker (autofix.workers), so it only
reads: the file, the files beside it, and the configuration the run resolved.
The command line prints outcomes in the run's order and does every write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autofix.config import Resolver
from autofix.formats import FormatSpec
from autofix.knowledge.releases import RELEASES
from autofix.modelconfigs import ModelLookup, ModelSources
from autofix.pipeline import Result, Settings, fix_text
from autofix.source import DecodeError, Source

__all__ = ["NOTHING", "Analyser", "Outcome", "Prepared", "check"]


@dataclass(frozen=True, slots=True)
class Outcome:
    notes: tuple[tuple[str, bool], ...] = ()  # "path: what happened" for stderr, and whether it is an error
    result: Result | None = None  # None: nothing found and nothing to change
    in_turn: bool = False  # the run checks this file itself, in its turn: it reads a `--config` file
    internal: bool = False  # an internal error: never kept in the result cache


NOTHING = Outcome()


@dataclass(frozen=True, slots=True)
class Prepared:
    """A file worth parsing, decoded, with the settings it is checked with."""

    source: Source
    spec: FormatSpec
    settings: Settings
    data: bytes = b""  # the bytes read (the result cache's key)
    where: str = ""  # what the run's lookups depend on besides the settings (the result cache's key)


class Analyser:
    """Reads and checks the files of one run, each with its own configuration."""

    def __init__(self, mode: str, resolver: Resolver, roots: list[Path], cache=None):  # noqa: ANN001
        self.mode = mode
        self.cache = cache  # autofix.resultcache.ResultCache; None: every file is checked
        self.resolver = resolver
        self.roots = list(dict.fromkeys(roots))  # a run naming many files in one folder names it once
        self.releases: dict[str, str | None] = {}  # a folder's neighbour release, looked up once
        self.models = ModelSources()  # each model config read once a run

    def screen(self, path: Path) -> tuple[Outcome | None, bytes]:
        """The prefilter, in the run's process: one read and one search per file.

        An outcome when the file needs no parse (nothing to check, or a note), else None;
        and the bytes read (empty when none were).
        """
        outcome, data, _ = _read(path)
        return outcome, data

    def file(self, path: Path, name: str, only_config: str | None = None, alone: bool = False) -> Outcome:
        """The outcome of checking path. alone: in a worker, where a file that may read a
        `--config` file (another file a fix may write) is left to the run, in its turn."""
        prepared = self.prepare(path, name, only_config, alone)
        return prepared if isinstance(prepared, Outcome) else self.check(path, name, prepared)

    def check(self, path: Path, name: str, prepared: Prepared) -> Outcome:
        """check(), through the result cache when the run has one (autofix.resultcache)."""
        if self.cache is None:
            return check(self.mode, name, prepared)
        from autofix.resultcache import Lookups

        key, kept = self._kept(path, name, prepared)
        if kept is not None:
            return kept
        lookups = Lookups.around(prepared.settings)
        outcome = check(self.mode, name, Prepared(prepared.source, prepared.spec, lookups.settings))
        self.cache.put(key, outcome, lookups)
        return outcome

    def kept(self, path: Path, name: str) -> Outcome | None:
        """What the result cache holds for path that this run may use (as `file(..., alone=True)`
        would give it), or an outcome that needs no check; None: the file must be checked."""
        prepared = self.prepare(path, name, alone=True)
        if isinstance(prepared, Outcome) or self.cache is None:
            return prepared if isinstance(prepared, Outcome) else None
        return self._kept(path, name, prepared)[1]

    def _kept(self, path: Path, name: str, prepared: Prepared) -> tuple[str, Outcome | None]:
        """The file's key in the result cache, and the outcome it holds when the run may use it:
        --diff and --fix only one without a finding whose fix they would apply."""
        from autofix.resultcache import settled

        key = self.cache.key(prepared.data, name, path, prepared.spec.name, prepared.settings, prepared.where)
        kept = self.cache.get(key, prepared.source, prepared.settings)
        if kept is not None and (self.mode == "check" or settled(kept, prepared.settings.unsafe)):
            return key, kept
        return key, None

    def prepare(self, path: Path, name: str, only_config: str | None = None,
                alone: bool = False) -> Prepared | Outcome:
        from autofix.files import ConfigReader, neighbour_release

        outcome, data, spec = _read(path)
        if outcome is not None or spec is None:
            return outcome or NOTHING
        if alone and b"--config" in data:
            return Outcome(in_turn=True)
        folder = path.parent.resolve()
        if str(folder) not in self.releases:
            self.releases[str(folder)] = neighbour_release(folder)
        effective = self.resolver.effective(path)  # the nearest configuration's, or --config's
        lookup = ModelLookup(folder, self.roots, self.models, effective.fetch_model_config)
        reader = ConfigReader(folder, self.roots)
        settings = effective.settings_for(path, self.releases[str(folder)], lookup, reader, only_config)
        prepared = decode(name, data, spec, settings)
        if self.cache is None or isinstance(prepared, Outcome):
            return prepared
        # Where the lookups look, besides the settings: the result cache's key.
        where = repr((str(folder), [str(r) for r in lookup.roots], [str(r) for r in reader.roots], lookup.fetch,
                      str(self.models.cache), self.models.endpoint, self.models.offline))
        return Prepared(prepared.source, prepared.spec, prepared.settings, data, where)


def _read(path: Path) -> tuple[Outcome | None, bytes, FormatSpec | None]:
    """A file's bytes and format, or the outcome that ends its check here: a note, an error,
    or NOTHING when the prefilter finds nothing a launch needs."""
    from autofix.files import NotRegularFile, read_identified, remember
    from autofix.formats import detect

    try:
        data, identity = read_identified(path)
    except NotRegularFile:
        return Outcome(((f"{path}: not a regular file (skipped)", False),)), b"", None
    except OSError as exc:
        return Outcome(((f"{path}: cannot read: {exc.strerror or exc}", True),)), b"", None
    spec = detect(path.name, data[:128])
    if spec is None or not spec.worth_parsing(data):
        return NOTHING, data, None
    remember(path, identity)  # a file a fix may write
    return None, data, spec


def decode(name: str, data: bytes, spec: FormatSpec, settings: Settings) -> Prepared | Outcome:
    try:
        return Prepared(Source.decode(data), spec, settings)
    except DecodeError as exc:
        return Outcome(((f"{name}: cannot decode: {exc}", True),))


def check(mode: str, name: str, prepared: Prepared) -> Outcome:
    """Find (and with --diff/--fix, fix) what the launches in a prepared file hold."""
    from autofix.limits import too_deep

    try:
        if too_deep(prepared.source.text, prepared.spec.name):
            return Outcome(((f"{name}: not checked: nested too deeply", True),))
    except RecursionError:
        return Outcome(((f"{name}: not checked: nested too deeply", True),))
    try:
        result = fix_text(prepared.source, prepared.spec, prepared.settings, fix=mode != "check")
    except SyntaxError as exc:
        return Outcome(((f"{name}: cannot parse: {exc.msg}", True),))
    except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
        return Outcome(((f"{name}: internal error: {type(exc).__name__}: {exc}", True),), internal=True)
    if result.error is not None:
        return Outcome(((f"{name}: internal error: {result.error}; file left unchanged", True),), internal=True)
    notes: tuple[tuple[str, bool], ...] = ()
    if result.newer is not None:
        pinned, used = result.newer
        notes = ((f"{name}: warning: SGLang {pinned} is newer than autofix knows; checked as {used}", False),)
    if result.older is not None:
        notes = ((f"{name}: warning: SGLang {result.older} is older than autofix knows ({RELEASES[0]} to "
                  f"{RELEASES[-1]}): its launches were read but not checked", False),)
    if not result.findings and not result.changed and not any(f.changed for f in result.linked):
        return Outcome(notes) if notes else NOTHING
    return Outcome(notes, result=result)
