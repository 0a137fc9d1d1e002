"""The SGLang oracle tells the truth: the facts verified by hand in the
reference (section 7) and the three seed error records, reproduced with
SGLang's own parser and rule functions. Skipped, with the reason, where the
parser environment (scripts/sglang_env.sh) is not built.

Every release's cases go to the oracle in one batch per command, all releases
at once (importing sglang is what costs: 10-20 s of CPU per process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

try:
    from tests import oracle
except ImportError:  # tests/ itself is on sys.path (no tests/__init__.py)
    import oracle

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "autofix" / "knowledge" / "data"
KIMI_K3 = "KimiK3ForConditionalGeneration"
ALL = oracle.VERSIONS
BEFORE_ALIAS = tuple(v for v in ALL if v != "0.5.23")  # tokenspeed_mla is its own backend

YAML_FILES = {
    "tp8.yaml": "model-path: some/model\ntp-size: 8\n",
    "replicate.yaml": "model-path: some/model\ndcp-replicate-q-proj: true\n",
}

ARGVS = {
    "pp-prefix": ["--model-path", "m", "--pp", "2"],
    "kv-fp8": ["--model-path", "m", "--kv-cache-dtype", "fp8"],
    "underscore-flag": ["--model-path", "m", "--tp_size", "2"],
    "tp-prefix": ["--model-path", "m", "--tp", "8"],
    "yaml-then-cli": ["--config", "tp8.yaml", "--tp-size", "4"],
    "yaml-only": ["--config", "tp8.yaml"],
    "config-equals": ["--model-path", "m", "--config=tp8.yaml"],
    "yaml-boolean-optional": ["--config", "replicate.yaml"],
    "cli-boolean-optional": ["--model-path", "m", "--dcp-size", "4", "--no-dcp-replicate-q-proj"],
}

RULE_CASES = {
    "kimi-dcp-trtllm": {"args": {"dcp_size": 8, "attention_backend": "trtllm_mla"}, "architecture": KIMI_K3},
    "kimi-dcp-tokenspeed": {
        "args": {"dcp_size": 8, "decode_attention_backend": "tokenspeed_mla"},
        "architecture": KIMI_K3,
    },
    "kimi-dcp-default": {"args": {"dcp_size": 8}, "architecture": KIMI_K3},
    "deepseek-tokenspeed-auto-kv": {
        "args": {"attention_backend": "tokenspeed_mla"},
        "architecture": "DeepseekV3ForCausalLM",
    },
    "deepseek-tokenspeed-fp8": {
        "args": {"attention_backend": "tokenspeed_mla", "kv_cache_dtype": "fp8_e4m3"},
        "architecture": "DeepseekV3ForCausalLM",
    },
    "qwen-tokenspeed-fp8": {
        "args": {"attention_backend": "tokenspeed_mla", "kv_cache_dtype": "fp8_e4m3"},
        "architecture": "Qwen3ForCausalLM",
    },
    "qwen-tokenspeed-auto-kv": {"args": {"attention_backend": "tokenspeed_mla"}, "architecture": "Qwen3ForCausalLM"},
    "unknown-model-flashinfer": {"args": {"attention_backend": "flashinfer"}, "architecture": None},
}

RECORD_1 = "AssertionError: Decode attention backend for Kimi-K3 DCP must be {}, got 'trtllm_mla'."
RECORD_1_BY_RELEASE = {
    "0.5.17": RECORD_1.format("'cutedsl_mla' or 'tokenspeed_mla'"),
    "0.5.18": RECORD_1.format("'cutedsl_mla' or 'tokenspeed_mla'"),
    "0.5.19": RECORD_1.format("'cutedsl_mla' or 'tokenspeed_mla'"),
    "0.5.20": RECORD_1.format("'cutedsl_mla', 'tokenspeed_mla' or 'aiter'"),
    "0.5.21": RECORD_1.format("'cutedsl_mla', 'tokenspeed_mla' or 'aiter'"),
    "0.5.22": RECORD_1.format("'cutedsl_mla', 'tokenspeed_mla' or 'aiter'"),
    "0.5.23": RECORD_1.format("'cutedsl_mla' or 'aiter'"),
}
RECORD_2 = "ValueError: tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto."
RECORD_3 = "ValueError: tokenspeed_mla backend can only be used with MLA models."


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    """{release: (parse results by ARGVS key, rules results by RULE_CASES key)}
    for every release the environment holds."""
    folder = tmp_path_factory.mktemp("config")
    for name, text in YAML_FILES.items():
        (folder / name).write_text(text)
    releases = [v for v in ALL if oracle.available(v)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        parses = {v: pool.submit(oracle.parse, v, ARGVS.values(), folder) for v in releases}
        rules = {v: pool.submit(oracle.rules, v, RULE_CASES.values()) for v in releases}
        return {
            v: (dict(zip(ARGVS, parses[v].result())), dict(zip(RULE_CASES, rules[v].result())))
            for v in releases
        }


def parsed(verdicts, version):
    oracle.require(version)
    return verdicts[version][0]


def ruled(verdicts, version):
    oracle.require(version)
    return verdicts[version][1]


# ---------------------------------------------------------------------------
# Parsing, as prepare_server_args does up to parse_args.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", ALL)
def test_pp_prefix_is_ambiguous(verdicts, version):
    result = parsed(verdicts, version)["pp-prefix"]
    assert not result["ok"]
    assert result["error"].startswith("sglang serve: error: ambiguous option: --pp could match --pp-size")


@pytest.mark.parametrize("version", ["0.5.18", "0.5.19"])
def test_pp_prefix_message_as_in_the_reference(verdicts, version):
    assert parsed(verdicts, version)["pp-prefix"]["error"] == (
        "sglang serve: error: ambiguous option: --pp could match "
        "--pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth"
    )


@pytest.mark.parametrize("version", ALL)
def test_kv_cache_dtype_fp8_is_an_invalid_choice(verdicts, version):
    result = parsed(verdicts, version)["kv-fp8"]
    assert not result["ok"]
    assert "argument --kv-cache-dtype: invalid choice: 'fp8'" in result["error"]


@pytest.mark.parametrize("version", ALL)
def test_underscore_flag_is_unrecognized(verdicts, version):
    result = parsed(verdicts, version)["underscore-flag"]
    assert (result["ok"], result["error"]) == (False, "sglang serve: error: unrecognized arguments: --tp_size 2")


@pytest.mark.parametrize("version", ALL)
def test_tp_prefix_means_tp_size(verdicts, version):
    result = parsed(verdicts, version)["tp-prefix"]
    assert result["ok"], result["error"]
    assert result["args"]["tp_size"] == 8


@pytest.mark.parametrize("version", ALL)
def test_cli_overrides_yaml_config(verdicts, version):
    results = parsed(verdicts, version)
    assert results["yaml-only"]["args"]["tp_size"] == 8
    assert results["yaml-then-cli"]["ok"], results["yaml-then-cli"]["error"]
    assert results["yaml-then-cli"]["args"]["tp_size"] == 4
    assert results["yaml-then-cli"]["args"]["model_path"] == "some/model"


@pytest.mark.parametrize("version", ALL)
def test_config_with_equals_is_silently_ignored(verdicts, version):
    result = parsed(verdicts, version)["config-equals"]
    assert result["ok"], result["error"]
    assert result["args"]["config"] == "tp8.yaml"
    assert result["args"]["tp_size"] == 1  # the YAML was never read


@pytest.mark.parametrize("version", ALL)
def test_boolean_optional_key_is_refused_in_yaml(verdicts, version):
    results = parsed(verdicts, version)
    assert results["yaml-boolean-optional"] == {
        "ok": False,
        "error": "ValueError: Unsupported config option 'dcp_replicate_q_proj' with action 'BooleanOptionalAction'",
        "args": None,
    }
    cli = results["cli-boolean-optional"]
    assert cli["ok"], cli["error"]
    assert (cli["args"]["dcp_replicate_q_proj"], cli["args"]["dcp_size"]) == (False, 4)


# ---------------------------------------------------------------------------
# Rules: the three seed records, from SGLang's own functions.
# ---------------------------------------------------------------------------


def test_seed_record_messages_from_0_5_19(verdicts):
    """The three records verbatim, from the release just after their commit."""
    results = ruled(verdicts, "0.5.19")
    errors = [results[c]["error"] for c in ("kimi-dcp-trtllm", "deepseek-tokenspeed-auto-kv", "qwen-tokenspeed-fp8")]
    assert errors == [RECORD_1_BY_RELEASE["0.5.19"], RECORD_2, RECORD_3]


@pytest.mark.parametrize("version", ALL)
def test_kimi_k3_dcp_rejects_other_decode_backends(verdicts, version):
    result = ruled(verdicts, version)["kimi-dcp-trtllm"]
    assert (result["ok"], result["error"]) == (False, RECORD_1_BY_RELEASE[version])


@pytest.mark.parametrize("version", ALL)
def test_kimi_k3_dcp_default_keeps_cutedsl(verdicts, version):
    result = ruled(verdicts, version)["kimi-dcp-default"]
    assert result["ok"], result["error"]
    assert result["overrides"]["decode_attention_backend"] == "cutedsl_mla"
    assert result["overrides"]["prefill_attention_backend"] == "trtllm_mla"


@pytest.mark.parametrize("version", BEFORE_ALIAS)
def test_kimi_k3_dcp_with_tokenspeed_forces_fp8(verdicts, version):
    result = ruled(verdicts, version)["kimi-dcp-tokenspeed"]
    assert result["ok"], result["error"]
    expected = {
        "prefill_attention_backend": "tokenspeed_mla",
        "decode_attention_backend": "tokenspeed_mla",
        "kv_cache_dtype": "fp8_e4m3",
    }
    if version in ("0.5.17", "0.5.18", "0.5.19"):
        # Up to 0.5.19 the Kimi-K3 DCP path also sets the DCP comm defaults.
        expected.update(dcp_replicate_q_proj=True, dcp_comm_backend="a2a")
    assert result["overrides"] == expected


@pytest.mark.parametrize("version", BEFORE_ALIAS)
def test_tokenspeed_mla_needs_fp8_kv_cache(verdicts, version):
    results = ruled(verdicts, version)
    assert results["deepseek-tokenspeed-auto-kv"]["error"] == RECORD_2
    assert results["deepseek-tokenspeed-fp8"]["ok"], results["deepseek-tokenspeed-fp8"]["error"]
    # On a non-MLA model the dtype check fires first.
    assert results["qwen-tokenspeed-auto-kv"]["error"] == RECORD_2


@pytest.mark.parametrize("version", BEFORE_ALIAS)
def test_tokenspeed_mla_needs_an_mla_model(verdicts, version):
    result = ruled(verdicts, version)["qwen-tokenspeed-fp8"]
    assert (result["ok"], result["error"]) == (False, RECORD_3)


def test_tokenspeed_mla_is_an_accepted_alias_in_0_5_23(verdicts):
    results = ruled(verdicts, "0.5.23")
    for case in ("deepseek-tokenspeed-auto-kv", "deepseek-tokenspeed-fp8", "kimi-dcp-tokenspeed"):
        assert (results[case]["ok"], results[case]["error"]) == (True, None)
    assert results["deepseek-tokenspeed-auto-kv"]["declared"] == {
        "attention_backend": "cutedsl_mla",
        "kv_cache_dtype": "fp8_e4m3",
    }
    kimi = results["kimi-dcp-tokenspeed"]
    assert kimi["overrides"] == {"decode_attention_backend": "cutedsl_mla", "prefill_attention_backend": "trtllm_mla"}
    assert kimi["declared"]["kv_cache_dtype"] == "fp8_e4m3"


@pytest.mark.parametrize("version", ALL)
def test_unknown_model_skips_the_model_checks(verdicts, version):
    result = ruled(verdicts, version)["unknown-model-flashinfer"]
    assert result == {"ok": True, "error": None, "overrides": {}, "declared": {}}


# ---------------------------------------------------------------------------
# The generated knowledge files.
# ---------------------------------------------------------------------------


def generated_files():
    return sorted(DATA.glob("options-*.json")) + sorted(DATA.glob("mla-*.json"))


def test_every_release_has_generated_files():
    names = {p.name for p in generated_files()}
    assert {f"{kind}-{v}.json" for v in ALL for kind in ("options", "mla")} <= names


@pytest.mark.parametrize("path", generated_files(), ids=lambda p: p.name)
def test_generated_file_starts_with_its_header(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data)[:3] == ["generated_by", "sglang", "note"]
    assert data["generated_by"] == "scripts/gen_knowledge.py"
    assert data["sglang"] == path.stem.split("-", 1)[1]
    assert data["note"] == "Generated from SGLang's own parser; regenerate, never edit by hand."


def test_generated_files_match_sglang():
    for version in ALL:
        oracle.require(version)
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_knowledge.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=1800,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------
# tests/oracle.py's warm server (sglang imported once, a fork per call)
# answers exactly as a fresh sglang_oracle.py process does.
# ---------------------------------------------------------------------------


def test_the_warm_oracle_answers_as_a_fresh_process(tmp_path):
    version = "0.5.22"
    oracle.require(version)
    for name, text in YAML_FILES.items():
        (tmp_path / name).write_text(text)
    request = {
        "patterns": ["tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got"],
        "cases": [
            *({"argv": argv, "cwd": str(tmp_path), "architecture": None, "gpu": None} for argv in ARGVS.values()),
            {"argv": ["--model-path", "m", "--attention-backend", "tokenspeed_mla"], "cwd": None,
             "architecture": "DeepseekV3ForCausalLM", "gpu": "b200"},
        ],
    }
    assert oracle._run(version, "judge", request) == oracle.fresh_run(version, "judge", request)
