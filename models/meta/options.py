"""Names shared by the meta-learning models and the tab: the methods, the sinusoid task
distribution, the 2D task families and the sizes of the tab's computations.

No torch here: ``app/`` imports this module at its top, before torch has loaded.
"""

from __future__ import annotations

import math

__all__ = ["METHODS", "METHOD_LABELS", "AMPLITUDE", "PHASE", "X_RANGE", "FAMILIES",
           "EVAL_POINTS", "ADAPT_STEPS", "EVAL_TASKS"]

METHODS = ("maml", "fomaml", "reptile", "pretrained")
METHOD_LABELS = {"maml": "MAML", "fomaml": "first-order MAML", "reptile": "Reptile",
                 "pretrained": "pretrained"}
AMPLITUDE = (0.1, 5.0)
PHASE = (0.0, math.pi)
X_RANGE = (-5.0, 5.0)
FAMILIES = ("blobs", "rings", "anisotropic")
#: evaluation points per test task, spread evenly over X_RANGE
EVAL_POINTS = 100
#: the adaptation steps the tab computes (and shows with its slider, 0 … 10)
ADAPT_STEPS = 10
#: test tasks of the tab's evaluation
EVAL_TASKS = 600
