"""A run of autofix over files or stdin: what it has seen, what it prints and writes, its exit code.

The command line (cli.py) reads the options and hands over a Run; this module
walks the paths, has each file checked (in this process or in workers, see
analysis.py and workers.py), prints the outcomes in the walk's order and does
every write.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import click

from autofix.config import Resolver
from autofix.knowledge.gpus import Gpu

__all__ = ["EXIT_CLEAN", "EXIT_ERROR", "EXIT_FINDINGS", "Run", "check_files", "check_stdin", "finish", "report_to"]

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass
class Run:
    """What one invocation has seen so far."""

    mode: str  # "check", "diff" or "fix"
    fmt: str
    remaining: int = 0
    fixed: int = 0
    fixed_files: int = 0
    diffs: int = 0
    errors: int = 0
    json_out: list[dict[str, object]] = field(default_factory=list)
    stdin: bool = False  # with --fix, stdout carries the fixed text: findings go to stderr
    # Findings in a --config file already reported (through another launch that reads it).
    linked_seen: set[tuple[str, int, int, str]] = field(default_factory=set)
    diffed: set[str] = field(default_factory=set)
    resolver: Resolver | None = None  # each file's configuration: the nearest one, or --config's
    force_exclude: bool = False  # exclude patterns apply to files named on the command line
    # What the output formats need: the fixers run (SARIF's rules), --color, counts for the summary.
    fixers: list = field(default_factory=list)
    unsafe: bool = False
    color: str = "auto"
    fixable: int = 0
    unsafe_fixable: int = 0
    finding_files: set[str] = field(default_factory=set)
    progress: object = None  # output.terminal.Progress during a walk
    gpu: Gpu | None = None  # --gpu, or `gpu` in [tool.autofix]
    jobs: int = 1  # worker processes for a large run (--jobs)
    cache: object = None  # autofix.cache.Store: the cache folder; None: --no-cache
    quiet: bool = False  # --quiet: the findings (or the diff) and errors, no summary, notes or progress
    statistics: object = None  # output.counts.Statistics with --statistics: counts printed instead of findings
    show_fixes: bool = False  # --show-fixes: list what --fix fixed, on stderr
    fixed_list: list = field(default_factory=list)  # (path, finding) fixed, for --show-fixes
    kept: list = field(default_factory=list)  # (path, finding) for a format printed whole at the end (junit)
    fingerprints: dict[str, int] = field(default_factory=dict)  # GitLab fingerprints given so far
    stdout: object = None  # the real stdout when --output-file takes the report: stdin's --fix text goes there
    upgrade_to: str | None = None  # --sglang-version
    upgrades: int = 0  # findings (fixed or not) the files' own release does not give: Reported.upgrade

    def first_time(self, r) -> bool:  # noqa: ANN001
        if r.path is None:
            return True
        key = (r.path, r.line, r.column, r.fixer.code)
        if key in self.linked_seen:
            return False
        self.linked_seen.add(key)
        return True

    def error(self, message: str) -> None:
        self.errors += 1
        _clear_progress(self)
        click.echo(f"autofix: {message}", err=True)


def check_files(run: Run, targets: list[Path]) -> None:
    """Check the files under targets (files or folders)."""
    from autofix.analysis import NOTHING, Analyser, Outcome
    from autofix.files import ConfigIndex, display, may_be_config, real_path, walk
    from autofix.workers import ordered_map

    for target in targets:
        if target.is_symlink() and not target.exists():  # a dangling link or a loop, named explicitly
            try:
                os.stat(target)
            except OSError as exc:
                run.error(f"{target}: cannot read: {exc.strerror or exc}")
        elif not target.exists():
            run.error(f"{target}: no such file or folder")
    existing = [t for t in targets if t.exists()]
    roots = [t if t.is_dir() else t.parent for t in existing]
    # The scripts that read a config file through `--config` are looked for among the files
    # checked, and for files named one by one (as pre-commit names them), in the working directory.
    folders = [t for t in existing if t.is_dir()]
    index = ConfigIndex([*roots, Path.cwd()], search=[Path.cwd()] if len(folders) < len(existing) else [])
    results = None
    if run.cache is not None and run.mode != "add-ignore":
        from autofix.resultcache import ResultCache

        results = ResultCache(run.cache)  # type: ignore[arg-type]
    checker = _Checker(run, Analyser(run.mode, run.resolver, roots, results))  # type: ignore[arg-type]
    # The walk, with the prefilter: a file that cannot hold a launch is done with one read and
    # one search. What the run keeps of each file is its path and one byte (memory stays flat as
    # trees grow); the few files with more to say have it in the dicts.
    paths: list[str] = []
    states = bytearray()
    said: dict[int, str | Outcome] = {}  # why a file is skipped, or what screening it said
    yamls: list[int] = []
    for number, candidate in enumerate(walk(existing, run.resolver, run.force_exclude, clean=run.mode == "fix")):
        paths.append(str(candidate.path))
        if candidate.note is not None:
            states.append(_FAILED if candidate.error else _NOTE)
            said[number] = candidate.note
        elif candidate.spec is None:
            states.append(_UNKNOWN)
        elif candidate.skip is not None:
            states.append(_SKIPPED)
            said[number] = candidate.skip
        else:
            outcome, data = checker.analyser.screen(candidate.path)
            if outcome is None:
                states.append(_PARSE)
                index.add(candidate.path, candidate.spec, data)
            elif outcome is NOTHING:
                states.append(_NOTHING)
            else:
                states.append(_SAID)
                said[number] = outcome
            if candidate.spec.name == "yaml" and may_be_config(data):
                yamls.append(number)
    readers: dict[int, list[Path]] = {}
    for number in yamls:
        found = index.referrers(Path(paths[number]))
        if found:  # a --config file is checked with the launches that read it, through their files
            readers[number] = found
    in_run = {real_path(Path(p)) for p, state in zip(paths, states) if state != _UNKNOWN} if readers else set()
    # The files left to parse are checked in worker processes when there are many; their outcomes
    # come back in the run's order, and this process prints them and writes.
    alone = [paths[n] for n, state in enumerate(states)
             if state == _PARSE and n not in readers and run.mode != "add-ignore"]
    # With a result cache, the files it holds are answered here: a lookup costs less than a worker's round
    # trip, and only the others go to workers. What a hit says is not kept (memory stays flat as trees
    # grow): a clean one is a byte, another is looked up again in its turn.
    hits = bytearray(len(alone))
    if checker.analyser.cache is not None:
        for i, name in enumerate(alone):
            kept = checker.analyser.kept(Path(name), name)
            if kept is not None:
                hits[i] = _HIT_CLEAN if kept is NOTHING else _HIT
    misses = [name for i, name in enumerate(alone) if not hits[i]]
    outcomes = ordered_map(lambda name: checker.analyser.file(Path(name), name, alone=True), misses, run.jobs,
                           on_failure=lambda name, reason: Outcome(((f"{name}: not checked: {reason}", True),),
                                                                   internal=True))
    turn = 0  # the position in alone of the next file left to parse
    from autofix.output.terminal import Progress

    run.progress = Progress(0 if run.quiet else len(paths))
    for number, (name, state) in enumerate(zip(paths, states)):
        run.progress.step(number, name)
        if state == _NOTE:
            if not run.quiet:
                _clear_progress(run)
                click.echo(f"autofix: {name}: {said[number]}", err=True)
        elif state == _FAILED:
            run.error(f"{name}: {said[number]}")
        elif state == _UNKNOWN:
            if not run.quiet:
                click.echo(f"autofix: {name}: not a launch file autofix can read (skipped)", err=True)
        elif state == _SKIPPED:
            _clear_progress(run)
            if not run.quiet:
                click.echo(f"autofix: {name}: {said[number]} (skipped)", err=True)
        elif number in readers:
            for reader in readers[number]:
                if reader not in in_run:
                    checker.check(reader, display(reader), only_config=display(Path(name)))
        elif state == _SAID:
            checker.finish(Path(name), name, said[number])
        elif state == _NOTHING:
            continue
        elif run.mode == "add-ignore":
            checker.check(Path(name), name)
        else:
            hit, turn = hits[turn], turn + 1
            if hit == _HIT_CLEAN:
                continue
            outcome = next(outcomes) if not hit else checker.analyser.kept(Path(name), name)
            if outcome is None:  # no longer held (changed since it was looked up): checked here
                outcome = checker.analyser.file(Path(name), name, alone=True)
            if outcome.in_turn:
                checker.check(Path(name), name)
            else:
                checker.finish(Path(name), name, outcome)


# What the walk of a run keeps of each file.
_UNKNOWN, _SKIPPED, _NOTHING, _SAID, _PARSE, _NOTE, _FAILED = range(7)
# What the result cache held for a file left to parse: nothing (0), a clean outcome, another one.
_HIT_CLEAN, _HIT = 1, 2


class _Checker:
    """Checks one file of a run in this process, or finishes a worker's check of it: prints and writes."""

    def __init__(self, run: Run, analyser):  # noqa: ANN001 - analysis.Analyser
        self.run = run
        self.analyser = analyser

    def check(self, path: Path, name: str, only_config: str | None = None) -> None:
        from autofix.analysis import Outcome

        prepared = self.analyser.prepare(path, name, only_config)
        if isinstance(prepared, Outcome):
            self.finish(path, name, prepared)
        elif self.run.mode == "add-ignore":
            counts = self.run.fixed, self.run.fixed_files
            result = _add_ignore(self.run, name, prepared.source, prepared.spec, prepared.settings)
            if result is not None and self.write(path, result):
                self.run.fixed, self.run.fixed_files = counts  # nothing was written
        else:
            self.finish(path, name, self.analyser.check(path, name, prepared))

    def finish(self, path: Path, name: str, outcome) -> None:  # noqa: ANN001 - analysis.Outcome
        """Report a file's outcome; with --fix, write first, and report as fixed only what was written."""
        result = outcome.result
        if result is not None and self.run.mode == "fix":
            failed = self.write(path, result)
            if failed:
                outcome = replace(outcome, result=_unwritten(result, failed))
        _report(self.run, name, outcome)

    def write(self, path: Path, result) -> set[str | None]:  # noqa: ANN001 - pipeline.Result
        """Write a result's changed files; the names of those not written (None: the checked file)."""
        from autofix.files import NotWritten, write_atomic

        run = self.run
        failed: set[str | None] = set()
        if result is None or run.mode not in ("fix", "add-ignore"):
            return failed
        written = [(None, path, result.source, result.text)] if result.changed else []
        written += [(f.name, Path(f.name), f.source, f.text) for f in result.linked if f.changed]
        for key, target, source, text in written:
            try:
                write_atomic(target, source.encode(text), expected=source.encode())
            except NotWritten as exc:
                failed.add(key)
                run.error(f"{target}: not written: {exc.reason}")
            except OSError as exc:
                failed.add(key)
                run.error(f"{target}: cannot write: {exc.strerror or exc}")
        return failed


