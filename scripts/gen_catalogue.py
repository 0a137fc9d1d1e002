#!/usr/bin/env python3
"""Generate the catalogue of SGLang launch errors from each release's own source.

For each release it reads SGLang's source as text (``ast`` only; sglang is
never imported) and writes ``autofix/knowledge/data/errors-<release>.json``:
one entry per error site SGLang can hit while it reads, merges, resolves and
validates server arguments and builds the model runner.

Scope (under ``sglang/srt/``, each file optional): ``server_args.py``,
``arg_groups/**``, ``[utils/]server_args_config_parser.py``,
``layers/attention/attention_registry.py``, ``speculative/spec_info.py``,
``configs/model_config.py``, ``model_executor/cuda_graph_config.py``,
``model_executor/model_runner.py``, ``model_executor/model_runner_components/*``,
``entrypoints/engine.py`` and ``entrypoints/http_server.py``. Added to them:
the functions SGLang defines and names as an option's ``type=`` or
``type_parser=`` (kind ``type``), and argparse's own parse-time messages,
read from the running Python's ``argparse.py`` (kind ``argparse``).

Sites: ``raise X(...)`` with an argument, ``assert``, ``parser.error(...)`` /
``self.error(...)`` and ``sys.exit(<string>)``. A bare re-raise, ``raise X``
without a call, and ``raise NotImplementedError`` as a method's whole body
(abstract) are skipped.

``condition`` joins, from the function down to the site, each enclosing
``if`` test (``not (test)`` on the else side, so an ``elif`` reads
``not (a) and b``) and each earlier ``if T: return|continue|break`` at an
enclosing level (``not (T)``). An assert adds its own test last (the assert
fails when that last test is false).

``needs`` is a heuristic over the condition (and, for the model class, the
enclosing function and file), first match wins:

* runtime: the condition reads the environment or the installed system
  (``os.environ``, ``os.getenv``, ``envs.``, ``get_*_env_var``, ``SGLANG_*``,
  ``os.path.``, ``Path(``, ``open(``, ``importlib``, ``find_spec``,
  ``shutil.which``, ``psutil``, ``torch.distributed``, ``is_in_ci``, a memory
  query, the clock, a port's availability, an HTTP response), the site is in an
  ``except ImportError`` handler, or in an operation the server performs on
  request (weight updates and transfers, the warm-up request);
* gpu: the condition uses a hardware probe (``is_cuda``/``is_hip``/``_is_npu``
  style calls and module flags, ``is_sm100_supported``, ``get_device_sm``,
  ``torch.cuda.*``, ``platform.*``, ``current_platform``...) in a polarity a
  generic NVIDIA GPU does not already satisfy: ``not _is_npu`` or
  ``is_cuda()`` alone is true on NVIDIA and does not count, ``not is_cuda()``
  and every capability probe do. An assert's test counts negated. Reading
  ``device`` (``cfg.device``: its default is the accelerator found) counts, and
  so does a function named for a platform (``_check_xpu_dcp``);
* model: the condition reads the model (``model_config``, ``hf_config``,
  ``architectures``, ``is_mla``, head counts, ``quantization_config``,
  ``is_deepseek*``-style predicates...), or the site is in
  ``arg_groups/model_overrides/``, ``configs/model_config.py`` or a
  model-family hook file;
* flags: ``reads`` is not empty, the kind is argparse, type or parser.error,
  or the site is in an argparse Action (``arg_groups/argparse_actions.py``);
* internal: anything else, argparse's messages this release's parser can never
  print (``unreachable_in_parser``: no mutually exclusive group, no integer nargs),
  and a site whose condition compares an option with choices in a way no choice
  satisfies (``blocked_by_choices``: the parser refuses the value first).

``reads`` are the attribute names (``x.name``, ``getattr(x, "name")``) in the
condition and message that are dests in ``options-<release>.json``.

Usage::

    python scripts/gen_catalogue.py              # every release
    python scripts/gen_catalogue.py 0.5.23       # some releases
    python scripts/gen_catalogue.py --check      # exit 1 if a file differs
"""

from __future__ import annotations

