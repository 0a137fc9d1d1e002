"""The command line: the only place that reads argv and stdin, prints, and picks exit codes.

Exit codes: 0 no finding remains; 1 findings remain (with --diff: a diff was
printed); 2 usage error, unreadable or unparsable file, internal error.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from autofix import fixer as registry
from autofix.config import ConfigError, Overrides, Resolver
from autofix.knowledge.gpus import GPUS, Gpu, gpu_named
from autofix.knowledge.releases import parse_release
from autofix.suppressions import fixer_words

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


def _codes(values: tuple[str, ...]) -> list[str]:
    return [w.strip() for v in values for w in v.split(",") if w.strip()]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--diff", "diff_mode", is_flag=True, help="Print the unified diff that --fix would apply; write nothing.")
@click.option("--fix", "fix_mode", is_flag=True, help="Apply fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes marked unsafe.")
@click.option("--select", multiple=True, help="Comma-separated codes or slugs to run (default: all default fixers).")
@click.option("--ignore", multiple=True, help="Comma-separated codes or slugs to skip.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "json-lines", "sarif", "github"]), default="text",
              show_default=True, help="How findings are printed (json schema: docs/autofix-json.schema.json).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour text and diffs; auto: on a terminal, unless NO_COLOR is set (FORCE_COLOR forces it).")
@click.option("--sglang-version", help="The SGLang release the launches run on (default: detected).")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Use this autofix configuration (pyproject.toml or .autofix.toml) for every file instead of "
              "each file's nearest one (unrelated to SGLang's --config).")
@click.option("--extend-select", multiple=True, help="Comma-separated codes or slugs to run besides the selected "
              "ones (AF100: unused suppression comments).")
@click.option("--show-settings", is_flag=True, help="Print the settings each PATH is checked with, and exit.")
@click.option("--force-exclude", is_flag=True, help="Apply exclude patterns to files named on the command line "
              "too (as pre-commit names them).")
@click.option("--add-ignore", is_flag=True, help="Write `# autofix: ignore[CODE]` comments before the launches "
              "with findings.")
@click.option("--explain", metavar="CODE", help="Print a fixer's documentation and its error record.")
@click.option("--list", "list_fixers", is_flag=True, help="Print the table of fixers.")
@click.option("--stdin-filename", help="The name of the file read from stdin ('-').")
@click.option("--gpu", metavar="NAME", help="The GPU the launches run on (h100, b200, mi300x, ...); enables GPU rules.")
@click.option("--from-log", metavar="FILE", help="Name the fixers for the errors in an SGLang log ('-': stdin); "
              "with PATHS, check them with those fixers only.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default="0: one per core",
              help="Worker processes for a run of many files; the output is the same for any number.")
@click.version_option(package_name="autofix")
def main(
    paths: tuple[Path, ...],
    diff_mode: bool,
    fix_mode: bool,
    unsafe_fixes: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fmt: str,
    color: str,
    sglang_version: str | None,
    config_file: Path | None,
    extend_select: tuple[str, ...],
    show_settings: bool,
    force_exclude: bool,
    add_ignore: bool,
    explain: str | None,
    list_fixers: bool,
    stdin_filename: str | None,
    gpu: str | None,
    from_log: str | None,
    jobs: int,
) -> None:
    """Find SGLang launches that SGLang would refuse to start, and fix them minimally."""
    _exit_on_sigterm()
    if explain is not None:
        sys.exit(_explain(explain))
    try:
        resolver = Resolver(config_file, Overrides(tuple(_codes(select)), tuple(_codes(extend_select)),
                                                   tuple(_codes(ignore)), sglang_version, unsafe_fixes, gpu))
        config = resolver.for_dir(Path.cwd())
        resolver.effective(Path.cwd())  # its errors name the file before anything runs
    except ConfigError as exc:
        click.echo(f"autofix: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    chosen_select = _codes(select) or list(config.select)
    chosen_ignore = list(config.ignore) + _codes(ignore)
    unknown = registry.unknown_codes(fixer_words(chosen_select + chosen_ignore + _codes(extend_select)))
    if unknown:
        raise click.UsageError(f"unknown fixer code or name: {unknown[0]}")
    fixers = registry.select(fixer_words(chosen_select), fixer_words(chosen_ignore))
    if from_log is not None:
        if from_log == "-" and Path("-") in paths:
            raise click.UsageError("--from-log - and a '-' PATH cannot both read stdin")
        matched = _from_log(from_log, fmt, checking=bool(paths))
        if not paths:
            sys.exit(EXIT_FINDINGS if matched else EXIT_CLEAN)
        fixers = registry.select([fx.name for fx in matched], chosen_ignore) if matched else []
    if list_fixers:
        from autofix import report

        # Every fixer, opt-in ones too, unless a selection was asked for.
        listed = fixers if select else registry.all_fixers()
        click.echo(report.fixers_json(listed) if fmt == "json" else report.fixers_text(listed))
        sys.exit(EXIT_CLEAN)
    if diff_mode and fix_mode:
        raise click.UsageError("--diff and --fix are exclusive")
    if add_ignore and (diff_mode or fix_mode):
        raise click.UsageError("--add-ignore cannot be combined with --diff or --fix")
    if show_settings:
        sys.exit(_show_settings(resolver, list(paths) or [Path(".")], fmt))
    release = sglang_version or config.sglang_version
    if release is not None and parse_release(release) is None:
        raise click.UsageError(f"--sglang-version: not a release: {release}")
    run = Run("add-ignore" if add_ignore else "diff" if diff_mode else "fix" if fix_mode else "check", fmt)
    run.resolver, run.force_exclude = resolver, force_exclude
    if jobs == 0:
        from autofix.workers import available_cores

        jobs = available_cores()
    run.jobs = jobs
    resolver.restrict(None if from_log is None else {fx.code for fx in fixers})
    gpu_name = gpu or config.gpu
    if gpu_name is not None:
        run.gpu = gpu_named(gpu_name)
        if run.gpu is None:
            raise click.UsageError(f"--gpu: unknown GPU {gpu_name!r}; known: {', '.join(GPUS)}")
    for fx in fixers if run.gpu is None and from_log is not None else ():
        if fx.gpu:
            click.echo(f"autofix: {fx.code} checks files only with --gpu NAME (skipped)", err=True)
    unsafe = unsafe_fixes or config.unsafe_fixes
    run.fixers, run.unsafe, run.color = list(fixers), unsafe, color
    targets = list(paths) or [Path(".")]
    if Path("-") in targets:
        if len(targets) > 1:
            raise click.UsageError("'-' (stdin) cannot be combined with other paths")
        try:
            _stdin(run, stdin_filename or "-")
        except ConfigError as exc:  # a configuration met on the way (nearer to a file than the first)
            run.error(str(exc))
    else:
        try:
            _files(run, targets)
        except ConfigError as exc:
            run.error(str(exc))
    sys.exit(_finish(run))


def _exit_on_sigterm() -> None:
    """SIGTERM raises SystemExit, as SIGINT raises KeyboardInterrupt: a write under way removes its temp file.

    Only from the main thread and over the default handler; the old handler is back when the command ends.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        return

    def stop(signum: int, frame: object) -> None:  # noqa: ARG001
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    click.get_current_context().call_on_close(lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))


