"""Python values as the command line's inputs: a keyword's value as the text typed after its flag, and topologies,
workloads and experiments given as a preset name, a path or a dict.

The C++ side reads that text with the command's own builder (api/options/), so a value the command line rejects is
rejected here with the same problem, the option named by its keyword ("gpus: must be >= 1 and <= 65536 (got 0)").
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
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def source(value, keyword, what):
    """A topology, workload or experiment: (name, None) for a preset name or a path, (label, JSON text) for a dict,
    called "<WHAT dict>" in errors.

    A string is read as the command line reads it (a name without '/' and not ending in .json is a preset); a
    pathlib.Path is always a path.
    """
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        looks_like_path = "/" in path or (len(path) > 5 and path.endswith(".json"))
        return (path if looks_like_path else os.path.join(".", path)), None
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping):
        label = f"<{what} dict>"
        value = value.to_dict() if hasattr(value, "to_dict") else dict(value)
        try:
            return label, json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise input_error(label, "", f"cannot be written as JSON: {e}") from None
    raise input_error(keyword, "", f"must be a preset name, a path or a dict (got {type(value).__name__})")
