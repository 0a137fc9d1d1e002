"""Catalogue rules for checks that older SGLang releases make (or word) differently: the
speculative algorithms under attention DP and pipeline parallelism (`speculative_hook.py`),
two-batch overlap without an EP a2a backend and LoRA with speculative decoding
(`check_server_args`, `check_lora_server_args`), context-parallel sizing
(`handle_context_parallelism`), the FlashInfer MoE a2a backend and the TRT-LLM routed MoE
runner (`handle_a2a_moe`, `handle_moe_kernel_config`), EPLB without expert parallelism
(`handle_eplb_and_dispatch`), data parallelism across nodes (`check_server_args`),
`--keep-mm-feature-on-device` (`_handle_multimodal_feature_transport`) and the MoE runners of
`--quantization nvfp4_online` (`_moe_runner_backend_quant_constraints`), and DeepEP v2 with
deterministic inference (`handle_a2a_moe`). In 0.5.17/0.5.18 most are `ServerArgs` methods of the same names.

Attention DP is read as `_attention_dp` reads it (speculative_more.py): `--attn-dp-size` from
0.5.22, else `--dp-size` above 1 with `--enable-dp-attention`; launches whose DP layout DWDP,
prefill CP or an EP scale joiner rewrites are left alone.
"""

from __future__ import annotations

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import gpu, served
from .attention_moe_more import _DEEPEP_V2_MODELS, _quant
from .elastic_ep import _release
from .newly_judged import _dspark, _target_a2a
from .parallel import _model_known_not
from .speculative import _algorithm
from .speculative_more import _attention_dp, _cuda, _dp_as_written, _lora_on

_PLAIN_DECODERS = ("Qwen2ForCausalLM", "Qwen3ForCausalLM", "LlamaForCausalLM")


def _dp_attention(attn_dp_size: object, dp_size: object, enable: object, as_written: bool) -> bool:
    """Attention DP is on, as the launch writes it."""
    return as_written and _attention_dp(attn_dp_size, dp_size, enable) > 1


# -- speculative_hook: NGRAM and DFLASH under attention DP, DSpark with PP -----------------

rule(
    code="SGL1275",
    name="ngram-speculative-with-dp-attention",
    errors="0249041866b0",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "NGRAM" and served(cfg.model_path)
    and _cuda(cfg.device) and cfg.speculative_eagle_topk in (None, 1)
    and _dp_attention(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention,
                      _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                                     cfg.get("enable_prefill_context_parallel", False),
                                     cfg.get("enable_dsa_prefill_context_parallel", False))),
    at=("speculative_algorithm", "enable_dp_attention"),
    message="NGRAM speculative decoding does not support DP attention (`--enable-dp-attention`)",
    fix=remove("speculative_algorithm"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --speculative-algorithm NGRAM",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --speculative-algorithm NGRAM",
)

rule(
    code="SGL1276",
    name="dflash-speculative-with-dp-attention",
    errors=("8db7f37b6adb", "33910ded14d1"),
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and served(cfg.model_path)
    and _cuda(cfg.device)
    and _dp_attention(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention,
                      _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                                     cfg.get("enable_prefill_context_parallel", False),
                                     cfg.get("enable_dsa_prefill_context_parallel", False))),
    at=("speculative_algorithm", "enable_dp_attention"),
    message="DFLASH speculative decoding does not support DP attention (`--enable-dp-attention`) on CUDA",
    fix=remove("enable_dp_attention"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --speculative-algorithm DFLASH "
    "--speculative-draft-model-path org/dflash-draft",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --speculative-algorithm DFLASH "
    "--speculative-draft-model-path org/dflash-draft",
    note="The fix turns DP attention off; `--dp-size` then runs separate data-parallel replicas.",
)

