#!/usr/bin/env python3
"""SGLang's own argument parser and rule functions, run as an oracle.

Runs inside the parser environment that ``scripts/sglang_env.sh`` builds,
with one SGLang release on the path::

    PYTHONPATH=$ENV/sglang-0.5.19 $ENV/venv/bin/python scripts/sglang_oracle.py options

No GPU and no network are needed: torch is the CPU build, sglang is installed
without its dependencies, ``torchvision`` is replaced by an import-time stub
(below), and every hardware probe the rule functions read is patched to
describe one Blackwell (SM100, B200-class) GPU without an MNNVL fabric.

Subcommands, each printing one JSON document on stdout:

``options``
    The option table of ``argparse.ArgumentParser(prog="sglang serve")`` after
    ``ServerArgs.add_cli_args``, plus ``config_unsupported``: the YAML keys
    (underscore-normalised, as ``ConfigArgumentMerger`` compares them) that the
    release's own merger refuses in a ``--config`` file.
``parse``
    stdin: ``[{"argv": [...], "cwd": "dir or null"}, ...]``. Reproduces
    ``prepare_server_args`` up to ``parser.parse_args`` (``ConfigArgumentMerger``
    first when ``--config`` is in argv). Each result is
    ``{"ok", "error", "args"}``; ``error`` is argparse's message
    (``"sglang serve: error: ..."``, usage text removed) or
    ``"ValueError: ..."`` from the merger.
``rules``
    stdin: ``[{"args": {dest: value}, "architecture": "X" or null,
    "hf_config": {attr: value} (optional)}, ...]``. Runs the slice of the
    resolution pipeline that holds the three seed error records, with SGLang's
    own functions, in pipeline order:

    1. the deprecated-argument handler (it runs before the model overrides
       and, in 0.5.23, turns ``tokenspeed_mla`` into ``cutedsl_mla`` + fp8 KV);
    2. ``_kimi_k3_overrides`` when ``architecture`` is
       ``KimiK3ForConditionalGeneration`` (record 2311bd20282a9819), with
       ``_require_kimi_k3_cutedsl_dcp_support`` made a no-op;
    3. ``_mla_kv_cache_dtype_checks`` on the arguments overlaid with what
       steps 1 and 2 declared (record 50f82a4b5a705b9a);
    4. the attention-registry guard of each effective prefill/decode backend
       whose creator starts by rejecting the wrong attention kind
       (``tokenspeed_mla backend can only be used with MLA models.``, record
       1f2bd480c921bf78, and its siblings), with ``use_mla_backend`` taken
       from the real ``ModelConfig._derive_model_shapes`` for the architecture.
       Skipped when ``architecture`` is null. The stand-in checkpoint config
       says kv_lora_rank=512 and use_mla=True unless ``hf_config`` says
       otherwise, so the conditional MLA architectures count as MLA.

    Each result is ``{"ok", "error": "Class: message" or null, "overrides":
    what _kimi_k3_overrides returned, "declared": every field the steps
    changed (overlay minus input, less what they change for default
    arguments too)}``.
``judge``
    stdin: ``{"patterns": [regex, ...], "cases": [{"argv", "cwd",
    "architecture", "gpu"}, ...]}``. SGLang's verdict on whole launches:
    ``parse``, then the ``rules`` slice, then every function of the release
    (``server_args.py``, ``arg_groups/``) whose strings spell the literal text
    of one of the patterns, in the order the release's pipeline calls them,
    on the parsed arguments with unset ones resolved as on one GPU of the
    case's profile (``b200`` by default, ``h100``, ``a100``, ``rtx5090``, ``mi300x``, ``xpu``,
    ``npu``, ``musa``; ``mps`` for a launch whose ``--device`` is mps). Fixers name
    their rule by SGLang's message, so this needs no per-rule code.
``mla``
    ``mla_architectures``: the architectures for which the real
    ``ModelConfig._derive_model_shapes`` ends with ``AttentionArch.MLA``; the
    candidates are the architecture strings named in that method's source.
    ``conditional_mla_architectures`` maps the ones that are MLA only when the
    checkpoint's config sets an attribute (e.g. Pixtral needs kv_lora_rank) to
    those attribute names.
``knowledge``
    ``options`` and ``mla`` in one document (what gen_knowledge.py reads).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types

# ---------------------------------------------------------------------------
# torchvision stub: installed before anything imports sglang or transformers.
# The PyPI torchvision wheel is a CUDA build that cannot load beside CPU torch,
# and sglang imports it (``from torchvision.io import decode_jpeg``) at import
# time. A meta-path finder answers for ``torchvision`` and every submodule.
# ---------------------------------------------------------------------------


class _Anything:
    """A permissive placeholder: callable, has every attribute, subclassable."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Anything()

    def __mro_entries__(self, bases):
        return (_AnythingBase,)

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False


class _AnythingBase:
    def __init__(self, *args, **kwargs):
        pass


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Anything()


