"""Catalogue rules the judge can now run: DSpark's server-argument checks, the
watermark settings of `--watermark-config`, and `--lora-paths` JSON entries.

They mirror SGLang's `speculative_hook._handle_dspark` (reached through
`handle_speculative_decoding` and `SpeculativeAlgorithm.handle_server_args` for
`--speculative-algorithm DSPARK`), `validation_hook.check_watermark_server_args`
over the fields `serving_hook.handle_watermark_config` resolves from
`--watermark-config` (0.5.22 on), and `argparse_actions.LoRAPathAction.__call__`,
which runs while argparse parses `--lora-paths`.

`_handle_dspark` checks, in order: the device (CUDA; NPU from 0.5.18, XPU in
0.5.23); then, under attention DP, the DP LM head, the MoE a2a backend, the
ragged-verify mode, context parallelism and the draft's a2a backend; the
pipeline (pp 1, or from 0.5.21 a PD prefill server); the draft model (written,
bundled in the target checkpoint, or from 0.5.23 its `dspark/` subfolder on the
Hub); then gamma: `--speculative-dspark-block-size`, else the draft config's,
else 7 when `--speculative-num-draft-tokens` is unset, and the verify window
gamma + 1 that `--speculative-num-draft-tokens` must equal and be at least 2.

Attention DP is `--enable-dp-attention` in 0.5.17 (read from the field, which
the DP defaults pass leaves untouched until resolution ends: `--dp-size 1` with
the flag trips the checks there, and the rules stay quiet on it), the flag with
`--dp-size` above 1 in 0.5.18-0.5.21, and `attn_dp_size` above 1 from 0.5.22
(where `--dp-size N --enable-dp-attention` becomes `--attn-dp-size N`).
The rules assume SGLang's default environment (`SGLANG_RAGGED_VERIFY_MODE=static`,
no DP spec/prefill coordination).
"""

from __future__ import annotations

import json

from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import json_value, served
from .speculative import _algorithm
from .speculative_more import _attention_dp, _cuda, _dp_as_written

# -- helpers: they take values, so that each condition names what it reads -------------


def _dspark(algorithm: object, model_path: object, aux: object, device: object) -> bool:
    """`_handle_dspark` runs, on CUDA: `--speculative-algorithm DSPARK` (any case), a served
    model, and no `--enable-return-aux-hidden-states` (which resets the algorithm first)."""
    return _algorithm(algorithm) == "DSPARK" and served(model_path) and not aux and _cuda(device)


def _target_a2a(backend: str, runner: str, waterfill: bool) -> str:
    """`moe_a2a_backend` when `_handle_dspark` reads it, for a launch whose DP layout is as
    written (no DWDP, no prefill CP): the megamoe runner alias picks megamoe, Waterfill
    deepep; `ascend_tp` becomes none in `_handle_a2a_moe` (quiet there)."""
    if backend == "ascend_tp":
        raise Unresolvable("ascend_tp becomes none")
    if runner == "megamoe":
        backend = "megamoe"
    if waterfill and backend not in ("deepep", "megamoe"):
        backend = "deepep"
    return backend


def _not_minimax_m3(model: object) -> bool:
    """The served model is known, and is not MiniMax-M3 (whose NVFP4 override turns
    `--moe-a2a-backend none` into megamoe in 0.5.23)."""
    architecture = getattr(model, "architecture", None) or ""
    if not getattr(model, "known", False) and not architecture:
        raise Unresolvable("model not known")
    return not architecture.startswith("MiniMaxM3")


def _dp_block_passes(dp: bool, as_written: bool, lm_head: object, a2a: str, cp_size: object,
                     draft_a2a: object) -> bool:
    """The attention-DP block of `_handle_dspark` raises nothing: no attention DP, or DP with
    the DP LM head, the built-in TP MoE (`none`, allowed in every release), no context
    parallelism and no other draft a2a backend. False when the layout is not as written."""
    if not as_written:
        return False
    return not dp or (bool(lm_head) and a2a == "none" and cp_size <= 1 and draft_a2a in (None, "none"))


_WATERMARK_FIELDS = ("key", "key_b", "context_window", "mixing_probability", "max_probability",
                     "default_enabled", "enforce_all")
