#!/usr/bin/env bash
# The GPU checks of issues 45 and 46 as one run on a device machine (the `device` tool's `run`, carrying .devpack), from
# a build made on a CPU machine and packed with the shared libraries the device image lacks (scripts/device/pack-build.sh).
# Writes everything under $OUT (at most 8 files): a tarball of the logs and results, and the main JSON files.
# Usage on the device: [SKIP_TORCH=1] [SKIP_TRANSFORMER=1] [SKIP_COMPUTE=1] bash scripts/device/run-gpu-checks.sh [quick]
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/res
R=/tmp/res
quick=${1:-}
here=$(pwd)
export CCSIM_DATA_DIR=$here
cublas_dirs=$(python3 - <<'PY' 2>/dev/null
import glob, os
dirs = set()
for pattern in ["/usr/local/cuda/lib64/libcublasLt.so*", "/usr/local/cuda*/targets/*/lib/libcublasLt.so*",
                "/opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib/libcublasLt.so*",
                "/opt/torch/.venv/lib/python3*/site-packages/nvidia/*/*/lib/libcublasLt.so*",
                "/usr/lib/x86_64-linux-gnu/libcublasLt.so*"]:
    dirs.update(os.path.dirname(p) for p in glob.glob(pattern))
print(":".join(sorted(dirs)))
PY
)
P=/tmp/devpack
mkdir -p $P && tar -C $P -xJf .devpack/pack.tar.xz
libs="$P/lib:${cublas_dirs}"
# The build's C++ runtime only where the device's lacks the newest symbol version the build uses.
need=$(grep -ao "GLIBCXX_3\.4\.[0-9]*" $P/fallback/libstdc++.so.6 | sort -uV | tail -1)
system=$(ldconfig -p | awk '/libstdc\+\+.so.6 .*x86-64/ {print $NF; exit}')
grep -qa "$need" "$system" 2>/dev/null || libs="$libs:$P/fallback"
# Only ccsim's processes see these libraries (PyTorch keeps its own): wrappers on the PATH.
mkdir -p $P/bin
for b in build/ccsim build/tests/test_numerics; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec %s "$@"\n' "$libs" "$P/$b" > "$P/bin/$(basename $b)"
  chmod +x "$P/bin/$(basename $b)"
done
export PATH="$P/bin:$PATH"
t0=$SECONDS
# Each step first packs what the earlier ones left, so a run stopped at its limit still brings them back.
step() {
  echo "== $1 ($((SECONDS - t0)) s)" | tee -a $R/steps.log
  cp $R/steps.log "$OUT/"
  tar -C /tmp -czf "$OUT/results.tar.gz" res
}

step "device"
{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv;
  nvcc --version; echo "libs=$libs"; LD_LIBRARY_PATH="$libs" ldd $P/build/ccsim; cat /etc/os-release; } > $R/device.txt 2>&1
ccsim --version >> $R/device.txt 2>&1

step "cuda tests"
large=$(( (1 << 31) + 37 ))
[ -n "$quick" ] && large=$(( (1 << 20) + 37 ))
CCSIM_CUDA_LARGE_N=$large timeout 240 test_numerics "[cuda]" -r compact --durations yes > $R/cuda-tests.log 2>&1
echo "rc=$?" >> $R/cuda-tests.log
tail -3 $R/cuda-tests.log

step "bench-kernels"
for bytes in 67108864 1073741824; do
  timeout 120 ccsim bench-kernels --backend cuda --bytes $bytes --repeats 21 --format json \
    > $R/bench-kernels-$bytes.json 2> $R/bench-kernels-$bytes.err
  timeout 120 ccsim bench-kernels --backend cuda --bytes $bytes --repeats 21 >> $R/bench-kernels.txt 2>&1
done

step "bench-compute"
if [ -n "${SKIP_COMPUTE:-}" ]; then
  :
elif [ -n "$quick" ]; then
  timeout 120 ccsim bench-compute --backend cuda --quick --format json > $R/bench-compute.json 2> $R/bench-compute.err
else
  timeout 240 ccsim bench-compute --backend cuda --format json > $R/bench-compute.json 2> $R/bench-compute.err
fi
echo "rc=$?" >> $R/bench-compute.err
cp $R/bench-compute.json "$OUT/" 2>/dev/null

step "torch"
[ -n "${SKIP_TORCH:-}" ] || PYTHONUNBUFFERED=1 timeout 200 python3 scripts/device/torch_compute_bench.py --out $R/torch-compute.json $([ -n "$quick" ] && echo --quick) \
  > $R/torch.log 2>&1
cp $R/torch-compute.json "$OUT/" 2>/dev/null

step "train"
train() { # name, then ccsim train arguments
  local name=$1; shift
  for backend in cpu cuda; do
    local s=$(date +%s%N)
    timeout 200 ccsim train "$@" --backend $backend --format json > $R/train-$name-$backend.json 2> $R/train-$name-$backend.err
    echo "$name $backend rc=$? ms=$(( ($(date +%s%N) - s) / 1000000 ))" >> $R/train-times.txt
  done
}
if [ -n "$quick" ]; then
  train mlp --model mlp --algorithm onebit-adam,sdp4bit --workers 8 --steps 20 --seed 1
else
  train mlp --model mlp --algorithm onebit-adam,onebit-lamb,sdp4bit,zeropp,aq-sgd --workers 8 --steps 300 --seed 1
  [ -n "${SKIP_TRANSFORMER:-}" ] || train transformer --model tiny-transformer --algorithm onebit-adam,onebit-lamb,sdp4bit,zeropp --workers 4 --steps 60 --seed 1
fi
cat $R/train-times.txt

step "ncu"
# What bounds each compression kernel: DRAM and SM throughput as shares of peak, per kernel launch (one repeat).
if command -v ncu >/dev/null; then
  timeout 90 ncu --clock-control none --target-processes all --csv \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum \
    $P/bin/ccsim bench-kernels --backend cuda --bytes 268435456 --repeats 1 > $R/ncu-bench-kernels.csv 2> $R/ncu.err
  echo "rc=$?" >> $R/ncu.err
fi

step "done"
ls -la "$OUT"
