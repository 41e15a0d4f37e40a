"""The ccsim commands as Python functions. Each function's arguments are generated from its command's option table
(``_commands.command``); a call hands them to the command's own request builder (the one the command line uses), runs
the library (python/src: the GIL is released, simulations run in forked children) and returns the document the
command prints with --format json as Python objects.
"""

import json
import tempfile
import warnings

from . import _core
from ._commands import command, given, table
from ._errors import InputError
from ._inputs import input_error, source
from ._records import (AdviseResult, CalibrationResult, CollectiveResult, ComputeBenchResult, ExperimentResult,
                       KernelBenchResult, Record, SimulationResult, TrainResult, ValidationResult)


def _simulate(texts, documents):
    return SimulationResult(json.loads(_core.simulate(texts, documents)))


simulate = command("simulate", _simulate, """
    Predict one configuration, as ``ccsim simulate --format json`` does.

    topology, workload: a preset name ("v100x4-eth40g"), a path, or a dict (a topology or workload document).
    algorithm: a name from ``ccsim.algorithms()``. params: {key: value} of --param; slow_gpus: {rank: factor} of
    --slow-gpu. trace: a file the Chrome trace of one step per phase is written to (as --trace FILE); plot: a folder
    the link heat map is drawn into (with links=True).

    Returns a SimulationResult (attribute access, ``to_dict()``); bad input raises ccsim.InputError naming the
    keyword ("gpus: must be >= 1 and <= 65536 (got 0)").
    """)


def _experiment(texts, documents, progress):
    if "out" not in texts:
        if "resume" in texts:
            raise input_error("resume", "", "reuses the results in OUT/results.jsonl: give out=")
        with tempfile.TemporaryDirectory(prefix="ccsim-experiment-") as tmp:
            # The folder goes when the call returns, and the figure with it: none is drawn.
            answer = json.loads(_core.experiment({**texts, "out": [tmp], "no-plot": []}, documents, progress))
        out_dir = None
    else:
        answer = json.loads(_core.experiment(texts, documents, progress))
        out_dir = texts["out"][0]
    if answer["figure_error"]:  # the plotting script failed on the results (ccsim experiment exits 5)
        warnings.warn("the experiment's figure was not drawn" + answer["figure_error"], RuntimeWarning, stacklevel=3)
    elif not answer["figure_drawn"]:
        warnings.warn("the experiment's figure was not drawn (needs matplotlib)", RuntimeWarning, stacklevel=3)
    failures = answer["failures"]
    if failures and "keep-going" not in texts:
        first = failures[0]
        name = next(iter(documents.values()))[0] if documents else texts["file"][0]
        if first["kind"] == "input":
            raise InputError(first["line"], name, "", first["line"])
        raise RuntimeError(first["line"])
    return ExperimentResult(answer["rows"], answer["document"], out_dir, [f["line"] for f in failures])


experiment = command("experiment", _experiment, """
    Run an experiment, as ``ccsim experiment SPEC --out OUT`` does, and draw its figure into OUT.

    spec: a preset name ("whatif-bandwidth"), a path or a dict in the experiment format (experiments/SCHEMA.md).
    out: the folder for results.json, results.csv, results.jsonl and the figure; None: a temporary folder, removed
    afterwards (no figure then). progress: called as progress(finished, total, resumed, running, failed) while it
    runs (an exception it raises is raised once the running simulations are done).

    Returns an ExperimentResult: the rows (``to_pandas()``), ``document`` (results.json), ``out``, ``failures``.
    A failed point stops the run (unless keep_going) and raises InputError for a bad configuration, RuntimeError
    for a crashed simulation, with the line ``ccsim experiment`` prints for it.
    """, extras=("progress",))


def _advise(texts, documents, progress):
    return AdviseResult(json.loads(_core.advise(texts, documents, progress)))


advise = command("advise", _advise, """
    Rank every algorithm that fits by time-to-accuracy, as ``ccsim advise --format json`` does.

    topology, workload: a preset name, a path or a dict. tp, pp: a degree or a list of them (several with search);
    algorithms: a name or a list. progress: called as progress(what, done, total, unit).

    Returns an AdviseResult (``ranking``, ``cannot_run``, ...; ``to_pandas()`` of the ranking).
    """, extras=("progress",))


def _collective(texts, documents):
    return CollectiveResult(json.loads(_core.collective(texts, documents)))


collective = command("collective", _collective, """
    One collective over nccl-tests' size sweep, as ``ccsim collective --format json`` does.

    gpus: a rank count or a list of them. minbytes, maxbytes: bytes (an int, or "1K", "128M" as nccl-tests writes
    them); stepfactor: nccl-tests' -f.

    Returns a CollectiveResult (``rows`` with nccl-tests' columns, ``avg_busbw_GBps``; ``to_pandas()``).
    """)


