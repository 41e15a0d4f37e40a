"""experiment, advise, collective, calibrate, train, validate, bench_kernels and bench_compute answer what their commands print with
--format json, every option of the command line included; the rows become a pandas DataFrame when pandas is installed;
train's progress callback sees every step and can stop the run; experiment draws its figure."""

import json

import pytest

import ccsim
from conftest import REPO, as_keyword, cli_error, cli_json, run_cli

SPEC = {
    "name": "py-sweep",
    "base": {"topology": "v100x4-eth40g", "workload": "bert-large", "gpus": 32, "global_batch": 4096,
             "micro_batch": 16},
    "axes": {"algorithm": ["adam", "onebit-adam"], "bandwidth_gbps": [5, 40]},
    "baseline": {"algorithm": "adam"},
}


def masked(doc, keys=("wall_s",)):
    """`doc` without the named keys at any depth (wall-clock seconds differ between any two runs)."""
    if isinstance(doc, dict):
        return {k: masked(v, keys) for k, v in doc.items() if k not in keys}
    if isinstance(doc, list):
        return [masked(v, keys) for v in doc]
    return doc


def test_experiment_rows_equal_the_command_lines(tmp_path):
    spec_file = tmp_path / "py-sweep.json"
    spec_file.write_text(json.dumps(SPEC))
    expected = cli_json("experiment", spec_file, "--out", tmp_path / "cli", "--no-plot")
    got = ccsim.experiment(str(spec_file), out=tmp_path / "py", jobs=2)
    assert masked(got.to_dicts()) == masked(expected["rows"])
    assert masked(got.document.to_dict()) == masked(expected)
    assert (tmp_path / "py" / "results.csv").read_text() == (tmp_path / "cli" / "results.csv").read_text()
    # A dict runs the same points; a temporary folder is used and removed when no out is given.
    from_dict = ccsim.experiment(SPEC)
    assert masked(from_dict.to_dicts()) == masked(expected["rows"])
    assert from_dict.out is None
    speedups = {(r.algorithm, r.bandwidth_gbps): r.speedup for r in got}
    assert speedups[("adam", 5)] == 1.0 and speedups[("onebit-adam", 5)] > 1.0


def test_experiment_progress_counts_every_point():
    seen = []
    ccsim.experiment(SPEC, progress=lambda finished, total, *rest: seen.append((finished, total)))
    assert seen and seen[-1] == (4, 4)


def test_a_failed_experiment_point_raises_the_command_lines_line(tmp_path):
    spec = {**SPEC, "axes": {"algorithm": ["adam"], "global_batch": [4096, 4097]}}
    spec_file = tmp_path / "bad.json"
    spec_file.write_text(json.dumps(spec))
    code, _, err = run_cli("experiment", spec_file, "--out", tmp_path / "cli", "--no-plot", check=False)
    assert code == 2
    line = [x for x in err.splitlines() if "4097" in x][0]
    with pytest.raises(ccsim.InputError) as e:
        ccsim.experiment(str(spec_file), out=tmp_path / "py")
    # Checked before any point runs (api/experiment/PointChecks.hpp): bad input, so main's "ccsim: " prefix and exit 2.
    assert "ccsim: " + str(e.value) == line
    kept = ccsim.experiment(str(spec_file), out=tmp_path / "py2", keep_going=True)
    assert len(kept.failures) == 1 and "error" in kept[1]


def test_an_experiment_dict_with_a_bad_value_raises_at_its_json_path():
    spec = json.loads(json.dumps(SPEC))
    spec["base"]["gpus"] = 0
    with pytest.raises(ccsim.InputError) as e:
        ccsim.load_experiment(spec)
    assert str(e.value).startswith("<experiment dict>: /base/gpus: ")


def test_rows_become_a_data_frame():
    pandas = pytest.importorskip("pandas")
    frame = ccsim.experiment(SPEC).to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == 4 and {"algorithm", "bandwidth_gbps", "speedup", "samples_per_s"} <= set(frame.columns)


def test_advise_equals_the_command_lines_json():
    evidence = REPO / "workloads" / "evidence" / "convergence.json"
    expected = cli_json("advise", "--topology", "v100x4-eth40g", "--workload", "bert-large", "--gpus", 64,
                        "--evidence", evidence)
    got = ccsim.advise("v100x4-eth40g", "bert-large", 64, evidence=evidence)
    assert got.to_dict() == expected
    assert got.ranking[0].algorithm == expected["ranking"][0]["algorithm"]


