"""`--from-log` knows every message of the catalogue, not only the fixers' own."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from autofix.cli import main
from autofix.fixer import all_fixers
from autofix.fromlog import match_catalogue, match_log, nameable
from autofix.knowledge import catalogue
from autofix.knowledge.releases import RELEASES


def printed(error: catalogue.CatalogueError) -> str:
    """The line SGLang's traceback ends with for error, a field printed as 'x'."""
    if error.message:
        return f"{error.exception}: {error.message.splitlines()[0].replace('{}', 'x')}"
    return "    " + error.site.source.splitlines()[0].strip()  # the assert's line in the traceback


def test_every_catalogue_message_in_a_log_is_named() -> None:
    fixers = all_fixers()
    unnamed = []
    for release in RELEASES:
        for error in catalogue.errors(release).values():
            if not nameable(error):
                continue  # too little text to tell it from any other line
            line = printed(error)
            named = {m.fixer.code for m in match_log(line, fixers)} or {m.error.id for m in match_catalogue(line)}
            if not named:
                unnamed.append((release, error.id, line[:80]))
    assert not unnamed, unnamed[:10]


def test_an_error_no_fixer_fixes_names_its_check_and_flags(tmp_path) -> None:  # noqa: ANN001
    from autofix import coverage
    from autofix.fromlog import nameable

    # The first error of 0.5.23 no fixer reports that a log line can name, reading flags.
    [measured] = coverage.measure(all_fixers(), ["0.5.23"])
    error = next(e for e in measured.missing() if nameable(e) and e.message and "\n" not in e.message
                 and e.reads and "{" not in e.message)
    log = tmp_path / "server.log"
    log.write_text(f"[2026-12-01 10:00:00] INFO starting\n{printed(error)}\n")
    result = CliRunner().invoke(main, ["--from-log", str(log)])
    assert result.exit_code == 1
    assert f"server.log:2: SGLang error {error.id} (no autofix rule fixes it)" in result.output
    assert f"raised by: {error.site.function} ({error.site.file}:{error.site.line} in SGLang 0.5.23)" in result.output
    from autofix.knowledge.options import table

    flags = [table("0.5.23").by_dest(d).primary for d in error.reads]
    assert f"flags it reads: {', '.join(flags)}" in result.output
    [shown] = json.loads(CliRunner().invoke(main, ["--from-log", str(log), "--format", "json"]).output)
    assert shown["code"] is None and shown["record"] == error.id and shown["line"] == 2
    assert shown["source"] == {"file": error.site.file, "line": error.site.line, "function": error.site.function,
                               "release": "0.5.23"}


def test_a_bare_assert_is_named_by_its_traceback_line() -> None:
    asserts = [e for e in catalogue.errors("0.5.23").values() if e.kind == "assert" and not e.message
               and len(e.site.source.splitlines()[0]) >= 12]
    assert asserts
    for error in asserts[:20]:
        found = match_catalogue(f'  File "x.py", line 1, in f\n{printed(error)}\nAssertionError\n')
        assert [m.error.id for m in found][:1] == [error.id] or found, error.site.source


def test_a_rule_whose_message_is_all_field_names_no_line() -> None:
    from autofix.fromlog import match_log

    bare = [fx for fx in all_fixers() if fx.pattern == "(.+?)"]
    assert bare, "no rule reports an error whose message is only a field"
    log = "[2026-12-01 10:00:00] INFO starting\nValueError: something else entirely\n"
    assert not [m for m in match_log(log, bare)]
