"""Classifying two-class 2D data with an ODE block between an input layer (``augment``
zero coordinates appended: augmented neural ODEs) and a linear output layer. A flow of
the plane cannot pull one circle out of another (trajectories never cross); with one
extra dimension it can lift the inner disc out.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import torch
from torch import nn

from models.devices import device_for
from models.errors import InvalidParameterError
from models.ode.dynamics import ODEFunc, _seeded
from models.ode.options import CLASSIFY_DATA
from models.ode.sessions import ODESession
from models.ode.solver import SolverConfig, odesolve
from models.traces import ClassifierTrace

__all__ = ["make_classification", "ClassifierSession"]


def make_classification(name: str = "moons", n: int = 2000, seed: int = 0,
                        noise: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two-class 2D data, shuffled: (float32[n, 2], int64[n] labels 0/1), half each.

    * "moons": scikit-learn's make_moons centred: the upper moon (cos s, sin s) is class 0,
      the lower (1 − cos s, 0.5 − sin s) class 1, s ~ U[0, π], minus (0.5, 0.25); noise
      std 0.1 by default.
    * "circles": the outer circle of radius 1 is class 0, the inner of radius 0.5 class 1,
      angles uniform; noise std 0.05 by default.
    """
    if name not in CLASSIFY_DATA:
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
