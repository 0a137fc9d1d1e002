"""The command line: reads argv and the configuration, and hands a Run to run.py.

With run.py, the only place that reads stdin, prints, and picks exit codes.
Exit codes: 0 no finding remains; 1 findings remain (with --diff: a diff was
printed); 2 usage error, unreadable or unparsable file, internal error.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import click

from autofix import fixer as registry
from autofix.config import ConfigError, Overrides, Resolver
from autofix.knowledge.gpus import GPUS, gpu_named
from autofix.knowledge.releases import checked_as, parse_release, unknown_release
from autofix.run import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, Run, check_files, check_stdin, finish, report_to
from autofix.suppressions import fixer_words


def _codes(values: tuple[str, ...]) -> list[str]:
    return [w.strip() for v in values for w in v.split(",") if w.strip()]


class _Main(click.Command):
    """The check, and `autofix server` (autofix.lsp): a first argument `server` is the subcommand
    (a file of that name is checked as `./server`). An internal error exits 2 with a one-line message
    (exit 1 means findings remain)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args[:1] == ["server"]:
            from autofix.lsp import command

            ctx.exit(command.main(args[1:], prog_name=f"{ctx.info_name or 'autofix'} server", standalone_mode=False) or 0)
        return super().parse_args(ctx, args)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_paragraph()
        formatter.write_text("`autofix server` runs the language server over stdio (pip install 'autofix[lsp]').")
        super().format_epilog(ctx, formatter)

    def invoke(self, ctx: click.Context):  # noqa: ANN201
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug of autofix's: said in one line, exit 2
            click.echo(f"autofix: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_ERROR)


class _PathArg(click.Path):
    """A PATH; an empty one (an unset CI variable) is a usage error, not the working directory."""

    def convert(self, value, param, ctx):  # noqa: ANN001, ANN201
        if isinstance(value, str) and value == "":
            self.fail("an empty PATH (an unset variable?): name a file or folder, or '.'", param, ctx)
        return super().convert(value, param, ctx)


@click.command(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=_PathArg(path_type=Path))
@click.option("--diff", "diff_mode", is_flag=True, help="Print the unified diff that --fix would apply; write nothing.")
@click.option("--fix", "fix_mode", is_flag=True, help="Apply fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes marked unsafe.")
@click.option("--select", multiple=True, help="Comma-separated codes or slugs to run (default: all default fixers).")
@click.option("--ignore", multiple=True, help="Comma-separated codes or slugs to skip.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "json-lines", "sarif", "github", "gitlab", "junit"]),
              default="text", show_default=True, help="How findings are printed (json schema: "
              "docs/autofix-json.schema.json; gitlab: GitLab Code Quality; junit: JUnit XML).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour text and diffs; auto: on a terminal, unless NO_COLOR is set (FORCE_COLOR forces it).")
@click.option("--sglang-version", help="The SGLang release the launches run on (default: detected).")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Use this autofix configuration (pyproject.toml or .autofix.toml) for every file instead of "
              "each file's nearest one (unrelated to SGLang's --config).")
@click.option("--extend-select", multiple=True, help="Comma-separated codes or slugs to run besides the selected "
              "ones (AF100: unused suppression comments).")
@click.option("--show-settings", is_flag=True, help="Print the settings each PATH is checked with, and exit.")
@click.option("--show-launches", is_flag=True, help="Print every launch found in PATHS as the checks read it (place, "
              "entry point, release, model, each flag's dest and value, pass-throughs, --config file), then the "
              "mentions of SGLang not read as a launch and why; write nothing (json schema: "
              "docs/autofix-launches.schema.json).")
@click.option("--force-exclude", is_flag=True, help="Apply exclude patterns to files named on the command line "
              "too (as pre-commit names them).")
@click.option("--add-ignore", is_flag=True, help="Write `# autofix: ignore[CODE]` comments before the launches "
              "with findings.")
@click.option("--explain", metavar="CODE", help="Print a fixer's documentation and its error record.")
@click.option("--list", "list_fixers", is_flag=True, help="Print the table of fixers.")
@click.option("--coverage", "show_coverage", is_flag=True, help="Print how many of each release's catalogue errors "
              "the selected fixers report, per class, and list the others for --sglang-version (default: newest).")
