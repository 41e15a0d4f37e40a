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


def test_the_my_cluster_walkthrough_calibrates_advises_and_sweeps(tmp_path):
    """examples/my_cluster.py (issue 44's walkthrough): 4 x 8 A100-40GB with 2 x 100 GbE RoCE, Llama-3-8B. Its printed
    calibration is ccsim.calibrate's on the same log; at tp 1 nothing fits 40 GB at its default stage, so advise lists
    every algorithm with keyword changes, the sharded baseline's first being a higher ZeRO stage (issue 41: it keeps
    the split); its node sweep at that stage is simulate's tokens/s per GPU on the calibrated dict, and a node count
    printed as not fitting is one simulate refuses for memory."""
    png = tmp_path / "my_cluster.png"
    out = subprocess.run([sys.executable, str(REPO / "examples" / "my_cluster.py"), "--out", str(png)],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    log = REPO / "tests" / "data" / "nccl-tests-real" / "02-a100-oci-bmgpu48-roce-2n-allreduce.txt"
    fitted = tmp_path / "fitted.json"
    fit = ccsim.calibrate("a100x8-roce100x16", nccl_tests=str(log), out=str(fitted))
    assert f"median |error| {100 * fit.median_abs_error:.1f} % over {len(fit.rows)} sizes" in out
    assert ": 0 run, " in out and "megatron-dp      needs 58.7 GB; fits with zero=2 (27.6 GB)" in out
    assert "at {'zero': 2}: " in out
    topo = ccsim.load_topology(str(fitted))
    topo["nic"]["count"] = 2
    sweep = out[out.index("nodes "):].splitlines()
    header = sweep[0].split()[1:3]
    assert header[0] == "megatron-dp"
    for line in sweep[1:5]:
        nodes = int(line[:5])
        # Each column is 14 characters wide after "nodes  " (the example's f"{n:5}  " and "  ".join of 14-wide cells).
        cells = [line[7 + 16 * k:7 + 16 * k + 14].strip() for k in range(len(header))]
        for algorithm, printed in zip(header, cells):
            if printed == "does not fit":
                with pytest.raises(ccsim.InputError, match="/gpu/memory_gb"):
                    ccsim.simulate(topology=topo, workload="llama3-8b", algorithm=algorithm, gpus=8 * nodes, zero=2)
                continue
            r = ccsim.simulate(topology=topo, workload="llama3-8b", algorithm=algorithm, gpus=8 * nodes, zero=2)
            # tokens/s per GPU = samples/s x the sequence length (8192 for Llama-3-8B's preset) / GPUs
            assert float(printed) == pytest.approx(r.samples_per_s * r.config.seq_len / (8 * nodes), abs=0.5)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "no figure drawn" in out
        return
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
