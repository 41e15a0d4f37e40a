#!/usr/bin/env bash
# scripts/lint-layers.sh must fail on a tree whose files include upward (tests/lint/bad-layers), naming each such
# include and none of the allowed ones, inside sim/'s rooms too, and a file in no room; and pass on the project itself.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=$(bash "$here/../../scripts/lint-layers.sh" "$here/bad-layers" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "expected exit 1, got $rc: $out"; exit 1; }
for bad in "sim/step/Bad.cpp:3" "sim/step/Bad.cpp:4" "sim/step/Bad.cpp:6" "sim/nccl/Bad.cpp:2" "api/output/Bad.cpp:3" \
           "numerics/Bad.cpp:3" "numerics/Bad.cpp:4" "numerics/Bad.cpp:5" "sim/Loose.cpp"; do
  grep -q "$bad:" <<<"$out" || { echo "not reported: $bad"; echo "$out"; exit 1; }
done
for good in "sim/step/Bad.cpp:5" "sim/nccl/Bad.cpp:3" "api/output/Bad.cpp:2"; do
  grep -q "$good:" <<<"$out" && { echo "reported although allowed: $good"; echo "$out"; exit 1; }
done
[ "$(grep -c 'lint-layers: ' <<<"$out")" -eq 9 ] || { echo "expected exactly 9 reports"; echo "$out"; exit 1; }
bash "$here/../../scripts/lint-layers.sh" "$here/../.." >/dev/null || { echo "the project itself breaks its layers"; exit 1; }
echo "lint-layers catches every upward include"
