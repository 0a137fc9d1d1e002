"""Catalogue rules: the asserts of SGLang's `handle_elastic_ep` that older releases word
differently (`ServerArgs._handle_elastic_ep` in 0.5.17/0.5.18), reached by the same walk
(`_elastic_refusal` in elastic_ep.py) as the rules of later releases.

Up to 0.5.21 scale-up asks for `--enable-dp-attention` (later: `--attn-dp-size`), up to 0.5.22
for the EP size equal to the TP size under the built-in TP MoE, and up to 0.5.22 for the DP
(0.5.22: attention-DP) width equal to the TP size; up to 0.5.20 the deprecated
`--elastic-ep-rejoin` conflicts with an explicit join mode; 0.5.17/0.5.18 assert a positive
initial EP size without a message, and up to 0.5.20 scale-up needs both CUDA graph phases off.
"""

from __future__ import annotations

from autofix.rules import remove, rule, set_

from .elastic_ep import _SCALE_JOIN, _SCALE_UP, _refuses

rule(
    code="SGL1270",
    name="elastic-ep-rejoin-with-join-mode",
    errors="4f5de845e623",
    when=lambda cfg: cfg.elastic_ep_rejoin and cfg.ep_join_mode is not None and _refuses(cfg, "4f5de845e623"),
    at=("elastic_ep_rejoin", "ep_join_mode"),
    message="`--elastic-ep-rejoin` (deprecated, the same as `--elastic-ep-join-mode recover`) conflicts with "
    "`--elastic-ep-join-mode {ep_join_mode}`",
    fix=remove("elastic_ep_rejoin"),
    example=_SCALE_JOIN + " --elastic-ep-initial-size 2 --elastic-ep-rejoin",
    near_miss=_SCALE_JOIN + " --elastic-ep-initial-size 2",
)

rule(
    code="SGL1271",
    name="elastic-ep-scale-up-without-enable-dp-attention",
    errors="32f34ff833bd",
    when=lambda cfg: cfg.max_ep_size is not None and _refuses(cfg, "32f34ff833bd"),
    at=("max_ep_size", "enable_dp_attention"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--enable-dp-attention` with `--dp-size` "
    "above 1: without it the TP group is not WORLD and the collectives after a scale are invalid",
    example="--model-path Qwen/Qwen3-8B --tp-size 1 --moe-a2a-backend nixl --elastic-ep-backend mooncake "
    "--max-ep-size 4 --load-balance-method round_robin --disable-cuda-graph",
    near_miss=_SCALE_UP,
)

rule(
    code="SGL1272",
    name="elastic-ep-scale-up-ep-size-not-tp-size-older",
    errors="973b58d4964b",
    when=lambda cfg: cfg.ep_size != cfg.tp_size and _refuses(cfg, "973b58d4964b"),
    at=("ep_size", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--ep-size` equal to `--tp-size {tp_size}`, "
    "got `--ep-size {ep_size}`",
    example=_SCALE_UP.replace(" --moe-a2a-backend nixl", "").replace("--ep-size 2", "--ep-size 1"),
    near_miss=_SCALE_UP.replace("--ep-size 2", "--ep-size 1"),
)

rule(
    code="SGL1273",
    name="elastic-ep-scale-up-dp-size-not-tp-size",
    errors=("da3110115312", "ffac8fbb5404"),
    when=lambda cfg: cfg.max_ep_size is not None and (_refuses(cfg, "da3110115312") or _refuses(cfg, "ffac8fbb5404")),
    at=("dp_size", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs the attention-DP width (`--dp-size` with "
    "`--enable-dp-attention`) equal to `--tp-size {tp_size}`, got {dp_size}",
    example=_SCALE_UP.replace("--tp-size 2 --dp-size 2", "--tp-size 4 --dp-size 2").replace("--ep-size 2", "--ep-size 4")
    .replace("--max-ep-size 4", "--max-ep-size 8"),
    near_miss=_SCALE_UP.replace("--tp-size 2 --dp-size 2", "--tp-size 4 --dp-size 4").replace("--ep-size 2", "--ep-size 4")
    .replace("--max-ep-size 4", "--max-ep-size 8"),
)

rule(
    code="SGL1274",
    name="elastic-ep-initial-size-not-positive-older",
    errors="8e7e4b3e239b",
    # The walk names the assert by its later catalogue id (c2594300e9c0, which has a message).
    when=lambda cfg: cfg.elastic_ep_initial_size is not None and cfg.elastic_ep_initial_size <= 0
    and _refuses(cfg, "c2594300e9c0"),
    at="elastic_ep_initial_size",
    message="`--elastic-ep-initial-size` must be above 0, got {elastic_ep_initial_size}",
    example=_SCALE_JOIN + " --elastic-ep-initial-size 0",
    near_miss=_SCALE_JOIN + " --elastic-ep-initial-size 2",
)

_NO_GRAPHS = _SCALE_UP.replace(" --disable-cuda-graph", "")

rule(
    code="SGL1295",
    name="elastic-ep-scale-up-with-cuda-graphs-older",
    errors="834353edd3b0",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.cuda_graph_config is None
    and _refuses(cfg, "834353edd3b0"),
    at=("cuda_graph_backend_decode", "cuda_graph_backend_prefill", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) requires both CUDA graph phases disabled",
    fix=(set_("cuda_graph_backend_decode", "disabled"), set_("cuda_graph_backend_prefill", "disabled")),
    safe=True,
    example=_NO_GRAPHS + " --cuda-graph-backend-decode full --cuda-graph-backend-prefill disabled",
    near_miss=_NO_GRAPHS + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
)
