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

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from autofix.command import MODULES, Entry, Script, recognise
from autofix.edits import Edit
from autofix.embed import Embedding
from autofix.knowledge.options import Option, OptionTable
from autofix.model import Arg, Launch, NewFlag
from autofix.source import Source, Span

__all__ = ["PythonSyntaxError", "find_launches", "syntax_errors"]


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


# -- the scanned module: spans, scopes, bindings ------------------------------------


@dataclass(eq=False)
class _Scope:
    kind: str  # "module", "function", "class"
    parent: _Scope | None
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    # (base name, attribute) -> bindings of `cls.model = ...` in this function
    attributes: dict[tuple[str, str], list[_Binding]] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)  # global / nonlocal
    uses: dict[str, list[_Use]] = field(default_factory=dict)


@dataclass(eq=False)
class _Binding:
    scope: _Scope
    value: object  # the assigned expression of `NAME = value`, else None
    qualified: str | None  # the dotted name an import binds
    blocks: tuple[int, ...]  # the conditional suites around the statement
    offset: int = 0  # where an attribute assignment is written


@dataclass(eq=False)
class _Use:
    node: object  # the Name
    scope: _Scope
    role: str  # read, pass (handed to a call, or aliased), benign, extend, append, mutate
    operand: object  # what extend / append / += adds
    statement: object  # the statement line, for append
    offset: int
    blocks: tuple[int, ...]


_MUTATORS = frozenset("insert pop remove clear sort reverse setdefault update popitem __setitem__ __delitem__".split())
_EXTENDERS = frozenset({"extend", "append"})
_LOG_METHODS = frozenset("debug info warning warn error exception critical log print write".split())
_BENIGN_CALLS = frozenset({"print", "len", "str", "repr", "shlex.join", "json.dumps", "logging.info"})


