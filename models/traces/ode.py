"""Traces of the neural-ODE tab.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from models.traces.base import trace

__all__ = ["VectorField", "SolverSteps", "SpiralTrace", "ClassifierTrace", "CNFTrace",
           "AdjointComparison", "FieldFrames", "UserPaths", "ODEResult"]


@trace
class VectorField:
    """The dynamics f(t, y) of a neural ODE on an n × n grid of a plane, at one time.

    ``extent`` is (x_min, x_max, y_min, y_max); the grid runs over it corner to corner
    (``x[i, j] = x_min + j·(x_max − x_min)/(n − 1)``, rows ``i`` from y_min upwards).
    ``dims`` are the two state coordinates spanning the plane (the others are 0);
    ``u``, ``v`` are f's components along them; ``speed = hypot(u, v)``.

    Shapes:
        x, y, u, v, speed: float32[n, n] (row i ↔ y_i, column j ↔ x_j)
    """

    x: np.ndarray
    y: np.ndarray
    u: np.ndarray
    v: np.ndarray
    speed: np.ndarray
    t: float
    extent: tuple[float, float, float, float]
    dims: tuple[int, int] = (0, 1)


@trace
class SolverSteps:
    """Every step attempt of one ODE solve from ``t0`` to ``t1``.

    Adaptive solvers (dopri5, bosh3) attempt a step of size dt from t; the step is
    accepted when the error estimate is within the tolerances, otherwise it is rejected
    and retried from the same t with a smaller dt. Accepted steps tile [t0, T] with
    T ≥ t1 (the last step may overshoot t1: the solution at t1 is interpolated).
    Fixed-grid solvers accept every step (``step_size``, the last one shortened to end
    at t1). ``dt`` is signed: negative when t1 < t0. ``nfe`` counts every evaluation of
    f in the solve (dopri5: 2 + 6 per attempt; bosh3: 2 + 3 per attempt; rk4: 4 per
    step, midpoint 2, euler 1).

    Shapes:
        accepted_t, accepted_dt: float32[a] (float64 would be exact; float32 is for drawing)
        rejected_t, rejected_dt: float32[r]
    """

    method: str
    accepted_t: np.ndarray
    accepted_dt: np.ndarray
    rejected_t: np.ndarray
    rejected_dt: np.ndarray
    nfe: int
    t0: float = 0.0
    t1: float = 0.0

    @property
    def n_accepted(self) -> int:
        return int(self.accepted_t.size)

    @property
    def n_rejected(self) -> int:
        return int(self.rejected_t.size)


@trace
class SpiralTrace:
    """The spiral fit: the whole trajectory predicted from the true y0 against the truth.

    ``error_l1`` is the mean absolute error over all points and both coordinates,
    ``mean |fitted − true|`` (the loss of torchdiffeq's ode_demo); ``trivial`` holds the
    same error of two trivial predictors: ``constant_y0`` (y0 everywhere, 1.257) and
    ``zero`` (0 everywhere, 0.530). ``nfe`` is the evaluations of f in the solve.

    Shapes:
        t: float32[n]; true, observed, fitted: float32[n, 2]
    """

    t: np.ndarray
    true: np.ndarray
    observed: np.ndarray
    fitted: np.ndarray
    error_l1: float
    trivial: dict
    nfe: int
    step: int = 0


@trace
class ClassifierTrace:
    """A neural-ODE classifier: decision regions, and points moving through the flow.

    ``extent`` is (x_min, x_max, y_min, y_max); ``prob[i, j]`` is the probability of
    class 1 at the centre of cell (row i from y_min upwards, column j from x_min
    rightwards) of the input plane. ``paths[k]`` are the first two state coordinates of
    ``points`` at ``times[k]`` (``paths[0]`` = the inputs, ``paths[-1]`` = what the linear
    output layer sees); with ``augment`` > 0 the extra coordinates start at 0 and are not
    drawn. ``accuracy`` is on the whole held-out set.

    Shapes:
        prob: float32[g, g]; points: float32[n, 2]; labels, predictions: int64[n]
        paths: float32[T, n, 2]; times: float32[T]
    """

    extent: tuple[float, float, float, float]
    prob: np.ndarray
    points: np.ndarray
    labels: np.ndarray
    paths: np.ndarray
    times: np.ndarray
    accuracy: float
    augment: int
    predictions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    data: str = ""
    step: int = 0


@trace
class CNFTrace:
    """A continuous normalizing flow from the base N(0, I) to the data.

    Time runs data → base: z(0) = x, z(t1) ~ N(0, I). ``times`` run from t1 (the base)
    down to 0 (the data); ``samples[k]`` are base samples pushed back to ``times[k]``
    (``samples[0]`` = the base draws, ``samples[-1]`` = the model's samples), and
    ``density[k]`` is the model's density p_t of the points at ``times[k]``, at the cell
    centres of ``extent`` (x_min, x_max, y_min, y_max; row i from y_min upwards).
    ``mass[k]`` is the sum of ``density[k]`` times the cell area (≈ 1 where the grid holds
    the mass). ``nll`` is the held-out negative log-likelihood in nats; ``entropy`` the
    data's differential entropy (the floor no model can go below).

    Shapes:
        times: float32[T]; samples: float32[T, n, 2]; density: float32[T, g, g]
        mass: float32[T]
    """

    times: np.ndarray
    samples: np.ndarray
    density: np.ndarray
    extent: tuple[float, float, float, float]
    nll: float
    entropy: float
    mass: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    step: int = 0


@trace
class AdjointComparison:
    """One batch's loss and gradient through the solver (direct backpropagation) and with
    the adjoint method, from the same weights and with the same solver and tolerances.

    ``seconds_*``: median wall time of forward + backward. ``saved_bytes_*``: bytes of
    the tensors autograd keeps between the forward and the backward pass (distinct
    storages, parameters excluded): direct backpropagation keeps every stage of every
    step, the adjoint only the solution at the requested times. ``cuda_peak_*``: growth
    of ``torch.cuda.max_memory_allocated`` over the pass (NaN off CUDA).
    ``nfe_forward_*`` / ``nfe_backward_*``: evaluations of f in the forward solve / those
    backpropagated through (the adjoint's are the evaluations of its backward solve).
    ``grad_rel_diff`` = max|g_adjoint − g_direct| / max|g_direct|.
    """

    seconds_direct: float
    seconds_adjoint: float
    saved_bytes_direct: int
    saved_bytes_adjoint: int
    nfe_forward_direct: int
    nfe_backward_direct: int
    nfe_forward_adjoint: int
    nfe_backward_adjoint: int
    grad_rel_diff: float
    loss_direct: float
    loss_adjoint: float
    cuda_peak_direct: float = float("nan")
    cuda_peak_adjoint: float = float("nan")
    method: str = ""
    rtol: float = float("nan")
    atol: float = float("nan")


@trace
class FieldFrames:
    """The dynamics f(t, ·) on one g × g grid of the plane at each of ``times`` (a single
    time when f does not depend on t), for the animation along t.

    ``x``, ``y`` are the grid points, row by row from y_min upwards (a ``VectorField``'s
    ``x``, ``y`` flattened); ``u[k]``, ``v[k]`` are f's components at ``times[k]``.

    Shapes:
        times: float32[T]; x, y: float32[g·g]; u, v: float32[T, g·g]
    """

    times: np.ndarray
    x: np.ndarray
    y: np.ndarray
    u: np.ndarray
    v: np.ndarray


@trace
class UserPaths:
    """Trajectories of the current model from the user's own start points (state
    coordinates at the animation's start), for the model ``key`` of task ``task``.

    ``paths[i]`` runs along ``times`` (ascending; for the CNF the start is at the last
    time, the base). ``error`` is the first line of a solve that failed within the
    solver settings (then ``paths`` is empty).

    Shapes:
        paths: float32[n, T, 2]; times: float32[T]
    """

    key: tuple
    task: str
    starts: tuple
    paths: np.ndarray
    times: np.ndarray
    error: str = ""


@trace
class ODEResult:
    """Everything the neural-ODE tab draws for one model (``key``) at training step
    ``step``: the task's trace, trajectories on a time grid, the vector field at those
    times, the solver's steps in one solve and the user's own trajectories.

    ``interval`` is the time axis (t0, t1) the slider runs over. ``trace`` is the task's
    ``SpiralTrace``, ``ClassifierTrace`` or ``CNFTrace``; it is None, with
    ``display_error`` saying why, when the model cannot be solved within the solver
    settings (the NFE cap, an underflow in dt): the field needs no solve and is there.
    ``steps`` is None, with ``steps_error``, when the diagnostic solve failed.
    ``extent`` is the plane's (x_min, x_max, y_min, y_max), ``task_extent`` the task
    view's; ``extent_key`` changes when the extent should be set anew. ``true`` is the
    true spiral (spiral only), ``labels`` the classes of the paths' start points and
    ``augment`` the classifier's extra dimensions (classify only). ``user_error`` is
    ``user.error``, or that of a later solve of the user's paths.

    Shapes:
        paths: float32[n, T, 2]; times: float32[T]; true: float32[m, 2]; labels: int64[n]
    """

    task: str
    key: tuple
    step: int
    interval: tuple[float, float]
    trace: object | None
    steps: SolverSteps | None
    paths: np.ndarray
    times: np.ndarray
    fields: FieldFrames
    extent: tuple[float, float, float, float]
    task_extent: tuple[float, float, float, float]
    extent_key: tuple
    user: UserPaths | None = None
    true: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    augment: int = 0
    steps_error: str = ""
    display_error: str = ""
    user_error: str = ""
