"""Catalogue rules: more MoE and attention checks (SGLang's `moe_hook.py`
`handle_moe_kernel_config`, `handle_a2a_moe`, `handle_flashinfer_a2a_dispatch_type`,
`validate_flashinfer_a2a_token_budget`; `attention_hook.py` `handle_linear_attn_backend`;
`layernorm_sp_hook.py` `handle_layernorm_sp` / `validate_layernorm_sp`; `mega_moe_hook.py`
`validate_mega_moe_token_budget`; `overrides.py` `_check_dsa_backend_constraints`,
`_dp_lm_head_validation`; `lora_hook.py` `check_lora_moe_runner_args`).

The rules in `moe_attention.py` (SGL600-613) cover the rest of these hooks.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import known, remove, rule, set_

from ._common import on_nvidia, served


def _lora_runner(backend: str, quantization: object) -> bool:
    """`--moe-runner-backend lora_*` as check_lora_moe_runner_args reads it: only the
    megamoe alias and mxfp8's runner constraint (which replaces a lora_* runner with
    flashinfer_trtllm) rewrite an explicit runner before it."""
    return backend.startswith("lora") and quantization != "mxfp8"


def _lora_on(enable_lora: object, lora_paths: object, dllm_algorithm: object) -> bool:
    """enable_lora as check_lora_server_args leaves it: `--lora-paths` turns an unset
    `--enable-lora` on; a diffusion LLM turns it off first (the rules stay quiet there)."""
    if dllm_algorithm is not None:
        raise Unresolvable("diffusion LLM inference turns LoRA off")
    return enable_lora is True or (enable_lora is None and bool(lora_paths))


def _quant(quantization: object, model_path: object) -> object:
    """A written --quantization as the MoE checks read it: `unquant` is None by then;
    Nemotron-H's override and a GGUF checkpoint rewrite it (quiet for those models)."""
    if "nemotron" in str(model_path).lower() or str(model_path).lower().endswith(".gguf"):
        raise Unresolvable("the checkpoint sets --quantization")
    return None if quantization == "unquant" else quantization


def _a2a(backend: str, runner: str, dwdp_size: int, waterfill: bool, prefill_cp: bool) -> str:
    """The MoE a2a backend handle_a2a_moe reads, from what the launch says: the megamoe
    runner alias picks megamoe, DWDP turns it off, Waterfill turns it into deepep;
    prefill CP on DeepSeek models may pick deepep (quiet there)."""
    if prefill_cp:
        raise Unresolvable("prefill CP may pick deepep")
    if runner == "megamoe":
        backend = "megamoe"
    if dwdp_size > 1:
        backend = "none"
    if waterfill and backend not in ("deepep", "megamoe"):
        backend = "deepep"
    return backend


def _attn_dp(attn_dp_size: int, dp_size: int, enable_dp_attention: bool) -> int:
    """The attention-DP width SGLang resolves: `--attn-dp-size` (0.5.22 on), else `--dp-size`
    with `--enable-dp-attention` (before 0.5.22, and its deprecated spelling after); 1 without."""
    if attn_dp_size > 1:
        return attn_dp_size
    return dp_size if enable_dp_attention else 1


_LORA = "--moe-runner-backend lora_triton --enable-lora --lora-backend triton_v2 " \
    "--max-lora-rank 16 --lora-target-modules all"

# -- LoRA MoE runners (check_lora_moe_runner_args, run by check_server_args) --------

rule(
    code="SGL620",
    name="lora-speculative-moe-runner-backend",
    errors="5e6f0e3ef99c",
    when=lambda cfg: cfg.speculative_algorithm is not None and cfg.speculative_algorithm.upper() != "NONE"
    and not cfg.enable_return_aux_hidden_states
    and cfg.speculative_moe_runner_backend is not None and cfg.speculative_moe_runner_backend.startswith("lora"),
    at="speculative_moe_runner_backend",
    message="`--speculative-moe-runner-backend {speculative_moe_runner_backend}` is not supported: the LoRA "
    "MoE runner serves adapter traffic on the target model, and the draft model has no adapters",
    fix=remove("speculative_moe_runner_backend"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --speculative-moe-runner-backend lora_triton",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --speculative-moe-runner-backend triton",
)

rule(
    code="SGL621",
    name="lora-moe-runner-without-lora",
    errors="7a88aee680d3",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and not _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm),
    at="moe_runner_backend",
    message="`--moe-runner-backend {moe_runner_backend}` requires `--enable-lora` (or `--lora-paths`)",
    fix=remove("moe_runner_backend"),
    example="--model-path Qwen/Qwen3-8B --moe-runner-backend lora_triton --lora-backend triton_v2 "
    "--max-lora-rank 16 --lora-target-modules all",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA,
)

