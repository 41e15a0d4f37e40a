#!/usr/bin/env bash
# The Python package's tests: installs it with `pip install .` into a virtual environment under build/ (with pytest,
# and pandas and matplotlib for to_pandas() and the example's figure), then runs python/tests, which compare it with
# the command line scripts/setup.sh builds (build/ccsim). CI runs it after scripts/test.sh.
# Usage: scripts/test-python.sh [pytest options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh # the Debian packages and build/ccsim; quiet when both are there

python=${PYTHON:-python3}
venv=build/python-venv
if [ ! -x "$venv/bin/python" ]; then
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 keeps venv (ensurepip) in a package of its own.
    echo "test-python: installing python3-venv" >&2
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    rm -rf "$venv"
    "$python" -m venv "$venv"
  fi
fi
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check . pytest pandas matplotlib
echo "test-python: pip install . took $(($(date +%s) - start)) s" >&2
# From the repository root, where no ccsim/ folder shadows the installed package.
"$venv/bin/python" -m pytest python/tests -q "$@"
