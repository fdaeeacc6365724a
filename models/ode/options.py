"""Option names of the neural-ODE topic, shared by the models and the tab.

Torch-free (plain tuples and a dict), so ``app/`` imports it at module top without
loading torch: ``import models.ode.options`` runs the package's lazy face only.
"""

from __future__ import annotations

from models.flows.options import DENSITIES as _FLOW_DENSITIES

__all__ = ["SOLVERS", "ADAPTIVE", "TASKS", "EVALS_PER_STEP", "CLASSIFY_DATA", "DENSITIES",
           "SPIRAL_STARTS", "FIELD_GRID", "CNF_PATHS", "CNF_PATH_TIMES"]

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
