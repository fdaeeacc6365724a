"""The neural-ODE tab's controls: the two forms (task and model; solver), what a task
starts with, the animation's sizes, and reading ``apply_state`` values."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.ode.params import (
    ADAPTIVE,
    CLASSIFY_DATA,
    DEFAULTS,
    DENSITIES,
    RANGES,
    SOLVERS,
    TASK_DEFAULTS,
    TASKS,
)
from app.tabs.ode.views import SLIDER_MAX
from viz.controls import Param

if TYPE_CHECKING:
    from app.tabs.ode.tab import ODETab

translate = QCoreApplication.translate

__all__ = ["MODEL_PARAMS", "SOLVER_PARAMS", "TASK_DEFAULTS", "MAX_STARTS",
           "SLIDER_MAX", "STATE_KEYS", "ADAPTIVE", "retranslate_forms"]



def _ranged(key: str, kind: str, **kw) -> Param:
    """A control of a number: its default and limits are the request's ``RANGES``."""
    r = RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, **kw)


MODEL_PARAMS = (
    Param("task", "choice", DEFAULTS["task"], choices=TASKS),
    Param("data", "choice", DEFAULTS["data"], choices=CLASSIFY_DATA),
    Param("density", "choice", DEFAULTS["density"], choices=DENSITIES),
    _ranged("hidden", "int"),
    _ranged("augment", "int"),
    _ranged("lr", "float", step=1e-3, decimals=5),
)
SOLVER_PARAMS = (
    Param("method", "choice", DEFAULTS["method"], choices=SOLVERS),
    _ranged("rtol", "float", step=1e-4, decimals=7),
    _ranged("atol", "float", step=1e-4, decimals=7),
    _ranged("step_size", "float", step=0.01, decimals=3),
    Param("adjoint", "bool", DEFAULTS["adjoint"]),
    _ranged("max_nfe", "int", step=500),
)
MAX_STARTS = 8               # start points the user may place at once
STATE_KEYS = ("train", "t", "play", "compare", "starts")


def _flag(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")


def _parse_starts(value) -> list[tuple[float, float]]:
    """[[x, y], …] or "x,y; x,y" → [(x, y), …]."""
    if isinstance(value, str):
        parts = [p for p in value.replace(" ", "").split(";") if p]
        value = [p.split(",") for p in parts]
    out = []
    try:
        for pair in value:
            x, y = (float(v) for v in pair)
            if not (np.isfinite(x) and np.isfinite(y)):
                raise ValueError
            out.append((x, y))
    except (TypeError, ValueError):
        raise ValueError(f"starts must be points [[x, y], …] or \"x,y; x,y\", got {value!r}."
                         ) from None
    return out


def read_time_and_starts(state: dict, problems: list[str]
                         ) -> tuple[float | None, list | None]:
    """``apply_state``'s ``t`` (a fraction 0 … 1) and ``starts`` (None where not given or
    refused; a refusal is added to ``problems``)."""
    t = starts = None
    if "t" in state:
        try:
            t = float(state["t"])
            if not 0.0 <= t <= 1.0:
                raise ValueError
        except (TypeError, ValueError):
            problems.append(f"t must be a fraction of the time interval from 0 to 1, "
                            f"got {state['t']}.")
            t = None
    if "starts" in state:
        try:
            starts = _parse_starts(state["starts"])
        except ValueError as exc:
            problems.append(str(exc))
    return t, starts


def retranslate_forms(tab: ODETab) -> None:
    """The two forms' titles, row labels and choice texts (in the tab's context; every
    text a literal, so lupdate finds it)."""
    densities = [translate("ODETab", "two moons"), translate("ODETab", "circles"),
                 translate("ODETab", "8 gaussians"), translate("ODETab", "checkerboard"),
                 translate("ODETab", "two spirals"), translate("ODETab", "pinwheel"),
                 translate("ODETab", "rings"), translate("ODETab", "swiss roll")]
    tab.model_form.setTitle(translate("ODETab", "Task and model"))
    tab.model_form.set_texts(
        {"task": translate("ODETab", "Task"), "data": translate("ODETab", "Data"),
         "density": translate("ODETab", "Density"),
         "hidden": translate("ODETab", "Hidden units"),
         "augment": translate("ODETab", "Augmented dimensions"),
         "lr": translate("ODETab", "Learning rate")},
        {"task": [translate("ODETab", "fit a spiral"), translate("ODETab", "classify"),
                  translate("ODETab", "continuous normalizing flow")],
         "data": densities[:2], "density": densities})
    tab.solver_form.setTitle(translate("ODETab", "Solver"))
    tab.solver_form.set_texts(
        {"method": translate("ODETab", "Method"), "rtol": translate("ODETab", "rtol"),
         "atol": translate("ODETab", "atol"), "step_size": translate("ODETab", "Step size"),
         "adjoint": translate("ODETab", "Adjoint method"),
         "max_nfe": translate("ODETab", "NFE cap per solve")},
        {"method": [translate("ODETab", "dopri5 (adaptive, order 5)"),
                    translate("ODETab", "bosh3 (adaptive, order 3)"),
                    translate("ODETab", "rk4 (fixed step)"),
                    translate("ODETab", "midpoint (fixed step)"),
                    translate("ODETab", "euler (fixed step)")]})
    tab.solver_form.setToolTip(translate("ODETab", "Changes apply to the running training "
                                         "from its next step on"))
