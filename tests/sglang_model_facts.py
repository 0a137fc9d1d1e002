"""SGLang's own ModelConfig on local model folders: what it derives, as JSON (for tests/test_model_facts.py).

Runs in the judge environment, with one SGLang release on the path:

    PYTHONPATH=$ENV/sglang-0.5.23 HF_HUB_OFFLINE=1 $ENV/venv/bin/python tests/sglang_model_facts.py FOLDER...

`ModelConfig(folder)` runs whole (transformers' AutoConfig, `get_hf_text_config`,
`_derive_context_length`, `_derive_model_shapes`) except `_verify_quantization`,
which asks whether this machine's SGLang build supports the checkpoint's method
(the CPU build lacks mxfp4): what is compared is what SGLang reads from the
config, not what it can run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import sglang_oracle  # noqa: E402 - the torchvision stub SGLang's imports need on this CPU build

EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts")


def derived(folder: str) -> dict[str, object]:
    from sglang.srt.configs.model_config import AttentionArch, ModelConfig, is_deepseek_dsa

    ModelConfig._verify_quantization = lambda self: None
    config = ModelConfig(folder, trust_remote_code=False)
    text = config.hf_text_config
    quant = config._parse_quant_hf_config() or {}
    return {
        "architecture": config.hf_config.architectures[0],
        "architectures": list(config.hf_config.architectures),
        "dsa": is_deepseek_dsa(config.hf_config),
        "mla": config.attention_arch == AttentionArch.MLA,
        "num_attention_heads": config.num_attention_heads,
        "num_key_value_heads": config.get_total_num_kv_heads(),
        "head_dim": config.head_dim,
        "kv_lora_rank": getattr(config, "kv_lora_rank", None),
        "qk_rope_head_dim": getattr(config, "qk_rope_head_dim", None),
        "hidden_size": config.hidden_size,
        "intermediate_size": getattr(text, "intermediate_size", None),
        "moe_intermediate_size": getattr(text, "moe_intermediate_size", None),
        "num_experts": next((n for n in (getattr(text, k, None) for k in EXPERT_KEYS) if n is not None), None),
        "context_length": config.context_len,
        # As _check_capture_layer_ids_in_range counts the target's layers.
        "num_hidden_layers": None if getattr(text, "num_hidden_layers", None) is None
        else int(text.num_hidden_layers) * int(getattr(text, "num_loops", 1)),
        "quant_method": quant.get("quant_method", "").lower() or None,
        "weight_block_size": quant.get("weight_block_size"),
    }


def main() -> None:
    sglang_oracle.install_torchvision_stub()
    print(json.dumps({folder: derived(folder) for folder in sys.argv[1:]}))


if __name__ == "__main__":
    main()