rule(
    code="SGL1277",
    name="dspark-speculative-with-pipeline-parallelism",
    errors="6df02c88c4ee",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and not cfg.enable_dp_attention and cfg.get("attn_dp_size", 1) == 1 and cfg.pp_size > 1,
    at=("pp_size", "speculative_algorithm"),
    message="DSpark speculative decoding supports only `--pp-size 1`, got {pp_size}",
    fix=remove("pp_size"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path org/dspark "
    "--pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path org/dspark",
)

# -- check_server_args: two-batch overlap, LoRA with speculative decoding ------------------

rule(
    code="SGL1278",
    name="two-batch-overlap-without-a2a-or-dp-attention",
    errors="9ab786a2a20e",
    when=lambda cfg: cfg.enable_two_batch_overlap and served(cfg.model_path)
    and cfg.model.architecture in _PLAIN_DECODERS and cfg.moe_a2a_backend == "none"
    and cfg.moe_runner_backend != "megamoe" and not cfg.get("enable_waterfill", False)
    and not cfg.enable_dp_attention,
    at="enable_two_batch_overlap",
    message="`--enable-two-batch-overlap` without an EP a2a backend (`--moe-a2a-backend none`) requires "
    "`--enable-dp-attention`",
    fix=remove("enable_two_batch_overlap"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-two-batch-overlap",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2",
)

rule(
    code="SGL1279",
    name="lora-with-non-ngram-speculative",
    errors="572430067bef",
    when=lambda cfg: _lora_on(cfg.enable_lora, cfg.lora_paths) and served(cfg.model_path)
    and _algorithm(cfg.speculative_algorithm) not in ("", "NGRAM")
    and not cfg.get("enable_return_aux_hidden_states", False),
    at=("speculative_algorithm", "enable_lora", "lora_paths"),
    message="LoRA serving supports only NGRAM speculative decoding, got `--speculative-algorithm "
    "{speculative_algorithm}`",
    example="--model-path Qwen/Qwen3-8B --enable-lora --lora-paths a=org/lora-a --speculative-algorithm EAGLE "
    "--speculative-draft-model-path org/eagle",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lora --lora-paths a=org/lora-a --speculative-algorithm NGRAM",
)

# -- handle_context_parallelism: the TP size over attention DP and CP ----------------------

rule(
    code="SGL1280",
    name="tp-size-not-divisible-by-dp-times-attn-cp",
    errors="144d20b1d730",
    when=lambda cfg: cfg.attn_cp_size > 1 and served(cfg.model_path)
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False))
    and cfg.tp_size % cfg.attn_cp_size == 0 and cfg.tp_size % (cfg.dp_size * cfg.attn_cp_size) != 0,
    at=("attn_cp_size", "dp_size"),
    message="`--tp-size {tp_size}` must be divisible by `--dp-size {dp_size}` times `--attn-cp-size {attn_cp_size}`",
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --attn-cp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 2 --enable-dp-attention --attn-cp-size 2",
)

# -- handle_a2a_moe / handle_moe_kernel_config ---------------------------------------------

rule(
    code="SGL1281",
    name="flashinfer-a2a-attention-dp-not-tp-size",
    errors=("01349a95cf57", "32d3c21ebacc"),
    when=lambda cfg: cfg.moe_a2a_backend == "flashinfer" and served(cfg.model_path)
    and _model_known_not(cfg, "MiniMaxM3", "MuseSpark")
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False))
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) != cfg.tp_size,
    at=("moe_a2a_backend", "dp_size"),
    message="`--moe-a2a-backend flashinfer` needs DP attention as wide as `--tp-size {tp_size}` "
    "(`--dp-size {tp_size} --enable-dp-attention`)",
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 2 --enable-dp-attention --moe-a2a-backend flashinfer "
    "--moe-runner-backend flashinfer_cutlass",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --moe-a2a-backend flashinfer "
    "--moe-runner-backend flashinfer_cutlass",
)

rule(
    code="SGL1282",
    name="flashinfer-a2a-with-unsupported-moe-runner-older",
    errors="b403f46b027b",
    when=lambda cfg: cfg.moe_a2a_backend == "flashinfer" and served(cfg.model_path)
    and _model_known_not(cfg, "MiniMaxM3", "MuseSpark")
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False))
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) == cfg.tp_size > 1
    and cfg.moe_runner_backend not in ("auto", "flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm_routed"),
    at=("moe_runner_backend", "moe_a2a_backend"),
    message="`--moe-a2a-backend flashinfer` supports only the flashinfer_cutlass, flashinfer_cutedsl and "
    "flashinfer_trtllm_routed MoE runners, got `--moe-runner-backend {moe_runner_backend}`",
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --moe-a2a-backend flashinfer "
    "--moe-runner-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --moe-a2a-backend flashinfer "
    "--moe-runner-backend flashinfer_cutlass",
)

rule(
    code="SGL1283",
    name="flashinfer-trtllm-routed-moe-with-unsupported-quantization-older",
    errors="aa20eee6d469",
    when=lambda cfg: served(cfg.model_path) and cfg.moe_runner_backend == "flashinfer_trtllm_routed"
    and cfg.quantization is not None
    and _quant(cfg.quantization, cfg.model_path) not in ("fp8", "mxfp8", "modelopt_fp4", "modelopt_mixed",
                                                         "nvfp4_online", None),
    at=("quantization", "moe_runner_backend"),
    message="`--moe-runner-backend flashinfer_trtllm_routed` supports only `--quantization` fp8, mxfp8, "
    "modelopt_fp4, modelopt_mixed, nvfp4_online or none (bfloat16), not `{quantization}`",
    example="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_trtllm_routed --quantization awq",
    near_miss="--model-path Qwen/Qwen3-8B --moe-runner-backend flashinfer_trtllm_routed --quantization fp8",
)