rule(
    code="SGL622",
    name="lora-moe-runner-without-triton-v2-lora-backend",
    errors="461fcaf855a6",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_backend != "triton_v2",
    at=("lora_backend", "moe_runner_backend"),
    message="`--moe-runner-backend {moe_runner_backend}` requires `--lora-backend triton_v2`, "
    "got `--lora-backend {lora_backend}`",
    fix=set_("lora_backend", "triton_v2"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --moe-runner-backend lora_triton --enable-lora "
    "--max-lora-rank 16 --lora-target-modules all",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA,
)

rule(
    code="SGL623",
    name="lora-moe-runner-with-unsupported-quantization",
    errors="d71735b0fe76",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_backend == "triton_v2"
    and _quant(cfg.quantization, cfg.model_path) not in (None, "fp8", "modelopt_fp4"),
    at=("quantization", "moe_runner_backend"),
    message="`--moe-runner-backend {moe_runner_backend}` supports unquantized BF16, 128-block FP8 and "
    "ModelOpt NVFP4 MoE, not `--quantization {quantization}`",
    example="--model-path Qwen/Qwen3-8B " + _LORA + " --quantization awq",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA + " --quantization fp8",
)

rule(
    code="SGL624",
    name="lora-moe-runner-nvfp4-without-lora-marlin",
    errors="ade2d382e8b6",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_backend == "triton_v2"
    and _quant(cfg.quantization, cfg.model_path) == "modelopt_fp4"
    and cfg.moe_runner_backend != "lora_marlin",
    at="moe_runner_backend",
    message="`--moe-runner-backend {moe_runner_backend}` cannot run ModelOpt NVFP4 MoE "
    "(`--quantization modelopt_fp4`); use `--moe-runner-backend lora_marlin`",
    fix=set_("moe_runner_backend", "lora_marlin"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B " + _LORA + " --quantization modelopt_fp4",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA.replace("lora_triton", "lora_marlin")
    + " --quantization modelopt_fp4",
)

rule(
    code="SGL625",
    name="lora-moe-runner-with-a2a-backend",
    errors="4d0c4e82a725",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_backend == "triton_v2"
    and _quant(cfg.quantization, cfg.model_path) in (None, "fp8", "modelopt_fp4")
    and (_quant(cfg.quantization, cfg.model_path) != "modelopt_fp4" or cfg.moe_runner_backend == "lora_marlin")
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    not in ("none", "ascend_tp"),
    at="moe_a2a_backend",
    message="`--moe-runner-backend {moe_runner_backend}` requires standard dispatch "
    "(`--moe-a2a-backend none`), got `--moe-a2a-backend {moe_a2a_backend}`",
    fix=remove("moe_a2a_backend"),
    example="--model-path Qwen/Qwen3-8B " + _LORA + " --moe-a2a-backend deepep",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA + " --moe-a2a-backend none",
)

rule(
    code="SGL626",
    name="lora-moe-runner-with-elastic-ep",
    errors="2c24918c8bbf",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_backend == "triton_v2"
    and _quant(cfg.quantization, cfg.model_path) in (None, "fp8", "modelopt_fp4")
    and (_quant(cfg.quantization, cfg.model_path) != "modelopt_fp4" or cfg.moe_runner_backend == "lora_marlin")
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    in ("none", "ascend_tp")
    and cfg.ep_join_mode is not None,
    at="ep_join_mode",
    message="`--moe-runner-backend {moe_runner_backend}` does not yet support elastic EP "
    "(`--elastic-ep-join-mode {ep_join_mode}`)",
    fix=remove("ep_join_mode"),
    example="--model-path Qwen/Qwen3-8B " + _LORA + " --elastic-ep-join-mode recover",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA,
)

rule(
    code="SGL627",
    name="lora-moe-runner-with-nontrivial-expert-placement",
    errors="7fde3a4c960c",
    when=lambda cfg: _lora_runner(cfg.moe_runner_backend, cfg.quantization)
    and _lora_on(cfg.enable_lora, cfg.lora_paths, cfg.dllm_algorithm) and cfg.lora_backend == "triton_v2"
    and _quant(cfg.quantization, cfg.model_path) in (None, "fp8", "modelopt_fp4")
    and (_quant(cfg.quantization, cfg.model_path) != "modelopt_fp4" or cfg.moe_runner_backend == "lora_marlin")
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    in ("none", "ascend_tp")
    and cfg.ep_join_mode is None
    and (cfg.enable_eplb or cfg.init_expert_location != "trivial" or cfg.ep_num_redundant_experts > 0),
    at=("enable_eplb", "ep_num_redundant_experts", "init_expert_location"),
    message="`--moe-runner-backend {moe_runner_backend}` requires trivial expert placement: no `--enable-eplb`, "
    "`--init-expert-location` or `--ep-num-redundant-experts`",
    example="--model-path Qwen/Qwen3-8B " + _LORA + " --ep-num-redundant-experts 2",
    near_miss="--model-path Qwen/Qwen3-8B " + _LORA + " --ep-num-redundant-experts 0",
)

# -- LM head under attention DP (_dp_lm_head_validation, in handle_data_parallelism) --
# DWDP and prefill CP on DeepSeek models rewrite the DP layout first: quiet there.

rule(
    code="SGL628",
    name="tp-lm-head-all-to-all-with-dp-lm-head",
    errors="916cd2c3f8d3",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_tp_lm_head_all_to_all and cfg.enable_dp_lm_head
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at=("enable_tp_lm_head_all_to_all", "enable_dp_lm_head"),
    message="`--enable-tp-lm-head-all-to-all` uses a TP-sharded LM head and cannot be used with "
    "`--enable-dp-lm-head`",
    fix=remove("enable_tp_lm_head_all_to_all"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --enable-dp-lm-head "
    "--enable-tp-lm-head-all-to-all",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --enable-tp-lm-head-all-to-all",
)

rule(
    code="SGL629",
    name="tp-lm-head-all-to-all-with-attn-cp",
    errors="0eece7cc84e6",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_tp_lm_head_all_to_all and not cfg.enable_dp_lm_head
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and cfg.tp_size == _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention)
    and cfg.attn_cp_size != 1 and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp,
    at=("attn_cp_size", "enable_tp_lm_head_all_to_all"),
    message="`--enable-tp-lm-head-all-to-all` requires `--attn-cp-size 1`, got `--attn-cp-size {attn_cp_size}`",
    fix=remove("attn_cp_size"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --attn-cp-size 2 "
    "--enable-tp-lm-head-all-to-all",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --attn-cp-size 1 "
    "--enable-tp-lm-head-all-to-all",
)

# -- DeepEP v2 (handle_a2a_moe) ----------------------------------------------------
# validate_deepep_v2_model_architecture runs first: an instance-connector model path,
# then architectures other than the registered ones are refused with their own message.

_DEEPEP_V2_MODELS = ("DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM")
# DeepEP v2's dispatch buffer holds 128 tokens per rank unless an environment variable says more.
_V2 = "--model-path deepseek-ai/DeepSeek-V3 --tp 8 --moe-a2a-backend deepep_v2 --chunked-prefill-size 128 " \
    "--max-running-requests 128"


def _deepep_v2_model(model_path: object, architecture: str | None) -> bool:
    """The served model passes validate_deepep_v2_model_architecture (registered in every release)."""
    return not str(model_path).startswith("instance://") and architecture in _DEEPEP_V2_MODELS


def _deep_gemm(runner: str, quantization: object) -> bool:
    """The runner resolves to deep_gemm under DeepEP v2: written, or auto where no
    quantization constraint picks a FlashInfer runner first."""
    return runner == "deep_gemm" or (runner == "auto" and quantization not in ("mxfp8", "nvfp4_online", "modelopt_fp4"))


rule(
    code="SGL630",
    name="deepep-v2-with-instance-connector",
    errors="e72743638dc6",
    when=lambda cfg: served(cfg.model_path) and str(cfg.model_path).startswith("instance://")
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "deepep_v2",
    at=("moe_a2a_backend", "model_path"),
    message="`--moe-a2a-backend deepep_v2` cannot validate a model loaded through an instance connector "
    "(`--model-path {model_path}`); load it from a model path or use `--moe-a2a-backend deepep`",
    fix=set_("moe_a2a_backend", "deepep"),
    safe=True,
    example="--model-path instance://10.0.0.1:30000 --served-model-name remote --tp 8 --moe-a2a-backend deepep_v2",
    near_miss="--model-path instance://10.0.0.1:30000 --served-model-name remote --tp 8 --moe-a2a-backend deepep",
)

rule(
    code="SGL631",
    name="deepep-v2-with-non-deep-gemm-moe-runner",
    errors="b362ebd69f88",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "deepep_v2" and _deepep_v2_model(cfg.model_path, cfg.model.architecture)
    and cfg.moe_runner_backend not in ("auto", "deep_gemm"),
    at="moe_runner_backend",
    message="`--moe-a2a-backend deepep_v2` only supports `--moe-runner-backend deep_gemm`, "
    "got `--moe-runner-backend {moe_runner_backend}`",
    fix=set_("moe_runner_backend", "deep_gemm"),
    safe=True,
    example=_V2 + " --moe-runner-backend triton",
    near_miss=_V2 + " --moe-runner-backend deep_gemm",
)

rule(
    code="SGL632",
    name="deepep-v2-with-batch-overlap",
    errors="27c79179c2e5",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "deepep_v2" and _deepep_v2_model(cfg.model_path, cfg.model.architecture)
    and _deep_gemm(cfg.moe_runner_backend, cfg.quantization)
    and (cfg.enable_two_batch_overlap or cfg.enable_single_batch_overlap),
    at=("enable_two_batch_overlap", "enable_single_batch_overlap"),
    message="`--moe-a2a-backend deepep_v2` has no two-batch / single-batch overlap hooks yet: drop "
    "`--enable-two-batch-overlap` and `--enable-single-batch-overlap`",
    fix=(remove("enable_two_batch_overlap"), remove("enable_single_batch_overlap")),
    safe=True,
    example=_V2 + " --enable-two-batch-overlap",
    near_miss=_V2,
)

rule(
    code="SGL633",
    name="deepep-v2-with-shared-experts-fusion",
    errors="5db72ccab238",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "deepep_v2" and _deepep_v2_model(cfg.model_path, cfg.model.architecture)
    and _deep_gemm(cfg.moe_runner_backend, cfg.quantization)
    and not cfg.enable_two_batch_overlap and not cfg.enable_single_batch_overlap
    and cfg.enforce_shared_experts_fusion,
    at="enforce_shared_experts_fusion",
    message="`--moe-a2a-backend deepep_v2` has not validated fused shared experts: remove "
    "`--enforce-shared-experts-fusion`",
    fix=remove("enforce_shared_experts_fusion"),
    safe=True,
    example=_V2 + " --enforce-shared-experts-fusion",
    near_miss=_V2,
)

rule(
    code="SGL634",
    name="deepep-v2-direct-mode-across-nodes",
    errors="43a034702e6e",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "deepep_v2" and _deepep_v2_model(cfg.model_path, cfg.model.architecture)
    and _deep_gemm(cfg.moe_runner_backend, cfg.quantization)
    and not cfg.enable_two_batch_overlap and not cfg.enable_single_batch_overlap
    and not cfg.enforce_shared_experts_fusion and cfg.deepep_v2_mode == "direct" and cfg.nnodes > 1,
    at=("deepep_v2_mode", "nnodes"),
    message="`--deepep-v2-mode direct` is NVLink-only and cannot run across nodes (`--nnodes {nnodes}`); "
    "use `--deepep-v2-mode hybrid`",
    fix=set_("deepep_v2_mode", "hybrid"),
    safe=True,
    example="--model-path deepseek-ai/DeepSeek-V3 --tp 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 "
    "--moe-a2a-backend deepep_v2 --chunked-prefill-size 128 --max-running-requests 128",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 "
    "--moe-a2a-backend deepep_v2 --chunked-prefill-size 128 --max-running-requests 128 --deepep-v2-mode hybrid",
)

# -- FlashInfer MegaMOE (handle_a2a_moe) -------------------------------------------
# validate_flashinfer_megamoe_model runs first: the architectures SGLang validated
# (every release's list holds these) and an MXFP8 or ModelOpt NVFP4 --quantization
# (other checkpoints are known only from their config: quiet there).

_MEGAMOE_MODELS = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
                   "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM")
_FI_MEGAMOE = "--model-path nvidia/DeepSeek-R1-FP4 --tp 8 --moe-a2a-backend flashinfer_megamoe " \
    "--quantization modelopt_fp4"

rule(
    code="SGL635",
    name="flashinfer-megamoe-without-full-attention-dp",
    errors="3f711dd3500e",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer_megamoe" and cfg.model.architecture in _MEGAMOE_MODELS
    and cfg.quantization in ("mxfp8", "modelopt_fp4") and cfg.ep_join_mode != "scale"
    and not (_attn_dp(cfg.attn_dp_size, cfg.dp_size, cfg.enable_dp_attention) > 1
             and _attn_dp(cfg.attn_dp_size, cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size),
    at=("moe_a2a_backend", "attn_dp_size"),
    message="`--moe-a2a-backend flashinfer_megamoe` is only supported with `--attn-dp-size` equal to "
    "`--tp-size {tp_size}`",
    example=_FI_MEGAMOE,
    near_miss=_FI_MEGAMOE + " --attn-dp-size 8",
    note="No automatic fix: attention DP over all `--tp-size` ranks (`--attn-dp-size` equal to it) changes "
    "how the model is laid out, and drops the `--dp-size` replicas a launch may also ask for.",
)

rule(
    code="SGL636",
    name="flashinfer-megamoe-a2a-with-other-moe-runner",
    errors="bc2c04f6d3ca",
    # mxfp8 replaces a runner it does not support with flashinfer_megamoe first.
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer_megamoe" and cfg.model.architecture in _MEGAMOE_MODELS
    and cfg.quantization in ("mxfp8", "modelopt_fp4")
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and cfg.moe_runner_backend not in ("auto", "flashinfer_megamoe")
    and (cfg.quantization != "mxfp8"
         or cfg.moe_runner_backend in ("cutlass", "deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_routed")),
    at="moe_runner_backend",
    message="`--moe-a2a-backend flashinfer_megamoe` requires `--moe-runner-backend flashinfer_megamoe`, "
    "got `--moe-runner-backend {moe_runner_backend}`",
    fix=set_("moe_runner_backend", "flashinfer_megamoe"),
    safe=True,
    example=_FI_MEGAMOE + " --dp 8 --enable-dp-attention --moe-runner-backend flashinfer_trtllm",
    near_miss=_FI_MEGAMOE + " --dp 8 --enable-dp-attention --moe-runner-backend flashinfer_megamoe",
)

# -- pplx (handle_a2a_moe) -----------------------------------------------------------

_PPLX = "--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --moe-a2a-backend pplx " \
    "--chunked-prefill-size -1"

rule(
    code="SGL637",
    name="pplx-with-other-moe-runner",
    errors="d26de0920cf3",
    # Before it: --deepep-mode normal and fewer than 2 attention-DP groups are refused.
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "pplx" and cfg.deepep_mode != "normal"
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) >= 2
    and cfg.moe_runner_backend not in ("auto", "deep_gemm"),
    at="moe_runner_backend",
    message="`--moe-a2a-backend pplx` is only supported with `--moe-runner-backend deep_gemm` (or auto), "
    "got `--moe-runner-backend {moe_runner_backend}`",
    fix=set_("moe_runner_backend", "deep_gemm"),
    safe=True,
    example=_PPLX + " --moe-runner-backend triton",
    near_miss=_PPLX + " --moe-runner-backend deep_gemm",
)

# -- FlashInfer MoE A2A (handle_a2a_moe) ----------------------------------------------
# Before the runner check: attention DP over all TP ranks, and the dispatch type
# (handle_flashinfer_a2a_dispatch_type: mxfp8 dispatch needs the routed runner).

_FI_A2A = "--model-path Qwen/Qwen3-8B --tp 8 --dp 8 --enable-dp-attention --moe-a2a-backend flashinfer"
_FI_A2A_RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm", "flashinfer_trtllm_routed",
                   "deep_gemm")

rule(
    code="SGL638",
    name="flashinfer-a2a-with-unsupported-moe-runner",
    errors="4434e6e70d9f",
    # An auto runner may resolve to a FlashInfer one (quantization, checkpoint, GPU): only a
    # written runner is read; mxfp8 replaces the runners it does not support with flashinfer_trtllm.
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer"
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and (cfg.get("flashinfer_a2a_dispatch_type") in (None, "bf16")
         or (cfg.get("flashinfer_a2a_dispatch_type") == "auto" and cfg.quantization != "mxfp8"))
    and cfg.moe_runner_backend not in ("auto", *_FI_A2A_RUNNERS)
    and (cfg.quantization != "mxfp8" or cfg.moe_runner_backend in ("cutlass", "flashinfer_megamoe")),
    at="moe_runner_backend",
    message="`--moe-a2a-backend flashinfer` is supported with `--moe-runner-backend` flashinfer_cutlass, "
    "flashinfer_cutedsl, flashinfer_trtllm, flashinfer_trtllm_routed or deep_gemm, "
    "not `{moe_runner_backend}`",
    example=_FI_A2A + " --moe-runner-backend triton",
    near_miss=_FI_A2A + " --moe-runner-backend flashinfer_cutlass",
    note="No automatic fix: which FlashInfer runner fits depends on the checkpoint's quantization.",
)

# -- FlashInfer A2A dispatch type (handle_flashinfer_a2a_dispatch_type, from handle_a2a_moe) --
# Reached with `--moe-a2a-backend flashinfer` and a written --flashinfer-a2a-dispatch-type.
# An unset --quantization may be filled from the checkpoint first: these rules read a written one.

rule(
    code="SGL639",
    name="flashinfer-mxfp8-dispatch-without-mxfp8-quantization",
    errors="0f6d1f565f39",
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer"
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and cfg.flashinfer_a2a_dispatch_type == "mxfp8"
    and cfg.quantization is not None and _quant(cfg.quantization, cfg.model_path) != "mxfp8",
    at="flashinfer_a2a_dispatch_type",
    message="`--flashinfer-a2a-dispatch-type mxfp8` requires `--quantization mxfp8`, "
    "got `--quantization {quantization}`",
    fix=remove("flashinfer_a2a_dispatch_type"),
    example=_FI_A2A + " --moe-runner-backend flashinfer_cutlass --quantization modelopt_fp4 "
    "--flashinfer-a2a-dispatch-type mxfp8",
    near_miss=_FI_A2A + " --moe-runner-backend flashinfer_cutlass --quantization modelopt_fp4 "
    "--flashinfer-a2a-dispatch-type nvfp4",
)

rule(
    code="SGL640",
    name="flashinfer-mxfp8-dispatch-without-routed-moe-runner",
    errors="faab985a3a94",
    # Under mxfp8 an auto runner, and one mxfp8 does not support, become flashinfer_trtllm, which
    # handle_a2a_moe swaps for flashinfer_trtllm_routed before the dispatch type is checked.
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer"
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and cfg.flashinfer_a2a_dispatch_type in ("mxfp8", "auto") and _quant(cfg.quantization, cfg.model_path) == "mxfp8"
    and cfg.moe_runner_backend in ("cutlass", "deep_gemm", "flashinfer_megamoe"),
    at=("moe_runner_backend", "flashinfer_a2a_dispatch_type"),
    message="`--flashinfer-a2a-dispatch-type {flashinfer_a2a_dispatch_type}` (mxfp8 dispatch under "
    "`--quantization mxfp8`) requires `--moe-runner-backend flashinfer_trtllm_routed`, "
    "got `--moe-runner-backend {moe_runner_backend}`",
    fix=set_("moe_runner_backend", "flashinfer_trtllm_routed"),
    safe=True,
    example=_FI_A2A + " --quantization mxfp8 --moe-runner-backend deep_gemm --flashinfer-a2a-dispatch-type mxfp8",
    near_miss=_FI_A2A + " --quantization mxfp8 --moe-runner-backend flashinfer_trtllm_routed "
    "--flashinfer-a2a-dispatch-type mxfp8",
)

# -- FlashInfer A2A token budget (validate_flashinfer_a2a_token_budget, after speculative) --
# Not written here: the workspace-capacity check (95fdfab5a145), whose decode and prefill
# CUDA-graph sizes SGLang picks from the GPU and the speculative settings.

rule(
    code="SGL641",
    name="flashinfer-a2a-without-chunked-prefill",
    errors="2d030235264f",
    # handle_data_parallelism divides --chunked-prefill-size by the attention-DP width first;
    # an unset one is sized from the GPU (positive).
    when=lambda cfg: served(cfg.model_path)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "flashinfer"
    and _attn_dp(cfg.attn_dp_size, cfg.dp_size, cfg.enable_dp_attention) > 1
    and _attn_dp(cfg.attn_dp_size, cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size
    and cfg.flashinfer_a2a_dispatch_type in (None, "bf16") and cfg.moe_runner_backend in _FI_A2A_RUNNERS
    and cfg.disaggregation_mode != "decode"
    and known(cfg.chunked_prefill_size) // cfg.tp_size <= 0,
    at="chunked_prefill_size",
    message="`--moe-a2a-backend flashinfer` requires chunked prefill: `--chunked-prefill-size {chunked_prefill_size}` "
    "leaves no positive chunk per attention-DP rank (it is divided by {tp_size})",
    fix=remove("chunked_prefill_size"),
    example=_FI_A2A + " --moe-runner-backend flashinfer_cutlass --chunked-prefill-size -1",
    near_miss=_FI_A2A + " --moe-runner-backend flashinfer_cutlass --chunked-prefill-size 8192",
)

# -- MoE runner and quantization (handle_moe_kernel_config) ---------------------------
# The runner is the one written: mxfp8 replaces the runners it does not support and
# nvfp4_online refuses most (quiet for those); an unset --quantization may be filled from
# the checkpoint first, so these rules read a written one.

rule(
    code="SGL642",
    name="flashinfer-cutlass-moe-with-unsupported-quantization",
    errors="fe24bd3c3dde",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_runner_backend == "flashinfer_cutlass"
    and cfg.quantization not in (None, "mxfp8", "nvfp4_online")
    and _quant(cfg.quantization, cfg.model_path) not in ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None),
    at=("quantization", "moe_runner_backend"),
    message="`--moe-runner-backend flashinfer_cutlass` supports only `--quantization` modelopt_fp4, modelopt_fp8, "
    "modelopt_mixed or none (bfloat16), not `{quantization}`",
    example="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_cutlass --quantization fp8",
    near_miss="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_cutlass --quantization modelopt_fp8",
)

rule(
    code="SGL643",
    name="flashinfer-cutlass-or-cutedsl-moe-with-partial-expert-parallelism",
    errors="b2967037a763",
    # DWDP and prefill CP on DeepSeek models set --ep-size first.
    when=lambda cfg: served(cfg.model_path) and cfg.dwdp_size <= 1 and not cfg.enable_prefill_cp
    and cfg.ep_size not in (1, cfg.tp_size)
    and ((cfg.moe_runner_backend == "flashinfer_cutlass"
          and _quant(cfg.quantization, cfg.model_path) in ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed"))
         or (cfg.moe_runner_backend == "flashinfer_cutedsl"
             and _quant(cfg.quantization, cfg.model_path) in ("modelopt_fp4", "modelopt_mixed"))),
    at=("ep_size", "moe_runner_backend"),
    message="`--moe-runner-backend {moe_runner_backend}` needs `--ep-size` 1 or equal to `--tp-size {tp_size}`, "
    "got `--ep-size {ep_size}`",
    fix=remove("ep_size"),
    example="--model-path Qwen/Qwen3-8B --tp 8 --ep 4 --moe-runner-backend flashinfer_cutlass "
    "--quantization modelopt_fp4",
    near_miss="--model-path Qwen/Qwen3-8B --tp 8 --ep 8 --moe-runner-backend flashinfer_cutlass "
    "--quantization modelopt_fp4",
)

rule(
    code="SGL644",
    name="flashinfer-trtllm-moe-with-unsupported-quantization",
    errors="c105f17ab73e",
    when=lambda cfg: served(cfg.model_path)
    and cfg.moe_runner_backend in ("flashinfer_trtllm", "experimental_sgl_trtllm")
    and cfg.quantization is not None
    and _quant(cfg.quantization, cfg.model_path) not in ("modelopt_fp4", "nvfp4_online", "fp8", "mxfp8", "modelopt_fp8",
                                                         "modelopt_mixed", "compressed-tensors", None),
    at=("quantization", "moe_runner_backend"),
    message="`--moe-runner-backend {moe_runner_backend}` supports only `--quantization` modelopt_fp4, nvfp4_online, "
    "fp8, mxfp8, modelopt_fp8, modelopt_mixed, compressed-tensors or none (bfloat16), not `{quantization}`",
    example="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_trtllm --quantization awq",
    near_miss="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_trtllm --quantization fp8",
)

rule(
    code="SGL645",
    name="flashinfer-trtllm-routed-moe-with-unsupported-quantization",
    errors="0d17c8602e2d",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_runner_backend == "flashinfer_trtllm_routed"
    and cfg.quantization is not None
    and _quant(cfg.quantization, cfg.model_path) not in ("fp8", "mxfp8", "modelopt_fp4", "modelopt_mixed",
                                                         "nvfp4_online", "minimax_m3_nvfp4", None),
    at=("quantization", "moe_runner_backend"),
    message="`--moe-runner-backend flashinfer_trtllm_routed` supports only `--quantization` fp8, mxfp8, "
    "modelopt_fp4, modelopt_mixed, nvfp4_online or none (bfloat16), not `{quantization}`",
    example="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_trtllm_routed --quantization awq",
    near_miss="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_trtllm_routed --quantization fp8",
)

# -- LayerNorm sequence parallelism (handle_layernorm_sp, after speculative) ----------
# validate_layernorm_sp's own checks need the model to be Qwen3ForCausalLM (or Muse
# Spark), which autofix cannot tell from other Qwen models: not written here.

rule(
    code="SGL646",
    name="megamoe-for-layernorm-sp-without-layernorm-sp",
    errors="ee70c3878bb7",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_megamoe_for_layernorm_sp and not cfg.enable_layernorm_sp,
    at="enable_megamoe_for_layernorm_sp",
    message="`--enable-megamoe-for-layernorm-sp` requires `--enable-layernorm-sp`",
    fix=remove("enable_megamoe_for_layernorm_sp"),
    example="--model-path Qwen/Qwen3-8B --tp 4 --enable-megamoe-for-layernorm-sp",
    near_miss="--model-path Qwen/Qwen3-8B --tp 4",
)

# -- MegaMoE token budget (validate_mega_moe_token_budget, after speculative) ---------
# Checked where MegaMoE has no fused-MoE fallback: the architectures SGLang lists, or NVFP4
# experts (--quantization modelopt_fp4); skipped on ROCm, so the GPU must be named (--gpu).
# handle_data_parallelism has divided --chunked-prefill-size by the attention-DP width.
# The per-rank share below one under attention DP (aa4bcde808aa) is SGL871 (last_flags.py);
# not written: the environment-sized capacity.

_MEGA_MOE_NO_FALLBACK = ("DeepseekV4ForCausalLM", "InternS2PreviewForConditionalGeneration", "MellumForCausalLM",
                         "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM",
                         "Qwen3VLMoeForConditionalGeneration", "Qwen3_5MoeForCausalLM",
                         "Qwen3_5MoeForConditionalGeneration")
_MEGA = "--model-path Qwen/Qwen3-8B --tp 8 --moe-a2a-backend megamoe --quantization modelopt_fp4"



def _mega_moe_budget(model_path: object, architecture: str | None, quantization: object, encoder_only: bool,
                     disaggregation_mode: str, pp_size: int, dynamic_chunking: bool) -> bool:
    """validate_mega_moe_token_budget reaches its prefill checks."""
    return not encoder_only and not str(model_path).startswith("instance://") \
        and (architecture in _MEGA_MOE_NO_FALLBACK or _quant(quantization, model_path) == "modelopt_fp4") \
        and disaggregation_mode != "decode" and not (pp_size > 1 and dynamic_chunking)


rule(
    code="SGL647",
    name="megamoe-without-chunked-prefill",
    errors="17b2822153d2",
    when=lambda cfg: served(cfg.model_path) and on_nvidia(cfg)
    and _a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.dwdp_size, cfg.enable_waterfill, cfg.enable_prefill_cp)
    == "megamoe"
    and _mega_moe_budget(cfg.model_path, cfg.model.architecture, cfg.quantization, cfg.encoder_only,
                         cfg.disaggregation_mode, cfg.pp_size, cfg.enable_dynamic_chunking)
    and known(cfg.chunked_prefill_size) // _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention)
    <= 0,
    at="chunked_prefill_size",
    message="MegaMoE (`--moe-a2a-backend megamoe`) requires chunked prefill: set `--chunked-prefill-size` to a "
    "positive value, not {chunked_prefill_size} (no strict bound on a prefill forward's tokens per rank)",
    fix=set_("chunked_prefill_size", "4096"),
    gpu="b200",
    example=_MEGA + " --chunked-prefill-size -1",
    near_miss=_MEGA + " --chunked-prefill-size 4096",
)

# -- Linear attention backends and ReplaySSM (handle_linear_attn_backend) -------------
# Runs for every served model. An unset --linear-attn-decode-backend with
# `--mamba-ssm-dtype bfloat16` is picked from the GPU (flashinfer on SM100) or the model
# (Kimi-K3): the rules that read the decode backend stay quiet there. The check of the
# verify kernel under SGLANG_RAGGED_VERIFY_MODE (626ab32bac2e) needs that environment
# variable set, so no launch's flags reach it.


def _linear_decode(decode_backend: str | None, backend: str, mamba_ssm_dtype: str | None) -> str:
    """The linear-attention decode backend SGLang resolves (an explicit flashkda one is refused)."""
    if decode_backend is None and mamba_ssm_dtype == "bfloat16":
        raise Unresolvable("SGLang picks the decode backend from the GPU")
    decode = decode_backend or backend
    return "triton" if decode == "flashkda" else decode


def _no_extra_buffer(strategy: str, disable_radix_cache: bool, disaggregation_mode: str,
                     decode_radix_cache: bool) -> bool:
    """The Mamba radix cache runs without an extra buffer: the radix cache is off (a PD decode
    server decides it by --disaggregation-decode-enable-radix-cache; hooks only ever turn it
    off) or --mamba-radix-cache-strategy is no_buffer. auto may resolve to extra_buffer."""
    disabled = not decode_radix_cache if disaggregation_mode == "decode" else disable_radix_cache
    if disabled or strategy == "no_buffer":
        return True
    raise Unresolvable("the strategy may resolve to extra_buffer")


rule(
    code="SGL649",
    name="flashkda-linear-attn-decode-backend",
    errors="59a005ef1f64",
    when=lambda cfg: served(cfg.model_path) and cfg.linear_attn_decode_backend == "flashkda",
    at="linear_attn_decode_backend",
    message="`--linear-attn-decode-backend flashkda` is not supported: FlashKDA is prefill-only; use "
    "`--linear-attn-prefill-backend flashkda` (decode stays on triton)",
    fix=(remove("linear_attn_decode_backend"), set_("linear_attn_prefill_backend", "flashkda")),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --linear-attn-decode-backend flashkda",
    near_miss="--model-path Qwen/Qwen3-8B --linear-attn-prefill-backend flashkda",
)

rule(
    code="SGL650",
    name="linear-replayssm-with-unsupported-decode-backend",
    errors="dcf2537b21e3",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    not in ("triton", "helion"),
    at=("linear_attn_decode_backend", "linear_attn_backend", "enable_linear_replayssm"),
    message=lambda cfg: "`--enable-linear-replayssm` requires the Triton (or, for KDA, Helion) linear-attention "
    "decode backend, got `" + _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend,
                                              cfg.mamba_ssm_dtype) + "`",
    fix=set_("linear_attn_decode_backend", "triton"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --linear-attn-backend cutedsl",
    near_miss="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --linear-attn-backend cutedsl "
    "--linear-attn-decode-backend triton --disable-radix-cache",
)

rule(
    code="SGL651",
    name="linear-replayssm-with-pd-disaggregation",
    errors="2ea6c54f55bd",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    in ("triton", "helion")
    and _no_extra_buffer(cfg.mamba_radix_cache_strategy, cfg.disable_radix_cache, cfg.disaggregation_mode,
                         cfg.disaggregation_decode_enable_radix_cache)
    and cfg.disaggregation_mode != "null",
    at=("enable_linear_replayssm", "disaggregation_mode"),
    message="`--enable-linear-replayssm` is not supported under PD disaggregation yet "
    "(`--disaggregation-mode {disaggregation_mode}`)",
    fix=remove("enable_linear_replayssm"),
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --disaggregation-mode prefill --disable-radix-cache",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disable-radix-cache",
)

rule(
    code="SGL652",
    name="linear-replayssm-cache-len-below-one",
    errors="7c6356a53980",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    in ("triton", "helion")
    and _no_extra_buffer(cfg.mamba_radix_cache_strategy, cfg.disable_radix_cache, cfg.disaggregation_mode,
                         cfg.disaggregation_decode_enable_radix_cache)
    and cfg.disaggregation_mode == "null" and cfg.linear_replayssm_cache_len < 1,
    at="linear_replayssm_cache_len",
    message="`--linear-replayssm-cache-len` must be at least 1, got {linear_replayssm_cache_len}",
    fix=remove("linear_replayssm_cache_len"),
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --linear-replayssm-cache-len 0 --disable-radix-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --linear-replayssm-cache-len 8 "
    "--disable-radix-cache",
)

rule(
    code="SGL653",
    name="linear-replayssm-spec-with-eagle-tree",
    errors="f4330943d2bd",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm_spec and not cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda" and cfg.speculative_eagle_topk not in (None, 1),
    at=("speculative_eagle_topk", "enable_linear_replayssm_spec"),
    message="`--enable-linear-replayssm-spec` requires a linear draft chain (`--speculative-eagle-topk` 1 or unset), "
    "got `--speculative-eagle-topk {speculative_eagle_topk}`: its verify kernel is invalid for EAGLE tree verify",
    fix=remove("enable_linear_replayssm_spec"),
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm-spec --speculative-eagle-topk 4",
    near_miss="--model-path Qwen/Qwen3-8B --enable-linear-replayssm-spec --speculative-eagle-topk 1",
)

rule(
    code="SGL654",
    name="linear-replayssm-spec-with-unsupported-decode-backend",
    errors="bbd661decf8f",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm_spec and not cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda" and cfg.speculative_eagle_topk in (None, 1)
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    not in ("triton", "flashinfer"),
    at=("linear_attn_decode_backend", "linear_attn_backend", "enable_linear_replayssm_spec"),
    message=lambda cfg: "`--enable-linear-replayssm-spec` requires the triton or flashinfer linear-attention decode "
    "backend, got `" + _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend,
                                       cfg.mamba_ssm_dtype) + "`",
    fix=set_("linear_attn_decode_backend", "triton"),
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm-spec --linear-attn-backend cutedsl",
    near_miss="--model-path Qwen/Qwen3-8B --enable-linear-replayssm-spec --linear-attn-backend cutedsl "
    "--linear-attn-decode-backend triton",
)

