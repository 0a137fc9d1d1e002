#!/usr/bin/env python3
"""Generate autofix's SGLang knowledge files from SGLang's own code.

For each release it runs ``scripts/sglang_oracle.py knowledge`` (its ``options``
and ``mla`` answers in one process) in the parser environment that ``scripts/sglang_env.sh`` builds, and writes

    autofix/knowledge/data/options-<version>.json   the CLI option table and
                                                    the YAML keys --config refuses
    autofix/knowledge/data/mla-<version>.json       the architectures SGLang treats as MLA

This process never imports sglang. Usage::

    python3 scripts/gen_knowledge.py            # regenerate every release
    python3 scripts/gen_knowledge.py --check    # exit 1 if a committed file differs
    python3 scripts/gen_knowledge.py 0.5.19     # only some releases
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ORACLE = REPO / "scripts" / "sglang_oracle.py"
DATA = REPO / "autofix" / "knowledge" / "data"
# The releases autofix knows: one list, read by the package, the scripts and the parser environment.
VERSIONS = tuple((REPO / "autofix" / "knowledge" / "releases.txt").read_text(encoding="utf-8").split())
NOTE = "Generated from SGLang's own parser; regenerate, never edit by hand."
OPTION_KEYS = ("dest", "flags", "action", "nargs", "type", "choices", "default", "required")


class GenerationError(Exception):
    pass


def env_dir() -> Path:
    return Path(os.environ.get("AUTOFIX_SGLANG_ENV") or REPO / ".sglang-env")


def oracle_environment(version: str) -> dict[str, str]:
    """The caller's environment without SGLang's own knobs (they change
    defaults and choices, e.g. SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE adds a
    --sampling-backend choice), with one release on the path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SGLANG_", "SGL_")) and k != "PYTHONPATH"
    }
    env["PYTHONPATH"] = str(env_dir() / f"sglang-{version}")
    env["PYTHONHASHSEED"] = "0"  # no run-to-run order from SGLang's sets
    return env


def run_oracle(version: str, command: str) -> dict[str, Any]:
    python = env_dir() / "venv" / "bin" / "python"
    if not (env_dir() / f"sglang-{version}" / ".autofix-ready").is_file() or not python.exists():
        raise GenerationError(
            f"SGLang {version} is not in {env_dir()}: run scripts/sglang_env.sh {version}"
        )
    proc = subprocess.run(
        [str(python), str(ORACLE), command],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=oracle_environment(version),
        cwd=REPO,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.splitlines()[-20:])
        raise GenerationError(f"sglang_oracle.py {command} failed for {version}:\n{tail}")
    result = json.loads(proc.stdout)
    if result.get("sglang") != version:
        raise GenerationError(f"asked for SGLang {version}, the oracle ran {result.get('sglang')}")
    return result


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render(header: dict[str, Any], body: list[tuple[str, Any]]) -> str:
    """JSON with the header keys first and one list item (or dict entry) per
    line, so a new SGLang option shows up as a one-line diff."""
    lines = ["{"]
    entries: list[str] = [f"  {_line(k)}: {_line(v)}" for k, v in header.items()]
    for key, value in body:
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {_line(item)}" for item in value)
            entries.append(f"  {_line(key)}: [\n{items}\n  ]")
        elif isinstance(value, dict) and value:
            items = ",\n".join(f"    {_line(k)}: {_line(v)}" for k, v in value.items())
            entries.append(f"  {_line(key)}: {{\n{items}\n  }}")
        else:
            entries.append(f"  {_line(key)}: {_line(value)}")
    lines.append(",\n".join(entries))
    lines.append("}")
    return "\n".join(lines) + "\n"


def header(version: str) -> dict[str, Any]:
    return {"generated_by": "scripts/gen_knowledge.py", "sglang": version, "note": NOTE}


def options_file(version: str, result: dict[str, Any]) -> str:
    options = [{key: option[key] for key in OPTION_KEYS} for option in result["options"]]
    return render(
        header(version),
        [("config_unsupported", sorted(result["config_unsupported"])), ("options", options)],
    )


def mla_file(version: str, result: dict[str, Any]) -> str:
    conditional = result.get("conditional_mla_architectures", {})
    return render(
        header(version),
        [
            ("mla_architectures", sorted(result["mla_architectures"])),
            ("conditional_mla_architectures", {k: sorted(conditional[k]) for k in sorted(conditional)}),
        ],
    )


def generate(versions: list[str]) -> dict[Path, str]:
    # One oracle run per release (importing sglang costs 10-20 s of CPU).
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda v: run_oracle(v, "knowledge"), versions))
    files: dict[Path, str] = {}
    for version, result in zip(versions, results):
        files[DATA / f"options-{version}.json"] = options_file(version, result)
        files[DATA / f"mla-{version}.json"] = mla_file(version, result)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="*", metavar="VERSION", help=f"default: {' '.join(VERSIONS)}")
    parser.add_argument("--check", action="store_true", help="regenerate in memory; exit 1 if a committed file differs")
    args = parser.parse_args(argv)
    versions = args.versions or list(VERSIONS)
    try:
        files = generate(versions)
    except GenerationError as exc:
        print(f"gen_knowledge: {exc}", file=sys.stderr)
        return 2
    if args.check:
        stale = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"gen_knowledge: {path.relative_to(REPO)} is out of date", file=sys.stderr)
        if stale:
            print("gen_knowledge: run python3 scripts/gen_knowledge.py", file=sys.stderr)
            return 1
        print(f"gen_knowledge: {len(files)} files up to date")
        return 0
    DATA.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"gen_knowledge: wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