def _unwritten(result, failed: set[str | None]):  # noqa: ANN001, ANN202 - pipeline.Result
    """result as it stands when the files in failed were not written: their fixes not applied."""
    from autofix.pipeline import LinkedResult

    def lost(r) -> bool:  # noqa: ANN001
        return r.fixed and (r.path in failed or any(e.path in failed for e in r.fix.edits))

    return replace(
        result,
        text=result.source.text if None in failed else result.text,
        linked=tuple(LinkedResult(f.name, f.source, f.source.text) if f.name in failed else f for f in result.linked),
        findings=[replace(r, fixed=False) if lost(r) else r for r in result.findings],
    )


def check_stdin(run: Run, name: str) -> None:
    """Check the text on stdin as a file named name; with --fix, write the fixed text to stdout."""
    from autofix.analysis import Outcome, check, decode
    from autofix.files import neighbour_release
    from autofix.formats import detect
    from autofix.modelconfigs import ModelLookup

    run.stdin = True
    data = sys.stdin.buffer.read()
    spec = detect(name, data[:128])
    if spec is None:
        run.error(f"{name}: cannot tell the file's kind; pass --stdin-filename with a known suffix")
        return
    folder = Path(name).parent.resolve()
    effective = run.resolver.effective(Path(name))  # type: ignore[union-attr]
    settings = effective.settings_for(Path(name), neighbour_release(folder),
                                      ModelLookup(folder, [Path.cwd()], fetch=effective.fetch_model_config))
    prepared = decode(name, data, spec, settings)
    if isinstance(prepared, Outcome):
        result = _report(run, name, prepared)
    elif run.mode == "add-ignore":
        result = _add_ignore(run, name, prepared.source, prepared.spec, prepared.settings)
    else:
        result = _report(run, name, check(run.mode, name, prepared))
    if run.mode in ("fix", "add-ignore"):
        out = run.stdout or sys.stdout
        out.buffer.write(result.source.encode(result.text) if result else data)  # type: ignore[attr-defined]
        out.buffer.flush()  # type: ignore[attr-defined]


