"""ccsim.simulate answers what `ccsim simulate --format json` prints, field for field, for every algorithm that
simulates, on two topologies (the workload and pipeline depth per algorithm as scripts/compare-outputs.sh chooses
them). Only sim.wall_s, the simulator's own wall-clock time, may differ."""

import json

import pytest

import ccsim
from conftest import REPO, cli_json, run_cli, without_wall

# scripts/compare-outputs.sh's simulate loop: pipeline algorithms on a pipelined GPT-2 XL, sharded ones on GPT 1.3B,
# the rest on BERT-Large.
PIPELINE = {"fp32-pipeline", "directq", "aq-sgd"}
SHARDED = {"megatron-dp", "sdp4bit", "zeropp", "qw", "qwd", "tlq", "tlq-hs", "ulq"}
TOPOLOGIES = [("v100x4-eth40g", 64), ("a100x8-ib100", 64)]


def simulate_algorithms():
    listing = json.loads(run_cli("list", "algorithms", "--format", "json")[1])
    return [a["name"] for a in listing["algorithms"] if "[train only]" not in a["description"]]


ALGORITHMS = simulate_algorithms()


def shape(algorithm):
    if algorithm in PIPELINE:
        return {"workload": "gpt2-xl", "pp": 4}
    if algorithm in SHARDED:
        return {"workload": "gpt-1.3b", "allow_oom": True}
    return {"workload": "bert-large", "allow_oom": True}


def cli_args(topology, gpus, algorithm):
    s = shape(algorithm)
    args = ["simulate", "--topology", topology, "--algorithm", algorithm, "--gpus", gpus, "--workload", s["workload"]]
    if "pp" in s:
        args += ["--pp", s["pp"]]
    if s.get("allow_oom"):
        args += ["--allow-oom"]
    return args


def test_the_package_lists_the_same_simulating_algorithms_as_the_command_line():
    assert sorted(a.name for a in ccsim.algorithms() if a.simulates) == sorted(ALGORITHMS)
    assert len(ALGORITHMS) >= 10  # the five papers' algorithms, their baselines and parts


@pytest.mark.parametrize("topology,gpus", TOPOLOGIES)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_simulate_equals_the_command_lines_json(topology, gpus, algorithm):
    expected = cli_json(*cli_args(topology, gpus, algorithm))
    got = ccsim.simulate(topology=topology, algorithm=algorithm, gpus=gpus, **shape(algorithm))
    assert without_wall(got.to_dict()) == without_wall(expected)
    # Attribute access reads the same document.
    assert got.samples_per_s == expected["samples_per_s"]
    assert got.breakdown.comm_s == expected["breakdown"]["comm_s"]
    assert [p.name for p in got.phases] == [p["name"] for p in expected["phases"]]


def test_the_issues_one_liner_prints_the_command_lines_number(tmp_path):
    """`python3 -c "import ccsim; print(ccsim.simulate(...).samples_per_s)"` prints what the JSON holds."""
    import subprocess
    import sys

    code = ("import ccsim; print(ccsim.simulate(topology='v100x4-eth40g', workload='bert-large', "
            "algorithm='onebit-adam', gpus=64).samples_per_s)")
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=tmp_path).stdout.strip()
    expected = cli_json("simulate", "--topology", "v100x4-eth40g", "--workload", "bert-large", "--algorithm",
                        "onebit-adam", "--gpus", 64)
    assert printed == repr(expected["samples_per_s"])


def test_every_flag_that_shapes_a_run_maps_to_a_keyword():
    """scripts/compare-outputs.sh's overrides, stragglers and exact-fidelity runs, through keywords."""
    base = ["simulate", "--topology", "a100x8-ib100", "--workload", "bert-large", "--gpus", 32]
    cases = [
        (["--algorithm", "lamb", "--bandwidth-gbps", 7, "--latency-us", 30, "--network-model", "tcp", "--param",
          "grad_bytes=4", "--param", "seq_len=256"],
         dict(algorithm="lamb", bandwidth_gbps=7, latency_us=30, network_model="tcp",
              params={"grad_bytes": 4, "seq_len": 256})),
        (["--algorithm", "adam", "--slow-gpu", "3:0.5", "--straggler-cv", 0.2, "--straggler-seed", 7],
         dict(algorithm="adam", slow_gpus={3: 0.5}, straggler_cv=0.2, straggler_seed=7)),
        (["--algorithm", "onebit-lamb", "--fidelity", "exact", "--global-batch", 4096, "--micro-batch", 16],
         dict(algorithm="onebit-lamb", fidelity="exact", global_batch=4096, micro_batch=16)),
        (["--algorithm", "onebit-adam", "--links"], dict(algorithm="onebit-adam", links=True)),
    ]
    for flags, keywords in cases:
        expected = cli_json(*base, *flags)
        got = ccsim.simulate(topology="a100x8-ib100", workload="bert-large", gpus=32, **keywords)
        assert without_wall(got.to_dict()) == without_wall(expected), flags


def test_tp_and_pp_map_to_keywords():
    expected = cli_json("simulate", "--topology", "h800x8-ib400x8", "--workload", "gpt-13b", "--algorithm", "sdp4bit",
                        "--gpus", 64, "--tp", 4, "--pp", 2)
    got = ccsim.simulate("h800x8-ib400x8", "gpt-13b", "sdp4bit", 64, tp=4, pp=2)
    assert without_wall(got.to_dict()) == without_wall(expected)
    assert (got.config.tp, got.config.pp) == (4, 2)


