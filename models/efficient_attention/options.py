"""Names shared by the efficient-attention models and the tab that shows them.

Torch-free (plain tuples and dicts), so ``app/`` may import it at its top before torch
has loaded: the tab's choice boxes list these names and the models check against them.
"""

from __future__ import annotations

__all__ = [
    "MASK_KINDS", "APPROX_METHODS", "SWEEP_CURVES", "SCALES", "FEATURE_KINDS",
    "PROJECTIONS", "MASK_ARGS", "COST_METHODS", "QUADRATIC",
]

MASK_KINDS = ("local", "dilated", "strided", "global", "random", "bigbird", "longformer")
APPROX_METHODS = ("performer", "linformer", "linear", "banded")
# the curves of the sweeps of each method (ApproxTrace.sweep_names)
SWEEP_CURVES = {"performer": ("orthogonal", "i.i.d."), "linformer": ("random", "mean"),
                "linear": ("elu+1",), "banded": ("banded",)}
SCALES = (0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
#: the Performer's features: positive (FAVOR+) or trigonometric
FEATURE_KINDS = ("positive", "trig")
#: Linformer's projections of the sequence (``approximation_trace``'s ``projection``)
PROJECTIONS = ("random", "mean", "learned", "identity")
#: the arguments of ``build_mask`` for each pattern
MASK_ARGS = {
    "local": ("w",), "dilated": ("w", "dilation"), "strided": ("stride",),
    "global": ("indices",), "random": ("r", "seed"),
    "bigbird": ("block", "window_blocks", "global_blocks", "random_blocks", "seed"),
    "longformer": ("w", "indices")}
#: the methods of the cost model (``models.efficient_attention.cost``), in its order
COST_METHODS = ("naive", "sdpa", "banded", "performer", "linformer", "xformers")
#: the O(N²) ones among them
QUADRATIC = ("naive", "sdpa", "xformers")
