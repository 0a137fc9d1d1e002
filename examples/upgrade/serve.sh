#!/bin/bash
# Serve DeepSeek-V3 on 8 GPUs; written for SGLang 0.5.19.
python3 -m sglang.launch_server \
    --config serve.yaml \
    --cuda-graph-max-bs 160 \
    --nsa-decode-backend flashmla_kv \
    --port 30000
