"""Catalogue rules: the page-major KV layout's backend set (`kv_cache_hook.py`,
`handle_page_major_kv_layout`) and MegaMoE's per-rank token budget (`mega_moe_hook.py`,
`validate_mega_moe_token_budget`)."""

from __future__ import annotations

from autofix.rules import known, remove, rule, set_
from ._common import on_nvidia, served
from .attention_moe_more import _a2a, _attn_dp, _mega_moe_budget

# Not written: --decoupled-spec-role without its endpoints and rank (1d06068948fa). SGLang
# checks it in PortArgs.init_new, at engine start; judging that on every launch also runs its
# address parsing, which refuses multi-node near misses for want of --dist-init-addr, outside
# the resolution the judge models.

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
    when=lambda cfg: served(cfg.model_path) and on_nvidia(cfg)
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

# -- handle_page_major_kv_layout (kv_cache_hook.py, after handle_cache_compatibility) --
# --enable-unified-memory turns the page-major layout on (without it the layout is refused by
# another assert first). The allowed set depends on the model (MLA, asymmetric K/V, other), so
# only a backend outside all three sets is reported, and only for plain decoders whose model
# overrides leave an explicit backend alone (other models' overrides, HRM-Text's triton force and
# the diffusion-LLM backends may move it). A backend left unset is SGLang's choice: quiet.

_PAGE_MAJOR_BACKENDS = frozenset({"triton", "fa3", "fa4", "flashinfer", "trtllm_mha",
                                  "trtllm_mla", "cutedsl_mla", "flashmla"})
_BACKEND_ALIASES = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}
_PLAIN_DECODERS = ("Qwen2ForCausalLM", "Qwen3ForCausalLM", "LlamaForCausalLM")


def _outside_page_major(attention: object, prefill: object, decode: object) -> bool:
    """A prefill or decode backend SGLang will run (split fields fall back to the base one)
    that no page-major allowed set holds."""
    resolved = (_BACKEND_ALIASES.get(b, b) for b in (prefill or attention, decode or attention))
    return any(b is not None and b not in _PAGE_MAJOR_BACKENDS for b in resolved)


rule(
    code="SGL872",
    name="page-major-kv-layout-with-unsupported-attention-backend",
    errors="dc96055136ab",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_unified_memory
    and cfg.model.architecture in _PLAIN_DECODERS and cfg.dllm_algorithm is None
    and cfg.device in (None, "cuda") and "fp4" not in str(cfg.kv_cache_dtype)
    and _outside_page_major(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend),
    at=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
    message="`--enable-unified-memory` (page-major KV layout) supports only the triton, fa3, fa4, flashinfer "
    "and trtllm_mha attention backends (MLA models: triton, fa3, flashinfer, trtllm_mla, cutedsl_mla, "
    "flashmla); pass a compatible `--attention-backend`",
    fix=(remove("prefill_attention_backend"), remove("decode_attention_backend"),
         set_("attention_backend", "triton")),
    example="--model-path deepseek-ai/DeepSeek-R1-Distill-Llama-8B --enable-unified-memory --attention-backend torch_native",
    near_miss="--model-path deepseek-ai/DeepSeek-R1-Distill-Llama-8B --enable-unified-memory --attention-backend triton",
)