def test_advise_answers_when_nothing_fits_and_names_the_changes_as_keywords():
    """Issue 44: Llama-3-8B on 32 A100-40GB at tp 1 fits neither the sharded baseline nor Adam. advise lists both,
    with what would fit, rather than raising; the command line's JSON is the same but for the options' spelling."""
    evidence = REPO / "workloads" / "evidence" / "convergence.json"
    got = ccsim.advise("a100x8-roce100x16", "llama3-8b", 32, algorithms=["megatron-dp", "adam"], evidence=evidence)
    expected = cli_json("advise", "--topology", "a100x8-roce100x16", "--workload", "llama3-8b", "--gpus", 32,
                        "--algorithms", "megatron-dp,adam", "--evidence", evidence)
    assert len(got.ranking) == 0 and got.baseline == "megatron-dp"
    assert [c.algorithm for c in got.cannot_run] == [c["algorithm"] for c in expected["cannot_run"]]
    for c, line in zip(got.cannot_run, expected["cannot_run"]):
        assert c.memory.memory_gb_per_gpu == line["memory"]["memory_gb_per_gpu"] > 40
        assert c.reason == line["reason"] and "GB per GPU at tp 1 pp 1" in c.reason
        changes = [f.change for f in c.memory.would_fit]
        assert changes and all("--" not in change for change in changes)
        assert changes == [f["change"].replace("--zero ", "zero=").replace("--tp ", "tp=").replace("--pp ", "pp=")
                           for f in line["memory"]["would_fit"]]
    # The first change of the baseline, given back as keywords, makes it run.
    fix = got.cannot_run[[c.algorithm for c in got.cannot_run].index("megatron-dp")].memory.would_fit[0]
    keywords = dict(part.split("=") for part in fix.change.split())
    ran = ccsim.advise("a100x8-roce100x16", "llama3-8b", 32, algorithms=["megatron-dp"], evidence=evidence,
                       **{k: int(v) for k, v in keywords.items()})
    assert [r.algorithm for r in ran.ranking] == ["megatron-dp"]
    assert ran.ranking[0].memory_gb_per_gpu == pytest.approx(fix.memory_gb_per_gpu, rel=1e-12)


def test_collective_equals_the_command_lines_json():
    expected = cli_json("collective", "--topology", "a100x8-ib100", "--gpus", "8,16", "-b", 1024, "-e", 1 << 24,
                        "-f", 4)
    got = ccsim.collective("a100x8-ib100", [8, 16], minbytes=1024, maxbytes=1 << 24, stepfactor=4)
    assert masked(got.to_dict()) == masked(expected)
    assert len(got.rows) == 2 * 8  # 1 KiB .. 16 MiB by 4: 8 sizes on each rank count
    assert as_keyword(cli_error("collective", "--topology", "a100x8-ib100", "--gpus", 1), "--gpus", "gpus") == \
        _raised(lambda: ccsim.collective("a100x8-ib100", 1))


def _raised(call):
    with pytest.raises(ccsim.InputError) as e:
        call()
    return str(e.value)


def test_calibrate_fits_what_the_command_line_fits(tmp_path):
    table = tmp_path / "nccl.txt"
    table.write_text(run_cli("collective", "--topology", "a100x8-ib100", "--gpus", 16, "-b", "1M", "-e", "64M", "-f",
                             4)[1])
    expected = cli_json("calibrate", "--topology", "a100x8-ib100", "--nccl-tests", table, "--out", tmp_path / "cli.json")
    got = ccsim.calibrate("a100x8-ib100", nccl_tests=table, out=tmp_path / "py.json")
    assert masked(got.to_dict(), ("topology",)) == masked(expected, ("topology",))
    assert json.loads((tmp_path / "py.json").read_text()) == json.loads((tmp_path / "cli.json").read_text())
    # The table was simulated on the preset itself, so the fit finds the preset's NIC constants (88 Gbps, 3 us).
    preset = ccsim.load_topology("a100x8-ib100")["nic"]
    assert got.effective_gbps == pytest.approx(preset["effective_gbps"], rel=1e-4)
    assert got.latency_us == pytest.approx(preset["latency_us"], rel=1e-3)
    assert cli_error("calibrate", "--topology", "a100x8-ib100", "--out", tmp_path / "x.json") == \
        "--nccl-tests: give --nccl-tests FILE (collective constants from nccl-tests logs) or --steps FILE (any " \
        "constants from step times); for both, run calibrate twice, the second from the first's --out"
    assert _raised(lambda: ccsim.calibrate("a100x8-ib100", out=tmp_path / "x.json")) == \
        "nccl_tests: give nccl_tests=FILE (collective constants from nccl-tests logs) or steps=FILE (any " \
        "constants from step times); for both, run calibrate twice, the second from the first's out="


