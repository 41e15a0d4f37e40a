"""Both front ends offer the same options: every command's flags (as `ccsim COMMAND --help` lists them) and its Python
function's keyword arguments are the options of one table (api/options/), apart from the command line's own options,
each with the reason it has no keyword. A bad value reads the same in both, the option named as each front end spells
it: "--gpus: ..." on the command line, "gpus: ..." in Python."""

import inspect
import json
import math
import re

import pytest

import ccsim
from ccsim import _core
from ccsim._commands import table
from conftest import cli_error, run_cli

COMMANDS = [c["command"] for c in json.loads(_core.commands())]
# Keyword arguments that are no option: callbacks.
EXTRAS = {"progress"}


def cli_flags(command):
    """The long flags `ccsim COMMAND --help` lists (the option column, not the help text)."""
    out = run_cli(command, "--help")[1]
    return {m.group(1) for m in re.finditer(r"^  (?:-\w \[ )?--([a-z0-9-]+)", out, re.M)}


def test_every_command_of_the_command_line_has_a_table():
    listed = run_cli("--help")[1]
    names = re.findall(r"^  ([a-z-]+)\s{2,}", listed.split("commands:")[1], re.M)
    assert sorted(names) == sorted(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_the_command_lines_flags_are_its_tables_options(command):
    assert cli_flags(command) == {o["name"] for o in table(command)["options"]}


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "list"])
def test_pythons_keywords_are_the_tables_options_less_the_command_lines_own(command):
    spec = table(command)
    function = getattr(ccsim, spec["python_function"])
    keywords = set(inspect.signature(function).parameters) - EXTRAS
    offered = {o["python"] for o in spec["options"] if not o["cli_only"]}
    assert keywords == offered
    # Every option one front end lacks says why.
    for o in spec["options"]:
        assert (o["python"] in keywords) != bool(o["cli_only"]), o["name"]
    # Required options are positional, in table order; a flag defaults to False, any other option to None.
    parameters = inspect.signature(function).parameters.values()
    assert [p.name for p in parameters if p.default is inspect.Parameter.empty] == \
        [o["python"] for o in spec["options"] if o["required"] and not o["cli_only"]]
    for o in spec["options"]:
        if not o["cli_only"] and not o["required"]:
            assert inspect.signature(function).parameters[o["python"]].default == (False if o["kind"] == "flag"
                                                                                    else None)
    # By position: the required options, then those that were required once (python_positional: calibrate's out).
    assert [p.name for p in parameters if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD] == \
        [o["python"] for o in spec["options"] if o["required"] and not o["cli_only"]] + \
        [o["python"] for o in spec["options"] if o["python_positional"] and not o["required"] and not o["cli_only"]]


def test_list_is_presets_and_algorithms_in_python():
    """`ccsim list KIND` is ccsim.presets(kind) for the preset kinds and ccsim.algorithms() for the algorithms."""
    spec = table("list")
    [what] = [o for o in spec["options"] if not o["cli_only"]]
    assert spec["python_function"] == "presets"
    assert list(inspect.signature(ccsim.presets).parameters) == [what["python"]]
    for kind in ("topologies", "workloads", "experiments"):
        listed = json.loads(run_cli("list", kind, "--format", "json")[1])[kind]
        assert [p.name for p in ccsim.presets(kind)] == [p["name"] for p in listed]
    listed = json.loads(run_cli("list", "algorithms", "--format", "json")[1])["algorithms"]
    assert [a.name for a in ccsim.algorithms()] == [a["name"] for a in listed]


def test_the_docstring_lists_every_keyword_with_its_help():
    doc = ccsim.simulate.__doc__
    for o in table("simulate")["options"]:
        if not o["cli_only"]:
            assert f"    {o['python']}: " in doc


# --- the same bad value through both front ends

# A valid call of each command: its required options (table names) as the command line and Python take them.
BASES = {
    "simulate": {"topology": "a100x8-ib100", "workload": "bert-large", "algorithm": "adam", "gpus": 32},
    "advise": {"topology": "v100x8-ib100", "workload": "bert-large", "gpus": 16},
    "experiment": {"file": "whatif-bandwidth"},
    "train": {"algorithm": "adam"},
    "bench-kernels": {},
    "collective": {"topology": "a100x8-ib100", "gpus": 16},
    "calibrate": {"topology": "a100x8-ib100", "out": "/nonexistent/never-written.json"},
    "validate": {},
}


def bad_value(option):
    """A value the option's kind or range rejects, as (command-line text, Python value); None for kinds without one."""
    kind, rng = option["kind"], option["range"]
    if kind == "integer":
        # Past the range's top (io/Limits.hpp) by a margin a double keeps: 2^53 + 1 would read as 2^53 itself.
        return str(int(rng["hi"]) * 2 + 1), int(rng["hi"]) * 2 + 1
    if kind == "number":
        return "nan", math.nan
    if kind == "size":
        return "1x", "1x"
    if kind in ("choice", "on-off"):
        return "bogus", "bogus"
    if kind == "list" and rng is not None:
        return str(int(rng["hi"]) * 2 + 1), [int(rng["hi"]) * 2 + 1]
    return None


def cases():
    for command, base in BASES.items():
        for o in table(command)["options"]:
            if not o["cli_only"] and bad_value(o) is not None:
                yield pytest.param(command, o, id=f"{command} --{o['name']}")


def cli_args(command, values):
    spec = {o["name"]: o for o in table(command)["options"]}
    args = [command]
    for name, value in values.items():
        args += [value] if spec[name]["positional"] else [f"--{name}={value}"]
    return args


@pytest.mark.parametrize("command,option", list(cases()))
def test_a_bad_value_reads_the_same_in_both_spellings(command, option):
    text, value = bad_value(option)
    flag, keyword = "--" + option["name"], option["python"]
    line = cli_error(*cli_args(command, {**BASES[command], option["name"]: text}))
    assert line.startswith(flag + ": ")
    function = getattr(ccsim, table(command)["python_function"])
    keywords = {table_name_to_keyword(command, k): v for k, v in BASES[command].items()}
    with pytest.raises(ccsim.InputError) as e:
        function(**{**keywords, keyword: value})
    # The same problem, the option named by its keyword: "gpus: must be ..." for "--gpus: must be ...".
    assert str(e.value) == keyword + line[len(flag):]
    assert e.value.where == keyword


def table_name_to_keyword(command, name):
    return next(o["python"] for o in table(command)["options"] if o["name"] == name)
