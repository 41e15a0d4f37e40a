#!/usr/bin/env bash
# Holds the code to its layers (ARCHITECTURE.md): every #include "folder/..." of a source file must point to its own
# folder or to one the table below allows, so dependencies run one way:
#
#   cli/, python/ -> api/ -> algorithms/ -> workloads/ -> numerics/ (-> numerics/cuda/)
#                               -> sim/
#   and inside api/: training/, advise/, calibration/ -> experiment/ -> run/ -> output/ -> process/
#
# A folder may include any folder below it, never one above or beside it that the table does not name. Fails and
# names file:line for each include that breaks the rule. Usage: scripts/lint-layers.sh [SOURCE_DIR]
set -uo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root" || exit 2
status=0

# folder (as it prefixes an include) -> the folders it may include besides itself, space-separated
declare -A allowed=(
  [numerics/cuda]="numerics"
  [numerics]="numerics/cuda"
  [sim]=""
  [workloads]="numerics numerics/cuda"
  [algorithms]="sim numerics numerics/cuda workloads"
  [api/process]="sim"
  [api/output]="api/process sim"
  [api/run]="api/output api/process algorithms sim numerics numerics/cuda workloads"
  [api/experiment]="api/run api/output api/process algorithms sim numerics workloads"
  [api/calibration]="api/experiment api/run api/output api/process algorithms sim numerics workloads"
  [api/advise]="api/experiment api/run api/output api/process algorithms sim numerics workloads"
  [api/training]="api/run api/output api/process algorithms sim numerics numerics/cuda workloads"
  [cli]="api/training api/advise api/calibration api/experiment api/run api/output api/process algorithms sim numerics numerics/cuda workloads"
  [python]="api/training api/advise api/calibration api/experiment api/run api/output api/process algorithms sim numerics numerics/cuda workloads"
)

# The folder an include path or a file belongs to: the longest key of `allowed` it starts with.
folder_of() {
  local path="$1" best=""
  for f in "${!allowed[@]}"; do
    if [[ "$path" == "$f/"* && ${#f} -gt ${#best} ]]; then best="$f"; fi
  done
  echo "$best"
}

while IFS= read -r file; do
  from=$(folder_of "$file")
  [ -n "$from" ] || continue
  while IFS=: read -r line target; do
    to=$(folder_of "$target")
    [ -n "$to" ] || continue # a project folder not in the table (tests/ support headers): not a layer
    [ "$to" = "$from" ] && continue
    ok=0
    for a in ${allowed[$from]}; do [ "$a" = "$to" ] && ok=1; done
    if [ "$ok" -eq 0 ]; then
      echo "lint-layers: $file:$line: $from/ includes $target, which is not below it" >&2
      status=1
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done < <(find numerics sim workloads algorithms api cli python -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null | sort)

if [ "$status" -eq 0 ]; then
  echo "lint-layers: clean"
fi
exit "$status"
