#!/bin/bash
# Serve DeepSeek-V3 on one 8-GPU Blackwell node with the tokenspeed MLA kernels.
set -euo pipefail

MODEL=${MODEL:-deepseek-ai/DeepSeek-V3}
PORT=${PORT:-30000}

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --tp 8 \
    --attention-backend tokenspeed_mla \
    --mem-fraction-static 0.85 \
    --host 0.0.0.0 \
    --port "$PORT"
