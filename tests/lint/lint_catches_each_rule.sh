#!/usr/bin/env bash
# The lint must fail on a tree that breaks each of its rules once (tests/lint/bad), naming every rule.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=$(bash "$here/../../scripts/lint-inputs.sh" "$here/bad" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "expected exit 1, got $rc: $out"; exit 1; }
for rule in "runs a shell" "numeric Boost option" "unchecked text-to-number" "JSON dumped without"; do
  grep -q "$rule" <<<"$out" || { echo "rule not reported: $rule"; echo "$out"; exit 1; }
done
echo "lint catches every rule"
