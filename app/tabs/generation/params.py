"""The graph-generation tab's declared parameters: the controls' defaults (those of the
models' ``GenerationRequest``, whose ``GENERATION_RANGES`` the forms are built from), the
three forms' rows, the sizes of a comparison and the actions ``apply_state`` takes
besides the controls."""

from __future__ import annotations

from dataclasses import asdict

from models.generation.options import (
    DATASETS,
    FOLDER,
    GENERATION_RANGES,
    MAX_SHOWN,
    METHODS,
    SAMPLES,
    GenerationRequest,
)
from viz.controls import Param

__all__ = ["DEFAULTS", "RANGES", "DATA_PARAMS", "TRAIN_PARAMS", "SHOW_PARAMS", "ACTIONS",
           "FOLDER", "MAX_SHOWN", "SAMPLES"]

DEFAULTS = asdict(GenerationRequest())
RANGES = GENERATION_RANGES


def _number(key: str, **style) -> Param:
    r = RANGES[key]
    return Param(key, "int", r.default, r.minimum, r.maximum, **style)


DATA_PARAMS = (
    Param("dataset", "choice", DEFAULTS["dataset"], choices=(*DATASETS, FOLDER)),
    _number("count", step=10),
    _number("seed"),
)
TRAIN_PARAMS = (
    _number("steps", step=50),
)
SHOW_PARAMS = (
    *(Param(f"show_{m}", "bool", DEFAULTS[f"show_{m}"]) for m in METHODS),
    _number("shown"),
)
ACTIONS = ("train", "compare", "methods")
