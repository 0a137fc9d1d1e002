"""The GPU a launch file names for itself: where its launches run, read from its own text.

Many launch files say which GPU they run on, in the words of the tool that
schedules them:

- SkyPilot: `resources: accelerators: H100:8` (also `{H100: 8}`, a list, or a
  block of `NAME: COUNT` lines; `A100-80GB:4`), and `sky launch --gpus H100:8`;
- Kubernetes: a node selector or node affinity on `nvidia.com/gpu.product`
  (`NVIDIA-H100-80GB-HBM3`, GPU feature discovery's label) or on GKE's
  `cloud.google.com/gke-accelerator` (`nvidia-h100-80gb`); an affinity with
  `operator: NotIn` names a GPU the pod avoids, and is passed over;
- Slurm: `--gres=gpu:h100:8`, `--gpus=h100:8` (and `--gpus-per-node`,
  `--gpus-per-task`), `--constraint=h100` / `-C h100`, on `#SBATCH` lines and
  on `srun`, `sbatch` and `salloc` command lines;
- a CI runner label naming a GPU: GitHub Actions `runs-on: 8-gpu-h200`,
  `runs-on: [self-hosted, h100]` (SGLang's own workflows use labels such as
  `4-gpu-h100`, `8-gpu-h200`, `4-gpu-b200`, `1-gpu-5090`, `linux-mi300-gpu-1`,
  `linux-mi35x-gpu-8`).

A name counts only when `autofix.knowledge.gpus` knows it. A GPU count alone
(`--gres=gpu:8`, `nvidia.com/gpu: 8`, `docker run --gpus all`, `1-gpu-runner`)
names no GPU, and nothing is guessed from it. A file that names two different
GPUs (a SkyPilot list of alternatives, workflows on two runner pools) names
none: which one a launch meets is not known.

Which GPU wins: `--gpu` on the command line, then the configuration's
`per-file-gpu` entry for the file, then its `gpu` key, and only when none of
these names one, the GPU the file names (the configuration is the user's own
statement; the file's text is read as a default).

Each source is looked for only when the text holds its key word (a substring
test), so files that name no GPU cost one scan per word; nothing is parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from autofix.knowledge.gpus import Gpu, gpu_named

__all__ = ["gpu_in_text", "gpus_in_text"]

# SkyPilot: `accelerators: VALUE`, the value inline or in the block of deeper lines below it.
_ACCELERATORS = re.compile(r"^([ \t]*)accelerators[ \t]*:[ \t]*([^#\n]*)((?:\n\1[ \t]+[^\n]*)*)", re.M)
_SKY_GPUS = re.compile(r"\bsky\b[^\n]*?--gpus[ =]+[\"']?([A-Za-z][\w.-]*)")
_SKY_PYTHON = re.compile(r"\baccelerators[ \t]*=[ \t]*([^)\n]*)")  # sky.Resources(accelerators="H100:8")
# Kubernetes: `LABEL: VALUE` (a node selector) or `key: LABEL` ... `values: [...]` (an affinity).
_LABELS = r"(?:nvidia\.com/gpu\.product|cloud\.google\.com/gke-accelerator)"
_SELECTOR = re.compile(rf"{_LABELS}[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z][\w.-]*)")
_AFFINITY = re.compile(
    rf"key[ \t]*:[ \t]*[\"']?{_LABELS}[\"']?\s*(?:operator[ \t]*:[ \t]*[\"']?(\w+)[\"']?\s*)?"
    r"values[ \t]*:[ \t]*(\[[^\]]*\]|(?:\s*-[ \t]*[^\n]+)+)"
)
# An operator written before the key, in the same match expression (after its `- `).
_OPERATOR_BEFORE = re.compile(r"operator[ \t]*:[ \t]*[\"']?(\w+)[^-]*$")
# Slurm, on the lines that hold its options.
_SLURM_LINE = re.compile(r"^[ \t]*#SBATCH\b[^\n]*|^[^\n#]*\b(?:srun|sbatch|salloc)\b[^\n]*", re.M)
_GRES = re.compile(r"--(?:gres|gpus|gpus-per-node|gpus-per-task)[ =]+[\"']?(?:gpu:)?([A-Za-z][\w.-]*):\d")
_GRES_NAMED = re.compile(r"--gres[ =]+[\"']?gpu:([A-Za-z][\w.-]*)")
_CONSTRAINT = re.compile(r"(?:--constraint[ =]+|(?<![\w-])-C[ \t]*)[\"']?([^\s\"']+)")
# CI: GitHub Actions' `runs-on:`, inline (a label or a flow list) or as a block list.
_RUNS_ON = re.compile(r"^([ \t]*)runs-on[ \t]*:[ \t]*([^#\n]*)((?:\n\1[ \t]+-[^\n]*)*)", re.M)

_WORDS = (
    ("accelerators", "--gpus"),
    ("gpu.product", "gke-accelerator"),
    ("SBATCH", "srun", "salloc"),
    ("runs-on",),
)
_GEFORCE = re.compile(r"^\d{4}$")  # `1-gpu-5090`: a GeForce RTX card by its number


def gpu_in_text(text: str) -> Gpu | None:
    """The one GPU the text names; None when it names none, or two different ones."""
    found = gpus_in_text(text)
    return found.pop() if len(found) == 1 else None


def gpus_in_text(text: str) -> set[Gpu]:
    """Every GPU the text names, in any of the forms above."""
    found: set[Gpu] = set()
    for words, reader in zip(_WORDS, (_skypilot, _kubernetes, _slurm, _runners)):
        if any(word in text for word in words):
            found.update(gpu for gpu in (gpu_named(name) for name in reader(text)) if gpu is not None)
    return found


def _skypilot(text: str) -> Iterator[str]:
    for match in _ACCELERATORS.finditer(text):
        yield from _items(match[2] + match[3])
    for match in _SKY_PYTHON.finditer(text):
        yield from _items(match[1])
    for match in _SKY_GPUS.finditer(text):
        yield match[1]


def _kubernetes(text: str) -> Iterator[str]:
    for match in _SELECTOR.finditer(text):
        yield match[1]
    for match in _AFFINITY.finditer(text):
        before = _OPERATOR_BEFORE.search(text, max(0, match.start() - 200), match.start())
        operator = match[1] or (before[1] if before else "In")
        if operator != "In":
            continue  # NotIn, Exists, ...: not the GPU the pod runs on
        yield from _items(match[2])


def _slurm(text: str) -> Iterator[str]:
    for line in _SLURM_LINE.finditer(text):
        for pattern in (_GRES, _GRES_NAMED):
            for match in pattern.finditer(line[0]):
                yield match[1]
        for match in _CONSTRAINT.finditer(line[0]):
            # A feature expression: `h100`, `gpu&h100`, `h100|a100` (either: two GPUs), `[h100*2]`.
            yield from (w for w in re.split(r"[|&,*\[\]()]+", match[1]) if w and not w.isdigit())


def _runners(text: str) -> Iterator[str]:
    for match in _RUNS_ON.finditer(text):
        for label in _items(match[2] + match[3], counts=False):
            if "${{" in label:
                continue  # an expression: the runner is chosen elsewhere
            for word in re.split(r"[-_]", label):
                yield f"rtx{word}" if _GEFORCE.match(word) else word


def _items(value: str, counts: bool = True) -> Iterator[str]:
    """The names of a YAML or Python value: `H100:8`, `{L4: 1, A10G: 1}`, `[a, b]`, block list lines.
    With counts, `NAME:COUNT` and `NAME: COUNT` give NAME."""
    for item in re.split(r"[,\n]", value):
        name = item.strip().lstrip("-").strip().strip("{}[]\"' ")
        if counts:
            name = name.split(":")[0].strip("\"' ")
        if name:
            yield name
