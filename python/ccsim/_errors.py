"""The package's exceptions."""


class InputError(ValueError):
    """Bad input: a preset, file, dict, JSON path or keyword argument that ccsim rejects.

    ``str(e)`` is the one line ``ccsim`` prints after ``"ccsim: "`` for the same input ("FILE: /json/path: problem"
    or "--flag: problem"); ``where``, ``pointer`` and ``problem`` are its parts.
    """

    def __init__(self, message, where="", pointer="", problem=""):
        super().__init__(message)
        self.where = where
        self.pointer = pointer
        self.problem = problem


class RunStopped(RuntimeError):
    """A run ended before its end (a signal, or the time limit)."""
