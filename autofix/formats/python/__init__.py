"""Python launch code: SGLang launches in calls, read with libcst.

Three shapes of launch:

- keyword launches: `sgl.Engine(...)`, `Engine(...)` or `ServerArgs(...)`
  imported from sglang. Keywords are SGLang dests; each one known in the
  option table becomes its primary flag, so `Launch` reads them as argv;
- argument vectors: `popen_launch_server(model, url, timeout, other_args=[...])`,
  argv lists given to `subprocess` (written in place, or a list assigned once
  and extended in straight-line code), `prepare_server_args([...])`;
- command strings: `os.system("...")`, `subprocess.run("...", shell=True)`:
  the string's value is read as shell text, with an Embedding that maps each
  character back to its spelling; `launch_server_cmd("...")`, which runs no
  shell, as SGLang splits it (on whitespace, quotes kept in their words).

A name resolves when the file binds it exactly once (a module constant, a list
or dict literal in the same function); anything else (a parameter, a call, an
f-string field) is unknown. Lists and dicts read by one launch are edited in
place; values from scalar constants are known but never edited. Nothing scanned
is imported, compiled or run.
"""

from __future__ import annotations

from collections.abc import Callable

from autofix.formats.python.doc import _Doc
from autofix.formats.python.finder import _Finder
from autofix.formats.python.names import _dotted
from autofix.formats.python.parse import PythonSyntaxError, _may_launch, syntax_errors
from autofix.knowledge.options import OptionTable
from autofix.model import Launch
from autofix.source import Source, Span

__all__ = ["PythonSyntaxError", "find_launches", "syntax_errors"]


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
) -> list[Launch]:
    """Launches in a Python file; PythonSyntaxError when it does not parse."""
    if "sglang" not in source.text or not _may_launch(source.text):
        return []
    doc = _Doc(source, table, release, model_lookup)
    finder = _Finder(doc)
    failing = _expected_to_fail(doc)
    launches = [launch for call, scope, blocks in doc.calls
                if not any(s.start <= doc.span(call).start < s.end for s in failing)
                for launch in finder.launches(call, scope, blocks)]
    launches += [launch for ret, scope, blocks in doc.returns for launch in finder.returned(ret, scope, blocks)]
    launches.sort(key=lambda launch: launch.span.start)
    return launches


# Tests that expect a call to raise: `with pytest.raises(...)`, `self.assertRaises(...)`.
_RAISES = frozenset({"pytest.raises", "raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def _expected_to_fail(doc: _Doc) -> list[Span]:
    """Where a test expects its calls to raise: a launch written there is meant to fail.

    The body of a `with` whose items include `pytest.raises(...)` or
    `self.assertRaises(...)` / `assertRaisesRegex(...)`, and the arguments of
    such a call (its callable form, `assertRaises(ValueError, lambda: ...)`).
    """
    import libcst as cst

    if "raises" not in doc.text and "Raises" not in doc.text:
        return []

    def raises(node: object) -> bool:
        name = _dotted(node.func) if isinstance(node, cst.Call) else ""
        return name in _RAISES or name.rsplit(".", 1)[-1] in _RAISES - {"raises"}

    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.spans: list[Span] = []

        def visit_With(self, node) -> None:  # noqa: ANN001
            if any(raises(item.item) for item in node.items):
                self.spans.append(doc.span(node.body))

        def visit_Call(self, node) -> None:  # noqa: ANN001
            if raises(node) and node.args:
                self.spans.append(Span(doc.span(node.args[0]).start, doc.span(node).end))

    finder = Finder()
    doc.module.visit(finder)
    return finder.spans


