"""Catalogue rules decided by the served model: the facts of its config.json (SGLang's
`configs/model_config.py`, the model runner's `moe_ep_setup.py`) and its attention kind (the
attention registry's backend creators).

They read `cfg.model` (autofix.knowledge.models, modelfacts: derived from the model's config.json
as SGLang derives them) and stay quiet when a fact is unknown: no config.json was found, or it
does not hold the key. They assume SGLang's default environment: a launch that sets
`SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` or `SGLANG_SHARED_EXPERT_TP1=1` turns the check
it names into a warning.
"""

from __future__ import annotations

from autofix.knowledge.modelfacts import ModelFacts
from autofix.model import Unresolvable
from autofix.rules import rule, set_

from ._common import served


def _fact(cfg, name: str) -> object:  # noqa: ANN001 (it reads the model, not a flag)
    """One fact of the served model's config.json; unknown when no config was read or it lacks it."""
    facts: ModelFacts | None = cfg.model.facts
    value = getattr(facts, name, None) if facts is not None else None
    if value is None:
        raise Unresolvable(f"the model's {name} is not known")
    return value


def _plain_int(value: object) -> int | None:
    """A `human_readable_int` option's value, read as a plain decimal (unknown otherwise)."""
    if value is None or isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        raise Unresolvable("not a plain integer") from None


# -- context length (ModelConfig._derive_context_length) ---------------------------

def _context_above_model(cfg) -> bool:  # noqa: ANN001
    """`--context-length` asks more than `get_context_length` derives from the model's config.
    A revision or a draft checkpoint may hold another config: only the main model's, as cached."""
    asked = _plain_int(cfg.context_length)
    if asked is None or cfg.revision is not None:
        return False
    return asked > _fact(cfg, "context_length")


rule(
    code="SGL1000",
    name="context-length-above-model-maximum",
    errors="fac6af3a2638",
    when=lambda cfg: cfg.context_length is not None and _context_above_model(cfg) and served(cfg.model_path),
    at="context_length",
    message=lambda cfg: f"`--context-length {cfg.context_length}` is above the model's maximum context "
    f"length, {_fact(cfg, 'context_length')} (from its config.json)",
    fix=set_("context_length", lambda cfg: str(_fact(cfg, "context_length"))),
    example="--model-path Qwen/Qwen3-8B --context-length 131072",
    near_miss="--model-path Qwen/Qwen3-8B --context-length 40960",
    note="SGLang derives the maximum as `get_context_length` does: the config's first of "
    "max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings, "
    "times the rope scaling factor. `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` makes it a warning.",
)
