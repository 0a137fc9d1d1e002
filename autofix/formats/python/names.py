"""What the scanned module binds and reads: scopes, bindings and uses, and dotted names."""

from __future__ import annotations

from dataclasses import dataclass, field


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


