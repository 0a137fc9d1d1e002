"""Semgrep and ast-grep on the benchmark's trees: their rules, where they are, what they found.

The rules approximate autofix's three seed fixers with regular expressions over a
launch's text; they know nothing of variables, defaults or model tables, so their
findings are compared with what was planted rather than trusted. Stdlib only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent / ".tools"
PINNED = ("semgrep==1.185.0", "ast-grep-cli==0.51.1")
# Without these Semgrep waits on the network for a version check and metrics.
SEMGREP_ENV = {"SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}
SEMGREP_FLAGS = ("--metrics=off", "--disable-version-check", "--quiet")

# A launch: `sglang.launch_server` or `sglang serve`, then its arguments on the same line,
# on `\`-continued lines, or on following YAML list items and Python list strings.
LAUNCH = r"""(?P<LAUNCH>sglang(?:\.launch_server|[\s"',-]+serve\b)(?:[^\n]|\\\n|\n[ \t]*(?:-|"|args:))*)"""
# Between a flag and its value: a space or `=`, quotes, or a new YAML or Python list item.
SEP = r"""[\s"',=-]+"""
SEMGREP_RULES = {
    "SGL001": ("tokenspeed-mla-without-fp8-kv-cache", "tokenspeed_mla needs --kv-cache-dtype fp8_e4m3",
               [r"(?s).*tokenspeed_mla", r"(?s)(?!.*fp8_e4m3)"]),
    "SGL002": ("tokenspeed-mla-on-non-mla-model", "tokenspeed_mla needs an MLA model",
               # Names a model as org/name, and not one of the MLA families.
               [r"(?s).*tokenspeed_mla", r"""(?s).*[\s"'=][A-Za-z][\w.-]*/[A-Za-z0-9]""",
                r"(?is)(?!.*(?:deepseek-(?:v2|v3|r1)|kimi-k[23]|minicpm3))"]),
    "SGL003": ("kimi-k3-dcp-unsupported-decode-backend", "Kimi-K3 DCP decodes with cutedsl_mla or tokenspeed_mla only",
               [r"(?is).*kimi-k3", rf"(?s).*--(?:dcp-size|decode-context-parallel-size){SEP}(?:[2-9]|[1-9]\d)",
                rf"(?s).*--(?:decode-)?attention-backend{SEP}(?!cutedsl_mla|tokenspeed_mla|aiter)\w"]),
}
# One rule, on shell files only: a command that names tokenspeed_mla but not fp8_e4m3.
AST_GREP_RULE = """id: tokenspeed-mla-without-fp8-kv-cache
language: bash
severity: warning
message: tokenspeed_mla needs --kv-cache-dtype fp8_e4m3
rule:
  kind: command
  regex: tokenspeed_mla
  not:
    regex: fp8_e4m3
"""


def semgrep_config() -> str:
    """The three rules as Semgrep YAML (written as JSON, which YAML reads)."""
    rules = []
    for slug, message, regexes in SEMGREP_RULES.values():
        narrowing = [{"metavariable-regex": {"metavariable": "$LAUNCH", "regex": r}} for r in regexes]
        rules.append({"id": slug, "languages": ["generic"], "severity": "ERROR", "message": message,
                      "patterns": [{"pattern-regex": LAUNCH}, *narrowing]})
    return json.dumps({"rules": rules}, indent=2)


def install() -> None:
    """A venv at benchmarks/.tools with the pinned Semgrep and ast-grep; pip's output goes to stderr."""
    subprocess.run([sys.executable, "-m", "venv", str(TOOLS)], check=True, stdout=sys.stderr)
    pip = [str(TOOLS / "bin" / "python"), "-m", "pip", "install", "--quiet", *PINNED]
    subprocess.run(pip, check=True, stdout=sys.stderr)


def which(name: str) -> str | None:
    """name from benchmarks/.tools/bin when that exists, else from PATH."""
    folder = TOOLS / "bin"
    return shutil.which(name, path=str(folder)) if folder.is_dir() else shutil.which(name)


def run_text(cmd: list[str], env: dict[str, str] | None = None) -> str:
    """What cmd prints (a version, a help text), or "" when it cannot run."""
    try:
        done = subprocess.run(cmd, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
                              env={**os.environ, **(env or {})})
        return (done.stdout + done.stderr).strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def semgrep() -> str | None:
    return which("semgrep")


def ast_grep() -> str | None:
    found = which("ast-grep")
    if found:
        return found
    sg = which("sg")  # often shadow-utils' newgrp, not ast-grep
    return sg if sg and "ast-grep" in run_text([sg, "--version"]) else None


def prepare(work: Path) -> None:
    """Rule files in work, and an empty .semgrepignore there so Semgrep scans build/ and test/ folders too."""
    (work / "semgrep.yaml").write_text(semgrep_config())
    (work / "ast-grep.yaml").write_text(AST_GREP_RULE)
    (work / ".semgrepignore").write_text("")


def semgrep_cmd(exe: str, tree: str) -> list[str]:
    return [exe, "scan", *SEMGREP_FLAGS, "--project-root", ".", "--json", "--config", "semgrep.yaml", tree]


def ast_grep_cmd(exe: str, tree: str) -> list[str]:
    return [exe, "scan", "--rule", "ast-grep.yaml", "--json=compact", tree]


def semgrep_findings(output: str, tree: str) -> dict[str, set[str]]:
    """Codes by path relative to the tree, from Semgrep's JSON."""
    code_of = {slug: code for code, (slug, _, _) in SEMGREP_RULES.items()}
    found: dict[str, set[str]] = {}
    for result in parsed(output, {}).get("results", []):
        found.setdefault(os.path.relpath(result["path"], tree), set()).add(code_of.get(result["check_id"], "?"))
    return found


def ast_grep_findings(output: str, tree: str) -> dict[str, set[str]]:
    """Rule ids by path relative to the tree, from ast-grep's JSON; its one rule has no autofix code."""
    found: dict[str, set[str]] = {}
    for match in parsed(output, []):
        found.setdefault(os.path.relpath(match["file"], tree), set()).add(match["ruleId"])
    return found


def parsed(output: str, empty: dict | list) -> dict | list:
    """A tool's JSON output; empty when it printed none (the table's exit column tells why)."""
    try:
        return json.loads(output) if output.strip() else empty
    except ValueError:
        return empty
