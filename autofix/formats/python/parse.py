"""Parsing a Python file: Python's own parser to decide fast whether a file may launch and what
libcst is given (the top-level code a launch may depend on), libcst for the tree that is read."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from autofix.command import MODULES


class PythonSyntaxError(SyntaxError):
    """The file is not Python that autofix can parse; str() is 'line N: reason'."""

    def __init__(self, line: int, reason: str):
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


# -- parsing ----------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _parse(text: str):  # noqa: ANN202 - libcst.Module, imported lazily
    import libcst as cst

    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise _syntax_error(text, exc) from None


def _syntax_error(text: str, exc) -> PythonSyntaxError:  # noqa: ANN001
    # Python's own parser words the reason better; it only parses, nothing runs.
    try:
        _ast(text)
    except SyntaxError as err:
        return PythonSyntaxError(err.lineno or 1, err.msg)
    except (ValueError, RecursionError, MemoryError):
        pass
    return PythonSyntaxError(exc.raw_line, f"libcst cannot parse this: {exc.message}")


@functools.lru_cache(maxsize=8)
def _ast(text: str):  # noqa: ANN202 - ast.Module; _may_launch and _reduced read one tree
    import ast
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like: not autofix's to report
        return ast.parse(text)


# The last name of every call that may be a launch (`sgl.Engine`, `subprocess.run` ...).
_LAUNCH_CALLS = frozenset(
    "Engine Runtime ServerArgs popen_launch_server popen_launch_pd_server prepare_server_args launch_server_cmd "
    "execute_shell_command "
    "Popen run call check_call check_output system popen create_subprocess_exec create_subprocess_shell "
    "execv execve execvp execvpe".split()
)


def _may_launch(text: str) -> bool:
    """Whether a call in text could be a launch, by Python's own (fast) parser.

    libcst and its position metadata are slow; most files that mention sglang
    launch nothing. When ast cannot parse the text, libcst decides.
    """
    import ast

    try:
        tree = _ast(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in _LAUNCH_CALLS:
                return True
        elif isinstance(node, (ast.List, ast.Tuple)):  # an argv list, perhaps returned by a helper
            if any(isinstance(e, ast.Constant) and e.value in MODULES for e in node.elts):
                return True
    return False


# -- what libcst is given: the code a launch may depend on ------------------------------

# A launch call's last name is an identifier: a whole word of the text.
_KEEP_WORDS = re.compile(r"sglang|\b(?:" + "|".join(sorted(_LAUNCH_CALLS)) + r")\b")
_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line ends Python's tokenizer counts
_NOT_NEWLINE = re.compile(r"[^\r\n]+")


def _reduced(text: str) -> str:
    """text with the top-level functions and classes no launch can depend on blanked.

    libcst's parse, its position metadata and the indexer walk every node and
    cost most of a check; a typical file defines many functions and launches
    in one. A dropped statement's characters become spaces, its newlines stay,
    so every offset, line and column is the original's and spans read in the
    reduced text hold in the original. When in doubt a statement is kept (see
    _Keeper); when ast cannot parse the text nothing is dropped, libcst decides.
    """
    try:
        tree = _ast(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
    dropped = _Keeper(tree, text, starts).dropped()
    if not dropped:
        return text
    kept = {line for node in tree.body if node not in dropped for line in _lines(node)}
    lines = sorted({line for node in dropped for line in _lines(node)} - kept)
    out, at = [], 0
    for line in lines:  # 1-based; starts[line] is the start of the next line, if any
        start, end = starts[line - 1], starts[line] if line < len(starts) else len(text)
        out += [text[at:start], _NOT_NEWLINE.sub(lambda m: " " * len(m[0]), text[start:end])]
        at = end
    out.append(text[at:])
    return "".join(out)


def _lines(node) -> range:  # noqa: ANN001 - an ast statement
    """The lines a top-level statement is written on, decorators included."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return range(first, node.end_lineno + 1)


class _Keeper:
    """Which top-level `def`s and `class`es a launch cannot depend on.

    Everything else (imports, assignments, blocks, expressions) is kept. A
    definition is kept when its text names sglang or a launch call, when it
    declares a name global or nonlocal, when it mentions a name that module
    code binds (reading or changing a list a launch reads makes the launch's
    argv unknown), or an alias of a launch call, or when kept code names it
    (a second binding of a name makes its value unknown). Keeping one makes
    more code kept: repeat until nothing changes.
    """

    def __init__(self, tree, text: str, starts: Sequence[int]):  # noqa: ANN001
        import ast

        self.ast = ast
        self.tree = tree
        self.text = text
        self.starts = starts
        self.named: set[str] = set()  # every name kept code mentions
        self.watched: set[str] = set()  # names a definition must not mention to be dropped

    def dropped(self) -> set:
        ast = self.ast
        candidates = []
        for node in self.tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._keep(node, module=True)
            elif self._pinned(node):
                self._keep(node, module=False)
            else:
                candidates.append((node, {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}))
        changed = True
        while changed:
            changed, waiting = False, []
            for node, mentions in candidates:
                if node.name in self.named or not mentions.isdisjoint(self.watched):
                    self._keep(node, module=False)
                    changed = True
                else:
                    waiting.append((node, mentions))
            candidates = waiting
        return {node for node, _ in candidates}

    def _pinned(self, node) -> bool:  # noqa: ANN001
        """Kept whatever else is kept: it names a launch, or declares a name global or nonlocal."""
        lines = _lines(node)
        end = self.starts[lines.stop - 1] if lines.stop - 1 < len(self.starts) else len(self.text)
        if _KEEP_WORDS.search(self.text, self.starts[lines.start - 1], end):
            return True
        return any(isinstance(n, (self.ast.Global, self.ast.Nonlocal)) for n in self.ast.walk(node))

    def _keep(self, node, module: bool) -> None:  # noqa: ANN001
        """Note what kept code names; module: a statement whose bindings are the module's."""
        ast = self.ast
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                self.named.add(n.id)
                if module and not isinstance(n.ctx, ast.Load):
                    self.watched.add(n.id)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                self.named.update(n.names)
                if isinstance(n, ast.Global):
                    self.watched.update(n.names)
            elif isinstance(n, ast.ImportFrom):
                # `from subprocess import run as go`: `go(...)` is a launch no word gives away.
                self.watched.update(a.asname or a.name for a in n.names if a.name in _LAUNCH_CALLS)
            elif module and isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
                self.watched.add(n.name)
            elif module and isinstance(n, ast.MatchMapping) and n.rest:
                self.watched.add(n.rest)


def syntax_errors(text: str) -> int:
    """0 when libcst parses text, else 1.

    The reduced text is what is parsed: the same tree the check reads (cached),
    and text that ast parses whole, or else the whole text.
    """
    try:
        _parse(_reduced(text))
    except (PythonSyntaxError, RecursionError):
        return 1
    return 0