class _TorchvisionStubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname == "torchvision" or fullname.startswith("torchvision."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__version__ = "0.28.0"
        return module

    def exec_module(self, module):
        pass


class _KernelStubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """SGLang's CUDA kernel packages, on a machine without them: a module a rule imports
    under ``if is_cuda():`` (``from sgl_kernel import ...``) loads as it would on the GPU
    the case names. Last on the path, so an installed package is always the real one."""

    PACKAGES = ("sgl_kernel", "flashinfer", "deep_gemm", "flash_mla", "flash_attn")

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".", 1)[0] in self.PACKAGES:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install_torchvision_stub() -> None:
    if not any(isinstance(f, _TorchvisionStubFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchvisionStubFinder())


install_torchvision_stub()

# No network: a rule that reads a model's config must not reach the Hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

# ---------------------------------------------------------------------------

import argparse  # noqa: E402
import ast  # noqa: E402
import contextlib  # noqa: E402
import copy  # noqa: E402
import dataclasses  # noqa: E402
import functools  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import textwrap  # noqa: E402
import unittest.mock  # noqa: E402
from typing import Any, Callable, Iterator  # noqa: E402

KIMI_K3 = "KimiK3ForConditionalGeneration"

# One Blackwell GPU (SM100, B200-class), CUDA, no MNNVL fabric. Keys are the
# probe functions of sglang.srt.utils.common (patched wherever imported).
BLACKWELL_PROBES: dict[str, Any] = {
    "is_cuda": True,
    "is_cuda_alike": True,
    "is_hip": False,
    "is_npu": False,
    "is_xpu": False,
    "is_musa": False,
    "is_mps": False,
    "is_cpu": False,
    "is_sm90_supported": False,
    "is_sm100_supported": True,
    "is_sm100_or_sm110_supported": True,
    "is_sm120_supported": False,
    "is_blackwell_supported": True,
    "is_hopper_with_cuda_12_3": False,
    "cpu_has_amx_support": False,
    "is_flashinfer_available": True,
    "is_mnnvl_fabric_device": False,
    "xpu_has_xmx_support": False,
    "get_device_sm": 100,
    "get_device_capability": (10, 0),
    "get_device_name": "NVIDIA B200",
    "get_device_memory_capacity": 183 * 1024,  # MiB
}

# The same machine in the words of sglang.srt.runtime_context.override_platform
# (0.5.19 and later).
BLACKWELL_PLATFORM: dict[str, Any] = {
    "is_cuda": True,
    "is_hip": False,
    "is_npu": False,
    "is_xpu": False,
    "is_musa": False,
    "is_mps": False,
    "is_sm90": False,
    "is_sm100": True,
    "is_sm100_or_sm110": True,
    "is_sm120": False,
    "is_blackwell": True,
    "is_hopper_with_cuda_12_3": False,
    "has_amx": False,
    "has_flashinfer": True,
    "device_sm": 100,
    "device_capability": (10, 0),
}


# Other machines a rule can be judged on, as changes to the Blackwell answers.
# h100: Hopper (SM90). a100: Ampere (SM80). rtx5090: consumer Blackwell (SM120).
# mi300x: ROCm (HIP), no CUDA, no FlashInfer.
_PROFILE_CHANGES: dict[str, dict[str, Any]] = {
    "b200": {},
    "h100": {
        "get_device_memory_capacity": 80 * 1024,
        "is_sm90_supported": True, "is_sm100_supported": False, "is_sm100_or_sm110_supported": False,
        "is_blackwell_supported": False, "is_hopper_with_cuda_12_3": True,
        "get_device_sm": 90, "get_device_capability": (9, 0), "get_device_name": "NVIDIA H100 80GB HBM3",
        "is_sm90": True, "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False,
        "device_sm": 90, "device_capability": (9, 0),
    },
    "a100": {
        "get_device_memory_capacity": 80 * 1024,
        "is_sm90_supported": False, "is_sm100_supported": False, "is_sm100_or_sm110_supported": False,
        "is_blackwell_supported": False, "is_hopper_with_cuda_12_3": False,
        "get_device_sm": 80, "get_device_capability": (8, 0), "get_device_name": "NVIDIA A100-SXM4-80GB",
        "is_sm90": False, "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False,
        "device_sm": 80, "device_capability": (8, 0),
    },
    "rtx5090": {
        "get_device_memory_capacity": 32 * 1024,
        "is_sm90_supported": False, "is_sm100_supported": False, "is_sm100_or_sm110_supported": False,
        "is_sm120_supported": True, "is_blackwell_supported": True, "is_hopper_with_cuda_12_3": False,
        "get_device_sm": 120, "get_device_capability": (12, 0), "get_device_name": "NVIDIA GeForce RTX 5090",
        "is_sm90": False, "is_sm100": False, "is_sm100_or_sm110": False, "is_sm120": True, "is_blackwell": True,
        "device_sm": 120, "device_capability": (12, 0),
    },
    # v100: Volta (SM70), below the SM75 SGLang's model runner needs.
    "v100": {
        "get_device_memory_capacity": 32 * 1024,
        "is_sm90_supported": False, "is_sm100_supported": False, "is_sm100_or_sm110_supported": False,
        "is_blackwell_supported": False, "is_hopper_with_cuda_12_3": False, "is_flashinfer_available": False,
        "get_device_sm": 70, "get_device_capability": (7, 0), "get_device_name": "Tesla V100-SXM2-32GB",
        "is_sm90": False, "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False,
        "has_flashinfer": False, "device_sm": 70, "device_capability": (7, 0),
    },
    # xpu, npu, musa: an Intel GPU, an Ascend NPU, a Moore Threads GPU (their platforms' probes).
    "xpu": {
        "get_device_memory_capacity": 64 * 1024,
        "is_cuda": False, "is_cuda_alike": False, "is_hip": False, "is_xpu": True, "xpu_has_xmx_support": True,
        "is_sm100_supported": False,
        "is_sm100_or_sm110_supported": False, "is_blackwell_supported": False, "is_flashinfer_available": False,
        "get_device_sm": 0, "get_device_capability": (0, 0), "get_device_name": "Intel(R) Data Center GPU Max 1550",
        "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False, "has_flashinfer": False,
        "device_sm": 0, "device_capability": (0, 0),
    },
    "npu": {
        "get_device_memory_capacity": 64 * 1024,
        "is_cuda": False, "is_cuda_alike": False, "is_hip": False, "is_npu": True, "is_sm100_supported": False,
        "is_sm100_or_sm110_supported": False, "is_blackwell_supported": False, "is_flashinfer_available": False,
        "get_device_sm": 0, "get_device_capability": (0, 0), "get_device_name": "Ascend910B",
        "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False, "has_flashinfer": False,
        "device_sm": 0, "device_capability": (0, 0),
    },
    "musa": {
        "get_device_memory_capacity": 48 * 1024,
        "is_cuda": False, "is_cuda_alike": False, "is_hip": False, "is_musa": True, "is_sm100_supported": False,
        "is_sm100_or_sm110_supported": False, "is_blackwell_supported": False, "is_flashinfer_available": False,
        "get_device_sm": 0, "get_device_capability": (0, 0), "get_device_name": "MTT S4000",
        "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False, "has_flashinfer": False,
        "device_sm": 0, "device_capability": (0, 0),
    },
    # mps: an Apple GPU (Torch MPS), the machine a `--device mps` launch runs on.
    "mps": {
        "get_device_memory_capacity": 64 * 1024,
        "is_cuda": False, "is_cuda_alike": False, "is_hip": False, "is_mps": True, "is_sm100_supported": False,
        "is_sm100_or_sm110_supported": False, "is_blackwell_supported": False, "is_flashinfer_available": False,
        "get_device_sm": 0, "get_device_capability": (0, 0), "get_device_name": "Apple M-series GPU",
        "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False, "has_flashinfer": False,
        "device_sm": 0, "device_capability": (0, 0),
    },
    "mi300x": {
        "get_device_memory_capacity": 192 * 1024,
        "is_cuda": False, "is_cuda_alike": True, "is_hip": True, "is_sm100_supported": False,
        "is_sm100_or_sm110_supported": False, "is_blackwell_supported": False, "is_flashinfer_available": False,
        "get_device_sm": 0, "get_device_capability": (9, 4), "get_device_name": "AMD Instinct MI300X",
        "is_sm100": False, "is_sm100_or_sm110": False, "is_blackwell": False, "has_flashinfer": False,
        "device_sm": 0, "device_capability": (9, 4),
    },
}


# SGLang's device when --device is unset, on a profile's machine (cuda on NVIDIA and ROCm GPUs).
_PROFILE_DEVICE = {"xpu": "xpu", "npu": "npu", "musa": "musa", "mps": "mps"}


def cuda_toolkit(gpu: str | None) -> tuple[str, str | None]:
    """A profile name split into the machine and the CUDA toolkit it names, as SGLang's image tags
    spell it (`b200-cu129`: a B200 with CUDA 12.9); None: the CPU torch's (no CUDA version)."""
    match = re.fullmatch(r"(.+)-cu(\d\d)(\d)", gpu or "")
    return (match[1], f"{match[2]}.{match[3]}") if match else (gpu or "b200", None)


def profile(gpu: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(probe answers, platform answers) for a GPU profile name (None: b200)."""
    changes = _PROFILE_CHANGES[cuda_toolkit(gpu)[0]]
    probes = {k: changes.get(k, v) for k, v in BLACKWELL_PROBES.items()}
    platform = {k: changes.get(k, v) for k, v in BLACKWELL_PLATFORM.items()}
    return probes, platform


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def to_json_value(value: Any) -> Any:
    """A JSON value for ``value``; ``repr`` when it is not serialisable."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def import_first(*names: str) -> types.ModuleType:
    """Import the first module that exists; errors inside a module propagate."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise
    raise ModuleNotFoundError(f"none of {', '.join(names)}")


def server_args_class() -> type:
    from sglang.srt.server_args import ServerArgs

    return ServerArgs


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """Exactly what ``prepare_server_args`` builds. Built once per process
    (it takes ~0.3 s): parse_args and the config merger only read it."""
    parser = argparse.ArgumentParser(prog="sglang serve")
    server_args_class().add_cli_args(parser)
    return parser


def config_merger_class() -> type:
    # sglang.srt.server_args_config_parser up to 0.5.18, under utils/ later.
    module = import_first(
        "sglang.srt.utils.server_args_config_parser",
        "sglang.srt.server_args_config_parser",
    )
    return module.ConfigArgumentMerger


@contextlib.contextmanager
def working_directory(path: str | None) -> Iterator[None]:
    if not path:
        yield
        return
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def exception_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# ---------------------------------------------------------------------------
# options
# ---------------------------------------------------------------------------

_ACTION_NAMES = {
    argparse._StoreAction: "store",
    argparse._StoreTrueAction: "store_true",
    argparse._StoreFalseAction: "store_false",
    argparse._StoreConstAction: "store_const",
    argparse._AppendAction: "append",
    argparse._CountAction: "count",
    argparse.BooleanOptionalAction: "boolean_optional",
    argparse._HelpAction: "help",
}


def _type_name(kind: Any) -> str | None:
    if kind is None:
        return None
    if kind in (int, float, str):
        return kind.__name__
    return getattr(kind, "__name__", None) or type(kind).__name__


def _choices(choices: Any) -> list[str] | None:
    if choices is None:
        return None
    if isinstance(choices, (set, frozenset)):
        # e.g. --sampling-backend: a set, so argparse's own order varies by run.
        return sorted(str(c) for c in choices)
    return [str(c) for c in choices]


def describe_action(action: argparse.Action) -> dict[str, Any]:
    return {
        "dest": action.dest,
        "flags": list(action.option_strings),
        "action": _ACTION_NAMES.get(type(action), type(action).__name__.lower()),
        "nargs": action.nargs,
        "type": _type_name(action.type),
        "choices": _choices(action.choices),
        "default": to_json_value(action.default),
        "required": bool(action.required),
    }


def cmd_options(_: Any) -> dict[str, Any]:
    parser = build_parser()
    merger = config_merger_class()(parser)
    # What _convert_config_to_args compares each YAML key (dashes turned into
    # underscores) against; dests up to 0.5.22, every long spelling in 0.5.23.
    unsupported = sorted(getattr(merger, "unsupported_actions", {}) or {})
    return {
        "config_unsupported": unsupported,
        "options": [describe_action(a) for a in parser._actions],
    }


# ---------------------------------------------------------------------------
# parse
# ---------------------------------------------------------------------------

_ARGPARSE_ERROR = re.compile(r"^sglang serve: error: .*", re.MULTILINE | re.DOTALL)


def _argparse_message(stderr: str, code: Any) -> str:
    if not code:
        return f"SystemExit({code!r}): argparse exited without an error (--help)"
    match = _ARGPARSE_ERROR.search(stderr)
    if match:
        return match.group(0).strip()
    return stderr.strip() or f"SystemExit({code!r})"


def parse_one(argv: list[str], cwd: str | None) -> dict[str, Any]:
    parser = build_parser()
    captured = io.StringIO()
    try:
        with working_directory(cwd), contextlib.redirect_stderr(captured), contextlib.redirect_stdout(captured):
            if "--config" in argv:
                merger = config_merger_class()(parser)
                argv = merger.merge_config_with_args(argv)
            namespace = parser.parse_args(argv)
    except SystemExit as exc:
        return {"ok": False, "error": _argparse_message(captured.getvalue(), exc.code), "args": None}
    except Exception as exc:  # the merger's ValueError, a YAML error, ...
        return {"ok": False, "error": exception_text(exc), "args": None}
    args = {k: to_json_value(v) for k, v in sorted(vars(namespace).items())}
    return {"ok": True, "error": None, "args": args}


def cmd_parse(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [parse_one(list(case["argv"]), case.get("cwd")) for case in cases]


# ---------------------------------------------------------------------------
# mla
# ---------------------------------------------------------------------------

# Config attributes that decide MLA for some architectures, and a value that
# says "this checkpoint is MLA" / "it is not".
_MLA_HINTS: dict[str, tuple[Any, Any]] = {
    "kv_lora_rank": (512, None),
    "use_mla": (True, False),
}


class _ProbeHFConfig:
    """Stands in for a checkpoint's HF config: plausible numbers for any size."""

    def __init__(self, architecture: str, **attrs: Any):
        self.architectures = [architecture]
        self.model_type = "autofix_probe"
        self.rope_scaling = None
        self.rope_parameters = None
        self.use_mla_nope = False
        self.hidden_size = 4096
        self.num_attention_heads = 32
        self.num_key_value_heads = 8
        for key, value in attrs.items():
            setattr(self, key, value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return 64

    def get_text_config(self, *args: Any, **kwargs: Any) -> "_ProbeHFConfig":
        return self

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def _arch_strings(module: types.ModuleType, function: Callable) -> set[str]:
    """Architecture names a function tests: its string constants, and the
    string collections it reads from module globals."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
        elif isinstance(node, ast.Name):
            value = getattr(module, node.id, None)
            if isinstance(value, (list, tuple, set, frozenset)):
                names.update(v for v in value if isinstance(v, str))
    return {n for n in names if re.fullmatch(r"[A-Z][A-Za-z0-9_]*", n)}


def _is_mla(architecture: str, hints: dict[str, Any]) -> bool:
    from sglang.srt.configs.model_config import AttentionArch, ModelConfig

    config = ModelConfig.__new__(ModelConfig)
    config.hf_config = _ProbeHFConfig(architecture, **hints)
    config.hf_text_config = config.hf_config
    try:
        ModelConfig._derive_model_shapes(config)
    except Exception as exc:
        # Shape arithmetic after the decision may trip on the stand-in
        # config; failing before it would be a wrong answer, so say so.
        if getattr(config, "attention_arch", None) is None:
            raise RuntimeError(f"_derive_model_shapes failed for {architecture}: {exc!r}") from exc
    return getattr(config, "attention_arch", None) == AttentionArch.MLA


def _hints(mla: bool) -> dict[str, Any]:
    return {k: (yes if mla else no) for k, (yes, no) in _MLA_HINTS.items()}


def mla_table() -> dict[str, Any]:
    from sglang.srt.configs import model_config

    candidates = sorted(_arch_strings(model_config, model_config.ModelConfig._derive_model_shapes))
    always, conditional = [], {}
    for arch in candidates:
        with_hints = _is_mla(arch, _hints(True))
        without = _is_mla(arch, _hints(False))
        if with_hints and without:
            always.append(arch)
        elif with_hints:
            needed = [
                key
                for key in sorted(_MLA_HINTS)
                if not _is_mla(arch, {**_hints(True), key: _MLA_HINTS[key][1]})
            ]
            conditional[arch] = needed
    return {"mla_architectures": always, "conditional_mla_architectures": conditional}


def cmd_mla(_: Any) -> dict[str, Any]:
    return mla_table()


# ---------------------------------------------------------------------------
# rules
# ---------------------------------------------------------------------------


def _find(function: str, *modules: str) -> tuple[types.ModuleType, Callable]:
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue
            raise
        if hasattr(module, function):
            return module, getattr(module, function)
    raise LookupError(f"{function} not found in {', '.join(modules)}")


class RuleArgs(types.SimpleNamespace):
    """The raw arguments, with ServerArgs' methods bound to them (0.5.18's
    _kimi_k3_overrides calls ``server_args.is_attention_backend_not_set()``)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(server_args_class(), name, None)
        if inspect.isfunction(attr):
            return types.MethodType(attr, self)
        raise AttributeError(name)


def default_arguments() -> dict[str, Any]:
    """Every ServerArgs field at its default, then the parser's defaults."""
    return copy.deepcopy(_default_arguments())


@functools.cache
def _default_arguments() -> dict[str, Any]:
    values: dict[str, Any] = {}
    cls = server_args_class()
    if dataclasses.is_dataclass(cls):
        for field in dataclasses.fields(cls):
            if field.default is not dataclasses.MISSING:
                values[field.name] = field.default
            elif field.default_factory is not dataclasses.MISSING:
                values[field.name] = field.default_factory()
    for action in build_parser()._actions:
        if action.dest != "help" and action.default is not argparse.SUPPRESS:
            values[action.dest] = action.default
    return values


def declared_overlay(ns: Any) -> dict[str, Any]:
    overlay: dict[str, Any] = {}
    for _source, declared in getattr(ns, "_resolved_overrides", None) or ():
        overlay.update(declared)
    return overlay


@contextlib.contextmanager
def cuda_kernels(present: bool) -> Iterator[None]:
    """While a case on an NVIDIA GPU runs, its kernel packages import."""
    finder = _KernelStubFinder() if present else None
    if finder is not None:
        sys.meta_path.append(finder)
    try:
        yield
    finally:
        if finder is not None:
            sys.meta_path.remove(finder)


_PROBE_SITES: dict[tuple[int, tuple[str, ...], tuple[str, ...]], tuple[tuple[types.ModuleType, str], ...]] = {}


def _loaded_sglang() -> list[types.ModuleType]:
    return [m for name, m in list(sys.modules.items()) if name.startswith("sglang.srt") and m is not None]


def _probe_sites(modules: list[types.ModuleType], probes: tuple[str, ...]) -> tuple[tuple[types.ModuleType, str], ...]:
    """(module, probe) for each probe a loaded sglang module (or one of modules) names;
    found again only when a module has been loaded since (its names are bound as it loads)."""
    others = tuple(m.__name__ for m in modules if not m.__name__.startswith("sglang.srt"))
    key = (len(sys.modules), probes, others)
    if key not in _PROBE_SITES:
        _PROBE_SITES.clear()
        _PROBE_SITES[key] = tuple(
            (module, probe) for module in dict.fromkeys([*modules, *_loaded_sglang()])
            for probe in probes if hasattr(module, probe)
        )
    return _PROBE_SITES[key]


@contextlib.contextmanager
def machine(modules: list[types.ModuleType], gpu: str | None = None) -> Iterator[None]:
    """Patch every hardware probe the rule functions can reach to answer for one GPU profile."""
    probes, platform = profile(gpu)
    saved: list[tuple[Any, str, Any]] = []

    def patch(obj: Any, name: str, value: Any) -> None:
        saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    from sglang.srt.utils import common

    for module, probe in _probe_sites([common, *modules], tuple(probes)):
        patch(module, probe, (lambda a=probes[probe]: lambda *args, **kw: a)())
    override = None
    try:
        runtime = importlib.import_module("sglang.srt.runtime_context")
    except ModuleNotFoundError:
        runtime = None
    if runtime is not None and hasattr(runtime, "override_platform"):
        known = set(getattr(runtime, "_PLATFORM_PROBES", {})) | set(getattr(runtime, "_PLATFORM_VALUES", {}))
        override = runtime.override_platform(**{k: v for k, v in platform.items() if k in known})
        override.install()
    # The quantization methods SGLang registers at import on a CUDA machine (the judge imported it on none).
    stack_registry = _cuda_quantization_methods(bool(probes["is_cuda"]))
    # Rules that ask torch itself (0.5.17/0.5.18 read the capability directly).
    import torch

    stack = contextlib.ExitStack()
    stack.enter_context(cuda_kernels(_has_kernel_packages(probes)))
    major_minor = probes["get_device_capability"]
    patch(torch.cuda, "is_available", lambda: bool(probes["is_cuda"] or probes["is_hip"]))
    patch(torch.cuda, "get_device_capability", lambda *a, **k: major_minor)
    patch(torch.cuda, "get_device_name", lambda *a, **k: probes["get_device_name"])
    patch(torch.cuda, "device_count", lambda: 8)
    memory = probes["get_device_memory_capacity"] * 1024 * 1024
    patch(torch.cuda, "mem_get_info", lambda *a, **k: (memory, memory))
    toolkit = cuda_toolkit(gpu)[1]
    if toolkit is not None:
        patch(torch.version, "cuda", toolkit)
    try:
        yield
    finally:
        stack.close()
        stack_registry()
        if override is not None:
            override.restore()
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)


def _has_kernel_packages(probes: dict[str, Any]) -> bool:
    """Whether the machine has SGLang's kernel packages: an NVIDIA GPU, and an Intel XPU (whose
    sgl-kernel-xpu is imported as sgl_kernel: layers/moe/topk.py takes topk_softmax from it)."""
    return bool(probes["is_cuda"] or probes["is_xpu"])


def _cuda_quantization_methods(cuda: bool) -> Callable[[], None]:
    """On CUDA, layers/quantization registers `mxfp4` (Mxfp4Config) in QUANTIZATION_METHODS as it is
    imported; the judge imports it on a machine with no GPU. Add it for a CUDA case; returns the undo."""
    quantization = sys.modules.get("sglang.srt.layers.quantization")
    methods = getattr(quantization, "QUANTIZATION_METHODS", None)
    config = getattr(quantization, "Mxfp4Config", None)
    if not cuda or methods is None or config is None or "mxfp4" in methods:
        return lambda: None
    methods["mxfp4"] = config
    return lambda: methods.pop("mxfp4", None)


def blackwell(modules: list[types.ModuleType]) -> contextlib.AbstractContextManager[None]:
    return machine(modules, "b200")


class RuleFunctions:
    """The release's own functions for the three records, located by name."""

    def __init__(self) -> None:
        self.kimi_module, self.kimi_overrides = _find(
            "_kimi_k3_overrides",
            "sglang.srt.arg_groups.model_overrides.kimi_k3",
            "sglang.srt.arg_groups.overrides",
        )
        self.kv_module, self.kv_checks = _find(
            "_mla_kv_cache_dtype_checks",
            "sglang.srt.arg_groups.overrides",
            "sglang.srt.arg_groups.attention_hook",
        )
        self.deprecated = self._deprecated_handler()
        # Import now: with the Blackwell probes patched, modules that test
        # is_cuda() at import time would reach for a CUDA torch.
        importlib.import_module("sglang.srt.configs.model_config")
        registry = importlib.import_module("sglang.srt.layers.attention.attention_registry")
        self.backends: dict[str, Callable] = registry.ATTENTION_BACKENDS
        self.modules = [self.kimi_module, self.kv_module, registry]
        base = sys.modules.get("sglang.srt.arg_groups.model_override_base")
        if base is not None:
            self.modules.append(base)

    @staticmethod
    def _deprecated_handler() -> Callable[[Any], None]:
        try:
            hook = importlib.import_module("sglang.srt.arg_groups.serving_hook")
        except ModuleNotFoundError:
            hook = None
        if hook is not None and hasattr(hook, "handle_deprecated_args"):
            return hook.handle_deprecated_args  # 0.5.19+: declares through the stash
        return server_args_class()._handle_deprecated_args  # 0.5.17/0.5.18: writes fields

    def registry_guard(self, view: Any, use_mla: bool) -> None:
        """The attention registry's MLA/MHA guard of each effective prefill/decode
        backend, as the model runner meets it at start (record 1f2bd480c921bf78)."""
        prefill = view.prefill_attention_backend or view.attention_backend
        decode = view.decode_attention_backend or view.attention_backend
        for backend in dict.fromkeys(b for b in (prefill, decode) if b):
            wants_mla = self.kind_guard(backend)
            if wants_mla is not None and wants_mla != use_mla:
                self.backends[backend](types.SimpleNamespace(use_mla_backend=use_mla, server_args=view))

    def hardware_guard(self, view: Any, use_mla: bool) -> None:
        """The checks of the GPU that the creator of each effective prefill/decode backend makes
        before it builds the backend (fa3's compute capability), as the model runner meets them:
        only a creator that reads the device capability is run, and only what it raises itself
        is a refusal (building the backend needs a model and a GPU the judge does not have)."""
        prefill = view.prefill_attention_backend or view.attention_backend
        decode = view.decode_attention_backend or view.attention_backend
        for backend in dict.fromkeys(b for b in (prefill, decode) if b):
            creator = self.backends.get(backend)
            if creator is None or "get_device_capability(" not in inspect.getsource(creator):
                continue
            try:
                creator(types.SimpleNamespace(use_mla_backend=use_mla, server_args=view))
            except Exception as exc:
                innermost = exc.__traceback__
                while innermost is not None and innermost.tb_next is not None:
                    innermost = innermost.tb_next
                if innermost is not None and innermost.tb_frame.f_code is creator.__code__:
                    raise

    def kind_guard(self, backend: str) -> bool | None:
        """What ``use_mla_backend`` the creator of ``backend`` insists on, read
        from its first statement (``if not runner.use_mla_backend: raise``);
        None when it has no such guard."""
        creator = self.backends.get(backend)
        if creator is None:
            return None
        body = ast.parse(textwrap.dedent(inspect.getsource(creator))).body[0].body
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            if not (isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[0], ast.Raise)):
                return None
            test = ast.unparse(stmt.test)
            if test == "not runner.use_mla_backend":
                return True
            if test == "runner.use_mla_backend":
                return False
            return None
        return None


