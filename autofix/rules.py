"""Rules in the catalogue's shape: one SGLang check in a few lines.

A rule mirrors one check of SGLang's source: the condition, written as SGLang
writes it over `cfg.<dest>`, the catalogue errors it reports, where the
finding points, a message for a person, a fix made of steps, and an Example
SGLang refuses with a near miss it accepts::

    rule(
        code="SGL301",
        name="lmcache-with-hierarchical-cache",
        errors=("5d0c3a9e11f2",),
        when=lambda cfg: cfg.enable_lmcache and cfg.enable_hierarchical_cache,
        at="enable_lmcache",
        message="`--enable-lmcache` and `--enable-hierarchical-cache` cannot be used together",
        fix=remove("enable_lmcache"),
        example="--model-path Qwen/Qwen3-8B --enable-lmcache --enable-hierarchical-cache",
        near_miss="--model-path Qwen/Qwen3-8B --enable-lmcache",
    )

Three-valued by construction: reading a value autofix cannot know (a shell
variable, a flag an expansion may set) raises `Unresolvable`, and the rule
stays quiet. `known(x)` does the same for a value SGLang resolves itself
(None: chosen at start from the GPU or the model). `cfg.written("x")` says
whether the launch writes x, `cfg.has("x")` whether its release has the option,
`cfg.get("x", d)` x's value or d where the release has no x, `cfg.model` what
autofix knows of the model. The release range is where
the catalogue holds the errors; `--explain` text, the docs' Example and Use
instead sections, and the tests that SGLang judges come from these fields.

A fix is unsafe unless `safe=True`, which a rule may claim only where SGLang's
message or source names that fix; `fix=()` reports without one.
"""

from __future__ import annotations

import ast
import dis
import functools
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from autofix.edits import Edit, Fix
from autofix.fixer import Finding, Fixer, register
from autofix.knowledge import catalogue
from autofix.knowledge.releases import RELEASES
from autofix.knowledge.models import ModelInfo
from autofix.model import Flag, Launch, Unresolvable
from autofix.source import Span

__all__ = ["CatalogueRule", "known", "remove", "rule", "set_"]

Condition = Callable[["Config"], object]
Value = str | Callable[["Config"], str] | None


def known(value: object) -> object:
    """value, when SGLang will not resolve it itself; else the condition is unknown."""
    if value is None:
        raise Unresolvable("resolved by SGLang at start")
    return value


class Config:
    """What a condition reads: `cfg.<dest>` is SGLang's value of that argument,
    typed as its parser types it (the default when the flag is absent)."""

    __slots__ = ("_launch",)

    def __init__(self, launch: Launch):
        self._launch = launch

    def __getattr__(self, dest: str) -> object:
        launch = self._launch
        option = launch.table.by_dest(dest)
        if option is None:
            raise Unresolvable(f"{dest} is not an option of SGLang {launch.table.release}")
        flag = launch.flag(dest)
        if flag is None and dest == "model_path" and launch.form == "serve" and launch.positionals:
            model = launch.positionals[0].text  # `sglang serve MODEL` is `--model-path MODEL`
            if model is None:
                raise Unresolvable("model path not known")
            return model
        if flag is None:
            default = option.default
            return list(default) if isinstance(default, (list, tuple)) else default
        return _typed(flag, option.type)

    def written(self, dest: str) -> bool:
        """Whether the launch writes dest (not only SGLang's default)."""
        return self._launch.flag(dest) is not None

    def has(self, dest: str) -> bool:
        """Whether the launch's release has the option dest at all."""
        return self._launch.table.by_dest(dest) is not None

    def get(self, dest: str, absent: object = None) -> object:
        """cfg.<dest>, or `absent` in a release that has no such option (before it existed)."""
        return getattr(self, dest) if self.has(dest) else absent

    @property
    def model(self) -> ModelInfo:
        """What autofix knows of the served model (each fact None when unknown)."""
        return self._launch.model


