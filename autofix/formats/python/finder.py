"""Which calls are launches, and how each is read: keyword launches, argv lists, command strings,
and the module's own functions that run what they are handed."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

from autofix.command import Entry, Script, recognise
from autofix.embed import Embedding
from autofix.formats.python.containers import _Tidy, _embedded
from autofix.formats.python.doc import _At, _Doc, _reads
from autofix.formats.python.names import _Binding, _Scope, _dotted
from autofix.formats.python.reader import _Reader
from autofix.formats.python.strings import _Text
from autofix.model import Arg, Launch
from autofix.source import Source, Span


# -- finding launches -----------------------------------------------------------------

_KEYWORD_LAUNCHES = frozenset({"Engine", "Runtime", "ServerArgs"})
_POPEN_LAUNCHES = {"popen_launch_server": "serve", "popen_launch_pd_server": "launch_server"}
_SUBPROCESS = frozenset(f"subprocess.{f}" for f in ("Popen", "run", "call", "check_call", "check_output"))
_SHELL_CALLS = frozenset({"os.system", "os.popen", "asyncio.create_subprocess_shell"})
# `os.execv(path, argv)` and its kin: the argv is the second argument.
_EXEC_CALLS = frozenset(f"os.{f}" for f in ("execv", "execve", "execvp", "execvpe"))
# Calls whose argument a ServerArgs launch may be: the launch starts where they do.
_LAUNCHERS = frozenset({"launch_server", "run_server", "Engine", "Runtime"})


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


def _argvs(launches: Sequence[Launch]) -> list[tuple[str, list[str | None]]]:
    return [(launch.form, [arg.text for arg in launch.args]) for launch in launches]


