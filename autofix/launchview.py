"""`autofix --show-launches`: what autofix read in each file, exactly as the checks read it.

A user who gets no finding for a launch needs to see whether autofix read it
and how: its place, entry point and wrappers, the release and model it is
checked as, each flag as SGLang's parser reads it (dest and value, or why the
value is unknown), its pass-throughs and the `--config` file merged into it;
then the places that mention SGLang but were not read as a launch, and why.
Tests assert the reading through the same JSON. The launches come from
`pipeline.read_launches`, the path `fix_text` takes, with each file's own
settings (`analysis.Analyser.prepare`); nothing is read a second way.

JSON: an object `{"files": [...]}`, documented by docs/autofix-launches.schema.json.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from autofix.analysis import NOTHING, Analyser, Outcome, Prepared
from autofix.config import Resolver
from autofix.knowledge.models import ModelInfo
from autofix.mentions import unread_mentions
from autofix.model import Arg, Flag, Unresolvable
from autofix.pipeline import Read, Reading, read_launches
from autofix.source import Source, Span

__all__ = ["model_json", "show", "to_text"]

Notes = list[tuple[str, bool]]  # "path: what happened" for stderr, and whether it is an error


def show(targets: Sequence[Path], resolver: Resolver, force_exclude: bool = False) -> tuple[list[dict], Notes]:
    """The view of every file under targets that may hold a launch, in the walk's order; and the notes."""
    from autofix.files import ConfigIndex, display, may_be_config, real_path, walk

    notes: Notes = [(f"{t}: no such file or folder", True) for t in targets if not t.exists()]
    existing = [t for t in targets if t.exists()]
    roots = [t if t.is_dir() else t.parent for t in existing]
    folders = [t for t in existing if t.is_dir()]
    # A --config file is shown as read by the launch files that name it, as a check reads it (run.check_files).
    index = ConfigIndex([*roots, Path.cwd()], search=[Path.cwd()] if len(folders) < len(existing) else [])
    analyser = Analyser("check", resolver, roots)
    parsed: list[tuple[Path, bool]] = []  # each file to read, and whether it may be a --config file
    for candidate in walk(existing, resolver, force_exclude):
        if candidate.spec is None or candidate.skip is not None:
            notes.append((f"{candidate.path}: {candidate.skip or 'not a launch file autofix can read'} (skipped)", False))
            continue
        outcome, data = analyser.screen(candidate.path)
        if outcome is None:
            parsed.append((candidate.path, candidate.spec.name == "yaml" and may_be_config(data)))
            index.add(candidate.path, candidate.spec, data)
        elif outcome is not NOTHING:
            notes.extend(outcome.notes)
    files: list[dict] = []
    shown = {real_path(path) for path, _ in parsed}
    readers: list[Path] = []
    for path, config in parsed:
        read_by = index.referrers(path) if config else []
        readers += [r for r in read_by if r not in shown and r not in readers]
        files += _file(analyser, path, str(path), notes, [display(r) for r in read_by])
    for reader in readers:  # named for a config file they read, not walked: shown whole
        files += _file(analyser, reader, display(reader), notes, [])
    return files, notes


def _file(analyser: Analyser, path: Path, name: str, notes: Notes, read_by: list[str]) -> list[dict]:
    prepared = analyser.prepare(path, name)
    if isinstance(prepared, Outcome):
        notes.extend(prepared.notes)
        return []
    return [file_json(name, prepared, read_by)]


def file_json(name: str, prepared: Prepared, read_by: Sequence[str] = ()) -> dict:
    """One file's view. read_by: the files whose launches read this one as their `--config` file;
    its flags are shown in those launches, and it is no launch of its own (as the checks see it)."""
    source, error, reads = prepared.source, None, []
    reading: Reading | None = None
    try:
        reading = read_launches(source, prepared.spec, prepared.settings)
        reads = [] if read_by else reading.launches
    except SyntaxError as exc:
        error = f"cannot parse: {exc.msg}"
    except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the view
        error = f"internal error: {type(exc).__name__}: {exc}"
    checked = [r for r in reads if not r.prints_help]
    helps = [r.found.span for r in reads if r.prints_help]
    arguments = [min(arg.span.start for arg in r.found.args) for r in checked if r.found.args]
    mentions = unread_mentions(source, prepared.spec.name, [r.found.span for r in checked], arguments, helps)
    return {
        "path": name,
        "format": prepared.spec.name,
        "error": error,
        "read_by": list(read_by),
        "launches": [launch_json(reading, r) for r in checked] if reading else [],
        "mentions": [{**_at(source, m.span), "text": m.text, "cause": m.cause, "reason": m.reason,
                      "line_text": source.line_text(m.span.start).strip()} for m in mentions],
    }


def launch_json(reading: Reading, read: Read) -> dict:
    launch = read.launch
    return {
        **_place(reading, read.found.span)[0],
        "form": launch.form,
        "wrappers": list(launch.wrappers),
        "release": launch.release,
        "options": launch.table.release,
        "model": model_json(launch.model),
        "gpu": launch.gpu.name if launch.gpu is not None else None,
        "config": _config_json(reading, read),
        "flags": [_flag_json(reading, flag) for flag in launch.flags],
        "positionals": [_arg_json(reading, arg) for arg in launch.positionals],
        "passthroughs": [_arg_json(reading, arg) for arg in launch.passthroughs],
    }


def model_json(model: ModelInfo) -> dict[str, object]:
    """What autofix holds about the model a launch serves: its architecture, MLA, every fact of its
    config and where they came from (ModelInfo.describe; None: unknown)."""
    return model.describe()