def _add_ignore(run: Run, name, source, spec, settings):  # noqa: ANN001, ANN202
    """--add-ignore: a suppression comment before each launch with findings; the text to write."""
    from autofix.pipeline import Result, fix_text
    from autofix.suppressions import CODE, add_ignores

    def recheck(text: str) -> list:
        return [r for r in fix_text(source.with_text(text), spec, settings).remaining if r.fixer.code != CODE]

    try:
        findings = recheck(source.text)
        added = add_ignores(source.text, findings, spec.name, recheck)
    except SyntaxError as exc:
        run.error(f"{name}: cannot parse: {exc.msg}")
        return None
    run.fixed += added.added
    run.fixed_files += int(added.text != source.text)
    run.remaining += len(added.left)
    for r in added.left:
        click.echo(f"{r.path or name}:{r.line}:{r.column}: {r.fixer.code} [{r.fixer.name}] no `autofix: ignore` "
                   "comment can go before this launch (left as is)", err=run.stdin)
    return Result(source, added.text, [])


def _report(run: Run, name: str, outcome):  # noqa: ANN202, ANN001 - analysis.Outcome -> pipeline.Result | None
    """Print what checking one file gave, count it; the result, whose texts a --fix writes."""
    from autofix import report

    for message, error in outcome.notes:
        if error:
            run.error(message)
        elif not run.quiet:
            _clear_progress(run)
            click.echo(f"autofix: {message}", err=True)
    result = outcome.result
    if result is None:
        return None
    source = result.source
    findings = [r for r in result.findings if run.first_time(r)]
    run.upgrades += sum(r.upgrade for r in findings)
    remaining = [r for r in findings if not r.fixed]
    fixed = [r for r in findings if r.fixed]
    sources = {None: source, **{f.name: f.source for f in result.linked}}
    if run.mode == "diff":
        changed = [(name, source.text, result.text)] if result.changed else []
        changed += [(f.name, f.source.text, f.text) for f in result.linked if f.changed]
        for path, before, after in changed:
            if path in run.diffed:
                continue  # a --config file two launches read
            run.diffed.add(path)
            _clear_progress(run)
            colour = _colour(run, err=False)
            click.echo(_paint_diff(report.diff(path, before, after), colour), nl=False, color=colour)
            run.diffs += 1
        run.fixed += len(fixed)
        run.remaining += len(remaining)
        return result
    if run.mode == "fix":
        run.fixed += len(fixed)
        run.fixed_files += int(result.changed) + sum(f.changed for f in result.linked)
        if run.show_fixes:
            run.fixed_list.extend((r.path or name, r) for r in fixed)
        shown = remaining
    else:
        shown = findings
    run.remaining += len(remaining)
    _show(run, name, shown, fixed if run.mode == "fix" else [], sources)
    return result


