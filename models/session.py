"""The one training contract every session of ``models/`` follows.

A *session* owns a model (or several), their optimizers, the data it trains on and the
records of what happened (one loss per step, plus whatever the topic records). The GUI
trains it in a background thread by iterating ``train``, and reads or draws it from the
GUI thread at the same time, so:

* every training step runs under ``lock``; anyone else who runs the model (a trace for
  the screen, an evaluation, a device move) takes the same lock, and never sees
  half-updated weights;
* ``train(steps)`` is a generator of ``Progress``: stopping means no longer iterating, and
  calling it again resumes where the last run stopped;
* a step is *checked*: a non-finite loss or gradient never reaches the optimizer. The
  weights (and the optimizer's state: Adam's moments and step counts) go back to the last
  rollback point, the records are cut to it, and ``TrainingDivergedError`` says what
  happened, at which step, which weights came back and what to try;
* rollback points are cheap: a full copy of the weights and the optimizer's state is taken
  when the weights of a step gave a finite loss and finite gradients and at least
  ``snapshot_every`` steps have passed since the last copy (and once at construction).
  A divergence is therefore never reported without a rollback point, at most
  ``snapshot_every`` steps old. Set ``snapshot_every = 1`` to go back exactly one step;
* ``to(device)`` moves the models, the optimizers' state and the session's data
  (``_move_data``), under the lock; devices are named through ``device_for``, so an
  absent one reads the same everywhere.

A subclass builds its model(s) and optimizer(s), then calls ``_init_session``; it writes
``_train_step`` (one step, under the lock, returning a ``StepOutcome``) and keeps only
what is its own. It uses ``checked_step(loss)`` for the common case (one model, one
optimizer), or the pieces it is made of (``_check_loss``, ``_checked_backward``,
``_mark_good``) when a step is more than that. The pattern is nflows'
``distributions/base.py``: the public method checks its arguments and runs the loop,
the subclass's ``_method`` does the topic's work.

Example::

    class Regression(TrainingSession):
        def __init__(self, device="cpu"):
            self.model = torch.nn.Linear(3, 1)
            self.optimizer = adam(self.model.parameters(), lr=1e-2)
            self._init_session(device, lr=1e-2)
            self.x, self.y = torch.randn(64, 3), torch.randn(64, 1)

        def _train_step(self, run):
            loss = F.mse_loss(self.model(self.x), self.y)
            return StepOutcome(self.checked_step(loss))
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import torch

from models import checkpoint
from models.devices import device_for
from models.errors import InvalidParameterError, SessionFileError, TrainingDivergedError
from models.optim import Adam
from models.traces import Progress


@dataclass
class StepOutcome:
    """What one training step reports: its loss, metrics to add to ``Progress.metrics``,
    an optional trace for the screen, and ``stop`` to end the run early (a target met,
    patience run out)."""

    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    trace: object | None = None
    stop: bool = False


@dataclass(frozen=True)
class Run:
    """Where a call of ``train`` stands: passed to ``_train_step`` and ``_progress``."""

    start: int          # the session's step when the call began
    steps: int          # how many steps the call trains
    index: int          # 1-based number of this step within the call
    every: int          # report (full history, trace) every this many steps
    t0: float           # perf_counter() at the start of the call

    @property
    def last(self) -> bool:
        return self.index == self.steps

    @property
    def report(self) -> bool:
        """A reporting step: every ``every`` steps of the session (counted from its
        first step, not from this call, so a resumed run reports on the same steps),
        and the last one of the call."""
        return self.last or (self.every > 0 and (self.start + self.index) % self.every == 0)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def check_steps(steps, name: str = "steps") -> int:
    """``steps`` as an int ≥ 0, or ``InvalidParameterError``."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise InvalidParameterError(f"{name} must be a whole number ≥ 0, got {steps!r}.")
    return int(steps)


def check_lr(lr, name: str = "The learning rate") -> float:
    """``lr`` as a finite float > 0, or ``InvalidParameterError``."""
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating)) or not (
            math.isfinite(lr) and lr > 0):
        raise InvalidParameterError(f"{name} must be a number > 0, got {lr!r}.")
    return float(lr)


