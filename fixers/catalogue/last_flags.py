"""Catalogue rules: the last flag-only checks of three SGLang areas: the page-major KV layout's
backend set (`kv_cache_hook.py`, `handle_page_major_kv_layout`), MegaMoE's per-rank token budget
(`mega_moe_hook.py`, `validate_mega_moe_token_budget`) and the endpoints of decoupled speculative
decoding (`server_args.py`, `PortArgs.init_new`)."""

from __future__ import annotations

from autofix.rules import known, remove, rule, set_
from ._common import served
from .attention_moe_more import _a2a, _attn_dp, _mega_moe_budget, _nvidia

# -- PortArgs.init_new (server_args.py) ----------------------------------------------
# Runs when the server starts, after resolution: a role other than null needs all three endpoints.

rule(
    code="SGL870",
    name="decoupled-spec-role-without-endpoints",
    errors="1d06068948fa",
    when=lambda cfg: cfg.decoupled_spec_role != "null"
    and (cfg.decoupled_spec_bind_endpoint is None or cfg.decoupled_spec_connect_endpoints is None
         or cfg.decoupled_spec_rank is None),
    at="decoupled_spec_role",
    message="`--decoupled-spec-role {decoupled_spec_role}` needs `--decoupled-spec-bind-endpoint`, "
    "`--decoupled-spec-connect-endpoints` and `--decoupled-spec-rank` all set",
    fix=remove("decoupled_spec_role"),
    example="--model-path Qwen/Qwen3-8B --decoupled-spec-role verifier --decoupled-spec-rank 0",
    near_miss="--model-path Qwen/Qwen3-8B --decoupled-spec-role verifier --decoupled-spec-rank 0 "
    "--decoupled-spec-bind-endpoint tcp://127.0.0.1:30100 "
    "--decoupled-spec-connect-endpoints '[\"tcp://127.0.0.1:30200\"]'",
)

# -- validate_mega_moe_token_budget (mega_moe_hook.py, after speculative) ------------
# Where SGL647 (attention_moe_more.py) leaves off: handle_data_parallelism has already made
# --chunked-prefill-size the per-rank share C // D (D the attention-DP width) and SGL647 refuses a
# share below one; under attention DP SGLang then divides that share by D once more. Prefill CP
# rounds up instead (never below one), so it cannot reach this error (_a2a stays quiet there).

_MEGA_DP = "--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --moe-a2a-backend megamoe " \
    "--quantization modelopt_fp4"


def _twice_divided(chunked_prefill_size: object, width: int) -> bool:
    """The share handle_data_parallelism leaves is positive, and its share per attention-DP rank is not."""
    share = known(chunked_prefill_size) // width
    return share > 0 and share // width <= 0


rule(
    code="SGL871",
    name="megamoe-attention-dp-chunk-below-one-token-per-rank",
    errors="aa4bcde808aa",
    when=lambda cfg: served(cfg.model_path) and _nvidia(cfg)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "megamoe"
    and _mega_moe_budget(cfg.model_path, cfg.model.architecture, cfg.quantization, cfg.encoder_only,
                         cfg.disaggregation_mode, cfg.pp_size, cfg.enable_dynamic_chunking)
    and _twice_divided(cfg.chunked_prefill_size, _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size,
                                                          cfg.enable_dp_attention)),
    at="chunked_prefill_size",
    message="MegaMoE (`--moe-a2a-backend megamoe`) needs at least one prefill token per attention-DP rank: "
    "`--chunked-prefill-size {chunked_prefill_size}` is divided by the attention-DP width twice (once into "
    "the per-rank share, once more by MegaMoE), leaving none; use at least the width squared",
    fix=set_("chunked_prefill_size", lambda cfg: str(max(4096, _attn_dp(
        cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) ** 2))),
    gpu="b200",
    example=_MEGA_DP + " --chunked-prefill-size 32",
    near_miss=_MEGA_DP + " --chunked-prefill-size 4096",
)