def run_rules(funcs: RuleFunctions, case: dict[str, Any]) -> dict[str, Any]:
    raw = {**default_arguments(), **case.get("args", {})}
    ns = RuleArgs(**raw)
    ns._resolved_overrides = []
    architecture = case.get("architecture")
    result: dict[str, Any] = {"ok": True, "error": None, "overrides": {}, "declared": {}}

    def declared() -> dict[str, Any]:
        now = {**{k: v for k, v in vars(ns).items() if not k.startswith("_")}, **declared_overlay(ns)}
        return {k: now[k] for k in sorted(now) if k not in raw or now[k] != raw[k]}

    try:
        # 1. Deprecated arguments run before the model overrides in every release.
        funcs.deprecated(ns)
        # 2. Kimi-K3 model overrides (record 1).
        if architecture == KIMI_K3:
            overrides = funcs.kimi_overrides(ns, None)
            result["overrides"] = {k: to_json_value(v) for k, v in sorted(overrides.items())}
            ns._resolved_overrides.append(("_kimi_k3_overrides", dict(overrides)))
        # 3. The kv-cache dtype pass reads the arguments under the declarations (record 2).
        view = types.SimpleNamespace(**{**vars(ns), **declared_overlay(ns)})
        funcs.kv_checks(view)
        # 4. The attention registry's MLA/MHA guard at model-runner start (record 3).
        if architecture is not None:
            funcs.registry_guard(view, _is_mla(architecture, {**_hints(True), **case.get("hf_config", {})}))
    except Exception as exc:
        result["ok"] = False
        result["error"] = exception_text(exc)
    result["declared"] = {k: to_json_value(v) for k, v in declared().items()}
    return result


