"""The ccsim commands as Python functions. Each builds the request the command line builds from its flags, runs the
library (python/src: the GIL is released, simulations run in forked children) and returns the document the command
prints with --format json as Python objects.
"""

import json
import os
import tempfile

from . import _core
from ._inputs import file_only, flag_text, flags, input_error, key_values, path_text, source
from ._records import (AdviseResult, CalibrationResult, CollectiveResult, ExperimentResult, Record, SimulationResult,
                       TrainResult)
from ._errors import InputError


def simulate(topology, workload, algorithm, gpus, *, global_batch=None, micro_batch=None, tp=None, pp=None,
             bandwidth_gbps=None, latency_us=None, network_model=None, params=None, fidelity="fast", links=False,
             trace=False, allow_oom=False, slow_gpus=None, straggler_cv=None, straggler_seed=None):
    """Predict one configuration, as ``ccsim simulate --format json`` does.

    topology, workload: a preset name ("v100x4-eth40g"), a path, or a dict (a topology or workload document).
    algorithm: a name from ``ccsim.algorithms()``. gpus, global_batch, micro_batch, tp, pp: whole numbers.
    bandwidth_gbps, latency_us: override the inter-node bandwidth per node (Gbit/s) and the NIC latency (us).
    network_model: "rdma" or "tcp". params: {key: value} of --param (algorithm and workload parameters).
    fidelity: "fast" or "exact". links: add the busiest links and every link's load over time. trace: add "trace",
    Chrome trace events of one step per phase. allow_oom: simulate a run that does not fit the GPUs' memory.
    slow_gpus: {rank: compute factor}. straggler_cv, straggler_seed: the random straggler model.

    Returns a SimulationResult (attribute access, ``to_dict()``); bad input raises ccsim.InputError with the line
    the command line prints.
    """
    if slow_gpus is not None and not isinstance(slow_gpus, dict):
        raise input_error("--slow-gpu", "", f"must be a dict of rank: factor (got {type(slow_gpus).__name__})")
    text = _core.simulate(
        source(topology, "topology"), source(workload, "workload"), str(algorithm),
        flags(gpus=gpus, global_batch=global_batch, micro_batch=micro_batch, tp=tp, pp=pp,
              bandwidth_gbps=bandwidth_gbps, latency_us=latency_us, network_model=network_model, fidelity=fidelity,
              straggler_cv=straggler_cv, straggler_seed=straggler_seed),
        key_values(params), list(key_values(slow_gpus, "--slow-gpu").items()), bool(links), bool(trace),
        bool(allow_oom))
    return SimulationResult(json.loads(text))


def load_topology(topology):
    """A topology's document as a dict (a preset name, a path, or a dict to check), after the loader's checks: edit
    it and pass it to simulate(topology=...)."""
    return json.loads(_core.load_input("topologies", *source(topology, "topology")))


def load_workload(workload):
    """A workload's document as a dict (a preset name, a path, or a dict to check), after the loader's checks."""
    return json.loads(_core.load_input("workloads", *source(workload, "workload")))


def load_experiment(spec):
    """An experiment (a preset name, a path or a dict) expanded into its points, after the loader's checks: name,
    description, source, path, baseline, figure and points (each point's axes, label and paper values)."""
    return Record(json.loads(_core.load_experiment(*source(spec, "experiment"))))


def experiment(spec, *, out=None, jobs=1, keep_going=False, resume=False, progress=None):
    """Run an experiment, as ``ccsim experiment SPEC --out OUT --jobs JOBS`` does (without the figure).

    spec: a preset name ("whatif-bandwidth"), a path or a dict in the experiment format (experiments/SCHEMA.md).
    out: the folder for results.json, results.csv and results.jsonl; None: a temporary folder, removed afterwards.
    progress: called as progress(finished, total, resumed, running, failed) while it runs (an exception it raises is
    raised once the running simulations are done).

    Returns an ExperimentResult: the rows (``to_pandas()``), ``document`` (results.json), ``out``, ``failures``.
    A failed point stops the run (unless keep_going) and raises InputError for a bad configuration, RuntimeError
    for a crashed simulation, with the line ``ccsim experiment`` prints for it.
    """
    name, text = source(spec, "experiment")
    flag_values = flags(jobs=jobs)
    if out is None:
        if resume:
            raise input_error("--resume", "", "reuses the results in OUT/results.jsonl: give out=")
        with tempfile.TemporaryDirectory(prefix="ccsim-experiment-") as tmp:
            answer = json.loads(_core.experiment(name, text, tmp, flag_values, bool(keep_going), False, progress))
        out_dir = None
    else:
        out_dir = path_text(out, "--out")
        answer = json.loads(_core.experiment(name, text, out_dir, flag_values, bool(keep_going), bool(resume),
                                             progress))
    failures = answer["failures"]
    if failures and not keep_going:
        first = failures[0]
        if first["kind"] == "input":
            raise InputError(first["line"], name, "", first["line"])
        raise RuntimeError(first["line"])
    return ExperimentResult(answer["rows"], answer["document"], out_dir, [f["line"] for f in failures])


