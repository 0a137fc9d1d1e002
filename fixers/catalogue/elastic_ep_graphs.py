"""Catalogue rules: the CUDA graph checks of elastic EP scale-up (SGLang's `handle_elastic_ep`
in `parallel_hook.py`, 0.5.21 on).

Scale-up (`--max-ep-size` above `--tp-size`) needs the prefill CUDA graph off and the decode
graph `full` or `disabled`; a `full` decode graph is recaptured after each scale, which
speculative decoding, embedding, diffusion and encoder-only models, forward hooks and PDMux do
not support. The walk in elastic_ep.py reaches these asserts only where every earlier one
passes, and `_elastic_graphs.py` reads the phases; the rules report only launches that set the
phases with `--cuda-graph-backend-decode` / `--cuda-graph-backend-prefill` or the
`--disable-*cuda-graph` switches, where the fix can be spelled as a flag (a phase set in the
`--cuda-graph-config` JSON wins over both).
"""

from __future__ import annotations

from autofix.rules import remove, rule, set_

from .elastic_ep import _refuses

_SCALE_UP = ("--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
             "--ep-size 2 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 4 "
             "--load-balance-method round_robin")
_FULL = _SCALE_UP + " --cuda-graph-backend-decode full --cuda-graph-backend-prefill disabled"
_RECAPTURE = "the decode CUDA graph (`--cuda-graph-backend-decode full`) is recaptured after each elastic EP scale-up"

rule(
    code="SGL1258",
    name="elastic-ep-scale-up-breakable-decode-graph",
    errors="cf3eb3925633",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.cuda_graph_config is None
    and _refuses(cfg, "cf3eb3925633"),
    at=("cuda_graph_backend_decode", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) supports the decode CUDA graph backend `full` "
    "or `disabled`, got `{cuda_graph_backend_decode}`",
    fix=set_("cuda_graph_backend_decode", "full"),
    example=_SCALE_UP + " --cuda-graph-backend-decode breakable --cuda-graph-backend-prefill disabled",
    near_miss=_FULL,
)

rule(
    code="SGL1259",
    name="elastic-ep-scale-up-with-prefill-graph",
    errors="be029fc324d3",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.cuda_graph_config is None
    and _refuses(cfg, "be029fc324d3"),
    at=("cuda_graph_backend_prefill", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) requires the prefill CUDA graph to be disabled, "
    "got `--cuda-graph-backend-prefill {cuda_graph_backend_prefill}`",
    fix=set_("cuda_graph_backend_prefill", "disabled"),
    safe=True,
    example=_SCALE_UP + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill breakable",
    near_miss=_SCALE_UP + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
)

rule(
    code="SGL1260",
    name="elastic-ep-graph-recapture-with-speculative-decoding",
    errors="a1b7e35e3e75",
    when=lambda cfg: cfg.speculative_algorithm is not None and cfg.cuda_graph_config is None
    and _refuses(cfg, "a1b7e35e3e75"),
    at=("speculative_algorithm", "cuda_graph_backend_decode"),
    message=f"{_RECAPTURE}, which does not support speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`)",
    fix=remove("speculative_algorithm"),
    example=_FULL + " --speculative-algorithm NGRAM",
    near_miss=_FULL,
    note="The fix drops speculative decoding; turning the decode graph off instead "
    "(`--cuda-graph-backend-decode disabled`) also passes this check.",
)

rule(
    code="SGL1261",
    name="elastic-ep-graph-recapture-with-embedding-model",
    errors="1681e4ab776f",
    when=lambda cfg: cfg.is_embedding and cfg.cuda_graph_config is None and _refuses(cfg, "1681e4ab776f"),
    at=("is_embedding", "cuda_graph_backend_decode"),
    message=f"{_RECAPTURE}, which does not support embedding models (`--is-embedding`)",
    fix=set_("cuda_graph_backend_decode", "disabled"),
    example=_FULL + " --is-embedding",
    near_miss=_SCALE_UP + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled --is-embedding",
)

rule(
    code="SGL1262",
    name="elastic-ep-graph-recapture-with-diffusion-llm",
    errors="0486ef051a21",
    when=lambda cfg: cfg.dllm_algorithm is not None and cfg.cuda_graph_config is None
    and _refuses(cfg, "0486ef051a21"),
    at=("dllm_algorithm", "cuda_graph_backend_decode"),
    message=f"{_RECAPTURE}, which does not support diffusion models (`--dllm-algorithm {{dllm_algorithm}}`)",
    fix=set_("cuda_graph_backend_decode", "disabled"),
    gpu="b200",
    example=_FULL + " --dllm-algorithm LowConfidence",
    near_miss=_SCALE_UP + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled "
    "--dllm-algorithm LowConfidence",
)

# Not written: encoder-only (058a2c8f94f2). SGLang serves `--encoder-only` only for the
# multimodal architectures of encoder disaggregation, whose overrides may turn the decode
# graph off (the walk reads the phases only for plain decoders).

_HOOKS = " --forward-hooks '[{\"target_modules\": [\"model.layers.0\"], \"hook_factory\": \"my_hooks:make\"}]'"

rule(
    code="SGL1264",
    name="elastic-ep-graph-recapture-with-forward-hooks",
    errors="27f6e539060f",
    when=lambda cfg: bool(cfg.forward_hooks) and cfg.cuda_graph_config is None and _refuses(cfg, "27f6e539060f"),
    at=("forward_hooks", "cuda_graph_backend_decode"),
    message=f"{_RECAPTURE}, which does not support forward hooks (`--forward-hooks`)",
    fix=set_("cuda_graph_backend_decode", "disabled"),
    example=_FULL + _HOOKS,
    near_miss=_SCALE_UP + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled" + _HOOKS,
)

_PDMUX = " --enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule"

rule(
    code="SGL1265",
    name="elastic-ep-graph-recapture-with-pdmux",
    errors="55455ea645b4",
    when=lambda cfg: cfg.enable_pdmux and cfg.cuda_graph_config is None and _refuses(cfg, "55455ea645b4"),
    at=("enable_pdmux", "cuda_graph_backend_decode"),
    message=f"{_RECAPTURE}, which does not support PD-Multiplexing (`--enable-pdmux`)",
    fix=set_("cuda_graph_backend_decode", "disabled"),
    example=_FULL + _PDMUX,
    near_miss=_SCALE_UP + " --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled" + _PDMUX,
)
