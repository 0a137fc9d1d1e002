"""scripts/gen_catalogue.py: its pure functions on small synthetic sources,
and (where the SGLang environment is built) that the committed
errors-<release>.json files are what the script generates."""

from __future__ import annotations

import ast
import json
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

try:
    from tests import oracle
except ImportError:  # tests/ itself is on sys.path (no tests/__init__.py)
    import oracle

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "gen_catalogue.py"
_spec = importlib.util.spec_from_file_location("gen_catalogue", SCRIPT)
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

DESTS = {"tp_size", "attention_backend", "kv_cache_dtype", "enable_foo", "dp_size"}


def sites(source: str, rel: str = "python/sglang/srt/arg_groups/x_hook.py") -> list[dict]:
    """Sites of a snippet, each with needs and reads computed as the script does."""
    found = gen.Scanner(textwrap.dedent(source), rel).run()
    for s in found:
        s["reads"] = gen.attribute_reads(gen.expand(s["_nodes"], s["_local"]), DESTS)
        s["needs"] = gen.classify(s["kind"], s["_tests"], s["_local"], s["reads"], s["file"],
                                  s["function"], s["_in_ie"])
    return found


def message(expr: str) -> str:
    return gen.render_message(gen._merge(gen.message_parts(ast.parse(expr, mode="eval").body)))


# ------------------------------------------------------------- messages

@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ('f"tp {cfg.tp_size} must divide {n!r:>4}."', "tp {} must divide {}."),
        ('"a %s and %(b)d, 100%%" % (x, y)', "a {} and {}, 100%"),
        ('"{} not in {name} {{literal}}".format(a, name=b)', "{} not in {} {literal}"),
        ('"head " + f"{x} " + str(y) + " tail"', "head {} {} tail"),
        ('"implicit " "concatenation"', "implicit concatenation"),
        ("msg", "{}"),
    ],
)
def test_message_normalisation(expr, expected):
    assert message(expr) == expected


def test_pattern_escapes_literals_and_captures_holes():
    parts = gen._merge(gen.message_parts(ast.parse('f"--kv-cache-dtype {x} (see docs)."', mode="eval").body))
    pattern = gen.pattern_of(parts)
    assert pattern == r"\-\-kv\-cache\-dtype (.+?) \(see docs\)\."
    assert re.search(pattern, "ValueError: --kv-cache-dtype fp8 (see docs).")


def test_message_from_a_local_variable():
    [site] = sites('''
        def check(cfg):
            msg = f"bad tp {cfg.tp_size}"
            msg += ", use 8"
            raise ValueError(msg)
    ''')
    assert site["message"] == "bad tp {}, use 8"
    assert site["reads"] == ["tp_size"]


def test_id_is_stable_and_whitespace_insensitive():
    a = gen.error_id("ValueError", "tp  must\n divide {}")
    assert a == gen.error_id("ValueError", " tp must divide {} ")
    assert a != gen.error_id("RuntimeError", "tp must divide {}")
    assert len(a) == 12 and int(a, 16) >= 0
    assert gen.error_id("AssertionError", "", "assert x  >  1") == gen.error_id("AssertionError", "", "assert x > 1")


def test_same_message_in_two_files_has_one_id():
    one = sites('def f(cfg):\n    raise ValueError(f"bad {cfg.tp_size}")\n')
    two = sites('def g(view):\n\n    if view.dp_size:\n        raise ValueError(f"bad {view.dp_size}")\n', "python/sglang/srt/y.py")
    assert one[0]["_id"] == two[0]["_id"] and one[0]["line"] != two[0]["line"]


# ------------------------------------------------------------- conditions

