"""ccsim.algorithms() reads the registry of algorithm descriptors the command line reads (algorithms/Registry.hpp):
the same names, train's keys as `ccsim train --help` lists them, one declaration of a key both commands take, and a
baseline that is an algorithm of the list."""

import json

import ccsim
from conftest import run_cli


def test_the_package_lists_the_command_lines_algorithms():
    listing = json.loads(run_cli("list", "algorithms", "--format", "json")[1])
    assert [a.name for a in ccsim.algorithms()] == [a["name"] for a in listing["algorithms"]]


def test_every_train_key_is_one_ccsim_train_accepts():
    # `ccsim train --help` lists each key at the start of a line as "KEY in RANGE: DOC", a word parameter's words for
    # its range (compared without the help's line breaks); the package gives each algorithm the keys its update reads.
    help_text = run_cli("train", "--help")[1]
    lines = [line.strip() for line in help_text.splitlines()]
    unwrapped = "".join(help_text.split())
    for a in ccsim.algorithms():
        assert bool(a.train_params) == a.trains, a.name
        for p in a.train_params:
            assert any(line.startswith(f"{p.key} in ") for line in lines), (a.name, p.key)
            if p.choices:
                assert f"{p.key}in{'|'.join(p.choices)}:" in unwrapped, (a.name, p.key)


def test_a_key_simulate_and_train_both_take_is_one_declaration():
    # SLAMB §5.1's k and H: the plan prices them and the update runs them, with one range and one doc.
    slamb = next(a for a in ccsim.algorithms() if a.name == "slamb")
    simulated = {p.key: p for p in slamb.params}
    trained = {p.key: p for p in slamb.train_params}
    for key in ("k", "H"):
        s, t = simulated[key], trained[key]
        assert (s.min, s.max, s.integer, s.doc) == (t.min, t.max, t.integer, t.doc)


def test_each_baseline_is_an_algorithm_and_its_own_baseline():
    by_name = {a.name: a for a in ccsim.algorithms()}
    for a in by_name.values():
        assert a.baseline in by_name, a.name
        assert by_name[a.baseline].baseline == a.baseline
