"""Numbers in a session file's JSON, which has no NaN or infinity: such numbers are
written as the strings "nan", "inf", "-inf" (a metric not evaluated yet, the best
validation AUC before any epoch) and read back checked."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from models.errors import SessionFileError

__all__ = ["encode_number", "decode_number", "prefixed_arrays"]


def encode_number(value: float) -> float | str:
    """``value`` as JSON can hold it: a float, or "nan" / "inf" / "-inf"."""
    value = float(value)
    return value if math.isfinite(value) else str(value)


def decode_number(value, what: str, where: str = "") -> float:
    """The float ``encode_number`` wrote, or ``SessionFileError`` naming ``what`` (and
    ``where``, the file's name followed by ": ")."""
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SessionFileError(f"{where}{what} is not a number ({value!r}).")
    return float(value)


def prefixed_arrays(arrays: dict, prefix: str, fields: Iterable[str],
                    bad: Callable[[str], Exception]) -> dict[str, np.ndarray]:
    """The arrays ``<prefix>.<field>`` of a session file's part, by field; a missing one
    raises ``bad("lacks its <field>")``."""
    got = {}
    for field in fields:
        value = arrays.get(f"{prefix}.{field}")
        if value is None:
            raise bad(f"lacks its {field}")
        got[field] = np.asarray(value)
    return got