import argparse
import copy
import ast
import hashlib
import inspect
import json
import os
import re
import sys
import textwrap
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "autofix" / "knowledge" / "data"
# The releases autofix knows: one list, read by the package, the scripts and the parser environment.
VERSIONS = tuple((REPO / "autofix" / "knowledge" / "releases.txt").read_text(encoding="utf-8").split())
NOTE = "Generated from SGLang's own source; do not edit."
SCOPE = (
    "server_args.py", "arg_groups/**/*.py", "utils/server_args_config_parser.py",
    "server_args_config_parser.py", "layers/attention/attention_registry.py",
    "speculative/spec_info.py", "configs/model_config.py",
    "model_executor/cuda_graph_config.py", "model_executor/model_runner.py",
    "model_executor/model_runner_components/*.py", "entrypoints/engine.py",
    "entrypoints/http_server.py",
)
ARGPARSE_METHODS = {
    "parse_args", "parse_known_args", "_parse_known_args", "_read_args_from_files",
    "_match_argument", "_match_arguments_partial", "_parse_optional", "_get_option_tuples",
    "_get_values", "_get_value", "_check_value", "consume_optional", "consume_positionals",
    "take_action",
}
HOLE = None  # a message part that is not literal text

RUNTIME = re.compile(
    r"os\.environ|os\.getenv|\benvs\.|get_(bool|int|float|str)?_?env_var|\bSGLANG_|\bos\.path\.|"
    r"\bPath\(|\bopen\(|importlib|find_spec|shutil\.which|psutil|torch\.distributed|is_in_ci|"
    r"get_(gpu|device)_memory|get_available_gpu_memory|mem_get_info|total_memory|"
    r"\btime\.time\(|is_port_available\(|\.status_code\b"
)
# Operations a running server performs on request (weight updates and transfers, the
# warm-up request): their errors come after start, whatever the launch.
REQUEST_TIME = re.compile(r"\.(update_weights\w*|send_weights\w*|init_weights_send_group\w*|"
                          r"_assert_weight_cache_inactive|_execute_server_warmup)$|^_execute_server_warmup$")
MODEL = re.compile(
    r"model_config|hf_config|hf_text_config|architecture|model_arch|is_mla|use_mla_backend|"
    r"attention_arch|num_attention_heads|num_key_value_heads|model_type|quantization_config|"
    r"get_config\(|\bis_(deepseek|kimi|glm|qwen|llama|gemma|gpt_oss|minimax|mamba|muse|mimo|"
    r"nemotron|mistral|ernie|bailing|longcat|step)\w*"
)
MODEL_FILES = re.compile(
    r"/arg_groups/model_overrides/|/configs/model_config\.py$|"
    r"/(deepseek_v4|glm5_next|kimi_k3|muse_spark|mamba)_hook\.py$"
)
PROBE = re.compile(
    r"^_?(is_(cuda\w*|hip|npu|xpu|musa|cpu|hpu|mps|sm\d+\w*|blackwell\w*|hopper\w*|gfx\w*|"
    r"flashinfer_available|host_cpu\w*)|get_device_(sm|capability|name|core_count)|"
    r"cpu_has_amx_support|use_aiter|current_platform|platform)$"
)
GPU_WORDS = {"xpu", "npu", "hip", "rocm", "musa", "mps", "hpu", "blackwell", "hopper", "sm90", "sm100", "sm120"}
NVIDIA_TRUE = re.compile(r"^_?is_cuda(_alike)?$")  # true on a generic NVIDIA GPU
NVIDIA_FALSE = re.compile(r"^_?is_(hip|npu|xpu|musa|cpu|hpu|mps)$")  # false there


# ---------------------------------------------------------------- messages

def _percent_parts(text: str) -> list:
    parts: list = []
    for piece in re.split(r"(%%|%(?:\([^)]*\))?[#0 +\-]*\*?\d*(?:\.\d+)?[sdirfgeExXoc])", text):
        parts.append("%" if piece == "%%" else HOLE if piece.startswith("%") else piece)
    return parts


def _format_parts(text: str) -> list:
    parts: list = []
    for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", text):
        parts.append(piece[0] if piece in ("{{", "}}") else HOLE if piece.startswith("{") else piece)
    return parts


