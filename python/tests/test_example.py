"""examples/bandwidth_whatif.py runs, prints the speedups the preset experiment whatif-bandwidth computes for the
same sweep (the example through simulate, the experiment through the experiment runner), and draws its figure."""

import subprocess
import sys

import pytest

import ccsim
from conftest import REPO


def test_the_bandwidth_what_if_example_prints_the_experiments_speedups(tmp_path):
    png = tmp_path / "whatif.png"
    out = subprocess.run([sys.executable, str(REPO / "examples" / "bandwidth_whatif.py"), "--out", str(png),
                          "--jobs", "4"], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    lines = out.splitlines()
    header = lines[1].split()
    assert header[0] == "Gbit/s"
    printed = {}
    for line in lines[2:9]:
        cells = line.split()
        for algorithm, value in zip(header[1:], cells[1:]):
            printed[(algorithm, float(cells[0]))] = float(value)
    rows = ccsim.experiment("whatif-bandwidth", jobs=2)
    assert len(printed) == len(rows) == 35
    for r in rows:
        assert printed[(r.algorithm, r.bandwidth_gbps)] == pytest.approx(r.speedup, abs=0.005)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "no figure drawn" in out
        return
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