_WATERMARK_DEFAULTS = {"key": None, "key_b": None, "context_window": 4, "mixing_probability": 0.5,
                       "max_probability": 1.0, "default_enabled": False, "enforce_all": False}


def _watermark_key_parses(value: object) -> bool:
    """`parse_watermark_key` accepts it: a string of 1 to 16 hex digits, `0x` optional."""
    if not isinstance(value, str):
        return False
    digits = value[2:] if value.lower().startswith("0x") else value
    return 1 <= len(digits) <= 16 and all(c in "0123456789abcdefABCDEF" for c in digits)


def _watermark(enable: object, device: object, config: object) -> dict | None:
    """The watermark settings `check_watermark_server_args` reaches its key/probability
    checks with: `--enable-watermark` on CUDA, the SGLang defaults overlaid with an inline
    `--watermark-config` JSON object that `load_watermark_config` accepts (a file path is
    unknown), keys that parse and a context window from 1 to 64; None when it stops before."""
    if not enable or not (device is None or device == "cuda"):
        return None
    settings = dict(_WATERMARK_DEFAULTS)
    if config is not None:
        if not isinstance(config, str) or not config.lstrip().startswith("{"):
            raise Unresolvable("watermark config read from a file")
        if len(config.encode("utf-8")) > 4096:
            return None
        raw = json_value(config)
        if not isinstance(raw, dict) or set(raw) - set(_WATERMARK_FIELDS):
            return None
        for name in ("mixing_probability", "max_probability"):
            value = raw.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                return None
        for name in ("default_enabled", "enforce_all"):
            if raw.get(name) is not None and not isinstance(raw[name], bool):
                return None
        settings.update({k: v for k, v in raw.items() if v is not None})
    window = settings["context_window"]
    if isinstance(window, bool) or not isinstance(window, int) or not 1 <= window <= 64:
        return None
    if any(settings[k] is not None and not _watermark_key_parses(settings[k]) for k in ("key", "key_b")):
        return None
    return settings


def _watermark_fails(settings: dict | None) -> str | None:
    """The first of `check_watermark_server_args`'s key/probability checks that fails."""
    if settings is None:
        return None
    if settings["key_b"] is not None and settings["key"] is None:
        return "key_b"
    if not 0 < settings["mixing_probability"] < 1:
        return "mixing_range"
    if settings["key_b"] is None and settings["mixing_probability"] != 0.5:
        return "mixing_without_key_b"
    if not 0 < settings["max_probability"] <= 1:
        return "max_range"
    if (settings["default_enabled"] or settings["enforce_all"]) and settings["key"] is None:
        return "default_without_key"
    return None


def _lora_json_without_keys(lora_paths: object) -> str | None:
    """The first `--lora-paths` entry `LoRAPathAction` asserts on: one that looks like a JSON
    object (`{...}`) and decodes, without both `lora_name` and `lora_path`. None when an
    earlier JSON-looking entry does not decode (json.loads raises first) or none fails."""
    entries = [lora_paths] if isinstance(lora_paths, str) else list(lora_paths or ())
    for entry in entries:
        text = entry.strip()
        if not (text.startswith("{") and text.endswith("}")):
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            return None
        if "lora_path" not in obj or "lora_name" not in obj:
            return text
    return None


# -- _handle_dspark: attention DP ---------------------------------------------------------

_DSPARK = ("--model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK "
           "--speculative-draft-model-path org/Qwen3-8B-DSpark")
_DSPARK_DP = f"{_DSPARK} --tp-size 2 --dp-size 2 --enable-dp-attention"

rule(
    code="SGL580",
    name="dspark-dp-attention-without-dp-lm-head",
    errors="34fcbf43430b",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False))
    and not cfg.enable_dp_lm_head,
    at=("enable_dp_attention", "attn_dp_size", "speculative_algorithm"),
    message="`--speculative-algorithm DSPARK` with DP attention requires `--enable-dp-lm-head`",
    fix=set_("enable_dp_lm_head"),
    safe=True,
    example=_DSPARK_DP,
    near_miss=f"{_DSPARK_DP} --enable-dp-lm-head",
    note="`--enable-dp-attention` with `--dp-size 1` is not reported: 0.5.17 trips this check on it, "
    "later releases read it as no attention DP.",
)

