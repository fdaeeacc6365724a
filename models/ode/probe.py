"""The neural-ODE tab's background computations, each returning one frozen trace.

They run in a worker thread while training may run in another: every solve here takes
the session's lock. ``ode_result`` is everything the tab draws for one model,
``user_paths`` the trajectories from the user's own start points (recomputed while a
point is dragged), ``compare_job`` the adjoint comparison as a one-report job.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import torch

from models.ode.diagnostics import vector_field
from models.ode.options import CNF_PATH_TIMES, CNF_PATHS, FIELD_GRID, SPIRAL_STARTS
from models.ode.sessions import ODESession
from models.ode.solver import NFELimitExceeded, odesolve
from models.traces import AdjointComparison, Progress
from models.traces.ode import FieldFrames, ODEResult, UserPaths

__all__ = ["ode_result", "user_paths", "adjoint_comparison", "compare_job", "SOLVE_ERRORS"]

#: what a solve within the user's settings may end in (the NFE cap, torchdiffeq's
#: "underflow in dt" and non-finite state assertions): said in the view, not raised
SOLVE_ERRORS = (NFELimitExceeded, AssertionError)


def adjoint_comparison(session: ODESession) -> AdjointComparison:
    """Direct backpropagation against the adjoint method on one batch (3 repeats)."""
    return session.compare_adjoint(repeats=3)


def compare_job(session: ODESession) -> Iterator[Progress]:
    """The adjoint comparison as a one-report job."""
    result = adjoint_comparison(session)
    yield Progress(step=1, total=1, loss=float(result.loss_direct), trace=result)


def _field_times(session, times: np.ndarray) -> np.ndarray:
    return times if session.func.time_dependent else times[:1]


def _fields(session, extent, times: np.ndarray) -> FieldFrames:
    """f(t, ·) on a FIELD_GRID² grid at each of ``times`` (one when f ignores t)."""
    times = _field_times(session, np.asarray(times, np.float32))
    with session.lock:
        out = [vector_field(session.func, extent, n=FIELD_GRID, t=float(t),
                            state_dim=session.func.dim) for t in times]
    return FieldFrames(times=times.astype(np.float32), x=out[0].x.ravel(), y=out[0].y.ravel(),
                       u=np.stack([f.u.ravel() for f in out]),
                       v=np.stack([f.v.ravel() for f in out]))


def _bounds(*arrays: np.ndarray, pad: float = 0.08) -> tuple[float, float, float, float]:
    pts = np.concatenate([np.asarray(a, np.float64).reshape(-1, 2) for a in arrays])
    pts = pts[np.isfinite(pts).all(1)]
    lo, hi = pts.min(0), pts.max(0)
    p = pad * np.maximum(hi - lo, 1e-3)
    return (float(lo[0] - p[0]), float(hi[0] + p[0]), float(lo[1] - p[1]), float(hi[1] + p[1]))


def _solve_paths(session, task: str, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Trajectories of the current model from ``starts`` (state coordinates at the
    animation's start): (paths float[n, T, 2], times ascending float[T])."""
    with session.lock:
        cfg = replace(session.solver, adjoint=False)
        dtype = next(session.func.parameters()).dtype
        y0 = torch.as_tensor(np.asarray(starts, np.float32), dtype=dtype, device=session.device)
        session.model.eval()
        with torch.no_grad():
            if task == "spiral":
                t = session.t[::4]
                out = odesolve(session.func, y0, t, cfg)
                times = t.cpu().numpy()
            elif task == "classify":
                out = session.flow(y0, cfg, n_times=41)[..., :2]
                times = session._times(41).cpu().numpy()
            else:
                t = torch.linspace(session.t1, 0.0, CNF_PATH_TIMES, dtype=dtype,
                                   device=session.device)
                out = odesolve(session.func, y0, t, cfg).flip(0)
                times = t.flip(0).cpu().numpy()
    return np.ascontiguousarray(out.cpu().numpy().transpose(1, 0, 2)), times.astype(np.float32)


def user_paths(session: ODESession, task: str, starts: list, key: tuple) -> UserPaths:
    """Trajectories from the user's start points; a solve that fails within the settings
    gives ``error`` and no paths."""
    paths, times, error = np.zeros((0, 2, 2), np.float32), np.zeros(2, np.float32), ""
    if starts:
        try:
            paths, times = _solve_paths(session, task, np.asarray(starts))
        except SOLVE_ERRORS as exc:
            error = str(exc).split("\n")[0]
    return UserPaths(key=key, task=task, starts=tuple(tuple(s) for s in starts), paths=paths,
                     times=times, error=error)


def ode_result(session: ODESession, task: str, starts: list, key: tuple) -> ODEResult:
    """Everything the tab draws, off the GUI thread: the task's trace, trajectories on a
    time grid, the vector field at those times, the solver's steps and your own start
    points' trajectories. A solve that fails within the settings (the NFE cap, an
    underflow in dt) gives ``display_error`` instead of a trace."""
    t_end = float(session.t_np[-1]) if task == "spiral" else float(session.t1)
    out: dict = {"task": task, "key": key, "step": session.step, "interval": (0.0, t_end)}
    try:
        out["steps"] = session.solver_steps()
    except SOLVE_ERRORS as exc:
        out["steps"], out["steps_error"] = None, str(exc).split("\n")[0]
    try:
        tr, paths, times = _task_view(session, task, out)
    except SOLVE_ERRORS as exc:
        # nothing solved within the settings: the field (no solve needed) and a note
        out["display_error"] = str(exc).split("\n")[0]
        extent = session.default_extent()
        tr, paths = None, np.zeros((0, 2, 2), np.float32)
        times = np.linspace(0.0, t_end, 2, dtype=np.float32)
        out.update(extent=extent, task_extent=extent, true=np.zeros((0, 2), np.float32),
                   labels=np.zeros(0, np.int64), augment=getattr(session, "augment", 0))
    out["trace"], out["paths"], out["times"] = tr, paths, np.asarray(times, np.float32)
    out["fields"] = _fields(session, out["extent"], out["times"])
    out["extent_key"] = (key, tuple(round(v, 1) for v in out["extent"]))
    out["user"] = user_paths(session, task, starts, key)
    out["user_error"] = out["user"].error
    return ODEResult(**out)


def _task_view(session, task: str, out: dict):
    """The task's trace and the trajectories animated over it: (trace, paths, times);
    the interval, extents and the task's extras go into ``out``."""
    if task == "spiral":
        tr = session.trace()
        paths, times = _solve_paths(session, task, np.asarray(SPIRAL_STARTS))
        out.update(interval=(float(tr.t[0]), float(tr.t[-1])), true=tr.true,
                   extent=session.default_extent(), task_extent=session.default_extent())
    elif task == "classify":
        tr = session.trace(n_points=300, n_times=41, grid=80)
        paths = np.ascontiguousarray(tr.paths.transpose(1, 0, 2))
        times = tr.times
        corners = np.array(tr.extent).reshape(2, 2).T
        out.update(interval=(0.0, float(session.t1)), labels=tr.labels,
                   augment=tr.augment, extent=_bounds(paths, corners),
                   task_extent=tr.extent)
    else:
        tr = session.trace(n_times=9, n_samples=1000, grid=56)
        gen = torch.Generator().manual_seed(session.seed + 7)
        z = torch.randn(CNF_PATHS, 2, generator=gen).numpy()
        paths, times = _solve_paths(session, task, z)
        out.update(interval=(0.0, float(session.t1)), extent=tr.extent,
                   task_extent=tr.extent)
    return tr, paths, times