def test_condition_chain_with_elif_else_and_early_return():
    found = sites('''
        def check(cfg):
            if cfg.enable_foo is None:
                return
            if cfg.tp_size > 8 or cfg.dp_size > 1:
                raise ValueError("first")
            elif cfg.attention_backend == "fa3":
                raise ValueError("second")
            else:
                assert cfg.kv_cache_dtype == "auto", "third"
    ''')
    by = {s["message"]: s["condition"] for s in found}
    assert by["first"] == "not (cfg.enable_foo is None) and (cfg.tp_size > 8 or cfg.dp_size > 1)"
    assert by["second"] == ("not (cfg.enable_foo is None) and not (cfg.tp_size > 8 or cfg.dp_size > 1)"
                            " and cfg.attention_backend == 'fa3'")
    assert by["third"].endswith("and not (cfg.attention_backend == 'fa3') and cfg.kv_cache_dtype == 'auto'")


def test_skips_reraise_bare_class_abstract_and_logger():
    assert sites('''
        class Base:
            def run(self):
                """Abstract."""
                raise NotImplementedError
            def go(self):
                try:
                    pass
                except Exception:
                    logger.error("x")
                    raise
                raise ValueError
    ''') == []


def test_exit_and_parser_error_are_sites():
    found = sites('''
        def main(parser, cfg):
            if cfg.tp_size < 1:
                parser.error("tp must be positive")
            sys.exit(f"bye {cfg.tp_size}")
            sys.exit(1)
    ''')
    assert [(s["kind"], s["exception"], s["message"]) for s in found] == [
        ("parser.error", "SystemExit", "tp must be positive"), ("exit", "SystemExit", "bye {}")]


# ------------------------------------------------------------- needs

@pytest.mark.parametrize(
    ("source", "needs"),
    [
        ('if os.environ.get("SGLANG_X") and cfg.tp_size:\n    raise ValueError("e")', "runtime"),
        ('if not os.path.exists(cfg.model_path):\n    raise ValueError("e")', "runtime"),
        ('if cfg.attention_backend == "fa3" and not is_sm90_supported():\n    raise ValueError("e")', "gpu"),
        ('major, minor = torch.cuda.get_device_capability()\nif major < 9 and cfg.tp_size:\n    raise ValueError("e")', "gpu"),
        ('if not is_cuda():\n    raise ValueError("CUDA only")', "gpu"),
        ('assert not _is_hip, "not on ROCm"', "gpu"),
        ('if not _is_npu and cfg.attention_backend == "ascend":\n    raise ValueError("e")', "flags"),
        ('if _is_cuda and cfg.tp_size > 8:\n    raise ValueError("e")', "flags"),
        ('if cfg.attention_backend == "trtllm_mla" and not model_config.is_mla:\n    raise ValueError("e")', "model"),
        ('if is_deepseek_nsa(hf_config):\n    raise ValueError("e")', "model"),
        ('assert cfg.tp_size % cfg.dp_size == 0', "flags"),
        ('if cfg.enable_foo and cfg.device != "cuda":\n    raise ValueError("CUDA only")', "gpu"),
        ('if cfg.enable_foo and cfg.device != "npu":\n    raise ValueError("NPU skips this")', "flags"),
        ('if self._state is None:\n    raise RuntimeError("bad state")', "internal"),
    ],
)
def test_needs_classification(source, needs):
    body = textwrap.indent(source, "    ")
    [site] = sites(f"def check(cfg, self):\n{body}\n")
    assert site["needs"] == needs


def test_needs_from_file_and_function_name():
    [site] = sites('def f(x):\n    raise ValueError("e")\n', "python/sglang/srt/arg_groups/model_overrides/llama4.py")
    assert site["needs"] == "model"
    [site] = sites('def _check_xpu_dcp(cfg):\n    if cfg.tp_size:\n        raise ValueError("e")\n')
    assert site["needs"] == "gpu"


def test_import_error_handler_is_runtime():
    [site] = sites('''
        def f(cfg):
            try:
                import flashinfer
            except ImportError:
                raise ImportError(f"install flashinfer for {cfg.attention_backend}")
    ''')
    assert site["needs"] == "runtime"


# ------------------------------------------------------------- bare asserts

