"""Typed errors that the shell shows to the user as a sentence, details folded away.

Torch-free, so the shell can catch them without importing torch.
"""

from __future__ import annotations


class ArchScopeError(Exception):
    """An expected problem with a message a student can act on."""


class InvalidParameterError(ArchScopeError, ValueError):
    """A parameter outside the range a model accepts (e.g. an odd d_model)."""


class DeviceUnavailableError(ArchScopeError, RuntimeError):
    """The requested device is not present or cannot run tensors."""


class TrainingDivergedError(ArchScopeError, FloatingPointError):
    """Training produced a non-finite loss or gradient."""


class GraphLoadError(ArchScopeError, ValueError):
    """A graph file that cannot be read: malformed, unsafe, empty or of an unknown format.

    The message names the file and, where known, the line (``file.csv, line 12: expected
    2 columns, got 3``).
    """
