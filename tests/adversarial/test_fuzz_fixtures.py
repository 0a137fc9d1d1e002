"""Mutation fuzzing of every fixture (seeded, bounded here; scripts/fuzz.py runs longer): no crash, and no
fix that leaves a file with more syntax errors than it had. AUTOFIX_FUZZ_ITERATIONS sets the rounds."""

from __future__ import annotations

import os
from pathlib import Path

import adversarial_tree as adv
import mutation_fuzz
from autofix.fixer import all_fixers, select
from autofix.formats import FORMATS
from autofix.pipeline import Settings, fix_text
from autofix.source import Source

ITERATIONS = int(os.environ.get("AUTOFIX_FUZZ_ITERATIONS", "4"))
BUDGET = float(os.environ.get("AUTOFIX_FUZZ_SECONDS", "45"))


def test_mutated_fixtures(tmp_path: Path) -> None:
    report = mutation_fuzz.fuzz(ITERATIONS, seed=0, budget=BUDGET, save=tmp_path)
    adv.STATS["fuzz inputs"] += report.inputs
    adv.STATS["fuzz crashes"] += len(report.crashes)
    adv.STATS["fuzz unparsable writes"] += len(report.bad_writes)
    assert report.inputs >= len(mutation_fuzz.fixtures())
    shown = [f"{name} (seed {seed:#x}): {what}" for name, seed, what in report.crashes + report.bad_writes]
    assert not shown, "\n".join(shown[:10])


def test_mutation_is_deterministic() -> None:
    import random

    data = Path(mutation_fuzz.fixtures()[0]).read_bytes()
    assert mutation_fuzz.mutate(data, random.Random(7)) == mutation_fuzz.mutate(data, random.Random(7))


# -- what the fuzzer found, one test each -------------------------------------------------------


def test_yaml_list_item_left_empty() -> None:
    """A truncated args list ends in an empty `- ` item: its span was (start after the blanks) > end."""
    text = ("containers:\n  - name: s\n    command: [python3, -m, sglang.launch_server]\n"
            "    args:\n      - --model-path\n      - Qwen/Qwen3-8B\n      - ")
    result = fix_text(Source(text), FORMATS["yaml"], Settings(all_fixers()), fix=True)
    assert result.error is None


def test_a_fix_whose_edits_overlap_is_reported_not_looped() -> None:
    """A fix that cannot apply (its own edits overlap) left the pipeline looping to 'did not settle'."""
    text = ("sglang serve moonshotai/Kimi-K2-Thinking --tp 8 --trttention-backend cutedsl_mla \\\n"
            "  --prefill-attention-backend cutedsl_mla\n")
    result = fix_text(Source(text), FORMATS["shell"], Settings(all_fixers(), unsafe=True, gpu="h100"), fix=True)
    assert result.error is None
    assert result.remaining and result.text == text


def test_reused_yaml_anchor_prints_no_warning(tmp_path: Path) -> None:
    """ruamel's ReusedAnchorWarning (several lines, with a source path) reached autofix's stderr."""
    (tmp_path / "anchors.yaml").write_text(
        "a: &a [sglang]\nb: &a [x]\ncommand: [python3, -m, sglang.launch_server, --model-path, "
        "deepseek-ai/DeepSeek-V3, --attention-backend, tokenspeed_mla]\n")
    proc = adv.run_cli("anchors.yaml", cwd=tmp_path, env={"PYTHONWARNINGS": "default"})
    assert proc.returncode == 1
    assert "Warning" not in proc.stderr and "ruamel" not in proc.stderr, proc.stderr


def test_yaml_args_holding_a_nested_list() -> None:
    """An args item that is itself a list (`-  - x`): choosing the quote style of a new token read
    `.style` of a SequenceNode, which has none."""
    text = ("spec:\n  containers:\n    - name: sglang\n      command:\n        - python3\n        - -m\n"
            "        - sglang.launch_server\n      args:\n        - --config=/config/server.yaml\n"
            "        - --port\n        -  - $(SGLANG_PORT)\n")
    result = fix_text(Source(text), FORMATS["yaml"], Settings(all_fixers(), unsafe=True), fix=True)
    assert result.error is None


def test_shell_flag_inserted_on_its_own_line_keeps_that_lines_newline() -> None:
    """The file's newline comes from its first line (LF here); a new flag line after a CRLF line was
    inserted between its CR and LF."""
    text = ("#!/bin/bash\n# serve\r\npython3 -m sglang.launch_server \\\r\n  --model-path deepseek-ai/DeepSeek-V3 \\\r\n"
            "  --attention-backend tokenspeed_mla \\\r\n  --port 30000\r\n")
    result = fix_text(Source(text), FORMATS["shell"], Settings(list(select(["tokenspeed-mla-without-fp8-kv-cache"],
                                                                            []))), fix=True)
    assert result.error is None
    assert result.text == text.replace("tokenspeed_mla \\\r\n", "tokenspeed_mla \\\r\n  --kv-cache-dtype fp8_e4m3 \\\r\n")
