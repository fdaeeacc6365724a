"""Traces of the normalizing-flow tab.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

import numpy as np

from models.traces.base import trace

__all__ = ["FlowTrace", "FlowDensity", "FlowCourse", "FlowResult"]


@trace
class FlowTrace:
    """Points pushed through every layer of a normalizing flow.

    ``direction`` "forward" runs data → latent (``points[0]`` = x, ``points[L]`` = z);
    "inverse" runs latent → data (``points[0]`` = z, ``points[L]`` = x, layers in reverse
    order, ``layer_names``/``masked``/``transformed`` in the order they were applied).
    ``logdet_points[l, i]`` is log|det ∂out/∂in| of the l-th applied layer at point i.
    ``masked[l]`` is the coordinate that layer passes unchanged, -1 if none (autoregressive
    layers, ActNorm, permutations); ``transformed[l]`` the coordinate it changes, -1 if it
    changes every coordinate (or, for a permutation, only reorders them).

    Shapes:
        points: float32[L+1, n, d]; logdet: float32[L] (mean over points)
        logdet_points: float32[L, n]; masked, transformed: int64[L]
    """

    points: np.ndarray
    logdet: np.ndarray
    logdet_points: np.ndarray
    masked: np.ndarray
    transformed: np.ndarray
    layer_names: tuple[str, ...]
    direction: str


@trace
class FlowDensity:
    """A flow's density on a grid, and samples from it.

    ``extent`` is (x_min, x_max, y_min, y_max); ``density[i, j]`` is exp log p at the
    centre of cell (row i from y_min upwards, column j from x_min rightwards).
    ``mass`` is the sum of density times cell area (≈ 1 when the grid covers the mass).

    Shapes:
        density: float32[h, w]; samples: float32[n, 2]
    """

    density: np.ndarray
    extent: tuple[float, float, float, float]
    samples: np.ndarray
    mass: float


@trace
class FlowCourse:
    """The flow's density as the course's code builds it, beside ours.

    ``TransformedDistribution(base, layers)`` (the chapter's composition) reads the
    layers as base → data; ours map data → latent. ``log_p_ours`` / ``log_p_course`` are
    the mean log p (nats) of the shown data points under the trained flow and under the
    chapter's composition of the same layers; ``mean_abs_delta`` / ``mean_delta`` their
    mean |difference| and mean difference per point; ``inverted_delta`` the largest
    |difference| once the layers are inverted in reverse order (≈ 0). ``density`` is the
    chapter's density on the tab's grid, with what its ``sample()`` draws.
    """

    log_p_ours: float
    log_p_course: float
    mean_abs_delta: float
    mean_delta: float
    inverted_delta: float
    density: FlowDensity


@trace
class FlowResult:
    """What the normalizing-flow tab shows at once: points pushed through every layer,
    the deformed grid through the same layers (``None`` when the grid is off), the
    learned density with samples, and the NLL floor of the data (``entropy``, NaN when
    unknown).

    ``target`` is what the flow should learn, over the same ``density.extent``: the
    data's true density p(x) at the grid's cell centres (``target_kind`` "density",
    same shape as ``density.density``), or a normalised 2D histogram of the data where
    p has no closed form or the points are the user's ("histogram", its own number of
    cells). ``course`` (the "as the course writes it" switch, else None) holds the
    chapter's ``TransformedDistribution`` of the same layers. ``frame``
    (x_min, x_max, y_min, y_max) is the square around the data a
    density view shows; the grid reaches beyond it, so a view whose shape is not
    square still shows computed values to its edges.

    Shapes:
        grid: float32[L+1, m, 2] (NaN rows break the polylines); target: float32[h', w'];
        see ``FlowTrace`` and ``FlowDensity`` for ``trace`` and ``density``
    """

    trace: FlowTrace
    grid: np.ndarray | None
    density: FlowDensity
    entropy: float
    target: np.ndarray
    target_kind: str
    frame: tuple[float, float, float, float]
    course: FlowCourse | None = None
    #: the mean NLL (nats) of the data points under the flow as it is now, whichever
    #: direction the animation shows (the points an inverse trace shows are samples)
    nll: float = float("nan")
