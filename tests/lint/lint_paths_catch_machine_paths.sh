#!/usr/bin/env bash
# scripts/lint-paths.sh must fail on tests/lint/bad-paths, naming the machine path and the absolute path of its data
# file, the missing citation and the machine path of its document, and none of what is allowed there (a JSON pointer,
# a system path in a document, a citation that exists); and it must pass on the project itself.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=$(bash "$here/../../scripts/lint-paths.sh" "$here/bad-paths" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "expected exit 1, got $rc: $out"; exit 1; }
for bad in "topologies/bad.json:1: holds the absolute path '/work/scratch" "topologies/bad.json:1: holds the absolute path '/usr/share" \
           "docs/bad.md:1: cites docs/missing.md" "docs/bad.md:1: holds the absolute path '/home/me"; do
  grep -qF "$bad" <<<"$out" || { echo "not reported: $bad"; echo "$out"; exit 1; }
done
[ "$(grep -c 'lint-paths: ' <<<"$out")" -eq 4 ] || { echo "expected exactly 4 reports"; echo "$out"; exit 1; }
bash "$here/../../scripts/lint-paths.sh" "$here/../.." >/dev/null || { echo "the project itself holds machine paths or cites missing files"; exit 1; }
echo "lint-paths catches machine paths and missing citations"
