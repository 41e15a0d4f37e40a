#!/usr/bin/env bash
# Fuzzing campaign over ccsim's input loaders (issue 11): builds the libFuzzer targets of tests/fuzz with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer (build-fuzz/, CUDA off), seeds each corpus with the presets, and
# runs every target for SECONDS (default 60). A crash, a sanitizer report, a reject that is not one line naming the
# file, or an input that takes over 10 s stops that target and leaves its input in build-fuzz/crashes/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: topology workload experiment nccl_tests fits flag_values (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number (got '$seconds')" >&2; exit 2 ;; esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(topology workload experiment nccl_tests fits flag_values)
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang libclang-rt-dev)" >&2; exit 2; }

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
# Configured every time (cheap, and it picks up targets added since the last run).
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCSIM_CUDA=OFF -DCCSIM_FUZZ=ON \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]/#/fuzz_}" 2>&1 | grep -E "error|warning:" || true

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p build-fuzz/crashes
status=0
for t in "${targets[@]}"; do
  bin=build-fuzz/tests/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz.sh: unknown target '$t' (topology workload experiment nccl_tests fits flag_values)" >&2; exit 2; }
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus"
  case $t in
  topology) cp topologies/*.json "$corpus"/ ;;
  workload) cp workloads/*.json "$corpus"/ ;;
  experiment) cp experiments/*.json "$corpus"/ ;;
  nccl_tests) # nccl-tests' own layout, and ccsim collective's when a release build is there
    [ ! -x build/ccsim ] || build/ccsim collective --topology v100x8-ib100 --gpus 16 -b 8 -e 64M -f 4 >"$corpus"/ccsim.txt
    printf '%s\n' "#  Rank  0 Group  0 Pid 1 on node0 device  0 [0x07] NVIDIA A100" \
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong" \
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)" \
      "     1048576        262144     float     sum      -1    52.31   20.05   35.08      0    51.90   20.20   35.35      0" \
      "    16777216       4194304     float     sum      -1    341.2   49.17   86.05      0    340.1   49.33   86.33      0" \
      "# Avg bus bandwidth    : 60.70" >"$corpus"/nccl-tests.txt ;;
  fits) cp experiments/calibration/fits.json "$corpus"/ ;;
  flag_values) printf '%s' 1 > "$corpus"/one; printf '%s' 2.5e3 > "$corpus"/exp; printf '%s' -7 > "$corpus"/neg ;;
  esac
  echo "fuzz.sh: $t for ${seconds} s"
  if ! "$bin" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix=build-fuzz/crashes/"$t"- -print_final_stats=1 2>build-fuzz/"$t".log; then
    echo "fuzz.sh: $t FAILED: see build-fuzz/$t.log and build-fuzz/crashes/" >&2
    tail -n 30 build-fuzz/"$t".log >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" build-fuzz/"$t".log | tail -n 2
  fi
done
exit $status