def message_parts(node: ast.AST | None) -> list:
    """A message expression as literal strings and HOLEs."""
    if node is None:
        return []
    if isinstance(node, ast.Constant):
        return [str(node.value)]
    if isinstance(node, ast.JoinedStr):
        return [HOLE if isinstance(v, ast.FormattedValue) else str(v.value) for v in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return message_parts(node.left) + message_parts(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str(node.left):
        return _percent_parts(node.left.value)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format" and _is_str(node.func.value)):
        return _format_parts(node.func.value.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext"):
        return _percent_parts(node.args[0].value) if node.args and _is_str(node.args[0]) else [HOLE]
    return [HOLE]


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _stringish(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp):
        return _stringish(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _stringish(node.func.value)
    return _is_str(node) or isinstance(node, ast.JoinedStr)


def _merge(parts: list) -> list:
    out: list = []
    for p in parts:
        if p == "":
            continue
        if out and isinstance(p, str) and isinstance(out[-1], str):
            out[-1] += p
        elif not (p is HOLE and out and out[-1] is HOLE):
            out.append(p)
    return out


def render_message(parts: list) -> str:
    return "".join("{}" if p is HOLE else p for p in parts)


def pattern_of(parts: list) -> str:
    return "".join("(.+?)" if p is HOLE else re.escape(p).replace("\\ ", " ") for p in parts)


def normalise(text: str) -> str:
    return " ".join(text.split())


def error_id(exception: str, message: str, assert_test: str | None = None) -> str:
    """sha1 of class and message; of the statement for a message-less site."""
    key = normalise(assert_test) if assert_test is not None else f"{exception}\0{normalise(message)}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]


def assert_line_pattern(lines: list[str]) -> str:
    """A regex for the line a traceback prints for a message-less site: any
    of the statement's source lines that hold a word (Python 3.11 prints the
    line of the failing operand of a multi-line assert), whole, whitespace-flexible."""
    chunks = [r"\s+".join(re.escape(c) for c in line.split()) for line in lines if re.search(r"\w", line)]
    return r"(?m)^\s*(?:" + "|".join(chunks) + r")\s*$"


# ---------------------------------------------------------------- classification

def _probe_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name) \
                and (node.value.value.id, node.value.attr) == ("torch", "cuda"):
            return "torch.cuda"
        return node.attr
    return None


def gpu_probes(node: ast.AST, positive: bool = True, local: dict | None = None, seen: frozenset = frozenset()):
    """(probe, polarity) for every hardware probe in a condition; a local
    variable stands for the value last assigned to it."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return gpu_probes(node.operand, not positive, local, seen)
    found = []
    name = _probe_name(node)
    if name == "device" and isinstance(node, (ast.Name, ast.Attribute)):
        found.append(("device", positive))  # --device defaults to the accelerator found
    on_nvidia = _device_test_on_nvidia(node)
    if on_nvidia is not None:  # a device test behaves like is_cuda (true) or is_hip (false)
        return [("is_cuda" if on_nvidia else "is_hip", positive)]
    if name and (name == "torch.cuda" or PROBE.match(name)):
        found.append((name, positive))
    if isinstance(node, ast.Name) and local and node.id in local and node.id not in seen:
        found += gpu_probes(local[node.id], positive, local, seen | {node.id})
    for child in ast.iter_child_nodes(node):
        found += gpu_probes(child, positive, local, seen)
    return found


def _device_test_on_nvidia(node: ast.AST) -> bool | None:
    """The value of ``x.device == 'npu'`` / ``x.device.startswith(('cuda', ..))``
    / ``x.device in (..)`` with --device cuda; None for anything else."""
    def is_device(n):
        return _probe_name(n) == "device" and isinstance(n, (ast.Name, ast.Attribute))
    try:
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and is_device(node.left):
            value = ast.literal_eval(node.comparators[0])
            op = type(node.ops[0])
            table = {ast.Eq: lambda: "cuda" == value, ast.NotEq: lambda: "cuda" != value,
                     ast.In: lambda: "cuda" in value, ast.NotIn: lambda: "cuda" not in value}
            return table[op]() if op in table else None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith"
                and is_device(node.func.value) and len(node.args) == 1):
            return "cuda".startswith(ast.literal_eval(node.args[0]))
    except (ValueError, TypeError, SyntaxError):
        return None
    return None


def needs_gpu(guards: list[tuple[ast.AST, bool]], local: dict | None = None, function: str = "") -> bool:
    if GPU_WORDS & set(re.split(r"[_.]", function.lower())):
        return True
    for test, positive in guards:
        for name, pol in gpu_probes(test, positive, local):
            if not ((pol and NVIDIA_TRUE.match(name)) or (not pol and NVIDIA_FALSE.match(name))):
                return True
    return False


def classify(kind: str, guards: list[tuple[ast.AST, bool]], local: dict, reads: list[str],
             file: str, function: str, in_import_error: bool) -> str:
    text = " and ".join(ast.unparse(n) for n in expand([t for t, _ in guards], local))
    if in_import_error or RUNTIME.search(text) or REQUEST_TIME.search(function):
        return "runtime"
    if needs_gpu(guards, local, function):
        return "gpu"
    if MODEL.search(text) or MODEL_FILES.search(file):
        return "model"
    if kind == "argparse" and "callable(" in text:
        return "internal"  # argparse's own 'type is not callable': a programming error
    if reads or kind in ("argparse", "type", "parser.error") or file.endswith("/argparse_actions.py"):
        return "flags"
    return "internal"


def expand(nodes: list[ast.AST], local: dict) -> list[ast.AST]:
    """The nodes plus, transitively, the values assigned to the local names they use."""
    out, todo, seen = list(nodes), list(nodes), set()
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Name) and node.id in local and node.id not in seen:
                seen.add(node.id)
                out.append(local[node.id])
                todo.append(local[node.id])
    return out


_ASSIGNMENTS: dict[int, tuple[ast.AST, list]] = {}


def _assignments(func: ast.AST) -> list:
    """func's assignments with a value, in line order (found once per function)."""
    held = _ASSIGNMENTS.get(id(func))
    if held is None or held[0] is not func:
        found = sorted((n for n in ast.walk(func) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None),
                       key=lambda n: n.lineno)
        held = _ASSIGNMENTS[id(func)] = (func, found)
    return held[1]


def local_values(func: ast.AST | None, line: int) -> dict[str, ast.AST]:
    """Each local name's last assigned value before ``line`` (tuple targets share the value)."""
    local: dict[str, ast.AST] = {}
    if func is None:
        return local
    for node in (n for n in _assignments(func) if n.lineno < line):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    local[name.id] = node.value
    return local


def attribute_reads(nodes: list[ast.AST], dests: set[str]) -> list[str]:
    """Dests read as ``x.name``, ``getattr(x, "name")``, a string argument
    (``resolution_result(cfg, "name")``) or a bare name (a parameter or local)."""
    names = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Attribute) and node.attr in dests:
                names.add(node.attr)
            elif isinstance(node, ast.Name) and node.id in dests:
                names.add(node.id)
            elif isinstance(node, ast.Call):
                names.update(a.value for a in node.args if _is_str(a) and a.value in dests)
    return sorted(names)


# ---------------------------------------------------------------- site scanning

def _is_abstract(func: ast.AST) -> bool:
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and _is_str(s.value))]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and _exc_name(body[0].exc) == "NotImplementedError"