def _plain(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list, frozenset, set)):
        return [_plain(v) for v in value]
    return str(value)


def _flag_json(reading: Reading, flag: Flag) -> dict:
    place, written = _place(reading, flag.span)
    value: object = None
    unresolvable = None
    try:
        value = _plain(flag.value)
    except Unresolvable as exc:
        unresolvable = str(exc)
    return {
        **place,
        "written": written,
        "spelling": flag.spelling,
        "option": flag.option.primary if flag.option is not None else None,
        "dest": flag.dest,
        "value": value,
        "unresolvable": unresolvable,
        "problem": flag.problem,
        "matches": list(flag.matches),
    }


def _arg_json(reading: Reading, arg: Arg) -> dict:
    place, written = _place(reading, arg.span)
    return {**place, "written": written, "text": arg.text}


def _config_json(reading: Reading, read: Read) -> dict | None:
    """The `--config FILE` of the launch and the file it read; None without one."""
    try:
        path = read.found.config_file()
    except Unresolvable as exc:
        at = next(a for a in read.found.args if a.text == "--config")
        return {**_place(reading, at.span)[0], "value": None, "file": None, "reason": str(exc)}
    if path is None:
        return None
    reason = None if read.config is not None else (
        "autofix cannot read it: not found beside the launch file or in the working directory, "
        "outside the files checked, or not a small UTF-8 file")
    return {**_place(reading, path.span)[0], "value": path.text, "file": read.config, "reason": reason}


def _place(reading: Reading, span: Span) -> tuple[dict, str]:
    """A span as 1-based positions (with `path` when it is in a --config file), and the text written there."""
    name, source, local = reading.locate(span)
    place = _at(source, local)
    if name is not None:
        place["path"] = name
    return place, source.text[local.start : local.end]


def _at(source: Source, span: Span) -> dict:
    (line, column), (end_line, end_column) = source.line_col(span.start), source.line_col(span.end)
    return {"line": line, "column": column, "end_line": end_line, "end_column": end_column}


# -- text --------------------------------------------------------------------------


def to_text(files: Sequence[dict]) -> str:
    """The view for a reader: `path:line:col:` lines, then what each launch was read as."""
    out: list[str] = []
    for entry in files:
        path = entry["path"]
        if entry["error"]:
            out.append(f"{path}: {entry['error']}")
        if entry["read_by"]:
            out.append(f"{path}: read as the --config file of {', '.join(entry['read_by'])} (its flags are shown there)")
        elif not entry["launches"] and not entry["mentions"] and not entry["error"]:
            out.append(f"{path}: no launch and no mention of one")
        for launch in entry["launches"]:
            out += _launch_text(path, launch)
        for m in entry["mentions"]:
            out.append(f"{path}:{m['line']}:{m['column']}: not read: `{m['text']}`: {m['reason']}")
            out.append(f"    {_one_line(m['line_text'])}")
    return "\n".join(out)


def _launch_text(path: str, launch: dict) -> list[str]:
    release = f"SGLang {launch['release']}" if launch["release"] else "release not pinned"
    if launch["options"] != launch["release"]:
        release += f" (options of SGLang {launch['options']})"
    out = [f"{path}:{launch['line']}:{launch['column']}: launch `{launch['form']}`, {release}"]
    if launch["wrappers"]:
        out.append(f"  wrappers: {' > '.join(launch['wrappers'])}")
    # The architecture and MLA always, the other facts where known.
    model = launch["model"]
    known = [(k, v) for k, v in model.items() if v is not None or k in ("architecture", "mla")]
    # The architectures list and v_head_dim only where they say more than architecture and head_dim.
    known = [(k, v) for k, v in known if k != "architectures" or v != [model["architecture"]]]
    known = [(k, v) for k, v in known if k != "v_head_dim" or v != model.get("head_dim")]
    out.append("  model: " + ", ".join(f"{k}={_value(v)}" for k, v in known))
    if launch["gpu"]:
        out.append(f"  gpu: {launch['gpu']}")
    config = launch["config"]
    if config is not None:
        read = f"read {config['file']}" if config["file"] else f"not read: {config['reason']}"
        out.append(f"  config: {_where(config)}  --config {config['value'] or ''}  ->  {read}")
    out.append("  flags:" if launch["flags"] else "  flags: none")
    rows = [(_where(flag), _one_line(flag["written"], 40), _reading(flag, launch["options"])) for flag in launch["flags"]]
    wide = [max((len(row[k]) for row in rows), default=0) for k in (0, 1)]
    out += [f"    {where:<{wide[0]}}  {written:<{wide[1]}}  {reading}" for where, written, reading in rows]
    for key, title in (("positionals", "positional"), ("passthroughs", "pass-through (may set any flag)")):
        for arg in launch[key]:
            out.append(f"  {title}: {_where(arg)}  {_one_line(arg['written'])}")
    return out


def _reading(flag: dict, release: str) -> str:
    if flag["problem"] == "ambiguous":
        return f"ambiguous: a prefix of {', '.join(flag['matches'])}"
    if flag["problem"] == "unknown":
        return f"unknown: not an option of SGLang {release}"
    if flag["unresolvable"] is not None:
        return f"{flag['dest']} = unknown ({flag['unresolvable']})"
    return f"{flag['dest']} = {_value(flag['value'])}"


def _where(item: dict) -> str:
    return f"{item['path']}:{item['line']}:{item['column']}" if "path" in item else f"{item['line']}:{item['column']}"


def _value(value: object) -> str:
    return json.dumps(value)


def _one_line(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
