#!/usr/bin/env bash
# Build the CPU-only environment in which SGLang's own argument parser runs,
# for scripts/sglang_oracle.py, scripts/gen_knowledge.py and the oracle tests.
#
#   scripts/sglang_env.sh [VERSION...]     default: every release autofix knows
#
# Layout under ${AUTOFIX_SGLANG_ENV:-<repo>/.sglang-env}:
#   venv/              python with CPU torch, triton (--no-deps) and the light
#                      packages sglang's server arguments import
#   sglang-<version>/  one release, `pip install --no-deps --target`; run with
#                      PYTHONPATH=<env>/sglang-<version> <env>/venv/bin/python
#   constraints.txt    keeps pip from ever swapping torch for a CUDA build
#   build.log          pip's output for the venv, build-<version>.log for each release;
#                      the tail is printed when a step fails
#
# Idempotent: finished parts carry a stamp and are skipped, so a second run
# only checks stamps. Changing the pins below rebuilds the venv.
# Never install torchvision here: the PyPI wheel is a CUDA build that drags in
# several GB of CUDA torch; sglang_oracle.py stubs it at import time instead.
set -euo pipefail

ALL_VERSIONS=(0.5.17 0.5.18 0.5.19 0.5.20 0.5.21 0.5.22 0.5.23)
TORCH="torch==2.13.0"   # the CPU wheel pip finds on this kind of machine
TRITON="triton==3.9.0"  # imported by sglang.srt.utils.common; fine without a GPU
LIGHT_PACKAGES=(
    transformers==5.12.1 openai==2.6.1 xgrammar==0.2.1 numpy==2.4.6
    pyyaml==6.0.4 orjson==3.13.0 psutil==7.2.2 pybase64==1.5.1
    requests==2.34.2 packaging==26.4 pillow==13.0.0 starlette==1.10.0
    tqdm==4.70.1 ipython==9.18.1 pydantic==2.14.4 aiohttp==3.14.5
    msgspec==0.23.0 pyzmq==27.3.0 dill==0.4.1 partial-json-parser==0.2.1.1.post7
    sentencepiece==0.2.3
    # sglang.srt.configs.model_config imports the quantization registry:
    einops==0.8.2 compressed-tensors==0.20.1 gguf==0.19.0
)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
env_dir=${AUTOFIX_SGLANG_ENV:-$repo/.sglang-env}
python=${AUTOFIX_SGLANG_PYTHON:-python3}
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
    versions=("${ALL_VERSIONS[@]}")
fi

mkdir -p "$env_dir"
env_dir=$(cd "$env_dir" && pwd)
log=$env_dir/build.log
venv=$env_dir/venv
pip=("$venv/bin/python" -m pip --disable-pip-version-check)

say() { echo "sglang_env: $*"; }

run() {
    echo "+ $*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        echo "sglang_env: FAILED: $*" >&2
        echo "sglang_env: last lines of $log:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
}

venv_spec="$TORCH $TRITON ${LIGHT_PACKAGES[*]}"
venv_stamp=$venv/.autofix-ready

build_venv() {
    say "building venv in $venv (torch CPU, triton, ${#LIGHT_PACKAGES[@]} light packages)"
    echo "$TORCH" >"$env_dir/constraints.txt"
    run "$python" -m venv --clear "$venv"
    run "${pip[@]}" install -q -c "$env_dir/constraints.txt" "$TORCH"
    run "${pip[@]}" install -q --no-deps "$TRITON"
    run "${pip[@]}" install -q -c "$env_dir/constraints.txt" "${LIGHT_PACKAGES[@]}"
    local cuda
    cuda=$("$venv/bin/python" -c 'import torch; print(torch.version.cuda)')
    if [ "$cuda" != "None" ]; then
        echo "sglang_env: FAILED: torch in $venv is a CUDA build ($cuda), expected CPU" >&2
        exit 1
    fi
    echo "$venv_spec" >"$venv_stamp"
}

if [ -f "$venv_stamp" ] && [ "$(cat "$venv_stamp")" = "$venv_spec" ]; then
    :
else
    build_venv
fi

install_release() {
    local version=$1 target=$env_dir/sglang-$1 log=$env_dir/build-$1.log
    rm -rf "$target"
    if ! "${pip[@]}" install -q --no-deps --target "$target" "sglang==$version" >"$log" 2>&1; then
        echo "sglang_env: FAILED: pip install sglang==$version" >&2
        tail -n 30 "$log" >&2
        return 1
    fi
    # Prove the parser builds before calling the release usable.
    if ! PYTHONPATH="$target" "$venv/bin/python" "$repo/scripts/sglang_oracle.py" options >/dev/null 2>>"$log"; then
        echo "sglang_env: FAILED: SGLang $version's parser does not build; see $log" >&2
        tail -n 30 "$log" >&2
        return 1
    fi
    echo "$version" >"$target/.autofix-ready"
}

# Releases install side by side, two at a time (downloads and unpacking overlap).
pending=()
for version in "${versions[@]}"; do
    [ -f "$env_dir/sglang-$version/.autofix-ready" ] || pending+=("$version")
done
failed=0
for ((i = 0; i < ${#pending[@]}; i += 2)); do
    pids=()
    for version in "${pending[@]:i:2}"; do
        say "installing sglang $version"
        install_release "$version" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || failed=1
    done
done
[ "$failed" -eq 0 ] || exit 1

say "ready: $env_dir (${versions[*]})"