def _show(run: Run, name: str, shown, fixed, sources) -> None:  # noqa: ANN001
    """Print one checked file's findings, or keep them for a format printed whole at the end."""
    if not shown and not fixed:
        return
    err = run.mode == "fix" and run.stdin
    _clear_progress(run)
    if run.statistics is not None:
        for r in shown:
            run.statistics.add(r, run.unsafe)  # type: ignore[attr-defined]
        return
    if run.fmt in ("json", "json-lines"):
        found = [_finding_json(name, r, sources) for r in [*shown, *fixed]]
        if run.fmt == "json":
            run.json_out.extend(found)
        for item in found if run.fmt == "json-lines" else ():
            click.echo(json.dumps(item), err=err)
    elif run.fmt == "sarif":
        from autofix.output import sarif

        for r in shown:
            if r.fixer not in run.fixers:  # a check of autofix's own that is no fixer (AF100)
                run.fixers.append(r.fixer)
            run.json_out.append(sarif.result(name, r, sources, run.fixers.index(r.fixer), Path.cwd()))
    elif run.fmt == "github":
        from autofix.output import github

        for r in shown:
            click.echo(github.annotation(r.path or name, r), err=err)
    elif run.fmt == "gitlab":
        from autofix.output import gitlab

        run.json_out.extend(gitlab.issue(r.path or name, r, Path.cwd(), run.fingerprints) for r in shown)
    elif run.fmt == "junit":
        run.kept.extend((r.path or name, r) for r in shown)
    else:
        from autofix.output import terminal

        style = terminal.Style(_colour(run, err))
        for path, r in terminal.group_by_file([(r.path or name, r) for r in shown]):
            click.echo(terminal.finding_block(path, r, sources[r.path], style, run.unsafe), err=err, color=style.colour)
            run.finding_files.add(path)
            if r.fix is not None and r.fix.applies(run.unsafe):
                run.fixable += 1
            elif r.fix is not None and r.fix.applies(True):
                run.unsafe_fixable += 1


