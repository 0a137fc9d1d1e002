#!/usr/bin/env python3
"""Benchmark autofix on generated trees of shell, YAML, Python, Dockerfile and Markdown files.

    python benchmarks/run.py [--files N ...] [--large] [--repeat 5] [--keep] [--json]

Generates trees in a temporary folder (fixed seed), times check, --diff, --fix and
single-file runs (median of --repeat), measures each run's peak RSS in a fresh
subprocess, and checks that findings and fixes land only on the planted bad launches.
Exits 1 only if autofix crashes (exit code 2, a signal, or a traceback); never on timing.
Stdlib only.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import platform
import random
import shutil
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SEED = 20240611
DEFAULT_SIZES = (1000,)
LARGE_SIZE = 20000
BAD_SHARE, CLEAN_SHARE, MENTION_SHARE = 0.03, 0.10, 0.02
KIND_WEIGHTS = {"sh": 30, "shebang": 5, "yaml": 20, "py": 25, "dockerfile": 8, "md": 12}

MLA_MODELS = ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2-Instruct")
OTHER_MODELS = ("Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct", "mistralai/Mistral-7B-Instruct-v0.3")
EXTRA_FLAGS = (
    ("--host", "0.0.0.0"), ("--port", "30000"), ("--mem-fraction-static", "0.85"),
    ("--context-length", "32768"), ("--trust-remote-code", None), ("--log-level", "info"),
    ("--max-running-requests", "256"), ("--enable-metrics", None),
)
WORDS = (
    "build deploy cache worker metrics backup sync index report export import queue shard "
    "replica ingest config release bundle archive cleanup monitor gateway proxy session token "
    "upload download schema migrate verify render compile package install notify rotate"
).split()

# Runs a command and prints its wall time and peak RSS: one fresh process per measurement,
# so RUSAGE_CHILDREN holds that command alone.
PROBE = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
wall = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "maxrss": rss, "rc": p.returncode,
                  "stderr": p.stderr.decode("utf-8", "replace")}))
"""


# -- launches -------------------------------------------------------------------


@dataclass
class Launch:
    prefix: list[str]
    model: str
    positional_model: bool
    flags: list[tuple[str, str | None]]
    code: str | None  # the finding expected, None when clean


def make_launch(rng: random.Random, category: str) -> Launch:
    serve = rng.random() < 0.3
    prefix = ["sglang", "serve"] if serve else [rng.choice(["python3", "python"]), "-m", "sglang.launch_server"]
    code = None
    if category == "bad":
        code = rng.choice(["SGL001", "SGL002"])
        model = rng.choice(MLA_MODELS if code == "SGL001" else OTHER_MODELS)
        backend = [("--attention-backend", "tokenspeed_mla")]
        if code == "SGL001" and rng.random() < 0.2:
            backend.append(("--kv-cache-dtype", "auto"))
    else:
        model = rng.choice(MLA_MODELS + OTHER_MODELS)
        choice = rng.choice(["fa3", "flashinfer", "triton", "none", "fp8"])
        if choice == "fp8" and model in MLA_MODELS:
            backend = [("--attention-backend", "tokenspeed_mla"), ("--kv-cache-dtype", "fp8_e4m3")]
        elif choice in ("none", "fp8"):
            backend = []
        else:
            backend = [("--attention-backend", choice)]
    tp = [("--tp", rng.choice(["1", "2", "4", "8"]))] if rng.random() < 0.8 else []
    extra = rng.sample(EXTRA_FLAGS, rng.randint(0, 4))
    flags = tp + extra[:2] + backend + extra[2:]
    return Launch(prefix, model, serve, flags, code)


def argv_groups(launch: Launch, equals: bool = False, quote: str = "", variables: bool = False) -> list[list[str]]:
    """The launch's argv, one group per flag, spelled for a shell."""
    def spell(flag: str, value: str) -> str:
        if variables and flag == "--tp":
            return "${TP}"
        return f"{quote}{value}{quote}" if quote and not value.isdigit() else value

    model = '"$MODEL"' if variables else spell("--model-path", launch.model)
    groups = [launch.prefix + ([model] if launch.positional_model else ["--model-path", model])]
    for flag, value in launch.flags:
        if value is None:
            groups.append([flag])
        elif equals:
            groups.append([f"{flag}={spell(flag, value)}"])
        else:
            groups.append([flag, spell(flag, value)])
    return groups