def _exc_name(exc: ast.AST | None) -> str | None:
    target = exc.func if isinstance(exc, ast.Call) else exc
    return _probe_name(target) if target is not None else None


def _exits_block(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.If) and not stmt.orelse and stmt.body
            and isinstance(stmt.body[-1], (ast.Return, ast.Continue, ast.Break)))


def _guard_text(test: ast.AST, positive: bool, joined: bool) -> str:
    text = ast.unparse(test)
    if not positive:
        return f"not ({text})"
    loose = isinstance(test, (ast.IfExp, ast.Lambda, ast.NamedExpr)) or (
        isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or))
    return f"({text})" if joined and loose else text


class Scanner:
    """Collects the error sites of one module (or of some of its functions)."""

    def __init__(self, source: str, rel: str, kind_override: str | None = None,
                 only: set[str] | None = None, parse_methods: set[str] | None = None,
                 tree: ast.Module | None = None):
        self.source, self.rel, self.lines = source, rel, source.splitlines()
        self.kind_override, self.only, self.parse_methods = kind_override, only, parse_methods
        self.sites: list[dict] = []
        self.tree = tree if tree is not None else ast.parse(source)

    def run(self) -> list[dict]:
        self._block(self.tree.body, [], [], None, False)
        return self.sites

    def _block(self, stmts, qual, guards, func, in_ie):
        guards = list(guards)
        for stmt in stmts:
            self._stmt(stmt, qual, guards, func, in_ie)
            if func is not None and _exits_block(stmt):
                guards.append((stmt.test, False))

    def _stmt(self, stmt, qual, guards, func, in_ie):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not _is_abstract(stmt):
                self._block(stmt.body, qual + [stmt.name], [], stmt, False)
            return
        if isinstance(stmt, ast.ClassDef):
            self._block(stmt.body, qual + [stmt.name], [], None, False)
            return
        if isinstance(stmt, ast.If):
            self._block(stmt.body, qual, guards + [(stmt.test, True)], func, in_ie)
            self._block(stmt.orelse, qual, guards + [(stmt.test, False)], func, in_ie)
            return
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self._block(stmt.body, qual, guards, func, in_ie)
            for handler in stmt.handlers:
                names = ast.unparse(handler.type) if handler.type else ""
                self._block(handler.body, qual, guards, func, in_ie or "ImportError" in names or "ModuleNotFoundError" in names)
            self._block(stmt.orelse, qual, guards, func, in_ie)
            self._block(stmt.finalbody, qual, guards, func, in_ie)
            return
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                self._block(getattr(stmt, field), qual, guards, func, in_ie)
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                self._block(case.body, qual, guards, func, in_ie)
        self._site(stmt, qual, guards, func, in_ie)

    def _site(self, stmt, qual, guards, func, in_ie):
        if self.only is not None and (not qual or qual[0] not in self.only):
            return
        if self.parse_methods is not None:
            if qual and qual[-1] in self.parse_methods and isinstance(stmt, (ast.Assign, ast.Expr, ast.Raise, ast.Return)):
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                            and node.func.id in ("_", "ngettext") and node.args and _is_str(node.args[0]):
                        self.add(stmt, "argparse", "SystemExit", node, qual, guards, func, in_ie,
                                 _reaches_argument_error(func, node.lineno), at=node)
            return
        if isinstance(stmt, ast.Raise):
            if not isinstance(stmt.exc, ast.Call):
                return
            kind, exc = "raise", _exc_name(stmt.exc) or ast.unparse(stmt.exc.func)
            msg = stmt.exc.args[0] if stmt.exc.args else None
        elif isinstance(stmt, ast.Assert):
            kind, exc, msg = "assert", "AssertionError", stmt.msg
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and stmt.value.args:
            call, fname = stmt.value, ast.unparse(stmt.value.func)
            if fname in ("sys.exit", "exit") and _stringish(call.args[0]):
                kind, exc, msg = "exit", "SystemExit", call.args[0]
            elif re.fullmatch(r"(self|\w*parser)(\.\w*parser)?\.error", fname):
                kind, exc, msg = "parser.error", "SystemExit", call.args[0]
            else:
                return
        else:
            return
        self.add(stmt, kind, exc, msg, qual, guards, func, in_ie)

    def segment(self, node) -> str:
        """The node's source, dedented (ast.get_source_segment re-splits the file each call)."""
        lines = [l.encode("utf-8") for l in self.lines[node.lineno - 1: node.end_lineno]]
        lines[-1] = lines[-1][: node.end_col_offset]
        lines[0] = b" " * node.col_offset + lines[0][node.col_offset:]
        return textwrap.dedent("\n".join(l.decode("utf-8") for l in lines))

    def resolve(self, node, func, line):
        """A message held in a local variable: its last assignment (plus +=) before the site."""
        if not isinstance(node, ast.Name) or func is None:
            return [node] if node is not None else []
        assigns = sorted(
            (n for n in ast.walk(func) if getattr(n, "lineno", line) < line and (
                (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                 and n.targets[0].id == node.id)
                or (isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                    and isinstance(n.target, ast.Name) and n.target.id == node.id))),
            key=lambda n: n.lineno)
        start = max((i for i, n in enumerate(assigns) if isinstance(n, ast.Assign)), default=None)
        return [n.value for n in assigns[start:]] if start is not None else [node]

    def add(self, stmt, kind, exc, msg, qual, guards, func, in_ie, prefixed=False, at=None):
        line = (at or stmt).lineno
        nodes = self.resolve(msg, func, line)
        parts = _merge((["argument ", HOLE, ": "] if prefixed else []) + [p for n in nodes for p in message_parts(n)])
        tests = list(guards) + ([(stmt.test, False)] if isinstance(stmt, ast.Assert) else [])
        texts = [_guard_text(t, pol or (isinstance(stmt, ast.Assert) and t is stmt.test), len(tests) > 1)
                 for t, pol in tests]
        condition = " and ".join(texts)
        source = self.segment(stmt)
        if len(source) > 600:
            source = source[:597] + "..."
        message = render_message(parts)
        bare = isinstance(stmt, ast.Assert) and stmt.msg is None
        self.sites.append({
            "kind": self.kind_override or kind, "exception": exc, "message": message,
            "pattern": assert_line_pattern(self.lines[stmt.lineno - 1: stmt.end_lineno]) if bare or not parts else pattern_of(parts),
            "source": source, "condition": condition,
            "file": self.rel, "line": line, "function": ".".join(qual) or "<module>",
            "_id": error_id(exc, message, f"assert {ast.unparse(stmt.test)}" if bare else
                            f"raise {ast.unparse(stmt.exc)}" if not parts and isinstance(stmt, ast.Raise) else None),
            "_tests": tests, "_nodes": [t for t, _ in tests] + nodes, "_in_ie": in_ie,
            "_local": local_values(func, line),
        })