def cmd_rules(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    funcs = RuleFunctions()
    with blackwell(funcs.modules), contextlib.ExitStack() as stack:
        # Kimi-K3 DCP's cutedsl path checks FlashInfer's signature; not here.
        saved = funcs.kimi_module._require_kimi_k3_cutedsl_dcp_support
        funcs.kimi_module._require_kimi_k3_cutedsl_dcp_support = lambda: None
        stack.callback(setattr, funcs.kimi_module, "_require_kimi_k3_cutedsl_dcp_support", saved)
        # What the steps change for every launch (e.g. grpc_worker_threads
        # from its environment default) is not news about a case.
        baseline = run_rules(funcs, {"args": {}, "architecture": None})["declared"]
        results = [run_rules(funcs, case) for case in cases]
    for result in results:
        result["declared"] = {
            k: v for k, v in result["declared"].items() if k not in baseline or baseline[k] != v
        }
    return results


# ---------------------------------------------------------------------------
# judge: the parser, then every rule function that holds one of the given messages
# ---------------------------------------------------------------------------

# Where SGLang validates server arguments: the dataclass, the hooks it grew
# into from 0.5.19 on, and the speculative algorithms' dispatch to them.
# Runtime modules (layers/, managers/) are not searched: their functions need
# a model and a GPU.
_RULE_FILES = ("server_args.py", "arg_groups", "speculative/spec_info.py")


def literal_of(pattern: str) -> str:
    """The longest run of literal characters in a regex: what its source must spell."""
    import re._parser as sre_parse  # noqa: PLC0415 (CPython's own regex parser)

    runs, current = [], []
    for op, value in sre_parse.parse(pattern):
        if op is sre_parse.LITERAL:
            current.append(chr(value))
            continue
        runs.append("".join(current))
        current = []
    runs.append("".join(current))
    return max(runs, key=len)


def _string_texts(node: ast.AST) -> Iterator[str]:
    """Every string a function spells; an f-string's fields become NUL."""
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            yield child.value
        elif isinstance(child, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) else "\0" for v in child.values)