def test_trace_writes_the_file_the_command_line_writes(tmp_path):
    expected = cli_json("simulate", "--topology", "a100x8-ib100", "--workload", "bert-large", "--gpus", 32,
                        "--algorithm", "sdp4bit", "--allow-oom", "--trace", tmp_path / "cli.json")
    got = ccsim.simulate("a100x8-ib100", "bert-large", "sdp4bit", 32, allow_oom=True, trace=tmp_path / "py.json")
    assert (tmp_path / "py.json").read_text() == (tmp_path / "cli.json").read_text()
    assert "trace" not in got  # the file holds it, as the command line's document does not
    assert without_wall(got.to_dict()) == without_wall(expected)


def test_the_overlap_options_map_to_keywords():
    """--overlap, --bucket-mb, --param-prefetch and --recompute, which the package lacked before its keywords were
    generated from simulate's table."""
    cases = [
        (["--algorithm", "adam", "--workload", "bert-large", "--overlap", "bucketed", "--bucket-mb", 25],
         dict(algorithm="adam", workload="bert-large", overlap="bucketed", bucket_mb=25)),
        (["--algorithm", "megatron-dp", "--workload", "gpt-1.3b", "--param-prefetch", "on", "--allow-oom"],
         dict(algorithm="megatron-dp", workload="gpt-1.3b", param_prefetch=True, allow_oom=True)),
        (["--algorithm", "adam", "--workload", "bert-large", "--recompute"],
         dict(algorithm="adam", workload="bert-large", recompute=True)),
    ]
    for flags, keywords in cases:
        expected = cli_json("simulate", "--topology", "a100x8-ib100", "--gpus", 32, *flags)
        got = ccsim.simulate(topology="a100x8-ib100", gpus=32, **keywords)
        assert without_wall(got.to_dict()) == without_wall(expected), flags


def test_tp_overlap_maps_to_a_keyword():
    """--tp-overlap (Megatron-Core's --tp-comm-overlap) as tp_overlap=True: the command line's document, and less
    exposed communication than the same run with tp_overlap=False over the same traffic."""
    workload = str(REPO / "experiments" / "large-scale" / "gpt-22b-selective.json")
    base = ["simulate", "--topology", "h100x8-ib400x8", "--workload", workload, "--algorithm", "megatron-dp",
            "--gpus", 8]
    expected = cli_json(*base, "--tp-overlap")
    on = ccsim.simulate("h100x8-ib400x8", workload, "megatron-dp", 8, tp_overlap=True)
    off = ccsim.simulate("h100x8-ib400x8", workload, "megatron-dp", 8, tp_overlap=False)
    assert without_wall(on.to_dict()) == without_wall(expected)
    assert on.config.tp_overlap is True
    assert on.breakdown.comm_s == pytest.approx(off.breakdown.comm_s, rel=1e-9)
    assert on.breakdown.exposed_comm_s < off.breakdown.exposed_comm_s


def test_pipeline_p2p_maps_to_a_keyword():
    """--pipeline-p2p as pipeline_p2p=...: the command line's document; blocking sends expose every unit's messages,
    (m v + pp - 2)(d_f + d_b) in all where overlapped ones expose the fill path's (pp - 1)(d_f + d_b)
    (tests/sim/PipelineClosedForm_test.cpp), so the blocking step is longer by (m v - 1)(d_f + d_b)."""
    base = ["simulate", "--topology", "h100x8-ib400x8", "--workload", "llama2-7b", "--algorithm", "megatron-dp",
            "--gpus", 4, "--tp", 1, "--pp", 4, "--global-batch", 8, "--micro-batch", 1]
    expected = cli_json(*base, "--pipeline-p2p", "blocking")
    keywords = dict(topology="h100x8-ib400x8", workload="llama2-7b", algorithm="megatron-dp", gpus=4, tp=1, pp=4,
                    global_batch=8, micro_batch=1)
    blocking = ccsim.simulate(pipeline_p2p="blocking", **keywords)
    overlapped = ccsim.simulate(pipeline_p2p="overlapped", **keywords)
    assert without_wall(blocking.to_dict()) == without_wall(expected)
    assert blocking.config.pipeline_p2p == "blocking"
    assert overlapped.config.pipeline_p2p == "overlapped"
    phase = blocking.phases[0].breakdown
    d = (phase.pipeline_forward_comm_ms + phase.pipeline_backward_comm_ms) / 1e3
    assert blocking.step_time_s - overlapped.step_time_s == pytest.approx((8 - 1) * d, rel=1e-6)


def test_cp_keyword_equals_the_command_lines_cp_flag():
    # Context parallelism as a keyword: the same run as `--cp 2`, its config saying cp 2 and dp = 16 / (tp x cp).
    args = ["simulate", "--topology", "h100x8-ib400x8", "--workload", "llama3-8b", "--algorithm", "megatron-dp",
            "--gpus", 16, "--tp", 1, "--cp", 2]
    expected = cli_json(*args)
    got = ccsim.simulate(topology="h100x8-ib400x8", workload="llama3-8b", algorithm="megatron-dp", gpus=16, tp=1,
                         cp=2)
    assert without_wall(got.to_dict()) == without_wall(expected)
    assert got.config.cp == 2 and got.config.dp == 8
    with pytest.raises(ccsim.InputError, match="cp: 3: sequence length 8192"):
        ccsim.simulate(topology="h100x8-ib400x8", workload="llama3-8b", algorithm="megatron-dp", gpus=24, cp=3)