# ---------------------------------------------------------------- type= parsers

def _module_file(pkg_root: Path, module: str) -> Path | None:
    base = pkg_root.parent.joinpath(*module.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _absolute(path: Path, pkg_root: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = list(path.relative_to(pkg_root.parent).with_suffix("").parts)
    parts = parts[: len(parts) - node.level]
    return ".".join(parts + ([node.module] if node.module else []))


_TREES: dict[Path, ast.Module] = {}


def _tree(path: Path) -> ast.Module:
    if path not in _TREES:
        _TREES[path] = ast.parse(path.read_text(encoding="utf-8"))
    return _TREES[path]


def find_definition(pkg_root: Path, path: Path, dotted: str, depth: int = 0) -> tuple[Path, str] | None:
    """The (file, top-level function or class) that ``dotted`` names in ``path``."""
    if depth > 5 or not path.is_file():
        return None
    tree = _tree(path)
    head, _, rest = dotted.partition(".")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == head:
            return (path, head) if not rest or isinstance(node, ast.ClassDef) else None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == head:
                    module = _absolute(path, pkg_root, node)
                    target = _module_file(pkg_root, f"{module}.{alias.name}")
                    if target and rest:
                        return find_definition(pkg_root, target, rest, depth + 1)
                    target = _module_file(pkg_root, module)
                    if target and module.startswith("sglang"):
                        return find_definition(pkg_root, target, ".".join([alias.name] + ([rest] if rest else [])), depth + 1)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.asname or alias.name) == head and rest and alias.name.startswith("sglang"):
                    target = _module_file(pkg_root, alias.name if alias.asname else head)
                    if target:
                        return find_definition(pkg_root, target, rest, depth + 1)
    return None


def type_parsers(pkg_root: Path, files: list[Path]) -> dict[Path, set[str]]:
    found: dict[Path, set[str]] = {}
    for path in files:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.keyword) and node.arg in ("type", "type_parser") \
                    and isinstance(node.value, (ast.Name, ast.Attribute)):
                hit = find_definition(pkg_root, path, ast.unparse(node.value))
                if hit:
                    found.setdefault(hit[0], set()).add(hit[1])
    return found


