"""The libcst visitor that records every scope, binding, use, call and return of a module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autofix.formats.python.names import (
    _EXTENDERS, _MUTATORS, _Binding, _Scope, _Use, _benign_call, _dotted, _target_names,
)
from autofix.formats.python.parse import _LAUNCH_CALLS

if TYPE_CHECKING:
    from autofix.formats.python.doc import _Doc


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