def _colour(run: Run, err: bool) -> bool:
    from autofix.output.terminal import use_colour

    return use_colour(run.color, sys.stderr if err else sys.stdout)


def _paint_diff(text: str, colour: bool) -> str:
    if not colour:
        return text
    from autofix.output.terminal import Style, colour_diff

    return colour_diff(text, Style(True))


def _clear_progress(run: Run) -> None:
    if run.progress is not None:
        run.progress.clear()  # type: ignore[attr-defined]


def _finding_json(name: str, r, sources) -> dict[str, object]:  # noqa: ANN001
    """A finding as JSON; an edit in another file than the finding's names its path."""
    from autofix import report

    out = report.finding_json(r.path or name, r, sources[r.path])
    fix = out["fix"]
    if isinstance(fix, dict):
        for entry, edit in zip(fix["edits"], r.fix.edits):
            if edit.path != r.path:
                where = sources[edit.path]
                (line, column), (end_line, end_column) = where.line_col(edit.span.start), where.line_col(edit.span.end)
                entry.update(path=edit.path or name, start={"line": line, "column": column},
                             end={"line": end_line, "column": end_column})
    return out


def finish(run: Run) -> int:
    """Print what is printed once at the end; the exit code."""
    _clear_progress(run)
    if run.statistics is not None and run.mode != "diff":
        stats = run.statistics.json() if run.fmt == "json" else run.statistics.text()  # type: ignore[attr-defined]
        if stats:
            click.echo(stats, err=run.mode == "fix" and run.stdin)
    elif run.fmt == "json" and run.mode != "diff":
        out = json.dumps(run.json_out, indent=2)
        click.echo(out, err=run.mode == "fix" and run.stdin)
    elif run.fmt == "sarif" and run.mode != "diff":
        from autofix.output import sarif

        click.echo(sarif.log(run.fixers, run.json_out, Path.cwd()), err=run.mode == "fix" and run.stdin)
    elif run.fmt == "gitlab" and run.mode != "diff":
        from autofix.output import gitlab

        click.echo(gitlab.report(run.json_out), err=run.mode == "fix" and run.stdin)
    elif run.fmt == "junit" and run.mode != "diff":
        from autofix.output import junit

        click.echo(junit.report(run.kept), err=run.mode == "fix" and run.stdin)
    if run.show_fixes and run.mode == "fix" and run.fixed_list:
        from autofix.output.counts import fixes_text

        click.echo(fixes_text(run.fixed_list), err=True)
    if run.quiet or (run.mode != "diff" and run.fmt in ("json", "sarif", "gitlab", "junit")):
        pass  # a machine format printed whole says it all
    elif run.mode == "diff":
        if run.diffs or run.remaining:
            click.echo(
                f"{run.fixed} fixable finding(s) in {run.diffs} file(s); {run.remaining} without an applicable fix",
                err=True,
            )
    elif run.mode == "fix":
        click.echo(f"Fixed {run.fixed} finding(s) in {run.fixed_files} file(s); {run.remaining} remaining.", err=True)
    elif run.mode == "add-ignore":
        click.echo(f"Added {run.fixed} suppression comment(s) in {run.fixed_files} file(s); "
                   f"{run.remaining} finding(s) left.", err=True)
    elif run.remaining and run.fmt == "text" and run.statistics is None:
        from autofix.output.terminal import Style, summary

        colour = _colour(run, err=False)
        click.echo(summary(run.remaining, len(run.finding_files), run.fixable, run.unsafe_fixable, Style(colour)),
                   color=colour)
    if run.upgrades and not run.quiet and run.mode != "add-ignore" and (
            run.mode == "diff" or run.fmt == "text" and run.statistics is None):
        click.echo(f"{run.upgrades} of them come from the move to SGLang {run.upgrade_to}: the release "
                   "each file is written for (pinned, configured, or not known) does not give them.", err=True)
    if run.errors:
        return EXIT_ERROR
    if run.mode == "diff":
        return EXIT_FINDINGS if run.diffs else EXIT_CLEAN
    return EXIT_FINDINGS if run.remaining else EXIT_CLEAN


@contextlib.contextmanager
def report_to(path: Path | None) -> Iterator[None]:
    """--output-file: what the run prints on stdout goes to path, written once the run ends."""
    if path is None:
        yield
        return
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        yield
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue().encode())