# ---------------------------------------------------------------- catalogue

def scoped_files(srt: Path) -> list[Path]:
    return sorted({p for pattern in SCOPE for p in srt.glob(pattern) if p.is_file()})


def rel_name(pkg_root: Path, path: Path) -> str:
    return "python/" + path.relative_to(pkg_root.parent).as_posix()


def argparse_sites() -> list[dict]:
    """argparse's messages: each _()/ngettext() literal in a parse-time method."""
    path = Path(inspect.getsourcefile(argparse))
    return Scanner(path.read_text(encoding="utf-8"), "argparse.py", "argparse", parse_methods=ARGPARSE_METHODS).run()


def _reaches_argument_error(func: ast.AST, line: int) -> bool:
    """Whether the first error call at or after ``line`` is ``raise ArgumentError``
    (printed 'argument X: msg') rather than ``self.error(msg)``."""
    calls = sorted((n.lineno, isinstance(n, ast.Raise)) for n in ast.walk(func) if getattr(n, "lineno", 0) >= line and (
        (isinstance(n, ast.Raise) and _exc_name(n.exc) == "ArgumentError")
        or (isinstance(n, ast.Call) and ast.unparse(n.func) == "self.error")))
    return bool(calls) and calls[0][1]


def load_dests(release: str) -> set[str]:
    data = json.loads((DATA / f"options-{release}.json").read_text(encoding="utf-8"))
    return {o["dest"] for o in data["options"] if o.get("action") not in ("help", "version")}