def _from_log(name: str, fmt: str, checking: bool) -> list:
    """Print the fixers whose errors the log shows (to stderr when PATHS follow); return them."""
    from autofix import fromlog

    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as exc:
        click.echo(f"autofix: {name}: cannot read: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ERROR)
    matches = fromlog.match_log(data.decode("utf-8", errors="replace"), registry.all_fixers())
    shown = "<stdin>" if name == "-" else name
    if fmt == "json" and not checking:
        click.echo(json.dumps(fromlog.matches_json(matches), indent=2))
    elif matches:
        click.echo("\n\n".join(fromlog.explain(m, shown) for m in matches), err=checking)
    else:
        click.echo(f"{shown}: no fixer matches an error in this log", err=checking)
    return [m.fixer for m in matches]


def _explain(word: str) -> int:
    from autofix.suppressions import UNUSED

    if word in (UNUSED.code, UNUSED.name):  # autofix's own check, no SGLang record
        click.echo(f"{UNUSED.code} ({UNUSED.name})\n\n{UNUSED.doc}")
        return EXIT_CLEAN
    fx = registry.lookup(word)
    if fx is None:
        click.echo(f"autofix: unknown fixer code or name: {word}", err=True)
        return EXIT_ERROR
    from importlib import resources

    click.echo(f"{fx.code} ({fx.name})")
    click.echo(f"record {fx.record}; SGLang {fx.releases[0]} to {fx.releases[1]}")
    click.echo(f"message pattern: {fx.pattern}")
    click.echo("")
    click.echo(fx.doc)
    record = resources.files("autofix.knowledge").joinpath(f"records/{fx.record}.json")
    if record.is_file():
        click.echo("")
        click.echo("## Error record")
        click.echo(record.read_text(encoding="utf-8").rstrip())
    return EXIT_CLEAN


def _files(run: Run, targets: list[Path]) -> None:
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
    checker = _Checker(run, Analyser(run.mode, run.resolver, roots))  # type: ignore[arg-type]
    # The walk, with the prefilter: a file that cannot hold a launch is done with one read and
    # one search. What the run keeps of each file is its path and one byte (memory stays flat as
    # trees grow); the few files with more to say have it in the dicts.
    paths: list[str] = []
    states = bytearray()
    said: dict[int, str | Outcome] = {}  # why a file is skipped, or what screening it said
    yamls: list[int] = []
    for number, candidate in enumerate(walk(existing, run.resolver, run.force_exclude)):
        paths.append(str(candidate.path))
        if candidate.spec is None:
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
    outcomes = ordered_map(lambda name: checker.analyser.file(Path(name), name, alone=True), alone, run.jobs)
    from autofix.output.terminal import Progress

    run.progress = Progress(len(paths))
    for number, (name, state) in enumerate(zip(paths, states)):
        run.progress.step(number, name)
        if state == _UNKNOWN:
            click.echo(f"autofix: {name}: not a launch file autofix can read (skipped)", err=True)
        elif state == _SKIPPED:
            _clear_progress(run)
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
            outcome = next(outcomes)
            if outcome.in_turn:
                checker.check(Path(name), name)
            else:
                checker.finish(Path(name), name, outcome)


# What the walk of a run keeps of each file.
_UNKNOWN, _SKIPPED, _NOTHING, _SAID, _PARSE = range(5)


class _Checker:
    """Checks one file of a run in this process, or finishes a worker's check of it: prints and writes."""

    def __init__(self, run: Run, analyser):  # noqa: ANN001 - analysis.Analyser
        self.run = run
        self.analyser = analyser

    def check(self, path: Path, name: str, only_config: str | None = None) -> None:
        from autofix.analysis import Outcome, check

        prepared = self.analyser.prepare(path, name, only_config)
        if isinstance(prepared, Outcome):
            self.finish(path, name, prepared)
        elif self.run.mode == "add-ignore":
            self.write(path, _add_ignore(self.run, name, prepared.source, prepared.spec, prepared.settings))
        else:
            self.finish(path, name, check(self.run.mode, name, prepared))

    def finish(self, path: Path, name: str, outcome) -> None:  # noqa: ANN001 - analysis.Outcome
        self.write(path, _report(self.run, name, outcome))

    def write(self, path: Path, result) -> None:  # noqa: ANN001 - pipeline.Result
        from autofix.files import write_atomic

        run = self.run
        if result is None or run.mode not in ("fix", "add-ignore"):
            return
        written = [(path, result.source, result.text)] if result.changed else []
        written += [(Path(f.name), f.source, f.text) for f in result.linked if f.changed]
        for target, source, text in written:
            try:
                write_atomic(target, source.encode(text))
            except OSError as exc:
                run.error(f"{target}: cannot write: {exc.strerror or exc}")


def _stdin(run: Run, name: str) -> None:
    from autofix.analysis import Outcome, check, decode
    from autofix.files import ModelLookup, neighbour_release
    from autofix.formats import detect
    from autofix.pipeline import Settings

    run.stdin = True
    data = sys.stdin.buffer.read()
    spec = detect(name, data[:128])
    if spec is None:
        run.error(f"{name}: cannot tell the file's kind; pass --stdin-filename with a known suffix")
        return
    folder = Path(name).parent.resolve()
    effective = run.resolver.effective(Path(name))  # type: ignore[union-attr]
    settings = Settings(effective.fixers_for(Path(name)), effective.release, neighbour_release(folder),
                        effective.unsafe, ModelLookup(folder, [Path.cwd()]), gpu=effective.gpu,
                        unused_suppressions=effective.reports_unused_for(Path(name)))
    prepared = decode(name, data, spec, settings)
    if isinstance(prepared, Outcome):
        result = _report(run, name, prepared)
    elif run.mode == "add-ignore":
        result = _add_ignore(run, name, prepared.source, prepared.spec, prepared.settings)
    else:
        result = _report(run, name, check(run.mode, name, prepared))
    if run.mode in ("fix", "add-ignore"):
        sys.stdout.buffer.write(result.source.encode(result.text) if result else data)
        sys.stdout.buffer.flush()


def _show_settings(resolver: Resolver, targets: list[Path], fmt: str) -> int:
    """--show-settings: the configuration each target is checked with."""
    from autofix.config import show_text

    try:
        shown = [resolver.effective(target).show(target) for target in targets]
    except ConfigError as exc:
        click.echo(f"autofix: {exc}", err=True)
        return EXIT_ERROR
    click.echo(json.dumps(shown, indent=2) if fmt == "json" else "\n\n".join(map(show_text, shown)))
    return EXIT_CLEAN


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
        else:
            _clear_progress(run)
            click.echo(f"autofix: {message}", err=True)
    result = outcome.result
    if result is None:
        return None
    source = result.source
    findings = [r for r in result.findings if run.first_time(r)]
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


def _finish(run: Run) -> int:
    _clear_progress(run)
    if run.fmt == "json" and run.mode != "diff":
        out = json.dumps(run.json_out, indent=2)
        click.echo(out, err=run.mode == "fix" and run.stdin)
    elif run.fmt == "sarif" and run.mode != "diff":
        from autofix.output import sarif

        click.echo(sarif.log(run.fixers, run.json_out, Path.cwd()), err=run.mode == "fix" and run.stdin)
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
    elif run.remaining and run.fmt == "text":
        from autofix.output.terminal import Style, summary

        colour = _colour(run, err=False)
        click.echo(summary(run.remaining, len(run.finding_files), run.fixable, run.unsafe_fixable, Style(colour)),
                   color=colour)
    if run.errors:
        return EXIT_ERROR
    if run.mode == "diff":
        return EXIT_FINDINGS if run.diffs else EXIT_CLEAN
    return EXIT_FINDINGS if run.remaining else EXIT_CLEAN

