"""Catalogue rules: TP/DP/attention-DP/EP/PP/CP/DCP sizing (SGLang's `parallel_hook.py`,
`kv_shard_hook.py`, `layernorm_sp_hook.py`)."""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served




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
    and cfg.tp_size % cfg.attn_dp_size != 0 and served(cfg.model_path),
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
    and cfg.tp_size % cfg.dp_size != 0 and served(cfg.model_path),
    at=("dp_size", "tp_size"),
    message="`--enable-dp-attention` needs `--tp-size {tp_size}` to be a multiple of `--dp-size {dp_size}`",
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 3 --enable-dp-attention",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 4 --enable-dp-attention",
)

rule(
    code="SGL404",
    name="attn-dp-size-below-one",
    errors="fac001dfce1a",
    when=lambda cfg: cfg.attn_dp_size < 1 and cfg.dwdp_size <= 1 and served(cfg.model_path),
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
    and served(cfg.model_path) and _model_known_not(cfg, "MiniMaxM3"),
    at=("enable_eplb", "ep_size"),
    message="`--enable-eplb` needs expert parallelism (`--ep-size` above 1), got `--ep-size {ep_size}`",
    fix=remove("enable_eplb"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-eplb",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --ep-size 2 --enable-eplb",
)

# -- context parallelism (handle_context_parallelism) ---------------------------



def _no_legacy_cp(cfg) -> bool:  # noqa: ANN001
    """Neither legacy CP switch (0.5.17-0.5.19) is on: they turn on prefill CP and pick its strategy."""
    return not cfg.get("enable_prefill_context_parallel", False) and not cfg.get("enable_dsa_prefill_context_parallel", False)


def _cp_layout_as_written(cfg) -> bool:  # noqa: ANN001
    """attn_cp_size, attn_dp_size, ep_size and moe_a2a_backend are what the launch
    says when SGLang checks them: prefill CP is off, or the model is known not to
    be an MLA/DSA/DeepSeek-V4 model (whose overrides resize CP, DP and EP)."""
    if not cfg.enable_prefill_cp and _no_legacy_cp(cfg):
        return True
    model = cfg._launch.model
    if model.mla is not False:
        raise Unresolvable("prefill CP on a model that may be MLA")
    return not (model.architecture or "").startswith(("DeepseekV4", "DeepseekV32", "GlmMoeDsa"))


rule(
    code="SGL406",
    name="prefill-cp-without-cp-strategy",
    errors="a1e02a2cfcbe",
    when=lambda cfg: cfg.enable_prefill_cp and cfg.cp_strategy is None and _no_legacy_cp(cfg) and served(cfg.model_path),
    at="enable_prefill_cp",
    message="`--enable-prefill-cp` needs `--cp-strategy` (`zigzag` or `interleave`)",
    fix=set_("cp_strategy", "interleave"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-prefill-cp --attn-cp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-prefill-cp --attn-cp-size 2 --cp-strategy zigzag",
)

rule(
    code="SGL407",
    name="tp-size-not-multiple-of-attn-cp-size",
    errors="53544cc5992c",
    when=lambda cfg: cfg.attn_cp_size > 1 and cfg.tp_size % cfg.attn_cp_size != 0
    and _cp_layout_as_written(cfg) and served(cfg.model_path),
    at=("attn_cp_size", "tp_size"),
    message="`--tp-size {tp_size}` is not a multiple of `--attn-cp-size {attn_cp_size}`",
    fix=remove("attn_cp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --attn-cp-size 3",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --attn-cp-size 1",
)

rule(
    code="SGL408",
    name="tp-size-not-multiple-of-attn-dp-times-attn-cp",
    errors="60896c79e56e",
    when=lambda cfg: cfg.attn_cp_size > 1 and cfg.tp_size % cfg.attn_cp_size == 0
    and cfg.tp_size % (cfg.attn_dp_size * cfg.attn_cp_size) != 0 and cfg.dwdp_size <= 1
    and _cp_layout_as_written(cfg) and served(cfg.model_path),
    at=("attn_cp_size", "attn_dp_size", "tp_size"),
    message="`--tp-size {tp_size}` is not a multiple of `--attn-dp-size {attn_dp_size}` times "
    "`--attn-cp-size {attn_cp_size}`",
    example="--model-path Qwen/Qwen3-8B --tp-size 8 --attn-dp-size 4 --attn-cp-size 4",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 8 --attn-dp-size 2 --attn-cp-size 4",
)

# The MoE-DP block: DWDP sets moe_dp_size to 1 before it; ep_size only grows to
# tp_size before it (an EP-spanning a2a backend, MLA prefill CP), which keeps
# these launches refused.
rule(
    code="SGL410",
    name="tp-size-not-multiple-of-moe-dp-size",
    errors="2e9c4ee7233c",
    when=lambda cfg: cfg.moe_dp_size > 1 and cfg.tp_size % cfg.moe_dp_size != 0 and cfg.dwdp_size <= 1
    and served(cfg.model_path),
    at=("moe_dp_size", "tp_size"),
    message="`--tp-size {tp_size}` is not a multiple of `--moe-dp-size {moe_dp_size}`",
    fix=remove("moe_dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dp-size 3",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dp-size 1",
)

rule(
    code="SGL411",
    name="ep-size-times-moe-dp-size-above-tp-size",
    errors="30599a51e1a3",
    when=lambda cfg: cfg.moe_dp_size > 1 and cfg.tp_size % cfg.moe_dp_size == 0
    and cfg.ep_size * cfg.moe_dp_size > cfg.tp_size and cfg.dwdp_size <= 1 and served(cfg.model_path),
    at=("moe_dp_size", "ep_size"),
    message="`--ep-size {ep_size}` times `--moe-dp-size {moe_dp_size}` exceeds `--tp-size {tp_size}`",
    fix=remove("moe_dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --ep-size 4 --moe-dp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --ep-size 4",
)

rule(
    code="SGL412",
    name="moe-dp-size-with-pipeline-parallelism",
    errors="117a750e588f",
    when=lambda cfg: cfg.moe_dp_size > 1 and cfg.tp_size % cfg.moe_dp_size == 0
    and cfg.ep_size * cfg.moe_dp_size <= cfg.tp_size and cfg.pp_size != 1 and cfg.dwdp_size <= 1
    and served(cfg.model_path),
    at=("moe_dp_size", "pp_size"),
    message="`--moe-dp-size {moe_dp_size}` cannot be used with pipeline parallelism (`--pp-size {pp_size}`)",
    fix=remove("moe_dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dp-size 2 --pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --pp-size 2",
)

rule(
    code="SGL413",
    name="ep-size-times-moe-dp-size-not-tp-size",
    errors="5098b29df335",
    when=lambda cfg: cfg.moe_dp_size > 1 and cfg.tp_size % cfg.moe_dp_size == 0 and cfg.ep_size > 1
    and cfg.ep_size * cfg.moe_dp_size < cfg.tp_size and cfg.pp_size == 1 and cfg.dwdp_size <= 1
    and served(cfg.model_path),
    at=("moe_dp_size", "ep_size"),
    message="`--ep-size {ep_size}` times `--moe-dp-size {moe_dp_size}` must equal `--tp-size {tp_size}`",
    fix=remove("moe_dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 8 --ep-size 2 --moe-dp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 8 --ep-size 2",
)

rule(
    code="SGL414",
    name="moe-dp-size-differs-from-attn-cp-size",
    errors="1fc61536393c",
    when=lambda cfg: cfg.moe_dp_size != 1 and cfg.attn_cp_size != cfg.moe_dp_size and cfg.dwdp_size <= 1
    and _cp_layout_as_written(cfg) and served(cfg.model_path),
    at=("moe_dp_size", "attn_cp_size"),
    message="`--moe-dp-size {moe_dp_size}` other than 1 must equal `--attn-cp-size {attn_cp_size}`",
    fix=remove("moe_dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --moe-dp-size 1",
)

# -- decode context parallelism (handle_decode_context_parallelism) -------------

rule(
    code="SGL415",
    name="dcp-size-with-prefill-cp",
    errors="fa55a2aca7d4",
    when=lambda cfg: cfg.dcp_size > 1 and cfg.enable_prefill_cp and served(cfg.model_path),
    at=("dcp_size", "enable_prefill_cp"),
    message="`--dcp-size {dcp_size}` (decode context parallelism) cannot be used with `--enable-prefill-cp`",
    fix=remove("dcp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dcp-size 2 --enable-prefill-cp --cp-strategy zigzag",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-prefill-cp --cp-strategy zigzag",
)

# -- DWDP (handle_dwdp) -----------------------------------------------------------

rule(
    code="SGL416",
    name="dwdp-size-not-tp-size",
    errors="6610bd568e2d",
    when=lambda cfg: cfg.dwdp_size > 1 and cfg.dwdp_size != cfg.tp_size and served(cfg.model_path),
    at=("dwdp_size", "tp_size"),
    message="`--dwdp-size {dwdp_size}` must equal `--tp-size {tp_size}`",
    fix=set_("dwdp_size", lambda cfg: str(cfg.tp_size)),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4",
)

rule(
    code="SGL417",
    name="dwdp-with-eplb",
    errors="7bd1652b5aa2",
    when=lambda cfg: cfg.dwdp_size > 1 and cfg.enable_eplb and served(cfg.model_path),
    at=("enable_eplb", "dwdp_size"),
    message="`--enable-eplb` (dynamic expert migration) cannot be used with DWDP (`--dwdp-size {dwdp_size}`)",
    fix=remove("enable_eplb"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4 --enable-eplb",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4",
)

rule(
    code="SGL418",
    name="dwdp-with-pipeline-parallelism",
    errors="15397f21e84a",
    when=lambda cfg: cfg.dwdp_size > 1 and cfg.pp_size != 1 and cfg.get("dllm_algorithm", None) is None
    and served(cfg.model_path),
    at=("pp_size", "dwdp_size"),
    message="DWDP (`--dwdp-size {dwdp_size}`) needs `--pp-size 1`, got `--pp-size {pp_size}`",
    fix=remove("dwdp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4 --pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --pp-size 2",
)
