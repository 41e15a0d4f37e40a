"""Results as Python objects: a JSON document ccsim printed, read with attribute access.

Every result is built from the very document the command line prints with ``--format json`` (the library serialises
a report once, in C++), so its fields are the command's fields by construction.
"""

import copy
from collections.abc import Mapping


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Record(Mapping):
    """A JSON object: ``r.samples_per_s`` or ``r["samples_per_s"]``; nested objects are Records too.

    ``to_dict()`` gives a deep copy of the document as plain dicts and lists.
    """

    __slots__ = ("_doc",)

    def __init__(self, doc):
        object.__setattr__(self, "_doc", doc)

    def __getattr__(self, name):
        try:
            return _wrap(self._doc[name])
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r} (fields: {', '.join(self._doc)})") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, key):
        return _wrap(self._doc[key])

    def __iter__(self):
        return iter(self._doc)

    def __len__(self):
        return len(self._doc)

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k for k in self._doc if k.isidentifier()})

    def __repr__(self):
        # The scalar fields first (a result's headline numbers), nested ones by name only.
        scalars = [k for k, v in self._doc.items() if not isinstance(v, (dict, list))]
        nested = [k for k in self._doc if k not in scalars]
        shown = ", ".join(f"{k}={self._doc[k]!r}" for k in scalars[:8])
        rest = scalars[8:] + nested
        more = (", " if shown else "") + ", ".join(rest) + "=..." if rest else ""
        return f"{type(self).__name__}({shown}{more})"

    def __eq__(self, other):
        if isinstance(other, Record):
            return self._doc == other._doc
        if isinstance(other, dict):
            return self._doc == other
        return NotImplemented

    __hash__ = None

    def to_dict(self):
        """The document as plain dicts, lists and numbers (a copy)."""
        return copy.deepcopy(self._doc)


class SimulationResult(Record):
    """What ``ccsim simulate --format json`` prints: samples_per_s, step_time_s, tflops_per_gpu, breakdown
    (compute_s, comm_s, exposed_comm_s, compression_s, optimizer_s, allreduce_ms), bytes_per_gpu, memory, phases,
    config, sim (wall_s, events, fidelity), tokens_per_s / tokens_per_s_per_gpu / days_per_1t_tokens where the
    workload has a sequence length, and links / links_over_time / trace when asked for."""


class Rows(list):
    """A list of Records (one per row) that becomes a pandas DataFrame with ``to_pandas()`` when pandas is
    installed (nested objects become dotted columns: ``paper.samples_per_s``). pandas is not required otherwise."""

    def __init__(self, rows):
        super().__init__(_wrap(r) for r in rows)

    def to_dicts(self):
        """The rows as plain dicts (copies)."""
        return [r.to_dict() for r in self]

    def to_pandas(self):
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas (pip install pandas); the rows are plain dicts otherwise: "
                              "to_dicts()") from e
        return pandas.json_normalize(self.to_dicts())


class ExperimentResult(Rows):
    """The rows of ``ccsim experiment`` (results.json's "rows"); ``document`` is results.json's document, ``out``
    the folder holding results.json, results.csv and results.jsonl (None when it was a temporary one), ``failures``
    one line per failed point (with keep_going)."""

    def __init__(self, rows, document, out, failures):
        super().__init__(rows)
        self.document = _wrap(document) if document is not None else None
        self.out = out
        self.failures = list(failures)


class AdviseResult(Record):
    """What ``ccsim advise --format json`` prints; ``ranking`` rows also as a DataFrame with ``to_pandas()``."""

    def to_pandas(self):
        return Rows(self._doc["ranking"]).to_pandas()


class CollectiveResult(Record):
    """What ``ccsim collective --format json`` prints (nccl-tests' columns per row); ``to_pandas()`` of the rows."""

    def to_pandas(self):
        return Rows(self._doc["rows"]).to_pandas()


class CalibrationResult(Record):
    """What ``ccsim calibrate --format json`` prints: the fitted constants, their errors and every row."""

    def to_pandas(self):
        return Rows(self._doc["rows"]).to_pandas()


class TrainResult(Rows):
    """The runs of ``ccsim train`` (one Record per algorithm: final_loss, loss_curve, bytes_per_worker, ...);
    ``stopped`` says how far a stopped run got ("" when none was), ``notes`` the lines ccsim train prints on stderr
    (a cached pre-trained model trained again)."""

    def __init__(self, runs, stopped, notes):
        super().__init__(runs)
        self.stopped = stopped
        self.notes = list(notes)


class ValidationResult(Record):
    """What ``ccsim validate --format json`` prints: fits_file, simulations, the median errors and ``fits`` (each
    topology's constants, tables and rows); ``to_pandas()`` of every fit's rows, with its topology beside each."""

    def to_pandas(self):
        return Rows([{"topology": f["topology"], **row} for f in self._doc["fits"] for row in f["rows"]]).to_pandas()


class ComputeBenchResult(Record):
    """What ``ccsim bench-compute --format json`` prints: a measurement, or its comparison with the model (gemms,
    summary, elementwise, attention, layers, fitted_compute); ``to_pandas()`` of the GEMM rows."""

    def to_pandas(self):
        return Rows(self._doc["gemms"]).to_pandas()


class KernelBenchResult(Record):
    """What ``ccsim bench-kernels --format json`` prints: simd, threads and a row per kernel; ``to_pandas()``."""

    def to_pandas(self):
        return Rows(self._doc["rows"]).to_pandas()