def _indexer(doc: _Doc):  # noqa: ANN202, C901 - a libcst visitor, built lazily
    import libcst as cst

    class Indexer(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.module = _Scope("module", None)
            self.scope = self.module
            self.scopes = [self.module]
            self.calls: list[tuple[object, _Scope, tuple[int, ...]]] = []
            self.returns: list[tuple[object, _Scope, tuple[int, ...]]] = []  # `return cmd` in a function
            self.parent_call: dict[int, object] = {}
            self.functions: dict[int, tuple[object, _Scope]] = {}  # id(binding of a def) -> (def, its scope)
            self._handled: set[int] = set()
            self._scope_bodies: set[int] = set()
            self._transparent: set[int] = set()
            self._suites: list[int] = []
            self._pushed: list[bool] = []
            self._saved: list[list[int]] = []
            self._benign: list[int] = []
            self._passed: set[int] = set()
            self._statement: object = None

        # scopes

        def _push(self, kind: str, body: object) -> None:
            self.scope = _Scope(kind, self.scope)
            self.scopes.append(self.scope)
            self._scope_bodies.add(id(body))
            self._saved.append(self._suites)
            self._suites = []

        def _pop(self) -> None:
            self.scope = self.scope.parent  # type: ignore[assignment]
            self._suites = self._saved.pop()

        def _bind(self, name: str, value: object = None, qualified: str | None = None) -> _Binding:
            scope = self.scope
            how = scope.declared.get(name)
            if how == "global":
                scope = self.module
            elif how == "nonlocal":
                scope = scope.parent or self.module
                while scope.kind == "class" and scope.parent is not None:
                    scope = scope.parent
            binding = _Binding(self.scope, value, qualified, tuple(self._suites))
            scope.bindings.setdefault(name, []).append(binding)
            return binding

        def _bind_targets(self, target: object) -> None:
            for name in _target_names(target):
                self._handled.add(id(name))
                self._bind(name.value)

        def _use(self, name: object, role: str, operand: object = None) -> None:
            self._handled.add(id(name))
            use = _Use(name, self.scope, role, operand, self._statement, doc.span(name).start, tuple(self._suites))
            self.scope.uses.setdefault(name.value, []).append(use)  # type: ignore[attr-defined]

        def visit_FunctionDef(self, node) -> None:  # noqa: ANN001
            self._handled.add(id(node.name))
            binding = self._bind(node.name.value)
            self._push("function", node.body)
            self.functions[id(binding)] = (node, self.scope)

        def leave_FunctionDef(self, node) -> None:  # noqa: ANN001
            self._pop()

        def visit_ClassDef(self, node) -> None:  # noqa: ANN001
            self._handled.add(id(node.name))
            self._bind(node.name.value)
            self._push("class", node.body)

        def leave_ClassDef(self, node) -> None:  # noqa: ANN001
            self._pop()

        def visit_Param(self, node) -> None:  # noqa: ANN001
            self._handled.add(id(node.name))
            self._bind(node.name.value)

        def visit_Global(self, node) -> bool:  # noqa: ANN001
            for item in node.names:
                self.scope.declared[item.name.value] = "global"
            return False

        def visit_Nonlocal(self, node) -> bool:  # noqa: ANN001
            for item in node.names:
                self.scope.declared[item.name.value] = "nonlocal"
            return False

        # suites: which statements run unconditionally

        def visit_With(self, node) -> None:  # noqa: ANN001
            self._transparent.add(id(node.body))
            for item in node.items:
                if item.asname is not None:
                    self._bind_targets(item.asname.name)

        def _enter_suite(self, node) -> None:  # noqa: ANN001
            push = id(node) not in self._scope_bodies and id(node) not in self._transparent
            self._pushed.append(push)
            if push:
                self._suites.append(id(node))

        def _leave_suite(self) -> None:
            if self._pushed.pop():
                self._suites.pop()

        def visit_IndentedBlock(self, node) -> None:  # noqa: ANN001
            self._enter_suite(node)

        def leave_IndentedBlock(self, node) -> None:  # noqa: ANN001
            self._leave_suite()

        def visit_SimpleStatementSuite(self, node) -> None:  # noqa: ANN001
            self._enter_suite(node)

        def leave_SimpleStatementSuite(self, node) -> None:  # noqa: ANN001
            self._leave_suite()

        def visit_SimpleStatementLine(self, node) -> None:  # noqa: ANN001
            self._statement = node

        # bindings

        def visit_Import(self, node) -> bool:  # noqa: ANN001
            for alias in node.names:
                dotted = _dotted(alias.name)
                if alias.asname is not None:
                    self._bind(alias.asname.name.value, qualified=dotted)
                else:
                    head = dotted.split(".", 1)[0]
                    self._bind(head, qualified=head)
            return False

        def visit_ImportFrom(self, node) -> bool:  # noqa: ANN001
            if isinstance(node.names, cst.ImportStar):
                return False
            module = ("." * len(node.relative)) + (_dotted(node.module) if node.module is not None else "")
            for alias in node.names:
                name = _dotted(alias.name)
                bound = alias.asname.name.value if alias.asname is not None else name
                self._bind(bound, qualified=f"{module}.{name}")
            return False

        def visit_Assign(self, node) -> None:  # noqa: ANN001
            if isinstance(node.value, cst.Name):
                self._passed.add(id(node.value))  # an alias: changes through it are not followed
            single = len(node.targets) == 1
            for target in node.targets:
                self._assign(target.target, node.value if single else None)

        def visit_AnnAssign(self, node) -> None:  # noqa: ANN001
            if node.value is not None:
                self._assign(node.target, node.value)
            elif isinstance(node.target, cst.Name):
                self._handled.add(id(node.target))

        def _assign(self, target, value) -> None:  # noqa: ANN001
            if isinstance(target, cst.Name):
                self._handled.add(id(target))
                self._bind(target.value, value)
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                key = (target.value.value, target.attr.value)
                self.scope.attributes.setdefault(key, []).append(
                    _Binding(self.scope, value, None, tuple(self._suites), doc.span(target).start)
                )
            elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                self._use(target.value, "mutate")
            else:
                self._bind_targets(target)

        def visit_AugAssign(self, node) -> None:  # noqa: ANN001
            target = node.target
            if isinstance(target, cst.Name):
                self._use(target, "extend" if isinstance(node.operator, cst.AddAssign) else "mutate", node.value)
            elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                self._use(target.value, "mutate")
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                key = (target.value.value, target.attr.value)
                self.scope.attributes.setdefault(key, []).append(_Binding(self.scope, None, None, ()))

        def visit_Del(self, node) -> None:  # noqa: ANN001
            target = node.target
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                self._use(target.value, "mutate")
            else:
                self._bind_targets(target)

        def visit_For(self, node) -> None:  # noqa: ANN001
            self._bind_targets(node.target)

        def visit_CompFor(self, node) -> None:  # noqa: ANN001
            self._bind_targets(node.target)

        def visit_NamedExpr(self, node) -> None:  # noqa: ANN001
            self._bind_targets(node.target)

        def visit_ExceptHandler(self, node) -> None:  # noqa: ANN001
            if node.name is not None:
                self._bind_targets(node.name.name)

        def visit_Lambda(self, node) -> None:  # noqa: ANN001
            for param in node.params.params:
                self._handled.add(id(param.name))
                self._bind(param.name.value)

        def visit_MatchAs(self, node) -> None:  # noqa: ANN001
            if node.name is not None:
                self._bind_targets(node.name)

        def visit_MatchStar(self, node) -> None:  # noqa: ANN001
            if node.name is not None:
                self._bind_targets(node.name)

        # reads

        def visit_Attribute(self, node) -> None:  # noqa: ANN001
            self._handled.add(id(node.attr))

        def visit_Arg(self, node) -> None:  # noqa: ANN001
            if node.keyword is not None:
                self._handled.add(id(node.keyword))

        def visit_Return(self, node) -> None:  # noqa: ANN001
            if node.value is not None and self.scope.kind == "function":
                self.returns.append((node, self.scope, tuple(self._suites)))

        def visit_Call(self, node) -> None:  # noqa: ANN001
            self.calls.append((node, self.scope, tuple(self._suites)))
            # A callee may change what it is handed; launchers and `**` unpacking do not.
            launcher = _dotted(node.func).rsplit(".", 1)[-1] in _LAUNCH_CALLS
            for arg in node.args:
                if isinstance(arg.value, cst.Call):
                    self.parent_call[id(arg.value)] = node
                elif isinstance(arg.value, cst.Name) and arg.star != "**" and not launcher:
                    self._passed.add(id(arg.value))
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
                method = func.attr.value
                if method in _EXTENDERS and len(node.args) == 1 and not node.args[0].star:
                    self._use(func.value, method, node.args[0].value)
                elif method in _MUTATORS:
                    self._use(func.value, "mutate")
                else:
                    self._use(func.value, "benign")
            if _benign_call(func):
                self._benign.append(id(node))

        def leave_Call(self, node) -> None:  # noqa: ANN001
            if self._benign and self._benign[-1] == id(node):
                self._benign.pop()

        def visit_FormattedStringExpression(self, node) -> None:  # noqa: ANN001
            self._benign.append(id(node))

        def leave_FormattedStringExpression(self, node) -> None:  # noqa: ANN001
            self._benign.pop()

        def visit_Name(self, node) -> None:  # noqa: ANN001
            if id(node) in self._handled or node.value in ("True", "False", "None"):
                return
            self._use(node, "benign" if self._benign else "pass" if id(node) in self._passed else "read")

    indexer = Indexer()
    doc.module.visit(indexer)
    return indexer


def _target_names(target: object) -> list:
    import libcst as cst

    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _dotted(node: object) -> str:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _benign_call(func: object) -> bool:
    """Calls that only look at their arguments: print, len, ' '.join, logger.info ..."""
    name = _dotted(func)  # ".join" for `" ".join`
    last = name.rsplit(".", 1)[-1]
    return name in _BENIGN_CALLS or last == "join" or ("." in name and last in _LOG_METHODS)


def _char_offsets(text: str) -> list[int]:
    """For each UTF-8 byte of text, the index of its character (and len(text) at the end)."""
    offsets: list[int] = []
    for index, ch in enumerate(text):
        offsets.extend([index] * len(ch.encode("utf-8")))
    offsets.append(len(text))
    return offsets


class _Doc:
    """One parsed file: node spans, and what each scope binds and reads."""

    def __init__(self, source: Source, table: OptionTable, release: str | None, model_lookup: object):
        from libcst.metadata import ByteSpanPositionProvider, MetadataWrapper

        self.source = source
        # The original: what edits copy (quotes, indentation) is read here. libcst
        # sees the reduced text, offset for offset the same, its own bytes counted.
        self.text = source.text
        self.table = table
        self.release = release
        self.model_lookup = model_lookup
        parsed = _reduced(self.text)
        self.module = _parse(parsed)
        self._spans = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(ByteSpanPositionProvider)
        self._char_of = None if len(parsed.encode("utf-8")) == len(parsed) else _char_offsets(parsed)
        self.quote = _file_quote(self.text)
        self.layout = _Layout(self)
        self._appends: dict[int, _Statements] = {}
        index = _indexer(self)
        self.calls = index.calls
        self.returns = index.returns
        self.parent_call = index.parent_call
        self.functions = index.functions
        self.module_scope = index.module
        _resolve_uses(self.module_scope, index.scopes)

    def span(self, node: object) -> Span:
        code = self._spans[node]
        start, end = code.start, code.start + code.length
        if self._char_of is not None:
            start, end = self._char_of[start], self._char_of[end]
        return Span(start, end)

    # names

    def lookup(self, name: str, scope: _Scope) -> list[_Binding]:
        """The bindings a read of name in scope may see (Python's LEGB, without builtins)."""
        if scope.declared.get(name) == "global":
            scope = self.module_scope
        start = scope
        while scope is not None:
            if name in scope.bindings and (scope is start or scope.kind != "class"):
                return scope.bindings[name]
            scope = scope.parent
        return []

    def single(self, name: str, scope: _Scope) -> _Binding | None:
        bindings = self.lookup(name, scope)
        if len(bindings) != 1 or bindings[0].value is None:
            return None
        return bindings[0]

    def owner(self, binding: _Binding, name: str) -> _Scope:
        scope = binding.scope
        while name not in scope.bindings or binding not in scope.bindings[name]:
            scope = scope.parent  # type: ignore[assignment]
        return scope

    def uses(self, binding: _Binding, name: str) -> list[_Use]:
        return self.owner(binding, name).uses.get(name, [])

    def qualified(self, node: object, scope: _Scope) -> set[str]:
        """Dotted names an expression may stand for: `sgl.Engine` -> {"sglang.Engine"}."""
        import libcst as cst

        if isinstance(node, cst.Name):
            bindings = self.lookup(node.value, scope)
            if not bindings:
                return {node.value}
            return {b.qualified for b in bindings if b.qualified}
        if isinstance(node, cst.Attribute):
            return {f"{q}.{node.attr.value}" for q in self.qualified(node.value, scope)}
        return set()


def _resolve_uses(module: _Scope, all_scopes: Sequence[_Scope]) -> None:
    """Move each recorded use to the scope that binds its name."""
    pending = [(name, use) for scope in all_scopes for name, uses in scope.uses.items() for use in uses]
    for scope in all_scopes:
        scope.uses = {}
    for name, use in pending:
        scope = use.scope
        if scope.declared.get(name) == "global":
            scope = module
        start = scope
        while scope.parent is not None and not (
            name in scope.bindings and (scope is start or scope.kind != "class")
        ):
            scope = scope.parent
        scope.uses.setdefault(name, []).append(use)


def _file_quote(text: str) -> str:
    double, single = text.count('"'), text.count("'")
    return "'" if single > double else '"'


@dataclass(frozen=True, slots=True)
class _At:
    """Where a launch is: its scope, offset and the conditional suites around it."""

    scope: _Scope
    offset: int
    blocks: tuple[int, ...]

    def runs_after(self, use: _Use) -> bool:
        """Whether use ran, unconditionally, before every run of this launch."""
        if use.scope is self.scope:
            return use.offset < self.offset and self.blocks[: len(use.blocks)] == use.blocks
        # Straight-line module code runs at import, before any function is called.
        return use.scope.kind == "module" and self.scope.kind != "module" and not use.blocks

    def before(self, use: _Use) -> bool:
        """Whether use may run before this launch."""
        return use.scope is not self.scope or use.offset < self.offset


# -- string literals ----------------------------------------------------------------

_SIMPLE_ESCAPES = {
    "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_NUMERIC_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{([^}]*)\})")
# An f-string field autofix cannot know, as shell text: a variable nobody sets.
_FIELD = "${__AUTOFIX_FIELD__}"


@dataclass(slots=True)
class _Text:
    """A string expression's value, and where each character is spelled in the file."""

    text: str
    starts: list[int]
    ends: list[int]
    end: int  # just before the closing quote
    spell: Callable[[str], str | None]  # inserted text in this literal's syntax
    fields: list[Span]  # f-string fields: their characters are not written here
    kinds: set[tuple[str, str]]  # (prefix, quote) of each piece
    pieces: list[_Piece]  # the adjacent literals it is written in

    @property
    def chars(self) -> tuple[int, ...]:
        return tuple(s if e - s == 1 else -1 for s, e in zip(self.starts, self.ends))

    @property
    def uniform(self) -> bool:
        """One syntax throughout: a deletion across adjacent literals stays exact."""
        return len(self.kinds) == 1

    def plus(self, other: _Text) -> _Text:
        return _Text(
            self.text + other.text, self.starts + other.starts, self.ends + other.ends, other.end,
            _agree(self.spell, other.spell), self.fields + other.fields, self.kinds | other.kinds,
            self.pieces + other.pieces,
        )


@dataclass(frozen=True, slots=True)
class _Piece:
    """One literal of an implicit concatenation: the whole literal and its body."""

    literal: Span
    body: Span


def _string_parts(raw: str) -> tuple[str, str, int]:
    """A literal's lower-case prefix, its quote, and where its body starts."""
    at = 0
    while raw[at] not in "'\"":
        at += 1
    quote = raw[at : at + 3] if raw[at : at + 3] in ('"""', "'''") else raw[at]
    return raw[:at].lower(), quote, at + len(quote)


def _unescape_py(
    body: str, base: int, raw: bool, fstring: bool, keep: bool = False
) -> tuple[str, list[int], list[int]] | None:
    """A literal body's value, with the file span of each character.

    None for an escape autofix does not map (an unrecognised one, which Python
    keeps with its backslash). keep: a backslash-newline, which Python drops,
    is kept as those two characters (a shell reads them as nothing too).
    """
    text: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(ch: str, start: int, end: int) -> None:
        text.append(ch)
        starts.append(base + start)
        ends.append(base + end)

    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\r":  # Python reads CRLF (and a lone CR) in source as a newline
            width = 2 if body.startswith("\r\n", i) else 1
            emit("\n", i, i + width)
            i += width
        elif fstring and ch in "{}":
            if body[i + 1 : i + 2] != ch:
                return None
            emit(ch, i, i + 2)
            i += 2
        elif ch != "\\" or raw:
            emit(ch, i, i + 1)
            i += 1
        elif i + 1 == len(body):
            return None
        elif body[i + 1] in "\r\n":  # a continuation inside the string: stands for nothing
            width = 3 if body.startswith("\r\n", i + 1) else 2
            if keep:
                emit("\\", i, i + 1)
                emit("\n", i + 1, i + width)
            i += width
        elif body[i + 1] in _SIMPLE_ESCAPES:
            emit(_SIMPLE_ESCAPES[body[i + 1]], i, i + 2)
            i += 2
        else:
            match = _NUMERIC_ESCAPE.match(body, i)
            if match is None:
                return None
            octal, byte, short, long, name = match.groups()
            try:
                if name is not None:
                    code = ord(unicodedata.lookup(name))
                else:
                    code = int(octal, 8) if octal else int(byte or short or long, 16)
                emit(chr(code), i, match.end())
            except (KeyError, ValueError):
                return None
            i = match.end()
    return "".join(text), starts, ends


def _speller(prefix: str, quote: str, newline: str, keep: bool = False) -> Callable[[str], str | None]:
    """How text inserted into a literal of this kind is written; None when it cannot be, exactly.

    keep: the text was read with continuations kept (see _unescape_py), so a
    backslash-newline is written as one.
    """
    raw, formatted, triple, q = "r" in prefix, "f" in prefix, len(quote) == 3, quote[0]

    def spell(text: str) -> str | None:
        out: list[str] = []
        skip = False
        for i, ch in enumerate(text):
            if skip:
                skip = False
            elif keep and not raw and text.startswith("\\\n", i):
                out.append("\\" + newline)
                skip = True
            elif ch == "\n":
                if raw and not triple:
                    return None
                out.append(newline if triple else "\\n")
            elif formatted and ch in "{}":
                out.append(ch * 2)
            elif ch == "\\":
                if raw and i + 1 == len(text):
                    return None  # it would escape the character after it
                out.append(ch if raw else "\\\\")
            elif ch == q:
                if raw:
                    return None
                out.append("\\" + ch)
            elif ch == "\t" or ch.isprintable():
                out.append(ch)
            else:
                return None
        return "".join(out)

    return spell


def _agree(first: Callable[[str], str | None], second: Callable[[str], str | None]) -> Callable[[str], str | None]:
    """Adjacent literals: inserted text is exact only when both spell it alike."""

    def spell(text: str) -> str | None:
        written = first(text)
        return written if written is not None and written == second(text) else None

    return spell


def _py_str(value: str, quote: str) -> str:
    if not value.isprintable():
        return repr(value)
    return quote + value.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote


def _py_value(option: Option, value: str, quote: str) -> str:
    if option.type == "int" and re.fullmatch(r"-?[0-9]+", value):
        return value
    if option.type == "float" and re.fullmatch(r"-?[0-9]+(\.[0-9]*)?", value):
        return value
    return _py_str(value, quote)


# -- values -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Value:
    kind: str  # "str", "int", "float", "bool", "none", "unknown"
    value: object = None
    chars: tuple[int, ...] | None = None  # a string literal written here: each character's offset
    editable: bool = True  # False: read from a constant bound elsewhere

    @property
    def text(self) -> str | None:
        """The argv token, as str() writes it."""
        return None if self.kind == "unknown" else str(self.value)

    def borrowed(self) -> _Value:
        return replace(self, chars=None, editable=False) if self.kind != "unknown" else self


_UNKNOWN = _Value("unknown")


# -- containers: how an edit is spelled in a call, a list, a dict ---------------------


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    comma_end: int | None  # just after the comma that follows it, if any

    @property
    def stop(self) -> int:
        return self.comma_end if self.comma_end is not None else self.end


class _Layout:
    """Line-level facts about the file, shared by the containers."""

    def __init__(self, doc: _Doc):
        self.source = doc.source
        self.text = doc.text

    def line_of(self, offset: int) -> int:
        return self.source.line_col(offset)[0]

    def own_lines(self, start: int, stop: int) -> bool:
        """Nothing but indentation before start, nothing but a comment after stop, on their lines."""
        line = self.source.line_span(start)
        if self.text[line.start : start].strip():
            return False
        rest = self.text[stop : self.source.line_span(stop).end].strip()
        return not rest or rest.startswith("#")

    def indent(self, offset: int) -> str:
        return self.text[self.source.line_span(offset).start : offset]

    def next_line(self, offset: int) -> int:
        """Where the line after offset's line starts (the end of the text on the last line)."""
        end = self.source.line_span(offset).end
        if self.text.startswith("\r\n", end):
            return end + 2
        return min(end + 1, len(self.text))


class _Items:
    """Comma-separated items between brackets: a call's arguments, a list's
    elements or a dict's entries. Edits follow the layout the items are written
    in: one per line, several per line, or all on one line.
    """

    def __init__(self, doc: _Doc, kind: str, items: Sequence[_Item], frozen: bool = False):
        self.doc = doc
        self.layout = doc.layout
        self.kind = kind  # "call" (keywords), "dict" (string keys), "list" (argv tokens)
        self.items = list(items)
        self.frozen = frozen
        self.owner: dict[Arg, int] = {}
        self.tokens: dict[int, list[Arg]] = {}
        self.written: dict[str, Span] = {}  # dest -> its value's span, for call and dict items

    def own(self, arg: Arg, index: int) -> Arg:
        self.owner[arg] = index
        self.tokens.setdefault(index, []).append(arg)
        return arg

    # Container

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        if self.frozen or not arg.editable or span is None:
            return ()
        return (Edit(span, value),)

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        return (Edit.delete(self._removal(*run)),)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if self.frozen or run is None:
            return ()
        if self.kind != "list" and new.option.dest in self.written:
            return self._rewrite(new)
        first, last = (self.items[i] for i in run)
        quote = self._quote(run)
        entries = self._entries(new, quote)
        layout = self.layout
        if not layout.own_lines(first.start, last.stop):
            return (Edit.insert(last.end, ", " + ", ".join(entries)),)
        indent = layout.indent(first.start)
        nl = self.doc.source.newline
        lines = entries if self.kind == "list" and self._one_per_line() else [", ".join(entries)]
        after = layout.next_line(last.stop)
        if last.comma_end is not None:
            return (Edit.insert(after, "".join(f"{indent}{line},{nl}" for line in lines)),)
        # The last item, without a trailing comma: keep it that way.
        body = f",{nl}".join(f"{indent}{line}" for line in lines)
        return (Edit.insert(last.end, ","), Edit.insert(after, body + nl))

    # layout

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        """The items args fill, first and last, when they fill them exactly."""
        indices = [self.owner.get(arg) for arg in args]
        if not indices or None in indices:
            return None
        first, last = min(indices), max(indices)  # type: ignore[type-var]
        covered = {arg for i in range(first, last + 1) for arg in self.tokens.get(i, ())}
        if not covered or not covered <= set(args) or set(indices) != set(range(first, last + 1)):
            return None
        return first, last

    def _removal(self, first: int, last: int) -> Span:
        items, layout = self.items, self.layout
        a, b = items[first], items[last]
        prev = items[first - 1] if first > 0 else None
        nxt = items[last + 1] if last + 1 < len(items) else None
        if layout.own_lines(a.start, b.stop):
            return Span(self.doc.source.line_span(a.start).start, layout.next_line(b.stop))
        if nxt is not None and layout.line_of(b.stop) == layout.line_of(nxt.start):
            return Span(a.start, nxt.start)
        if prev is not None:
            return Span(prev.end, b.end)
        if nxt is not None:
            return Span(a.start, nxt.start)
        return Span(a.start, b.stop)

    def _one_per_line(self) -> bool:
        lines = [self.layout.line_of(item.start) for item in self.items]
        return len(set(lines)) == len(lines)

    def _quote(self, run: tuple[int, int]) -> str:
        text = self.doc.text
        order = [*range(run[0], run[1] + 1), *range(len(self.items))]
        for i in order:
            item = self.items[i]
            match = _QUOTE.search(text, item.start, item.end)
            if match is not None:
                return match.group(1)
        return self.doc.quote

    def _entries(self, new: NewFlag, quote: str) -> list[str]:
        if self.kind == "list":
            return [_py_str(token, quote) for token in new.tokens()]
        value = "True" if new.value is None else _py_value(new.option, new.value, quote)
        if self.kind == "call":
            return [f"{new.option.dest}={value}"]
        return [f"{_py_str(new.option.dest, quote)}: {value}"]

    def _rewrite(self, new: NewFlag) -> tuple[Edit, ...]:
        """The dest is written already, as `False`: a boolean turned on is `True` there."""
        span = self.written[new.option.dest]
        if new.value is None and self.doc.text[span.start : span.end] == "False":
            return (Edit(span, "True"),)
        return ()


_QUOTE = re.compile(r"""(?<![\w'"])[rRuUfF]{0,2}(['"])""")


class _Statements:
    """`cmd.append(x)` statements, one token each: removed or added a whole line at a time."""

    def __init__(self, doc: _Doc, name: str):
        self.doc = doc
        self.layout = doc.layout
        self.name = name
        self.spans: list[Span] = []
        self.owner: dict[Arg, int] = {}

    def own(self, arg: Arg, span: Span) -> Arg:
        self.spans.append(span)
        self.owner[arg] = len(self.spans) - 1
        return arg

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        span = arg.region(start, end)
        return (Edit(span, value),) if span is not None and arg.editable else ()

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        run = self._run(args)
        if run is None:
            return ()
        spans = self.spans[run[0] : run[1] + 1]
        line_start = self.doc.source.line_span
        return tuple(Edit.delete(Span(line_start(s.start).start, self.layout.next_line(s.end))) for s in spans)

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        run = self._run(args)
        if run is None:
            return ()
        last = self.spans[run[1]]
        indent, nl = self.layout.indent(last.start), self.doc.source.newline
        quote = _QUOTE.search(self.doc.text, last.start, last.end)
        q = quote.group(1) if quote else self.doc.quote
        lines = "".join(f"{indent}{self.name}.append({_py_str(token, q)}){nl}" for token in new.tokens())
        return (Edit.insert(self.layout.next_line(last.end), lines),)

    def _run(self, args: Sequence[Arg]) -> tuple[int, int] | None:
        indices = sorted(self.owner.get(arg, -1) for arg in args)
        if not indices or indices[0] < 0 or indices != list(range(indices[0], indices[-1] + 1)):
            return None
        if not all(self.layout.own_lines(self.spans[i].start, self.spans[i].end) for i in indices):
            return None
        return indices[0], indices[-1]


# -- reading expressions -----------------------------------------------------------


class _Reader:
    """What expressions stand for: scalars, strings, argv lists, keyword sets."""

    def __init__(self, doc: _Doc):
        import libcst as cst

        self.cst = cst
        self.doc = doc
        self.span = doc.span

    # scalars and strings

    def scalar(self, node: object, scope: _Scope, at: _At, depth: int = 0) -> _Value:
        cst = self.cst
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            text = self.string(node, scope, at)
            if text is None or text.fields:
                return _UNKNOWN
            return _Value("str", text.text, text.chars)
        if isinstance(node, cst.Integer):
            try:
                return _Value("int", int(node.value.replace("_", ""), 0))
            except ValueError:
                return _UNKNOWN
        if isinstance(node, cst.Float):
            return _Value("float", float(node.value.replace("_", "")))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.scalar(node.expression, scope, at, depth + 1)
            if inner.kind in ("int", "float") and isinstance(node.expression, (cst.Integer, cst.Float)):
                return _Value(inner.kind, -inner.value, editable=inner.editable)  # type: ignore[operator]
            return _UNKNOWN
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return _Value("bool", node.value == "True")
            if node.value == "None":
                return _Value("none")
            binding = self.doc.single(node.value, scope)
            if binding is None or depth > 8:
                return _UNKNOWN
            return self.scalar(binding.value, binding.scope, at, depth + 1).borrowed()
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, at, depth)
        if isinstance(node, cst.Call) and self.doc.qualified(node.func, scope) == {"str"}:
            args = node.args
            if len(args) == 1 and not args[0].star and args[0].keyword is None:
                inner = self.scalar(args[0].value, scope, at, depth + 1)
                if inner.kind != "unknown":
                    return _Value("str", inner.text, editable=inner.editable)
        return _UNKNOWN

    def _attribute(self, node, scope: _Scope, at: _At, depth: int) -> _Value:  # noqa: ANN001
        """`cls.model` assigned once, earlier, unconditionally, in the same function."""
        if scope is not at.scope or not isinstance(node.value, self.cst.Name):
            return _UNKNOWN
        bindings = scope.attributes.get((node.value.value, node.attr.value), [])
        if len(bindings) != 1 or bindings[0].value is None:
            return _UNKNOWN
        binding = bindings[0]
        if binding.offset > at.offset or at.blocks[: len(binding.blocks)] != binding.blocks:
            return _UNKNOWN
        return self.scalar(binding.value, scope, at, depth + 1).borrowed()

    def string(self, node: object, scope: _Scope, at: _At, keep: bool = False) -> _Text | None:
        """A string's value; keep: with its backslash-newlines kept (see _unescape_py)."""
        cst = self.cst
        if isinstance(node, cst.SimpleString):
            return self._simple(node, keep)
        if isinstance(node, cst.FormattedString):
            return self._formatted(node, scope, at, keep)
        if isinstance(node, cst.ConcatenatedString):
            left, right = self.string(node.left, scope, at, keep), self.string(node.right, scope, at, keep)
            return left.plus(right) if left is not None and right is not None else None
        return None

    def _simple(self, node, keep: bool) -> _Text | None:  # noqa: ANN001
        raw = node.value
        prefix, quote, at = _string_parts(raw)
        if "b" in prefix:
            return None
        start = self.span(node).start + at
        body = raw[at : len(raw) - len(quote)]
        decoded = _unescape_py(body, start, "r" in prefix, False, keep)
        if decoded is None:
            return None
        speller = _speller(prefix, quote, self.doc.source.newline, keep)
        piece = _Piece(self.span(node), Span(start, start + len(body)))
        return _Text(*decoded, start + len(body), speller, [], {(prefix, quote)}, [piece])

    def _formatted(self, node, scope: _Scope, at: _At, keep: bool) -> _Text | None:  # noqa: ANN001
        prefix, quote, _ = _string_parts(node.start)
        if "b" in prefix:
            return None
        text, starts, ends, fields = "", [], [], []
        for part in node.parts:
            span = self.span(part)
            if isinstance(part, self.cst.FormattedStringText):
                decoded = _unescape_py(part.value, span.start, "r" in prefix, True, keep)
                if decoded is None:
                    return None
                text += decoded[0]
                starts += decoded[1]
                ends += decoded[2]
                continue
            value = None
            if part.conversion is None and part.format_spec is None and part.equal is None:
                value = self.scalar(part.expression, scope, at).text
            value = _FIELD if value is None else value
            text += value
            starts += [span.start] * len(value)
            ends += [span.end] * len(value)
            fields.append(span)
        literal = self.span(node)
        end = literal.end - len(quote)
        piece = _Piece(literal, Span(literal.start + len(node.start), end))
        speller = _speller(prefix, quote, self.doc.source.newline, keep)
        return _Text(text, starts, ends, end, speller, fields, {(prefix, quote)}, [piece])

    # argv lists

    def argv(self, node: object, scope: _Scope, at: _At, depth: int = 0, frozen: bool = False) -> list[Arg]:
        """The argv tokens an expression stands for; a splat where that is not known."""
        cst = self.cst
        if isinstance(node, (cst.List, cst.Tuple)):
            return self.elements(node.elements, scope, at, frozen)
        if isinstance(node, cst.Name) and depth < 8:
            binding = self.doc.single(node.value, scope)
            if binding is not None and isinstance(binding.value, (cst.List, cst.Tuple, cst.BinaryOperation, cst.Name)):
                return self._bound_list(node, binding, at, depth, frozen)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = self.argv(node.left, scope, at, depth + 1, frozen)
            return left + self.argv(node.right, scope, at, depth + 1, frozen)
        if isinstance(node, cst.Call) and self.doc.qualified(node.func, scope) & {"list", "tuple"}:
            if len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None:
                return self.argv(node.args[0].value, scope, at, depth + 1, frozen)
        return [Arg(None, self.span(node), splat=True)]

    def elements(self, nodes: Sequence[object], scope: _Scope, at: _At, frozen: bool) -> list[Arg]:
        """List elements (or positional call arguments) as argv tokens, in a list container."""
        cst = self.cst
        container = _Items(self.doc, "list", [self._item(n) for n in nodes], frozen)
        args: list[Arg] = []
        for index, node in enumerate(nodes):
            if getattr(node, "keyword", None) is not None:
                continue
            if isinstance(node, cst.StarredElement) or getattr(node, "star", "") == "*":
                args += self.argv(node.value, scope, at, frozen=frozen)
            elif getattr(node, "star", "") == "**":
                continue
            else:
                args.append(container.own(self.token(node.value, scope, at, container), index))
        return args

    def token(self, node: object, scope: _Scope, at: _At, container: object) -> Arg:
        span = self.span(node)
        if "sys.executable" in self.doc.qualified(node, scope):
            return Arg("python", span, container, editable=False)  # type: ignore[arg-type]
        value = self.scalar(node, scope, at)
        if value.kind == "unknown":
            return Arg(None, span, container)  # type: ignore[arg-type]
        return Arg(value.text, span, container, editable=value.editable, chars=value.chars)  # type: ignore[arg-type]

    def _bound_list(self, node, binding: _Binding, at: _At, depth: int, frozen: bool) -> list[Arg]:  # noqa: ANN001
        """A list bound once, with what straight-line code adds to it before the launch."""
        name = node.value
        uses = sorted(self.doc.uses(binding, name), key=lambda u: u.offset)
        frozen = frozen or _reads(uses) != 1
        args = self.argv(binding.value, binding.scope, at, depth + 1, frozen)
        for use in uses:
            if not _may_change(use, node, at):
                continue
            if use.role in ("mutate", "pass") or not at.runs_after(use):
                args.append(Arg(None, self.span(use.node), splat=True, local=True))
            elif use.role == "extend":
                args += self.argv(use.operand, use.scope, at, depth + 1, frozen)
            else:
                args.append(self._appended(name, binding, use, at, frozen))
        return args

    def _appended(self, name: str, binding: _Binding, use: _Use, at: _At, frozen: bool) -> Arg:
        statements = self.doc._appends.setdefault(id(binding), _Statements(self.doc, name))
        token = self.token(use.operand, use.scope, at, None if frozen else statements)
        statement = use.statement
        lone = statement is not None and len(statement.body) == 1 and isinstance(statement.body[0], self.cst.Expr)
        if frozen or not lone:
            return replace(token, editable=False)
        return statements.own(token, self.span(statement.body[0]))

    # keyword sets

    def keywords(  # noqa: ANN001
        self, call, scope: _Scope, at: _At, frozen: bool = False, positional: Sequence[str] = ()
    ) -> list[Arg]:
        """A call's keywords (Engine, ServerArgs, dict) as SGLang flags.

        Python refuses a keyword passed twice, so nothing a `**splat` holds can
        override a keyword written in the call: those go last.
        """
        container = _Items(self.doc, "call", [self._item(a) for a in call.args], frozen)
        spread: list[Arg] = []
        written: list[Arg] = []
        for index, arg in enumerate(call.args):
            if arg.star == "**":
                spread += self.kwargs(arg.value, scope, at)
            elif arg.star or arg.keyword is None and index >= len(positional):
                spread.append(Arg(None, self.span(arg), splat=True))
            else:
                dest = arg.keyword.value if arg.keyword is not None else positional[index]
                where = self.span(arg.keyword) if arg.keyword is not None else self.span(arg.value)
                written += self.keyword(dest, where, arg.value, scope, at, container, index)
        return spread + written

    def kwargs(self, node: object, scope: _Scope, at: _At, depth: int = 0, frozen: bool = False) -> list[Arg]:
        """What `**node` passes: a dict literal's entries, a `dict(...)` call's keywords, else a splat."""
        cst = self.cst
        if isinstance(node, cst.Dict):
            return self._entries(node, scope, at, frozen)
        if isinstance(node, cst.Call) and self.doc.qualified(node.func, scope) == {"dict"}:
            return self.keywords(node, scope, at, frozen)
        if isinstance(node, cst.Name) and depth < 8:
            binding = self.doc.single(node.value, scope)
            if binding is not None and isinstance(binding.value, (cst.Dict, cst.Call, cst.Name)):
                uses = self.doc.uses(binding, node.value)
                frozen = frozen or _reads(uses) != 1
                args = self.kwargs(binding.value, binding.scope, at, depth + 1, frozen)
                # Entries set, updated or popped before the launch (or the dict handed
                # to a function that may do so): any key may differ.
                if any(_may_change(u, node, at) for u in uses):
                    args.append(Arg(None, self.span(node), splat=True, local=True))
                return args
        return [Arg(None, self.span(node), splat=True)]

    def _entries(self, node, scope: _Scope, at: _At, frozen: bool) -> list[Arg]:  # noqa: ANN001
        cst = self.cst
        container = _Items(self.doc, "dict", [self._item(e) for e in node.elements], frozen)
        args: list[Arg] = []
        for index, element in enumerate(node.elements):
            if isinstance(element, cst.StarredDictElement):
                args += self.kwargs(element.value, scope, at)
                continue
            key = self.scalar(element.key, scope, at)
            if key.kind != "str":
                args.append(Arg(None, self.span(element), splat=True))
                continue
            where = self.span(element.key)
            args += self.keyword(key.value, where, element.value, scope, at, container, index)  # type: ignore[arg-type]
        return args

    def keyword(
        self, dest: str, where: Span, node: object, scope: _Scope, at: _At, container: _Items, index: int
    ) -> list[Arg]:
        """The argv tokens of `dest=node`: the primary flag and its value."""
        option = self.doc.table.by_dest(dest)
        if option is None or dest == "config":
            # Not a flag of this release, or (--config) not a ServerArgs field: it sets nothing autofix reads.
            return []
        span = self.span(node)
        container.written[dest] = span
        value = self.scalar(node, scope, at)
        flag = Arg(option.primary, where, container)
        token = Arg(value.text, span, container, editable=value.editable, chars=value.chars)
        tokens = _keyword_tokens(option, value, flag, token)
        return [container.own(token, index) for token in tokens]

    def _item(self, node) -> _Item:  # noqa: ANN001
        span = self.span(node)
        comma = getattr(node, "comma", None)
        comma_end = self.span(comma).end if isinstance(comma, self.cst.Comma) else None
        return _Item(span.start, span.end, comma_end)