rule(
    code="SGL655",
    name="linear-replayssm-spec-on-pd-prefill-server",
    errors="0964f0cf9b09",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm_spec and not cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda" and cfg.speculative_eagle_topk in (None, 1)
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    in ("triton", "flashinfer")
    and cfg.disaggregation_mode == "prefill",
    at=("enable_linear_replayssm_spec", "disaggregation_mode"),
    message="`--enable-linear-replayssm-spec` is not supported on a PD prefill server "
    "(`--disaggregation-mode prefill`): the prefill server never runs speculative verify",
    fix=remove("enable_linear_replayssm_spec"),
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm-spec --disaggregation-mode prefill",
    near_miss="--model-path Qwen/Qwen3-8B --disaggregation-mode prefill",
)

rule(
    code="SGL656",
    name="linear-replayssm-spec-with-linear-replayssm",
    errors="b5837834f6c5",
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm_spec and cfg.enable_linear_replayssm
    and cfg.linear_attn_decode_backend != "flashkda"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype) == "triton"
    and _no_extra_buffer(cfg.mamba_radix_cache_strategy, cfg.disable_radix_cache, cfg.disaggregation_mode,
                         cfg.disaggregation_decode_enable_radix_cache)
    and cfg.disaggregation_mode == "null" and cfg.linear_replayssm_cache_len >= 1
    and cfg.speculative_eagle_topk in (None, 1),
    at=("enable_linear_replayssm_spec", "enable_linear_replayssm"),
    message="`--enable-linear-replayssm-spec` and `--enable-linear-replayssm` cannot be used together: they share "
    "the ring storage but advance it differently",
    example="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --enable-linear-replayssm-spec --disable-radix-cache",
    near_miss="--model-path Qwen/Qwen3-8B --enable-linear-replayssm --disable-radix-cache",
)


