#!/usr/bin/env bash
# Build the CPU-only environment in which SGLang's own argument parser runs,
# for scripts/sglang_oracle.py, scripts/gen_knowledge.py and the oracle tests.
#
#   scripts/sglang_env.sh [VERSION...]     default: every release autofix knows
#
# Layout under ${AUTOFIX_SGLANG_ENV:-<repo>/.sglang-env}:
#   venv/              python with CPU torch, triton (--no-deps) and the light
#                      packages sglang's server arguments import
#   sglang-<version>/  one release, installed `--no-deps --target`; run with
#                      PYTHONPATH=<env>/sglang-<version> <env>/venv/bin/python
#   constraints.txt    keeps the installer from ever swapping torch for a CUDA build
#   build.log          the installer's output for the venv, build-<version>.log for
#                      each release; the tail is printed when a step fails
#
# Built once per machine: unless ${AUTOFIX_SGLANG_ENV:-<repo>/.sglang-env} is
# already a real folder (then it is built and checked in place), it is a
# symlink to ${AUTOFIX_SGLANG_CACHE:-${XDG_CACHE_HOME:-~/.cache}/autofix/sglang-env}/<hash>,
# the hash being that of the pins below and the Python: every checkout on the
# machine shares one build, and changing a pin builds a new one beside it.
# AUTOFIX_SGLANG_CACHE= (empty) builds in place instead. A lock serialises
# builders of one folder.
#
# Idempotent: finished parts carry a stamp and are skipped, so a second run
# only checks stamps.
#
# Installs with uv when there is one ($AUTOFIX_UV, the checkout's .venv/bin/uv,
# which `pip install -e '.[test]'` brings, or uv on PATH), else with pip. uv
# makes the venv and downloads the releases at the same time; torch is taken
# as the CPU wheel pip's find-links offer (this kind of machine keeps one on
# disk), never a CUDA build from the index.
# Never install torchvision here: the PyPI wheel is a CUDA build that drags in
# several GB of CUDA torch; sglang_oracle.py stubs it at import time instead.
set -euo pipefail

TORCH="torch==2.13.0"   # the CPU wheel pip finds on this kind of machine
TORCH_CPU="torch==2.13.0+cpu"  # the same wheel, named exactly for uv
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
# The releases autofix knows: the one list the package and the generators read too.
mapfile -t ALL_VERSIONS < <(grep -v '^[[:space:]]*$' "$repo/autofix/knowledge/releases.txt")
link=${AUTOFIX_SGLANG_ENV:-$repo/.sglang-env}
python=${AUTOFIX_SGLANG_PYTHON:-python3}
python=$("$python" -c 'import sys; print(sys.executable)')  # the interpreter itself, not a shim
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
    versions=("${ALL_VERSIONS[@]}")
fi

say() { echo "sglang_env: $*"; }

venv_spec="$TORCH $TRITON ${LIGHT_PACKAGES[*]}"
cache_root=${AUTOFIX_SGLANG_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/autofix/sglang-env}
if [ -d "$link" ] && [ ! -L "$link" ]; then
    env_dir=$link
elif [ -n "$cache_root" ]; then
    python_id=$("$python" -c 'import platform, sys; print(sys.implementation.cache_tag, platform.machine(), sys.version)')
    spec_hash=$(printf '%s\n' "sglang-env 2" "$python_id" "$venv_spec" | sha256sum | cut -c1-16)
    env_dir=$cache_root/$spec_hash
    mkdir -p "$env_dir" "$(dirname "$link")"
    ln -sfn "$env_dir" "$link"
else
    env_dir=$link
fi
mkdir -p "$env_dir"
env_dir=$(cd "$env_dir" && pwd)
log=$env_dir/build.log
venv=$env_dir/venv
venv_stamp=$venv/.autofix-ready

# One builder at a time per folder: a second CI on the machine waits, then finds the stamps.
exec 9>>"$env_dir/.lock"
flock 9

uv=${AUTOFIX_UV:-}
if [ -z "$uv" ] && [ -x "$repo/.venv/bin/uv" ]; then
    uv=$repo/.venv/bin/uv
elif [ -z "$uv" ] && command -v uv >/dev/null; then
    uv=$(command -v uv)
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check)

fail() {
    echo "sglang_env: FAILED: $1" >&2
    echo "sglang_env: last lines of $2:" >&2
    tail -n 30 "$2" >&2
    exit 1
}