# -- handle_eplb_and_dispatch (0.5.17/0.5.18: a bare assert; SGL405 from 0.5.19) -------------

rule(
    code="SGL1284",
    name="eplb-without-expert-parallelism-older",
    errors="857afadd26ae",
    when=lambda cfg: cfg.enable_eplb and cfg.ep_join_mode != "scale" and cfg.ep_size <= 1
    and cfg.moe_a2a_backend == "none" and cfg.moe_runner_backend != "megamoe"
    and not cfg.get("enable_waterfill", False) and cfg.dwdp_size <= 1
    and not cfg.get("enable_prefill_cp", False) and not cfg.get("enable_prefill_context_parallel", False)
    and not cfg.get("enable_dsa_prefill_context_parallel", False)
    and served(cfg.model_path) and _model_known_not(cfg, "MiniMaxM3"),
    at=("enable_eplb", "ep_size"),
    message="`--enable-eplb` needs expert parallelism (`--ep-size` above 1), got `--ep-size {ep_size}`",
    fix=remove("enable_eplb"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --enable-eplb",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --ep-size 2 --enable-eplb",
)

# -- check_server_args: multi-node data parallelism (to 0.5.21) -----------------------------

rule(
    code="SGL1296",
    name="multi-node-dp-without-dp-attention",
    errors="8dbe8dc8d342",
    when=lambda cfg: served(cfg.model_path) and cfg.ep_join_mode != "scale"
    and (cfg.tp_size * cfg.pp_size) % cfg.nnodes == 0
    and cfg.dp_size > 1 and cfg.nnodes != 1 and not cfg.enable_dp_attention,
    at=("dp_size", "nnodes"),
    message="data parallelism across nodes (`--dp-size {dp_size}` with `--nnodes {nnodes}`) needs "
    "`--enable-dp-attention`",
    fix=remove("dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --nnodes 2 --node-rank 0 "
    "--dist-init-addr 10.0.0.1:5000",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --nnodes 2 --node-rank 0 "
    "--dist-init-addr 10.0.0.1:5000",
    note="The fix drops the DP replicas (one replica spans the nodes); `--enable-dp-attention` keeps "
    "DP as attention DP instead.",
)

# -- _handle_multimodal_feature_transport (to 0.5.20) --------------------------------------


def _transport_conflicts(transport: object, release: tuple[int, ...]) -> bool:
    """`--keep-mm-feature-on-device` takes only the cuda_ipc transport (0.5.17 refuses only cpu)."""
    return transport == "cpu" if release < (0, 5, 18) else transport not in (None, "cuda_ipc")


rule(
    code="SGL1297",
    name="keep-mm-feature-on-device-with-non-ipc-transport",
    errors=("104eea9bb850", "02e00f5c4b30"),
    when=lambda cfg: cfg.keep_mm_feature_on_device and _transport_conflicts(cfg.mm_feature_transport, _release(cfg)),
    at=("mm_feature_transport", "keep_mm_feature_on_device"),
    message="`--keep-mm-feature-on-device` conflicts with `--mm-feature-transport {mm_feature_transport}`: "
    "use only `--mm-feature-transport cuda_ipc`",
    fix=set_("mm_feature_transport", "cuda_ipc"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --keep-mm-feature-on-device --mm-feature-transport cpu",
    near_miss="--model-path Qwen/Qwen3-8B --keep-mm-feature-on-device --mm-feature-transport cuda_ipc",
)

# -- _moe_runner_backend_quant_constraints: --quantization nvfp4_online (to 0.5.22) ----------


def _nvfp4_online_runner_refused(runner: object, release: tuple[int, ...]) -> bool:
    """A MoE runner nvfp4_online does not take (0.5.18 added flashinfer_cutedsl); auto picks one."""
    allowed = ("auto", "flashinfer_trtllm", "flashinfer_trtllm_routed")
    return runner not in (allowed if release < (0, 5, 18) else (*allowed, "flashinfer_cutedsl"))


rule(
    code="SGL1298",
    name="nvfp4-online-with-unsupported-moe-runner",
    errors=("3eb0591e1c1d", "626404e04727"),
    when=lambda cfg: served(cfg.model_path) and _quant(cfg.quantization, cfg.model_path) == "nvfp4_online"
    and gpu(cfg).is_sm100 and _nvfp4_online_runner_refused(cfg.moe_runner_backend, _release(cfg)),
    at=("moe_runner_backend", "quantization"),
    message="`--quantization nvfp4_online` supports only the flashinfer_trtllm and flashinfer_trtllm_routed MoE "
    "runners (and flashinfer_cutedsl from 0.5.18), got `--moe-runner-backend {moe_runner_backend}`",
    fix=remove("moe_runner_backend"),
    gpu="b200",
    example="--model-path Qwen/Qwen3-8B --quantization nvfp4_online --moe-runner-backend triton",
    near_miss="--model-path Qwen/Qwen3-8B --quantization nvfp4_online --moe-runner-backend flashinfer_trtllm",
    note="The fix lets SGLang pick the runner (flashinfer_trtllm).",
)

# -- _handle_dspark under attention DP: the MoE a2a backend (to 0.5.20; SGL581 from 0.5.21) ---


def _dspark_a2a_refused(a2a: str, release: tuple[int, ...]) -> bool:
    """An a2a backend DSpark under attention DP does not take: only none in 0.5.17, megamoe too after."""
    return a2a not in (("none",) if release < (0, 5, 18) else ("none", "megamoe"))


rule(
    code="SGL1299",
    name="dspark-dp-attention-with-unsupported-moe-a2a-backend-older",
    errors=("627e04d8675c", "0354d4f62ee8"),
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _dp_attention(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention,
                      _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                                     cfg.get("enable_prefill_context_parallel", False),
                                     cfg.get("enable_dsa_prefill_context_parallel", False)))
    and cfg.enable_dp_lm_head
    and _dspark_a2a_refused(_target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend,
                                        cfg.get("enable_waterfill", False)), _release(cfg)),
    at="moe_a2a_backend",
    message="`--speculative-algorithm DSPARK` with DP attention supports only the built-in TP MoE "
    "(`--moe-a2a-backend none`; megamoe from 0.5.18), got `{moe_a2a_backend}`",
    fix=remove("moe_a2a_backend"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
    "--moe-a2a-backend deepep --speculative-algorithm DSPARK --speculative-draft-model-path org/dspark",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
    "--moe-a2a-backend none --speculative-algorithm DSPARK --speculative-draft-model-path org/dspark",
)

# -- handle_a2a_moe: DeepEP v2 with deterministic inference (0.5.19/0.5.20) ------------------
# DeepEP v2 runs only for the architectures SGLang validated it on; the deterministic-inference
# check of the attention backend comes first, so the rule needs a backend written that it takes.

_DEEPEP_V2_ARCHS = _DEEPEP_V2_MODELS  # the architectures validate_deepep_v2_model_architecture takes
_DETERMINISTIC_BACKENDS = ("fa3", "fa4", "flashinfer", "triton")


def _deterministic_backends(attention: object, prefill: object, decode: object) -> bool:
    """Every attention backend is written and one deterministic inference takes."""
    if attention is None:
        raise Unresolvable("SGLang picks the attention backend")
    return all(b in _DETERMINISTIC_BACKENDS for b in (attention, prefill or attention, decode or attention))


rule(
    code="SGL1301",
    name="deepep-v2-with-deterministic-inference",
    errors="7730c0cba9b4",
    when=lambda cfg: cfg.moe_a2a_backend == "deepep_v2" and served(cfg.model_path)
    and not str(cfg.model_path).startswith("instance://")
    and cfg.moe_runner_backend != "megamoe" and not cfg.get("enable_waterfill", False) and cfg.dwdp_size <= 1
    and cfg.model.architecture in _DEEPEP_V2_ARCHS and cfg.enable_deterministic_inference
    and _deterministic_backends(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend),
    at=("enable_deterministic_inference", "moe_a2a_backend"),
    message="`--moe-a2a-backend deepep_v2` does not forward deterministic=True to its buffer, so "
    "`--enable-deterministic-inference` would not sort deterministically; drop it or use `--moe-a2a-backend deepep`",
    fix=remove("enable_deterministic_inference"),
    # Without deterministic inference SGLang captures decode graphs up to its default batch size, which
    # DeepEP v2's default dispatch budget refuses (another check): the Example and its fix capture none.
    example="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-a2a-backend deepep_v2 --attention-backend triton "
    "--chunked-prefill-size 128 --max-prefill-tokens 128 --disable-cuda-graph --enable-deterministic-inference",
    near_miss="--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-a2a-backend deepep_v2 --attention-backend triton "
    "--chunked-prefill-size 128 --max-prefill-tokens 128 --disable-cuda-graph",
)