def _radix_on(disable_radix_cache: bool, disaggregation_mode: str, decode_radix_cache: bool) -> bool:
    """The radix cache is on as the launch writes it (a PD decode server decides it by
    --disaggregation-decode-enable-radix-cache). Hooks may still turn it off: the rules
    below name models that none of those does (Whisper, EmbeddingGemma, hybrid MiniCPM)."""
    return decode_radix_cache if disaggregation_mode == "decode" else not disable_radix_cache


rule(
    code="SGL657",
    name="linear-replayssm-with-mamba-extra-buffer",
    errors="4e7e3a9ef03b",
    # Kimi-Linear's Mamba radix cache keeps an explicit strategy; deterministic inference may
    # turn the radix cache off first with some attention backends (quiet there).
    when=lambda cfg: served(cfg.model_path) and cfg.enable_linear_replayssm
    and cfg.model.architecture == "KimiLinearForCausalLM" and not cfg.enable_deterministic_inference
    and cfg.linear_attn_decode_backend != "flashkda"
    and _linear_decode(cfg.linear_attn_decode_backend, cfg.linear_attn_backend, cfg.mamba_ssm_dtype)
    in ("triton", "helion")
    and cfg.mamba_radix_cache_strategy in ("extra_buffer", "extra_buffer_lazy")
    and _radix_on(cfg.disable_radix_cache, cfg.disaggregation_mode, cfg.disaggregation_decode_enable_radix_cache),
    at=("mamba_radix_cache_strategy", "enable_linear_replayssm"),
    message="`--enable-linear-replayssm` requires `--mamba-radix-cache-strategy no_buffer` (the default), "
    "got `{mamba_radix_cache_strategy}`: the extra-buffer donation path is not supported yet",
    # no_buffer refuses the overlap schedule: the fix turns it off too.
    fix=(set_("mamba_radix_cache_strategy", "no_buffer"), set_("disable_overlap_schedule")),
    example="--model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --enable-linear-replayssm "
    "--mamba-radix-cache-strategy extra_buffer",
    near_miss="--model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --enable-linear-replayssm "
    "--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule",
)

