"""What many catalogue rules ask of a launch, said once. Helpers take values, not cfg,
so that a rule's reads (computed from its condition) name every flag they look at."""

from __future__ import annotations

import json

from autofix.model import Unresolvable


def served(model_path: object) -> bool:
    """Whether SGLang runs its model-dependent steps: a model path other than `none` or
    `dummy` (its resolve pipeline returns before the later handlers for those)."""
    if not isinstance(model_path, str):
        raise Unresolvable("model path not known")
    return model_path.lower() not in ("none", "dummy")


def plain_int(value: object) -> int | None:
    """A `human_readable_int` option's value, read as a plain decimal (unknown otherwise)."""
    if value is None or isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        raise Unresolvable("not a plain integer") from None


def json_value(text: object) -> object:
    """A `json.loads`-typed option's value as SGLang decodes it (None when absent);
    unknown when it does not decode (argparse refuses it first, with another error)."""
    if text is None or not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        raise Unresolvable("not JSON") from None


def on_nvidia(cfg) -> bool:  # noqa: ANN001 (it reads the GPU autofix was told of, not a flag)
    """SGLang's platform is CUDA: the GPU named with `--gpu` is an NVIDIA one; unknown without one."""
    return gpu(cfg).is_cuda


def gpu(cfg):  # noqa: ANN001, ANN201 (it reads the GPU the launch runs on, not a flag)
    """The GPU the launch runs on (autofix.knowledge.gpus.Gpu); unknown without one."""
    found = cfg._launch.gpu
    if found is None:
        raise Unresolvable("GPU not known")
    return found


def model_fact(cfg, name: str) -> object:  # noqa: ANN001 (it reads the model, not a flag)
    """One fact of the served model's config.json (autofix.knowledge.modelfacts); unknown when no
    config was read or it lacks it."""
    facts = cfg.model.facts
    value = getattr(facts, name, None) if facts is not None else None
    if value is None:
        raise Unresolvable(f"the model's {name} is not known")
    return value
