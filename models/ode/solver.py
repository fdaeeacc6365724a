"""How to solve: the solver settings, the evaluation counters, ``odesolve`` and the
record of every step a solve took.

Solvers are torchdiffeq's (``SOLVERS``; dopri5 and bosh3 adapt their step to the
tolerances, the others take ``step_size`` steps). ``adjoint=True`` backpropagates with
the adjoint method (``models.ode.adjoint``, torchdiffeq's ``odeint_adjoint`` to the bit,
without the sympy import): a second ODE solved backwards instead of keeping every stage
for backpropagation (memory O(1) in the number of steps, the gradient as accurate as
that solve).

A counted f (``_Counted``: ``ODEFunc``, ``CNFDynamics``) counts its evaluations: ``nfe``
forward calls, and ``nfe_backward`` evaluations backpropagated through (an identity
``autograd.Function`` around its output counts its own backward calls). ``max_nfe``
aborts a solve that needs too many.

Shapes:
    y: [batch, dim]; t: [T]; odesolve(...) -> [T, batch, dim]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np
import torch
from torch import nn
from torchdiffeq import odeint

from models.errors import ArchScopeError, InvalidParameterError
from models.ode.adjoint import odeint_adjoint
from models.ode.options import ADAPTIVE, SOLVERS
from models.traces import SolverSteps

__all__ = ["SolverConfig", "NFELimitExceeded", "odesolve", "solver_steps"]


# -- solver settings -----------------------------------------------------------------------------
@dataclass
class SolverConfig:
    """How to solve: torchdiffeq's ``method``; ``rtol``/``atol`` for the adaptive ones
    (a step is accepted when its error estimate ≤ atol + rtol·|y|, RMS over the state);
    ``step_size`` for the fixed-grid ones; ``adjoint`` to backpropagate by the adjoint
    method (``models.ode.adjoint``); ``max_nfe`` evaluations of f at most per solve: the
    forward solve, and separately the adjoint's whole backward pass (one backward solve
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


# -- counting evaluations of f -----------------------------------------------------------------
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



def _counter(func) -> _Counted | None:
    return func if isinstance(func, _Counted) else None


def odesolve(func, y0, t: torch.Tensor, cfg: SolverConfig | None = None,
             extra_params: tuple = ()) -> torch.Tensor:
    """Solve dy/dt = func(t, y) from y(t[0]) = y0, returning y at every t (``[T, *y0]``,
    or a tuple for a tuple state). The adjoint method when ``cfg.adjoint`` (its parameters:
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



# -- the steps a solve took -------------------------------------------------------------------
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
