"""Launches as SGLang's parser sees them: what the oracle tests hand to SGLang."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from autofix.fixer import Fixer, all_fixers
from autofix.formats import detect, load
from autofix.knowledge.modelfacts import ModelFacts, derive
from autofix.knowledge.options import table
from autofix.knowledge.releases import RELEASES, parse_release
from autofix.model import Launch
from autofix.pipeline import release_in_text
from autofix.source import Source

# Real checkpoints' config.json files (their sources: README.md there), by Hub id as `org--name`.
MODEL_CONFIGS = Path(__file__).resolve().parent / "data" / "model-configs"

# A stand-in architecture for a model family autofix knows only as "not MLA".
NOT_MLA = "LlamaForCausalLM"
# How a fixer's docs or a fixture name the GPU a rule is judged on.
GPU_NOTE = re.compile(r"`--gpu ([\w-]+)`|autofix-test:\s*--gpu\s+([\w-]+)")


def argv_of(launch: Launch) -> list[str] | None:
    """The argv SGLang's parser would see, or None when part of it is unknown."""
    if any(arg.text is None or arg.splat for arg in launch.args):
        return None
    argv = [arg.text for arg in launch.args]
    if launch.form == "serve" and launch.positionals and launch.args[0] is launch.positionals[0]:
        argv = ["--model-path", *argv]  # what `sglang serve MODEL` does before parsing
    return argv  # type: ignore[return-value]


def architecture_of(launch: Launch) -> str | None:
    model = launch.model
    if model.architecture is not None:
        return model.architecture
    return NOT_MLA if model.mla is False else None


def real_config(model_path: str) -> dict | None:
    """The real config.json of a Hub id the tests hold one for (tests/data/model-configs), else None."""
    if model_path.count("/") != 1:
        return None
    path = MODEL_CONFIGS / model_path.replace("/", "--") / "config.json"
    return json.loads(path.read_text()) if path.is_file() else None


def real_facts(model_path: str) -> ModelFacts | None:
    """A model lookup for the pipeline (Settings.model_lookup): the facts of the real config.json the
    tests hold for a Hub id, as autofix reads a cached one; None for any other model."""
    config = real_config(model_path)
    if config is None:
        return None
    return derive(config, str(MODEL_CONFIGS / model_path.replace("/", "--") / "config.json"))


def real_hub_cache(folder: Path) -> Path:
    """A Hugging Face cache folder holding every real config.json of tests/data/model-configs, laid out
    as huggingface_hub caches it (refs/main naming the snapshot): for runs that look models up there."""
    commit = "0" * 40
    for config in sorted(MODEL_CONFIGS.glob("*--*/config.json")):
        repo = folder / f"models--{config.parent.name}"
        (repo / "snapshots" / commit).mkdir(parents=True, exist_ok=True)
        (repo / "snapshots" / commit / "config.json").write_bytes(config.read_bytes())
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(commit)
    return folder


def stand_in_folder(launch: Launch, folder: Path) -> str | None:
    """A model folder for the judge holding the launch's model's real config.json, where the tests have
    one: SGLang then builds its own ModelConfig from the model's real facts. `auto_map` is left out:
    the checkpoint's remote code is not here, and transformers' own config class of its model_type
    reads the same keys."""
    path = launch.value("model_path") if launch.flag("model_path") is not None else None
    config = real_config(path) if isinstance(path, str) else None
    if config is None:
        return None
    target = folder / "models" / path.replace("/", "--")
    target.mkdir(parents=True, exist_ok=True)
    (target / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k != "auto_map"}))
    return str(target)


def launches_in(path: Path | str, text: str) -> list[Launch]:
    release = release_in_text(text)
    return load(detect(Path(path).name)).find_launches(Source(text), table(release), release=release)


def gpu_in(text: str) -> str | None:
    match = GPU_NOTE.search(text)
    return (match[1] or match[2]) if match else None


