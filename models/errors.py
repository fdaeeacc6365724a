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


class ModelFileError(InvalidParameterError):
    """A saved model that cannot be opened: empty, damaged, unsafe (it could run code),
    too large once unpacked, or with hyper-parameters outside the ranges a model is built
    with. The message names the file and, for a hyper-parameter, the field, its value and
    the allowed range. (An ``InvalidParameterError``, so code that caught the old error
    for a bad model file still catches this one.)"""


class DegenerateDataError(InvalidParameterError):
    """Training data a model cannot fit sensibly: all points (nearly) the same, or on a
    line, so the likelihood of a density has no upper bound."""


class SessionFileError(ArchScopeError, ValueError):
    """A session file (``.archscope``) that cannot be opened: not a session, damaged or
    truncated, written by a newer ArchScope, for a tab this version does not have, with
    weights of the wrong shapes, or built to exhaust memory (too many members, too large
    unpacked, paths that leave the archive). The message names the file and what is
    wrong; the window keeps what it had."""


class LoadCancelled(ArchScopeError):
    """The user cancelled reading a file (Cancel beside its progress bar): raised by a
    loader at its next check (``models.reading.LoadWatch``); nothing of the file is kept."""


class PretrainedModelError(ModelFileError):
    """A pretrained model folder that cannot be opened: a file missing (config.json,
    the weights, tokenizer.json), an architecture ArchScope does not run (the message
    names the ones it does), weights with unknown, missing or wrongly shaped names (the
    message names them), a pickled checkpoint that is refused, a model above the size
    limit, or the bundled model not installed (the message gives the command)."""


class SequenceTooLongError(InvalidParameterError):
    """A text longer, in tokens, than the model has positions for. The message gives
    both numbers."""