def finite(tensors) -> bool:
    """True when every tensor of ``tensors`` holds only finite values."""
    return all(bool(torch.isfinite(t).all()) for t in tensors)


def grad_norm(grads: list[torch.Tensor]) -> torch.Tensor:
    """The 2-norm of all of ``grads`` together (one device), as ``clip_grad_norm_``
    computes it: non-finite when any entry is."""
    if not grads:
        return torch.zeros(())
    return torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))


def adam(params, **kw) -> torch.optim.Adam:
    """The sessions' Adam: ``foreach=True``, one C++ loop over the parameters instead of
    Python's (on the CPU torch defaults to the Python loop; a RealNVP step takes 7 % less,
    ``benchmarks/bench_peers.py``). The same update, the same state; a session file saved
    by the other variant loads into it and keeps ``foreach``
    (``checkpoint.load_optimizer_state``). ``models.optim.Adam``: torch's, without
    importing ``torch._dynamo``."""
    return Adam(params, foreach=True, **kw)


def train_mode(module: torch.nn.Module) -> None:
    """``module.train()``, skipped when it is in training mode already: ``train()`` walks
    every submodule (0.7 ms a step for an 8-layer RealNVP). A part switched to eval mode
    for a display is switched back by the code that switched it."""
    if not module.training:
        module.train()


