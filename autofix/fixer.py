"""Fixer metadata, findings, the registry, and selection by code or slug."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from autofix.edits import Fix
from autofix.knowledge.releases import DEFAULT_RELEASE, Release, parse_release
from autofix.model import Flag, Launch
from autofix.source import Span

__all__ = ["Finding", "Fixer", "all_fixers", "fixer", "register", "select"]


@dataclass(frozen=True, slots=True)
class Finding:
    """What a check reports: where, what, and the fix it offers (if any)."""

    at: Span
    message: str
    fix: Fix | None = None

    @classmethod
    def on(cls, flag: Flag, message: str, fix: Fix | None = None) -> Finding:
        return cls(flag.span, message, fix)


Check = Callable[[Launch], Iterator[Finding]]


@dataclass(frozen=True, slots=True)
class Fixer:
    code: str
    name: str
    record: str
    pattern: str  # the record's messagePattern: how SGLang words the error
    releases: tuple[str, str]  # first and last SGLang release in which the record holds
    check: Check
    default: bool = True  # off by default: runs only when selected
    # How releases inside the range word the same error, where they differ from the record.
    variants: tuple[str, ...] = ()
    # Records SGLang may raise first on a launch this fixer reports (its checks run earlier).
    preceded_by: tuple[str, ...] = ()
    # The rule depends on the GPU: it runs only when one is named (--gpu, `gpu` in [tool.autofix]).
    gpu: bool = False
    # The catalogue errors it reports (knowledge/data/errors-*.json), where it names them itself.
    errors: tuple[str, ...] = ()
    # A rule in the catalogue's shape (autofix.rules.CatalogueRule): its fields make its docs.
    rule: object = None

    @property
    def patterns(self) -> tuple[str, ...]:
        return (self.pattern, *self.variants)

    @property
    def doc(self) -> str:
        if self.rule is not None:
            return self.rule.doc  # type: ignore[attr-defined]
        module = sys.modules[self.check.__module__]
        return (module.__doc__ or "").strip()

    @property
    def summary(self) -> str:
        return self.doc.split("\n", 1)[0].strip()

    def holds_in(self, release: str | None) -> bool:
        """Whether the record holds in release.

        None (the launch's release is unknown) means DEFAULT_RELEASE: a rule
        SGLang dropped before it, or added after it, needs a pin to run.
        """
        parsed = parse_release(release if release is not None else DEFAULT_RELEASE)
        if parsed is None:
            return False
        first, last = (parse_release(r) for r in self.releases)
        return first <= parsed <= last  # type: ignore[operator]

    def newest_release(self) -> Release:
        return parse_release(self.releases[1])  # type: ignore[return-value]

    def __reduce__(self) -> tuple[Callable[[str], Fixer], tuple[str]]:
        # A finding found in a worker process comes back naming its fixer by code,
        # and is the registry's own object again on arrival (compared by identity).
        return _by_code, (self.code,)


def _by_code(code: str) -> Fixer:
    if code in _REGISTRY:
        return _REGISTRY[code]
    from autofix.suppressions import UNUSED  # autofix's own check, no SGLang record

    if code == UNUSED.code:
        return UNUSED
    raise LookupError(f"no fixer {code}")


_REGISTRY: dict[str, Fixer] = {}
_NAMES: set[str] = set()  # the registered fixers' names: a check per registration, not a scan
# The registry sorted by code, and how many fixers it held then; None until every module is imported.
_SORTED: tuple[int, list[Fixer]] | None = None


def fixer(
    *,
    code: str,
    name: str,
    record: str,
    errors: tuple[str, ...] = (),
    pattern: str | None = None,
    releases: tuple[str, str] | None = None,
    default: bool = True,
    variants: tuple[str, ...] = (),
    preceded_by: tuple[str, ...] = (),
    gpu: bool = False,
) -> Callable[[Check], Check]:
    """Register a check function as a fixer of the catalogue errors it names.

    Its patterns and release range are those of its errors in the catalogue (the
    record, `knowledge/records/<record>.json`, is generated from the same). `pattern`
    narrows a generic message to the case this fixer reports (argparse's
    `unrecognized arguments: None`); `releases` narrows the range where the check
    itself holds in fewer releases. A warning SGLang prints, which the catalogue of
    errors does not hold, gives both and no errors."""
    from autofix.knowledge import catalogue

    found = catalogue.patterns(errors)
    span = catalogue.first_and_last(errors) if errors else None
    if errors and (span is None or len(found) == 0):
        raise ValueError(f"{code}: no catalogue of any release holds {', '.join(errors)}")
    if pattern is None and not found:
        raise ValueError(f"{code}: names no catalogue error and gives no pattern")
    patterns = (pattern, *variants) if pattern is not None else (*found, *variants)
    span = releases or span
    if span is None:
        raise ValueError(f"{code}: names no catalogue error and gives no releases")

    def register_check(check: Check) -> Check:
        register(Fixer(code, name, record, patterns[0], span, check, default, tuple(dict.fromkeys(patterns[1:])),
                       preceded_by, gpu, tuple(errors)))
        return check

    return register_check


def register(fx: Fixer) -> None:
    """Add a fixer to the registry; its code and name are its own."""
    if fx.code in _REGISTRY:
        raise ValueError(f"fixer code {fx.code} registered twice")
    if fx.name in _NAMES:
        raise ValueError(f"fixer name {fx.name} registered twice")
    _REGISTRY[fx.code] = fx
    _NAMES.add(fx.name)


def all_fixers() -> list[Fixer]:
    """Every fixer in autofix.fixers, by code.

    The package's modules are looked for once a process; a run asks a dozen times, and the
    listing of hundreds of rule modules each time would cost more than the check of a file.
    """
    global _SORTED
    if _SORTED is None or _SORTED[0] != len(_REGISTRY):
        _import_all()
        _SORTED = (len(_REGISTRY), sorted(_REGISTRY.values(), key=lambda f: f.code))
    return list(_SORTED[1])


_IMPORTED = False


def _import_all() -> None:
    global _IMPORTED
    if _IMPORTED:
        return
    import autofix.fixers as package

    for module in pkgutil.iter_modules(package.__path__):
        if module.name.startswith("_"):
            continue
        found = importlib.import_module(f"{package.__name__}.{module.name}")
        for inner in pkgutil.iter_modules(getattr(found, "__path__", ()) if module.ispkg else ()):
            if not inner.name.startswith("_"):  # fixers/catalogue/: modules of catalogue rules
                importlib.import_module(f"{found.__name__}.{inner.name}")
    _IMPORTED = True


def lookup(word: str) -> Fixer | None:
    for fx in all_fixers():
        if word in (fx.code, fx.name):
            return fx
    return None


def select(select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Fixer]:
    """ruff's selection: codes or slugs; a code prefix ('SGL0') selects a group; 'ALL' selects all."""
    fixers = all_fixers()
    select, ignore = list(select), list(ignore)

    def matches(fx: Fixer, words: list[str]) -> bool:
        return any(w == "ALL" or w == fx.name or fx.code.startswith(w) for w in words)

    chosen = [fx for fx in fixers if (matches(fx, select) if select else fx.default)]
    return [fx for fx in chosen if not matches(fx, ignore)]


def unknown_codes(words: Iterable[str]) -> list[str]:
    fixers = all_fixers()
    return [
        w for w in words if w != "ALL" and not any(w == fx.name or fx.code.startswith(w) for fx in fixers)
    ]
