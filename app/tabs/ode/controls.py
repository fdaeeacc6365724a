"""The neural-ODE tab's controls: the two forms (task and model; solver), what a task
starts with, the animation's sizes, and reading ``apply_state`` values."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from models.ode.options import ADAPTIVE, CLASSIFY_DATA, DENSITIES, SOLVERS, TASKS
from viz.controls import Param

if TYPE_CHECKING:
    from app.tabs.ode.tab import ODETab

translate = QCoreApplication.translate

__all__ = ["MODEL_PARAMS", "SOLVER_PARAMS", "TASK_DEFAULTS", "MAX_STARTS", "PLAY_SECONDS",
           "SLIDER_MAX", "STATE_KEYS", "ADAPTIVE", "retranslate_forms"]

MODEL_PARAMS = (
    Param("task", "choice", "spiral", choices=TASKS),
    Param("data", "choice", "moons", choices=CLASSIFY_DATA),
    Param("density", "choice", "two_moons", choices=DENSITIES),
    Param("hidden", "int", 50, 4, 256),
    Param("augment", "int", 0, 0, 8),
    Param("lr", "float", 1e-3, 1e-5, 1000.0, step=1e-3, decimals=5),
)
SOLVER_PARAMS = (
    Param("method", "choice", "dopri5", choices=SOLVERS),
    Param("rtol", "float", 1e-3, 1e-7, 0.5, step=1e-4, decimals=7),
    Param("atol", "float", 1e-4, 1e-7, 0.5, step=1e-4, decimals=7),
    Param("step_size", "float", 0.05, 0.001, 1.0, step=0.01, decimals=3),
    Param("adjoint", "bool", False),
    Param("max_nfe", "int", 5000, 10, 100_000, step=500),
)
#: what a task starts with when it is chosen: hidden units and learning rate (the
#: sessions' own defaults: the demo's 50 units at 1e-3 for the spiral, ...)
TASK_DEFAULTS = {"spiral": {"hidden": 50, "lr": 1e-3},
                 "classify": {"hidden": 32, "lr": 1e-2},
                 "cnf": {"hidden": 64, "lr": 1e-3}}
MAX_STARTS = 8               # start points the user may place at once
PLAY_SECONDS = 4.0           # the whole interval, played
SLIDER_MAX = 1000
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