def shell_launch(rng: random.Random, launch: Launch, standalone: bool = True) -> list[str]:
    """A launch as shell lines, in one of several styles; standalone: variables and wrappers allowed."""
    variables = standalone and rng.random() < 0.3
    groups = argv_groups(launch, equals=rng.random() < 0.25, quote=rng.choice(["", "", '"', "'"]),
                         variables=variables)
    prelude = []
    if variables:
        prelude = [f'MODEL="{launch.model}"']
        if any(flag == "--tp" for flag, _ in launch.flags):
            prelude.append(f"TP={dict(launch.flags)['--tp']}")
    wrapper = rng.choice(["", "", "", "nohup", "env", "exec"]) if standalone else ""
    lead = {"": "", "nohup": "nohup ", "env": "CUDA_VISIBLE_DEVICES=0,1,2,3 ", "exec": "exec "}[wrapper]
    tail = " > server.log 2>&1 &" if wrapper == "nohup" else ""
    texts = [" ".join(g) for g in groups]
    if rng.random() < 0.5:
        return prelude + [lead + " ".join(texts) + tail]
    lines = [lead + texts[0] + " \\"] + ["    " + t + " \\" for t in texts[1:]]
    lines[-1] = lines[-1][:-2] + tail
    return prelude + lines


def flat_argv(launch: Launch) -> list[str]:
    return [token for group in argv_groups(launch) for token in group]


# -- ordinary content -----------------------------------------------------------