@dataclasses.dataclass(frozen=True)
class RuleFunction:
    module: str
    qualname: str  # "handle_x" or "ServerArgs._handle_x"
    line: int

    def resolve(self) -> Callable:
        obj: Any = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            obj = getattr(obj, part)
        return obj


@functools.cache
def _rule_sources() -> list[tuple[str, ast.Module]]:
    import sglang.srt as srt

    root = list(srt.__path__)[0]
    paths = []
    for entry in _RULE_FILES:
        full = os.path.join(root, entry)
        if os.path.isfile(full):
            paths.append(full)
        for folder, _dirs, files in os.walk(full):
            paths += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    found = []
    for path in sorted(paths):
        module = "sglang.srt." + os.path.relpath(path, root)[:-3].replace(os.sep, ".")
        with open(path, encoding="utf-8") as handle:
            found.append((module, ast.parse(handle.read())))
    return found


def _callables(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef]]:
    """Module-level functions and methods of module-level classes."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                # An argparse Action's __call__ runs inside parse_args, never on the record.
                if isinstance(item, ast.FunctionDef) and item.name != "__call__":
                    yield f"{node.name}.{item.name}", item


@functools.cache
def _spelt() -> tuple[tuple[RuleFunction, str], ...]:
    """Each rule-source function (but the whole pipeline) with every string it spells,
    joined by NUL: read once, searched for every pattern."""
    return tuple(
        (RuleFunction(module, qualname, node.lineno), "\0\0".join(_string_texts(node)))
        for module, tree in _rule_sources()
        for qualname, node in _callables(tree)
        if qualname not in _WHOLE_PIPELINE
    )


@functools.cache
def locate(pattern: str) -> tuple[RuleFunction, ...]:
    """The functions of this release whose strings spell the literal text of pattern."""
    text = literal_of(pattern)
    if len(text) < 12:
        raise ValueError(f"too little literal text to locate {pattern!r}")
    # A literal run never holds NUL (an f-string field), so it cannot span two strings.
    return tuple(function for function, strings in _spelt() if text in strings)


@functools.cache
def _pipeline_text(inline: bool = True) -> str:
    """The source of what runs the handlers, in order. With inline, each
    ``self._x()`` method it calls is written out in place (0.5.17/0.5.18 reach
    the passes through such methods): the ranks of rule functions. Without,
    what the pipeline calls itself: the entry points."""
    for module, name in (
        ("sglang.srt.arg_groups.pipeline", "run_resolution_pipeline"),  # 0.5.19+
        ("sglang.srt.server_args", "ServerArgs.__post_init__"),  # 0.5.17/0.5.18
    ):
        try:
            text = inspect.getsource(RuleFunction(module, name, 0).resolve())
        except (ModuleNotFoundError, AttributeError, OSError, TypeError):
            continue
        if not inline:
            return text
        cls = server_args_class()

        def expand(match: re.Match) -> str:
            method = getattr(cls, match[1], None)
            try:
                return match[0] + "\n" + inspect.getsource(method) if inspect.isfunction(method) else match[0]
            except (OSError, TypeError):
                return match[0]

        return re.sub(r"self\.(_\w+)\(", expand, text)
    return ""


# Steps that are not rules but which a rule reads the result of: ranked and run like rules.
_RESOLVERS = (
    "_data_parallelism_defaults", "_page_size_default", "_pipeline_parallel_overlap_disable",
    "parse_cuda_graph_config", "_parse_cuda_graph_config",
    # 0.5.22+: `--dp N --enable-dp-attention` becomes `--attn-dp-size N` before any rule reads either.
    "handle_deprecated_dp_attention",
    # `--watermark-config` JSON becomes the fields the watermark checks read.
    "handle_watermark_config",
    # `--load-balance-method auto` becomes round_robin (follow_bootstrap_room on a prefill server).
    "handle_load_balance_method", "_handle_load_balance_method",
    # Under attention DP, --chunked-prefill-size becomes a per-rank share before later checks read it
    # (0.5.19+; 0.5.17/0.5.18's method writes the record, which the judge builds read-only there).
    "handle_data_parallelism",
    # 0.5.21+: an NVFP4 KV cache's prefill and decode backends (trtllm_mha decode), which
    # handle_kv4_compatibility reads.
    "handle_nvfp4_prefill_kv_dequant_dtype",
)
# What runs the whole resolution (0.5.17/0.5.18): never a rule of its own; the rules it calls are.
_WHOLE_PIPELINE = ("ServerArgs.__post_init__", "ServerArgs.__init__")
# What ServerArgs.resolve_once checks after the pipeline, on the Torch MPS device only (0.5.22+):
# run there, never as a rule of its own (the entry point would be the whole resolution).
_AFTER_PIPELINE_ON_MPS = ("validate_standard_mps_server_args", "validate_mps_model_config")
# Where the pipeline applies model overrides (Kimi-K3's among them).
_MODEL_OVERRIDES = ("handle_model_specific_adjustments(", "_handle_model_specific_adjustments(")


@functools.cache
def page_size_snaps() -> tuple[RuleFunction, ...]:
    """The passes that move page_size to what a backend supports ("changing
    page_size from 1 to 64"): later rules read the page size they leave."""
    return tuple(
        e for f in locate(r"changing page_size from (.+?) to ") for e in entry_points(f)
    )


@functools.cache
def _by_name() -> dict[str, tuple[RuleFunction, ...]]:
    found: dict[str, list[RuleFunction]] = {}
    for module, tree in _rule_sources():
        for qualname, node in _callables(tree):
            found.setdefault(f"{module}:{qualname}", []).append(RuleFunction(module, qualname, node.lineno))
    return {name: tuple(functions) for name, functions in found.items()}


def by_name(name: str) -> tuple[RuleFunction, ...]:
    """The rule-source function ``module:qualname``; none when this release has no such function."""
    return _by_name().get(name, ())


def named(name: str) -> tuple[RuleFunction, ...]:
    """The module-level functions of this release called name."""
    return tuple(
        RuleFunction(module, qualname, node.lineno)
        for module, tree in _rule_sources()
        for qualname, node in _callables(tree)
        if qualname in (name, f"ServerArgs.{name}")
    )


@functools.cache
def _pipeline_calls(name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b(?=[(),])", _pipeline_text(inline=False)) is not None


@functools.cache
def _uses() -> dict[str, tuple[RuleFunction, ...]]:
    """name -> the rule-source functions whose bodies use it (as a name or an attribute)."""
    found: dict[str, list[RuleFunction]] = {}
    for module, tree in _rule_sources():
        for qualname, node in _callables(tree):
            function = RuleFunction(module, qualname, node.lineno)
            used = {ref.id if isinstance(ref, ast.Name) else ref.attr for ref in ast.walk(node)
                    if isinstance(ref, (ast.Name, ast.Attribute))}
            for name in used:
                found.setdefault(name, []).append(function)
    return {name: tuple(functions) for name, functions in found.items()}


def _callers(name: str) -> tuple[RuleFunction, ...]:
    """The rule-source functions whose bodies use name: call it (``name(...)``,
    ``self.name(...)``) or hand it on (a dispatch table, ``run_hook(name, ...)``)."""
    return tuple(f for f in _uses().get(name, ()) if f.qualname.rsplit(".", 1)[-1] != name)


@functools.cache
def entry_points(function: RuleFunction, depth: int = 0) -> tuple[RuleFunction, ...]:
    """What the pipeline calls to reach function: the function itself when
    the pipeline calls it, else its callers' entry points (their guards, such
    as "only with EAGLE", hold), up to three calls deep."""
    name = function.qualname.rsplit(".", 1)[-1]
    if _pipeline_calls(name) or depth == 3:
        return (function,)
    callers = _callers(name)
    if not callers:
        return (function,)
    return tuple(dict.fromkeys(e for c in callers for e in entry_points(c, depth + 1)))


@functools.cache
def _rank(function: RuleFunction) -> tuple[int, str, int]:
    """Where the pipeline calls a function (post-process passes: at the pass);
    a resolver it does not name runs first, other unknown ones last, in file order."""
    text = _pipeline_text()
    name = function.qualname.rsplit(".", 1)[-1]
    if name in _RESOLVERS and not re.search(rf"\b{re.escape(name)}\b", text):
        return (-1, function.module, function.line)
    if name == "_kimi_k3_overrides":
        return (min((i for i in (text.find(m) for m in _MODEL_OVERRIDES) if i >= 0), default=0), "", 0)
    # A call, or a function handed to run_hook / run_post_process_pass; an
    # import list names it too, but earlier than it runs.
    word = re.escape(name)
    found = None
    for call in (rf"\b{word}\(", rf"run_hook\(\s*{word}\b", rf"run_post_process_pass\([^)]*\b{word}\b",
                 rf"\b{word}\b(?=[(),])"):
        found = re.search(call, text)
        if found is not None:
            break
    if found is None and name.startswith("_"):
        found = re.search(rf"\b{re.escape(name.lstrip('_'))}\(", text)
    at = found.start() if found else -1
    if at < 0:
        at = text.find("check_server_args(")
    return (at if at >= 0 else len(text), function.module, function.line)


class _JudgeHFConfig(_ProbeHFConfig):
    """The stand-in checkpoint of the judge: numbers are plausible, and
    optional features (``*_config``, ``use_*``, ``is_*``, ``index_*`` of
    sparse attention, ``*_per_layer`` head counts, ``sliding_window``) are
    absent, as in a plain decoder."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name.endswith(("_config", "_configs", "_per_layer")) \
                or name.startswith(("use_", "is_", "enable_", "index_")) \
                or name in ("sliding_window", "layer_types", "quantization", "text_config"):
            return None
        return 64


def probe_model_config(architecture: str) -> Any:
    """A ModelConfig for a checkpoint of this architecture, built from a
    stand-in HF config (no download): what rules that read the model see.
    A new one each time: handlers write to it, and cases must not share that.
    Attributes the stand-in cannot know answer False (``is_*``, ``has_*``)
    or None."""
    from sglang.srt.configs.model_config import ModelConfig

    class ProbeModelConfig(ModelConfig):
        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return False if name.startswith(("is_", "has_", "use_", "enable_")) else None

    config = ProbeModelConfig.__new__(ProbeModelConfig)
    # MLA attributes only where the architecture is MLA with them (a dense model has no kv_lora_rank).
    config.hf_config = _JudgeHFConfig(architecture, **_hints(_is_mla(architecture, _hints(True))))
    config.hf_text_config = config.hf_config
    config.model_path = "autofix-probe"
    config.context_len = 32768
    config.hf_quant_config = {}  # as ModelConfig reads a checkpoint with no quantization_config
    try:
        ModelConfig._derive_model_shapes(config)
    except Exception:  # shapes after the attention decision; the decision is what rules read
        pass
    return config


def resolved_defaults(raw: dict[str, Any], device: str = "cuda") -> dict[str, Any]:
    """What resolution fills in for arguments left unset, on one B200 (or the
    device of the case's machine), before the validations read them
    (check_server_args divides by page_size and reads served_model_name). Only
    unset (None) arguments are filled."""
    model = raw.get("model_path")
    fills = {
        "served_model_name": model,
        "tokenizer_path": model,
        "device": device,
        "page_size": 1,
        # SGLang's defaults on a GPU with B200-class memory.
        "chunked_prefill_size": 16384,
        "mem_fraction_static": 0.85,
    }
    return {k: v for k, v in fills.items() if k in raw and raw[k] is None}


def _field_names(cls: type) -> set[str]:
    if dataclasses.is_dataclass(cls):
        return {f.name for f in dataclasses.fields(cls)}
    return set(getattr(cls, "__struct_fields__", ()))  # 0.5.20+: a msgspec Struct


def server_args_record(raw: dict[str, Any]) -> Any:
    """A ServerArgs holding raw, as SGLang's pipeline finds it: its methods,
    class-level fallbacks and type are the release's own. From 0.5.19 on,
    construction resolves nothing, so the record is built as SGLang builds
    it; before, ``__post_init__`` resolves, so it is skipped."""
    cls = server_args_class()
    fields = _field_names(cls)
    if hasattr(cls, "resolve_once"):
        record = cls(**{k: v for k, v in raw.items() if k in fields})
        for key, value in raw.items():
            if key not in fields:
                setattr(record, key, value)
    else:
        record = cls.__new__(cls)
        vars(record).update(raw)
    record._resolved_overrides = []
    record._raw_input = {k: v for k, v in raw.items() if k in fields}
    # What handle_missing_default_values records of `--quantization unquant` (model overrides read it).
    record._quantization_explicitly_unset = raw.get("quantization") == "unquant"
    return record


def _parameters(function: Callable) -> tuple[str, ...]:
    """The parameters a call must give (none with a default)."""
    try:
        found = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in found if p.default is inspect.Parameter.empty)


def _step_arguments(function: Callable, record: Any, model: Any) -> tuple[Any, ...]:
    """What SGLang passes a step besides the arguments: a model override the checkpoint's config;
    the memory handler of 0.5.17-0.5.19 the GPU's memory (`get_device_memory_capacity(device)`,
    answered by the machine profile)."""
    needed = _parameters(function)
    if "hf_config" in needed:
        return (model.hf_config,)
    if "gpu_mem" in needed:
        from sglang.srt.utils import common

        return (common.get_device_memory_capacity(record.device),)
    return ()


def _first_parameter(function: Callable) -> str | None:
    try:
        return next(iter(inspect.signature(function).parameters), None)
    except (TypeError, ValueError):
        return None


def _declare(record: Any, source: str, values: dict[str, Any]) -> None:
    """Declare as the pipeline does: 0.5.19+ reads the stash; 0.5.17/0.5.18
    read the fields, which are written too."""
    if not values:
        return
    record._resolved_overrides.append((source, dict(values)))
    if not hasattr(type(record), "resolve_once"):
        vars(record).update(values)


_GET_CONFIG_SITES: dict[int, tuple[tuple[types.ModuleType, Any], ...]] = {}


def _get_config_sites() -> tuple[tuple[types.ModuleType, Any], ...]:
    """(module, sglang's get_config) for each loaded module that imported it; found again
    only when a module has been loaded since."""
    if len(sys.modules) not in _GET_CONFIG_SITES:
        _GET_CONFIG_SITES.clear()
        _GET_CONFIG_SITES[len(sys.modules)] = tuple(
            (module, found) for module in _loaded_sglang()
            if callable(found := getattr(module, "get_config", None))
            and "hf_transformers" in (getattr(found, "__module__", "") or "")
        )
    return _GET_CONFIG_SITES[len(sys.modules)]


def real_model_config(record: Any, folder: str) -> Any:
    """SGLang's own ModelConfig of the served model, read from a stand-in folder
    holding a config.json of the model's real facts (nothing is downloaded):
    what `ModelConfig.from_server_args` builds, with its own checks (context
    length, quantization) raising as they do when the server starts."""
    from sglang.srt.configs.model_config import ModelConfig

    factory = ModelConfig.__dict__["from_server_args"].__func__
    factory = getattr(factory, "__wrapped__", factory)  # SGLang's own, under stand_in_models
    return factory(record, model_path=folder)


@contextlib.contextmanager
def stand_in_models(architecture: str | None, folder: str | None = None) -> Iterator[None]:
    """Every ModelConfig a rule builds (the served model's, a draft model's)
    is the stand-in of the case's architecture: nothing is downloaded. With a
    stand-in folder (a config.json of the model's real facts), the served
    model's is SGLang's own ModelConfig of that folder; other models (a
    draft) are still the stand-in."""
    from sglang.srt.configs.model_config import ModelConfig

    stand_in = architecture or "LlamaForCausalLM"
    model = probe_model_config(stand_in)
    saved = ModelConfig.__dict__["from_server_args"]

    def from_server_args(server_args: Any, *args: Any, **kwargs: Any) -> Any:
        if folder is None or args or kwargs.get("is_draft_model") or kwargs.get("model_path"):
            return model
        return real_model_config(server_args, folder)

    from_server_args.__wrapped__ = saved.__func__  # type: ignore[attr-defined]
    ModelConfig.from_server_args = staticmethod(from_server_args)
    # sglang's own get_config (draft models, aliases), wherever it was imported.
    patched: list[tuple[types.ModuleType, Any]] = []
    for module, found in _get_config_sites():
        patched.append((module, found))
        module.get_config = (lambda real: lambda path, *a, **k: real(path, *a, **k) if path == folder
                             else probe_model_config(stand_in).hf_config)(found)
    try:
        yield
    finally:
        ModelConfig.from_server_args = saved
        for module, found in patched:
            module.get_config = found


def judge_one(funcs: RuleFunctions, case: dict[str, Any], rules: list[RuleFunction]) -> dict[str, Any]:
    parsed = parse_one(list(case["argv"]), case.get("cwd"))
    result: dict[str, Any] = {"ok": parsed["ok"], "stage": "parse", "error": parsed["error"], "ran": []}
    if not parsed["ok"]:
        return result
    architecture = case.get("architecture")
    raw = {**default_arguments(), **parsed["args"]}
    record = server_args_record(raw)
    _declare(record, "autofix: resolved defaults", resolved_defaults(raw, _PROFILE_DEVICE.get(case.get("gpu"), "cuda")))
    folder = case.get("model_config")
    # The model, as rules that read it see it; an unknown one is a plain dense
    # decoder (autofix reports nothing about a model it does not know). A case
    # with a stand-in folder of the model's real config gets SGLang's own
    # ModelConfig of it, whose checks refuse what they refuse at start.
    if folder is None:
        model = probe_model_config(architecture or "LlamaForCausalLM")
        model.quantization = raw.get("quantization")  # as ModelConfig.from_server_args takes it
    else:
        try:
            model = real_model_config(record, folder)
        except Exception as exc:
            return {**result, "ok": False, "stage": "rules", "error": exception_text(exc), "where": raised_at(exc)}
    vars(record)["_model_config"] = model  # 0.5.19+ memo
    if not hasattr(type(record), "resolve_once"):
        vars(record)["model_config"] = model  # 0.5.17/0.5.18 memo
    steps = [*rules, *(f for name in _RESOLVERS for f in named(name)), *page_size_snaps()]
    # A family's override provider runs for the architectures it is registered for, and no other.
    steps = [f for f in steps if provider_applies(f, model)]
    # Kimi-K3's overrides run for Kimi-K3 only (SGLang dispatches them by architecture).
    steps = [f for f in steps if f.qualname != "_kimi_k3_overrides"]
    if architecture == KIMI_K3:
        steps.append(RuleFunction(funcs.kimi_module.__name__, "_kimi_k3_overrides", 0))
    steps = without_steps_inside_whole_resolution(steps)
    post_pass = getattr(importlib.import_module("sglang.srt.arg_groups.overrides"), "run_post_process_pass", None)
    try:
        funcs.deprecated(record)
        for step in sorted(set(steps), key=_rank):
            result["ran"].append(step.qualname)
            function = step.resolve()
            if step.qualname == "_kimi_k3_overrides":
                _declare(record, step.qualname, function(record, None))
            elif post_pass is not None and _first_parameter(function) == "view":
                # A pass: SGLang evaluates it on the resolving view and stashes what it declares.
                stashed = len(record._resolved_overrides)
                post_pass(record, function)
                for source, declared in record._resolved_overrides[stashed:]:
                    if not hasattr(type(record), "resolve_once"):
                        vars(record).update(declared)  # 0.5.17/0.5.18 handlers read the fields
            else:
                # Model overrides take the checkpoint's config too: the stand-in's.
                declared = function(record, *_step_arguments(function, record, model))
                if isinstance(declared, dict):
                    _declare(record, step.qualname, declared)
            if not hasattr(type(record), "resolve_once"):
                # 0.5.17/0.5.18 handlers read fields: what passes inside them declared is materialised.
                vars(record).update(declared_overlay(record))
        fields = {k: getattr(record, k) for k in _field_names(type(record))}
        view = types.SimpleNamespace(**{**vars(record), **fields, **declared_overlay(record)})
        mps_checks = [f for name in _AFTER_PIPELINE_ON_MPS for f in named(name)]
        if mps_checks and view.device == "mps" and str(view.model_path).lower() not in ("none", "dummy"):
            result["ran"] += [f.qualname for f in mps_checks]
            lora = bool(view.enable_lora) or (view.enable_lora is None and bool(view.lora_paths))
            mps_checks[0].resolve()(record)
            mps_checks[1].resolve()(model, lora_enabled=lora)
        # The attention registry's MLA/MHA guard, when the model runner starts.
        fields = {k: getattr(record, k) for k in _field_names(type(record))}
        view = types.SimpleNamespace(**{**vars(record), **fields, **declared_overlay(record)})
        if architecture is not None:
            funcs.registry_guard(view, _is_mla(architecture, _hints(True)))
        # A case that names its GPU meets the backend creators' checks of it too.
        if case.get("gpu") is not None:
            funcs.hardware_guard(view, _is_mla(architecture or "LlamaForCausalLM", _hints(True)))
        if case.get("gpu") is not None and view.device == "cuda":
            legacy_gpu_check(model, record)
        if folder is not None:
            model_runner_checks(model, view)
            aux_hidden_state_capture_checks(model, view)
            cross_attention_guard(funcs, model, view, _is_mla(architecture or "LlamaForCausalLM", _hints(True)))
    except Exception as exc:  # AssertionError, ValueError, NotImplementedError ...
        return {**result, "ok": False, "stage": "rules", "error": exception_text(exc), "where": raised_at(exc)}
    return {**result, "stage": "rules"}


def _override_registry() -> tuple[dict[str, list[Callable]], list[tuple[Callable[[str], bool], Callable]]]:
    """SGLang's registry of per-architecture override providers (``register_model_override``,
    ``register_model_override_predicate``): in model_override_base from 0.5.19 on, in overrides
    before; empty where neither is loaded."""
    for name in ("sglang.srt.arg_groups.model_override_base", "sglang.srt.arg_groups.overrides"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "_MODEL_OVERRIDE_FNS"):
            return module._MODEL_OVERRIDE_FNS, getattr(module, "_PREDICATE_OVERRIDE_FNS", [])
    return {}, []


def provider_applies(step: RuleFunction, model: Any) -> bool:
    """Whether SGLang would call step for the served model: a registered override provider only
    when ``collect_model_override_declarations`` dispatches to it, i.e. for an architecture it is
    registered under (or whose predicate accepts architectures[0]); any other function, always."""
    try:
        function = step.resolve()
    except (ImportError, AttributeError):
        return True
    by_architecture, predicates = _override_registry()
    registered = {arch for arch, functions in by_architecture.items() if any(f is function for f in functions)}
    tests = [predicate for predicate, f in predicates if f is function]
    if not registered and not tests:
        return True
    architecture = (getattr(model.hf_config, "architectures", None) or [None])[0]
    return architecture in registered or any(test(architecture) for test in tests if architecture is not None)


def legacy_gpu_check(model: Any, record: Any) -> None:
    """What the model runner checks of a CUDA GPU as it loads the model
    (`maybe_downgrade_dtype_for_legacy_gpu`): below SM80 it serves float16, below SM75 it refuses."""
    import torch

    if torch.cuda.get_device_capability()[0] >= 8:
        return
    from sglang.srt.model_executor.model_runner_components import load_model_utils

    check = load_model_utils.maybe_downgrade_dtype_for_legacy_gpu
    kwargs = {"model_config": model, "server_args": record}
    overrides = importlib.import_module("sglang.srt.arg_groups.overrides")
    with contextlib.ExitStack() as stack:
        # Where it records the float16 fallback (the runner's context) is not set up here.
        if hasattr(load_model_utils, "get_context"):
            recorder = types.SimpleNamespace(override=lambda *a, **k: None)
            stack.enter_context(unittest.mock.patch.object(load_model_utils, "get_context", lambda: recorder))
        if hasattr(overrides, "declare_load_time_override"):
            stack.enter_context(unittest.mock.patch.object(overrides, "declare_load_time_override",
                                                           lambda *a, **k: None))
        check(**{k: v for k, v in kwargs.items() if k in inspect.signature(check).parameters})


def without_steps_inside_whole_resolution(steps: list[RuleFunction]) -> list[RuleFunction]:
    """0.5.18's `ServerArgs._run_resolution_pipeline` is the whole resolution, an entry point of
    handlers it reaches only through others. With it among the steps, the handlers it calls itself
    run inside it, not again after it: its end materializes the record, which is read-only then."""
    whole = [f for f in steps if f.qualname == "ServerArgs._run_resolution_pipeline"]
    if not whole:
        return steps
    text = inspect.getsource(whole[0].resolve())
    return [f for f in steps if f in whole
            or not re.search(rf"\b{re.escape(f.qualname.rsplit('.', 1)[-1])}\(", text)]


def model_runner_checks(model: Any, view: Any) -> None:
    """What the model runner checks of the real model before it loads weights:
    `check_quantized_moe_compatibility` (block-quantized MoE shapes against
    TP and EP), with the parallel sizes the resolution left (the runner's
    parallel state: moe_ep_size is ep_size, moe_dp_size is moe_dp_size)."""
    from sglang.srt.model_executor.model_runner_components.moe_ep_setup import check_quantized_moe_compatibility

    check_quantized_moe_compatibility(
        model_config=model, tp_size=view.tp_size, moe_ep_size=view.ep_size,
        moe_dp_size=getattr(view, "moe_dp_size", 1) or 1,
    )


def cross_attention_guard(funcs: RuleFunctions, model: Any, view: Any, use_mla: bool) -> None:
    """The attention registry creators' refusal of an encoder-decoder (cross-attention) model, as the
    model runner meets it for each effective prefill/decode backend: for such a model alone, only a
    creator that reads `model_config.is_encoder_decoder` is run, and only what it raises itself is a
    refusal (building the backend needs a GPU the judge does not have)."""
    if getattr(model, "is_encoder_decoder", False) is not True:
        return
    prefill = view.prefill_attention_backend or view.attention_backend
    decode = view.decode_attention_backend or view.attention_backend
    for backend in dict.fromkeys(b for b in (prefill, decode) if b):
        creator = funcs.backends.get(backend)
        if creator is None or "is_encoder_decoder" not in inspect.getsource(creator):
            continue
        try:
            creator(types.SimpleNamespace(use_mla_backend=use_mla, server_args=view, model_config=model))
        except Exception as exc:
            innermost = exc.__traceback__
            while innermost is not None and innermost.tb_next is not None:
                innermost = innermost.tb_next
            if innermost is not None and innermost.tb_frame.f_code is creator.__code__:
                raise


def aux_hidden_state_capture_checks(model: Any, view: Any) -> None:
    """What the model runner checks of `--return-aux-hidden-state-layer-ids` against the real
    model when `handle_aux_hidden_state_capture` resolved a capture-only target:
    `_check_capture_layer_ids_in_range` (0.5.23 on; nothing in releases without it). Its module
    is imported only for such a case: importing the model runner's modules changes what a
    release's ServerArgs lets later cases write."""
    layer_ids = getattr(view, "return_aux_hidden_state_layer_ids", None)
    if layer_ids is None or not getattr(view, "enable_return_aux_hidden_states", False):
        return
    try:
        from sglang.srt.arg_groups.validation_hook import _AUX_HIDDEN_STATE_CAPTURE_METHODS
        from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import (
            _check_capture_layer_ids_in_range,
        )
    except ImportError:
        return
    capture = getattr(view, "aux_hidden_state_capture", None)
    if capture is None:
        # A case that ran only this check's functions: what handle_aux_hidden_state_capture resolves.
        method = (view.speculative_algorithm or "").upper()
        capture = method.lower() if method in _AUX_HIDDEN_STATE_CAPTURE_METHODS else None
    if capture is not None:
        _check_capture_layer_ids_in_range(layer_ids, model)


def raised_at(exc: BaseException) -> str | None:
    """Where in SGLang an exception was raised, as the catalogue names a site:
    ``python/sglang/srt/....py:LINE`` of the innermost frame inside the package."""
    import sglang

    root = os.path.dirname(os.path.dirname(os.path.abspath(sglang.__file__)))
    found = None
    tb = exc.__traceback__
    while tb is not None:
        path = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if path.startswith(root + os.sep + "sglang" + os.sep):
            found = f"python/{os.path.relpath(path, root)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def _device_machine(argv: list[str]) -> str | None:
    """The machine profile a launch's own `--device` names (mps: an Apple GPU); None: the default."""
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--device=") else argv[i + 1] if arg == "--device" and \
            i + 1 < len(argv) else None
        if value is not None:
            return "mps" if value.split(":", 1)[0] == "mps" else None
    return None


def cmd_judge(request: dict[str, Any]) -> dict[str, Any]:
    """stdin: ``{"patterns": [regex, ...], "cases": [{"argv", "cwd", "architecture", "gpu",
    "patterns" (optional: only these)}]}``. Each case is parsed like ``parse``;
    when that succeeds, the seed steps of ``rules`` run, then, in pipeline
    order, every function of this release whose strings hold the literal
    text of one of the patterns, on the parsed arguments, with the hardware
    probes patched to the case's GPU profile (``b200``, ``h100``, ``mi300x``).

    Answer: ``{"located": {pattern: ["module:qualname", ...]}, "results":
    [{"ok", "stage": "parse"|"rules", "error", "ran", "where" (a refusal by a rule: file:line)}]}``."""
    patterns = list(request.get("patterns", ()))
    located: dict[str, list[str]] = {}
    for pattern in patterns:
        try:
            located[pattern] = [f"{f.module}:{f.qualname}" for f in locate(pattern)]
        except ValueError:
            located[pattern] = []
    funcs = RuleFunctions()
    results = []
    for case in request["cases"]:
        wanted = case.get("patterns", patterns)
        found = {f for p in wanted for f in (locate(p) if located.get(p) else ())}
        # Functions named by the catalogue (module:qualname), for errors no message locates (a bare assert).
        found |= {f for name in case.get("functions", ()) for f in by_name(name) if f.qualname not in _WHOLE_PIPELINE}
        found = {f for f in found if f.qualname not in _AFTER_PIPELINE_ON_MPS}
        rules = sorted({e for f in found for e in entry_points(f)}, key=_rank)
        modules = [*funcs.modules, *(importlib.import_module(f.module) for f in rules)]
        with machine(modules, case.get("gpu") or _device_machine(case["argv"])), \
                stand_in_models(case.get("architecture"), case.get("model_config")), \
                contextlib.ExitStack() as stack:
            saved = funcs.kimi_module._require_kimi_k3_cutedsl_dcp_support
            funcs.kimi_module._require_kimi_k3_cutedsl_dcp_support = lambda: None
            stack.callback(setattr, funcs.kimi_module, "_require_kimi_k3_cutedsl_dcp_support", saved)
            # Rules write the environment for the processes SGLang starts next
            # (envs.SGLANG_USE_CUDA_IPC_TRANSPORT.set): no case may see another's.
            environment = dict(os.environ)
            stack.callback(lambda: (os.environ.clear(), os.environ.update(environment)))
            results.append(judge_one(funcs, case, rules))
    return {"located": located, "results": results}


# ---------------------------------------------------------------------------

def cmd_knowledge(_: Any) -> dict[str, Any]:
    """``options`` and ``mla`` together: one sglang import for gen_knowledge.py."""
    return {**cmd_options(None), **cmd_mla(None)}


COMMANDS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    "options": (cmd_options, False),
    "parse": (cmd_parse, True),
    "rules": (cmd_rules, True),
    "judge": (cmd_judge, True),
    "mla": (cmd_mla, False),
    "knowledge": (cmd_knowledge, False),
}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in COMMANDS:
        print(f"usage: sglang_oracle.py {{{','.join(COMMANDS)}}}", file=sys.stderr)
        return 2
    command, reads_stdin = COMMANDS[argv[0]]
    cases = json.load(sys.stdin) if reads_stdin else None
    # Keep stdout for the JSON answer: whatever sglang prints goes to stderr.
    sys.stdout.flush()
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    logging.disable(logging.CRITICAL)
    try:
        from sglang.version import __version__

        result = command(cases)
        if isinstance(result, dict):
            result = {"sglang": __version__, **result}
    finally:
        sys.stdout.flush()
        os.dup2(answer_fd, 1)
        os.close(answer_fd)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