def advise(topology, workload, gpus, *, global_batch=None, micro_batch=None, bandwidth_gbps=None, epoch_samples=None,
           jobs=2, evidence=None, search=False, progress=None):
    """Rank every algorithm that fits by time-to-accuracy, as ``ccsim advise --format json`` does.

    topology, workload: a preset name, a path or a dict. evidence: the convergence evidence file (default: the
    presets'). search: every dp/tp/pp split and micro-batch per algorithm, each ranked at its fastest.
    progress: called as progress(what, done, total, unit).

    Returns an AdviseResult (``ranking``, ``cannot_run``, ...; ``to_pandas()`` of the ranking).
    """
    text = _core.advise(source(topology, "topology"), source(workload, "workload"),
                        flags(gpus=gpus, global_batch=global_batch, micro_batch=micro_batch,
                              bandwidth_gbps=bandwidth_gbps, epoch_samples=epoch_samples, jobs=jobs),
                        None if evidence is None else path_text(evidence, "--evidence"), bool(search), progress)
    return AdviseResult(json.loads(text))


def collective(topology, gpus, *, op="all_reduce", minbytes=8, maxbytes=128 * 2**20, stepfactor=2, fidelity="fast",
               bandwidth_gbps=None, latency_us=None, with_kernels=False):
    """One collective over nccl-tests' size sweep, as ``ccsim collective --format json`` does.

    gpus: a rank count or a list of them. minbytes, maxbytes: bytes; stepfactor: nccl-tests' -f.
    Returns a CollectiveResult (``rows`` with nccl-tests' columns, ``avg_busbw_GBps``; ``to_pandas()``).
    """
    counts = list(gpus) if isinstance(gpus, (list, tuple)) else [gpus]
    text = _core.collective(str(op), source(topology, "topology"), [flag_text(g) for g in counts],
                            flags(minbytes=minbytes, maxbytes=maxbytes, stepfactor=stepfactor, fidelity=fidelity,
                                  bandwidth_gbps=bandwidth_gbps, latency_us=latency_us),
                            bool(with_kernels))
    return CollectiveResult(json.loads(text))


def calibrate(topology, *, out, nccl_tests=None, steps=None, fit=None, op=None, ranks=None, fidelity="fast", jobs=2):
    """Fit a topology's constants to measurements and write the calibrated topology to `out`, as
    ``ccsim calibrate --format json`` does: nccl_tests (a file of nccl-tests' or ``ccsim collective``'s table) fits
    the NIC bandwidth and latency; steps (an experiment-format file of measured step times) fits the constants
    named in fit (JSON pointers; default /gpu/sustained_tflops and /nic/effective_gbps).

    topology: a preset name or a path. Returns a CalibrationResult.
    """
    text = _core.calibrate(file_only(topology, "topology"),
                           None if nccl_tests is None else path_text(nccl_tests, "--nccl-tests"),
                           None if steps is None else path_text(steps, "--steps"), path_text(out, "--out"),
                           None if fit is None else [str(f) for f in ([fit] if isinstance(fit, str) else fit)],
                           flags(op=op, ranks=ranks, fidelity=fidelity, jobs=jobs))
    return CalibrationResult(json.loads(text))


def train(algorithm, *, model="mlp", workers=16, steps=None, global_batch=None, params=None, seed=1, backend="cpu",
          topology=None, gpus=None, workload=None, task="scratch", pretrain_steps=None, cache_dir=None,
          progress=None):
    """Genuine convergence runs of a proxy model through the real compressors, as ``ccsim train`` does.

    algorithm: a name or a list of names compared on the same data, model and seed. model: "mlp" or
    "tiny-transformer". params: {key: value} of train's --param. topology, gpus (and workload): also lay each run's
    loss against simulated cluster time. task: "scratch" or "finetune".
    progress: called as progress(what, done, total, unit, note) after each step; an exception it raises stops the
    run and is raised here.

    Returns a TrainResult: one Record per algorithm (final_loss, loss_curve, ...), ``stopped``, ``notes``.
    """
    names = [algorithm] if isinstance(algorithm, str) else [str(a) for a in algorithm]
    algorithm_list = [a for n in names for a in n.split(",") if a]
    text = _core.train(algorithm_list, ",".join(names),
                       flags(model=model, workers=workers, steps=steps, global_batch=global_batch, seed=seed,
                             backend=backend, gpus=gpus, task=task, pretrain_steps=pretrain_steps,
                             cache_dir=None if cache_dir is None else path_text(cache_dir, "--cache-dir")),
                       key_values(params),
                       None if topology is None else source(topology, "topology"),
                       None if workload is None else source(workload, "workload"), progress)
    answer = json.loads(text)
    return TrainResult(answer["runs"], answer["stopped"], answer["notes"])


def algorithms():
    """Every algorithm: name, description, simulates, trains, simulate's params (key, default, min, max, integer, doc),
    train's train_params (key, min, max, integer, choices, doc) and the baseline it is compared against."""
    return [Record(a) for a in json.loads(_core.algorithms())]


def presets(kind):
    """The presets of "topologies", "workloads" or "experiments": name, description, path."""
    return [Record(p) for p in json.loads(_core.presets(str(kind)))]


def data_dir():
    """The folder the presets are read from: $CCSIM_DATA_DIR (the package's copy unless you set it)."""
    return _core.data_dir()
