"""The ccsim commands' keyword arguments, generated from their option tables.

Each command's options are declared once, in C++ (api/options/: name, kind, range, choices, default, help), and the
command line's flags and these functions' keyword arguments are both made from that table (``_core.options(name)``).
A function's required options are its positional parameters, in table order, then any optional one marked
``python_positional`` (it was required once); every other option is a keyword argument (None: not given, the
command's default applies; a flag defaults to False). A call writes each value as the text a user would type after
the flag and hands them to the command's own request builder, so both front ends are read by the same parsers,
ranges and checks. Options that only make sense on a terminal (--format, --quiet, ...) are
the command line's alone; each says why in its table (``cli_only``).
"""

import inspect
import json
import os
from collections.abc import Mapping

from . import _core
from ._inputs import flag_text, input_error, source


def table(command):
    """A command's option table: {"command", "python_function", "usage", "options": [...]}, each option with its
    name, python keyword, kind, help, range, choices, default, required, repeats, cli_only."""
    return json.loads(_core.options(command))


def _names(option, value):
    """A text, choice or name-list keyword's value checked by type: a str (or a path), or (a list kind, a repeatable
    option) a list or tuple of them. 123 or True is an InputError here, as the command line cannot even spell it."""
    several = option["kind"] == "list" or option["repeats"]
    items = value if several and isinstance(value, (list, tuple)) else [value]
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise input_error(option["python"], "", f"must be a str{' or a list of them' if several else ''} "
                                                    f"(got {type(item).__name__})")
    return [os.fspath(item) for item in items]


def _texts(option, value):
    """A keyword's value as the texts of the flag, or None when it is not given."""
    name, kind = option["python"], option["kind"]
    if kind == "choice" and option.get("bare") and isinstance(value, bool):  # recompute=True: the bare flag's value
        return [option["bare"]] if value else None
    if kind in ("text", "choice") or (kind == "list" and option["range"] is None):
        items = _names(option, value)
        return [",".join(items)] if kind == "list" else list(items)
    if kind == "flag":
        if isinstance(value, bool):
            return [] if value else None
        raise input_error(name, "", f"must be True or False (got {type(value).__name__})")
    if kind == "on-off" and isinstance(value, bool):
        return ["on" if value else "off"]
    if kind == "key=value":
        if not isinstance(value, Mapping):
            raise input_error(name, "", f"must be a dict of key: value (got {type(value).__name__})")
        return [f"{flag_text(k)}{option['separator']}{flag_text(v)}" for k, v in value.items()]
    if kind in ("path", "preset"):
        items = value if option["repeats"] and isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, Mapping):
                raise input_error(name, "", "must be a preset name or a path here, not a dict" if kind == "preset"
                                  else "must be a path, not a dict")
            if not isinstance(item, (str, os.PathLike)):
                raise input_error(name, "", f"must be a path (got {type(item).__name__})")
        return [os.fspath(item) for item in items]
    if kind == "list" and isinstance(value, (list, tuple)):
        return [",".join(flag_text(v) for v in value)]
    if option["repeats"] and isinstance(value, (list, tuple)):
        return [flag_text(v) for v in value]
    return [flag_text(value)]


def given(command, options, arguments):
    """Python's arguments as (texts, documents) by option name, for ``_core.<command>``."""
    texts, documents = {}, {}
    for option in options:
        value = arguments.get(option["python"])
        if value is None:
            continue
        if option["kind"] == "source":
            # A dict is called "<topology dict>" in errors, or by its command ("<experiment dict>") when it is the
            # command's subject.
            what = command if option["positional"] else option["name"]
            label, document = source(value, option["python"], what)
            if document is None:
                texts[option["name"]] = [label]
            else:
                documents[option["name"]] = (label, document)
            continue
        converted = _texts(option, value)
        if converted is not None:
            texts[option["name"]] = converted
    return texts, documents


def _keyword_doc(option):
    line = f"{option['python']}: {option['help']}"
    if option["choices"] and option["kind"] == "choice":
        line += f" (one of {', '.join(option['choices'])})"
    if option["default"] is not None:
        line += f" (default {option['default']})"
    return line


def command(name, run, head, extras=()):
    """The Python function of command `name`: its signature and docstring from the command's table, its call
    ``run(texts, documents, **extras)``. `extras` are keyword arguments that are no option (a progress callback)."""
    spec = table(name)
    options = [o for o in spec["options"] if not o["cli_only"]]
    P = inspect.Parameter
    parameters = [P(o["python"], P.POSITIONAL_OR_KEYWORD) for o in options if o["required"]]
    # An optional one that was required once (calibrate's out) still comes by position, after the required ones.
    parameters += [P(o["python"], P.POSITIONAL_OR_KEYWORD, default=None)
                   for o in options if not o["required"] and o["python_positional"]]
    parameters += [P(o["python"], P.KEYWORD_ONLY, default=False if o["kind"] == "flag" else None)
                   for o in options if not o["required"] and not o["python_positional"]]
    parameters += [P(e, P.KEYWORD_ONLY, default=None) for e in extras]
    signature = inspect.Signature(parameters)

    def function(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs).arguments
        for e in extras:  # a callback (progress) is called while the run goes: checked before it starts
            if arguments.get(e) is not None and not callable(arguments[e]):
                raise input_error(e, "", f"must be a function or None (got {type(arguments[e]).__name__})")
        texts, documents = given(name, options, arguments)
        return run(texts, documents, **{e: arguments.get(e) for e in extras})

    function.__name__ = function.__qualname__ = spec["python_function"]
    function.__module__ = "ccsim"
    function.__signature__ = signature
    function.__doc__ = (inspect.cleandoc(head) + "\n\nArguments (from the option table of ``ccsim " + name + "``):\n\n" +
                        "\n".join("    " + _keyword_doc(o) for o in options))
    return function
