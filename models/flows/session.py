"""Training a flow: ``FlowSession`` (the flow, its Adam optimiser and its data) on the one
training contract of ``models.session``."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch

from models.errors import DegenerateDataError, SessionFileError, TrainingDivergedError
from models.flows import densities
from models.flows.flow import HIDDEN, NUM_FLOWS, build_flow
from models.flows.layers import CouplingLayer
from models.flows.options import RANGES
from models.flows.points import UNIT_SCALE, check_points, data_scale, point_statistics
from models.session import Run, StepOutcome, TrainingSession, adam, check_lr, train_mode
from models.traces import Progress

__all__ = ["FlowSession", "UNIT_SCALE"]


class FlowSession(TrainingSession):
    """A flow, its Adam optimiser and its data: ``train`` yields ``Progress`` and can stop
    (the consumer stops iterating) and resume.

    The data is a density of ``models.flows.densities`` (a fresh pool of 100,000 points) or the
    user's ``points``; batches are drawn from it with a seeded generator. ``entropy`` is the
    NLL floor (the density's differential entropy; for user points the k-NN estimate on up
    to 10,000 of them).

    Divergence (``TrainingSession``'s checked step): a non-finite loss or gradient never
    reaches the optimiser. The layers are then run one at a time on the batch to name the
    first whose output is non-finite, the weights (and optimiser state) of the last
    rollback point are restored, and ``TrainingDivergedError`` is raised.
    """

    def __init__(self, kind: str = "realnvp", data: str = "two_moons",
                 points: np.ndarray | None = None, device: str | torch.device = "cpu",
                 seed: int = 0, lr: float = RANGES["lr"].default,
                 batch_size: int = int(RANGES["batch"].default), hidden_dim: int = HIDDEN,
                 num_flows: int = NUM_FLOWS, actnorm: bool = False,
                 clip_grad: float | None = None,
                 statistics: tuple[str | None, float] | None = None) -> None:
        self.kind = kind
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.flow = build_flow(kind, hidden_dim=hidden_dim, num_flows=num_flows,
                                   actnorm=actnorm)
        self.optimizer = adam(self.flow.parameters(), lr=lr)
        #: why the data cannot be trained on (``points.spread_problem``), or None;
        #: ``train`` raises ``DegenerateDataError`` with it before the first step
        self.data_problem: str | None = None
        if points is not None:
            pool = check_points(points)     # InvalidParameterError: what is wrong
            self.data = "custom"
            # ``statistics``: point_statistics of these points, if known already
            self.data_problem, self.entropy = (statistics if statistics is not None else
                                               point_statistics(pool))
        else:
            pool = densities.sample(data, 100_000, seed=seed + 1)
            self.data, self.entropy = data, densities.differential_entropy(data)
        self.pool = torch.as_tensor(pool)       # stays on the CPU; batches are moved
        self.batch_size, self.clip_grad = batch_size, clip_grad
        self.gen = torch.Generator().manual_seed(seed)
        self._x: torch.Tensor | None = None     # the batch of the step that runs
        self._where = ""                        # the first bad layer of a divergence
        self._init_session(device, lr=lr)

    def _pairs(self) -> list[tuple[torch.nn.Module, torch.optim.Optimizer]]:
        return [(self.flow, self.optimizer)]

    def set_options(self, lr: float, batch_size: int, clip_grad: float | None) -> None:
        """Learning rate, batch size and gradient clipping together, from the next step on
        (one lock: no step runs with half of them changed)."""
        lr = check_lr(lr)
        batch_size = int(batch_size)

        def change() -> None:
            self._apply_lr(lr)
            self.batch_size, self.clip_grad = batch_size, clip_grad

        self.lock.when_free(change)     # never waits: a long trace may hold the lock

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

    def _diverged(self, what: str) -> TrainingDivergedError:
        # the layer is named before the rollback: after it the weights are finite again
        self._where = self.first_bad_layer(self._x)
        return super()._diverged(what)

    def data_scale(self) -> float:
        """The data's largest absolute coordinate after centring (about 3 for the toy
        densities)."""
        return data_scale(self.pool.numpy())

    def _divergence_message(self, what: str, step: int) -> str:
        head = (f"Training diverged: {what} at step {step}; the first non-finite output "
                f"came from {self._where}. The weights of step {self.good_step} were "
                "restored. ")
        scale = self.data_scale()
        if not UNIT_SCALE[0] <= scale <= UNIT_SCALE[1]:
            # a smaller learning rate cannot help: the first step's log-likelihood of such
            # points under N(0, I) already overflows float32
            return head + (f"The data reach {scale:.3g} from their mean, far from the unit "
                           "scale the flow starts at: standardise the data (subtract the "
                           "mean, divide by the standard deviation of each coordinate).")
        return head + (f"Try a smaller learning rate (now {self.lr:g}), gradient clipping, "
                       "or more tightly bounded scales.")

    def load_state(self, tensors: dict[str, torch.Tensor], meta: dict, name: str = "") -> None:
        """``TrainingSession.load_state``, and sessions saved before issue 36: their
        coupling layers have no ``log_scale_bound`` (their log-scale was scale · tanh);
        they are given 0, which keeps that tanh, so they open as they were trained. A bound
        below 0 is refused before anything changes (NaN and ±inf as any weight is)."""
        where = f"{name}: " if name else ""
        tensors = dict(tensors)
        for i, layer in enumerate(self.flow.layers):
            if not isinstance(layer, CouplingLayer):
                continue
            key, old = f"model0.layers.{i}.log_scale_bound", f"model0.layers.{i}.scale"
            if key not in tensors and old in tensors:
                tensors[key] = torch.tensor(0.0)          # saved before the soft clip
            bound = tensors.get(key)        # NaN, ±inf: refused as any weight is
            if bound is not None and torch.is_tensor(bound) and bound.numel() == 1 and \
                    bool((bound < 0).all()):
                raise SessionFileError(f"{where}refused: {key} is {float(bound):g}; the "
                                       "bound of a coupling layer's log-scale is ≥ 0.")
        super().load_state(tensors, meta, name)

    def _train_step(self, run: Run) -> StepOutcome:
        # in the step's lock: a display computed meanwhile switches to eval mode under the
        # same lock, so it never sees (or causes) a half-switched flow
        train_mode(self.flow)
        self._x = x = self.batch()
        # 1. loss: mean negative log-likelihood, nats per point; 2. its gradient (clipped if
        # asked), both checked; 3. the Adam step
        value = self.checked_step(-self.flow.log_prob(x).mean(), clip=self.clip_grad)
        return StepOutcome(value, {"nll": value, "entropy": self.entropy})

    def train(self, steps: int, eval_every: int = 50) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each (the whole NLL
        curve every ``eval_every`` steps and at the end). Raises ``DegenerateDataError``
        at once, before any step, for data with no spread (``data_problem``)."""
        if self.data_problem:
            raise DegenerateDataError(self.data_problem)
        return super().train(steps, every=eval_every)