# What a condition may call on its Config besides the dests.
_OWN = frozenset({"written", "has", "get", "model"})


def _typed(flag: Flag, kind: str | None) -> object:
    value = flag.value
    if isinstance(value, bool):
        return value
    convert = {"int": int, "float": float}.get(kind or "")
    words = list(value) if isinstance(value, tuple) else None
    try:
        if words is not None:
            return [convert(w) for w in words] if convert else words
        return convert(value) if convert else value
    except ValueError:
        raise Unresolvable(f"{flag.spelling} {value!r} is not a {kind}") from None


# -- fixes -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One change of a fix: remove a flag, or make its value `value`."""

    dest: str
    value: Value = None
    removes: bool = False

    def title(self, launch: Launch, cfg: Config) -> str:
        spelling = _spelling(launch, self.dest)
        if self.removes:
            return f"Remove `{spelling}`"
        value = self.resolve(cfg)
        return f"Set `{spelling}`" if value is None else f"Set `{spelling} {value}`"

    def resolve(self, cfg: Config) -> str | None:
        return self.value(cfg) if callable(self.value) else self.value

    def needed(self, launch: Launch) -> bool:
        """Whether the launch needs this step: a removal of a flag it does not write does not."""
        return not self.removes or bool(launch.all(self.dest))

    def edits(self, launch: Launch, cfg: Config, anchor: Flag | None) -> tuple[Edit, ...]:
        """The step's edits; empty when it cannot be spelled exactly."""
        if self.removes:
            return launch.remove_all(self.dest)
        if anchor is None:
            return ()
        return launch.set_flag(self.dest, self.resolve(cfg), after=anchor)


def remove(dest: str) -> Step:
    """Remove every occurrence of dest's flag."""
    return Step(dest, removes=True)


def set_(dest: str, value: Value = None) -> Step:
    """Make dest's value `value` (None: add the switch): replace it, or add the flag."""
    return Step(dest, value)


def _spelling(launch: Launch, dest: str) -> str:
    option = launch.table.by_dest(dest)
    return option.primary if option is not None else f"--{dest.replace('_', '-')}"


# -- the rule ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CatalogueRule:
    """A rule's fields, as written; `fixer` is what the registry holds."""

    code: str
    name: str
    errors: tuple[str, ...]
    when: Condition
    at: tuple[str, ...]
    message: str | Callable[[Config], str]
    fix: tuple[Step, ...]
    safe: bool
    example: str
    near_miss: str
    gpu: str | None
    note: str
    module: str

    @functools.cached_property
    def reads(self) -> frozenset[str]:
        """The dests the condition reads: from the rule index's facts (autofix.rule_index)."""
        from autofix.rule_index import reads

        return reads(self)

    def check(self, launch: Launch) -> Iterator[Finding]:
        written = launch.written_dests()
        if written is not None and not self.reads & written and not self._fires_on_defaults(launch):
            return  # nothing it reads is written, and SGLang's defaults pass it
        cfg = Config(launch)
        if not self.when(cfg):
            return
        anchor = self._anchor(launch)
        at = anchor.span if anchor is not None else launch.span
        text = self.message(cfg) if callable(self.message) else self.message.format_map(_Fields(cfg))
        yield Finding(at=at, message=text, fix=self._fix(launch, cfg, anchor))

    def _fires_on_defaults(self, launch: Launch) -> bool:
        """Whether the condition can hold with none of its flags written: known per table."""
        from autofix.rule_index import trips

        return trips(self, launch.table.release)

    def _anchor(self, launch: Launch) -> Flag | None:
        for dest in (*self.at, *sorted(self.reads)):
            flag = launch.flag(dest)
            if flag is not None:
                return flag
        return None

    def _fix(self, launch: Launch, cfg: Config, anchor: Flag | None) -> Fix | None:
        steps = [step for step in self.fix if step.needed(launch)]
        if not steps:
            return None
        title = "; ".join(step.title(launch, cfg) for step in steps)
        edits: list[Edit] = []
        for step in steps:
            found = step.edits(launch, cfg, anchor)
            if not found:
                return Fix.display(title)
            edits.extend(found)
        return (Fix.safe if self.safe else Fix.unsafe)(title, edits)

    @functools.cached_property
    def doc(self) -> str:
        from autofix.ruledocs import document

        return document(self)