def releases_of(fx: Fixer) -> list[str]:
    first, last = (parse_release(r) for r in fx.releases)
    return [r for r in RELEASES if first <= parse_release(r) <= last]  # type: ignore[operator]


def refusals(fx: Fixer) -> list[str]:
    """The messages SGLang may refuse a launch this fixer reports with."""
    earlier = [other.pattern for other in all_fixers() if other.record in fx.preceded_by]
    return [*fx.patterns, *earlier]


def patterns_holding_in(release: str) -> list[str]:
    """Every message of every fixer whose record holds in release: the rules a fixed launch must pass."""
    return [p for fx in all_fixers() if release in releases_of(fx) for p in fx.patterns]


def oracle_profile(gpu_name: str | None) -> str | None:
    """The oracle's GPU profile that answers SGLang's probes as this GPU would."""
    if gpu_name is None:
        return None
    from autofix.knowledge.gpus import gpu_named

    gpu = gpu_named(gpu_name)
    if gpu is None:
        raise ValueError(f"unknown GPU {gpu_name!r}")
    if gpu.is_hip:
        return "mi300x"
    if not gpu.is_cuda:
        return gpu.device  # xpu, npu, musa
    if gpu.sm == 70:
        return "v100"
    profiles = {9: "h100", 10: "b200", 8: "a100", 12: "rtx5090"}
    if gpu.sm is not None and gpu.sm // 10 in profiles:
        toolkit = f"-cu{gpu.cuda[0]}{gpu.cuda[1]}" if gpu.cuda is not None else ""
        return profiles[gpu.sm // 10] + toolkit
    raise ValueError(f"no oracle profile answers for {gpu.label}")


_BLOCK = re.compile(r"```(sh|bash|yaml)\n(.*?)```", re.S)
_CONFIG_NAME = re.compile(r"with `([^`]+)`:")


@dataclass(frozen=True)
class DocExample:
    """A launch in a fixer's docs: a shell block, the `--config` file it reads
    ("with `server.yaml`:" and a yaml block), or a config file alone."""

    script: str | None
    config: str | None
    config_name: str
    gpu: str | None  # `--gpu NAME` in the section

    def argv(self, launch: Launch | None) -> list[str] | None:
        """SGLang's argv: the script's launch, or `--config FILE` for a file alone."""
        if self.script is None:
            return ["--config", self.config_name]
        return argv_of(launch) if launch is not None else None


def doc_example(doc: str, heading: str) -> DocExample:
    body = doc.split(heading, 1)[1].split("\n## ", 1)[0]
    blocks = {("yaml" if m[1] == "yaml" else "sh"): m[2] for m in _BLOCK.finditer(body)}
    assert blocks, f"no sh or yaml block under {heading}"
    named = _CONFIG_NAME.search(body)
    return DocExample(blocks.get("sh"), blocks.get("yaml"), named[1] if named else "config.yaml", gpu_in(body))


def check_example(example: DocExample, fixers: list[Fixer], fix: bool = False, unsafe: bool = False):  # noqa: ANN201
    """autofix on an example, the way it runs on a folder holding the script and its config file.
    Returns (the pipeline's Result, the example as fixed)."""
    from autofix.formats import SHELL, YAML
    from autofix.knowledge.gpus import gpu_named
    from autofix.pipeline import Linked, Settings, fix_text

    def read_config(path: str) -> Linked | None:
        if example.config is not None and path == example.config_name:
            return Linked(path, Source(example.config))
        return None

    gpu = gpu_named(example.gpu) if example.gpu else None
    settings = Settings(fixers, unsafe=unsafe, gpu=gpu, read_config=read_config)
    if example.script is None:
        result = fix_text(Source(example.config or ""), YAML, settings, fix=fix)
        return result, replace(example, config=result.text)
    result = fix_text(Source(example.script), SHELL, settings, fix=fix)
    config = next((linked.text for linked in result.linked), example.config)
    return result, replace(example, script=result.text, config=config)
