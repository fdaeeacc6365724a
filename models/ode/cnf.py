"""A continuous normalizing flow (FFJORD) with the exact trace. Time runs data → base:
z(0) = x, z(t1) ~ N(0, I), and the instantaneous change of variables
``d log p(z(t))/dt = −tr ∂f/∂z`` gives

    log p(x) = log N(z(t1); 0, I) + ∫_0^{t1} tr(∂f/∂z(t)) dt.

Shapes:
    CNF state: (z [batch, 2], Δlogp [batch, 1]) with Δlogp(t) = −∫_0^t tr ∂f/∂z
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import torch

from models.devices import device_for
from models.errors import InvalidParameterError
from models.flows import densities
from models.ode.dynamics import CNFDynamics, ODEFunc, _seeded
from models.ode.sessions import ODESession
from models.ode.solver import SolverConfig, _config, odesolve
from models.traces import CNFTrace

__all__ = ["CNFSession"]

_LOG_2PI = math.log(2 * math.pi)


def _normal_logprob(z: torch.Tensor) -> torch.Tensor:
    return -0.5 * (z ** 2).sum(-1) - 0.5 * z.shape[-1] * _LOG_2PI


class CNFSession(ODESession):
    """A continuous normalizing flow (FFJORD) on a 2D density of ``models.flows.densities``.

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
