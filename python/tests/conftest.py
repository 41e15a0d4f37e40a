"""What the tests share: the command line to compare with (build/ccsim, or $CCSIM_CLI) and a runner for it.

The command line runs with the source tree's presets (CCSIM_DATA_DIR unset: the folder compiled into it), the package
with its installed copy, so every comparison also checks that the package ships the same presets.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli_path():
    path = Path(os.environ.get("CCSIM_CLI", REPO / "build" / "ccsim"))
    if not path.is_file():
        pytest.fail(f"the command line to compare with is missing: {path} (run scripts/setup.sh, or set CCSIM_CLI)")
    return str(path)


def run_cli(*args, check=True):
    """Runs ccsim ARGS; returns (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "CCSIM_DATA_DIR"}
    p = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True, env=env, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError(f"ccsim {' '.join(map(str, args))} exited {p.returncode}: {p.stderr.strip()}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    """The document `ccsim ARGS --format json` prints."""
    return json.loads(run_cli(*args, "--format", "json")[1])


def cli_error(*args):
    """The one line `ccsim ARGS` prints for bad input, without its "ccsim: " prefix (exit code 2)."""
    code, _, err = run_cli(*args, check=False)
    assert code == 2, f"ccsim {' '.join(map(str, args))} exited {code}, not 2: {err}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ccsim: "), err
    return lines[0][len("ccsim: "):]


def as_keyword(line, flag, keyword):
    """The command line's error `line` about `flag` as Python words it: the option named by its keyword."""
    assert line.startswith(flag + ": ") or line.startswith(flag + " "), line
    rest = line[len(flag):]
    if rest.startswith(" ") and not rest.startswith(": "):  # "--param KEY: ...": a key of a key=value option
        key, rest = rest[1:].split(":", 1)
        return f"{keyword}['{key}']:{rest}"
    return keyword + rest


def as_installed(line):
    """A command line's message about a preset file, naming the package's copy of it instead of the source tree's."""
    import ccsim

    return line.replace(str(REPO), ccsim.data_dir())


def without_wall(doc):
    """A simulate document with sim.wall_s (the simulator's wall-clock seconds, different every run) removed."""
    doc = json.loads(json.dumps(doc))
    doc.get("sim", {}).pop("wall_s", None)
    return doc


@pytest.fixture(scope="session")
def repo():
    return REPO
