#!/usr/bin/env bash
# Keeps the input-hardening classes of issue 11 from coming back. Fails (and names file:line) when code in the
# project's source folders:
#   - runs a shell: std::system, popen, exec* of "sh" (spawn with an argument vector: api/process/Spawn.hpp);
#   - declares a numeric Boost option (po::value<int>, <double>, <std::uint64_t>, ...): Boost wraps "-1" into 2^64-1
#     and accepts nan; declare the option in its command's table (api/options/), whose reader parses its text;
#   - converts user text with std::stoi/stod/stoul/..., atoi/atof or strtol/strtod (they accept trailing junk,
#     nan and inf, or wrap): use io::parse_integer / io::parse_number (io/JsonInput.hpp);
#   - dumps JSON in cli/ or api/ with .dump( instead of io::dump_json, which never throws on invalid UTF-8.
# Usage: scripts/lint-inputs.sh [SOURCE_DIR]
set -uo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root" || exit 2
folders=(cli api io sim algorithms workloads numerics)
status=0

check() { # message, extended regex, folders...
  local message="$1" pattern="$2"
  shift 2
  local hits
  # Comments are not code: drop lines whose first non-blank characters are // or *.
  hits=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' "$pattern" "$@" 2>/dev/null |
         grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|\*)')
  if [ -n "$hits" ]; then
    echo "lint-inputs: $message" >&2
    echo "$hits" >&2
    status=1
  fi
}

check "runs a shell (spawn with an argument vector, api/process/Spawn.hpp)" \
  '(std::system|[^_[:alnum:]]system|popen|execl[p]?)[[:space:]]*\(' "${folders[@]}"
check "numeric Boost option (declare it in its command's option table, api/options/, read as text by its kind)" \
  'po::value<[[:space:]]*(int|unsigned|long|short|float|double|std::u?int[0-9]+_t|std::size_t|size_t)' "${folders[@]}"
check "unchecked text-to-number conversion (use io::parse_integer / io::parse_number)" \
  '(std::sto(i|l|ll|ul|ull|f|d|ld)|[^_[:alnum:]]ato(i|l|ll|f)|[^_[:alnum:]]strto(l|ll|ul|ull|f|d|ld|imax|umax))[[:space:]]*\(' \
  "${folders[@]}"
check "JSON dumped without io::dump_json (invalid UTF-8 would throw)" '\.dump\(' cli api

if [ "$status" -eq 0 ]; then
  echo "lint-inputs: clean"
fi
exit "$status"
