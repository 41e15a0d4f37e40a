#!/usr/bin/env bash
# Builds ccsim (via scripts/setup.sh) and runs the whole test suite with CTest. This is the README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 900