@click.option("--stdin-filename", help="The name of the file read from stdin ('-').")
@click.option("--fetch-model-config", is_flag=True, help="Ask the Hugging Face Hub for the config.json of a "
              "model the local cache lacks (needs huggingface_hub; honours HF_ENDPOINT and HF_HUB_OFFLINE).")
@click.option("--gpu", metavar="NAME", help="The GPU the launches run on (h100, b200, mi300x, ...; b200-cu129 names its CUDA toolkit too); enables GPU rules.")
@click.option("--from-log", metavar="FILE", help="Name the fixers for the errors in an SGLang log ('-': stdin); "
              "with PATHS, check them with those fixers only.")
@click.option("--no-cache", is_flag=True, help="Read and write no cache (also AUTOFIX_NO_CACHE=1).")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
              help="The cache folder (also AUTOFIX_CACHE_DIR, or `cache-dir` in the configuration; default: "
              ".autofix_cache in the project root).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default="0: one per core",
              help="Worker processes for a run of many files; the output is the same for any number.")
@click.option("-e", "--exit-zero", is_flag=True, help="Exit 0 even when findings remain (2 still means an error).")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --fix, exit 1 when a file was changed, even if no "
              "finding remains.")
@click.option("--statistics", is_flag=True, help="Print how many findings each code has, and how many of them "
              "--fix would fix, instead of the findings (--format text or json).")
@click.option("--show-fixes", is_flag=True, help="With --fix, list the findings fixed, per file and code (on stderr).")
@click.option("-o", "--output-file", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report (findings, statistics or diff) to this file instead of stdout.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings (or the diff) and errors, nothing else: no "
              "summary, notes, warnings or progress.")
@click.option("--schema", "config_schema", is_flag=True, help="Print the JSON Schema of SGLang's --config YAML files "
              "for --sglang-version (default: the newest release autofix knows), and exit.")
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
    show_launches: bool,
    force_exclude: bool,
    add_ignore: bool,
    explain: str | None,
    list_fixers: bool,
    show_coverage: bool,
    stdin_filename: str | None,
    fetch_model_config: bool,
    gpu: str | None,
    from_log: str | None,
    no_cache: bool,
    cache_dir: Path | None,
    jobs: int,
    exit_zero: bool = False,
    exit_non_zero_on_fix: bool = False,
    statistics: bool = False,
    show_fixes: bool = False,
    output_file: Path | None = None,
    quiet: bool = False,
    config_schema: bool = False,
) -> None:
    """Find SGLang launches that SGLang would refuse to start, and fix them minimally."""
    _exit_on_sigterm()
    if explain is not None:
        sys.exit(_explain(explain))
    if sglang_version is not None and not show_coverage:
        if unknown_release(sglang_version) and checked_as(sglang_version) == sglang_version:
            raise click.UsageError(f"--sglang-version: {unknown_release(sglang_version)}")
        if checked_as(sglang_version) != sglang_version:
            if not quiet:
                click.echo(f"autofix: warning: SGLang {sglang_version} is newer than autofix knows; checked as "
                           f"{checked_as(sglang_version)}", err=True)
            sglang_version = checked_as(sglang_version)
    if config_schema:
        sys.exit(_schema(sglang_version))
    try:
        resolver = Resolver(config_file, Overrides(tuple(_codes(select)), tuple(_codes(extend_select)),
                                                   tuple(_codes(ignore)), sglang_version, unsafe_fixes, gpu,
                                                   fetch_model_config))
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
    if show_coverage:
        sys.exit(_coverage(fixers if select else registry.all_fixers(), sglang_version, fmt))
    if diff_mode and fix_mode:
        raise click.UsageError("--diff and --fix are exclusive")
    if add_ignore and (diff_mode or fix_mode):
        raise click.UsageError("--add-ignore cannot be combined with --diff or --fix")
    if fetch_model_config and importlib.util.find_spec("huggingface_hub") is None:
        raise click.UsageError("--fetch-model-config needs huggingface_hub: pip install 'autofix[hub]'")
    if show_settings:
        sys.exit(_show_settings(resolver, list(paths) or [Path(".")], fmt))
    _check_report_options(fmt, diff_mode, fix_mode, exit_zero, exit_non_zero_on_fix, statistics, show_fixes)
    if show_launches and (diff_mode or fix_mode or add_ignore):
        raise click.UsageError("--show-launches writes nothing: it cannot be combined with --diff, --fix or --add-ignore")
    release = sglang_version or config.sglang_version
    if release is not None and parse_release(release) is None:
        raise click.UsageError(f"--sglang-version: {unknown_release(release)}")
    run = Run("add-ignore" if add_ignore else "diff" if diff_mode else "fix" if fix_mode else "check", fmt)
    run.resolver, run.force_exclude = resolver, force_exclude
    run.quiet, run.show_fixes, run.stdout = quiet, show_fixes, sys.stdout
    run.upgrade_to = sglang_version
    if statistics:
        from autofix.output.counts import Statistics

        run.statistics = Statistics()
    if jobs == 0:
        from autofix.workers import available_cores

        jobs = available_cores()
    run.jobs = jobs
    run.cache = _cache(no_cache, cache_dir, config)
    resolver.restrict(None if from_log is None else {fx.code for fx in fixers})
    gpu_name = gpu or config.gpu
    if gpu_name is not None:
        run.gpu = gpu_named(gpu_name)
        if run.gpu is None:
            raise click.UsageError(f"--gpu: unknown GPU {gpu_name!r}; known: {', '.join(GPUS)}")
    if show_launches:
        sys.exit(_show_launches(resolver, list(paths) or [Path(".")], fmt, force_exclude))
    for fx in fixers if run.gpu is None and from_log is not None else ():
        if fx.gpu:
            click.echo(f"autofix: {fx.code} checks only files whose GPU is known: --gpu NAME, the configuration's "
                       "`gpu` or `per-file-gpu`, or a GPU the file names", err=True)
    unsafe = unsafe_fixes or config.unsafe_fixes
    run.fixers, run.unsafe, run.color = list(fixers), unsafe, color
    targets = list(paths) or [Path(".")]
    if Path("-") in targets and len(targets) > 1:
        raise click.UsageError("'-' (stdin) cannot be combined with other paths")
    with report_to(output_file):
        try:
            if Path("-") in targets:
                check_stdin(run, stdin_filename or "-")
            else:
                check_files(run, targets)
        except ConfigError as exc:  # a configuration met on the way (nearer to a file than the first)
            run.error(str(exc))
        code = finish(run)
    if exit_zero and code == EXIT_FINDINGS:
        code = EXIT_CLEAN
    elif exit_non_zero_on_fix and fix_mode and run.fixed_files and code == EXIT_CLEAN:
        code = EXIT_FINDINGS
    sys.exit(code)


