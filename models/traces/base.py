"""The freezing base every trace shares, and ``Progress`` (reported by every topic).

A trace is a frozen dataclass whose arrays are C-contiguous numpy arrays (float32 unless
integer or bool) and read-only. ``@trace`` makes a class one: it applies
``dataclass(frozen=True)`` and freezes the arrays on construction, so ``fields``,
``replace`` and equality are the dataclass's own. Numpy only, no torch.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields

import numpy as np

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # Python 3.10: only static checkers need it, and numpy is this package's one dependency
    def dataclass_transform(**_kwargs):
        return lambda decorated: decorated

__all__ = ["trace", "freeze_arrays", "Progress"]


def freeze_arrays(obj) -> None:
    """Make every array field C-contiguous float32 (unless integer) and read-only."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, np.ndarray):
            if value.dtype.kind == "f":
                value = np.ascontiguousarray(value, dtype=np.float32)
            else:
                value = np.ascontiguousarray(value)
            value.setflags(write=False)
            object.__setattr__(obj, f.name, value)


@dataclass_transform(frozen_default=True)
def trace(cls):
    """Class decorator: ``cls`` becomes a frozen dataclass whose arrays are frozen.

    A ``__post_init__`` the class defines (or inherits) still runs, after the freeze.
    """
    extra = getattr(cls, "__post_init__", None)

    def __post_init__(self) -> None:
        freeze_arrays(self)
        if extra is not None:
            extra(self)

    __post_init__.__qualname__ = f"{cls.__qualname__}.__post_init__"
    cls.__post_init__ = __post_init__
    return dataclass(frozen=True)(cls)


@trace
class Progress:
    """One report from a background job (a training loop or a long computation).

    Shapes:
        history: float32[step] of the loss at every step so far (a copy), on a
            session's reporting steps (every k steps and the last); empty on the others.
    """

    step: int
    total: int
    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    history: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    trace: object | None = None
    message: str = ""

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / self.total) if self.total else 0.0
