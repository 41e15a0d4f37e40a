"""Python values as the command line's inputs: keyword arguments as the text typed after a flag, and topologies,
workloads and experiments given as a preset name, a path or a dict.

The C++ side (python/src/Flags.cpp) reads that text with the command line's own parsers and ranges, so a value the
command line rejects is rejected here with the same line ("--gpus: must be >= 1 and <= 65536 (got 0)").
"""

import json
import numbers
import os
from collections.abc import Mapping

from . import _core
from ._errors import InputError


def input_error(where, pointer, problem):
    """An InputError built as the library builds one (the same escaping and length caps)."""
    return InputError(_core.input_error_message(where, pointer, problem), where, pointer, problem)


def flag_text(value):
    """What a user would type after the flag for `value`: 64, 2.5 (the shortest text that reads back the same
    double), a string as it is. Anything else is written as str() and rejected by the flag's parser."""
    if isinstance(value, bool):
        return str(value)  # not a number: the flag's parser says so
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return str(value)


def flags(**values):
    """The given (not None) keyword arguments as {flag name: text}: global_batch -> "global-batch"."""
    return {k.replace("_", "-"): flag_text(v) for k, v in values.items() if v is not None}


def key_values(params, flag="--param"):
    """A dict of --param key=value pairs as text."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise input_error(flag, "", f"must be a dict of key: value (got {type(params).__name__})")
    return {str(k): flag_text(v) for k, v in params.items()}


def source(value, kind):
    """A topology, workload or experiment: (name, None) for a preset name or a path, (label, JSON text) for a dict.

    A string is read as the command line reads it (a name without '/' and not ending in .json is a preset); a
    pathlib.Path is always a path.
    """
    option = "ccsim experiment" if kind == "experiment" else f"--{kind}"
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        looks_like_path = "/" in path or (len(path) > 5 and path.endswith(".json"))
        return (path if looks_like_path else os.path.join(".", path)), None
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping):
        label = f"<{kind} dict>"
        value = value.to_dict() if hasattr(value, "to_dict") else dict(value)
        try:
            return label, json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise input_error(label, "", f"cannot be written as JSON: {e}") from None
    raise input_error(option, "", f"must be a preset name, a path or a dict (got {type(value).__name__})")


def file_only(value, kind):
    """A preset name or a path (what calibrate starts from and writes beside)."""
    if isinstance(value, Mapping):
        raise input_error(f"--{kind}", "", "must be a preset name or a path here (the calibrated topology is written "
                                           "from the file)")
    name, _ = source(value, kind)
    return name


def path_text(value, option):
    """A file path argument (str or os.PathLike)."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise input_error(option, "", f"must be a path (got {type(value).__name__})")