rule(
    code="SGL581",
    name="dspark-dp-attention-with-unsupported-moe-a2a-backend",
    errors="bc4a5a477a80",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode)
    and cfg.enable_dp_lm_head
    and _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill)
    not in ("none", "megamoe", "mori"),
    at="moe_a2a_backend",
    message="`--speculative-algorithm DSPARK` with DP attention supports `--moe-a2a-backend` none "
    "(the built-in TP MoE), megamoe or mori, got `{moe_a2a_backend}`",
    example=f"{_DSPARK_DP} --enable-dp-lm-head --moe-a2a-backend deepep",
    near_miss=f"{_DSPARK_DP} --enable-dp-lm-head --moe-a2a-backend none",
)

rule(
    code="SGL582",
    name="dspark-dp-attention-with-context-parallel",
    errors="9d00f2632d5c",
    # The a2a backend is the built-in TP MoE, which every release allows here and which
    # skips the ragged-verify check.
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False))
    and cfg.enable_dp_lm_head
    and _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill) == "none"
    and cfg.attn_cp_size > 1,
    at="attn_cp_size",
    message="`--speculative-algorithm DSPARK` with DP attention does not support context parallelism "
    "(`--attn-cp-size {attn_cp_size}`)",
    fix=remove("attn_cp_size"),
    example="--model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK "
    "--speculative-draft-model-path org/Qwen3-8B-DSpark --tp-size 4 --dp-size 2 --enable-dp-attention "
    "--enable-dp-lm-head --attn-cp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK "
    "--speculative-draft-model-path org/Qwen3-8B-DSpark --tp-size 4 --dp-size 2 --enable-dp-attention "
    "--enable-dp-lm-head",
    note="With another MoE a2a backend (megamoe, mori) the rule stays quiet.",
)

rule(
    code="SGL583",
    name="dspark-dp-attention-with-other-speculative-moe-a2a-backend",
    errors="8db06951e778",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1
    and _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False))
    and cfg.enable_dp_lm_head
    and _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill) == "none"
    and _not_minimax_m3(cfg.model)
    and cfg.attn_cp_size <= 1
    and cfg.speculative_moe_a2a_backend is not None and cfg.speculative_moe_a2a_backend != "none",
    at="speculative_moe_a2a_backend",
    message="`--speculative-algorithm DSPARK` ignores `--speculative-moe-a2a-backend`; with DP attention it "
    "must match the target's `--moe-a2a-backend` (none), got `{speculative_moe_a2a_backend}`",
    fix=remove("speculative_moe_a2a_backend"),
    safe=True,
    example=f"{_DSPARK_DP} --enable-dp-lm-head --speculative-moe-a2a-backend deepep",
    near_miss=f"{_DSPARK_DP} --enable-dp-lm-head",
    note="Only a target on the built-in TP MoE (`--moe-a2a-backend none`) is checked.",
)

# -- _handle_dspark: pipeline parallelism (0.5.21 on) -------------------------------------

rule(
    code="SGL584",
    name="dspark-pipeline-parallelism-without-pd-prefill",
    errors="3a049bcebd30",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _dp_block_passes(
        _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1,
        _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode),
        cfg.enable_dp_lm_head, _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill),
        cfg.attn_cp_size, cfg.speculative_moe_a2a_backend)
    and cfg.pp_size != 1 and cfg.disaggregation_mode != "prefill",
    at="pp_size",
    message="`--speculative-algorithm DSPARK` with `--pp-size {pp_size}` needs a PD prefill server "
    "(`--disaggregation-mode prefill`); decode and non-disaggregated serving require `--pp-size 1`",
    fix=remove("pp_size"),
    example=f"{_DSPARK} --pp-size 2",
    near_miss=f"{_DSPARK} --pp-size 1",
)

# -- _handle_dspark: gamma and the verify window ------------------------------------------
# After the DP block and the pipeline check (pp 1 passes them in every release), with a
# written draft model (a target checkpoint may bundle one: autofix cannot tell).

