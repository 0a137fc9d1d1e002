"""`autofix server`: a language server over stdio, for editors (see the README's "In the editor").

This module only reads the subcommand's arguments: pygls and lsprotocol (the
`lsp` extra) are imported when the server starts, never by a check.
"""

from __future__ import annotations

import importlib.util
import sys

import click

__all__ = ["command"]


@click.command(name="server", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--stdio", is_flag=True, hidden=True, help="Talk over stdin and stdout (the only transport; "
              "accepted because some clients pass it).")
def command(stdio: bool) -> None:  # noqa: ARG001
    """Run autofix's language server over stdin and stdout.

    Diagnostics for the open buffers of every file kind autofix reads, quick fixes, a fix-all source
    action (source.fixAll.autofix), suppression comments, and each rule's --explain text on hover.
    Settings come from each file's nearest configuration, as on the command line.
    """
    missing = [name for name in ("pygls", "lsprotocol") if importlib.util.find_spec(name) is None]
    if missing:
        click.echo(f"autofix server needs {' and '.join(missing)}: pip install 'autofix[lsp]'", err=True)
        sys.exit(2)
    from autofix.lsp.server import serve

    serve()
