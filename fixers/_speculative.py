"""What SGLang makes of the EAGLE speculative decoding flags a launch writes."""

from __future__ import annotations

from autofix.model import Flag, Launch, Unresolvable

# The algorithms `_handle_eagle_family` validates (NEXTN is read as EAGLE).
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")


def eagle_topk(launch: Launch) -> Flag | None:
    """The written `--speculative-eagle-topk` flag, when SGLang validates it as written.

    None for another algorithm, for adaptive speculation, without
    `--speculative-num-steps` (SGLang then asserts that topk is unset, or
    chooses it itself), and for Gemma-4 assistant drafts (run as FROZEN_KV_MTP).
    """
    algorithm = launch.value("speculative_algorithm")
    if not isinstance(algorithm, str) or algorithm.upper() not in EAGLE_FAMILY:
        return None
    if launch.value("speculative_adaptive") is True or launch.flag("speculative_num_steps") is None:
        return None
    draft = launch.value("speculative_draft_model_path")
    if isinstance(draft, str) and "gemma" in draft.lower():
        return None
    topk = launch.flag("speculative_eagle_topk")
    if topk is None:
        return None
    try:
        int(topk.value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise Unresolvable("speculative_eagle_topk") from None
    return topk