def test_calibrate_no_fit_replays_what_the_command_line_replays(tmp_path):
    table = tmp_path / "nccl.txt"
    table.write_text(run_cli("collective", "--topology", "a100x8-ib100", "--gpus", 16, "-b", "1M", "-e", "64M", "-f",
                             4, "--bandwidth-gbps", 50)[1])
    expected = cli_json("calibrate", "--topology", "a100x8-ib100", "--nccl-tests", table, "--no-fit")
    got = ccsim.calibrate("a100x8-ib100", nccl_tests=table, no_fit=True)
    assert got.to_dict() == expected
    assert got.fitted is False and got.topology is None
    # Measured at 50 Gbps, replayed at the preset's own NIC: the largest size is slower in the log than in the replay.
    assert got.rows[-1]["error"] < -0.2
    assert _raised(lambda: ccsim.calibrate("a100x8-ib100", nccl_tests=table, no_fit=True, out=tmp_path / "x.json")) \
        == "out: no_fit=True fits nothing, so it writes no topology: leave out= out"


def test_train_equals_the_command_lines_json_and_reports_every_step():
    expected = cli_json("train", "--algorithm", "onebit-adam,adam", "--steps", 20, "--workers", 4, "--global-batch",
                        64, "--param", "lr=0.001")
    steps = []
    got = ccsim.train(["onebit-adam", "adam"], steps=20, workers=4, global_batch=64, params={"lr": 0.001},
                      progress=lambda what, done, total, unit, note: steps.append((what, done, total, unit)))
    assert masked(got.to_dicts()) == masked(expected["runs"])
    assert got.stopped == ""
    assert [s for s in steps if s[0].startswith("onebit-adam")][-1] == ("onebit-adam (1 of 2)", 20, 20, "steps")


def test_an_exception_in_trains_callback_stops_the_run():
    class Enough(Exception):
        pass

    def progress(what, done, total, unit, note):
        if done >= 5:
            raise Enough(what)

    with pytest.raises(Enough, match="adam"):
        ccsim.train("adam", steps=1000, workers=2, global_batch=16, progress=progress)


def test_train_rejects_a_bad_value_as_the_command_line_does():
    assert as_keyword(cli_error("train", "--algorithm", "adam", "--workers", 0), "--workers", "workers") == \
        _raised(lambda: ccsim.train("adam", workers=0))
    assert as_keyword(cli_error("train", "--algorithm", "adam", "--param", "k=3"), "--param", "params") == \
        _raised(lambda: ccsim.train("adam", params={"k": 3}))


def test_advises_filters_equal_the_command_lines():
    """--tp, --pp and --algorithms (lists) and --search, which the package lacked before its keywords were generated
    from advise's table."""
    evidence = REPO / "workloads" / "evidence" / "convergence.json"
    expected = cli_json("advise", "--topology", "a100x8-ib100", "--workload", "gpt-350m", "--gpus", 16, "--search",
                        "--tp", "1,2", "--pp", 1, "--algorithms", "adam,onebit-adam", "--evidence", evidence)
    got = ccsim.advise("a100x8-ib100", "gpt-350m", 16, search=True, tp=[1, 2], pp=1, algorithms=["adam", "onebit-adam"],
                       evidence=evidence)
    assert got.to_dict() == expected
    assert {r.algorithm for r in got.ranking} <= {"adam", "onebit-adam"}
    assert {(r.split.tp, r.split.pp) for r in got.ranking} <= {(1, 1), (2, 1)}


