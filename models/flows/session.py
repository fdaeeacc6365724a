"""Training a flow: ``FlowSession`` (the flow, its Adam optimiser and its data)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator

import numpy as np
import torch

from models import checkpoint
from models.errors import InvalidParameterError, TrainingDivergedError
from models.flows import densities
from models.flows.flow import build_flow
from models.traces import Progress

__all__ = ["FlowSession"]


# -- training ------------------------------------------------------------------------------------
class FlowSession:
    """A flow, its Adam optimiser and its data: ``train`` yields ``Progress`` and can stop
    (the consumer stops iterating) and resume.

    The data is a density of ``models.flows.densities`` (a fresh pool of 100,000 points) or the
    user's ``points``; batches are drawn from it with a seeded generator. ``entropy`` is the
    NLL floor (the density's differential entropy; for user points the k-NN estimate on up
    to 10,000 of them).

    Divergence: before every step the current weights (and optimiser state) are the last
    good ones once they produced a finite loss and finite gradients; they are copied then
    (a few tens of thousands of floats). On a non-finite loss or gradient the layers are run
    one at a time on the batch to name the first whose output is non-finite, the last good
    weights are restored, and ``TrainingDivergedError`` is raised.
    """

    def __init__(self, kind: str = "realnvp", data: str = "two_moons",
                 points: np.ndarray | None = None, device: str | torch.device = "cpu",
                 seed: int = 0, lr: float = 1e-3, batch_size: int = 256, hidden_dim: int = 64,
                 num_flows: int = 8, actnorm: bool = False, clip_grad: float | None = None,
                 ) -> None:
        self.kind, self.device = kind, torch.device(device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.flow = build_flow(kind, hidden_dim=hidden_dim, num_flows=num_flows,
                                   actnorm=actnorm).to(self.device)
        self.optimizer = torch.optim.Adam(self.flow.parameters(), lr=lr)
        if points is not None:
            pool = np.asarray(points, np.float32)
            if pool.ndim != 2 or pool.shape[1] != 2 or len(pool) < 2:
                raise InvalidParameterError("Custom points must be an array of at least 2 rows"
                                            " of (x, y).")
            self.data = "custom"
            self.entropy = densities.knn_entropy(pool[:10_000]) if len(pool) > 10 else math.nan
        else:
            pool = densities.sample(data, 100_000, seed=seed + 1)
            self.data, self.entropy = data, densities.differential_entropy(data)
        self.pool = torch.as_tensor(pool)
        self.lr, self.batch_size, self.clip_grad, self.step = lr, batch_size, clip_grad, 0
        self.losses: list[float] = []
        self.gen = torch.Generator().manual_seed(seed)
        self.lock = threading.Lock()
        self.good_step = 0
        self.good_state = self._snapshot()

    def _snapshot(self) -> dict:
        return checkpoint.snapshot(self.flow, self.optimizer)

    def _restore(self) -> None:
        checkpoint.restore(self.flow, self.optimizer, self.good_state)
        self.step = self.good_step
        del self.losses[self.good_step:]

    def to(self, device: str | torch.device) -> FlowSession:
        dev = torch.device(device)
        with self.lock:
            self.flow.to(dev)
            checkpoint.move_optimizer_state(self.optimizer, dev)
            self.device = dev
        return self

    def batch(self) -> torch.Tensor:
        idx = torch.randint(0, len(self.pool), (self.batch_size,), generator=self.gen)
        return self.pool[idx].to(self.device)

    @torch.no_grad()
    def first_bad_layer(self, x: torch.Tensor) -> str:
        """'layer i (label)' for the first layer whose output or log-det is non-finite."""
        for i, layer in enumerate(self.flow.layers):
            if not all(torch.isfinite(p).all() for p in layer.parameters()):
                return f"layer {i + 1} ({layer.label}, its weights)"
            y = layer(x)
            if not (torch.isfinite(y).all() and
                    torch.isfinite(layer.log_abs_det_jacobian(x, y)).all()):
                return f"layer {i + 1} ({layer.label})"
            x = y
        return "no single layer (the loss or its gradient overflowed)"

    def _diverged(self, x: torch.Tensor, what: str) -> TrainingDivergedError:
        where, step = self.first_bad_layer(x), self.step + 1
        self._restore()
        return TrainingDivergedError(
            f"Training diverged: {what} at step {step}; the first non-finite output "
            f"came from {where}. The weights of step {self.good_step} were restored. Try a "
            f"smaller learning rate (now {self.lr:g}), gradient clipping, or more tightly "
            "bounded scales.")

    def train(self, steps: int, eval_every: int = 50) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each (the whole NLL
        curve every ``eval_every`` steps and at the end)."""
        t0, start = time.perf_counter(), self.step
        params = list(self.flow.parameters())
        for _ in range(steps):
            with self.lock:
                # in the step's lock: a display computed meanwhile switches to eval mode
                # under the same lock, so it never sees (or causes) a half-switched flow
                self.flow.train()
                x = self.batch()
                # 1. loss: mean negative log-likelihood, nats per point
                loss = -self.flow.log_prob(x).mean()
                value = loss.detach().item()
                if not math.isfinite(value):
                    raise self._diverged(x, f"the loss became {value}")
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                # 2. gradient norm (clipped if asked): non-finite if any gradient is
                norm = torch.nn.utils.clip_grad_norm_(params, self.clip_grad or math.inf)
                if not torch.isfinite(norm):
                    raise self._diverged(x, "a gradient became non-finite")
                # 3. these weights gave a finite loss and gradient: they are the good ones
                self.good_state, self.good_step = self._snapshot(), self.step
                self.optimizer.step()
                self.step += 1
            self.losses.append(value)
            last = self.step - start == steps
            elapsed = time.perf_counter() - t0
            yield Progress(step=self.step, total=start + steps, loss=value,
                           metrics={"nll": value, "entropy": self.entropy,
                                    "seconds": elapsed,
                                    "steps_per_s": (self.step - start) / max(elapsed, 1e-9)},
                           history=np.asarray(self.losses, np.float32)
                           if self.step % eval_every == 0 or last else np.zeros(0, np.float32))