def _check_report_options(fmt: str, diff_mode: bool, fix_mode: bool, exit_zero: bool, exit_non_zero_on_fix: bool,
                          statistics: bool, show_fixes: bool) -> None:
    """The combinations of ruff's reporting options that say nothing, refused as ruff refuses them."""
    if exit_zero and exit_non_zero_on_fix:
        raise click.UsageError("--exit-zero and --exit-non-zero-on-fix are exclusive")
    if statistics and diff_mode:
        raise click.UsageError("--statistics cannot be combined with --diff")
    if statistics and fmt not in ("text", "json"):
        raise click.UsageError("--statistics prints --format text or json")
    if show_fixes and diff_mode:
        raise click.UsageError("--show-fixes cannot be combined with --diff (the diff shows the fixes)")


def _schema(release: str | None) -> int:
    """--schema: the JSON Schema of SGLang's --config files for release (default: the newest autofix knows)."""
    from autofix import configschema
    from autofix.knowledge.releases import RELEASES, release_of

    chosen = release_of(release) if release is not None else RELEASES[-1]
    if chosen is None or unknown_release(chosen):
        raise click.UsageError(f"--sglang-version: {unknown_release(release or '')}")
    click.echo(json.dumps(configschema.schema(chosen), indent=2))
    return EXIT_CLEAN


