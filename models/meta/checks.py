"""Argument checks of the meta-learning sessions: a refusal names the option and the range."""

from __future__ import annotations

import math

import numpy as np

from models.errors import InvalidParameterError


def _int(name: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise InvalidParameterError(f"{name} must be a whole number from {lo} to {hi}, "
                                    f"got {v!r}.")
    return int(v)


def _positive(name: str, v) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = math.nan
    if isinstance(v, bool) or not (math.isfinite(f) and f > 0):
        raise InvalidParameterError(f"{name} must be a positive number, got {v!r}.")
    return f