class SessionLock:
    """The session's lock, plus changes that must happen under it but must not wait for
    it: ``when_free(change)`` runs ``change`` holding the lock at once if it is free,
    else the holder runs it as it lets go (at the end of the step, trace or save that
    holds it), before anyone else runs the model.

    The GUI thread sets a learning rate or a batch size while a background trace of
    20,000 points through a flow, or a 20,000-px export, may hold the lock for seconds:
    waiting for it froze the window 14 s in the monkey's 2,000-action run. Changes run in
    the order they were asked for. Otherwise a plain ``threading.Lock``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[Callable[[], None]] = []
        self._pending_lock = threading.Lock()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        taken = self._lock.acquire(blocking, timeout)
        if taken:
            try:
                self._run_pending()
            except BaseException:
                self._lock.release()
                raise
        return taken

    def release(self) -> None:
        try:
            self._run_pending()
        finally:
            self._lock.release()
        self._drain_if_free()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def when_free(self, change: Callable[[], None]) -> None:
        """Run ``change`` under the lock now, or by the holder as it lets go; never
        blocks."""
        with self._pending_lock:
            self._pending.append(change)
        self._drain_if_free()

    def _drain_if_free(self) -> None:
        # a change queued while the holder was letting go: whoever finds the lock free
        # (the one who queued it, or the holder just after) runs it
        while True:
            with self._pending_lock:
                if not self._pending:
                    return
            if not self._lock.acquire(blocking=False):
                return
            try:
                self._run_pending()
            finally:
                self._lock.release()

    def _run_pending(self) -> None:
        while True:
            with self._pending_lock:
                if not self._pending:
                    return
                change = self._pending.pop(0)
            change()


class TrainingSession:
    """Lock, device, step counter, records, cheap rollback points, checked steps and the
    ``train`` generator shared by every session (see the module docstring)."""

    #: the word for one step in messages ("step", "epoch", "episode")
    unit = "step"
    #: a rollback point at most this many good steps old (see the module docstring)
    snapshot_every = 10
    #: the names ``Progress.metrics`` gives the rate of steps per second
    rate_names: tuple[str, ...] = ("steps_per_s",)

    lock: threading.Lock
    device: torch.device
    step: int
    lr: float
    losses: list[float]
    good_step: int
    good_state: list[dict]

    # -- set-up ------------------------------------------------------------------------------
    def _init_session(self, device: str | torch.device | None = None,
                      lr: float | None = None) -> None:
        """Call in a subclass's ``__init__`` once its model(s) and optimizer(s) exist (they
        are moved to ``device`` if it is given; else ``self.device`` must be set). The
        first rollback point is taken here."""
        if device is not None:
            self.device = device_for(device)
            for module, _ in self._pairs():
                module.to(self.device)
        if lr is not None:
            self.lr = lr
        self.lock = SessionLock()
        self.step = 0
        self.losses = []
        self.snapshots_taken = 0            # rollback points taken (the benchmark reads it)
        #: states put in by ``load_state``: a run begun before one stops, not training on
        self.loads = 0
        self.good_step = 0
        self.good_state = self._snapshot()

    def _pairs(self) -> list[tuple[torch.nn.Module, torch.optim.Optimizer]]:
        """The (model, optimizer) pairs trained together; one by default."""
        return [(self.model, self.optimizer)]

    def _records(self) -> list[list]:
        """The per-step lists cut back to ``good_step`` on a rollback."""
        return [self.losses]

    def _move_data(self, device: torch.device) -> None:
        """Move the session's own tensors (data, masks) to ``device``; under the lock."""

    # -- settings ----------------------------------------------------------------------------
    def to(self, device: str | torch.device):
        """Move models, optimizer state and data to ``device`` (``DeviceUnavailableError``
        if this machine does not have it, raised here; nothing moves then). Never waits
        for the lock: if a background trace holds it, the move is made before anything
        else runs the model (``SessionLock.when_free``; a device change waited 4.4 s)."""
        dev = device_for(device)
        self.lock.when_free(lambda: self._move_to(dev))
        return self

    def _move_to(self, dev: torch.device) -> None:
        """``to``'s work, under the lock."""
        for module, optimizer in self._pairs():
            module.to(dev)
            checkpoint.move_optimizer_state(optimizer, dev)
        # the rollback point follows too (it may stay unused for up to snapshot_every
        # steps, and must not keep a copy of everything on the device left behind)
        self.good_state = [checkpoint.move_snapshot(s, dev) for s in self.good_state]
        self._move_data(dev)
        self.device = dev

    def set_lr(self, lr: float) -> None:
        """A new learning rate for every optimizer, from the next step on (checked first).
        A later rollback keeps it. Never waits for the lock (``SessionLock.when_free``):
        the GUI thread calls it while a long trace may hold the lock."""
        lr = check_lr(lr)
        self.lock.when_free(lambda: self._apply_lr(lr))

    def _apply_lr(self, lr: float) -> None:
        """``set_lr`` with the lock already held (a subclass changing several settings
        at once between two steps)."""
        self.lr = lr
        for _, optimizer in self._pairs():
            for group in optimizer.param_groups:
                group["lr"] = lr

    # -- rollback points ------------------------------------------------------------------------
    def _snapshot(self) -> list[dict]:
        self.snapshots_taken += 1
        return [checkpoint.snapshot(m, o) for m, o in self._pairs()]

    def _mark_good(self, at: int | None = None) -> None:
        """The current weights gave a finite loss and finite gradients: make them the
        rollback point if the last one is ``snapshot_every`` steps old. ``at`` is the step
        they belong to (default: the current step, before its update). Under the lock."""
        at = self.step if at is None else at
        if at - self.good_step >= max(1, self.snapshot_every):
            self.good_state, self.good_step = self._snapshot(), at

    def _restore(self) -> None:
        """Back to the rollback point: weights, optimizer state (hyper-parameters set since
        are kept), step counter and records."""
        for (module, optimizer), state in zip(self._pairs(), self.good_state, strict=True):
            checkpoint.restore(module, optimizer, state)
        self.step = self.good_step
        for record in self._records():
            del record[self.good_step:]
        self._after_restore()

    def _after_restore(self) -> None:
        """Hook: refresh what depends on the weights (a cached metric) after a rollback."""

    # -- session files: everything needed to go on training elsewhere ----------------------------
    def save_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        """The session as ``(tensors, meta)``: weights, optimizer moments, random-generator
        states and records as CPU tensors; step, learning rate and the optimizers'
        hyper-parameters as JSON-able ``meta``. Under the lock (never half a step)."""
        with self.lock:
            tensors: dict[str, torch.Tensor] = {}
            optimizers = []
            for i, (module, optimizer) in enumerate(self._pairs()):
                for key, value in module.state_dict().items():
                    tensors[f"model{i}.{key}"] = value.detach().cpu().clone()
                sd = optimizer.state_dict()
                scalars = {}
                for pid, entry in sd["state"].items():
                    for key, value in entry.items():
                        if torch.is_tensor(value):
                            tensors[f"optim{i}.{pid}.{key}"] = value.detach().cpu().clone()
                        else:
                            scalars[f"{pid}.{key}"] = value
                optimizers.append({"param_groups": sd["param_groups"], "scalars": scalars})
            for j, record in enumerate(self._records()):
                ints = all(isinstance(v, int) and not isinstance(v, bool) for v in record)
                tensors[f"record{j}"] = torch.tensor(
                    record, dtype=torch.int64 if ints and record else torch.float64)
            numpy_rngs = {}
            for attr, value in sorted(vars(self).items()):
                if isinstance(value, torch.Generator):
                    tensors[f"rng.{attr}"] = value.get_state()
                elif isinstance(value, np.random.Generator):
                    numpy_rngs[attr] = value.bit_generator.state
            extra_tensors, extra = self._extra_state()
            tensors.update({f"extra.{k}": v.detach().cpu().clone()
                            for k, v in extra_tensors.items()})
            meta = {"kind": type(self).__name__, "step": self.step, "lr": self.lr,
                    "optimizers": optimizers, "numpy_rngs": numpy_rngs, "extra": extra,
                    "saved_on": str(self.device)}
        return tensors, meta

    def load_state(self, tensors: dict[str, torch.Tensor], meta: dict, name: str = "") -> None:
        """Put a state from ``save_state`` (maybe saved on another device) into this
        session, built with the same settings. Weights that do not fit this session's
        model raise ``SessionFileError`` naming them, before anything changes."""
        where = f"{name}: " if name else ""
        if meta.get("kind") not in (None, type(self).__name__):
            raise SessionFileError(f"{where}the saved session is a {meta.get('kind')}, not "
                                   f"a {type(self).__name__}.")
        with self.lock:
            pairs = self._pairs()
            states = []
            for i, (module, _) in enumerate(pairs):
                own = module.state_dict()
                saved = {k[len(f"model{i}."):]: v for k, v in tensors.items()
                         if k.startswith(f"model{i}.")}
                missing = sorted(set(own) - set(saved))
                unexpected = sorted(set(saved) - set(own))
                wrong = [f"{k} ({'×'.join(map(str, saved[k].shape)) or 'scalar'} in the file, "
                         f"{'×'.join(map(str, own[k].shape)) or 'scalar'} here)"
                         for k in own if k in saved and saved[k].shape != own[k].shape]
                if missing or unexpected or wrong:
                    parts = ([f"missing {', '.join(missing[:4])}"] if missing else []) + \
                        ([f"unknown {', '.join(unexpected[:4])}"] if unexpected else []) + \
                        ([f"wrong shapes: {'; '.join(wrong[:3])}"] if wrong else [])
                    raise SessionFileError(
                        f"{where}the saved weights do not fit the model its settings build "
                        f"({'; '.join(parts)}).")
                states.append(saved)
            optimizers = meta.get("optimizers", [])
            if len(optimizers) != len(pairs):
                raise SessionFileError(f"{where}the file holds {len(optimizers)} optimizer "
                                       f"state(s); this model has {len(pairs)}.")
            for i, (_, optimizer) in enumerate(pairs):
                groups = optimizers[i].get("param_groups", [])
                own_groups = optimizer.state_dict()["param_groups"]
                if [len(g.get("params", ())) for g in groups] != \
                        [len(g["params"]) for g in own_groups]:
                    raise SessionFileError(f"{where}the saved optimizer state does not fit "
                                           "this model's parameters.")
            self._check_saved_numbers(tensors, meta, optimizers, where)
            # checked: now change the session
            for i, ((module, optimizer), saved) in enumerate(zip(pairs, states, strict=True)):
                module.load_state_dict(saved)
                state: dict[int, dict] = {}
                prefix = f"optim{i}."
                for key, value in tensors.items():
                    if key.startswith(prefix):
                        pid, field_name = key[len(prefix):].split(".", 1)
                        state.setdefault(int(pid), {})[field_name] = value
                for key, value in optimizers[i].get("scalars", {}).items():
                    pid, field_name = key.split(".", 1)
                    state.setdefault(int(pid), {})[field_name] = value
                checkpoint.load_optimizer_state(
                    optimizer, {"state": state, "param_groups": optimizers[i]["param_groups"]})
            for j, record in enumerate(self._records()):
                saved_record = tensors.get(f"record{j}")
                record[:] = [] if saved_record is None else saved_record.tolist()
            for attr, value in vars(self).items():
                if isinstance(value, torch.Generator) and f"rng.{attr}" in tensors:
                    value.set_state(tensors[f"rng.{attr}"].to(torch.uint8))
                elif isinstance(value, np.random.Generator) and \
                        attr in meta.get("numpy_rngs", {}):
                    value.bit_generator.state = meta["numpy_rngs"][attr]
            self.step = int(meta.get("step", len(self.losses)))
            self._apply_lr(float(meta.get("lr", self.lr)))
            self._load_extra_state({k[len("extra."):]: v for k, v in tensors.items()
                                    if k.startswith("extra.")}, meta.get("extra", {}))
            self.good_state, self.good_step = self._snapshot(), self.step
            self.loads += 1
        self._after_load()

    @staticmethod
    def _check_saved_numbers(tensors: dict[str, torch.Tensor], meta: dict, optimizers: list,
                             where: str) -> None:
        """What training would take from the file, checked as training would have left
        it: the learning rate a number > 0 (the optimizer's groups too: a file with lr
        −5 there trained with −5 while the box showed 0.001), every weight, optimizer
        moment and recorded curve finite (a session never keeps a non-finite step: it
        rolls back first). ``SessionFileError`` naming the first culprit."""
        try:
            check_lr(meta.get("lr", 1e-3), "the learning rate")
            for optimizer in optimizers:
                for group in optimizer.get("param_groups", []):
                    check_lr(group.get("lr"), "the optimizer's learning rate")
                    for key in ("eps", "weight_decay", "betas", "momentum"):
                        values = group.get(key, 0.0)
                        values = values if isinstance(values, (list, tuple)) else [values]
                        if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                   and math.isfinite(v) and v >= 0 for v in values):
                            raise InvalidParameterError(
                                f"the optimizer's {key} is {group.get(key)!r}")
        except InvalidParameterError as exc:
            raise SessionFileError(f"{where}refused: {exc}") from None
        for key, value in tensors.items():
            if key.startswith("rng.") or not torch.is_tensor(value) or \
                    not value.is_floating_point():
                continue
            if not bool(torch.isfinite(value).all()):
                what = ("the recorded curve" if key.startswith("record") else
                        "the optimizer state" if key.startswith("optim") else "the weights")
                raise SessionFileError(f"{where}refused: {what} {key} holds NaN or infinite "
                                       "values; training never keeps such a step.")

    def _extra_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        """Hook: a subclass's own state beyond weights, optimizers, records and random
        generators (tensors, JSON-able dict). Under the lock."""
        return {}, {}

    def _load_extra_state(self, tensors: dict[str, torch.Tensor], meta: dict) -> None:
        """Hook: put back what ``_extra_state`` saved. Under the lock."""

    def _after_load(self) -> None:
        """Hook, outside the lock: refresh what depends on the loaded weights."""

    # -- checked steps ------------------------------------------------------------------------
    def _diverged(self, what: str) -> TrainingDivergedError:
        """Roll back and return the error to raise; ``what`` says what became non-finite."""
        step = self.step + 1
        self._restore()
        return TrainingDivergedError(self._divergence_message(what, step))

    def _divergence_message(self, what: str, step: int) -> str:
        unit = self.unit
        return (f"Training diverged: {what} at {unit} {step}. The weights of {unit} "
                f"{self.good_step} were restored. Try a smaller learning rate "
                f"(now {self.lr:g}).")

    def _check_loss(self, loss: torch.Tensor) -> float:
        """The loss as a float; rolls back and raises if it is not finite."""
        value = float(loss.detach())
        if not math.isfinite(value):
            raise self._diverged(f"the loss became {value}")
        return value

    def _checked_backward(self, loss: torch.Tensor, params=None,
                          clip: float | None = None) -> torch.Tensor:
        """Zero the gradients, backpropagate ``loss``, clip the gradient norm to ``clip``
        (none by default) and return it; rolls back and raises if it is not finite.
        ``params``: the optimizers' parameters by default (what their step would use)."""
        pairs = self._pairs()
        params = [p for _, o in pairs for g in o.param_groups for p in g["params"]] \
            if params is None else list(params)
        for _, optimizer in pairs:
            optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if clip:
            norm = torch.nn.utils.clip_grad_norm_(params, clip)
        else:
            # the norm alone: clip_grad_norm_ with an infinite bound computes the same
            # norm, then multiplies every gradient by 1 (0.7 ms of a 10 ms RealNVP step)
            norm = grad_norm([p.grad for p in params if p.grad is not None])
        if not torch.isfinite(norm):
            raise self._diverged("a gradient became non-finite")
        return norm

    def checked_step(self, loss: torch.Tensor, clip: float | None = None) -> float:
        """One checked optimizer step on ``loss`` (one model, one optimizer): check the
        loss, backpropagate, check the gradients, maybe take a rollback point, update,
        count the step and record the loss. Under the lock."""
        value = self._check_loss(loss)
        self._checked_backward(loss, clip=clip)
        self._mark_good()
        self.optimizer.step()
        self.step += 1
        self.losses.append(value)
        return value

    # -- the training loop ------------------------------------------------------------------
    def _before_train(self, steps: int) -> None:
        """Hook: refuse to train (``InvalidParameterError``) before anything runs."""

    def _train_step(self, run: Run) -> StepOutcome:
        """One training step, under the lock: update the weights, count ``self.step``."""
        raise NotImplementedError

    def _after_step(self, outcome: StepOutcome, run: Run) -> None:
        """Hook, outside the lock: work that must not hold the GUI back (an evaluation
        that takes the lock itself)."""

    def _progress(self, outcome: StepOutcome, run: Run) -> Progress:
        """The ``Progress`` yielded after a step: the outcome's metrics plus ``seconds``
        and the rate (``rate_names``); the whole loss curve on reporting steps."""
        elapsed = run.elapsed()
        rate = (self.step - run.start) / max(elapsed, 1e-9)
        metrics = {**outcome.metrics, "seconds": elapsed,
                   **dict.fromkeys(self.rate_names, rate)}
        history = (np.asarray(self.losses, np.float32) if run.report
                   else np.zeros(0, np.float32))
        return Progress(step=self.step, total=run.start + run.steps, loss=outcome.loss,
                        metrics=metrics, history=history, trace=outcome.trace,
                        message=self._message())

    def _message(self) -> str:
        """Hook: the ``Progress.message`` of every step ("" by default)."""
        return ""

    def train(self, steps: int, every: int = 25) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each (the whole loss
        curve, and the topic's trace, every ``every`` steps and at the end). Stop by no
        longer iterating; call again to resume."""
        steps = check_steps(steps)
        every = check_steps(every, "every")
        self._before_train(steps)
        t0, start, loads = time.perf_counter(), self.step, self.loads
        for index in range(1, steps + 1):
            run = Run(start=start, steps=steps, index=index, every=every, t0=t0)
            with self.lock:
                if self.loads != loads:     # a session was opened into it: this run is over
                    return
                outcome = self._train_step(run)
            self._after_step(outcome, run)
            yield self._progress(outcome, run)
            if outcome.stop:
                return
