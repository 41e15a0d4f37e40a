"""ccsim from Python: predict the step time of communication-compressed distributed training, with the same answers
as the ``ccsim`` command line (the same C++ library, python/src binds it).

    >>> import ccsim
    >>> r = ccsim.simulate(topology="v100x4-eth40g", workload="bert-large", algorithm="onebit-adam", gpus=64)
    >>> r.samples_per_s, r.breakdown.comm_s

Each function's arguments are generated from its command's option table, the one the command line's flags come from
(``help(ccsim.simulate)`` lists them). Topologies and workloads are preset names, paths or dicts; bad input raises
ccsim.InputError carrying the command line's one-line message, the option named by its keyword. Simulations run in forked children (SimGrid's engine is one per process), so calls may be
repeated and made from threads.
"""

import os as _os

# The presets installed with the package (topologies/, workloads/, experiments/, plots/), unless the user points
# CCSIM_DATA_DIR elsewhere; a build without them reads the source tree it was built from.
_DATA = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "data")
if _os.path.isdir(_DATA) and not _os.environ.get("CCSIM_DATA_DIR"):
    _os.environ["CCSIM_DATA_DIR"] = _DATA

from ._errors import InputError, RunStopped  # noqa: E402
from ._records import (AdviseResult, CalibrationResult, CollectiveResult, ComputeBenchResult,  # noqa: E402
                       ExperimentResult, KernelBenchResult, Record, Rows, SimulationResult, TrainResult,
                       ValidationResult)
from ._api import (advise, algorithms, bench_compute, bench_kernels, calibrate, collective, data_dir, experiment,  # noqa: E402
                   load_experiment, load_topology, load_workload, presets, simulate, train, validate)

__version__ = "0.1.0"

__all__ = ["simulate", "experiment", "advise", "collective", "calibrate", "train", "validate", "bench_kernels",
           "bench_compute", "load_topology", "load_workload", "load_experiment", "algorithms", "presets", "data_dir",
           "InputError",
           "RunStopped", "Record", "Rows", "SimulationResult", "ExperimentResult", "AdviseResult", "CollectiveResult",
           "CalibrationResult", "TrainResult", "ValidationResult", "KernelBenchResult",
           "ComputeBenchResult"]
