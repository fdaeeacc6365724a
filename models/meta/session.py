"""MAML, first-order MAML, Reptile and a pretrained baseline trained side by side on one
seeded stream of sinusoid tasks (Finn et al. 2017), on the one session base.

*Pretrained* is the baseline of the paper: one network regressed on all the points of
every task ("pretrained on all tasks"), fine-tuned at test time with the same SGD.
The methods themselves are in ``models.meta.maml``; the tasks in ``models.meta.tasks``.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import Tensor
from torch.func import vmap

from models.devices import device_for
from models.errors import InvalidParameterError, SessionFileError
from models.meta.checks import _int, _positive
from models.meta.maml import (
    SineNet,
    _column,
    adapt,
    adapt_batched,
    init_params,
    meta_gradient,
    mse,
    mse_and_grad,
    predict,
    reptile_direction,
)
from models.meta.options import AMPLITUDE, METHOD_LABELS, METHODS
from models.meta.tasks import batch_points, eval_points, one_test_task
from models.session import Run, StepOutcome, TrainingSession, adam, finite
from models.traces import AdaptationTrace, MetaEvalTrace, MetaHistory, Progress

__all__ = ["MetaSession"]

#: test tasks adapted at once by ``evaluate``. The meta tab's evaluation of 600 tasks all
#: at once raised the resident size by 195 MB at its peak (every step's batched weights
#: and activations; freed, they stay in the process until the window trims them), in
#: 1.3-1.7 s; 150 at a time by 54 MB, in 1.6 s (one CPU thread, this 2-core machine)
EVAL_CHUNK = 150


class MetaSession(TrainingSession):
    """MAML, first-order MAML, Reptile and the pretrained baseline, trained side by side
    on one seeded stream of sinusoid tasks, from the same initial weights.

    Every step draws ONE meta-batch (``meta_batch`` tasks, K support + K query points each;
    batch s is a pure function of (seed, s, K, meta_batch): ``task_batch(s)``), and every
    enabled method consumes it:

    * ``maml`` / ``fomaml``: the meta-gradient of the query MSE after ``inner_steps`` SGD
      steps (``inner_lr``) on the support points, second or first order.
    * ``reptile``: ``reptile_inner_steps`` SGD steps (``inner_lr``) on all 2K points of
      each task; the pseudo-gradient θ − mean θ' (Reptile has no support/query split).
    * ``pretrained``: the gradient of the plain MSE on all 2K points of every task.

    Each method's (pseudo-)gradient goes to its own Adam (``meta_lr``), as in the MAML
    paper (Adam, 1e-3) and as Nichol et al. suggest for Reptile ("treat θ − θ' as a
    gradient and plug it into Adam"), so the four differ only in the direction they follow.

    ``losses[m][s]`` is the same number for every method: the mean query MSE after
    ``inner_steps`` steps on the support points of batch s (MAML's objective), so the
    curves are comparable; for Reptile and the pretrained net it is computed on the side
    and not counted in ``seconds[m]`` (each method's own training time).

    Defaults: the paper's K = 10, α = 0.01, one inner step, meta-batch 25, Adam 1e-3.
    Reptile takes 5 inner steps: with 1 it is the pretrained baseline (one SGD step on the
    task's MSE, averaged over the tasks, is the joint-training gradient), and 5 steps of
    0.01 on 20 points are where it meta-learns within a few thousand steps.

    Divergence: once the weights of every method gave a finite loss and (pseudo-)gradient
    in a step, they are good; every ``snapshot_every`` good steps they and the Adam states
    are copied (4 × 1,761 weights) as the rollback point (``TrainingSession``). On a
    non-finite value all methods go back to it, ``step`` and ``losses`` too, and
    ``TrainingDivergedError`` names the method and the step.
    """

    losses: dict[str, list[float]]      # one list per method (the base's is one list)

    def __init__(self, k: int = 10, inner_lr: float = 0.01, inner_steps: int = 1,
                 meta_batch: int = 25, meta_lr: float = 1e-3, hidden: int = 40,
                 methods: Sequence[str] = METHODS, seed: int = 0,
                 device: str | torch.device = "cpu", reptile_inner_steps: int = 5) -> None:
        methods = tuple(methods)
        unknown = [m for m in methods if m not in METHODS]
        if unknown or not methods or len(set(methods)) != len(methods):
            raise InvalidParameterError(f"methods must be distinct names among "
                                        f"{', '.join(METHODS)}, got {methods!r}.")
        self.methods = methods
        self.hidden = _int("hidden", hidden, 1, 4096)
        self.seed = int(seed)
        self.device = device_for(device)
        self.k, self.inner_lr, self.inner_steps = 10, 0.01, 1
        self.meta_batch, self.meta_lr, self.reptile_inner_steps = 25, 1e-3, 5
        self._apply(dict(k=k, inner_lr=inner_lr, inner_steps=inner_steps, meta_batch=meta_batch,
                         meta_lr=meta_lr, reptile_inner_steps=reptile_inner_steps))
        init = init_params(self.hidden, seed=self.seed)
        self.nets: dict[str, SineNet] = {}
        self.optimizers: dict[str, torch.optim.Adam] = {}
        for m in self.methods:
            net = SineNet(self.hidden)
            net.load_state_dict(init)
            self.nets[m] = net.to(self.device)
            self.optimizers[m] = adam(net.parameters(), lr=self.meta_lr)
        self.params: dict[str, dict[str, Tensor]] = {
            m: dict(net.named_parameters()) for m, net in self.nets.items()}
        self._init_session()
        self.losses = {m: [] for m in self.methods}
        self.seconds: dict[str, float] = {m: 0.0 for m in self.methods}

    def _pairs(self) -> list[tuple[SineNet, torch.optim.Optimizer]]:
        return [(self.nets[m], self.optimizers[m]) for m in self.methods]

    def _records(self) -> list[list]:
        return [self.losses[m] for m in self.methods]

    def _move_data(self, device: torch.device) -> None:
        # the weights dicts name the moved parameters (a move may replace the tensors)
        self.params = {m: dict(net.named_parameters()) for m, net in self.nets.items()}

    @property
    def lr(self) -> float:
        """The meta learning rate (the base's ``lr``: ``set_lr`` and the messages)."""
        return self.meta_lr

    @lr.setter
    def lr(self, value: float) -> None:
        self.meta_lr = value

    # -- session files -----------------------------------------------------------------------
    def _extra_state(self) -> tuple[dict[str, Tensor], dict]:
        return {}, {"seed": self.seed, "methods": list(self.methods),
                    "seconds": {m: float(v) for m, v in self.seconds.items()}}

    def load_state(self, tensors: dict[str, Tensor], meta: dict, name: str = "") -> None:
        """``TrainingSession.load_state`` plus the task stream's seed and each method's
        training time; a state of other methods, or a malformed seed or time, is refused
        (``SessionFileError``) before anything changes."""
        where = f"{name}: " if name else ""
        extra = meta.get("extra", {})
        if not isinstance(extra, dict):
            raise SessionFileError(f"{where}the meta-learners' saved state is malformed.")
        methods = extra.get("methods", list(self.methods))
        if not isinstance(methods, list) or methods != list(self.methods):
            raise SessionFileError(f"{where}the file holds the meta-learners {methods!r}; "
                                   f"this session trains {list(self.methods)!r}.")
        seed, seconds = extra.get("seed", self.seed), extra.get("seconds", {})
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise SessionFileError(f"{where}the task stream's seed {seed!r} is not a whole "
                                   "number ≥ 0.")
        if not isinstance(seconds, dict) or set(seconds) - set(self.methods) or any(
                isinstance(v, bool) or not isinstance(v, (int, float)) or
                not math.isfinite(v) or v < 0 for v in seconds.values()):
            raise SessionFileError(f"{where}the meta-learners' training times are "
                                   "malformed.")
        super().load_state(tensors, meta, name)

    def _load_extra_state(self, tensors: dict[str, Tensor], meta: dict) -> None:
        self.seed = int(meta.get("seed", self.seed))
        seconds = meta.get("seconds", {})
        self.seconds = {m: float(seconds.get(m, 0.0)) for m in self.methods}

    # -- options -----------------------------------------------------------------------------
    def _apply(self, kw: dict) -> None:
        for name, v in self._checked(kw).items():
            setattr(self, name, v)

    @staticmethod
    def _checked(kw: dict) -> dict:
        """The options ``kw`` checked (all of them, before any is used)."""
        checks = {"k": lambda v: _int("K", v, 1, 1000),
                  "inner_lr": lambda v: _positive("The inner learning rate", v),
                  "inner_steps": lambda v: _int("The number of inner steps", v, 0, 100),
                  "meta_batch": lambda v: _int("The meta batch size", v, 1, 10_000),
                  "meta_lr": lambda v: _positive("The meta learning rate", v),
                  "reptile_inner_steps":
                      lambda v: _int("Reptile's number of inner steps", v, 1, 100)}
        unknown = sorted(set(kw) - set(checks))
        if unknown:
            raise InvalidParameterError(f"Unknown option(s) {', '.join(unknown)} (choose from "
                                        f"{', '.join(checks)}).")
        return {name: checks[name](v) for name, v in kw.items()}

    def set_options(self, **kw) -> None:
        """Change ``k``, ``inner_lr``, ``inner_steps``, ``meta_batch``, ``meta_lr`` or
        ``reptile_inner_steps``; checked at once (``InvalidParameterError``, nothing
        changed), applied from the next step. Never waits for a running step: the change
        is made under the lock now, or by the training thread as it lets go."""
        values = self._checked(kw)

        def change() -> None:
            for name, v in values.items():
                setattr(self, name, v)
            for opt in self.optimizers.values():
                for group in opt.param_groups:
                    group["lr"] = self.meta_lr

        self.lock.when_free(change)

    # -- the task stream ---------------------------------------------------------------------
    def task_batch(self, step: int | None = None) -> dict[str, Tensor]:
        """Meta-batch number ``step`` (default: the next one) of the training stream:
        ``amplitude``, ``phase`` [T]; ``xs``, ``ys`` [T, K, 1] support; ``xq``, ``yq``
        [T, K, 1] query; on the session's device. Pure function of (seed, step, K, T)."""
        step = self.step if step is None else step
        amp, phase, x, y = batch_points(self.seed, step, self.meta_batch, self.k)

        def t(a):
            return torch.as_tensor(a[..., None], dtype=torch.float32).to(self.device)

        return {"amplitude": torch.as_tensor(amp), "phase": torch.as_tensor(phase),
                "xs": t(x[:, :self.k]), "ys": t(y[:, :self.k]),
                "xq": t(x[:, self.k:]), "yq": t(y[:, self.k:])}

    @staticmethod
    def batch_digest(batch: dict[str, Tensor]) -> str:
        """A short hash of a batch's points (to check two consumers saw the same tasks)."""
        h = hashlib.sha1()
        for name in ("xs", "ys", "xq", "yq"):
            h.update(batch[name].detach().cpu().numpy().tobytes())
        return h.hexdigest()[:16]

    # -- one step ----------------------------------------------------------------------------
    def _direction(self, method: str, b: dict[str, Tensor]) -> tuple[dict[str, Tensor], float]:
        """(the (pseudo-)gradient the method's Adam follows, the method's own loss)."""
        p = self.params[method]
        if method in ("maml", "fomaml"):
            return meta_gradient(p, b["xs"], b["ys"], b["xq"], b["yq"], self.inner_lr,
                                 self.inner_steps, "second" if method == "maml" else "first")
        x_all = torch.cat([b["xs"], b["xq"]], 1)
        y_all = torch.cat([b["ys"], b["yq"]], 1)
        if method == "reptile":
            return reptile_direction(p, x_all, y_all, self.inner_lr, self.reptile_inner_steps)
        g, loss = mse_and_grad(p, x_all, y_all)   # pretrained: plain regression
        return g, float(loss)

    def _query_loss(self, method: str, b: dict[str, Tensor]) -> float:
        """The comparable loss: query MSE after the inner loop on the support points."""
        adapted = adapt_batched(self.params[method], b["xs"], b["ys"], self.inner_lr,
                                self.inner_steps)[-1]
        with torch.no_grad():
            return float(vmap(mse)(adapted, b["xq"], b["yq"]).mean())

    def _divergence_message(self, what: str, step: int) -> str:
        # ``what`` names the method ("MAML's loss became nan"); every method went back
        return (f"Training diverged: {what} at step {step}. The weights "
                f"of step {self.good_step} were restored for every method. Try a smaller meta "
                f"learning rate (now {self.meta_lr:g}) or inner learning rate (now "
                f"{self.inner_lr:g}), or fewer inner steps (now {self.inner_steps}"
                + (f", Reptile {self.reptile_inner_steps}" if "reptile" in self.methods else "")
                + ").")

    def train(self, steps: int, history_every: int = 25) -> Iterator[Progress]:
        """Train ``steps`` more meta-steps, yielding a ``Progress`` after each.

        ``metrics``: ``loss_<method>`` (see the class), ``seconds`` (since this call),
        ``steps_per_s``. ``loss`` is the mean of the methods' losses. Every
        ``history_every`` steps and at the end, ``history`` is that mean at every step so
        far and ``trace`` a ``MetaHistory`` with every method's curve.
        """
        return super().train(steps, every=history_every)

    def _train_step(self, run: Run) -> StepOutcome:
        batch = self.task_batch()
        directions, step_losses = {}, {}
        # 1. every method's direction on the same batch, nothing updated yet
        for m in self.methods:
            tm = time.perf_counter()
            g, own_loss = self._direction(m, batch)
            self.seconds[m] += time.perf_counter() - tm
            loss = own_loss if m in ("maml", "fomaml") else self._query_loss(m, batch)
            bad = next((v for v in (own_loss, loss) if not math.isfinite(v)), None)
            if bad is not None:
                raise self._diverged(f"{METHOD_LABELS[m]}'s loss became {bad}")
            if not finite(g.values()):
                raise self._diverged(
                    f"{METHOD_LABELS[m]}'s meta-gradient became non-finite" if m != "reptile"
                    else f"{METHOD_LABELS[m]}'s adapted weights became non-finite")
            directions[m], step_losses[m] = g, loss
        # 2. these weights gave finite values for every method: good (maybe a rollback point)
        self._mark_good()
        # 3. one Adam step per method
        for m in self.methods:
            tm = time.perf_counter()
            for name, p in self.params[m].items():
                p.grad = directions[m][name].detach().to(p.dtype)
            self.optimizers[m].step()
            self.seconds[m] += time.perf_counter() - tm
            self.losses[m].append(step_losses[m])
        self.step += 1
        trace = (MetaHistory(methods=self.methods,
                             losses=np.asarray(self._records(), np.float32))
                 if run.report else None)
        return StepOutcome(loss=float(np.mean(list(step_losses.values()))),
                           metrics={f"loss_{m}": v for m, v in step_losses.items()},
                           trace=trace)

    def _progress(self, outcome: StepOutcome, run: Run) -> Progress:
        """The base's ``Progress``, with ``history`` the mean of the methods' curves (taken
        under the lock with the step's ``MetaHistory``), as ``losses`` is a dict here."""
        elapsed = run.elapsed()
        metrics = {**outcome.metrics, "seconds": elapsed,
                   "steps_per_s": (self.step - run.start) / max(elapsed, 1e-9)}
        history = (outcome.trace.losses.mean(0) if outcome.trace is not None
                   else np.zeros(0, np.float32))
        return Progress(step=self.step, total=run.start + run.steps, loss=outcome.loss,
                        metrics=metrics, history=history, trace=outcome.trace)

    # -- using the meta-learned weights ------------------------------------------------------
    def _weights(self) -> tuple[dict[str, dict[str, Tensor]], int]:
        """Copies of every method's weights and the step they belong to, taken together."""
        with self.lock:
            return ({m: {k: v.detach().clone() for k, v in p.items()}
                     for m, p in self.params.items()}, self.step)

    def adapt_curves(self, x_support, y_support, x_grid, steps: int = 10,
                     inner_lr: float | None = None) -> AdaptationTrace:
        """Every method adapted from its meta-learned weights on the given support points
        (``steps`` SGD steps of ``inner_lr``, default the session's), and its prediction on
        ``x_grid`` after 0..steps steps. No support points: no adaptation (every step
        predicts as step 0). A few milliseconds; safe to call while training runs."""
        steps = _int("The number of adaptation steps", steps, 0, 1000)
        lr = self.inner_lr if inner_lr is None else _positive("The inner learning rate",
                                                               inner_lr)
        xs_np = np.array(x_support, np.float64).reshape(-1)   # copies: inputs may be frozen
        ys_np = np.array(y_support, np.float64).reshape(-1)
        grid = np.array(x_grid, np.float64).reshape(-1)
        if len(xs_np) != len(ys_np):
            raise InvalidParameterError(f"{len(xs_np)} support x values but {len(ys_np)} y "
                                        "values.")
        if not (np.isfinite(xs_np).all() and np.isfinite(ys_np).all()
                and np.isfinite(grid).all()):
            raise InvalidParameterError("Support points and grid must be finite numbers.")
        weights, step = self._weights()
        dev = next(iter(weights[self.methods[0]].values())).device
        xs = _column(xs_np, dev, torch.float32)
        ys = _column(ys_np, dev, torch.float32)
        xg = _column(grid, dev, torch.float32)
        preds = np.empty((len(self.methods), steps + 1, len(grid)), np.float32)
        for i, m in enumerate(self.methods):
            seq = (adapt(weights[m], xs, ys, lr, steps) if len(xs_np)
                   else [weights[m]] * (steps + 1))
            with torch.no_grad():
                out = torch.stack([predict(p, xg)[:, 0] for p in seq])
            preds[i] = out.cpu().numpy()
        return AdaptationTrace(x_grid=grid.astype(np.float32), predictions=preds,
                               methods=self.methods, x_support=xs_np.astype(np.float32),
                               y_support=ys_np.astype(np.float32), inner_lr=lr, steps=steps)

    def evaluate(self, n_tasks: int = 600, k: int | None = None, steps: int = 10,
                 amp_max: float = AMPLITUDE[1], seed: int = 1234,
                 inner_lr: float | None = None, chunk: int = EVAL_CHUNK) -> MetaEvalTrace:
        """Test tasks from their own seeded stream (amplitude U[0.1, amp_max]); each method
        adapts on K support points and is scored by the MSE on ``EVAL_POINTS`` points
        spread evenly over [−5, 5], after 0..steps steps. Mean over the tasks and the 95%
        half-width ``1.96·s/√n`` (s: the sample standard deviation, ddof = 1), the median,
        and every task's MSE. ``chunk`` tasks are adapted at once (the figures do not
        depend on it, to the bit)."""
        n_tasks = _int("The number of test tasks", n_tasks, 1, 1_000_000)
        k = self.k if k is None else _int("K", k, 1, 1000)
        steps = _int("The number of adaptation steps", steps, 0, 1000)
        amp_max = _positive("The largest amplitude", amp_max)
        if amp_max <= AMPLITUDE[0]:
            raise InvalidParameterError(f"The largest amplitude must exceed {AMPLITUDE[0]}.")
        lr = self.inner_lr if inner_lr is None else _positive("The inner learning rate",
                                                               inner_lr)
        x_s, y_s, x_e, y_e = eval_points(n_tasks, k, amp_max, seed)
        weights, step = self._weights()
        dev = next(iter(weights[self.methods[0]].values())).device

        def t(a):
            return torch.as_tensor(np.ascontiguousarray(a[..., None]), dtype=torch.float32,
                                   device=dev)

        per_task = np.empty((len(self.methods), steps + 1, n_tasks), np.float64)
        seconds = np.zeros(len(self.methods), np.float64)
        for i, m in enumerate(self.methods):
            t0 = time.perf_counter()
            for lo in range(0, n_tasks, chunk):
                sl = slice(lo, lo + chunk)
                xs, ys, xe, ye = t(x_s[sl]), t(y_s[sl]), t(x_e[sl]), t(y_e[sl])
                seq = adapt_batched(weights[m], xs, ys, lr, steps)
                with torch.no_grad():
                    errs = torch.stack([vmap(mse)(p, xe, ye) for p in seq])
                per_task[i, :, sl] = errs.double().cpu().numpy()
            seconds[i] = time.perf_counter() - t0
        mean = per_task.mean(-1)
        sd = per_task.std(-1, ddof=1) if n_tasks > 1 else np.zeros_like(mean)
        return MetaEvalTrace(methods=self.methods, steps=steps, mse=mean,
                             ci95=1.96 * sd / math.sqrt(n_tasks), n_tasks=n_tasks, k=k,
                             amp_max=amp_max, seconds=seconds, task_mse=per_task,
                             median=np.median(per_task, -1),
                             inner_lr=lr, seed=seed, step=step)

    def test_task(self, seed: int, k: int | None = None,
                  amp_max: float = AMPLITUDE[1]) -> dict:
        """One test task for the scrubbable view: ``amplitude``, ``phase``, ``x_support``,
        ``y_support`` (float32[K]) and the true curve ``x_grid``, ``y_grid`` (200 points)."""
        k = self.k if k is None else _int("K", k, 1, 1000)
        amp_max = _positive("The largest amplitude", amp_max)
        return one_test_task(seed, k, amp_max)