def name(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"


def shell_block(rng: random.Random, index: int) -> list[str]:
    n, w = f"{name(rng)}_{index}", rng.choice(WORDS)
    blocks = [
        [f'{w.upper()}_DIR="${{{w.upper()}_DIR:-/var/lib/{w}}}"', f'mkdir -p "${w.upper()}_DIR"'],
        [f"{n}() {{", f'    local target="$1"', f'    echo "[{w}] processing $target"',
         f'    if [[ ! -f "$target" ]]; then', f'        echo "missing $target" >&2', "        return 1",
         "    fi", f'    sha256sum "$target" >> "${{TMPDIR:-/tmp}}/{w}.sums"', "}"],
        [f"for item in {' '.join(rng.sample(WORDS, 4))}; do", f'    {n} "/srv/$item.tar.gz" || true', "done"],
        ['case "${1:-}" in', f"    {w})", f'        echo "running {w}"', "        ;;",
         "    --help|-h)", '        echo "usage: $0 [command]"', "        exit 0", "        ;;",
         "    *)", "        ;;", "esac"],
        [f"cat > /tmp/{w}.conf <<EOF", f"name = {n}", f"retries = {rng.randint(1, 9)}",
         f"timeout = {rng.randint(10, 600)}", "EOF"],
        [f"grep -v '^#' /etc/{w}.list | awk '{{print $1}}' | sort -u > /tmp/{w}.txt",
         f'echo "found $(wc -l < /tmp/{w}.txt) entries"'],
        [f"docker run --rm -d --name {n} \\", f"    -v /data/{w}:/data \\",
         f"    -e {w.upper()}_MODE=production \\", f"    registry.example.com/{w}:{rng.randint(1, 40)}.0"],
        [f'if command -v {w}ctl >/dev/null 2>&1; then', f"    {w}ctl status --verbose",
         "else", f'    echo "{w}ctl not found, skipping" >&2', "fi"],
        [f"trap 'rm -rf /tmp/{w}.$$' EXIT", f"rsync -az --delete ./{w}/ backup@host:/backups/{w}/"],
        [f"# {w}: step {rng.randint(1, 20)}", f"python3 tools/{n}.py --input data/{w}.csv --workers {rng.randint(1, 16)}"],
    ]
    return rng.choice(blocks)


def yaml_block(rng: random.Random, index: int) -> list[str]:
    n, w = f"{name(rng)}_{index}", rng.choice(WORDS)
    blocks = [
        [f"{w}_{index}:", f"  enabled: {rng.choice(['true', 'false'])}", f"  replicas: {rng.randint(1, 12)}",
         f"  image: registry.example.com/{w}:{rng.randint(1, 40)}.0", "  resources:", "    limits:",
         f"      cpu: \"{rng.randint(1, 16)}\"", f"      memory: {rng.randint(1, 64)}Gi"],
        [f"{n}:", "  env:", f"    - name: {w.upper()}_URL", f"      value: https://{w}.example.com",
         "    - name: LOG_LEVEL", "      value: info"],
        [f"{w}_jobs_{index}:", f"  - name: {n}", f"    schedule: \"*/{rng.randint(2, 30)} * * * *\"",
         f"    command: [\"/usr/bin/{w}\", \"--once\"]", f"  - name: {w}-nightly", "    schedule: \"0 3 * * *\""],
        [f"{n}_step:", f"  name: Run {w}", "  run: |", f"    make {w}", f"    ./scripts/{n}.sh --ci"],
        [f"# settings for {w}", f"{w}_timeout_{index}: {rng.randint(5, 300)}", f"{w}_retries_{index}: {rng.randint(0, 5)}"],
    ]
    return rng.choice(blocks)


def python_block(rng: random.Random, index: int) -> list[str]:
    n, w = f"{name(rng)}_{index}", rng.choice(WORDS)
    blocks = [
        ["", "", f"def {n}(path: str, retries: int = {rng.randint(1, 5)}) -> dict:",
         f'    """Load the {w} file at path."""', "    for attempt in range(retries):", "        try:",
         "            with open(path, encoding=\"utf-8\") as handle:", "                return json.load(handle)",
         "        except OSError:", "            time.sleep(2 ** attempt)", "    return {}"],
        ["", "", f"class {w.capitalize()}{rng.choice(WORDS).capitalize()}{index}:", "    def __init__(self, name):",
         "        self.name = name", "        self.items = []", "", "    def add(self, item):",
         "        self.items.append(item)", "        return len(self.items)"],
        ["", f"{w.upper()}_LIMIT_{index} = {rng.randint(10, 5000)}",
         f"{w.upper()}_NAMES_{index} = {rng.sample(WORDS, 3)!r}"],
        ["", "", f"def {n}_report(rows):", "    total = sum(row.get(\"size\", 0) for row in rows)",
         f"    logging.info(\"{w}: %d rows, %d bytes\", len(rows), total)", "    return total"],
    ]
    return rng.choice(blocks)


def docker_block(rng: random.Random, index: int) -> list[str]:
    w = rng.choice(WORDS)
    blocks = [
        ["RUN apt-get update && apt-get install -y --no-install-recommends \\",
         f"        curl git {w}-tools \\", "    && rm -rf /var/lib/apt/lists/*"],
        [f"ENV {w.upper()}_HOME=/opt/{w}", f"WORKDIR /opt/{w}"],
        [f"COPY {w}/ /opt/{w}/", "RUN pip install --no-cache-dir -r requirements.txt"],
        [f"ARG {w.upper()}_VERSION={rng.randint(1, 9)}.{rng.randint(0, 20)}",
         f"RUN curl -fsSL https://example.com/{w}-${{{w.upper()}_VERSION}}.tgz | tar xz -C /usr/local"],
    ]
    return rng.choice(blocks)


def markdown_block(rng: random.Random, index: int) -> list[str]:
    w = rng.choice(WORDS)
    sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
    blocks = [
        ["", f"## {w.capitalize()}", "", sentence.capitalize() + ".", sentence + "."],
        ["", f"- {w}: " + sentence, f"- {rng.choice(WORDS)}: " + sentence],
        ["", "```bash", f"make {w}", f"./scripts/{name(rng)}.sh --dry-run", "```"],
        ["", f"| key | value |", "|-----|-------|", f"| {w} | {rng.randint(1, 99)} |"],
    ]
    return rng.choice(blocks)


def blocks_of(rng: random.Random, block, target: int) -> list[list[str]]:
    """Ordinary blocks until there are target lines."""
    blocks: list[list[str]] = []
    while sum(map(len, blocks)) < target:
        blocks.append(block(rng, len(blocks)))
    return blocks


def insert_block(rng: random.Random, blocks: list[list[str]], lines: list[str]) -> list[str]:
    """The blocks as lines, with lines inserted between two of them."""
    at = rng.randint(0, len(blocks))
    return [line for b in blocks[:at] + [lines] + blocks[at:] for line in b]


def flat(blocks: list[list[str]]) -> list[str]:
    return [line for b in blocks for line in b]


# -- files ----------------------------------------------------------------------


def render_shell(rng: random.Random, target: int, launch: Launch | None, shebang: bool) -> str:
    head = [rng.choice(["#!/bin/bash", "#!/usr/bin/env bash"]) if shebang or rng.random() < 0.8 else "# helper",
            "set -euo pipefail", ""]
    blocks = blocks_of(rng, shell_block, target - len(head))
    if launch is None:
        return "\n".join(head + flat(blocks)) + "\n"
    return "\n".join(head + insert_block(rng, blocks, ["", "# start the server", *shell_launch(rng, launch), ""])) + "\n"


def render_yaml(rng: random.Random, target: int, launch: Launch | None) -> str:
    blocks = blocks_of(rng, yaml_block, target)
    if launch is None:
        return "\n".join(flat(blocks)) + "\n"
    style = rng.choice(["k8s", "compose", "actions"])
    argv = flat_argv(launch)
    if style == "k8s":
        command, args = argv[:len(launch.prefix)], argv[len(launch.prefix):]
        block = ["server:", "  containers:", "    - name: server", "      image: lmsysorg/sglang:latest",
                 "      command:", *[f"        - {t}" for t in command], "      args:",
                 *[f'        - "{t}"' if t[0].isdigit() else f"        - {t}" for t in args]]
    elif style == "compose":
        block = ["server:", "  image: lmsysorg/sglang:latest", f"  command: {' '.join(argv)}", "  ipc: host"]
    else:
        block = ["serve_step:", "  name: Start server", "  run: |",
                 *["    " + line for line in shell_launch(rng, launch, standalone=False)]]
    return "\n".join(insert_block(rng, blocks, block)) + "\n"


def render_python(rng: random.Random, target: int, launch: Launch | None) -> str:
    head = ['"""Utilities for the service."""', "", "import json", "import logging", "import shlex",
            "import subprocess", "import time"]
    blocks = blocks_of(rng, python_block, target - len(head))
    if launch is None:
        return "\n".join(head + flat(blocks)) + "\n"
    argv = flat_argv(launch)
    if rng.random() < 0.5:
        call = ["", "", "def start_server():", "    cmd = [", *[f'        "{t}",' for t in argv], "    ]",
                "    return subprocess.Popen(cmd)"]
    else:
        call = ["", "", "def start_server():",
                f'    return subprocess.run(shlex.split("{" ".join(argv)}"), check=True)']
    return "\n".join(head + insert_block(rng, blocks, call)) + "\n"


def render_dockerfile(rng: random.Random, target: int, launch: Launch | None) -> str:
    base = "lmsysorg/sglang:latest" if launch else rng.choice(
        ["python:3.11-slim", "ubuntu:22.04", "nvidia/cuda:12.4.1-runtime-ubuntu22.04"])
    lines = [f"FROM {base}", ""] + flat(blocks_of(rng, docker_block, min(target, 120) - 3))
    if launch is None:
        lines.append('CMD ["python3", "-m", "http.server", "8080"]')
    elif rng.random() < 0.5:
        lines.append("CMD [" + ", ".join(f'"{t}"' for t in flat_argv(launch)) + "]")
    else:
        first, *rest = shell_launch(rng, launch, standalone=False)
        lines += ["ENTRYPOINT " + first, *rest]
    return "\n".join(lines) + "\n"


def render_markdown(rng: random.Random, target: int, launch: Launch | None) -> str:
    head = [f"# {rng.choice(WORDS).capitalize()} guide"]
    blocks = blocks_of(rng, markdown_block, target - 1)
    if launch is None:
        return "\n".join(head + flat(blocks)) + "\n"
    block = ["", "Start the server:", "", "```bash", *shell_launch(rng, launch, standalone=False), "```"]
    return "\n".join(head + insert_block(rng, blocks, block)) + "\n"


@dataclass
class Planted:
    path: str  # relative to the tree root
    kind: str
    category: str  # "plain", "clean" or "bad"
    code: str | None = None


def generate_tree(root: Path, n_files: int, seed: int = SEED) -> list[Planted]:
    rng = random.Random(seed)
    n_bad, n_clean = round(n_files * BAD_SHARE), round(n_files * CLEAN_SHARE)
    categories = ["bad"] * n_bad + ["clean"] * n_clean + ["plain"] * (n_files - n_bad - n_clean)
    rng.shuffle(categories)
    kinds, weights = zip(*KIND_WEIGHTS.items())
    planted = []
    for index, category in enumerate(categories):
        kind = rng.choices(kinds, weights)[0]
        target = int(20 + rng.betavariate(1.5, 4) * 280)
        launch = make_launch(rng, category) if category != "plain" else None
        folder = f"team{index // 250:03d}/{rng.choice(WORDS)}"
        stem = f"{name(rng)}_{index}"
        if kind in ("sh", "shebang"):
            text = render_shell(rng, target, launch, shebang=kind == "shebang")
            rel = f"{folder}/scripts/{stem}" + (".sh" if kind == "sh" else "")
        elif kind == "yaml":
            text, rel = render_yaml(rng, target, launch), f"{folder}/deploy/{stem}.yaml"
        elif kind == "py":
            text, rel = render_python(rng, target, launch), f"{folder}/src/{stem}.py"
        elif kind == "dockerfile":
            text, rel = render_dockerfile(rng, target, launch), f"{folder}/docker/{stem}/Dockerfile"
        else:
            text, rel = render_markdown(rng, target, launch), f"{folder}/docs/{stem}.md"
        if category == "plain" and rng.random() < MENTION_SHARE:
            text += "\n# note: the sglang deployment lives in a separate repository\n"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if kind == "shebang":
            path.chmod(0o755)
        planted.append(Planted(rel, kind, category, launch.code if launch else None))
    return planted


# -- running --------------------------------------------------------------------


def autofix_executable() -> str:
    beside = Path(sys.executable).with_name("autofix")
    found = str(beside) if beside.exists() else shutil.which("autofix")
    if found is None:
        sys.exit("run.py: no `autofix` executable beside the interpreter or on PATH (pip install -e .)")
    return found


def ast_grep_executable() -> str | None:
    if shutil.which("ast-grep"):
        return shutil.which("ast-grep")
    sg = shutil.which("sg")  # often shadow-utils' newgrp, not ast-grep
    if sg and "ast-grep" in run_text([sg, "--version"]):
        return sg
    return None


def run_text(cmd: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
        return (done.stdout + done.stderr).strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def measure(cmd: list[str], cwd: Path) -> dict:
    """Wall time, peak RSS (MiB) and exit code of one run of cmd, in a fresh probe process."""
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], cwd=cwd, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    result["rss_mib"] = result.pop("maxrss") / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return result


@dataclass
class Case:
    name: str
    files: int
    walls: list[float] = field(default_factory=list)
    rss_mib: float = 0.0
    exit_codes: set[int] = field(default_factory=set)
    crash: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.walls)


