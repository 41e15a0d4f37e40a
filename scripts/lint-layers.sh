#!/usr/bin/env bash
# Holds the code to its layers (ARCHITECTURE.md): every #include "folder/..." of a source file must point to its own
# folder or to one the table below allows, so dependencies run one way:
#
#   cli/, python/ -> api/ -> algorithms/ -> workloads/ -> numerics/ -> numerics/cuda/ (interfaces only: cuda includes
#                               -> sim/                                numerics' kernel interface, never the reverse)
#   everything -> io/ (the input and error layer)
#   inside sim/: engine/ -> schedule/ -> step/ -> collective/ -> nccl/ -> layout/ -> compute/ -> platform/ -> model/
#   inside api/: options/ -> training/, advise/, calibration/ -> experiment/ -> run/ -> output/ -> process/
#                (options/: each command's option table and request builder, above every room it fills a request of)
#
# A room may include any room the table names, never one above or beside it. Sub-folders are rooms of their own:
# a file's room is the longest key below that prefixes its path, and an include of a folder with no key of its own
# (a new sub-folder) is an error, so a new room must be placed in the table. Fails and names file:line for each include
# that breaks the rule. Usage: scripts/lint-layers.sh [SOURCE_DIR]
set -uo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root" || exit 2
status=0

# folder (as it prefixes an include) -> the folders it may include besides itself, space-separated
declare -A allowed=(
  [io]=""
  [numerics/cuda]="numerics"
  [numerics]="io"
  [sim/model]="io"
  [sim/platform]="sim/model io"
  [sim/compute]="sim/platform sim/model io"
  [sim/layout]="sim/compute sim/platform sim/model io"
  [sim/nccl]="sim/layout sim/compute sim/platform sim/model io"
  [sim/collective]="sim/nccl sim/layout sim/compute sim/platform sim/model io"
  [sim/step]="sim/collective sim/nccl sim/layout sim/compute sim/platform sim/model io"
  [sim/schedule]="sim/step sim/collective sim/nccl sim/layout sim/compute sim/platform sim/model io"
  [sim/engine]="sim/schedule sim/step sim/collective sim/nccl sim/layout sim/compute sim/platform sim/model io"
  [workloads]="numerics numerics/cuda io"
  [algorithms]="sim numerics numerics/cuda workloads io"
  [api/process]="io"
  [api/output]="api/process io"
  [api/run]="api/output api/process algorithms sim numerics numerics/cuda workloads io"
  [api/experiment]="api/run api/output api/process algorithms sim numerics workloads io"
  [api/calibration]="api/experiment api/run api/output api/process algorithms sim numerics workloads io"
  [api/advise]="api/experiment api/run api/output api/process algorithms sim numerics workloads io"
  [api/training]="api/run api/output api/process algorithms sim numerics numerics/cuda workloads io"
  [api/options]="api/training api/advise api/calibration api/experiment api/run api/output api/process algorithms sim numerics workloads io"
  [cli]="api/options api/training api/advise api/calibration api/experiment api/run api/output api/process algorithms sim numerics numerics/cuda workloads io"
  [python]="api/options api/training api/advise api/calibration api/experiment api/run api/output api/process algorithms sim numerics numerics/cuda workloads io"
)

# The folder an include path or a file belongs to: the longest key of `allowed` it starts with.
folder_of() {
  local path="$1" best=""
  for f in "${!allowed[@]}"; do
    if [[ "$path" == "$f/"* && ${#f} -gt ${#best} ]]; then best="$f"; fi
  done
  echo "$best"
}

# A path under one of these folders must belong to a room of the table (a file directly in sim/, outside its rooms,
# does not).
tops="io numerics sim workloads algorithms api cli python"
under_tops() {
  local t
  for t in $tops; do [[ "$1" == "$t/"* ]] && return 0; done
  return 1
}

while IFS= read -r file; do
  from=$(folder_of "$file")
  if [ -z "$from" ]; then
    echo "lint-layers: $file: is in no room of the table (put it in a sub-folder the table names)" >&2
    status=1
    continue
  fi
  while IFS=: read -r line target; do
    to=$(folder_of "$target")
    if [ -z "$to" ]; then
      if under_tops "$target"; then
        echo "lint-layers: $file:$line: includes $target, which is in no room of the table" >&2
        status=1
      fi
      continue # a project folder not in the table (tests/ support headers): not a layer
    fi
    [ "$to" = "$from" ] && continue
    ok=0
    # An entry names a room, or a whole folder of rooms ("sim": any room under sim/).
    for a in ${allowed[$from]}; do [[ "$a" = "$to" || "$to" == "$a/"* ]] && ok=1; done
    if [ "$ok" -eq 0 ]; then
      echo "lint-layers: $file:$line: $from/ includes $target, which is not below it" >&2
      status=1
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done < <(find io numerics sim workloads algorithms api cli python -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null | sort)

if [ "$status" -eq 0 ]; then
  echo "lint-layers: clean"
fi
exit "$status"
