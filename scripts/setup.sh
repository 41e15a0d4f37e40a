#!/usr/bin/env bash
# Installs what ccsim needs (Debian 12 packages), then configures and builds it in Release into build/.
# Idempotent and quiet when nothing is missing. Usage: scripts/setup.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config libsimgrid-dev libeigen3-dev nlohmann-json3-dev libfmt-dev
          libboost-program-options-dev catch2 python3 python3-matplotlib openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA backend is built when nvcc is found (/usr/local/cuda here); CMake switches it on by itself.
export PATH="$PATH:/usr/local/cuda/bin"
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
elif (($#)); then
  cmake -S . -B build "$@" >/dev/null
fi
cmake --build build -j"$jobs" 2>&1 | grep -E "error|warning|Error" || true
test -x build/ccsim || { echo "setup: build failed (run: cmake --build build)" >&2; exit 1; }
