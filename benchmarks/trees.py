"""Generated trees of shell, YAML, Python, Dockerfile and Markdown files for the benchmark.

Most files hold no SGLang launch; some a clean one; a few a bad one that one of
autofix's three seed fixers (SGL001 to SGL003) reports. A fixed seed makes every
run time the same bytes. Stdlib only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

SEED = 20240611
BAD_SHARE, CLEAN_SHARE, MENTION_SHARE = 0.03, 0.10, 0.02
KIND_WEIGHTS = {"sh": 30, "shebang": 5, "yaml": 20, "py": 25, "dockerfile": 8, "md": 12}
MLA_MODELS = ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2-Instruct")
KIMI_K3 = "moonshotai/Kimi-K3"
# Decode backends Kimi-K3 cannot use with decode context parallelism (SGL003).
K3_BAD_BACKENDS = ("trtllm_mla", "fa3", "flashinfer", "triton")
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
        code = rng.choice(["SGL001", "SGL002", "SGL003"])
        if code == "SGL003":
            model, backend = KIMI_K3, [("--dcp-size", "8"), ("--attention-backend", rng.choice(K3_BAD_BACKENDS))]
        else:
            model = rng.choice(MLA_MODELS if code == "SGL001" else OTHER_MODELS)
            backend = [("--attention-backend", "tokenspeed_mla")]
        if code == "SGL001" and rng.random() < 0.2:
            backend.append(("--kv-cache-dtype", "auto"))
    else:
        model = rng.choice(MLA_MODELS + OTHER_MODELS + (KIMI_K3,))
        choice = rng.choice(["fa3", "flashinfer", "triton", "none", "fp8"])
        if model == KIMI_K3:
            # The near miss of SGL003: decode context parallelism on a backend that supports it.
            backend = [("--dcp-size", "8")] + ([("--attention-backend", "cutedsl_mla")] if choice != "none" else [])
        elif choice == "fp8" and model in MLA_MODELS:
            backend = [("--attention-backend", "tokenspeed_mla"), ("--kv-cache-dtype", "fp8_e4m3")]
        elif choice in ("none", "fp8"):
            backend = []
        else:
            backend = [("--attention-backend", choice)]
    if model == KIMI_K3:  # eight-way decode context parallelism needs eight-way tensor parallelism
        tp = [("--tp", "8")]
    else:
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
        [f"{n}() {{", '    local target="$1"', f'    echo "[{w}] processing $target"',
         '    if [[ ! -f "$target" ]]; then', '        echo "missing $target" >&2', "        return 1",
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
        ["", "| key | value |", "|-----|-------|", f"| {w} | {rng.randint(1, 99)} |"],
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


def describe_tree(root: Path, planted: list[Planted]) -> dict:
    """How many files of each category and kind, and how big the tree is."""
    texts = [(root / p.path).read_bytes() for p in planted]
    counts = {c: sum(p.category == c for p in planted) for c in ("plain", "clean", "bad")}
    kinds = {k: sum(p.kind == k for p in planted) for k in KIND_WEIGHTS}
    return {**counts, "by_kind": kinds, "mib": round(sum(map(len, texts)) / 2**20, 1),
            "lines": sum(t.count(b"\n") for t in texts)}


def first_of(planted: list[Planted], kinds: tuple[str, ...]) -> Planted | None:
    """The first file of these kinds, a bad one if any: single-file latency then includes a finding."""
    for category in ("bad", "clean", "plain"):
        for p in planted:
            if p.kind in kinds and p.category == category:
                return p
    return None

