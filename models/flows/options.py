"""Option names of the normalizing-flow topic, shared by the models and the GUI.

Torch-free (plain tuples of strings), so ``app/`` imports it at module top without
loading torch: ``import models.flows.options`` runs the package's lazy face only.
"""

from __future__ import annotations

__all__ = ["FLOW_KINDS", "DENSITIES", "CUSTOM"]

#: the flows ``build_flow`` makes
FLOW_KINDS = ("realnvp", "nice", "maf", "iaf")
#: the 2D toy densities of ``models.flows.densities``
DENSITIES = ("two_moons", "circles", "8gaussians", "checkerboard", "two_spirals",
             "pinwheel", "rings", "swiss_roll")
#: the tab's name for the user's own points (a file or points drawn), after ``DENSITIES``
CUSTOM = "custom"