class _Fields(dict):  # type: ignore[type-arg]
    """A message's `{dest}` fields, read from the launch."""

    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg

    def __missing__(self, key: str) -> object:
        return getattr(self.cfg, key)


@functools.cache
def _defaults_fire(rule_: CatalogueRule, release: str) -> bool:
    """Whether the condition holds, or cannot be known, for a launch that writes
    none of the flags it reads (SGLang's defaults of release)."""
    from autofix.knowledge.options import table

    bare = Launch.read([], table(release), Span(0, 0), "launch_server")
    try:
        return bool(rule_.when(Config(bare)))
    except Unresolvable:
        return True


def reads_of(when: Condition) -> frozenset[str]:
    """The attributes a condition reads from its argument (`cfg.x`, `cfg.written("x")`)."""
    names: set[str] = set()
    arg = when.__code__.co_varnames[0] if when.__code__.co_argcount else None
    for code in _codes(when.__code__):
        ops = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "PUSH_NULL", "NOP")]
        for k, this in enumerate(ops[:-1]):
            following = ops[k + 1]
            if this.opname not in ("LOAD_FAST", "LOAD_DEREF") or this.argval != arg or \
                    following.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                continue
            if following.argval not in _OWN:
                names.add(following.argval)
            elif following.argval == "written" and k + 2 < len(ops) and ops[k + 2].opname == "LOAD_CONST" \
                    and isinstance(ops[k + 2].argval, str):
                names.add(ops[k + 2].argval)  # cfg.written("x") reads x
    return frozenset(names)


def _codes(code: object) -> Iterator[object]:
    yield code
    for const in code.co_consts:  # type: ignore[attr-defined]
        if hasattr(const, "co_code"):
            yield from _codes(const)


def rule(
    *,
    code: str,
    name: str,
    errors: str | Sequence[str],
    when: Condition,
    message: str | Callable[[Config], str],
    example: str,
    near_miss: str,
    at: str | Sequence[str] = (),
    fix: Step | Sequence[Step] = (),
    safe: bool = False,
    gpu: str | None = None,
    note: str = "",
) -> CatalogueRule:
    """Register one catalogue rule; see the module docs."""
    ids = (errors,) if isinstance(errors, str) else tuple(errors)
    span = catalogue.first_and_last(ids)
    if span is None:
        raise ValueError(f"{code}: no catalogue of any release holds {', '.join(ids)}")
    caller = sys._getframe(1).f_globals.get("__name__", "")
    made = CatalogueRule(
        code=code, name=name, errors=ids, when=when,
        at=(at,) if isinstance(at, str) else tuple(at),
        message=message, fix=(fix,) if isinstance(fix, Step) else tuple(fix), safe=safe,
        example=example, near_miss=near_miss, gpu=gpu, note=note, module=caller,
    )
    patterns = catalogue.patterns(ids)
    register(Fixer(
        code=code, name=name, record=ids[0], pattern=patterns[0], releases=span, check=made.check,
        variants=patterns[1:], gpu=gpu is not None, errors=ids, rule=made,
    ))
    return made


def when_source(rule_: CatalogueRule) -> str:
    """The condition as written in the rule's module (for its docs)."""
    module = sys.modules[rule_.module]
    tree = ast.parse(inspect.getsource(module))
    text = inspect.getsource(module)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        named = keywords.get("code")
        if isinstance(named, ast.Constant) and named.value == rule_.code and "when" in keywords:
            when = keywords["when"]
            body = when.body if isinstance(when, ast.Lambda) else when
            return textwrap.dedent(ast.get_source_segment(text, body) or ast.unparse(body))
    return ""