def time_case(name: str, files: int, cmd: list[str], cwd: Path, repeat: int, prepare=None, is_autofix=True) -> Case:
    case = Case(name, files)
    for _ in range(repeat):
        if prepare is not None:
            prepare()
        result = measure(cmd, cwd)
        case.walls.append(result["wall"])
        case.rss_mib = max(case.rss_mib, result["rss_mib"])
        case.exit_codes.add(result["rc"])
        if is_autofix and case.crash is None:
            case.crash = crash_reason(result["rc"], result["stderr"])
    return case


def crash_reason(rc: int, stderr: str) -> str | None:
    """Why a run counts as a crash (exit 2, a signal, a traceback), with its errors summarised; else None."""
    lines = stderr.splitlines()
    traceback = "Traceback (most recent call last):" in lines
    if not traceback and rc in (0, 1):
        return None
    errors = Counter(re.sub(r"^autofix: \S+: ", "", line) for line in lines if line.startswith("autofix: "))
    summary = [f"{n} x {message}" for message, n in errors.most_common(5)]
    return "\n  ".join([f"exit {rc}" + (", traceback" if traceback else ""), *summary,
                        *(lines[-6:] if traceback else [])])


# -- correctness on the generated tree -------------------------------------------


def check_results(autofix: str, work: Path, tree: str, planted: list[Planted]) -> dict:
    """What autofix found and fixed, compared with what was planted."""
    notes: dict = {}
    done = subprocess.run([autofix, "--format", "json", tree], cwd=work, capture_output=True, text=True)
    notes["check_exit"], notes["stderr_head"] = done.returncode, done.stderr.splitlines()[:10]
    crashes = {"check": crash_reason(done.returncode, done.stderr)}
    try:
        findings = json.loads(done.stdout or "[]")
    except ValueError:
        findings, crashes["check"] = [], crashes["check"] or "--format json printed no JSON"
    by_path: dict[str, set[str]] = {}
    for f in findings:
        by_path.setdefault(os.path.relpath(f["path"], tree), set()).add(f["code"])
    per_kind = {kind: {"bad": 0, "found": 0, "right_code": 0, "false_positive": 0} for kind in KIND_WEIGHTS}
    wrong: list[str] = []
    for p in planted:
        row = per_kind[p.kind]
        codes = by_path.get(p.path, set())
        if p.category == "bad":
            row["bad"] += 1
            row["found"] += bool(codes)
            row["right_code"] += p.code in codes
            if codes and p.code not in codes:
                wrong.append(f"{p.path}: expected {p.code}, got {sorted(codes)}")
        elif codes:
            row["false_positive"] += 1
            wrong.append(f"{p.path} ({p.category}): unexpected {sorted(codes)}")
    notes["per_kind"], notes["wrong"] = per_kind, wrong

    diff = subprocess.run([autofix, "--diff", tree], cwd=work, capture_output=True, text=True)
    diffed = {os.path.relpath(line[6:], tree) for line in diff.stdout.splitlines() if line.startswith("+++ b/")}
    copy = work / "fix-check"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(work / tree, copy, symlinks=True)
    fix = subprocess.run([autofix, "--fix", copy.name], cwd=work, capture_output=True, text=True)
    notes["fix_exit"], notes["fix_summary"] = fix.returncode, fix.stderr.strip().splitlines()[-1:]
    crashes["--diff"], crashes["--fix"] = crash_reason(diff.returncode, diff.stderr), crash_reason(fix.returncode, fix.stderr)
    bad = {p.path for p in planted if p.category == "bad"}
    changed, unexpected, bad_edits = [], [], []
    for p in planted:
        before, after = work / tree / p.path, copy / p.path
        old, new = before.read_text(encoding="utf-8"), after.read_text(encoding="utf-8")
        if before.stat().st_mode != after.stat().st_mode:
            unexpected.append(f"{p.path}: mode changed")
        if old == new:
            continue
        changed.append(p.path)
        if p.path not in bad:
            unexpected.append(f"{p.path} ({p.category}) changed")
        elif not fix_looks_right(p.code, old, new):
            bad_edits.append(p.path)
    notes["fix_changed"], notes["fix_unexpected"], notes["fix_suspicious"] = len(changed), unexpected, bad_edits
    notes["diff_matches_fix"] = diffed == set(changed)
    recheck = subprocess.run([autofix, copy.name], cwd=work, capture_output=True, text=True)
    notes["recheck_exit"] = recheck.returncode
    notes["recheck_findings"] = [line for line in recheck.stdout.splitlines() if ": SGL" in line][:10]
    crashes["re-check"] = crash_reason(recheck.returncode, recheck.stderr)
    notes["crash"] = "\n".join(f"{run}: {why}" for run, why in crashes.items() if why) or None
    shutil.rmtree(copy, ignore_errors=True)
    return notes