rule(
    code="SGL658",
    name="mamba-extra-buffer-on-non-mamba-model",
    errors="5fdcaa06b99c",
    when=lambda cfg: served(cfg.model_path)
    and cfg.model.architecture in ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM")
    and cfg.mamba_radix_cache_strategy in ("extra_buffer", "extra_buffer_lazy")
    and _radix_on(cfg.disable_radix_cache, cfg.disaggregation_mode, cfg.disaggregation_decode_enable_radix_cache),
    at="mamba_radix_cache_strategy",
    message=lambda cfg: f"`--mamba-radix-cache-strategy {cfg.mamba_radix_cache_strategy}` needs Mamba state, "
    f"which `{cfg.model.architecture}` does not have",
    fix=remove("mamba_radix_cache_strategy"),
    example="--model-path deepseek-ai/DeepSeek-V2-Lite --mamba-radix-cache-strategy extra_buffer",
    near_miss="--model-path deepseek-ai/DeepSeek-V2-Lite --mamba-radix-cache-strategy no_buffer",
)

# -- --language-model-only (handle_language_model_only, from handle_encoder_disaggregation) --

_LMO_CONFLICTS = (("encoder_only", "--encoder-only"), ("language_only", "--language-only"),
                  ("enable_prefix_mm_cache", "--enable-prefix-mm-cache"),
                  ("enable_broadcast_mm_inputs_process", "--enable-broadcast-mm-inputs-process"),
                  ("mm_enable_dp_encoder", "--mm-enable-dp-encoder"))

rule(
    code="SGL659",
    name="language-model-only-with-encoder-flags",
    errors="7ac1d7631784",
    when=lambda cfg: served(cfg.model_path) and cfg.language_model_only
    and (cfg.encoder_only or cfg.language_only or cfg.enable_prefix_mm_cache
         or cfg.enable_broadcast_mm_inputs_process or cfg.mm_enable_dp_encoder is True),
    at=("language_model_only", "encoder_only", "language_only", "enable_prefix_mm_cache",
        "enable_broadcast_mm_inputs_process", "mm_enable_dp_encoder"),
    message=lambda cfg: "`--language-model-only` cannot be combined with `"
    + next(flag for dest, flag in _LMO_CONFLICTS if getattr(cfg, dest) is True) + "`",
    fix=remove("language_model_only"),
    example="--model-path Qwen/Qwen3-8B --language-model-only --enable-broadcast-mm-inputs-process",
    near_miss="--model-path Qwen/Qwen3-8B --enable-broadcast-mm-inputs-process",
)
