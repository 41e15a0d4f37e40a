#!/usr/bin/env bash
# docs/validation.md's generated tables (scripts/validation-tables.py) must be what this build's experiments give, and
# the check must catch a table that is not: one prediction changed in a copy of the document fails it, naming the block.
#   tests/lint/validation_tables_catch_stale.sh CCSIM
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
ccsim="$1"
cd "$root" || exit 1
out=$(python3 scripts/validation-tables.py --check --ccsim "$ccsim" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "docs/validation.md is stale (exit $rc): $out"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The first data row of the large-model table (korthikanti 22B): its ccsim value changed by hand.
python3 - "$tmp/validation.md" <<'PY'
import re, sys
text = open("docs/validation.md", encoding="utf-8").read()
row = re.search(r"^\| korthikanti-table5 \| ([^|]*)\| step_time_s \| ([^|]*)\| ([^|]*)\|", text, re.M)
assert row, "no korthikanti-table5 row in the generated table"
start, end = row.span(3)
open(sys.argv[1], "w", encoding="utf-8").write(text[:start] + " 9.999 " + text[end:])
PY
out=$(python3 scripts/validation-tables.py --check --ccsim "$ccsim" --doc "$tmp/validation.md" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "a changed prediction was not caught (exit $rc): $out"; exit 1; }
grep -qF "stale tables (korthikanti-table5,korthikanti-table5-vpp" <<<"$out" || { echo "the stale block is not named: $out"; exit 1; }
echo "docs/validation.md's generated tables agree with the experiments, and a changed value is caught"
