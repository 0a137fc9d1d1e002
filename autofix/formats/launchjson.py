"""JSON files: editors' launch configurations that run SGLang as a module.

VS Code's `.vscode/launch.json` (and the `launch` section of a `.code-workspace`
file) holds debug configurations; one with `"module": "sglang.launch_server"`
(or `sglang_router.launch_server`) runs `python -m MODULE ARGS...`, ARGS being
its `"args"` list of strings. Such files are JSON with comments (`//`,
`/* */`) and trailing commas, read as such; a file that does not parse holds no
launch. A string in the list that holds `${...}` (an editor variable such as
`${workspaceFolder}` or `${input:model}`) is an unknown value; `"args"` given as
one string (`"${command:pickArgs}"`) or holding anything but strings is a
pass-through. Edits land inside the list's string literals, or as new
`"--flag", "value"` items after the last flag of the run they join.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from autofix.command import MODULES
from autofix.formats.jsontext import Array, String, value
from autofix.knowledge.options import OptionTable
from autofix.model import Arg, Launch
from autofix.source import Source, Span

__all__ = ["find_launches", "syntax_errors"]


def _objects(node: object) -> Iterator[dict]:
    """Every JSON object in a value, outermost first."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _args(text: str, node: object, at: int) -> list[Arg]:
    """The argv a configuration's `"args"` stands for (at: where a pass-through is placed)."""
    if node is None:
        return []
    if not isinstance(node, list):
        span = node.span if isinstance(node, String) else Span(at, at)
        return [Arg(None, span, splat=True)]
    strings = [item for item in node if isinstance(item, String)]
    container = Array(text, strings)
    args: list[Arg] = []
    for item in node:
        if not isinstance(item, String):
            args.append(Arg(None, Span(at, at), splat=True))  # a number or a list: not what argv holds
        elif "${" in item.text:
            args.append(Arg(None, item.span, container, editable=False))
        else:
            chars = tuple(s if e - s == 1 else -1 for s, e in zip(item.starts, item.ends))
            args.append(Arg(item.text, item.span, container, chars=chars))
    return args


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
) -> list[Launch]:
    text = source.text
    if "sglang" not in text:
        return []
    try:
        doc, _ = value(text, 0, comments=True)
    except (ValueError, IndexError, RecursionError):
        return []
    launches = []
    for config in _objects(doc):
        module = config.get("module")
        if not isinstance(module, String) or module.text not in MODULES:
            continue
        args = _args(text, config.get("args"), module.span.end)
        launches.append(Launch.read(args, table, module.span, MODULES[module.text], release=release,
                                    model_lookup=model_lookup))
    return launches


def syntax_errors(text: str) -> int:
    """1 when the text is not JSON (comments and trailing commas allowed), else 0."""
    try:
        value(text, 0, comments=True)
    except (ValueError, IndexError, RecursionError):
        return 1
    return 0
