"""Bad input raises ccsim.InputError carrying the line the command line prints after "ccsim: " for the same input,
the option named by its keyword where the command line names its flag ("gpus: ..." for "--gpus: ..."): flags and
keywords, files and dicts (the dict's label stands where the file's path stood)."""

import json

import pytest

import ccsim
from conftest import as_installed, cli_error

BASE = ["simulate", "--topology", "a100x8-ib100", "--workload", "bert-large"]
KW = dict(topology="a100x8-ib100", workload="bert-large")

# (command-line flags after BASE, the same as keywords, the flag the command line's error names, the keyword
# Python's names)
CASES = [
    (["--gpus", 99999, "--algorithm", "adam"], dict(gpus=99999, algorithm="adam"), "--gpus", "gpus"),
    (["--gpus", 0, "--algorithm", "adam"], dict(gpus=0, algorithm="adam"), "--gpus", "gpus"),
    (["--gpus", "2.5", "--algorithm", "adam"], dict(gpus=2.5, algorithm="adam"), "--gpus", "gpus"),
    (["--gpus", 32, "--algorithm", "V100"], dict(gpus=32, algorithm="V100"), "--algorithm", "algorithm"),
    (["--gpus", 32, "--algorithm", "adam", "--param", "k=2"], dict(gpus=32, algorithm="adam", params={"k": 2}),
     "--param", "params"),
    (["--gpus", 32, "--algorithm", "adam", "--global-batch", 33], dict(gpus=32, algorithm="adam", global_batch=33),
     "--global-batch", "global_batch"),
    (["--gpus", 32, "--algorithm", "adam", "--micro-batch=-1"], dict(gpus=32, algorithm="adam", micro_batch=-1),
     "--micro-batch", "micro_batch"),
    (["--gpus", 32, "--algorithm", "adam", "--tp", 2000], dict(gpus=32, algorithm="adam", tp=2000), "--tp", "tp"),
    (["--gpus", 32, "--algorithm", "adam", "--bandwidth-gbps", 0], dict(gpus=32, algorithm="adam", bandwidth_gbps=0),
     "--bandwidth-gbps", "bandwidth_gbps"),
    (["--gpus", 32, "--algorithm", "adam", "--bandwidth-gbps", "nan"],
     dict(gpus=32, algorithm="adam", bandwidth_gbps=float("nan")), "--bandwidth-gbps", "bandwidth_gbps"),
    (["--gpus", 32, "--algorithm", "adam", "--latency-us", "2e6"], dict(gpus=32, algorithm="adam", latency_us=2e6),
     "--latency-us", "latency_us"),
    (["--gpus", 32, "--algorithm", "adam", "--network-model", "udp"],
     dict(gpus=32, algorithm="adam", network_model="udp"), "--network-model", "network_model"),
    (["--gpus", 32, "--algorithm", "adam", "--fidelity", "slow"], dict(gpus=32, algorithm="adam", fidelity="slow"),
     "--fidelity", "fidelity"),
    (["--gpus", 32, "--algorithm", "adam", "--slow-gpu", "3:0"], dict(gpus=32, algorithm="adam", slow_gpus={3: 0}),
     "--slow-gpu", "slow_gpus"),
    (["--gpus", 32, "--algorithm", "adam", "--slow-gpu=-1:0.5"],
     dict(gpus=32, algorithm="adam", slow_gpus={-1: 0.5}), "--slow-gpu", "slow_gpus"),
    (["--gpus", 32, "--algorithm", "adam", "--straggler-cv", 11], dict(gpus=32, algorithm="adam", straggler_cv=11),
     "--straggler-cv", "straggler_cv"),
    (["--gpus", 32, "--algorithm", "adam", "--straggler-seed=-3"],
     dict(gpus=32, algorithm="adam", straggler_seed=-3), "--straggler-seed", "straggler_seed"),
    (["--gpus", 32, "--algorithm", "adam", "--overlap", "always"], dict(gpus=32, algorithm="adam", overlap="always"),
     "--overlap", "overlap"),
    (["--gpus", 32, "--algorithm", "adam", "--bucket-mb", 0], dict(gpus=32, algorithm="adam", bucket_mb=0),
     "--bucket-mb", "bucket_mb"),
    (["--gpus", 32, "--algorithm", "adam", "--param-prefetch", "yes"],
     dict(gpus=32, algorithm="adam", param_prefetch="yes"), "--param-prefetch", "param_prefetch"),
]


