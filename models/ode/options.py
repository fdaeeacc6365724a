"""Option names of the neural-ODE topic, shared by the models and the tab.

Torch-free (plain tuples and a dict), so ``app/`` imports it at module top without
loading torch: ``import models.ode.options`` runs the package's lazy face only. The tab's
request (``ODERequest``) is checked once when made; its ``RANGES`` are the one place of
each number's default and limits, which the tab's controls are built from.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.flows.options import DENSITIES as _FLOW_DENSITIES
from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = ["SOLVERS", "ADAPTIVE", "TASKS", "EVALS_PER_STEP", "CLASSIFY_DATA", "DENSITIES",
           "SPIRAL_STARTS", "FIELD_GRID", "CNF_PATHS", "CNF_PATH_TIMES", "RANGES",
           "TASK_DEFAULTS", "ODERequest"]

SOLVERS = ("dopri5", "bosh3", "rk4", "midpoint", "euler")
ADAPTIVE = ("dopri5", "bosh3")
TASKS = ("spiral", "classify", "cnf")
#: evaluations of f per step attempt (adaptive: after the first two, which pick the first
#: step; dopri5 and bosh3 reuse the last stage of an accepted step as the next first one)
EVALS_PER_STEP = {"dopri5": 6, "bosh3": 3, "rk4": 4, "midpoint": 2, "euler": 1}
#: the two-class data of ``make_classification``
CLASSIFY_DATA = ("moons", "circles")
#: the densities the CNF fits: those of ``models.flows.densities`` (the flow tab adds the
#: user's own points, which the CNF task does not offer)
DENSITIES = _FLOW_DENSITIES

# -- what the tab shows (``models.ode.probe`` computes it) -------------------------------------
#: start points of the spiral's extra trajectories (the first is the true y0)
SPIRAL_STARTS = ((2.0, 0.0), (-2.0, 0.0), (0.0, 1.6), (0.0, -1.6), (1.0, 1.0), (-1.0, -1.0))
FIELD_GRID = 19              # arrows per side of the vector field
CNF_PATHS = 600              # samples animated from the base to the data
CNF_PATH_TIMES = 41

#: the tab's numbers: defaults (the spiral's) and limits
RANGES: dict[str, Range] = {
    "hidden": Range(50, 4, 256),
    "augment": Range(0, 0, 8),              # the classifier's extra zero dimensions
    "lr": Range(1e-3, 1e-5, 1000.0),
    "rtol": Range(1e-3, 1e-7, 0.5),
    "atol": Range(1e-4, 1e-7, 0.5),
    "step_size": Range(0.05, 0.001, 1.0),   # the fixed-grid solvers'
    "max_nfe": Range(5000, 10, 100_000),    # evaluations of f per solve at most
}
#: what a task starts with when it is chosen: hidden units and learning rate (the
#: sessions' own defaults: the demo's 50 units at 1e-3 for the spiral, ...)
TASK_DEFAULTS = {"spiral": {"hidden": RANGES["hidden"].default, "lr": RANGES["lr"].default},
                 "classify": {"hidden": 32, "lr": 1e-2},
                 "cnf": {"hidden": 64, "lr": 1e-3}}


def _default(key: str):
    return RANGES[key].default


@dataclass(frozen=True)
class ODERequest(Request):
    """One setting of the neural-ODE tab: the task and its model (``task`` …
    ``lr``) and the solver (``method`` … ``max_nfe``). Checked when made
    (``InvalidParameterError`` naming the key)."""

    task: str = "spiral"
    data: str = "moons"
    density: str = "two_moons"
    hidden: int = _default("hidden")
    augment: int = _default("augment")
    lr: float = _default("lr")
    method: str = "dopri5"
    rtol: float = _default("rtol")
    atol: float = _default("atol")
    step_size: float = _default("step_size")
    adjoint: bool = False
    max_nfe: int = _default("max_nfe")

    def __post_init__(self) -> None:
        check_choice(self, "task", TASKS)
        check_choice(self, "data", CLASSIFY_DATA)
        check_choice(self, "density", DENSITIES)
        check_choice(self, "method", SOLVERS)
        check_whole(self, "hidden", "augment", "max_nfe")
        check_range(self, RANGES, *RANGES)
        check_flags(self, "adjoint")


    @property
    def session_key(self) -> tuple:
        """The model this setting shows: the task, its data, hidden units, augmentation."""
        task = self.task
        return (task, self.data if task == "classify" else self.density if task == "cnf"
                else "", self.hidden, self.augment if task == "classify" else 0)

    @property
    def solver_kwargs(self) -> dict:
        """The ``SolverConfig`` of this setting."""
        return {"method": self.method, "rtol": self.rtol, "atol": self.atol,
                "step_size": self.step_size, "adjoint": self.adjoint,
                "max_nfe": self.max_nfe}