run() {
    echo "+ $*" >>"$log"
    "$@" >>"$log" 2>&1 || fail "$*" "$log"
}

build_venv() {
    : >"$log"
    echo "$TORCH" >"$env_dir/constraints.txt"
    if [ -n "$uv" ]; then
        # uv reads no pip configuration: hand it pip's find-links, where the CPU torch lies.
        local where find_links=()
        for where in ${PIP_FIND_LINKS:-} $("$python" -m pip config get global.find-links 2>/dev/null || true); do
            [[ " ${find_links[*]} " == *" $where "* ]] || find_links+=(--find-links "$where")
        done
        run "$uv" venv -q --clear --seed --python "$python" "$venv"
        run "$uv" pip install -q --python "$venv/bin/python" "${find_links[@]}" \
            -c "$env_dir/constraints.txt" "$TORCH_CPU" "${LIGHT_PACKAGES[@]}"
        run "$uv" pip install -q --python "$venv/bin/python" --no-deps "$TRITON"
    else
        run "$python" -m venv --clear "$venv"
        run "${pip[@]}" install -q -c "$env_dir/constraints.txt" "$TORCH"
        run "${pip[@]}" install -q --no-deps "$TRITON"
        run "${pip[@]}" install -q -c "$env_dir/constraints.txt" "${LIGHT_PACKAGES[@]}"
    fi
    local cuda
    cuda=$("$venv/bin/python" -c 'import torch; print(torch.version.cuda)')
    if [ "$cuda" != "None" ]; then
        echo "sglang_env: FAILED: torch in $venv is a CUDA build ($cuda), expected CPU" >&2
        exit 1
    fi
    echo "$venv_spec" >"$venv_stamp"
}

# Unpack one release (no venv needed: the files only need this Python's tags).
fetch_release() {
    local version=$1 target=$env_dir/sglang-$1 log=$env_dir/build-$1.log
    rm -rf "$target"
    if [ -n "$uv" ]; then
        "$uv" pip install -q --no-deps --python "$python" --target "$target" "sglang==$version" >"$log" 2>&1 ||
            fail "install sglang==$version" "$log"
    else
        "$python" -m pip --disable-pip-version-check install -q --no-deps --target "$target" "sglang==$version" \
            >"$log" 2>&1 || fail "pip install sglang==$version" "$log"
    fi
}

# Prove the release's parser builds and its rule functions run before calling it
# usable. The import writes bytecode for what the oracle imports (PYTHONDONTWRITEBYTECODE
# is lifted here only), so later runs do not compile sglang, torch and transformers again.
check_release() {
    local version=$1 target=$env_dir/sglang-$1 log=$env_dir/build-$1.log
    local probe='{"patterns": [], "cases": [{"argv": ["--model-path", "m"], "cwd": null, "architecture": null, "gpu": null}]}'
    if ! env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$target" "$venv/bin/python" "$repo/scripts/sglang_oracle.py" judge \
            <<<"$probe" >/dev/null 2>>"$log"; then
        fail "SGLang $version's parser does not build; see $log" "$log"
    fi
    echo "$version" >"$target/.autofix-ready"
}

pending=()
for version in "${versions[@]}"; do
    [ -f "$env_dir/sglang-$version/.autofix-ready" ] || pending+=("$version")
done
need_venv=1
if [ -f "$venv_stamp" ] && [ "$(cat "$venv_stamp")" = "$venv_spec" ]; then
    need_venv=0
fi
if [ "$need_venv" -eq 0 ] && [ ${#pending[@]} -eq 0 ]; then
    say "ready: $env_dir (${versions[*]})"
    exit 0
fi

# The venv and the releases' downloads at once (mostly network and disk), then the
# checks two at a time (CPU: each imports sglang).
pids=()
if [ "$need_venv" -eq 1 ]; then
    say "building venv in $venv (torch CPU, triton, ${#LIGHT_PACKAGES[@]} light packages) with ${uv:-pip}"
    build_venv &
    pids+=($!)
fi
if [ ${#pending[@]} -gt 0 ]; then
    say "installing sglang ${pending[*]}"
fi
for version in "${pending[@]}"; do
    fetch_release "$version" &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
done
[ "$failed" -eq 0 ] || exit 1

for ((i = 0; i < ${#pending[@]}; i += 2)); do
    pids=()
    for version in "${pending[@]:i:2}"; do
        check_release "$version" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || failed=1
    done
done
[ "$failed" -eq 0 ] || exit 1

say "ready: $env_dir (${versions[*]})"