rule(
    code="SGL585",
    name="dspark-block-size-not-positive",
    errors="2df46a90e770",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _dp_block_passes(
        _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1,
        _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False)),
        cfg.enable_dp_lm_head, _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill),
        cfg.attn_cp_size, cfg.speculative_moe_a2a_backend)
    and cfg.pp_size == 1 and cfg.speculative_draft_model_path is not None
    and cfg.speculative_dspark_block_size is not None and cfg.speculative_dspark_block_size <= 0,
    at="speculative_dspark_block_size",
    message="`--speculative-dspark-block-size {speculative_dspark_block_size}` must be positive",
    fix=remove("speculative_dspark_block_size"),
    example=f"{_DSPARK} --speculative-dspark-block-size 0",
    near_miss=f"{_DSPARK} --speculative-dspark-block-size 4",
)


def _verify_window_message(cfg) -> str:
    block = cfg.speculative_dspark_block_size
    return (f"`--speculative-num-draft-tokens {cfg.speculative_num_draft_tokens}` must equal "
            f"`--speculative-dspark-block-size {block}` + 1 (gamma + 1 = {block + 1}) for DSpark")


rule(
    code="SGL586",
    name="dspark-num-draft-tokens-not-block-size-plus-one",
    errors="3b1c179e239e",
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _dp_block_passes(
        _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1,
        _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False)),
        cfg.enable_dp_lm_head, _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill),
        cfg.attn_cp_size, cfg.speculative_moe_a2a_backend)
    and cfg.pp_size == 1 and cfg.speculative_draft_model_path is not None
    and cfg.speculative_dspark_block_size is not None and cfg.speculative_dspark_block_size > 0
    and cfg.speculative_num_draft_tokens is not None
    and cfg.speculative_num_draft_tokens != cfg.speculative_dspark_block_size + 1,
    at="speculative_num_draft_tokens",
    message=_verify_window_message,
    fix=set_("speculative_num_draft_tokens", lambda cfg: str(cfg.speculative_dspark_block_size + 1)),
    safe=True,
    example=f"{_DSPARK} --speculative-dspark-block-size 4 --speculative-num-draft-tokens 4",
    near_miss=f"{_DSPARK} --speculative-dspark-block-size 4 --speculative-num-draft-tokens 5",
    note="Without `--speculative-dspark-block-size`, gamma comes from the draft model's config and the rule "
    "stays quiet.",
)

rule(
    code="SGL587",
    name="dspark-num-draft-tokens-below-two",
    # With no block size, gamma is the draft config's when it has one: then a window below
    # 2 fails the gamma + 1 check instead (3b1c179e239e); either way SGLang refuses it.
    errors=("4e55e73df4cd", "3b1c179e239e"),
    when=lambda cfg: _dspark(cfg.speculative_algorithm, cfg.model_path,
                             cfg.get("enable_return_aux_hidden_states", False), cfg.device)
    and _dp_block_passes(
        _attention_dp(cfg.get("attn_dp_size", 1), cfg.dp_size, cfg.enable_dp_attention) > 1,
        _dp_as_written(cfg.dwdp_size, cfg.enable_prefill_cp, cfg.ep_join_mode,
                       cfg.get("enable_prefill_context_parallel", False),
                       cfg.get("enable_dsa_prefill_context_parallel", False)),
        cfg.enable_dp_lm_head, _target_a2a(cfg.moe_a2a_backend, cfg.moe_runner_backend, cfg.enable_waterfill),
        cfg.attn_cp_size, cfg.speculative_moe_a2a_backend)
    and cfg.pp_size == 1 and cfg.speculative_draft_model_path is not None
    and cfg.speculative_dspark_block_size is None
    and cfg.speculative_num_draft_tokens is not None and cfg.speculative_num_draft_tokens < 2,
    at="speculative_num_draft_tokens",
    message="`--speculative-num-draft-tokens {speculative_num_draft_tokens}` must be at least 2 for DSpark "
    "(the verify window, gamma + 1)",
    fix=remove("speculative_num_draft_tokens"),
    example=f"{_DSPARK} --speculative-num-draft-tokens 1",
    near_miss=f"{_DSPARK} --speculative-num-draft-tokens 2",
    note="The fix lets SGLang derive the window from the draft's gamma (7 when the draft config has none).",
)

