"""Catalogue rules: features that need a CUDA (or another) device, refused for the `--device`
a launch writes (SGLang's `handle_speculative_decoding` and the algorithms' handlers in
`speculative_hook.py`, `handle_gpu_memory_settings` in `memory_hook.py`).

SGLang's device is `--device`, else the one it finds on the host: `cuda` on an NVIDIA or
AMD GPU. These rules read `--device` as written; an unset one is `cuda`, as the other
speculative rules read it, so they report only a device the launch names itself.
"""

from __future__ import annotations

from autofix.rules import remove, rule

from ._common import served
from .attention_moe_more import _attn_dp
from .speculative import _algorithm, _eagle_family


def _device(device: object) -> str:
    """SGLang's device: `--device` as written, `cuda` when unset."""
    return device if isinstance(device, str) else "cuda"


def _resolved(algorithm: object, aux_capture: object) -> str:
    """The algorithm handle_speculative_decoding dispatches on: upper-cased, NEXTN as EAGLE;
    none where --enable-return-aux-hidden-states resets it."""
    name = "" if aux_capture else _algorithm(algorithm)
    return "EAGLE" if name == "NEXTN" else name


def _dispatched(cfg) -> bool:  # noqa: ANN001
    """handle_speculative_decoding reaches the algorithm's handler: its block-verification and
    draft window/sink checks pass (a decode server's radix cache too)."""
    algorithm = _resolved(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    window, sink = cfg.get("speculative_draft_window_size"), cfg.get("speculative_draft_sink_size")
    return served(cfg.model_path) and not cfg.get("speculative_use_block_verification", False) \
        and not (cfg.disaggregation_mode == "decode" and cfg.get("disaggregation_decode_enable_radix_cache", False)
                 and algorithm not in ("DSPARK", "EAGLE", "EAGLE3")) \
        and (window is None or int(window) > 0) and (sink is None or (int(sink) >= 0 and window is not None))


_DFLASH = "--model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH " \
    "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16"
_EAGLE3 = "--model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 " \
    "--speculative-draft-model-path Tengyunw/qwen3_8b_eagle3"

rule(
    code="SGL960",
    name="speculative-block-verification-on-non-cuda-device",
    errors="f3fa8d7a0deb",
    when=lambda cfg: served(cfg.model_path) and cfg.speculative_use_block_verification
    and _resolved(cfg.speculative_algorithm, cfg.get("enable_return_aux_hidden_states", False))
    in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")
    and not (cfg.disaggregation_mode == "decode" and cfg.disaggregation_decode_enable_radix_cache
             and _algorithm(cfg.speculative_algorithm) == "DFLASH")
    and _device(cfg.device) != "cuda",
    at=("speculative_use_block_verification", "device"),
    message="`--speculative-use-block-verification` runs only on CUDA or ROCm, not `--device {device}`",
    fix=remove("speculative_use_block_verification"),
    example=_EAGLE3 + " --speculative-use-block-verification --device cpu",
    near_miss=_EAGLE3 + " --device cpu",
)

rule(
    code="SGL961",
    name="dflash-on-unsupported-device",
    errors="dda171674a21",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and _dispatched(cfg)
    and not _device(cfg.device).startswith("cuda") and _device(cfg.device) not in ("npu", "xpu"),
    at=("device", "speculative_algorithm"),
    message="DFLASH speculative decoding runs on CUDA, NPU or XPU devices, not `--device {device}`",
    example=_DFLASH + " --device cpu",
    near_miss=_DFLASH,
)

rule(
    code="SGL962",
    name="dflash-attention-dp-on-non-cuda-device",
    errors="9dd944c8266d",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DFLASH" and _dispatched(cfg)
    and _device(cfg.device) == "xpu"
    and _attn_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1,
    at=("device", "attn_dp_size", "enable_dp_attention"),
    message="DFLASH with attention DP runs on CUDA or NPU devices only, not `--device {device}`",
    example=_DFLASH + " --device xpu --tp 2 --attn-dp-size 2",
    near_miss=_DFLASH + " --device xpu --tp 2",
)

rule(
    code="SGL963",
    name="uno-on-non-cuda-device",
    errors="4cb900813592",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "UNO" and _dispatched(cfg)
    and not _device(cfg.device).startswith("cuda"),
    at=("device", "speculative_algorithm"),
    message="UNO speculative decoding runs only on CUDA, not `--device {device}`",
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm UNO --uno-lora-path org/uno-lora --device cpu",
    near_miss="--model-path Qwen/Qwen3-8B --device cpu",
)

rule(
    code="SGL964",
    name="dspark-on-unsupported-device",
    errors="091192f353aa",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "DSPARK" and _dispatched(cfg)
    and not _device(cfg.device).startswith(("cuda", "npu", "xpu")),
    at=("device", "speculative_algorithm"),
    message="DSpark speculative decoding runs only on CUDA, NPU or XPU devices, not `--device {device}`",
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK "
    "--speculative-draft-model-path org/Qwen3-8B-DSpark --device cpu",
    near_miss="--model-path Qwen/Qwen3-8B --device cpu",
)

rule(
    code="SGL965",
    name="ngram-speculative-decoding-on-unsupported-device",
    errors="ec7fd68f6977",
    when=lambda cfg: _algorithm(cfg.speculative_algorithm) == "NGRAM" and _dispatched(cfg)
    and _device(cfg.device) not in ("cuda", "cpu", "xpu"),
    at=("device", "speculative_algorithm"),
    message="NGRAM speculative decoding runs only on CUDA, CPU or XPU devices, not `--device {device}`",
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --device npu",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --device cpu",
)

rule(
    code="SGL966",
    name="deterministic-rejection-sampling-on-non-cuda-device",
    errors="e47bd131845a",
    # The earlier rejection-sampling checks pass: EAGLE/EAGLE3/NEXTN with a written top-k of 1.
    when=lambda cfg: cfg.speculative_use_rejection_sampling and cfg.enable_deterministic_inference
    and _eagle_family(cfg.speculative_algorithm, cfg.speculative_draft_model_path, cfg.model_path)
    and _algorithm(cfg.speculative_algorithm) != "STANDALONE" and _dispatched(cfg)
    and cfg.speculative_num_steps is not None and cfg.speculative_eagle_topk == 1
    and not _device(cfg.device).startswith("cuda"),
    at=("device", "speculative_use_rejection_sampling"),
    message="deterministic rejection sampling runs only on CUDA-compatible devices (its draft sampling is a "
    "Triton hash kernel), not `--device {device}`",
    fix=remove("speculative_use_rejection_sampling"),
    example=_EAGLE3 + " --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--speculative-use-rejection-sampling --enable-deterministic-inference --device cpu",
    near_miss=_EAGLE3 + " --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    "--enable-deterministic-inference --device cpu",
)

# -- the Torch MPS device (validation_hook.py: validate_standard_mps_server_args, validate_mps_model_config) --
# ServerArgs.resolve_once runs them after the pipeline when the device is mps (and
# SGLANG_USE_MLX, which hands the model to MLX, is not set). The pipeline fills only unset
# backends there (torch_native attention, pytorch sampling).

_MPS_BACKENDS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")


def _on_mps(device: object, model_path: object) -> bool:
    return _device(device) == "mps" and served(model_path)


def _mps_backends_pass(attention: object, prefill: object, decode: object) -> bool:
    return all(b in (None, "torch_native") for b in (attention, prefill, decode))


def _mps_sampling_passes(sampling_backend: object, deterministic: object) -> bool:
    """The sampling backend the MPS check reads is pytorch (deterministic inference forces it)."""
    return sampling_backend in (None, "pytorch") or bool(deterministic)


_MPS = "--model-path Qwen/Qwen3-8B --device mps"

rule(
    code="SGL970",
    name="mps-device-with-other-attention-backend",
    errors="7bf2c5adf921",
    when=lambda cfg: _on_mps(cfg.device, cfg.model_path)
    and not _mps_backends_pass(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend),
    at=_MPS_BACKENDS,
    message="the Torch MPS device supports only the torch_native attention backend",
    fix=tuple(remove(dest) for dest in _MPS_BACKENDS),
    example=_MPS + " --attention-backend triton",
    near_miss=_MPS + " --attention-backend torch_native",
)

rule(
    code="SGL971",
    name="mps-device-with-other-sampling-backend",
    errors="9f0de96f88f7",
    when=lambda cfg: _on_mps(cfg.device, cfg.model_path)
    and _mps_backends_pass(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    and not _mps_sampling_passes(cfg.sampling_backend, cfg.enable_deterministic_inference),
    at="sampling_backend",
    message="the Torch MPS device supports only the pytorch sampling backend, not `--sampling-backend "
    "{sampling_backend}`",
    fix=remove("sampling_backend"),
    example=_MPS + " --sampling-backend flashinfer",
    near_miss=_MPS + " --sampling-backend pytorch",
)

rule(
    code="SGL972",
    name="mps-device-with-parallelism",
    errors="a738334058ac",
    when=lambda cfg: _on_mps(cfg.device, cfg.model_path)
    and _mps_backends_pass(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    and _mps_sampling_passes(cfg.sampling_backend, cfg.enable_deterministic_inference)
    and (cfg.tp_size != 1 or cfg.pp_size != 1 or cfg.dp_size != 1),
    at=("tp_size", "pp_size", "dp_size"),
    message="the Torch MPS device needs `--tp-size 1`, `--pp-size 1` and `--dp-size 1`",
    fix=(remove("tp_size"), remove("pp_size"), remove("dp_size")),
    example=_MPS + " --tp-size 2",
    near_miss=_MPS,
)

rule(
    code="SGL973",
    name="mps-device-with-quantized-weights",
    errors="71ef8b3b1f8f",
    # A checkpoint's own quantization is known only from its config: the rule reads the flag.
    when=lambda cfg: _on_mps(cfg.device, cfg.model_path)
    and _mps_backends_pass(cfg.attention_backend, cfg.prefill_attention_backend, cfg.decode_attention_backend)
    and _mps_sampling_passes(cfg.sampling_backend, cfg.enable_deterministic_inference)
    and cfg.tp_size == 1 and cfg.pp_size == 1 and cfg.dp_size == 1
    and cfg.quantization not in (None, "unquant"),
    at="quantization",
    message="the Torch MPS device serves only unquantized weights, not `--quantization {quantization}`",
    fix=remove("quantization"),
    example=_MPS + " --quantization fp8",
    near_miss=_MPS,
)
