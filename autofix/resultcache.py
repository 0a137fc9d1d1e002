"""The result cache: what checking a file gave, kept so that an unchanged file is not parsed again.

An entry's key is a digest of everything its check is a function of, besides autofix itself
(the build, which names the folder: autofix.cache):

- the file's bytes, its name as printed, its absolute path and its format;
- the working directory, and the folders the run reads model and `--config` files inside;
- the settings that apply to it: the fixers selected for it (after per-file-ignores), the
  release (`--sglang-version`, the configuration's, the pin beside the file), unsafe fixes,
  the GPU, AF100, the `--config` file it is checked for, and where model configs come from
  (`--fetch-model-config`, the Hugging Face cache folder, endpoint and offline switch).

What a check reads besides its file (the `--config FILE` of a launch, a model's config.json
through the model lookup) is not known before the file is parsed, so it is not in the key: the
entry lists each `--config` value and model path the check asked for with a digest of what it
got (the file's name and text; the model facts read from its config.json), and a hit asks each
again and is used only when every answer digests the same. A changed, added or removed
`--config` file or config.json is a miss.

Only what a check without fixes gives is kept. `--diff` and `--fix` use an entry when it holds
no finding whose fix they would apply (their result is then the check's); otherwise they check
the file, and keep what they found when they changed nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from autofix.cache import Store, digest
from autofix.edits import Applicability, Edit, Fix
from autofix.fixer import Finding
from autofix.pipeline import Linked, LinkedResult, Reported, Result, Settings
from autofix.source import Source, Span

__all__ = ["Lookups", "ResultCache"]

SCHEMA = "results-2"


class _Recorded:
    """A lookup (a --config value -> the file, a model path -> its facts) that notes each answer's digest."""

    def __init__(self, lookup: Callable[[str], object], fingerprint: Callable[[object], str]):
        self.lookup = lookup
        self.fingerprint = fingerprint
        self.answers: dict[str, str] = {}

    def __call__(self, value: str) -> object:
        found = self.lookup(value)
        self.answers[value] = self.fingerprint(found)
        return found


def _linked_digest(found: object) -> str:
    if found is None:
        return "-"
    linked: Linked = found  # type: ignore[assignment]
    return digest(linked.name, linked.source.text, linked.source.encoding, str(linked.source.bom))


def _facts_digest(found: object) -> str:
    return "-" if found is None else digest(repr(found))


@dataclass
class Lookups:
    """The settings of one check with its lookups recorded."""

    settings: Settings
    configs: _Recorded | None
    models: _Recorded | None

    @classmethod
    def around(cls, settings: Settings) -> Lookups:
        configs = _Recorded(settings.read_config, _linked_digest) if settings.read_config is not None else None
        models = _Recorded(settings.model_lookup, _facts_digest) if settings.model_lookup is not None else None
        return cls(replace(settings, read_config=configs, model_lookup=models), configs, models)

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"config": dict(self.configs.answers) if self.configs else {},
                "model": dict(self.models.answers) if self.models else {}}


