"""What every topic's request shares: a number's default and limits, and the checks a
frozen request runs once when it is made.

A request is one setting of a tab, as a frozen dataclass in ``models/<topic>/options.py``
(torch-free, so ``app/`` imports it at module top). Its ``RANGES`` are the one place of
each number's default and limits: the tab's controls are built from them, the model code
takes its defaults from them, and ``__post_init__`` checks a value against them with
``check_*`` below, so a request that exists is a valid one and the probe taking it checks
nothing again. Every check raises ``InvalidParameterError`` naming the key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields

from models.errors import InvalidParameterError

__all__ = ["Request", "Range", "check_choice", "check_whole", "check_range", "check_flags",
           "known_values"]


@dataclass(frozen=True)
class Range:
    """A number's default and its limits (both included)."""

    default: float
    minimum: float
    maximum: float

    def problem(self, value: float) -> str | None:
        """Why ``value`` is outside (None when it is in; NaN is never in)."""
        if not self.minimum <= value <= self.maximum:
            return f"must be between {self.minimum:g} and {self.maximum:g}, not {value:g}"
        return None


def check_choice(request, key: str, choices: Iterable[str]) -> None:
    choices = tuple(choices)
    value = getattr(request, key)
    if value not in choices:
        raise InvalidParameterError(
            f"{key} must be one of {', '.join(choices)}, not {value!r}.")


def check_whole(request, *keys: str) -> None:
    """Each key holds a whole number (2.0 and "2" are made 2; 2.5, "x" and True fail)."""
    for key in keys:
        value = getattr(request, key)
        try:
            whole = not isinstance(value, bool) and float(value).is_integer()
        except (TypeError, ValueError, OverflowError):
            whole = False
        if not whole:
            raise InvalidParameterError(f"{key} must be a whole number, not {value!r}.")
        object.__setattr__(request, key, int(float(value)))


def check_range(request, ranges: Mapping[str, Range], *keys: str) -> None:
    """Each key is a finite number inside its range (a float after this, unless it was made
    whole by ``check_whole`` first)."""
    for key in keys:
        value = getattr(request, key)
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise InvalidParameterError(f"{key} must be a number, not {value!r}.") from None
        problem = "must be a finite number" if not math.isfinite(number) else \
            ranges[key].problem(number)
        if problem:
            raise InvalidParameterError(f"{key} {problem}.")
        if not isinstance(value, int) or isinstance(value, bool):
            object.__setattr__(request, key, number)


def check_flags(request, *keys: str) -> None:
    """Each key is a switch (True/False, 1/0, or "true"/"false" as a ``--set`` writes it)."""
    for key in keys:
        value = getattr(request, key)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise InvalidParameterError(f"{key} must be true or false, not {value!r}.")
            value = lowered in ("true", "1", "yes", "on")
        elif not isinstance(value, (bool, int)) or value not in (0, 1):
            raise InvalidParameterError(f"{key} must be true or false, not {value!r}.")
        object.__setattr__(request, key, bool(value))


def known_values(cls, values: Mapping) -> dict:
    """The items of ``values`` that are fields of the dataclass ``cls`` (keys it does not
    know are the view's alone and are left out)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in values.items() if k in names}


class Request:
    """What every topic's frozen request shares (a dataclass field-less base)."""

    @classmethod
    def from_values(cls, values: Mapping):
        """The request of a form's ``{key: value}`` (keys it does not know are the view's
        alone, and are left out)."""
        return cls(**known_values(cls, values))
