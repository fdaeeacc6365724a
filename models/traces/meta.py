"""Traces of the meta-learning tab.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from models.traces.base import trace

__all__ = ["MetaHistory", "AdaptationTrace", "MetaEvalTrace", "ProtoTrace", "SineTask",
           "MetaResult"]


@trace
class MetaHistory:
    """Every meta-learner's training loss so far (the query MSE after the inner loop on
    each step's batch, the same quantity for every method).

    Shapes:
        losses: float32[M, step], one row per method of ``methods``
    """

    methods: tuple[str, ...]
    losses: np.ndarray


@trace
class AdaptationTrace:
    """Each method adapted on one task's support points: its prediction on a grid after
    0, 1, …, ``steps`` SGD steps of ``inner_lr`` (``predictions[m, 0]`` is the
    meta-learned initialisation's own prediction).

    Shapes:
        x_grid: float32[G]; predictions: float32[M, steps+1, G] (M = len(methods))
        x_support, y_support: float32[K] (K may be 0: no adaptation)
    """

    x_grid: np.ndarray
    predictions: np.ndarray
    methods: tuple[str, ...]
    x_support: np.ndarray
    y_support: np.ndarray
    inner_lr: float
    steps: int


@trace
class MetaEvalTrace:
    """MSE against adaptation steps over ``n_tasks`` test tasks (amplitude up to
    ``amp_max``; 5 in distribution, 10 out of it), K support points each, scored on 100
    points spread over [−5, 5]. ``ci95`` is the 95% half-width 1.96·s/√n (s: sample
    standard deviation over the tasks); ``seconds`` the wall time of each method's
    adaptation and scoring; ``step`` the training step of the weights evaluated.
    ``median`` is robust where a few tasks blow up (SGD with a fixed step on large
    amplitudes can diverge, and one such task dominates the mean).

    Shapes:
        mse, ci95, median: float32[M, steps+1]; seconds: float32[M]
        task_mse: float32[M, steps+1, n_tasks] (every task's MSE)
    """

    methods: tuple[str, ...]
    steps: int
    mse: np.ndarray
    ci95: np.ndarray
    n_tasks: int
    k: int
    amp_max: float
    seconds: np.ndarray
    task_mse: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), np.float32))
    median: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    inner_lr: float = float("nan")
    seed: int = 0
    step: int = 0


@trace
class ProtoTrace:
    """One few-shot episode through a prototypical network.

    Prototypes are the class means of the embedded support points; a point belongs to
    the class of the nearest prototype (squared Euclidean distance in the embedding).
    ``regions_input`` colours the input plane by that rule (each grid point embedded
    first); ``regions_embedding`` is the Voronoi diagram of the prototypes in the
    embedding plane. The baseline is nearest class mean in the INPUT plane, no learning
    (``baseline_prototypes``, ``regions_baseline``). Extents are (x_min, x_max, y_min,
    y_max); region rasters are cell centres, row i from y_min upwards, column j from
    x_min rightwards (as ``FlowDensity``). Labels are 0..n_way-1, support class-major.

    Shapes:
        support_x: float32[N*K, 2]; support_y: int64[N*K]
        query_x: float32[Q, 2]; query_y, query_pred: int64[Q]
        support_emb: float32[N*K, 2]; query_emb: float32[Q, 2]; prototypes: float32[N, 2]
        regions_input, regions_embedding, regions_baseline: int64[g, g]
        baseline_prototypes: float32[N, 2]
    """

    n_way: int
    k_shot: int
    support_x: np.ndarray
    support_y: np.ndarray
    query_x: np.ndarray
    query_y: np.ndarray
    support_emb: np.ndarray
    query_emb: np.ndarray
    prototypes: np.ndarray
    extent_input: tuple[float, float, float, float]
    regions_input: np.ndarray
    extent_embedding: tuple[float, float, float, float]
    regions_embedding: np.ndarray
    accuracy: float
    baseline_accuracy: float
    query_pred: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    baseline_prototypes: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    regions_baseline: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    family: str = ""
    seed: int = 0
    step: int = 0


@trace
class SineTask:
    """One sinusoid test task ``y = A·sin(x − φ)``: its K support points and the true
    curve on a grid over [−5, 5].

    Shapes:
        x_support, y_support: float32[K]; x_grid, y_grid: float32[G] (G = 200)
    """

    amplitude: float
    phase: float
    x_support: np.ndarray
    y_support: np.ndarray
    x_grid: np.ndarray
    y_grid: np.ndarray


@trace
class MetaResult:
    """What the meta-learning tab shows at once: the test task, every method adapted to
    the support points (the task's own, or the student's), and a prototypical-network
    episode. ``meta_step`` is the training step of the adapted weights; ``task_key``
    (task seed, K, largest amplitude) and ``episode_key`` (the options and the training
    step the episode was made from, and which session) tell when they are still current.

    Shapes:
        see ``SineTask``, ``AdaptationTrace`` and ``ProtoTrace``
    """

    task: SineTask
    adapt: AdaptationTrace
    episode: ProtoTrace | None
    episode_key: tuple
    meta_step: int
    task_key: tuple
