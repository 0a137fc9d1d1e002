"""The CUDA graph block of SGLang's `handle_elastic_ep` scale-up checks, for the walk in
elastic_ep.py: to 0.5.20 both phases disabled; from 0.5.21 the decode graph `full` or
`disabled`, the prefill graph `disabled`, and, with a `full` decode graph (recaptured after
each scale), none of the features its recapture cannot follow.

The phase backends are read as `parse_cuda_graph_config` reads them: the `--cuda-graph-config`
JSON over `--cuda-graph-backend-<phase>` over `--disable-<phase>-cuda-graph` over
`--disable-cuda-graph`; a phase none of them sets is resolved at start (unknown here). The
resolution never turns a phase the launch disabled back on, but it does turn a written `full`
or `breakable` phase off for some models, attention backends and features, so a conclusion
that needs a phase on holds only where none of those apply (`graphs_kept`).
"""

from __future__ import annotations

from autofix.model import Unresolvable

from ._common import json_value, on_nvidia

# Decoders no model override changes the CUDA graph phases (or is_embedding) for.
_PLAIN_DECODERS = ("Qwen2ForCausalLM", "Qwen3ForCausalLM", "LlamaForCausalLM")
# Attention backends whose handlers turn the decode graph off.
_EAGER_ATTENTION = ("torch_native", "flex_attention")


def phase_backend(cfg, phase: str) -> str:  # noqa: ANN001
    """The backend the launch gives a CUDA graph phase; unknown when it leaves it to SGLang."""
    config = json_value(cfg.cuda_graph_config)
    if config is not None:
        if not isinstance(config, dict):
            raise Unresolvable("--cuda-graph-config is refused by its own parser")
        settings = config.get(phase)
        if isinstance(settings, dict) and "backend" in settings:
            return str(settings["backend"])
    written = cfg.get(f"cuda_graph_backend_{phase}", None)
    if written is not None:
        return written
    if cfg.get(f"disable_{phase}_cuda_graph", False) or cfg.disable_cuda_graph:
        return "disabled"
    raise Unresolvable(f"the {phase} CUDA graph backend is resolved at start")


def graphs_kept(cfg) -> None:  # noqa: ANN001
    """Unknown unless the resolution keeps the written graph backends: a plain decoder, no
    eager attention backend, and none of the features that turn a phase off (multi-item
    scoring, msProbe and tensor dumps, KV sharding, the unified memory pool, LayerNorm SP's
    MegaMoE, DeepEP's normal mode, PD disaggregation, a diffusion LLM on ROCm)."""
    if cfg._launch.model.architecture not in _PLAIN_DECODERS:
        raise Unresolvable("the model's overrides may turn a CUDA graph phase off")
    backends = (cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    if any(b in _EAGER_ATTENTION for b in backends):
        raise Unresolvable("an eager attention backend turns the decode graph off")
    if cfg.get("enable_mis", False) or cfg.get("msprobe_dump_config", None) is not None \
            or cfg.get("debug_tensor_dump_output_folder", None) is not None \
            or cfg.get("enable_kv_cache_sharding", False) or cfg.get("enable_unified_memory", False) \
            or cfg.get("enable_layernorm_sp", False) or cfg.disaggregation_mode != "null" \
            or cfg.moe_a2a_backend == "deepep" or cfg.get("enable_waterfill", False):
        raise Unresolvable("a feature that turns a CUDA graph phase off")
    if cfg.dllm_algorithm is not None and not on_nvidia(cfg):
        raise Unresolvable("a diffusion LLM's CUDA graphs are turned off on ROCm")


def graph_refusal(cfg) -> str | None:  # noqa: ANN001, PLR0911
    """The catalogue id of the first assert of the CUDA graph block the launch fails
    (`other` for one no rule reports), or None when it passes them."""
    decode = phase_backend(cfg, "decode")
    if decode not in ("disabled", "full"):
        graphs_kept(cfg)
        return "cf3eb3925633"
    prefill = phase_backend(cfg, "prefill")
    if decode == prefill == "disabled":
        return None
    graphs_kept(cfg)
    if prefill != "disabled":
        return "be029fc324d3"
    if cfg.device not in (None, "cuda"):
        return "other"  # Elastic EP CUDA graph recapture requires CUDA
    if cfg.speculative_algorithm is not None:
        return "a1b7e35e3e75"
    if cfg.is_embedding:
        return "1681e4ab776f"
    if cfg.dllm_algorithm is not None:
        return "0486ef051a21"
    if cfg.encoder_only:
        return "058a2c8f94f2"
    if cfg.forward_hooks:
        return "27f6e539060f"
    if cfg.enable_pdmux:
        return "55455ea645b4"
    return None


def older_graph_refusal(cfg) -> str | None:  # noqa: ANN001
    """0.5.17-0.5.20: scale-up needs both CUDA graph phases disabled (834353edd3b0)."""
    for phase in ("decode", "prefill"):
        try:
            backend = phase_backend(cfg, phase)
        except Unresolvable:
            continue
        if backend != "disabled":
            graphs_kept(cfg)
            return "834353edd3b0"
    phase_backend(cfg, "decode"), phase_backend(cfg, "prefill")  # unknown unless both are written off
    return None
