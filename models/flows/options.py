"""What the normalizing-flow tab may ask of the models, shared by the models and the GUI.

Torch-free, so ``app/`` imports it at module top without loading torch: ``import
models.flows.options`` runs the package's lazy face only. ``RANGES`` are the one place
of each number's default and limits (the tab's controls are built from them, the model
builders take their defaults); a ``FlowRequest`` is one setting of the tab, checked once
when it is made, and ``models.flows.probe`` takes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = ["FLOW_KINDS", "DENSITIES", "CUSTOM", "DIRECTIONS", "Range", "RANGES", "FlowRequest"]

#: the flows ``build_flow`` makes
FLOW_KINDS = ("realnvp", "nice", "maf", "iaf")
#: the 2D toy densities of ``models.flows.densities``
DENSITIES = ("two_moons", "circles", "8gaussians", "checkerboard", "two_spirals",
             "pinwheel", "rings", "swiss_roll")
#: the tab's name for the user's own points (a file or points drawn), after ``DENSITIES``
CUSTOM = "custom"
#: forward: data → latent; inverse: latent samples → data
DIRECTIONS = ("forward", "inverse")


RANGES: dict[str, Range] = {
    "layers": Range(8, 1, 32),             # coupling / autoregressive layers
    "hidden": Range(64, 4, 512),           # units of each layer's networks
    "lr": Range(1e-3, 1e-5, 0.5),
    "batch": Range(256, 8, 8192),
    "clip": Range(0.0, 0.0, 100.0),        # gradient-norm clipping; 0 = none
    "points": Range(2000, 100, 20000),     # samples traced through the layers
    "speed": Range(1.0, 0.1, 8.0),         # the animation's (the tab's alone)
    "seed": Range(0, 0, 99999),
}


def _default(key: str):
    return RANGES[key].default


@dataclass(frozen=True)
class FlowRequest(Request):
    """One setting of the flow tab: the model (``density`` … ``actnorm``), how it trains
    (``lr``, ``batch``, ``clip``) and what is traced through it (``direction`` …
    ``course``). Checked when made: a value outside ``RANGES`` or the choices raises
    ``InvalidParameterError`` naming it."""

    density: str = "two_moons"
    model: str = "realnvp"
    layers: int = _default("layers")
    hidden: int = _default("hidden")
    actnorm: bool = False
    lr: float = _default("lr")
    batch: int = _default("batch")
    clip: float = _default("clip")
    direction: str = "forward"
    points: int = _default("points")
    grid: bool = True
    seed: int = _default("seed")
    course: bool = False      # the density as the chapter composes the layers, beside ours

    def __post_init__(self) -> None:
        check_choice(self, "density", (*DENSITIES, CUSTOM))
        check_choice(self, "model", FLOW_KINDS)
        check_choice(self, "direction", DIRECTIONS)
        check_whole(self, "layers", "hidden", "batch", "points", "seed")
        check_range(self, RANGES, "layers", "hidden", "lr", "batch", "clip", "points", "seed")
        check_flags(self, "actnorm", "grid", "course")


    @property
    def clip_grad(self) -> float | None:
        """The session's gradient clipping: None for 0."""
        return self.clip or None
