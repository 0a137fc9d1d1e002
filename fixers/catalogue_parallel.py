"""Catalogue rules: TP/DP/attention-DP/EP/PP/CP/DCP sizing (SGLang's `parallel_hook.py`,
`kv_shard_hook.py`, `layernorm_sp_hook.py`)."""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule


def _served(cfg) -> bool:  # noqa: ANN001
    """Whether SGLang runs its model-dependent steps: a model path other than
    `none`/`dummy` (SGLang's pipeline returns before them for those)."""
    launch = cfg._launch
    flag = launch.flag("model_path")
    if flag is not None:
        path = flag.value
    elif launch.form == "serve" and launch.positionals:
        path = launch.positionals[0].text
    else:
        path = None
    if not isinstance(path, str):
        raise Unresolvable("model path not known")
    return path.lower() not in ("none", "dummy")


def _model_known_not(cfg, *prefixes: str) -> bool:  # noqa: ANN001
    """Whether the served model is known to autofix and is none of these
    architectures (whose model overrides change the flags the rule reads)."""
    model = cfg._launch.model
    if not model.known and model.architecture is None:
        raise Unresolvable("model not known")
    return not (model.architecture or "").startswith(prefixes)




# -- data parallelism (handle_data_parallelism) ---------------------------------

rule(
    code="SGL401",
    name="tp-size-not-multiple-of-attn-dp-size",
    errors="0879f2f14e05",
    when=lambda cfg: cfg.attn_dp_size > 1 and cfg.dp_size <= 1 and cfg.dwdp_size <= 1
    and cfg.tp_size % cfg.attn_dp_size != 0 and _served(cfg),
    at=("attn_dp_size", "tp_size"),
    message="`--tp-size {tp_size}` is not a multiple of `--attn-dp-size {attn_dp_size}`",
    fix=remove("attn_dp_size"),
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 3",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 4",
)

rule(
    code="SGL402",
    name="tp-size-not-multiple-of-dp-size-with-dp-attention",
    errors=("16f92a4fec30", "cdf0b6f4ebdc"),
    when=lambda cfg: cfg.enable_dp_attention and cfg.dp_size > 1 and cfg.dwdp_size <= 1
    and cfg.tp_size % cfg.dp_size != 0 and _served(cfg),
    at=("dp_size", "tp_size"),
    message="`--enable-dp-attention` needs `--tp-size {tp_size}` to be a multiple of `--dp-size {dp_size}`",
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 3 --enable-dp-attention",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 4 --enable-dp-attention",
)

rule(
    code="SGL404",
    name="attn-dp-size-below-one",
    errors="fac001dfce1a",
    when=lambda cfg: cfg.attn_dp_size < 1 and cfg.dwdp_size <= 1 and _served(cfg),
    at="attn_dp_size",
    message="`--attn-dp-size` must be at least 1, got {attn_dp_size}",
    fix=remove("attn_dp_size"),
    example="--model-path Qwen/Qwen3-8B --attn-dp-size 0",
    near_miss="--model-path Qwen/Qwen3-8B --attn-dp-size 1",
)

# -- EPLB (handle_eplb_and_dispatch) --------------------------------------------

# ep_size before the EPLB check: an EP-spanning a2a backend sets it to tp_size
# (_a2a_ep_size; --enable-waterfill and --moe-runner-backend megamoe pick one),
# DWDP sets it to dwdp_size, MLA/DSA prefill CP to tp_size, and MiniMax-M3
# NVFP4 picks megamoe (0.5.23). The rule keeps to launches none of these touch.
rule(
    code="SGL405",
    name="eplb-without-expert-parallelism",
    errors="1221887bf7c6",
    when=lambda cfg: cfg.enable_eplb and cfg.ep_join_mode != "scale" and cfg.ep_size <= 1
    and cfg.moe_a2a_backend == "none" and cfg.moe_runner_backend != "megamoe" and not cfg.enable_waterfill
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp
    and _served(cfg) and _model_known_not(cfg, "MiniMaxM3"),
    at=("enable_eplb", "ep_size"),
    message="`--enable-eplb` needs expert parallelism (`--ep-size` above 1), got `--ep-size {ep_size}`",
    fix=remove("enable_eplb"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-eplb",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --ep-size 2 --enable-eplb",
)