class ResultCache:
    """The results part of one cache folder."""

    def __init__(self, store: Store):
        self.store = store
        self._codes: dict[int, tuple[object, str]] = {}  # id of a selection -> (it, its codes)

    def key(self, data: bytes, name: str, path: Path, fmt: str, settings: Settings, where: str) -> str:
        """where: what the run adds (the roots, model config sources), as text."""
        gpu = settings.gpu
        return digest(
            SCHEMA, data, name, os.path.abspath(path), fmt, os.getcwd(), where, self._selection(settings.fixers),
            repr((settings.release, settings.neighbour_release, settings.unsafe, settings.only_config,
                  settings.unused_suppressions, repr(gpu) if gpu is not None else None)),
        )

    def _selection(self, fixers) -> str:  # noqa: ANN001
        held = self._codes.get(id(fixers))
        if held is None or held[0] is not fixers:
            if len(self._codes) >= 8:  # per-file-ignores make a selection per file: memory stays flat
                self._codes.clear()
            held = self._codes[id(fixers)] = (fixers, ",".join(fx.code for fx in fixers))
        return held[1]

    @staticmethod
    def _entry(key: str) -> str:
        return f"results/{key[:2]}/{key}.json"

    def get(self, key: str, source: Source, settings: Settings):  # noqa: ANN205 - analysis.Outcome | None
        """The outcome kept under key, when every file it read reads the same again; else None."""
        from autofix.analysis import NOTHING, Outcome

        entry = self.store.read(self._entry(key))
        if not isinstance(entry, dict) or entry.get("schema") != SCHEMA:
            return None
        try:
            linked = self._still(entry["deps"], settings)
            if linked is None:
                return None
            notes = tuple((str(message), bool(error)) for message, error in entry["notes"])
            held = entry["result"]
            if held is None:
                return Outcome(notes) if notes else NOTHING
            return Outcome(notes, result=_result(held, source, linked))
        except (KeyError, TypeError, ValueError, LookupError, AttributeError):
            return None  # an entry of another shape, or naming a fixer no longer registered

    @staticmethod
    def _still(deps: dict, settings: Settings) -> dict[str, Linked] | None:
        """The linked files by name when each lookup the entry lists answers as it did; else None."""
        linked: dict[str, Linked] = {}
        for value, was in deps["config"].items():
            found = settings.read_config(value) if settings.read_config is not None else None
            if _linked_digest(found) != was:
                return None
            if found is not None:
                linked[found.name] = found
        for value, was in deps["model"].items():
            found = settings.model_lookup(value) if settings.model_lookup is not None else None
            if _facts_digest(found) != was:
                return None
        return linked

    def put(self, key: str, outcome, lookups: Lookups) -> bool:  # noqa: ANN001 - analysis.Outcome
        """Keep outcome under key, when it is what a check without fixes gives; whether it was kept."""
        result = outcome.result
        if outcome.internal or outcome.in_turn:
            return False
        if result is not None and (result.error is not None or result.changed or any(f.changed for f in result.linked)
                                   or any(r.fixed for r in result.findings)):
            return False
        entry = {
            "schema": SCHEMA,
            "deps": lookups.to_json(),
            "notes": [list(note) for note in outcome.notes],
            "result": None if result is None else {
                "findings": [_reported_json(r) for r in result.findings],
                "linked": [f.name for f in result.linked],
                "newer": list(result.newer) if result.newer is not None else None,
                "older": result.older,
            },
        }
        return self.store.write(self._entry(key), entry)


def settled(outcome, unsafe: bool) -> bool:  # noqa: ANN001 - analysis.Outcome
    """Whether no finding of outcome has a fix that --fix (with unsafe, if so) would apply."""
    result = outcome.result
    return result is None or not any(r.fix is not None and r.fix.applies(unsafe) for r in result.findings)


def _reported_json(r: Reported) -> list[object]:
    fix = r.finding.fix
    return [
        r.fixer.code, r.finding.at.start, r.finding.at.end, r.finding.message,
        None if fix is None else [fix.title, fix.applicability.value,
                                  [[e.span.start, e.span.end, e.text, e.path] for e in fix.edits]],
        r.line, r.column, r.end_line, r.end_column, r.launch_line, r.path, r.upgrade,
    ]


def _reported(held: list) -> Reported:
    from autofix.fixer import _by_code

    code, start, end, message, fix, line, column, end_line, end_column, launch_line, path, upgrade = held
    made = None
    if fix is not None:
        title, applicability, edits = fix
        made = Fix(str(title), tuple(Edit(Span(int(a), int(b)), str(text), path_ if path_ is None else str(path_))
                                     for a, b, text, path_ in edits), Applicability(applicability))
    finding = Finding(Span(int(start), int(end)), str(message), made)
    return Reported(_by_code(str(code)), finding, int(line), int(column), int(end_line), int(end_column),
                    int(launch_line), path=None if path is None else str(path), upgrade=bool(upgrade))


def _result(held: dict, source: Source, linked: dict[str, Linked]) -> Result:
    files = tuple(LinkedResult(name, linked[name].source, linked[name].source.text) for name in held["linked"])
    newer = held["newer"]
    return Result(source, source.text, [_reported(r) for r in held["findings"]], linked=files,
                  newer=None if newer is None else (str(newer[0]), str(newer[1])), older=held.get("older"))