def test_collectives_forced_algorithm_and_protocol_equal_the_command_lines():
    expected = cli_json("collective", "--topology", "a100x8-ib100", "--gpus", 16, "-b", "1M", "-e", "4M", "--algo",
                        "tree", "--proto", "LL128")
    got = ccsim.collective("a100x8-ib100", 16, minbytes="1M", maxbytes="4M", algo="tree", proto="LL128")
    assert masked(got.to_dict()) == masked(expected)
    assert {(r.algorithm, r.protocol) for r in got.rows} == {("tree", "LL128")}


def test_calibrate_with_algo_and_proto_fits_what_the_command_line_fits(tmp_path):
    table = tmp_path / "nccl.txt"
    table.write_text(run_cli("collective", "--topology", "a100x8-ib100", "--gpus", 16, "-b", "1M", "-e", "64M", "-f",
                             4, "--algo", "ring", "--proto", "Simple")[1])
    expected = cli_json("calibrate", "--topology", "a100x8-ib100", "--nccl-tests", table, "--algo", "ring", "--proto",
                        "Simple", "--out", tmp_path / "cli.json")
    got = ccsim.calibrate("a100x8-ib100", tmp_path / "py.json", nccl_tests=[table], algo="ring", proto="Simple")
    assert masked(got.to_dict(), ("topology",)) == masked(expected, ("topology",))
    assert json.loads((tmp_path / "py.json").read_text()) == json.loads((tmp_path / "cli.json").read_text())


def test_validate_equals_the_command_lines_json(tmp_path):
    fits = REPO / "experiments" / "calibration" / "fits.json"
    expected = cli_json("validate", "--fits", fits, "--topology", "v100x4-eth40g", "--no-rows", "--errors-out",
                        tmp_path / "cli-errors.json")
    seen = []
    got = ccsim.validate(fits=fits, topology="v100x4-eth40g", no_rows=True, errors_out=tmp_path / "py-errors.json",
                         progress=lambda what, done, total: seen.append((done, total)))
    assert masked(got.to_dict()) == masked(expected)
    assert (tmp_path / "py-errors.json").read_text() == (tmp_path / "cli-errors.json").read_text()
    assert seen and all(done <= total == 1 for done, total in seen)  # one fit: v100x4-eth40g's
    assert [f.topology for f in got.fits] == ["v100x4-eth40g"]


def test_bench_kernels_measures_the_command_lines_kernels():
    expected = cli_json("bench-kernels", "--bytes", 4096, "--repeats", 1)
    got = ccsim.bench_kernels(bytes=4096, repeats=1)
    # Throughputs are timings (they differ run to run); what was measured is the same.
    assert [(r.kernel, r.backend, r.bytes) for r in got.rows] == \
        [(r["kernel"], r["backend"], r["bytes"]) for r in expected["rows"]]
    assert (got.simd, got.threads) == (expected["simd"], expected["threads"])
    assert got.rows[0].vs_memcpy == 1.0  # memcpy first, against itself


def test_bench_compute_compares_as_the_command_line_does():
    measured = str(REPO / "topologies" / "data" / "h200-compute-measured.json")
    expected = cli_json("bench-compute", "--compare", measured, "--topology", "h200x8-ib400x8", "--fit")
    got = ccsim.bench_compute(compare=measured, topology="h200x8-ib400x8", fit=True)
    assert got.fitted_compute.to_dict() == expected["fitted_compute"]
    assert [r["fitted_error"] for r in got.layers] == [r["fitted_error"] for r in expected["layers"]]
    assert len(got.to_pandas()) == len(expected["gemms"])


def test_bench_compute_cannot_measure_without_cuda():
    with pytest.raises(ccsim.InputError, match="backend: cuda: ccsim was built without CUDA"):
        ccsim.bench_compute(quick=True)


def test_experiment_draws_its_figure_into_out(tmp_path):
    pytest.importorskip("matplotlib")
    spec = {**SPEC,
            "figure": {"kind": "speedup-vs-bandwidth", "x": "bandwidth_gbps", "y": "speedup", "series": "algorithm"}}
    ccsim.experiment(spec, out=tmp_path / "drawn")
    assert (tmp_path / "drawn" / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ccsim.experiment(spec, out=tmp_path / "not-drawn", no_plot=True)
    assert not (tmp_path / "not-drawn" / "figure.png").exists()