def _cache(off: bool, given: Path | None, config):  # noqa: ANN001, ANN202 - Config -> cache.Store | None
    """The run's cache folder (autofix.cache), or None; the rule index keeps its facts there too."""
    from autofix import cache, rule_index

    store = None
    if not off and not cache.disabled_by_env():
        # The project root: the folder of the configuration that applies here (--config's: the working
        # directory), else the working directory.
        store = cache.Store(cache.locate(given, config.cache_folder(), config.root))
    rule_index.use_cache(store)
    return store


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
    text = data.decode("utf-8", errors="replace")
    matches = fromlog.match_log(text, registry.all_fixers())
    others = fromlog.match_catalogue(text, skip_lines={m.line for m in matches})
    shown = "<stdin>" if name == "-" else name
    if fmt == "json" and not checking:
        found = fromlog.matches_json(matches) + fromlog.catalogue_json(others)
        click.echo(json.dumps(sorted(found, key=lambda m: m["line"]), indent=2))  # type: ignore[arg-type, return-value]
    elif matches or others:
        explained = [(m.line, fromlog.explain(m, shown)) for m in matches]
        explained += [(m.line, fromlog.explain_error(m, shown)) for m in others]
        click.echo("\n\n".join(text for _, text in sorted(explained, key=lambda e: e[0])), err=checking)
    else:
        click.echo(f"{shown}: no fixer matches an error in this log", err=checking)
    if others and not matches and not checking:
        sys.exit(EXIT_FINDINGS)  # SGLang's error is in the log, though no fixer fixes it
    return [m.fixer for m in matches]


def _coverage(fixers: list[registry.Fixer], release: str | None, fmt: str) -> int:
    """--coverage: the catalogue errors some fixer reports, per release and class."""
    from autofix import coverage
    from autofix.knowledge.releases import RELEASES

    if release is not None and release not in RELEASES:
        raise click.UsageError(f"--sglang-version: autofix knows {', '.join(RELEASES)}, not {release}")
    measured = coverage.measure(fixers, [release] if release and fmt == "json" else RELEASES)
    if fmt == "json":
        click.echo(json.dumps(coverage.to_json(measured), indent=2))
    else:
        click.echo(coverage.table_text(measured, missing_of=release or RELEASES[-1]))
    return EXIT_CLEAN


def _explain(word: str) -> int:
    from autofix.suppressions import UNUSED

    if word in (UNUSED.code, UNUSED.name):  # autofix's own check, no SGLang record
        click.echo(f"{UNUSED.code} ({UNUSED.name})\n\n{UNUSED.doc}")
        return EXIT_CLEAN
    fx = registry.lookup(word)
    if fx is None:
        click.echo(f"autofix: unknown fixer code or name: {word}", err=True)
        return EXIT_ERROR
    from autofix.knowledge.records import build, stored

    click.echo(f"{fx.code} ({fx.name})")
    click.echo(f"record {fx.record}; SGLang {fx.releases[0]} to {fx.releases[1]}")
    click.echo(f"message pattern: {fx.pattern}")
    click.echo("")
    click.echo(fx.doc)
    click.echo("")
    click.echo("## Error record")
    click.echo(json.dumps(stored(fx.record) or build(fx), indent=2, ensure_ascii=False))
    return EXIT_CLEAN


def _show_launches(resolver: Resolver, targets: list[Path], fmt: str, force_exclude: bool) -> int:
    """--show-launches: what autofix read in each file; 0, or 2 when a file could not be read or parsed."""
    from autofix import launchview

    if fmt not in ("text", "json"):
        raise click.UsageError("--show-launches prints --format text or json")
    if Path("-") in targets:
        raise click.UsageError("--show-launches reads files, not stdin")
    try:
        files, notes = launchview.show(targets, resolver, force_exclude)
    except ConfigError as exc:
        click.echo(f"autofix: {exc}", err=True)
        return EXIT_ERROR
    for message, _ in notes:
        click.echo(f"autofix: {message}", err=True)
    if fmt == "json":
        click.echo(json.dumps({"files": files}, indent=2))
    elif files:
        click.echo(launchview.to_text(files))
    else:
        click.echo("autofix: no file in PATHS may hold a launch", err=True)
    failed = any(error for _, error in notes) or any(entry["error"] for entry in files)
    return EXIT_ERROR if failed else EXIT_CLEAN


def _show_settings(resolver: Resolver, targets: list[Path], fmt: str) -> int:
    """--show-settings: the configuration each target is checked with, and where model configs are read."""
    from autofix.config import show_text
    from autofix.modelconfigs import ModelSources

    sources = ModelSources().show()
    try:
        shown = [{**resolver.effective(target).show(target), "model-configs": sources} for target in targets]
    except ConfigError as exc:
        click.echo(f"autofix: {exc}", err=True)
        return EXIT_ERROR
    click.echo(json.dumps(shown, indent=2) if fmt == "json" else "\n\n".join(map(show_text, shown)))
    return EXIT_CLEAN
