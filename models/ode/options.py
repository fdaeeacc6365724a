"""Option names of the neural-ODE topic, shared by the models and the tab.

Torch-free (plain tuples and a dict), so ``app/`` imports it at module top without
loading torch: ``import models.ode.options`` runs the package's lazy face only.
"""

from __future__ import annotations

__all__ = ["SOLVERS", "ADAPTIVE", "TASKS", "EVALS_PER_STEP", "CLASSIFY_DATA", "DENSITIES"]

SOLVERS = ("dopri5", "bosh3", "rk4", "midpoint", "euler")
ADAPTIVE = ("dopri5", "bosh3")
TASKS = ("spiral", "classify", "cnf")
#: evaluations of f per step attempt (adaptive: after the first two, which pick the first
#: step; dopri5 and bosh3 reuse the last stage of an accepted step as the next first one)
EVALS_PER_STEP = {"dopri5": 6, "bosh3": 3, "rk4": 4, "midpoint": 2, "euler": 1}
#: the two-class data of ``make_classification``
CLASSIFY_DATA = ("moons", "circles")
#: the densities the CNF fits (those of ``models.flows.densities``; the flow tab adds the
#: user's own points, which the CNF task does not offer)
DENSITIES = ("two_moons", "circles", "8gaussians", "checkerboard", "two_spirals", "pinwheel",
             "rings", "swiss_roll")
