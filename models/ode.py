"""Neural ordinary differential equations: a network f(t, y) is the *velocity* of a state,
and the model's output is the state after integrating dy/dt = f(t, y) with an ODE solver.

    y(t1) = y(t0) + ∫_{t0}^{t1} f(t, y(t)) dt          (odeint)

Three settings, as in the course (Chen et al. 2018, Dupont et al. 2019, Grathwohl et al.
2019), each a session with the same training loop:

* ``SpiralSession``: torchdiffeq's ``ode_demo.py``. The truth is ``dy/dt = (y**3) @ A``
  (row vectors, elementwise cube) with ``A = SPIRAL_A``; f is learned from noisy
  observations of windows of the trajectory, then the whole trajectory is predicted from
  y0. Error: mean |Δ| over all points *and both coordinates* (the demo's loss), the
  definition that gives the issue's 1.257 (predict y0) and 0.530 (predict 0).
* ``ClassifierSession``: an ODE block between an input layer (``augment`` zero
  coordinates appended: augmented neural ODEs) and a linear output layer. A flow of the
  plane cannot pull one circle out of another (trajectories never cross); with one extra
  dimension it can lift the inner disc out.
* ``CNFSession``: a continuous normalizing flow (FFJORD) with the exact trace. Time runs
  data → base: z(0) = x, z(t1) ~ N(0, I), and the instantaneous change of variables
  ``d log p(z(t))/dt = −tr ∂f/∂z`` gives

      log p(x) = log N(z(t1); 0, I) + ∫_0^{t1} tr(∂f/∂z(t)) dt.

Solvers are torchdiffeq's (``SOLVERS``; dopri5 and bosh3 adapt their step to the
tolerances, the others take ``step_size`` steps). ``adjoint=True`` backpropagates with
``odeint_adjoint``: a second ODE solved backwards instead of keeping every stage for
backpropagation (memory O(1) in the number of steps, the gradient as accurate as that
solve).

``ODEFunc`` counts its evaluations: ``nfe`` forward calls, and ``nfe_backward``
evaluations backpropagated through (an identity ``autograd.Function`` around its output
counts its own backward calls). ``max_nfe`` aborts a solve that needs too many.

Shapes:
    y: [batch, dim]; t: [T]; odesolve(...) -> [T, batch, dim]
    CNF state: (z [batch, 2], Δlogp [batch, 1]) with Δlogp(t) = −∫_0^t tr ∂f/∂z
"""

from __future__ import annotations

import functools
import math
import statistics
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace

import numpy as np
import torch
from torch import nn
from torchdiffeq import odeint, odeint_adjoint

from models import checkpoint, densities
from models.devices import device_for
from models.errors import (
    ArchScopeError,
    InvalidParameterError,
    TrainingDivergedError,
)
from models.traces import (
    AdjointComparison,
    ClassifierTrace,
    CNFTrace,
    Progress,
    SolverSteps,
    SpiralTrace,
    VectorField,
)

__all__ = ["SOLVERS", "ADAPTIVE", "TASKS", "SPIRAL_A", "SolverConfig", "NFELimitExceeded",
           "ODEFunc", "CNFDynamics", "odesolve", "true_spiral", "trivial_spiral_errors",
           "l1_error", "solver_steps", "vector_field", "divergence_exact", "make_classification",
           "ODESession", "SpiralSession", "ClassifierSession", "CNFSession"]

SOLVERS = ("dopri5", "bosh3", "rk4", "midpoint", "euler")
ADAPTIVE = ("dopri5", "bosh3")
TASKS = ("spiral", "classify", "cnf")
SPIRAL_A = ((-0.1, 2.0), (-2.0, -0.1))
#: evaluations of f per step attempt (adaptive: after the first two, which pick the first
#: step; dopri5 and bosh3 reuse the last stage of an accepted step as the next first one)
EVALS_PER_STEP = {"dopri5": 6, "bosh3": 3, "rk4": 4, "midpoint": 2, "euler": 1}
_LOG_2PI = math.log(2 * math.pi)


