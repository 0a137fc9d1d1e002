"""Catalogue rules: the last flag-only checks of three SGLang areas: the page-major KV layout's
backend set (`kv_cache_hook.py`, `handle_page_major_kv_layout`), MegaMoE's per-rank token budget
(`mega_moe_hook.py`, `validate_mega_moe_token_budget`) and the endpoints of decoupled speculative
decoding (`server_args.py`, `PortArgs.init_new`)."""

from __future__ import annotations

from autofix.rules import remove, rule

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
