"""Topologies and workloads given as a preset name, a path or a dict give one answer; the loaders return the
documents the presets hold."""

import json
from pathlib import Path

import ccsim
from conftest import REPO, without_wall

TOPOLOGY = REPO / "topologies" / "v100x4-eth40g.json"
WORKLOAD = REPO / "workloads" / "bert-large.json"


def run(topology, workload):
    return ccsim.simulate(topology=topology, workload=workload, algorithm="onebit-lamb", gpus=32).to_dict()


def names_masked(doc):
    """The document with config.topology / config.workload masked: a file's name is its stem, a dict's its label.

    The likely ranges go too: they are looked up by name in experiments/calibration/prediction-errors.json, so an
    unnamed dict is a cluster nobody calibrated and gets the wider range (asserted below).
    """
    doc = without_wall(doc)
    doc["config"]["topology"] = doc["config"]["workload"] = "masked"
    doc.pop("intervals", None)
    return doc


def assert_wider(unnamed, named):
    """Every likely range of the unnamed run contains the named run's (same centre, fewer calibrated facts)."""
    assert unnamed["intervals"].keys() == named["intervals"].keys()
    for key, band in named["intervals"].items():
        assert unnamed["intervals"][key]["low"] <= band["low"] * (1 + 1e-12), key
        assert unnamed["intervals"][key]["high"] >= band["high"] * (1 - 1e-12), key
        assert "not calibrated here" in unnamed["intervals"][key]["why"] or \
            "has no calibration" in unnamed["intervals"][key]["why"], key


def test_a_path_gives_the_presets_answer():
    preset = run("v100x4-eth40g", "bert-large")
    assert without_wall(run(str(TOPOLOGY), str(WORKLOAD))) == without_wall(preset)
    assert without_wall(run(TOPOLOGY, WORKLOAD)) == without_wall(preset)  # pathlib.Path


def test_a_dict_gives_the_files_answer():
    from_files = run(str(TOPOLOGY), str(WORKLOAD))
    topology = json.loads(TOPOLOGY.read_text())
    workload = json.loads(WORKLOAD.read_text())
    from_dicts = run(topology, workload)
    assert names_masked(from_dicts) == names_masked(from_files)
    assert_wider(from_dicts, from_files)
    assert from_dicts["config"]["topology"] == "<topology dict>"  # a dict without "name" is called by its label
    # Named as the file is (its stem), the answer is the file's to the last field.
    assert without_wall(run({**topology, "name": "v100x4-eth40g"}, {**workload, "name": "bert-large"})) == \
        without_wall(from_files)


def test_an_edited_dict_answers_as_the_flag_that_sets_the_same_constant():
    """nic.latency_us set in the dict is what --latency-us sets (sim/platform/Topology.cpp: the same microseconds)."""
    topology = ccsim.load_topology("v100x4-eth40g")
    topology["nic"]["latency_us"] = 300
    edited = ccsim.simulate(topology=topology, workload="bert-large", algorithm="adam", gpus=32).to_dict()
    flag = ccsim.simulate(topology="v100x4-eth40g", workload="bert-large", algorithm="adam", gpus=32,
                          latency_us=300).to_dict()
    assert names_masked(edited) == names_masked(flag)
    preset = ccsim.simulate(topology="v100x4-eth40g", workload="bert-large", algorithm="adam", gpus=32)
    assert edited["step_time_s"] > preset.step_time_s  # 25 us -> 300 us per message costs time


def test_the_loaders_return_the_presets_documents():
    assert ccsim.load_topology("v100x4-eth40g") == json.loads(TOPOLOGY.read_text())
    assert ccsim.load_workload(str(WORKLOAD)) == json.loads(WORKLOAD.read_text())
    doc = json.loads(WORKLOAD.read_text())
    assert ccsim.load_workload(doc) == doc
    spec = ccsim.load_experiment("whatif-bandwidth")
    assert spec.name == "whatif-bandwidth"
    assert len(spec.points) == 5 * 7  # five algorithms x seven bandwidths


def test_the_package_reads_its_installed_presets():
    names = {p.name for p in ccsim.presets("topologies")}
    assert {"v100x4-eth40g", "a100x8-ib100", "h800x8-ib400x8", "v100x1-wan"} <= names
    on_disk = {p.stem for p in (REPO / "topologies").glob("*.json")}
    assert names == on_disk
    assert Path(ccsim.data_dir(), "topologies", "v100x4-eth40g.json").read_text() == TOPOLOGY.read_text()