@pytest.mark.parametrize("flags,keywords,flag,keyword", CASES, ids=[" ".join(map(str, c[0])) for c in CASES])
def test_a_bad_keyword_raises_the_flags_message_naming_the_keyword(flags, keywords, flag, keyword):
    expected = cli_error(*BASE, *flags)
    assert expected.startswith(flag + ": ")
    with pytest.raises(ccsim.InputError) as e:
        ccsim.simulate(**KW, **keywords)
    assert str(e.value) == keyword + expected[len(flag):]
    assert e.value.where == keyword
    assert isinstance(e.value, ValueError)


def test_options_named_inside_a_message_are_named_as_keywords_too():
    """The library names options in its text as the command line's flags; Python renders each as its keyword: a flag
    as keyword=True, an option a value follows as keyword=VALUE, one a comparison follows by its bare name."""
    cases = [
        (["simulate", "--topology", "v100x1-wan", "--workload", "gpt2-xl", "--algorithm", "fp32-pipeline", "--gpus", 8,
          "--pp", 1],
         "--pp: fp32-pipeline is a pipeline algorithm: it needs --pp >= 2",
         lambda: ccsim.simulate("v100x1-wan", "gpt2-xl", "fp32-pipeline", 8, pp=1),
         "pp: fp32-pipeline is a pipeline algorithm: it needs pp >= 2"),
        (["simulate", *BASE[1:], "--algorithm", "adam", "--gpus", 32, "--slow-gpu", "40:0.5"],
         "--slow-gpu: rank 40 is not below --gpus 32",
         lambda: ccsim.simulate(**KW, algorithm="adam", gpus=32, slow_gpus={40: 0.5}),
         "slow_gpus: rank 40 is not below gpus=32"),
        (["simulate", *BASE[1:], "--algorithm", "adam", "--gpus", 32, "--param", "ep=0"],
         "--param ep: must be >= 1 and <= 1024 (got 0)",
         lambda: ccsim.simulate(**KW, algorithm="adam", gpus=32, params={"ep": 0}),
         "params['ep']: must be >= 1 and <= 1024 (got 0)"),
        (["train", "--algorithm", "adam", "--gpus", 8],
         "--topology: --topology and --gpus go together",
         lambda: ccsim.train("adam", gpus=8),
         "topology: topology= and gpus= go together"),
        (["advise", "--topology", "v100x8-ib100", "--workload", "bert-large", "--gpus", 16, "--no-prune"],
         "--no-prune: only --search prunes: give --search too",
         lambda: ccsim.advise("v100x8-ib100", "bert-large", 16, no_prune=True),
         "no_prune: only search=True prunes: give search=True too"),
        (["experiment", "whatif-bandwidth", "--resume", "--fresh", "--out", "/nonexistent/x"],
         "--fresh: removes the results --resume would reuse: give one of them",
         lambda: ccsim.experiment("whatif-bandwidth", out="/nonexistent/x", resume=True, fresh=True),
         "fresh: removes the results resume=True would reuse: give one of them"),
    ]
    for args, cli_line, call, python_line in cases:
        assert cli_error(*args) == cli_line
        with pytest.raises(ccsim.InputError) as e:
            call()
        assert str(e.value) == python_line


def test_a_keyword_of_the_wrong_type_or_name_is_refused_before_anything_runs():
    with pytest.raises(ccsim.InputError, match=r"^links: must be True or False \(got str\)$"):
        ccsim.simulate(**KW, algorithm="adam", gpus=32, links="yes")
    with pytest.raises(ccsim.InputError, match=r"^params: must be a dict of key: value \(got list\)$"):
        ccsim.simulate(**KW, algorithm="adam", gpus=32, params=["k=1"])
    with pytest.raises(TypeError, match="tpp"):
        ccsim.simulate(**KW, algorithm="adam", gpus=32, tpp=2)
    with pytest.raises(TypeError):
        ccsim.simulate(**KW, algorithm="adam")  # gpus is required, as --gpus is