def _calibrate(texts, documents):
    return CalibrationResult(json.loads(_core.calibrate(texts, documents)))


calibrate = command("calibrate", _calibrate, """
    Fit a topology's constants to measurements and write the calibrated topology to `out`, as
    ``ccsim calibrate --format json`` does: nccl_tests (a file, or a list of files, of nccl-tests' or
    ``ccsim collective``'s table) fits the collective constants; steps (an experiment-format file of measured step
    times) fits the constants named in fit (JSON pointers; default /gpu/sustained_tflops and /nic/effective_gbps).
    no_fit=True with nccl_tests replays the logs on the topology as it is and writes nothing (no out): how well a
    calibrated topology, or a preset, predicts other logs of the cluster.

    topology: a preset name or a path. Returns a CalibrationResult.
    """)


def _train(texts, documents, progress):
    answer = json.loads(_core.train(texts, documents, progress))
    return TrainResult(answer["runs"], answer["stopped"], answer["notes"])


train = command("train", _train, """
    Genuine convergence runs of a proxy model through the real compressors, as ``ccsim train`` does.

    algorithm: a name or a list of names compared on the same data, model and seed. params: {key: value} of
    train's --param. topology, gpus (and workload): also lay each run's loss against simulated cluster time.
    progress: called as progress(what, done, total, unit, note) after each step; an exception it raises stops the
    run and is raised here.

    Returns a TrainResult: one Record per algorithm (final_loss, loss_curve, ...), ``stopped``, ``notes``.
    """, extras=("progress",))


def _validate(texts, documents, progress):
    return ValidationResult(json.loads(_core.validate(texts, documents, progress)))


validate = command("validate", _validate, """
    Refit the calibrated constants leaving tables and rows out and predict what was left out, as
    ``ccsim validate --format json`` does (minutes: no_rows=True skips the slow leave-one-row-out part).

    progress: called as progress(what, done, total) after each fit.

    Returns a ValidationResult (``fits``, the median errors; ``to_pandas()`` of every row).
    """, extras=("progress",))


def _bench_kernels(texts, documents):
    return KernelBenchResult(json.loads(_core.bench_kernels(texts, documents)))


bench_kernels = command("bench-kernels", _bench_kernels, """
    Measure the compression kernels' throughput, as ``ccsim bench-kernels --format json`` does (the package is built
    without CUDA: backend "cuda" raises InputError).

    Returns a KernelBenchResult (``rows``: kernel, backend, bytes, GBps, vs_memcpy; ``to_pandas()``).
    """)


def _bench_compute(texts, documents):
    return ComputeBenchResult(json.loads(_core.bench_compute(texts, documents)))


bench_compute = command("bench-compute", _bench_compute, """
    Compare a GPU measurement of a transformer layer's kernels with the per-operator model, as
    ``ccsim bench-compute --compare FILE --topology T [--fit] --format json`` does (the package is built without CUDA:
    measuring raises InputError; measure with the command line on the GPU).

    Returns a ComputeBenchResult (``gemms``, ``summary``, ``elementwise``, ``attention``, ``layers`` and with fit=True
    ``fitted_compute``; ``to_pandas()`` of the GEMM rows).
    """)


def load_topology(topology):
    """A topology's document as a dict (a preset name, a path, or a dict to check), after the loader's checks: edit
    it and pass it to simulate(topology=...)."""
    return json.loads(_core.load_input("topologies", *source(topology, "topology", "topology")))


def load_workload(workload):
    """A workload's document as a dict (a preset name, a path, or a dict to check), after the loader's checks."""
    return json.loads(_core.load_input("workloads", *source(workload, "workload", "workload")))


def load_experiment(spec):
    """An experiment (a preset name, a path or a dict) expanded into its points, after the loader's checks: name,
    description, source, path, baseline, figure and points (each point's axes, label and paper values)."""
    options = [o for o in table("experiment")["options"] if o["name"] == "file"]
    return Record(json.loads(_core.load_experiment(*given("experiment", options, {"spec": spec}))))


def algorithms():
    """Every algorithm: name, description, simulates, trains, simulate's params (key, default, min, max, integer, doc),
    train's train_params (key, min, max, integer, choices, doc) and the baseline it is compared against."""
    return [Record(a) for a in json.loads(_core.algorithms())]


def presets(kind):
    """The presets of "topologies", "workloads" or "experiments": name, description, path (``ccsim list KIND``;
    ``ccsim list algorithms`` is ``algorithms()``)."""
    return [Record(p) for p in json.loads(_core.presets(str(kind)))]


def data_dir():
    """The folder the presets are read from: $CCSIM_DATA_DIR (the package's copy unless you set it)."""
    return _core.data_dir()