def _conjuncts(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        for value in node.values:
            yield from _conjuncts(value)
    else:
        yield node


def blocked_by_choices(condition: str, options: dict[str, dict]) -> bool:
    """Whether one part of condition compares one option that has choices with literals
    only (``cfg.mode not in ('a', 'b')``), and is false for every choice and the default:
    the parser refuses every other value first, so no launch reaches the site."""
    try:
        tree = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return False
    for term in _conjuncts(tree):
        if not isinstance(term, ast.Compare):
            continue
        attributes = [n for n in ast.walk(term) if isinstance(n, ast.Attribute)]
        if len(attributes) != 1 or not isinstance(attributes[0].value, ast.Name):
            continue
        option = options.get(attributes[0].attr)
        others = [n for n in ast.walk(term) if isinstance(n, (ast.Name, ast.Call, ast.Subscript, ast.Lambda))
                  and n is not attributes[0].value]
        if option is None or not option.get("choices") or others:
            continue

        def holds(value: object, term: ast.AST = term, dest: str = attributes[0].attr) -> bool:
            class Put(ast.NodeTransformer):
                def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                    return ast.copy_location(ast.Constant(value), node) if node.attr == dest else node

            expression = ast.fix_missing_locations(ast.Expression(Put().visit(copy.deepcopy(term))))
            # Only literals and comparisons remain: nothing to call or look up.
            return bool(eval(compile(expression, "<condition>", "eval"), {"__builtins__": {}}))  # noqa: S307

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                if not any(holds(v) for v in [*option["choices"], option["default"]]):
                    return True
        except Exception:  # noqa: BLE001 (a comparison Python refuses: not decided here)
            continue
    return False


def unreachable_in_parser(message: str, release: str, files: list[Path]) -> bool:
    """Whether argparse can never print message for this release's parser, by the parser's
    shape (its option table) and argparse's own code: a mutually exclusive group's errors
    without such a group, a count of arguments without an option of integer nargs, 'at most
    one argument' (nargs='?' matches zero), and 'unexpected option string' (parse_args only
    asks _get_option_tuples about a string that starts with a prefix character)."""
    if message in ("argument {}: not allowed with argument {}", "one of the arguments {} is required"):
        return not any("add_mutually_exclusive_group" in p.read_text(encoding="utf-8") for p in files)
    if message == "argument {}: expected {} argument":
        options = json.loads((DATA / f"options-{release}.json").read_text(encoding="utf-8"))["options"]
        return not any(isinstance(o.get("nargs"), int) and o["nargs"] >= 1 for o in options)
    return message in ("argument {}: expected at most one argument", "unexpected option string: {}")


def catalogue(pkg_root: Path, release: str) -> dict:
    srt = pkg_root / "srt"
    files = scoped_files(srt)
    dests = load_dests(release)
    options = {o["dest"]: o for o in json.loads((DATA / f"options-{release}.json").read_text(encoding="utf-8"))["options"]}
    sites: dict[tuple[str, int, str], dict] = {}
    for path, funcs in type_parsers(pkg_root, files).items():
        for s in Scanner(path.read_text(encoding="utf-8"), rel_name(pkg_root, path), "type", only=funcs,
                         tree=_tree(path)).run():
            sites[(s["file"], s["line"], s["_id"])] = s
    for path in files:
        for s in Scanner(path.read_text(encoding="utf-8"), rel_name(pkg_root, path), tree=_tree(path)).run():
            sites.setdefault((s["file"], s["line"], s["_id"]), s)
    for s in argparse_sites():
        sites.setdefault((s["file"], s["line"], s["_id"]), s)
    errors = []
    for s in sorted(sites.values(), key=lambda s: (s["file"], s["line"], s["_id"])):
        reads = attribute_reads(expand(s["_nodes"], s["_local"]), dests)
        needs = classify(s["kind"], s["_tests"], s["_local"], reads, s["file"], s["function"], s["_in_ie"])
        if s["kind"] == "argparse" and unreachable_in_parser(s["message"], release, files):
            needs = "internal"
        elif needs == "flags" and blocked_by_choices(s["condition"], options):
            needs = "internal"
        errors.append({"id": s["_id"], **{k: s[k] for k in (
            "kind", "exception", "message", "pattern", "source", "condition", "file", "line", "function")},
            "needs": needs, "reads": reads})
    return {"generated_by": "scripts/gen_catalogue.py", "sglang": release, "note": NOTE, "errors": errors}


def render(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def package_root(release: str, env: Path, source_root: Path | None) -> Path:
    bases = [source_root / f"sglang-{release}", source_root / f"src-{release}", source_root] if source_root \
        else [env / f"sglang-{release}"]
    for base in bases:
        if (base / "sglang" / "srt").is_dir():
            return base / "sglang"
    raise SystemExit(f"gen_catalogue: SGLang {release} source not found in {bases[0].parent}")


def summary(data: dict) -> str:
    errs = data["errors"]
    counts = Counter(e["needs"] for e in errs)
    per = " ".join(f"{k}={counts[k]}" for k in ("flags", "model", "gpu", "runtime", "internal"))
    return f"gen_catalogue: {data['sglang']}: {len(errs)} sites, {len({e['id'] for e in errs})} ids; {per}"


def index_text(files: dict[Path, str]) -> str:
    """What the package reads at start instead of every catalogue: for each id, the releases
    that hold it and its patterns, from the files just made or (other releases) on disk."""
    ids: dict[str, dict[str, list[str]]] = {}
    for release in VERSIONS:
        path = DATA / f"errors-{release}.json"
        text = files.get(path) or (path.read_text(encoding="utf-8") if path.is_file() else None)
        if text is None:
            continue
        for entry in json.loads(text)["errors"]:
            found = ids.setdefault(entry["id"], {"releases": [], "patterns": []})
            if release not in found["releases"]:
                found["releases"].append(release)
            if entry["pattern"] not in found["patterns"]:
                found["patterns"].append(entry["pattern"])
    document = {"generated_by": "scripts/gen_catalogue.py", "note": "Generated from the catalogue files; do not edit.",
                "ids": dict(sorted(ids.items()))}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="*", metavar="RELEASE", help=f"default: {' '.join(VERSIONS)}")
    parser.add_argument("--check", action="store_true", help="regenerate in memory; exit 1 if a committed file differs")
    parser.add_argument("--env", type=Path, default=Path(os.environ.get("AUTOFIX_SGLANG_ENV") or REPO / ".sglang-env"))
    parser.add_argument("--source-root", type=Path, help="read DIR/{sglang-,src-}RELEASE/sglang or DIR/sglang")
    args = parser.parse_args(argv)
    files: dict[Path, str] = {}
    for release in args.versions or VERSIONS:
        data = catalogue(package_root(release, args.env, args.source_root), release)
        print(summary(data), file=sys.stderr)
        files[DATA / f"errors-{release}.json"] = render(data)
    files[DATA / "errors-index.json"] = index_text(files)
    if args.check:
        stale = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"gen_catalogue: {path.relative_to(REPO)} is out of date", file=sys.stderr)
        if stale:
            print("gen_catalogue: run python scripts/gen_catalogue.py", file=sys.stderr)
            return 1
        print(f"gen_catalogue: {len(files)} files up to date")
        return 0
    for path, text in files.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"gen_catalogue: wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
