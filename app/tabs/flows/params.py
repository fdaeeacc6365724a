"""The flow tab's declared parameters: the controls' defaults (those of the models'
``FlowRequest``, whose ``RANGES`` the number fields are built from), the choices, and
the forms' parameters in the order they appear."""

from __future__ import annotations

from dataclasses import asdict

from models.flows import options
from models.flows.options import FlowRequest
from viz.controls import Param

__all__ = ["DEFAULTS", "RANGES", "DENSITIES", "MODELS", "MODEL_PARAMS", "VIEW_PARAMS",
           "MODEL_KEY"]

#: the request's defaults, and the animation speed (the tab's alone)
DEFAULTS = {**asdict(FlowRequest()), "speed": options.RANGES["speed"].default}
RANGES = options.RANGES
DENSITIES = (*options.DENSITIES, options.CUSTOM)
MODELS = options.FLOW_KINDS


def _number(key: str, kind: str, **style) -> Param:
    r = RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, **style)


MODEL_PARAMS = (
    Param("density", "choice", DEFAULTS["density"], choices=DENSITIES),
    Param("model", "choice", DEFAULTS["model"], choices=MODELS),
    _number("layers", "int"),
    _number("hidden", "int"),
    Param("actnorm", "bool", DEFAULTS["actnorm"]),
    _number("lr", "float", step=5e-4, decimals=5),
    _number("batch", "int", step=64),
    _number("clip", "float", step=1.0),
)
VIEW_PARAMS = (
    Param("direction", "choice", DEFAULTS["direction"], choices=options.DIRECTIONS),
    _number("points", "int", step=500),
    Param("grid", "bool", DEFAULTS["grid"]),
    _number("speed", "float", step=0.5),
    _number("seed", "int"),
    Param("course", "bool", DEFAULTS["course"]),  # the density as the chapter composes the layers
)
#: the parameters that make a different model (the others tune the one there is)
MODEL_KEY = ("density", "model", "layers", "hidden", "actnorm")