def _keyword_tokens(option: Option, value: _Value, flag: Arg, token: Arg) -> list[Arg]:
    """What a keyword stands for on the command line; an opaque token where that is not known."""
    unknown = replace(token, text=None, chars=None)
    if option.is_boolean:
        if value.kind != "bool":
            return [unknown]  # it may or may not set the flag
        if option.action == "boolean_optional":
            return [flag if value.value else replace(flag, text="--no-" + option.primary[2:])]
        on = value.value if option.action != "store_false" else not value.value
        return [flag] if on else []
    if not option.takes_value:
        return [unknown]
    if value.kind == "none":
        return [] if option.default is None else [flag, unknown]
    if value.kind in ("unknown", "bool"):
        return [flag, unknown]
    return [flag, token]


# -- finding launches -----------------------------------------------------------------

_KEYWORD_LAUNCHES = frozenset({"Engine", "Runtime", "ServerArgs"})
_POPEN_LAUNCHES = {"popen_launch_server": "serve", "popen_launch_pd_server": "launch_server"}
_SUBPROCESS = frozenset(f"subprocess.{f}" for f in ("Popen", "run", "call", "check_call", "check_output"))
_SHELL_CALLS = frozenset({"os.system", "os.popen", "asyncio.create_subprocess_shell"})
# `os.execv(path, argv)` and its kin: the argv is the second argument.
_EXEC_CALLS = frozenset(f"os.{f}" for f in ("execv", "execve", "execvp", "execvpe"))
# Calls whose argument a ServerArgs launch may be: the launch starts where they do.
_LAUNCHERS = frozenset({"launch_server", "run_server", "Engine", "Runtime"})


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


