#!/usr/bin/env bash
# Streaming DiLoCo Table 4 (issue 47): ccsim's bandwidth for each compute utilization within the bound
# scripts/streaming-diloco-table4.py records of the paper's, and utilization never falling as bandwidth grows.
# usage: streaming_diloco_table4.sh CCSIM
set -euo pipefail
ccsim="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$ccsim" experiment "$root/experiments/streaming-diloco-table4.json" --out "$out" --no-plot --fresh >/dev/null
python3 "$root/scripts/streaming-diloco-table4.py" "$out/results.json" --check
