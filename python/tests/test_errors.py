"""Bad input raises ccsim.InputError carrying the line the command line prints after "ccsim: " for the same input:
flags and keywords, files and dicts (the dict's label stands where the file's path stood)."""

import json

import pytest

import ccsim
from conftest import as_installed, cli_error

BASE = ["simulate", "--topology", "a100x8-ib100", "--workload", "bert-large"]
KW = dict(topology="a100x8-ib100", workload="bert-large")

# (command-line flags after BASE, the same as keywords)
CASES = [
    (["--gpus", 99999, "--algorithm", "adam"], dict(gpus=99999, algorithm="adam")),
    (["--gpus", 0, "--algorithm", "adam"], dict(gpus=0, algorithm="adam")),
    (["--gpus", "2.5", "--algorithm", "adam"], dict(gpus=2.5, algorithm="adam")),
    (["--gpus", 32, "--algorithm", "V100"], dict(gpus=32, algorithm="V100")),
    (["--gpus", 32, "--algorithm", "adam", "--param", "k=2"], dict(gpus=32, algorithm="adam", params={"k": 2})),
    (["--gpus", 32, "--algorithm", "adam", "--global-batch", 33], dict(gpus=32, algorithm="adam", global_batch=33)),
    (["--gpus", 32, "--algorithm", "adam", "--micro-batch=-1"], dict(gpus=32, algorithm="adam", micro_batch=-1)),
    (["--gpus", 32, "--algorithm", "adam", "--tp", 2000], dict(gpus=32, algorithm="adam", tp=2000)),
    (["--gpus", 32, "--algorithm", "adam", "--bandwidth-gbps", 0], dict(gpus=32, algorithm="adam", bandwidth_gbps=0)),
    (["--gpus", 32, "--algorithm", "adam", "--bandwidth-gbps", "nan"],
     dict(gpus=32, algorithm="adam", bandwidth_gbps=float("nan"))),
    (["--gpus", 32, "--algorithm", "adam", "--latency-us", "2e6"], dict(gpus=32, algorithm="adam", latency_us=2e6)),
    (["--gpus", 32, "--algorithm", "adam", "--network-model", "udp"],
     dict(gpus=32, algorithm="adam", network_model="udp")),
    (["--gpus", 32, "--algorithm", "adam", "--fidelity", "slow"], dict(gpus=32, algorithm="adam", fidelity="slow")),
    (["--gpus", 32, "--algorithm", "adam", "--slow-gpu", "3:0"], dict(gpus=32, algorithm="adam", slow_gpus={3: 0})),
    (["--gpus", 32, "--algorithm", "adam", "--slow-gpu=-1:0.5"],
     dict(gpus=32, algorithm="adam", slow_gpus={-1: 0.5})),
    (["--gpus", 32, "--algorithm", "adam", "--straggler-cv", 11], dict(gpus=32, algorithm="adam", straggler_cv=11)),
    (["--gpus", 32, "--algorithm", "adam", "--straggler-seed=-3"],
     dict(gpus=32, algorithm="adam", straggler_seed=-3)),
]


@pytest.mark.parametrize("flags,keywords", CASES, ids=[" ".join(map(str, c[0])) for c in CASES])
def test_a_bad_keyword_raises_the_flags_message(flags, keywords):
    expected = cli_error(*BASE, *flags)
    with pytest.raises(ccsim.InputError) as e:
        ccsim.simulate(**KW, **keywords)
    assert str(e.value) == expected
    assert isinstance(e.value, ValueError)


def test_a_model_that_does_not_fit_the_gpus_raises_the_command_lines_message():
    expected = cli_error("simulate", "--topology", "v100x4-eth40g", "--workload", "gpt-13b", "--algorithm", "adam",
                         "--gpus", 8)
    with pytest.raises(ccsim.InputError, match="memory") as e:
        ccsim.simulate(topology="v100x4-eth40g", workload="gpt-13b", algorithm="adam", gpus=8)
    assert str(e.value) == as_installed(expected)  # the message names the preset's file


def test_an_unknown_preset_lists_the_known_ones():
    expected = cli_error("simulate", "--topology", "nope", "--workload", "bert-large", "--algorithm", "adam",
                         "--gpus", 8)
    with pytest.raises(ccsim.InputError) as e:
        ccsim.simulate(topology="nope", workload="bert-large", algorithm="adam", gpus=8)
    assert str(e.value) == expected
    assert e.value.where == "--topology" and "v100x4-eth40g" in e.value.problem


@pytest.mark.parametrize("edit,pointer", [
    (lambda t: t["nic"].__setitem__("effective_gbps", -1), "/nic/effective_gbps"),
    (lambda t: t["gpu"].__setitem__("sustained_tflops", "fast"), "/gpu/sustained_tflops"),
    (lambda t: t.__setitem__("typo", 1), "/typo"),
])
def test_a_bad_file_and_the_same_dict_raise_the_same_line(tmp_path, edit, pointer):
    topology = ccsim.load_topology("v100x4-eth40g")
    edit(topology)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(topology))
    expected = cli_error("simulate", "--topology", path, "--workload", "bert-large", "--algorithm", "adam",
                         "--gpus", 8)
    assert pointer in expected
    with pytest.raises(ccsim.InputError) as from_file:
        ccsim.simulate(topology=str(path), workload="bert-large", algorithm="adam", gpus=8)
    assert str(from_file.value) == expected
    with pytest.raises(ccsim.InputError) as from_dict:
        ccsim.simulate(topology=topology, workload="bert-large", algorithm="adam", gpus=8)
    assert str(from_dict.value) == expected.replace(str(path), "<topology dict>")
    assert from_dict.value.where == "<topology dict>" and from_dict.value.pointer == pointer
    with pytest.raises(ccsim.InputError) as loaded:
        ccsim.load_topology(topology)
    assert str(loaded.value) == str(from_dict.value)


def test_a_file_with_a_key_given_twice_raises_the_command_lines_line(tmp_path):
    path = tmp_path / "twice.json"
    text = json.dumps(ccsim.load_workload("bert-large"))
    path.write_text(text[:-1] + ', "layers": 1, "layers": 2}')
    expected = cli_error("simulate", "--topology", "v100x4-eth40g", "--workload", path, "--algorithm", "adam",
                         "--gpus", 8)
    with pytest.raises(ccsim.InputError) as e:
        ccsim.simulate(topology="v100x4-eth40g", workload=path, algorithm="adam", gpus=8)
    assert str(e.value) == expected


def test_a_dict_that_is_not_json_raises_input_error():
    with pytest.raises(ccsim.InputError, match=r"^<workload dict>: cannot be written as JSON"):
        ccsim.simulate(topology="v100x4-eth40g", workload={"layers": float("inf")}, algorithm="adam", gpus=8)
    with pytest.raises(ccsim.InputError, match=r"^--topology: must be a preset name, a path or a dict"):
        ccsim.simulate(topology=42, workload="bert-large", algorithm="adam", gpus=8)