# -- check_watermark_server_args over --watermark-config (0.5.22 on) ----------------------

_WATERMARK = "--model-path Qwen/Qwen3-8B --enable-watermark --watermark-config"

rule(
    code="SGL588",
    name="watermark-key-b-without-key",
    errors="1a24e918e25d",
    when=lambda cfg: _watermark_fails(_watermark(cfg.enable_watermark, cfg.device, cfg.watermark_config))
    == "key_b",
    at="watermark_config",
    message="`--watermark-config` sets `key_b` without `key`: the second watermark key requires a server key",
    example=f"{_WATERMARK} '{{\"key_b\": \"0x2\"}}'",
    near_miss=f"{_WATERMARK} '{{\"key\": \"0x1\", \"key_b\": \"0x2\"}}'",
)

rule(
    code="SGL589",
    name="watermark-mixing-probability-out-of-range",
    errors="d62f884cad42",
    when=lambda cfg: _watermark_fails(_watermark(cfg.enable_watermark, cfg.device, cfg.watermark_config))
    == "mixing_range",
    at="watermark_config",
    message="`--watermark-config` `mixing_probability` must be strictly between 0 and 1",
    example=f"{_WATERMARK} '{{\"mixing_probability\": 0}}'",
    near_miss=f"{_WATERMARK} '{{\"mixing_probability\": 0.5}}'",
)

rule(
    code="SGL590",
    name="watermark-mixing-probability-without-key-b",
    errors="a60bfca6e21a",
    when=lambda cfg: _watermark_fails(_watermark(cfg.enable_watermark, cfg.device, cfg.watermark_config))
    == "mixing_without_key_b",
    at="watermark_config",
    message="`--watermark-config` `mixing_probability` other than 0.5 requires `key_b` (and `key`)",
    example=f"{_WATERMARK} '{{\"mixing_probability\": 0.3}}'",
    near_miss=f"{_WATERMARK} '{{\"key\": \"0x1\", \"key_b\": \"0x2\", \"mixing_probability\": 0.3}}'",
)

rule(
    code="SGL591",
    name="watermark-max-probability-out-of-range",
    errors="279abbd85c39",
    when=lambda cfg: _watermark_fails(_watermark(cfg.enable_watermark, cfg.device, cfg.watermark_config))
    == "max_range",
    at="watermark_config",
    message="`--watermark-config` `max_probability` must be greater than 0 and at most 1",
    example=f"{_WATERMARK} '{{\"max_probability\": 0}}'",
    near_miss=f"{_WATERMARK} '{{\"max_probability\": 1}}'",
)

rule(
    code="SGL592",
    name="watermark-default-enabled-without-key",
    errors="faf87f8ae3df",
    when=lambda cfg: _watermark_fails(_watermark(cfg.enable_watermark, cfg.device, cfg.watermark_config))
    == "default_without_key",
    at="watermark_config",
    message="`--watermark-config` `default_enabled` and `enforce_all` require a server `key`",
    example=f"{_WATERMARK} '{{\"default_enabled\": true}}'",
    near_miss=f"{_WATERMARK} '{{\"default_enabled\": true, \"key\": \"0x1\"}}'",
)

# -- LoRAPathAction (argparse, while parsing --lora-paths) --------------------------------

rule(
    code="SGL593",
    name="lora-paths-json-without-name-and-path",
    errors="8ab23c2bab28",
    when=lambda cfg: _lora_json_without_keys(cfg.lora_paths) is not None,
    at="lora_paths",
    message=lambda cfg: f"`--lora-paths` entry `{_lora_json_without_keys(cfg.lora_paths)}` looks like a JSON "
    "object, which needs both the `lora_name` and `lora_path` keys",
    example="--model-path Qwen/Qwen3-8B --enable-lora --lora-paths '{\"lora_name\": \"a\"}'",
    near_miss="--model-path Qwen/Qwen3-8B --enable-lora --lora-paths '{\"lora_name\": \"a\", \"lora_path\": \"org/a\"}'",
)