def fix_looks_right(code: str | None, old: str, new: str) -> bool:
    """The fix edits only launch lines, and does what its code says."""
    edited = [line for line in difflib.unified_diff(old.splitlines(), new.splitlines(), n=0, lineterm="")
              if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    # Launch lines carry a flag, the backend, the dtype, or `auto` (the only replaced value planted).
    if not all(any(word in line for word in ("--", "tokenspeed_mla", "fp8_e4m3", "auto", "sglang")) for line in edited):
        return False
    if code == "SGL001":
        return new.count("fp8_e4m3") > old.count("fp8_e4m3")
    return new.count("tokenspeed_mla") < old.count("tokenspeed_mla")


# -- other tools ------------------------------------------------------------------


SEMGREP_RULE = """rules:
  - id: tokenspeed-mla
    languages: [generic]
    severity: WARNING
    message: tokenspeed_mla attention backend
    pattern-regex: --attention-backend[= ]+["']?tokenspeed_mla
"""
AST_GREP_RULE = """id: tokenspeed-mla
language: bash
severity: warning
message: tokenspeed_mla attention backend
rule:
  kind: command
  regex: tokenspeed_mla
"""


def other_tools(work: Path, tree: str, files: int, repeat: int) -> tuple[list[Case], list[str]]:
    cases, missing = [], []
    semgrep, ast_grep = shutil.which("semgrep"), ast_grep_executable()
    if semgrep:
        (work / "semgrep.yaml").write_text(SEMGREP_RULE)
        cmd = [semgrep, "scan", "--metrics=off", "--quiet", "--config", "semgrep.yaml", tree]
        cases.append(time_case("semgrep (regex rule)", files, cmd, work, repeat, is_autofix=False))
    else:
        missing.append("semgrep: not installed")
    if ast_grep:
        (work / "ast-grep.yaml").write_text(AST_GREP_RULE)
        cmd = [ast_grep, "scan", "--rule", "ast-grep.yaml", tree]
        cases.append(time_case("ast-grep (bash rule)", files, cmd, work, repeat, is_autofix=False))
    else:
        missing.append("ast-grep: not installed")
    return cases, missing


# -- the benchmark ----------------------------------------------------------------


def describe_tree(root: Path, planted: list[Planted]) -> dict:
    texts = [(root / p.path).read_bytes() for p in planted]
    counts = {c: sum(p.category == c for p in planted) for c in ("plain", "clean", "bad")}
    kinds = {k: sum(p.kind == k for p in planted) for k in KIND_WEIGHTS}
    return {**counts, "by_kind": kinds, "mib": round(sum(map(len, texts)) / 2**20, 1),
            "lines": sum(t.count(b"\n") for t in texts)}


def first_of(planted: list[Planted], kinds: tuple[str, ...]) -> Planted | None:
    for category in ("bad", "clean", "plain"):
        for p in planted:
            if p.kind in kinds and p.category == category:
                return p
    return None


def bench_tree(autofix: str, work: Path, n_files: int, repeat: int) -> list[Case]:
    tree = f"tree-{n_files}"
    copy = work / f"fix-{n_files}"

    def fresh_copy() -> None:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(work / tree, copy, symlinks=True)

    cases = [
        time_case("check", n_files, [autofix, tree], work, repeat),
        time_case("--diff", n_files, [autofix, "--diff", tree], work, repeat),
        time_case("--fix (fresh copy)", n_files, [autofix, "--fix", copy.name], work, repeat, prepare=fresh_copy),
    ]
    shutil.rmtree(copy, ignore_errors=True)
    return cases


def bench_single(autofix: str, work: Path, tree: str, planted: list[Planted], repeat: int) -> list[Case]:
    cases = [
        time_case("python -c pass", 1, [sys.executable, "-c", "pass"], work, repeat, is_autofix=False),
        time_case("python -c 'import click'", 1, [sys.executable, "-c", "import click"], work, repeat,
                  is_autofix=False),
    ]
    for label, kinds in (("shell", ("sh", "shebang")), ("yaml", ("yaml",)), ("python", ("py",))):
        p = first_of(planted, kinds)
        if p is not None:
            path = f"{tree}/{p.path}"
            cases.append(time_case(f"single {label} file ({p.category})", 1, [autofix, path], work, repeat))
    return cases


def print_report(env: dict, cases: list[Case], checks: dict, missing: list[str], kept: Path | None) -> None:
    for key, value in env.items():
        print(f"{key:<16} {value}")
    print()
    rows = [("case", "files", "wall median s", "files/s", "peak RSS MiB", "exit")]
    for c in cases:
        rate = f"{c.files / c.median:,.0f}" if c.files > 1 else "-"
        rows.append((c.name, f"{c.files:,}", f"{c.median:.3f}", rate, f"{c.rss_mib:.1f}",
                     ",".join(map(str, sorted(c.exit_codes)))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths))))
    print()
    for line in missing:
        print(line)
    if "ratio" in checks:
        print(f"single shell file / python -c 'import click' (startup + click import): {checks['ratio']:.2f}x")
    for size, notes in checks.get("trees", {}).items():
        t = notes["planted"]
        print(f"\ntree of {size:,} files ({t['mib']} MiB, {t['lines']:,} lines): {t['bad']} bad, {t['clean']} clean,"
              f" {t['plain']} without launch; by kind {t['by_kind']}")
        for kind, row in notes["per_kind"].items():
            print(f"  {kind:<10} bad {row['bad']:>4}  found {row['found']:>4}  right code {row['right_code']:>4}"
                  f"  false positives {row['false_positive']:>3}")
        for line in notes["wrong"][:10]:
            print(f"  wrong: {line}")
        print(f"  check exit {notes['check_exit']}; --fix exit {notes['fix_exit']} {notes['fix_summary']}")
        print(f"  --fix changed {notes['fix_changed']} file(s); unexpected changes: {len(notes['fix_unexpected'])};"
              f" suspicious edits: {len(notes['fix_suspicious'])}; --diff files == --fix files: {notes['diff_matches_fix']}")
        for line in (notes["fix_unexpected"] + notes["fix_suspicious"])[:10]:
            print(f"    {line}")
        print(f"  re-check after --fix: exit {notes['recheck_exit']}")
        for line in notes["recheck_findings"]:
            print(f"    {line}")
        for line in notes["stderr_head"][:5]:
            print(f"  stderr: {line}")
    if kept:
        print(f"\ngenerated trees kept in {kept}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, nargs="+", help=f"tree size(s) (default {DEFAULT_SIZES[0]})")
    parser.add_argument("--large", action="store_true", help=f"also a tree of {LARGE_SIZE:,} files")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per case (median reported)")
    parser.add_argument("--keep", action="store_true", help="keep the generated trees and print their path")
    parser.add_argument("--json", action="store_true", help="print machine-readable results")
    args = parser.parse_args()
    sizes = list(args.files or DEFAULT_SIZES) + ([LARGE_SIZE] if args.large else [])

    autofix = autofix_executable()
    env = {
        "cores": os.cpu_count(),
        "python": f"{platform.python_version()} ({sys.executable})",
        "autofix": f"{run_text([autofix, '--version'])} ({autofix})",
        "platform": platform.platform(),
        "repeat": args.repeat,
        "seed": SEED,
    }
    work = Path(tempfile.mkdtemp(prefix="autofix-bench-"))
    cases: list[Case] = []
    checks: dict = {"trees": {}}
    missing: list[str] = []
    try:
        for index, size in enumerate(sizes):
            tree = f"tree-{size}"
            planted = generate_tree(work / tree, size)
            checks["trees"][size] = {"planted": describe_tree(work / tree, planted),
                                     **check_results(autofix, work, tree, planted)}
            if index == 0:
                cases += bench_single(autofix, work, tree, planted, args.repeat)
            cases += bench_tree(autofix, work, size, args.repeat)
            found, missing = other_tools(work, tree, size, args.repeat)
            cases += found
        single = next((c for c in cases if c.name.startswith("single shell")), None)
        baseline = next(c for c in cases if "import click" in c.name)
        if single:
            checks["ratio"] = single.median / baseline.median
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    crashes = [f"{c.name} ({c.files} files): {c.crash}" for c in cases if c.crash]
    crashes += [f"correctness pass on {size} files: {n['crash']}" for size, n in checks["trees"].items() if n["crash"]]
    if args.json:
        out = {
            "environment": env,
            "cases": [{"case": c.name, "files": c.files, "wall_median_s": c.median, "walls_s": c.walls,
                       "files_per_s": c.files / c.median, "peak_rss_mib": c.rss_mib,
                       "exit_codes": sorted(c.exit_codes), "crash": c.crash} for c in cases],
            "checks": checks,
            "not_installed": missing,
            "kept": str(work) if args.keep else None,
        }
        print(json.dumps(out, indent=2, default=str))
    else:
        print_report(env, cases, checks, missing, work if args.keep else None)
    for line in crashes:
        print(f"\nCRASH: {line}", file=sys.stderr)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