def test_bare_assert_pattern_matches_the_traceback_line():
    source = '''
        def check(cfg):
            assert (
                cfg.tp_size is None
                and cfg.dp_size   is None
            )
            assert cfg.tp_size % cfg.dp_size == 0
    '''
    multi, single = sites(source)
    assert multi["message"] == "" and multi["exception"] == "AssertionError"
    assert multi["_id"] == gen.error_id("AssertionError", "", "assert cfg.tp_size is None and cfg.dp_size is None")
    traceback = '  File "x.py", line 5, in check\n    and cfg.dp_size is None\n        ^^^^\nAssertionError\n'
    assert re.search(multi["pattern"], traceback)
    assert not re.search(multi["pattern"], "    and cfg.dp_size is None or x\n")
    assert re.search(single["pattern"], '  File "x.py", line 7\n    assert cfg.tp_size  %  cfg.dp_size == 0\n')


# ------------------------------------------------------------- type= parsers and argparse

def test_type_parser_is_followed_to_its_definition(tmp_path):
    pkg = tmp_path / "sglang"
    (pkg / "srt" / "utils").mkdir(parents=True)
    (pkg / "srt" / "utils" / "common.py").write_text(
        'def size(v):\n    if not v.isdigit():\n        raise ValueError(f"bad size {v}")\n    return int(v)\n')
    (pkg / "srt" / "server_args.py").write_text(
        'from sglang.srt.utils.common import size\nimport json\n'
        'def add(parser):\n    parser.add_argument("--x", type=size)\n    parser.add_argument("--y", type=json.loads)\n')
    found = gen.type_parsers(pkg, [pkg / "srt" / "server_args.py"])
    assert found == {pkg / "srt" / "utils" / "common.py": {"size"}}


def test_argparse_messages():
    found = {s["message"]: s for s in gen.argparse_sites()}
    assert "unrecognized arguments: {}" in found
    assert "argument {}: expected one argument" in found
    assert "argument {}: invalid {} value: {}" in found
    assert "ambiguous option: {} could match {}" in found
    assert all(s["file"] == "argparse.py" and s["exception"] == "SystemExit" for s in found.values())
    assert re.search(found["argument {}: invalid {} value: {}"]["pattern"],
                     "sglang: error: argument --tp-size: invalid int value: 'eight'")


# ------------------------------------------------------------- the committed files

def _require_source(version: str) -> None:
    if not (oracle.env_dir() / f"sglang-{version}" / "sglang" / "srt").is_dir():
        if os.environ.get("AUTOFIX_REQUIRE_ORACLE"):
            pytest.fail(f"{oracle.SKIP_REASON} {version} (AUTOFIX_REQUIRE_ORACLE is set)")
        pytest.skip(f"{oracle.SKIP_REASON} {version}")


def test_committed_catalogues_are_up_to_date():
    for version in gen.VERSIONS:
        _require_source(version)
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check", "--env", str(oracle.env_dir())],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert proc.returncode == 0, proc.stderr


def test_a_site_no_choice_of_its_option_reaches_is_not_a_flags_error():
    options = {"mode": {"choices": ["null", "prefill", "decode"], "default": "null"},
               "size": {"choices": None, "default": 1}}
    assert gen.blocked_by_choices("cfg.mode not in ('null', 'prefill', 'decode')", options)
    assert gen.blocked_by_choices("x and cfg.mode == 'ipc'", options)
    # A choice reaches it, the option has no choices, or something else is compared: decided by the launch.
    assert not gen.blocked_by_choices("cfg.mode not in ('null', 'prefill')", options)
    assert not gen.blocked_by_choices("cfg.size not in (1, 2)", options)
    assert not gen.blocked_by_choices("cfg.mode != other.mode", options)
    assert not gen.blocked_by_choices("len(cfg.mode) > 9", options)


def test_argparse_messages_sglang_parser_cannot_print_are_internal():
    for release in ("0.5.17", "0.5.23"):
        errors = {e["message"]: e["needs"] for e in json.loads(
            (REPO / "autofix" / "knowledge" / "data" / f"errors-{release}.json").read_text())["errors"]
            if e["kind"] == "argparse"}
        assert errors["argument {}: not allowed with argument {}"] == "internal"
        assert errors["unexpected option string: {}"] == "internal"
        assert errors["argument {}: expected one argument"] == "flags"