def test_a_model_that_does_not_fit_the_gpus_raises_the_command_lines_message():
    expected = cli_error("simulate", "--topology", "v100x4-eth40g", "--workload", "gpt-13b", "--algorithm", "adam",
                         "--gpus", 8)
    with pytest.raises(ccsim.InputError, match="memory") as e:
        ccsim.simulate(topology="v100x4-eth40g", workload="gpt-13b", algorithm="adam", gpus=8)
    # The message names the preset's file, and the options to change as keywords.
    cli_tail = "raise --tp or --pp, use a sharded algorithm, or pass --allow-oom"
    assert expected.endswith(cli_tail)
    assert str(e.value) == as_installed(expected)[:-len(cli_tail)] + \
        "raise tp= or pp=, use a sharded algorithm, or pass allow_oom=True"


def test_an_unknown_preset_lists_the_known_ones():
    expected = cli_error("simulate", "--topology", "nope", "--workload", "bert-large", "--algorithm", "adam",
                         "--gpus", 8)
    with pytest.raises(ccsim.InputError) as e:
        ccsim.simulate(topology="nope", workload="bert-large", algorithm="adam", gpus=8)
    assert expected.startswith("--topology: ")
    assert str(e.value) == "topology" + expected[len("--topology"):]
    assert e.value.where == "topology" and "v100x4-eth40g" in e.value.problem


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
    with pytest.raises(ccsim.InputError, match=r"^topology: must be a preset name, a path or a dict"):
        ccsim.simulate(topology=42, workload="bert-large", algorithm="adam", gpus=8)


def test_issue_43_finding_6_arguments_of_the_wrong_type_are_input_errors_not_type_errors():
    """Finding 6 of issue 43: each of these raised TypeError, or was taken as True, or ran a million trainings."""
    with pytest.raises(ccsim.InputError, match=r"^algorithm: must be a str or a list of them \(got int\)$"):
        ccsim.train(algorithm=123)
    with pytest.raises(ccsim.InputError, match=r"^algorithm: must be a str \(got int\)$"):
        ccsim.simulate(**KW, algorithm=123, gpus=32)
    with pytest.raises(ccsim.InputError, match=r"^algorithm: is required but missing$"):
        ccsim.train(algorithm=None)
    with pytest.raises(ccsim.InputError, match=r"^fit: must be a str or a list of them \(got int\)$"):
        ccsim.calibrate("a100x8-ib100", "/nonexistent/x.json", fit=5)
    with pytest.raises(ccsim.InputError, match=r"^progress: must be a function or None \(got int\)$"):
        ccsim.train("adam", steps=1, progress=5)
    with pytest.raises(ccsim.InputError, match=r"^links: must be True or False \(got str\)$"):
        ccsim.simulate(**KW, algorithm="adam", gpus=32, links="no")
    with pytest.raises(ccsim.InputError, match=r"^allow_oom: must be True or False \(got float\)$"):
        ccsim.simulate(**KW, algorithm="adam", gpus=32, allow_oom=float("nan"))
    # A list's repeats count once, and a list holds at most 256 different items (io/Limits.hpp kMaxListItems):
    # the same cap and message as the command line's.
    with pytest.raises(ccsim.InputError, match=r"^algorithm: lists more than 256 different values$"):
        ccsim.train([f"a{i}" for i in range(257)])
    line = cli_error("train", "--algorithm", ",".join(f"a{i}" for i in range(257)))
    assert line == "--algorithm: lists more than 256 different values"


def test_issue_43_finding_6_a_repeated_algorithm_trains_once():
    many = ccsim.train(["adam"] * 100000, steps=2, workers=2, global_batch=8)
    once = ccsim.train("adam", steps=2, workers=2, global_batch=8)
    assert len(many) == 1
    assert many[0].final_loss == once[0].final_loss
