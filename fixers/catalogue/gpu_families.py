"""Catalogue rules: the attention backends some model families need, whose default SGLang picks
per GPU (`handle_model_specific_adjustments` in `model_hook.py`, after each family's override
in `arg_groups/model_overrides/`). A backend the launch writes is kept; one the family cannot
run is refused on every GPU, so these rules need no `--gpu`.

The family is the architecture of the model's config.json; the features SGLang tests (EXAONE's
sliding_window_pattern) come from the same file, and an unknown one keeps the rules quiet.
"""

from __future__ import annotations

from autofix.rules import rule, set_

from ._common import served
from .model import _fact

# -- EXAONE 4 with sliding-window layers -------------------------------------------------

_EXAONE = ("Exaone4ForCausalLM", "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM")
_EXAONE_BACKENDS = ("fa3", "triton", "trtllm_mha")

rule(
    code="SGL991",
    name="exaone-sliding-window-unsupported-attention-backend",
    errors="5fa30860115f",
    # With no --attention-backend, EXAONE's override picks trtllm_mha, fa3 or triton by GPU.
    when=lambda cfg: cfg.attention_backend is not None and cfg.attention_backend not in _EXAONE_BACKENDS
    and cfg.model.architecture in _EXAONE and served(cfg.model_path)
    and _fact(cfg, "sliding_window_pattern") is not None,
    at="attention_backend",
    message=lambda cfg: f"{cfg.model.architecture} with sliding-window layers needs the fa3, triton or "
    f"trtllm_mha attention backend, not `{cfg.attention_backend}`",
    fix=set_("attention_backend", "triton"),
    example="--model-path LGAI-EXAONE/EXAONE-4.0-32B --attention-backend flashinfer",
    near_miss="--model-path LGAI-EXAONE/EXAONE-4.0-32B --attention-backend triton",
    note="triton runs on every GPU; fa3 (NVIDIA SM80 and newer) and trtllm_mha (SM100) are the faster "
    "choices where they run. From SGLang 0.5.22 on, a launch without `--attention-backend` gets one of them.",
)
