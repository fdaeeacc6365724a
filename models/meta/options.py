"""Names shared by the meta-learning models and the tab: the methods, the sinusoid task
distribution, the 2D task families, the sizes of the tab's computations, and the tab's
request (``MetaRequest``, whose ``RANGES`` its controls are built from).

No torch here: ``app/`` imports this module at its top, before torch has loaded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from models.errors import InvalidParameterError
from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = ["METHODS", "METHOD_LABELS", "AMPLITUDE", "PHASE", "X_RANGE", "FAMILIES",
           "EVAL_POINTS", "ADAPT_STEPS", "EVAL_TASKS", "K_CHOICES", "INPUT_REGIONS",
           "RANGES", "MetaRequest"]

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
#: the support points K a task gives (the tab's choice)
K_CHOICES = (5, 10)
#: the prototypical network's input plane: regions of the learned prototypes, or of the
#: class means in the input (the baseline)
INPUT_REGIONS = ("learned", "baseline")

#: the tab's numbers: defaults and limits (its controls are built from these)
RANGES: dict[str, Range] = {
    "inner_lr": Range(0.01, 0.0005, 2.0),
    "inner_steps": Range(1, 1, 5),             # MAML, FOMAML
    "reptile_steps": Range(5, 1, 10),
    "meta_batch": Range(25, 1, 100),
    "meta_lr": Range(1e-3, 1e-5, 0.5),
    "amp_max": Range(5.0, AMPLITUDE[1], 10.0),  # above AMPLITUDE[1]: out of distribution
    "task_seed": Range(9, 0, 99999),           # 9: a clear curve, A = 3.1
    "steps_shown": Range(1, 0, ADAPT_STEPS),
    "n_way": Range(5, 2, 10),
    "k_shot": Range(5, 1, 20),
    "episode_seed": Range(0, 0, 99999),
}


def _default(key: str):
    return RANGES[key].default


@dataclass(frozen=True)
class MetaRequest(Request):
    """One setting of the meta-learning tab: the meta-training (``k`` … ``meta_lr``),
    the test task (``amp_max``, ``task_seed``, ``trail``, ``steps_shown``), the methods
    shown and the prototypical network's episode (``family`` … ``input_regions``).
    Checked when made (``InvalidParameterError`` naming the key); ``models.meta.probe``'s
    ``meta_result`` and ``meta_evaluation`` take it."""

    k: int = 10
    inner_lr: float = _default("inner_lr")
    inner_steps: int = _default("inner_steps")
    reptile_steps: int = _default("reptile_steps")
    meta_batch: int = _default("meta_batch")
    meta_lr: float = _default("meta_lr")
    amp_max: float = _default("amp_max")
    task_seed: int = _default("task_seed")
    trail: bool = True
    steps_shown: int = _default("steps_shown")
    show_maml: bool = True
    show_fomaml: bool = True
    show_reptile: bool = True
    show_pretrained: bool = True
    family: str = "blobs"
    n_way: int = _default("n_way")
    k_shot: int = _default("k_shot")
    episode_seed: int = _default("episode_seed")
    input_regions: str = "learned"

    def __post_init__(self) -> None:
        check_whole(self, "k", "inner_steps", "reptile_steps", "meta_batch", "task_seed",
                    "steps_shown", "n_way", "k_shot", "episode_seed")
        if self.k not in K_CHOICES:
            raise InvalidParameterError(
                f"k must be one of {', '.join(map(str, K_CHOICES))}, not {self.k!r}.")
        check_range(self, RANGES, *RANGES)
        check_flags(self, "trail", *(f"show_{m}" for m in METHODS))
        check_choice(self, "family", FAMILIES)
        check_choice(self, "input_regions", INPUT_REGIONS)


    @property
    def shown_methods(self) -> list[str]:
        """The methods whose box is ticked, in ``METHODS`` order."""
        return [m for m in METHODS if getattr(self, f"show_{m}")]

    @property
    def task_key(self) -> tuple:
        """What the test task depends on."""
        return (self.task_seed, self.k, self.amp_max)

    @property
    def session_options(self) -> dict:
        """The ``MetaSession`` options of this setting."""
        return {"k": self.k, "inner_lr": self.inner_lr, "inner_steps": self.inner_steps,
                "reptile_inner_steps": self.reptile_steps, "meta_batch": self.meta_batch,
                "meta_lr": self.meta_lr}

    @property
    def proto_options(self) -> dict:
        """The ``ProtoSession`` options of this setting."""
        return {"family": self.family, "n_way": self.n_way, "k_shot": self.k_shot}