class _Finder:
    def __init__(self, doc: _Doc):
        self.doc = doc
        self.reader = _Reader(doc)
        self.cst = self.reader.cst

    def read(self, args: Sequence[Arg], span: Span, form: str, wrappers: tuple[str, ...] = ()) -> Launch:
        doc = self.doc
        return Launch.read(args, doc.table, span, form, release=doc.release, model_lookup=doc.model_lookup,
                           wrappers=wrappers)

    def returned(self, node, scope: _Scope, blocks: tuple[int, ...]) -> list[Launch]:  # noqa: ANN001
        """An argv list a helper function builds and returns (`return cmd`), read where it is returned:
        the caller runs it. What a call of the helper does with it after is the caller's."""
        value = node.value
        if not isinstance(value, (self.cst.Name, self.cst.List, self.cst.Tuple, self.cst.BinaryOperation)):
            return []
        at = _At(scope, self.doc.span(node).start, blocks)
        return self.launch_from_argv(node, self.reader.argv(value, scope, at))

    def launches(self, call, scope: _Scope, blocks: tuple[int, ...]) -> list[Launch]:  # noqa: ANN001
        doc = self.doc
        at = _At(scope, doc.span(call).start, blocks)
        names = doc.qualified(call.func, scope)
        sglang = {q.rsplit(".", 1)[-1] for q in names if q.startswith("sglang.")}
        if sglang & _KEYWORD_LAUNCHES:
            launch = self.keyword_launch(call, scope, at, "ServerArgs" in sglang)
            return [launch] if launch is not None else []
        for name, form in _POPEN_LAUNCHES.items():
            if name in sglang:
                return self.popen_launch(call, scope, at, form)
        if "prepare_server_args" in sglang:
            node = _argument(call, 0, "argv")
            return self.argv_launch(call, node, scope, at, start=0) if node is not None else []
        if _dotted(call.func).rsplit(".", 1)[-1] in ("launch_server_cmd", "execute_shell_command"):
            return self.launch_server_cmd(call, _argument(call, 0, "command"), scope, at)
        if names & _SUBPROCESS:
            return self.subprocess_launches(call, scope, at)
        if names & _SHELL_CALLS:
            node = _argument(call, 0, "command" if "os.system" in names else "cmd")
            return self.command_launches(call, node, scope, at) if node is not None else []
        if names & _EXEC_CALLS:
            node = _argument(call, 1, "args")
            return self.argv_launch(call, node, scope, at) if node is not None else []
        if "asyncio.create_subprocess_exec" in names:
            return self.launch_from_argv(call, self.reader.elements(call.args, scope, at, False))
        return self.runner_launches(call, scope, at)

    # helpers that run what they are handed

    @functools.cached_property
    def runners(self) -> dict[int, tuple[int, str, str]]:
        """The module's functions that run a parameter: id(binding of the def) -> (its index, its name,
        "argv" or "command"), for `def _popen(cmd): return subprocess.Popen(cmd, ...)`. The launch is
        read where the function is called, from what the call hands it."""
        doc = self.doc
        defs = {id(scope): (node, binding) for binding, (node, scope) in doc.functions.items()}
        found: dict[int, tuple[int, str, str]] = {}
        for call, scope, _ in doc.calls:
            if id(scope) not in defs:
                continue
            node, binding = defs[id(scope)]
            kind, handed = self._runs(call, scope)
            if handed is None or not isinstance(handed, self.cst.Name):
                continue
            params = [p.name.value for p in (*node.params.posonly_params, *node.params.params)]
            bound = doc.lookup(handed.value, scope)
            if handed.value in params and len(bound) == 1 and bound[0].value is None:
                found.setdefault(binding, (params.index(handed.value), handed.value, kind))
        return found

    def _runs(self, call, scope: _Scope) -> tuple[str, object]:  # noqa: ANN001
        """What a call runs, and how: ("argv", node), ("command", node) or ("either", node) when a
        string is a command and a list an argv; ("", None) for other calls."""
        names = self.doc.qualified(call.func, scope)
        if names & _SUBPROCESS:
            shell = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "shell"), None)
            if shell is not None and not (isinstance(shell, self.cst.Name) and shell.value in ("True", "False")):
                return "", None
            kind = "command" if shell is not None and shell.value == "True" else "argv"
            if shell is None and any(a.star == "**" for a in call.args):
                kind = "either"  # `**kwargs` may hold shell=True: a string handed in is a command, a list an argv
            return kind, _argument(call, 0, "args")
        if names & _SHELL_CALLS:
            return "command", _argument(call, 0, "command" if "os.system" in names else "cmd")
        if names & _EXEC_CALLS:
            return "argv", _argument(call, 1, "args")
        return "", None

    def runner_launches(self, call, scope: _Scope, at: _At) -> list[Launch]:  # noqa: ANN001
        """`_popen(cmd)`, `self._run(cmd)`: a call of one of the module's functions that run a parameter."""
        func, shift = call.func, 0
        if isinstance(func, self.cst.Attribute) and isinstance(func.value, self.cst.Name) \
                and func.value.value in ("self", "cls"):
            method = scope
            while method is not None and method.kind != "class":
                method = method.parent
            bindings = method.bindings.get(func.attr.value, []) if method is not None else []
            func, shift = func.attr, 1
        elif isinstance(func, self.cst.Name):
            bindings = self.doc.lookup(func.value, scope)
        else:
            return []
        if len(bindings) != 1 or id(bindings[0]) not in self.runners:
            return []
        index, name, kind = self.runners[id(bindings[0])]
        node = _argument(call, index - shift, name)
        if node is None or index - shift < 0:
            return []
        read = self.argv_launch if kind == "argv" else self.command_or_argv
        launches = read(call, node, scope, at)
        for launch in launches:
            launch.put_behind((f"{func.value}()",))
        return launches

    # keyword launches

    def keyword_launch(self, call, scope: _Scope, at: _At, server_args: bool) -> Launch | None:  # noqa: ANN001
        if any(a.keyword is not None and a.keyword.value == "server_args" for a in call.args):
            return None  # Engine(server_args=...): the ServerArgs is the launch
        args = self.reader.keywords(call, scope, at, positional=("model_path",) if server_args else ())
        outer = self.doc.parent_call.get(id(call))
        if outer is not None and _dotted(outer.func).rsplit(".", 1)[-1] in _LAUNCHERS:
            call = outer
        return self.read(args, self.doc.span(call), "engine")

    # argument vectors

    def popen_launch(self, call, scope: _Scope, at: _At, form: str) -> list[Launch]:  # noqa: ANN001
        """`popen_launch_server(model, url, timeout, api_key, other_args)`.

        It runs `sglang serve --model-path MODEL *other_args` (`python3 -m
        sglang.launch_server` for the PD variant).
        """
        model = _argument(call, 0, "model")
        if model is None:
            return []
        reader = self.reader
        args = [Arg("--model-path", self.doc.span(model)), reader.token(model, scope, at, None)]
        other = _argument(call, 4, "other_args")
        if other is not None:
            args += reader.argv(other, scope, at)
        elif any(a.star for a in call.args):
            args.append(Arg(None, self.doc.span(call), splat=True))
        return [self.read(args, self.doc.span(call), form)]

    def subprocess_launches(self, call, scope: _Scope, at: _At) -> list[Launch]:  # noqa: ANN001
        node = _argument(call, 0, "args")
        shell = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "shell"), None)
        if node is None:
            return []
        if shell is not None:
            value = self.reader.scalar(shell, scope, at)
            if value.kind != "bool":
                return []
            if value.value:
                return self.command_launches(call, node, scope, at)
        return self.argv_launch(call, node, scope, at)

    def command_or_argv(self, call, node, scope: _Scope, at: _At) -> list[Launch]:  # noqa: ANN001
        if node is None:
            return []
        if isinstance(node, (self.cst.List, self.cst.Tuple)):
            return self.argv_launch(call, node, scope, at)
        if isinstance(node, self.cst.Name):
            binding = self.doc.single(node.value, scope)
            if binding is not None and isinstance(binding.value, (self.cst.List, self.cst.Tuple)):
                return self.argv_launch(call, node, scope, at)
        return self.command_launches(call, node, scope, at)

    def argv_launch(self, call, node, scope: _Scope, at: _At, start: int | None = None) -> list[Launch]:  # noqa: ANN001
        command, wrappers = self._split_command(node, scope, at)
        if command is not None:
            return self.command_launches(call, command, scope, at, wrappers)
        branches = self._branches(node, scope, at)
        if branches:
            return [launch for binding in branches for launch in self.launch_from_argv(
                call, self.reader._bound_list(node, binding, at, 1, False), start)]
        return self.launch_from_argv(call, self.reader.argv(node, scope, at), start)

    def _branches(self, node, scope: _Scope, at: _At) -> list[_Binding]:  # noqa: ANN001
        """The lists a name is bound to in the branches of a condition (`if tp: cmd = [...] else: cmd =
        [...]`), each of which may be the one run: every binding in the launch's own scope, before it, that
        no later binding before the launch overwrites on every path. Empty unless there are several,
        all lists."""
        if not isinstance(node, self.cst.Name):
            return []
        bindings = self.doc.lookup(node.value, scope)
        if len(bindings) < 2 or any(b.scope is not scope or not isinstance(b.value, (self.cst.List, self.cst.Tuple))
                                    for b in bindings):
            return []
        offsets = [self.doc.span(b.value).start for b in bindings]
        if any(offset > at.offset for offset in offsets):
            return []

        def overwritten(i: int) -> bool:
            return any(offsets[i] < offsets[j] and bindings[i].blocks[: len(bindings[j].blocks)] == bindings[j].blocks
                       for j in range(len(bindings)))

        return [b for i, b in enumerate(bindings) if not overwritten(i)]

    def _split_command(self, node, scope: _Scope, at: _At):  # noqa: ANN001, ANN202
        """The command string of `shlex.split(s)`, `s.split()` or `["bash", "-c", s]` (a script
        last in an argv list, behind any wrappers), and the wrappers; else None."""
        cst = self.cst
        if isinstance(node, cst.Call):
            if self.doc.qualified(node.func, scope) == {"shlex.split"}:
                return _argument(node, 0, "s"), ()
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "split" and not node.args:
                return node.func.value, ()
        if isinstance(node, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
            texts = [self.reader.scalar(e.value, scope, at).text for e in node.elements]
            found = recognise(texts)
            if isinstance(found, Script) and found.index == len(texts) - 1:
                return node.elements[found.index].value, found.wrappers
        return None, ()

    def launch_from_argv(self, call, args: list[Arg], start: int | None = None) -> list[Launch]:  # noqa: ANN001
        if start is not None:
            return [self.read(args, self.doc.span(call), "launch_server")]
        found = recognise([None if a.splat else a.text for a in args])
        if not isinstance(found, Entry):
            return []
        return [self.read(args[found.index:], self.doc.span(call), found.form, found.wrappers)]

    # command strings

    def command_launches(self, call, node, scope: _Scope, at: _At,  # noqa: ANN001
                         wrappers: tuple[str, ...] = ()) -> list[Launch]:
        found = self._command(node, scope, at)
        if found is None or "sglang" not in found[0].text:
            return []
        text, frozen = found
        launches = self._shell(call, text, frozen, wrappers)
        # `\`-continued lines, written the way a shell script is: let the shell
        # layer see them, so a new flag gets a continued line of its own. Both
        # readings must give the same argv.
        kept = self._command(node, scope, at, keep=True)
        if kept is not None and kept[0].text != text.text:
            lines = self._shell(call, kept[0], frozen, wrappers)
            if _argvs(lines) == _argvs(launches):
                return lines
        return launches

    def launch_server_cmd(self, call, node, scope: _Scope, at: _At) -> list[Launch]:  # noqa: ANN001
        """`launch_server_cmd(command)`: the command as SGLang splits it, on whitespace.

        `sglang.utils.execute_shell_command` (0.5.17 to 0.5.23) turns every
        backslash into a space, splits on whitespace, takes the leading NAME=value
        words as the environment and runs the rest with no shell: quotes stay in
        their words and `$VAR` is not expanded. A word the shell reading of the
        string reads alike, at the same place, keeps that reading's way of being
        edited; any other word (`'{"a":`, `"v3"`) is read only.
        """
        shell = self.command_or_argv(call, node, scope, at)
        found = self._command(node, scope, at) if node is not None else None
        if found is None or "sglang" not in found[0].text:
            return shell  # an argv list, or nothing autofix can read
        text = found[0]
        embedding = Embedding(text.starts, text.ends, text.end, text.spell)
        known = {(a.span.start, a.span.end): a for launch in shell for a in launch.args}
        args: list[Arg] = []
        for start, end in _sglang_words(text.text):
            span = embedding.span(Span(start, end))
            arg = _embedded(Arg(text.text[start:end], span, editable=False,
                                chars=tuple(embedding.char(k) for k in range(start, end))), text.fields, True)
            same = known.get((span.start, span.end))
            # A word that holds an f-string field may be any words: the shell reading's unknown.
            args.append(same if same is not None and (same.text == arg.text or arg.text is None) else arg)
        return self.launch_from_argv(call, args)

    def _shell(self, call, text: _Text, frozen: bool, wrappers: tuple[str, ...] = ()) -> list[Launch]:  # noqa: ANN001
        """The shell launches in a command string's value, spans and edits mapped to the file."""
        from autofix.formats import shell

        frozen = frozen or not text.uniform
        spell = (lambda _: None) if frozen else text.spell
        embedding = Embedding(text.starts, text.ends, text.end, spell)
        doc = self.doc
        span = doc.span(call)
        launches = shell.find_launches(Source(text.text), doc.table, doc.release, doc.model_lookup, embedding=embedding)
        tidy: dict[int, _Tidy] = {}

        def embedded(arg: Arg) -> Arg:
            arg = _embedded(arg, text.fields, frozen)
            if arg.container is None or len(text.pieces) < 2:
                return arg
            wrapper = tidy.setdefault(id(arg.container), _Tidy(arg.container, text.pieces, doc.layout))
            return replace(arg, container=wrapper)

        return [self.read([embedded(a) for a in l.args], span, l.form, (*wrappers, *l.wrappers)) for l in launches]

    def _command(self, node, scope: _Scope, at: _At, keep: bool = False) -> tuple[_Text, bool] | None:  # noqa: ANN001
        """The command string an expression holds, and whether it must not be edited."""
        if node is None:
            return None
        reader = self.reader
        if isinstance(node, self.cst.Name):
            binding = self.doc.single(node.value, scope)
            if binding is None:
                return None
            uses = self.doc.uses(binding, node.value)
            if any(u.role in ("extend", "mutate") and at.before(u) for u in uses):
                return None
            text = reader.string(binding.value, binding.scope, at, keep)
            return (text, _reads(uses) != 1) if text is not None else None
        text = reader.string(node, scope, at, keep)
        return (text, False) if text is not None else None


def _sglang_words(command: str) -> list[tuple[int, int]]:
    """Where each word of a launch_server_cmd command is, as execute_shell_command splits it.

    Every backslash is a space; the words are the runs of non-space; leading
    NAME=value words (NAME of letters, digits and `_`) set the environment.
    """
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", command.replace("\\", " "))]
    while words:
        word = command[words[0][0] : words[0][1]]
        name = word.partition("=")[0]
        if not ("=" in word and word[0] not in "-/" and name and name.replace("_", "").isalnum()):
            break
        words.pop(0)
    return words


def _argument(call, index: int, keyword: str):  # noqa: ANN001, ANN202
    """The expression passed as parameter `keyword` (or positional `index`), else None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = []
    for arg in call.args:
        if arg.star == "*":
            return None
        if arg.star:  # `**kwargs` holds keywords alone
            continue
        if arg.keyword is None:
            positional.append(arg.value)
    return positional[index] if index < len(positional) else None


def _reads(uses: Sequence[_Use]) -> int:
    """How many expressions read a collection (a launch among them)."""
    return sum(1 for use in uses if use.role in ("read", "pass"))


def _may_change(use: _Use, own: object, at: _At) -> bool:
    """Whether use, other than the launch's own read, may change the collection before the launch."""
    return use.role in ("extend", "append", "mutate", "pass") and use.node is not own and at.before(use)


def _argvs(launches: Sequence[Launch]) -> list[tuple[str, list[str | None]]]:
    return [(launch.form, [arg.text for arg in launch.args]) for launch in launches]


def _embedded(arg: Arg, fields: Sequence[Span], frozen: bool) -> Arg:
    """A shell token read from a Python string, with what the string's f-string fields hide."""
    if any(arg.span.start < f.end and f.start < arg.span.end for f in fields):
        if arg.text is not None and "__AUTOFIX_FIELD__" in arg.text:
            return replace(arg, text=None, chars=None, editable=False)
        return replace(arg, editable=False)
    return replace(arg, editable=False) if frozen else arg


class _Tidy:
    """A shell command written in adjacent literals (`"..." "..."`): a deletion
    that empties one literal takes the literal, and its line, with it."""

    def __init__(self, inner: object, pieces: Sequence[_Piece], layout: _Layout):
        self.inner = inner
        self.pieces = pieces
        self.layout = layout

    def replace(self, arg: Arg, start: int, end: int, value: str) -> tuple[Edit, ...]:
        return self.inner.replace(arg, start, end, value)  # type: ignore[attr-defined]

    def insert_after(self, args: Sequence[Arg], new: NewFlag) -> tuple[Edit, ...]:
        return self.inner.insert_after(args, new)  # type: ignore[attr-defined]

    def remove(self, args: Sequence[Arg]) -> tuple[Edit, ...]:
        return tuple(self._tidy(edit) for edit in self.inner.remove(args))  # type: ignore[attr-defined]

    def _tidy(self, edit: Edit) -> Edit:
        pieces, layout = self.pieces, self.layout
        for i, piece in enumerate(pieces):
            if edit.text or edit.span != piece.body:
                continue
            literal = piece.literal
            if layout.own_lines(literal.start, literal.end):
                return Edit.delete(Span(layout.source.line_span(literal.start).start, layout.next_line(literal.end)))
            # Take the blank between it and its neighbour, unless a comment is there.
            span = Span(pieces[i - 1].literal.end, literal.end) if i else Span(literal.start, pieces[1].literal.start)
            if "#" not in layout.text[span.start : span.end].replace(layout.text[literal.start : literal.end], ""):
                return Edit.delete(span)
        return edit