# -- solver settings -----------------------------------------------------------------------------
@dataclass
class SolverConfig:
    """How to solve: torchdiffeq's ``method``; ``rtol``/``atol`` for the adaptive ones
    (a step is accepted when its error estimate ≤ atol + rtol·|y|, RMS over the state);
    ``step_size`` for the fixed-grid ones; ``adjoint`` to backpropagate with
    ``odeint_adjoint``; ``max_nfe`` evaluations of f at most per solve: the forward solve,
    and separately the adjoint's whole backward pass (torchdiffeq runs one backward solve
    per output interval; they count together)."""

    method: str = "dopri5"
    rtol: float = 1e-3
    atol: float = 1e-4
    step_size: float = 0.05
    adjoint: bool = False
    max_nfe: int = 5000

    def validate(self) -> None:
        if self.method not in SOLVERS:
            raise InvalidParameterError(f"Unknown ODE solver '{self.method}' (choose "
                                        f"{', '.join(SOLVERS)}).")
        for name in ("rtol", "atol", "step_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    math.isfinite(v) and v > 0):
                raise InvalidParameterError(f"{name} must be a number > 0, got {v!r}.")
        if self.rtol >= 1:
            raise InvalidParameterError(f"rtol must be below 1, got {self.rtol!r}.")
        if not isinstance(self.adjoint, (bool, np.bool_)):
            raise InvalidParameterError(f"adjoint must be True or False, got {self.adjoint!r}.")
        m = self.max_nfe
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
            raise InvalidParameterError(f"max_nfe must be a whole number ≥ 1, got {m!r}.")

    @property
    def adaptive(self) -> bool:
        return self.method in ADAPTIVE

    def odeint_kwargs(self) -> dict:
        """``rtol``, ``atol``, ``method`` and (fixed grid) ``options`` for torchdiffeq."""
        kw = {"rtol": float(self.rtol), "atol": float(self.atol), "method": self.method}
        if not self.adaptive:
            kw["options"] = {"step_size": float(self.step_size)}
        return kw

    def describe(self) -> str:
        if self.adaptive:
            return f"{self.method}, rtol {self.rtol:g}, atol {self.atol:g}"
        return f"{self.method}, step {self.step_size:g}"


def _config(solver: SolverConfig | dict | None) -> SolverConfig:
    if solver is None:
        cfg = SolverConfig()
    elif isinstance(solver, SolverConfig):
        cfg = replace(solver)
    elif isinstance(solver, dict):
        cfg = _with(SolverConfig(), solver)
    else:
        raise InvalidParameterError(f"solver must be a SolverConfig, got {solver!r}.")
    cfg.validate()
    return cfg


def _with(cfg: SolverConfig, kw: dict) -> SolverConfig:
    names = {f.name for f in fields(SolverConfig)}
    unknown = sorted(set(kw) - names)
    if unknown:
        raise InvalidParameterError(f"Unknown solver setting(s) {', '.join(unknown)} (choose "
                                    f"{', '.join(sorted(names))}).")
    new = replace(cfg, **kw)
    new.validate()
    return new


class NFELimitExceeded(ArchScopeError):
    """A solve needed more evaluations of f than ``max_nfe`` (stiff dynamics, tolerances
    too tight for float32, or a tiny fixed step) and was aborted."""


# -- the dynamics --------------------------------------------------------------------------------
class _CountBackward(torch.autograd.Function):
    """Identity whose backward counts, on ``owner.nfe_backward``, that gradient flowed
    through one evaluation of f."""

    @staticmethod
    def forward(ctx, x, owner):
        ctx.owner = owner
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        ctx.owner.nfe_backward += 1
        return grad, None


class _Counted(nn.Module):
    """Evaluation counters shared by ``ODEFunc`` and ``CNFDynamics``.

    ``nfe``: forward evaluations since ``reset_counts``; ``nfe_backward``: evaluations
    backpropagated through since then. ``max_nfe`` caps the evaluations since the
    current solve started (``start_solve``; ``odesolve`` calls it)."""

    def __init__(self, max_nfe: int | None = None) -> None:
        super().__init__()
        self.max_nfe = max_nfe
        self.nfe = 0
        self.nfe_backward = 0
        self.solve_nfe = 0

    def reset_counts(self) -> None:
        self.nfe = self.nfe_backward = self.solve_nfe = 0

    def start_solve(self) -> None:
        self.solve_nfe = 0

    def _count(self) -> None:
        self.nfe += 1
        self.solve_nfe += 1
        if self.max_nfe is not None and self.solve_nfe > self.max_nfe:
            raise NFELimitExceeded(
                f"The ODE solver needed more than {self.max_nfe} evaluations of f for one "
                "solve and was stopped: the dynamics are stiff or fast-changing for these "
                "tolerances. Raise the cap (max_nfe), loosen the tolerances, or use a "
                "fixed-step solver such as rk4.")

    def _mark(self, out: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and out.requires_grad:
            return _CountBackward.apply(out, self)
        return out


class ODEFunc(_Counted):
    """f(t, y): a small MLP with tanh, the velocity of the state.

    ``time_dependent`` appends t to the input (``[y, t]``); ``cube_input`` feeds ``y**3``
    instead of y (torchdiffeq's ode_demo: the true dynamics are cubic). ``depth`` hidden
    layers of ``hidden`` units. ``init_std``: weights ~ N(0, init_std²) and zero biases
    (the demo's 0.1), else PyTorch's default initialisation.

    Counts its evaluations in ``nfe`` (forward calls) and ``nfe_backward`` (evaluations
    backpropagated through, counted by an identity ``autograd.Function`` on the output);
    raises ``NFELimitExceeded`` when one solve passes ``max_nfe``. ``f(t, y)`` is the same
    function without counting (for drawing the field).

    Shapes:
        t: scalar; y: [batch, dim] -> [batch, dim]
    """

    def __init__(self, dim: int = 2, hidden: int = 64, time_dependent: bool = True,
                 cube_input: bool = False, max_nfe: int | None = None, depth: int = 2,
                 init_std: float | None = None) -> None:
        super().__init__(max_nfe)
        for name, v, lo in (("dim", dim, 1), ("hidden", hidden, 1), ("depth", depth, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise InvalidParameterError(f"{name} must be a whole number ≥ {lo}, got {v!r}.")
        self.dim, self.hidden, self.depth = int(dim), int(hidden), int(depth)
        self.time_dependent, self.cube_input = bool(time_dependent), bool(cube_input)
        layers: list[nn.Module] = [nn.Linear(dim + int(self.time_dependent), hidden), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(hidden, hidden), nn.Tanh()]
        layers.append(nn.Linear(hidden, dim))
        self.net = nn.Sequential(*layers)
        if init_std is not None:
            for m in self.net.modules():
                if isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, mean=0.0, std=init_std)
                    nn.init.zeros_(m.bias)

    def f(self, t, y: torch.Tensor) -> torch.Tensor:
        """The velocity, uncounted."""
        h = y ** 3 if self.cube_input else y
        if self.time_dependent:
            t = torch.as_tensor(t, dtype=y.dtype, device=y.device)
            h = torch.cat([h, t.reshape(1, 1).expand(*y.shape[:-1], 1)], dim=-1)
        return self.net(h)

    def forward(self, t, y: torch.Tensor) -> torch.Tensor:
        self._count()
        return self._mark(self.f(t, y))

    def extra_repr(self) -> str:
        return (f"dim={self.dim}, hidden={self.hidden}, depth={self.depth}, "
                f"time_dependent={self.time_dependent}, cube_input={self.cube_input}")


def divergence_exact(dz: torch.Tensor, z: torch.Tensor, create_graph: bool) -> torch.Tensor:
    """tr(∂dz/∂z) per row, exactly: one autograd call per coordinate (two in 2D).

    Shapes:
        dz, z: [batch, d] -> [batch]
    """
    div = torch.zeros(dz.shape[0], dtype=dz.dtype, device=dz.device)
    for i in range(dz.shape[1]):
        g = torch.autograd.grad(dz[:, i].sum(), z, create_graph=create_graph,
                                retain_graph=True)[0]
        div = div + g[:, i]
    return div


class CNFDynamics(_Counted):
    """The augmented dynamics of a continuous normalizing flow:
    ``d/dt (z, Δlogp) = (f(t, z), −tr ∂f/∂z)`` with the exact trace.

    The trace's graph is kept (``create_graph``) when gradients are being recorded
    (training, and the adjoint's backward solve), not when evaluating under no_grad.
    """

    def __init__(self, func: ODEFunc) -> None:
        super().__init__(None)
        self.func = func

    def forward(self, t, state: tuple[torch.Tensor, torch.Tensor]):
        z = state[0]
        self._count()
        create_graph = torch.is_grad_enabled()
        with torch.enable_grad():
            if not z.requires_grad:
                z = z.detach().requires_grad_(True)
            dz = self.func.f(t, z)
            div = divergence_exact(dz, z, create_graph)
        if not create_graph:
            dz, div = dz.detach(), div.detach()
        return self._mark(dz), -div.unsqueeze(-1)


def _counter(func) -> _Counted | None:
    return func if isinstance(func, _Counted) else None


def odesolve(func, y0, t: torch.Tensor, cfg: SolverConfig | None = None,
             extra_params: tuple = ()) -> torch.Tensor:
    """Solve dy/dt = func(t, y) from y(t[0]) = y0, returning y at every t (``[T, *y0]``,
    or a tuple for a tuple state). ``odeint_adjoint`` when ``cfg.adjoint`` (its parameters:
    ``func``'s plus ``extra_params``). Sets ``func.max_nfe = cfg.max_nfe`` and starts a
    solve on its counter."""
    cfg = SolverConfig() if cfg is None else cfg
    cfg.validate()
    c = _counter(func)
    if c is not None:
        c.max_nfe = int(cfg.max_nfe)
        c.start_solve()
    kw = cfg.odeint_kwargs()
    if cfg.adjoint:
        if not isinstance(func, nn.Module):
            raise InvalidParameterError("The adjoint method needs f to be an nn.Module.")
        params = tuple(func.parameters()) + tuple(extra_params)
        return odeint_adjoint(func, y0, t, adjoint_params=params, **kw)
    return odeint(func, y0, t, **kw)


# -- the spiral ----------------------------------------------------------------------------------
def true_spiral(n: int = 1000, t_max: float = 25.0, y0: tuple[float, float] = (2.0, 0.0),
                ) -> tuple[np.ndarray, np.ndarray]:
    """The ode_demo spiral ``dy/dt = (y**3) @ A`` (A = ``SPIRAL_A``, y a row vector) at n
    evenly spaced times in [0, t_max]: (t float64[n], y float64[n, 2]); dopri5 at
    rtol = atol = 1e-8 in float64 (computed once per arguments, copies returned)."""
    t, y = _true_spiral(int(n), float(t_max), (float(y0[0]), float(y0[1])))
    return t.copy(), y.copy()


@functools.lru_cache(maxsize=8)
def _true_spiral(n: int, t_max: float, y0: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    a = torch.tensor(SPIRAL_A, dtype=torch.float64)
    t = torch.linspace(0.0, t_max, n, dtype=torch.float64)
    start = torch.tensor([list(y0)], dtype=torch.float64)
    with torch.no_grad():
        y = odeint(lambda _t, y: (y ** 3) @ a, start, t, rtol=1e-8, atol=1e-8,
                   method="dopri5")[:, 0]
    return t.numpy(), y.numpy()


def l1_error(pred, true) -> float:
    """Mean absolute error over every point and every coordinate (ode_demo's loss)."""
    return float(np.mean(np.abs(np.asarray(pred, np.float64) - np.asarray(true, np.float64))))


def trivial_spiral_errors(n: int = 1000, t_max: float = 25.0) -> dict[str, float]:
    """``l1_error`` of two predictors that learn nothing, on ``true_spiral(n, t_max)``:
    "constant_y0" (y0 at every time: 1.257) and "zero" (the origin: 0.530)."""
    _, y = true_spiral(n, t_max)
    return {"constant_y0": l1_error(np.broadcast_to(y[:1], y.shape), y),
            "zero": l1_error(np.zeros_like(y), y)}


# -- diagnostics ---------------------------------------------------------------------------------
class _StepRecorder(nn.Module):
    """Wraps f and records torchdiffeq's step callbacks (t at the step's start, dt):
    ``callback_step`` is called for every step (fixed grid) or attempt (adaptive)."""

    def __init__(self, func) -> None:
        super().__init__()
        self.func = func
        self.accepted: list[tuple[float, float]] = []
        self.rejected: list[tuple[float, float]] = []
        self.steps: list[tuple[float, float]] = []

    def forward(self, t, y):
        return self.func(t, y)

    def callback_step(self, t0, y0, dt) -> None:
        self.steps.append((float(t0), float(dt)))


class _AdaptiveStepRecorder(_StepRecorder):
    """Adaptive solvers also say whether each attempt was accepted or rejected."""

    def callback_accept_step(self, t0, y0, dt) -> None:
        self.accepted.append((float(t0), float(dt)))

    def callback_reject_step(self, t0, y0, dt) -> None:
        self.rejected.append((float(t0), float(dt)))


def _count_calls(func):
    """(wrapped f, counter list) for a plain callable without counters."""
    calls = [0]

    class _Wrap(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = func if isinstance(func, nn.Module) else None

        def forward(self, t, y):
            calls[0] += 1
            return func(t, y)

    return _Wrap(), calls


def solver_steps(func, y0, t0: float, t1: float, cfg: SolverConfig | None = None,
                 ) -> SolverSteps:
    """One diagnostic solve from t0 to t1 (no gradients) recording every step attempt.

    torchdiffeq calls ``callback_accept_step``/``callback_reject_step`` of f with
    (t, y, dt) for every attempt of an adaptive solver, and ``callback_step`` for every
    step of a fixed-grid one; a wrapper around f records them (the callbacks are called
    inside ``RKAdaptiveStepsizeODESolver._adaptive_step``, so this is the solver's own
    account). torchdiffeq hands them the caller's time and a positive dt; dt here takes
    the sign of t1 − t0. The same solve without the wrapper takes the same steps.
    """
    cfg = SolverConfig() if cfg is None else cfg
    cfg.validate()
    if not (math.isfinite(t0) and math.isfinite(t1)) or t0 == t1:
        raise InvalidParameterError(f"The interval needs two different finite times, got "
                                    f"{t0!r} and {t1!r}.")
    counted = _counter(func)
    if counted is None:
        func, calls = _count_calls(func)
    rec = (_AdaptiveStepRecorder if cfg.adaptive else _StepRecorder)(func)
    if counted is not None:
        counted.max_nfe = int(cfg.max_nfe)
        counted.start_solve()
        before = counted.nfe
    dtype = y0[0].dtype if isinstance(y0, tuple) else y0.dtype
    device = y0[0].device if isinstance(y0, tuple) else y0.device
    t = torch.tensor([t0, t1], dtype=dtype, device=device)
    with torch.no_grad():
        odeint(rec, y0, t, **cfg.odeint_kwargs())
    nfe = counted.nfe - before if counted is not None else calls[0]
    sign = -1.0 if t1 < t0 else 1.0

    def arr(pairs, k):
        return np.array([p[k] for p in pairs], np.float64).reshape(-1)

    if cfg.adaptive:
        acc, rej = rec.accepted, rec.rejected
    else:
        acc, rej = rec.steps, []
    return SolverSteps(method=cfg.method, accepted_t=arr(acc, 0), accepted_dt=sign * arr(acc, 1),
                       rejected_t=arr(rej, 0), rejected_dt=sign * arr(rej, 1), nfe=int(nfe),
                       t0=float(t0), t1=float(t1))


@torch.no_grad()
def vector_field(func, extent: tuple[float, float, float, float], n: int = 21,
                 t: float = 0.0, dims: tuple[int, int] = (0, 1), state_dim: int = 2,
                 ) -> VectorField:
    """f(t, ·) on an n × n grid over ``extent`` (x_min, x_max, y_min, y_max) of the plane
    spanned by state coordinates ``dims`` (the others 0), under no_grad, uncounted for an
    ``ODEFunc``. Grid corners included; rows from y_min upwards."""
    x0, x1, y0, y1 = (float(v) for v in extent)
    if not (x1 > x0 and y1 > y0) or n < 2:
        raise InvalidParameterError("The grid needs x_max > x_min, y_max > y_min and n ≥ 2.")
    a, b = dims
    if not (0 <= a < state_dim and 0 <= b < state_dim and a != b):
        raise InvalidParameterError(f"dims must be two different coordinates of the "
                                    f"{state_dim}-dimensional state, got {dims!r}.")
    params = [p for p in func.parameters()] if isinstance(func, nn.Module) else []
    dtype = params[0].dtype if params else torch.float32
    device = params[0].device if params else torch.device("cpu")
    xs = torch.linspace(x0, x1, n, dtype=dtype, device=device)
    ys = torch.linspace(y0, y1, n, dtype=dtype, device=device)
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    state = torch.zeros(n * n, state_dim, dtype=dtype, device=device)
    state[:, a], state[:, b] = gx.reshape(-1), gy.reshape(-1)
    tt = torch.tensor(float(t), dtype=dtype, device=device)
    out = func.f(tt, state) if isinstance(func, ODEFunc) else func(tt, state)
    u = out[:, a].reshape(n, n).cpu().numpy()
    v = out[:, b].reshape(n, n).cpu().numpy()
    return VectorField(x=gx.cpu().numpy(), y=gy.cpu().numpy(), u=u, v=v,
                       speed=np.hypot(u, v), t=float(t), extent=(x0, x1, y0, y1),
                       dims=(int(a), int(b)))


# -- classification data -------------------------------------------------------------------------
def make_classification(name: str = "moons", n: int = 2000, seed: int = 0,
                        noise: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two-class 2D data, shuffled: (float32[n, 2], int64[n] labels 0/1), half each.

    * "moons": scikit-learn's make_moons centred: the upper moon (cos s, sin s) is class 0,
      the lower (1 − cos s, 0.5 − sin s) class 1, s ~ U[0, π], minus (0.5, 0.25); noise
      std 0.1 by default.
    * "circles": the outer circle of radius 1 is class 0, the inner of radius 0.5 class 1,
      angles uniform; noise std 0.05 by default.
    """
    if name not in ("moons", "circles"):
        raise InvalidParameterError(f"Unknown data '{name}' (choose moons or circles).")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InvalidParameterError(f"n must be a whole number ≥ 2, got {n!r}.")
    rng = np.random.default_rng(seed)
    n0, n1 = n // 2, n - n // 2
    if name == "moons":
        noise = 0.1 if noise is None else noise
        s0, s1 = rng.uniform(0, math.pi, n0), rng.uniform(0, math.pi, n1)
        x = np.concatenate([np.stack([np.cos(s0), np.sin(s0)], 1),
                            np.stack([1 - np.cos(s1), 0.5 - np.sin(s1)], 1)])
        x -= np.array([0.5, 0.25])
    else:
        noise = 0.05 if noise is None else noise
        a = rng.uniform(0, 2 * math.pi, n)
        r = np.concatenate([np.ones(n0), np.full(n1, 0.5)])
        x = np.stack([r * np.cos(a), r * np.sin(a)], 1)
    x = x + rng.normal(0, noise, x.shape)
    y = np.concatenate([np.zeros(n0, np.int64), np.ones(n1, np.int64)])
    perm = rng.permutation(n)
    return np.ascontiguousarray(x[perm], np.float32), np.ascontiguousarray(y[perm])


# -- training sessions ---------------------------------------------------------------------------
class _Unstable(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind, self.detail = kind, detail


class _Held:
    """What the pack hook stores instead of a saved tensor (weak-referenceable, so the
    count sees which saved tensors the graph still holds)."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor


class _SavedBytes:
    """Bytes of the tensors autograd keeps for backward: while active
    (``saved_tensors_hooks``) every saved tensor is wrapped; ``nbytes`` sums the distinct
    storages of those the graph still holds (transient graphs, e.g. the trace's inside an
    adjoint's no-grad forward, are gone by then), leaving out the parameters."""

    def __init__(self, exclude) -> None:
        self.exclude = {p.untyped_storage().data_ptr() for p in exclude}
        self.held: list[weakref.ref] = []

    def _pack(self, t: torch.Tensor) -> _Held:
        # detached: a saved output holding its own grad_fn would be a reference cycle in
        # C++ that is never freed (autograd restores the grad_fn on unpacking)
        h = _Held(t.detach())
        self.held.append(weakref.ref(h))
        return h

    @staticmethod
    def _unpack(h: _Held) -> torch.Tensor:
        return h.tensor

    def __enter__(self):
        self._ctx = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._ctx.__exit__(*exc)

    @property
    def nbytes(self) -> int:
        storages: dict[int, int] = {}
        for ref in self.held:
            h = ref()
            if h is None:
                continue
            try:
                s = h.tensor.untyped_storage()
                ptr = s.data_ptr()
                if ptr not in self.exclude:
                    storages[ptr] = s.nbytes()
            except (RuntimeError, NotImplementedError):
                continue
        return int(sum(storages.values()))


class ODESession:
    """What every neural-ODE task shares: the model, Adam, the solver settings (which can
    change between steps), the training loop and its rollback.

    ``train`` is a generator of ``Progress``, one per step; every step runs under
    ``lock`` (so does every trace), so ``set_solver``/``set_lr`` from another thread apply
    from the next step on. Per step it records the loss, ``nfe_forward`` (evaluations in
    the forward solve), ``nfe_backward`` (evaluations backpropagated through, or solved
    by the adjoint) and the wall time.

    Instability: torchdiffeq's "underflow in dt" (the adaptive step shrank to nothing),
    ``NFELimitExceeded`` and a non-finite loss, gradient or state restore the last good
    weights (those that last gave a finite loss and gradient, with Adam's state),
    set ``last_instability`` ("underflow", "nfe" or "nan") and raise
    ``TrainingDivergedError`` saying what happened, at which step, and what to try.
    """

    task = ""
    metric_name = ""

    def __init__(self, model: nn.Module, func: ODEFunc, dynamics: _Counted, lr: float,
                 solver: SolverConfig | dict | None, device: torch.device, seed: int) -> None:
        self.lock = threading.Lock()
        self.model, self.func, self.dynamics = model, func, dynamics
        self.device = device
        self.model.to(device)
        self.solver = _config(solver)
        self.lr = self._check_lr(lr)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.lr)
        self.gen = torch.Generator().manual_seed(seed)
        self.seed = seed
        self.step = 0
        self.losses: list[float] = []
        self.nfe_forward: list[int] = []
        self.nfe_backward: list[int] = []
        self.step_seconds: list[float] = []
        self.last_instability = ""
        self.last_metric = math.nan
        self.clip_grad: float | None = None
        self.good_step = 0
        self.good_state = checkpoint.snapshot(self.model, self.optimizer)

    # -- settings ----------------------------------------------------------------------------
    @staticmethod
    def _check_lr(lr) -> float:
        if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not (
                math.isfinite(lr) and lr > 0):
            raise InvalidParameterError(f"The learning rate must be a number > 0, got {lr!r}.")
        return float(lr)

    def set_solver(self, **kw) -> SolverConfig:
        """Change method/rtol/atol/step_size/adjoint/max_nfe from the next step on
        (validated first: ``InvalidParameterError`` leaves the settings as they were)."""
        new = _with(self.solver, kw)
        with self.lock:
            self.solver = new
        return replace(new)

    def set_lr(self, lr: float) -> None:
        lr = self._check_lr(lr)
        with self.lock:
            self.lr = lr
            for group in self.optimizer.param_groups:
                group["lr"] = lr

    def to(self, device: str | torch.device) -> ODESession:
        dev = device_for(device)
        with self.lock:
            self.model.to(dev)
            checkpoint.move_optimizer_state(self.optimizer, dev)
            self._move_data(dev)
            self.device = dev
        return self

    def _move_data(self, device: torch.device) -> None:
        pass

    # -- what a task defines -------------------------------------------------------------------
    def _next_batch(self):
        raise NotImplementedError

    def _fixed_batch(self):
        raise NotImplementedError

    def _loss(self, batch, cfg: SolverConfig) -> torch.Tensor:
        raise NotImplementedError

    def _evaluate(self) -> float:
        """The task's metric on its evaluation data (under the lock, no_grad)."""
        return math.nan

    def _diagnostic_input(self):
        """(y0, t0, t1) for ``solver_steps``."""
        raise NotImplementedError

    def evaluate(self) -> float:
        with self.lock:
            return self._evaluate_safely()

    def _evaluate_safely(self) -> float:
        self.model.eval()
        try:
            with torch.no_grad():
                return float(self._evaluate())
        except (NFELimitExceeded, AssertionError):
            return math.nan

    def _weights_finite(self) -> bool:
        return all(bool(torch.isfinite(p).all()) for p in self.model.parameters())

    # -- rollback --------------------------------------------------------------------------------
    def _restore(self) -> None:
        checkpoint.restore(self.model, self.optimizer, self.good_state)
        self.step = self.good_step
        for lst in (self.losses, self.nfe_forward, self.nfe_backward, self.step_seconds):
            del lst[self.good_step:]
        self.last_metric = self._evaluate_safely()    # of the restored weights

    def history(self) -> dict[str, np.ndarray]:
        """Copies of the per-step records, all of one length: loss, nfe_forward,
        nfe_backward, step_seconds. Without the lock (the GUI thread calls this and must
        not wait out a slow step): the training thread appends to the four lists one after
        another, so they are cut to the shortest."""
        lists = (self.losses, self.nfe_forward, self.nfe_backward, self.step_seconds)
        n = min(len(lst) for lst in lists)
        return {"loss": np.asarray(self.losses[:n], np.float32),
                "nfe_forward": np.asarray(self.nfe_forward[:n], np.int64),
                "nfe_backward": np.asarray(self.nfe_backward[:n], np.int64),
                "step_seconds": np.asarray(self.step_seconds[:n], np.float32)}

    def _diverged(self, kind: str, detail: str, cfg: SolverConfig) -> TrainingDivergedError:
        step = self.step + 1
        self._restore()
        self.last_instability = kind
        restored = f"The weights of step {self.good_step} were restored."
        if kind == "underflow":
            what = (f"the adaptive solver's step shrank below what float32 can resolve "
                    f"({detail}): the learned dynamics became stiff")
            tips = (f"Try a smaller learning rate (now {self.lr:g}), looser tolerances (now "
                    f"rtol {cfg.rtol:g}, atol {cfg.atol:g}), or a fixed-step solver such as rk4.")
        elif kind == "nfe":
            solve = ("the adjoint's backward pass (its backward solves, one per output "
                     "interval, together)" if detail == "backward" and cfg.adjoint
                     else "one solve")
            what = (f"the solver ({cfg.describe()}) needed more than {cfg.max_nfe} evaluations "
                    f"of f for {solve}: the learned dynamics became hard to integrate")
            tips = (f"Raise the cap (max_nfe, now {cfg.max_nfe}), loosen the tolerances, lower the "
                    f"learning rate (now {self.lr:g}), or use a fixed-step solver such as rk4.")
        else:
            what = f"{detail}"
            tips = (f"Try a smaller learning rate (now {self.lr:g}), gradient clipping, or a "
                    "smaller fixed step (an explicit solver blows up when the step is too "
                    "large for the dynamics).")
        return TrainingDivergedError(f"Training stopped at step {step}: {what}. {restored} {tips}")

    # -- training ----------------------------------------------------------------------------
    def train(self, steps: int, eval_every: int = 25) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each: metrics "loss",
        "nfe_forward", "nfe_backward", "seconds" (since this call), "steps_per_s",
        "step_seconds" and the task's metric (re-evaluated every ``eval_every`` steps and
        at the end, the last value otherwise); ``history`` (the loss curve) every
        ``eval_every`` steps and at the end."""
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
            raise InvalidParameterError(f"steps must be a whole number ≥ 0, got {steps!r}.")
        t_start, start = time.perf_counter(), self.step
        for _ in range(steps):
            with self.lock:
                t0 = time.perf_counter()
                cfg = replace(self.solver)
                params = [p for p in self.model.parameters() if p.requires_grad]
                dyn = self.dynamics
                self.model.train()
                dyn.reset_counts()
                backward = False
                try:
                    # 1. forward solve and loss
                    loss = self._loss(self._next_batch(), cfg)
                    nfe_f = dyn.nfe
                    value = float(loss.detach())
                    if not math.isfinite(value):
                        raise _Unstable("nan", f"the loss became {value}")
                    # 2. backward (direct: through every solver stage; adjoint: a solve
                    #    backwards in time, capped like the forward one)
                    self.optimizer.zero_grad(set_to_none=True)
                    dyn.start_solve()
                    backward = True
                    loss.backward()
                    nfe_b = dyn.nfe_backward
                    norm = torch.nn.utils.clip_grad_norm_(params, self.clip_grad or math.inf)
                    if not torch.isfinite(norm):
                        raise _Unstable("nan", "a gradient became non-finite")
                except NFELimitExceeded as exc:
                    raise self._diverged("nfe", "backward" if backward else "forward", cfg
                                         ) from exc
                except AssertionError as exc:
                    msg = str(exc)
                    if "underflow in dt" in msg and not self._weights_finite():
                        raise self._diverged("nan", "the weights became non-finite", cfg
                                             ) from exc
                    if "underflow in dt" in msg:
                        raise self._diverged("underflow", msg.split("\n")[0], cfg) from exc
                    if "non-finite values in state" in msg:
                        raise self._diverged("nan", "the ODE state became non-finite", cfg
                                             ) from exc
                    raise
                except _Unstable as exc:
                    raise self._diverged(exc.kind, exc.detail, cfg) from None
                # 3. these weights gave a finite loss and gradient: they are the good ones
                self.good_state = checkpoint.snapshot(self.model, self.optimizer)
                self.good_step = self.step
                try:
                    self.optimizer.step()
                except RuntimeError as exc:   # e.g. lr · gradient overflowing float32
                    raise self._diverged("nan", f"the optimizer's update failed ({exc})", cfg
                                         ) from exc
                if not self._weights_finite():
                    raise self._diverged("nan", "the update made the weights non-finite", cfg)
                self.step += 1
                seconds = time.perf_counter() - t0     # the step itself, not the evaluation
                self.losses.append(value)
                self.nfe_forward.append(int(nfe_f))
                self.nfe_backward.append(int(nfe_b))
                self.step_seconds.append(seconds)
                last = self.step - start == steps
                if self.step % eval_every == 0 or last or self.step - start == 1:
                    self.last_metric = self._evaluate_safely()
            elapsed = time.perf_counter() - t_start
            yield Progress(
                step=self.step, total=start + steps, loss=value,
                metrics={"loss": value, "nfe_forward": float(nfe_f),
                         "nfe_backward": float(nfe_b), "seconds": elapsed,
                         "steps_per_s": (self.step - start) / max(elapsed, 1e-9),
                         "step_seconds": seconds, self.metric_name: self.last_metric},
                history=np.asarray(self.losses, np.float32)
                if self.step % eval_every == 0 or last else np.zeros(0, np.float32))

    # -- diagnostics ---------------------------------------------------------------------------
    def vector_field(self, extent: tuple[float, float, float, float] | None = None, n: int = 21,
                     t: float = 0.0) -> VectorField:
        with self.lock:
            extent = self.default_extent() if extent is None else extent
            return vector_field(self.func, extent, n=n, t=t, state_dim=self.func.dim)

    def default_extent(self) -> tuple[float, float, float, float]:
        return (-2.0, 2.0, -2.0, 2.0)

    def solver_steps(self, solver: SolverConfig | None = None) -> SolverSteps:
        """Every step attempt of one solve of the current model (the task's own input)."""
        with self.lock:
            cfg = replace(self.solver) if solver is None else _config(solver)
            y0, t0, t1 = self._diagnostic_input()
            self.model.eval()
            return solver_steps(self.dynamics, y0, t0, t1, cfg)

    def compare_adjoint(self, repeats: int = 3, solver: SolverConfig | None = None,
                        ) -> AdjointComparison:
        """Loss and gradient of one fixed batch from the current weights, by backpropagating
        through the solver and by the adjoint method (the current solver settings, or
        ``solver``): median wall time of ``repeats`` forward + backward passes, the bytes
        autograd keeps for backward, NFE each way and the gradients' difference. The
        weights and the optimizer are not touched."""
        repeats = max(1, int(repeats))
        with self.lock:
            base = replace(self.solver) if solver is None else _config(solver)
            batch = self._fixed_batch()
            params = [p for p in self.model.parameters() if p.requires_grad]
            dyn = self.dynamics
            cuda = self.device.type == "cuda"
            self.model.train()
            out = {}
            for adjoint in (False, True):
                cfg = replace(base, adjoint=adjoint)
                seconds, peak = [], math.nan
                for _ in range(repeats):
                    dyn.reset_counts()
                    if cuda:
                        torch.cuda.synchronize(self.device)
                        torch.cuda.reset_peak_memory_stats(self.device)
                        mem0 = torch.cuda.memory_allocated(self.device)
                    t0 = time.perf_counter()
                    with _SavedBytes(params) as saved:
                        loss = self._loss(batch, cfg)
                    kept = saved.nbytes
                    nfe_f = dyn.nfe
                    dyn.start_solve()
                    grads = torch.autograd.grad(loss, params, allow_unused=True)
                    if cuda:
                        torch.cuda.synchronize(self.device)
                        peak = float(torch.cuda.max_memory_allocated(self.device) - mem0)
                    seconds.append(time.perf_counter() - t0)
                    nfe_b = dyn.nfe_backward
                flat = torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1)
                                  for p, g in zip(params, grads, strict=True)]).detach()
                out[adjoint] = (statistics.median(seconds), kept, nfe_f, nfe_b,
                                flat, float(loss.detach()), peak)
            d, a = out[False], out[True]
            scale = float(d[4].abs().max())
            diff = float((a[4] - d[4]).abs().max()) / max(scale, 1e-30)
            return AdjointComparison(
                seconds_direct=d[0], seconds_adjoint=a[0], saved_bytes_direct=d[1],
                saved_bytes_adjoint=a[1], nfe_forward_direct=d[2], nfe_backward_direct=d[3],
                nfe_forward_adjoint=a[2], nfe_backward_adjoint=a[3], grad_rel_diff=diff,
                loss_direct=d[5], loss_adjoint=a[5], cuda_peak_direct=d[6],
                cuda_peak_adjoint=a[6], method=base.method, rtol=float(base.rtol),
                atol=float(base.atol))


def _seeded(seed: int, build):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()


class SpiralSession(ODESession):
    """torchdiffeq's ode_demo: learn f from noisy observations of the cubic spiral.

    Data: ``true_spiral(1000, 25)`` plus Gaussian noise of std ``noise`` (seeded): the
    observations. Model: ``ODEFunc(cube_input=True, time_dependent=False, depth=1)``, the
    demo's ``y → Linear(2, hidden) → tanh → Linear(hidden, 2)`` on y³, weights N(0, 0.1²).
    A batch: ``batch_size`` windows of ``batch_time`` consecutive observations (distinct
    random starts), each integrated from its first observation over the window's times;
    loss: mean |prediction − observation| (L1 over points and coordinates, as the demo).
    Adam (the demo uses RMSprop at lr 1e-3; Adam at the same lr fits the spiral in fewer
    steps here). Metric "error_l1": the whole trajectory from the true y0 against the truth.
    """

    task = "spiral"
    metric_name = "error_l1"

    def __init__(self, hidden: int = 50, noise: float = 0.05, batch_time: int = 10,
                 batch_size: int = 20, lr: float = 1e-3, seed: int = 0,
                 device: str | torch.device = "cpu", solver: SolverConfig | None = None,
                 n_points: int = 1000, t_max: float = 25.0) -> None:
        dev = device_for(device)
        if not (isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0):
            raise InvalidParameterError(f"The noise must be a number ≥ 0, got {noise!r}.")
        if not (isinstance(batch_time, int) and 2 <= batch_time < n_points // 2):
            raise InvalidParameterError(f"batch_time must be a whole number from 2 to "
                                        f"{n_points // 2 - 1}, got {batch_time!r}.")
        if not (isinstance(batch_size, int) and 1 <= batch_size <= n_points - batch_time):
            raise InvalidParameterError(f"batch_size must be a whole number from 1 to "
                                        f"{n_points - batch_time}, got {batch_size!r}.")
        func = _seeded(seed, lambda: ODEFunc(2, hidden, time_dependent=False, cube_input=True,
                                             depth=1, init_std=0.1))
        super().__init__(func, func, func, lr, solver, dev, seed)
        t, y = true_spiral(n_points, t_max)
        rng = np.random.default_rng(seed + 1)
        obs = y + rng.normal(0.0, noise, y.shape)
        self.noise, self.batch_time, self.batch_size = float(noise), batch_time, batch_size
        self.t_np, self.true_np = t.astype(np.float32), y.astype(np.float32)
        self.observed_np = obs.astype(np.float32)
        self.trivial = {"constant_y0": l1_error(np.broadcast_to(y[:1], y.shape), y),
                        "zero": l1_error(np.zeros_like(y), y)}
        self._move_data(dev)

    def _move_data(self, device: torch.device) -> None:
        self.t = torch.as_tensor(self.t_np, device=device)
        self.true = torch.as_tensor(self.true_np, device=device)
        self.observed = torch.as_tensor(self.observed_np, device=device)

    def _batch_from(self, gen: torch.Generator):
        n = len(self.t_np) - self.batch_time
        s = torch.randperm(n, generator=gen)[:self.batch_size].to(self.device)
        idx = s[None, :] + torch.arange(self.batch_time, device=self.device)[:, None]
        return self.observed[s], self.t[:self.batch_time], self.observed[idx]   # [T, M, 2]

    def _next_batch(self):
        return self._batch_from(self.gen)

    def _fixed_batch(self):
        return self._batch_from(torch.Generator().manual_seed(12345))

    def _loss(self, batch, cfg: SolverConfig) -> torch.Tensor:
        y0, t, y = batch
        pred = odesolve(self.func, y0, t, cfg)
        return (pred - y).abs().mean()

    def _predict(self) -> tuple[torch.Tensor, int]:
        self.func.reset_counts()
        pred = odesolve(self.func, self.true[:1], self.t, replace(self.solver, adjoint=False))
        return pred[:, 0], self.func.nfe

    def _evaluate(self) -> float:
        pred, _ = self._predict()
        return float((pred - self.true).abs().mean())

    def _diagnostic_input(self):
        return self.true[:1], float(self.t_np[0]), float(self.t_np[-1])

    def default_extent(self) -> tuple[float, float, float, float]:
        return (-2.2, 2.2, -2.2, 2.2)

    def trace(self) -> SpiralTrace:
        """The whole trajectory from the true y0 over all times, against the truth."""
        with self.lock:
            self.model.eval()
            with torch.no_grad():
                pred, nfe = self._predict()
            fitted = pred.cpu().numpy()
            return SpiralTrace(t=self.t_np.copy(), true=self.true_np.copy(),
                               observed=self.observed_np.copy(),
                               fitted=fitted, error_l1=l1_error(fitted, self.true_np),
                               trivial=dict(self.trivial), nfe=int(nfe), step=self.step)


class _Classifier(nn.Module):
    """Input layer (``augment`` zero coordinates appended) → ODE block over [0, t1] →
    Linear(2 + augment, 2)."""

    def __init__(self, func: ODEFunc, augment: int) -> None:
        super().__init__()
        self.func, self.augment = func, augment
        self.head = nn.Linear(func.dim, 2)

    def lift(self, x: torch.Tensor) -> torch.Tensor:
        if self.augment == 0:
            return x
        return torch.cat([x, x.new_zeros(x.shape[0], self.augment)], dim=1)


class ClassifierSession(ODESession):
    """A neural-ODE classifier on two-class 2D data ("moons" or "circles", 2000 training
    and 1000 held-out points, seeded). Input layer: ``augment`` zero coordinates appended
    (augmented neural ODEs); an ODE block on 2 + augment dimensions over [0, t1]; a linear
    output layer; cross entropy, Adam. Metric "accuracy": on the held-out points.

    Without augmentation the ODE is a continuous deformation of the plane and cannot take
    the inner circle out of the outer one, so no line separates them afterwards.
    """

    task = "classify"
    metric_name = "accuracy"

    def __init__(self, data: str = "moons", augment: int = 0, hidden: int = 32,
                 t1: float = 1.0, lr: float = 1e-2, batch_size: int = 256, seed: int = 0,
                 device: str | torch.device = "cpu", solver: SolverConfig | None = None,
                 n_train: int = 2000, n_test: int = 1000) -> None:
        dev = device_for(device)
        if isinstance(augment, bool) or not isinstance(augment, int) or not 0 <= augment <= 8:
            raise InvalidParameterError(f"augment must be a whole number from 0 to 8, got "
                                        f"{augment!r}.")
        if not (isinstance(t1, (int, float)) and math.isfinite(t1) and t1 > 0):
            raise InvalidParameterError(f"t1 must be a number > 0, got {t1!r}.")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidParameterError(f"batch_size must be a whole number ≥ 1, got "
                                        f"{batch_size!r}.")
        x, y = make_classification(data, n_train, seed=seed)
        xt, yt = make_classification(data, n_test, seed=seed + 1000)
        model = _seeded(seed, lambda: _Classifier(ODEFunc(2 + augment, hidden), augment))
        super().__init__(model, model.func, model.func, lr, solver, dev, seed)
        self.data, self.augment, self.t1, self.batch_size = data, augment, float(t1), batch_size
        self.x_np, self.y_np, self.xt_np, self.yt_np = x, y, xt, yt
        self._move_data(dev)

    def _move_data(self, device: torch.device) -> None:
        self.x = torch.as_tensor(self.x_np, device=device)
        self.y = torch.as_tensor(self.y_np, device=device)
        self.xt = torch.as_tensor(self.xt_np, device=device)
        self.yt = torch.as_tensor(self.yt_np, device=device)

    def _batch_from(self, gen: torch.Generator):
        idx = torch.randint(0, len(self.x_np), (min(self.batch_size, len(self.x_np)),),
                            generator=gen).to(self.device)
        return self.x[idx], self.y[idx]

    def _next_batch(self):
        return self._batch_from(self.gen)

    def _fixed_batch(self):
        return self._batch_from(torch.Generator().manual_seed(12345))

    def _times(self, n: int = 2) -> torch.Tensor:
        return torch.linspace(0.0, self.t1, n, device=self.device)

    def flow(self, x: torch.Tensor, cfg: SolverConfig, n_times: int = 2) -> torch.Tensor:
        """The states [n_times, batch, 2 + augment] of inputs x through the ODE block."""
        return odesolve(self.func, self.model.lift(x), self._times(n_times), cfg)

    def logits(self, x: torch.Tensor, cfg: SolverConfig) -> torch.Tensor:
        return self.model.head(self.flow(x, cfg)[-1])

    def _loss(self, batch, cfg: SolverConfig) -> torch.Tensor:
        x, y = batch
        return nn.functional.cross_entropy(self.logits(x, cfg), y)

    def _evaluate(self) -> float:
        cfg = replace(self.solver, adjoint=False)
        pred = self.logits(self.xt, cfg).argmax(1)
        return float((pred == self.yt).float().mean())

    def _diagnostic_input(self):
        return self.model.lift(self.xt[:256]), 0.0, self.t1

    def default_extent(self) -> tuple[float, float, float, float]:
        lo, hi = self.x_np.min(0), self.x_np.max(0)
        pad = 0.15 * (hi - lo)
        return (float(lo[0] - pad[0]), float(hi[0] + pad[0]), float(lo[1] - pad[1]),
                float(hi[1] + pad[1]))

    def trace(self, n_points: int = 300, n_times: int = 41, grid: int = 80) -> ClassifierTrace:
        """Decision regions on the input plane (probability of class 1 at the centres of
        a grid × grid raster), ``n_points`` held-out points and their paths through the
        ODE at ``n_times`` times, and the held-out accuracy."""
        if grid < 2 or n_times < 2 or n_points < 1:
            raise InvalidParameterError("The trace needs grid ≥ 2, n_times ≥ 2, n_points ≥ 1.")
        with self.lock:
            self.model.eval()
            cfg = replace(self.solver, adjoint=False)
            x0, x1, y0, y1 = self.default_extent()
            dx, dy = (x1 - x0) / grid, (y1 - y0) / grid
            xs = torch.linspace(x0 + dx / 2, x1 - dx / 2, grid, device=self.device)
            ys = torch.linspace(y0 + dy / 2, y1 - dy / 2, grid, device=self.device)
            gy, gx = torch.meshgrid(ys, xs, indexing="ij")
            with torch.no_grad():
                pts = torch.stack([gx.reshape(-1), gy.reshape(-1)], 1)
                prob = torch.softmax(self.logits(pts, cfg), 1)[:, 1].reshape(grid, grid)
                sel = self.xt[:n_points]
                states = self.flow(sel, cfg, n_times)
                pred = self.model.head(states[-1]).argmax(1)
                acc = float(self._evaluate())
            return ClassifierTrace(
                extent=(x0, x1, y0, y1), prob=prob.cpu().numpy(), points=sel.cpu().numpy(),
                labels=self.yt_np[:n_points].copy(), paths=states[..., :2].cpu().numpy(),
                times=self._times(n_times).cpu().numpy(), accuracy=acc, augment=self.augment,
                predictions=pred.cpu().numpy().astype(np.int64), data=self.data, step=self.step)


def _normal_logprob(z: torch.Tensor) -> torch.Tensor:
    return -0.5 * (z ** 2).sum(-1) - 0.5 * z.shape[-1] * _LOG_2PI


class CNFSession(ODESession):
    """A continuous normalizing flow (FFJORD) on a 2D density of ``models.densities``.

    Time runs data → base: z(0) = x, z(t1) ~ N(0, I); the state is (z, Δlogp) with
    dΔlogp/dt = −tr ∂f/∂z (exact, two autograd calls), so
    ``log p(x) = log N(z(t1)) − Δlogp(t1) = log N(z(t1)) + ∫ tr ∂f/∂z dt``.
    Sampling integrates base draws from t1 back to 0. f: ``ODEFunc(2, hidden,
    time_dependent=True)`` (two tanh layers). Loss: mean NLL in nats (the metric "nll" is
    the batch's, i.e. the loss); Adam. Data: a pool of 100,000 points (seed + 1); held out:
    5,000 (seed + 2). ``entropy``: the density's differential entropy, the NLL floor.
    """

    task = "cnf"
    metric_name = "nll"

    def __init__(self, density: str = "two_moons", hidden: int = 64, t1: float = 1.0,
                 lr: float = 1e-3, batch_size: int = 512, seed: int = 0,
                 device: str | torch.device = "cpu", solver: SolverConfig | None = None,
                 depth: int = 2) -> None:
        dev = device_for(device)
        if not (isinstance(t1, (int, float)) and math.isfinite(t1) and t1 > 0):
            raise InvalidParameterError(f"t1 must be a number > 0, got {t1!r}.")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidParameterError(f"batch_size must be a whole number ≥ 1, got "
                                        f"{batch_size!r}.")
        pool = densities.sample(density, 100_000, seed=seed + 1)
        held = densities.sample(density, 5_000, seed=seed + 2)
        func = _seeded(seed, lambda: ODEFunc(2, hidden, time_dependent=True, depth=depth))
        dyn = CNFDynamics(func)
        super().__init__(dyn, func, dyn, lr, solver, dev, seed)
        self.density, self.t1, self.batch_size = density, float(t1), batch_size
        self.entropy = densities.differential_entropy(density)
        self.pool_np, self.held_np = pool, held
        self._move_data(dev)

    def _move_data(self, device: torch.device) -> None:
        self.pool = torch.as_tensor(self.pool_np, device=device)
        self.held = torch.as_tensor(self.held_np, device=device)

    def _batch_from(self, gen: torch.Generator):
        idx = torch.randint(0, len(self.pool_np), (self.batch_size,), generator=gen)
        return self.pool[idx.to(self.device)]

    def _next_batch(self):
        return self._batch_from(self.gen)

    def _fixed_batch(self):
        return self._batch_from(torch.Generator().manual_seed(12345))

    def _log_prob(self, x: torch.Tensor, cfg: SolverConfig, t0: float = 0.0) -> torch.Tensor:
        """log p_{t0}(x): integrate (x, 0) from t0 to t1; ``log N(z) − Δlogp``."""
        if float(torch.tensor(t0, dtype=x.dtype)) >= float(torch.tensor(self.t1,
                                                                          dtype=x.dtype)):
            return _normal_logprob(x)
        t = torch.tensor([t0, self.t1], dtype=x.dtype, device=x.device)
        zero = x.new_zeros(x.shape[0], 1)
        z, dlogp = odesolve(self.dynamics, (x, zero), t, cfg)
        return _normal_logprob(z[-1]) - dlogp[-1, :, 0]

    def log_prob(self, x, solver: SolverConfig | None = None, chunk: int = 8192,
                 ) -> torch.Tensor:
        """log p(x) of the model (no gradients), x [n, 2] in the model's dtype, in chunks."""
        with self.lock:
            cfg = replace(self.solver, adjoint=False) if solver is None else _config(solver)
            x = torch.as_tensor(x, device=self.device,
                                dtype=next(self.func.parameters()).dtype)
            self.model.eval()
            with torch.no_grad():
                return torch.cat([self._log_prob(c, cfg) for c in x.split(chunk)])

    def nll(self, x, solver: SolverConfig | None = None) -> float:
        """Mean negative log-likelihood of points x (nats per point)."""
        return float(-self.log_prob(x, solver).mean())

    def _loss(self, batch, cfg: SolverConfig) -> torch.Tensor:
        return -self._log_prob(batch, cfg).mean()

    def _evaluate(self) -> float:
        return self.losses[-1] if self.losses else math.nan

    def _diagnostic_input(self):
        x = self.held[:256]
        return (x, x.new_zeros(x.shape[0], 1)), 0.0, self.t1

    def default_extent(self) -> tuple[float, float, float, float]:
        """The held-out points' range with a margin, widened to hold [-3, 3]² (where the
        base N(0, I) lives)."""
        lo, hi = np.quantile(self.held_np, 0.001, 0), np.quantile(self.held_np, 0.999, 0)
        pad = 0.15 * (hi - lo)
        lo, hi = np.minimum(lo - pad, -3.0), np.maximum(hi + pad, 3.0)
        return (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]))

    def sample(self, n: int, seed: int = 0, times: torch.Tensor | None = None) -> torch.Tensor:
        """Base draws integrated from t1 back to 0 (or to each of ``times``, decreasing
        from t1): [n, 2], or [len(times), n, 2]."""
        with self.lock:
            return self._sample(n, seed, times)

    def _sample(self, n: int, seed: int, times: torch.Tensor | None) -> torch.Tensor:
        gen = torch.Generator().manual_seed(seed)
        dtype = next(self.func.parameters()).dtype
        z = torch.randn(n, 2, generator=gen, dtype=dtype).to(self.device)
        t = (torch.tensor([self.t1, 0.0], dtype=dtype, device=self.device)
             if times is None else times.to(self.device, dtype))
        self.model.eval()
        with torch.no_grad():
            out = odesolve(self.func, z, t, replace(self.solver, adjoint=False))
        return out[-1] if times is None else out

    def trace(self, n_times: int = 9, n_samples: int = 1500, grid: int = 64,
              extent: tuple[float, float, float, float] | None = None) -> CNFTrace:
        """Base samples pushed to the data at ``n_times`` times from t1 (base) to 0 (data),
        the density p_t at each of those times on a grid × grid raster of ``extent`` (each
        cell centre integrated from its time to t1), and the held-out NLL (5,000 points)."""
        if n_times < 2 or grid < 2 or n_samples < 1:
            raise InvalidParameterError("The trace needs n_times ≥ 2, grid ≥ 2, n_samples ≥ 1.")
        with self.lock:
            cfg = replace(self.solver, adjoint=False)
            x0, x1, y0, y1 = self.default_extent() if extent is None else extent
            if not (x1 > x0 and y1 > y0):
                raise InvalidParameterError("The extent needs x_max > x_min and y_max > y_min.")
            times = torch.linspace(self.t1, 0.0, n_times, device=self.device)
            samples = self._sample(n_samples, self.seed, times)
            dx, dy = (x1 - x0) / grid, (y1 - y0) / grid
            dtype = next(self.func.parameters()).dtype
            xs = torch.linspace(x0 + dx / 2, x1 - dx / 2, grid, dtype=dtype, device=self.device)
            ys = torch.linspace(y0 + dy / 2, y1 - dy / 2, grid, dtype=dtype, device=self.device)
            gy, gx = torch.meshgrid(ys, xs, indexing="ij")
            pts = torch.stack([gx.reshape(-1), gy.reshape(-1)], 1)
            self.model.eval()
            dens = []
            with torch.no_grad():
                for k, tk in enumerate(times.tolist()):
                    # times[0] is t1 rounded to float32, maybe just below it: exactly t1
                    lp = self._log_prob(pts, cfg, t0=self.t1 if k == 0 else tk)
                    dens.append(torch.exp(lp).reshape(grid, grid))
                held = torch.cat([self._log_prob(c, cfg) for c in self.held.split(8192)])
            density = torch.stack(dens).double().cpu()
            mass = (density.sum((1, 2)) * dx * dy).numpy()
            return CNFTrace(times=times.cpu().numpy(), samples=samples.cpu().numpy(),
                            density=density.numpy(), extent=(float(x0), float(x1), float(y0),
                                                             float(y1)),
                            nll=float(-held.mean()), entropy=float(self.entropy), mass=mass,
                            step=self.step)
