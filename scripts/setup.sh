#!/usr/bin/env bash
# Installs what ccsim needs (Debian 12 packages), then configures and builds it in Release into build/.
# Idempotent. Says what it does: the packages it installs, configure, the build's progress (a percentage, on one line
# on a terminal, every 10 % in a log), compiler errors and warnings in full, and how long it took.
# Usage: scripts/setup.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

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
  echo "setup: configuring build/ (Release)" >&2
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
elif (($#)); then
  echo "setup: reconfiguring build/ with $*" >&2
  cmake -S . -B build "$@" >/dev/null
fi

# The build's own "[ 37%]" lines become one progress line; compiler diagnostics ("error:", "warning:", and the
# lines of context after them) are passed through whole. A file name such as ErrorFeedback.cpp is not a diagnostic.
echo "setup: building with $jobs jobs (a fresh build takes about 5 minutes on 2 cores)" >&2
tty=0
[ -t 2 ] && tty=1
set +e
cmake --build build -j"$jobs" 2>&1 | awk -v tty="$tty" '
  /^\[ *[0-9]+%\]/ {
    pct = substr($0, 2, index($0, "%") - 2) + 0
    if (tty) { printf "\rsetup: building %3d %%", pct > "/dev/stderr"; shown = 1 }
    else if (pct >= last + 10 || (pct == 100 && last != 100)) { printf "setup: building %d %%\n", pct > "/dev/stderr"; last = pct }
    next
  }
  /(error|warning):/ || context > 0 {
    if (shown) { printf "\n" > "/dev/stderr"; shown = 0 }
    print > "/dev/stderr"
    context = /(error|warning):/ ? 3 : context - 1
    next
  }
  /^(gmake|make)(\[[0-9]+\])?: \*\*\*/ { if (shown) { printf "\n" > "/dev/stderr"; shown = 0 }; print > "/dev/stderr" }
  END { if (shown) printf "\n" > "/dev/stderr" }'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ] || [ ! -x build/ccsim ]; then
  echo "setup: build failed (run: cmake --build build for the whole log)" >&2
  exit 1
fi
echo "setup: done in $((SECONDS - start)) s: build/ccsim" >&2
