#!/usr/bin/env bash
# scripts/lint-layers.sh must fail on a tree whose files include upward (tests/lint/bad-layers), naming each such
# include and none of the allowed ones, and pass on the project itself.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=$(bash "$here/../../scripts/lint-layers.sh" "$here/bad-layers" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "expected exit 1, got $rc: $out"; exit 1; }
for bad in "sim/Bad.cpp:2" "sim/Bad.cpp:3" "api/output/Bad.cpp:3" "numerics/Bad.cpp:2" "numerics/Bad.cpp:3"; do
  grep -q "$bad:" <<<"$out" || { echo "not reported: $bad"; echo "$out"; exit 1; }
done
for good in "sim/Bad.cpp:4" "api/output/Bad.cpp:2"; do
  grep -q "$good:" <<<"$out" && { echo "reported although allowed: $good"; echo "$out"; exit 1; }
done
[ "$(grep -c 'lint-layers: .*includes' <<<"$out")" -eq 5 ] || { echo "expected exactly 5 reports"; echo "$out"; exit 1; }
bash "$here/../../scripts/lint-layers.sh" "$here/../.." >/dev/null || { echo "the project itself breaks its layers"; exit 1; }
echo "lint-layers catches every upward include"
