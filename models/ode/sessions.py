"""What every neural-ODE task shares: ``ODESession``, the model, Adam, the solver
settings (which can change between steps), the training step and what it records, and
how an unstable solve is reported. The lock, the rollback points, ``to``, ``set_lr`` and
the ``train`` loop are the one training contract's (``models.session.TrainingSession``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import asdict, replace

import numpy as np
import torch
from torch import nn

from models.errors import InvalidParameterError, SessionFileError, TrainingDivergedError
from models.ode.diagnostics import compare_adjoint, vector_field
from models.ode.dynamics import ODEFunc
from models.ode.solver import (
    NFELimitExceeded,
    SolverConfig,
    _config,
    _Counted,
    _with,
    solver_steps,
)
from models.session import Run, StepOutcome, TrainingSession, adam, check_lr, finite, train_mode
from models.session_numbers import decode_number, encode_number
from models.traces import AdjointComparison, Progress, SolverSteps, VectorField

__all__ = ["ODESession"]


class ODESession(TrainingSession):
    """What every neural-ODE task shares: the model, Adam, the solver settings (which can
    change between steps), the training step and its rollback.

    ``train`` is a generator of ``Progress``, one per step; every step runs under
    ``lock`` (so does every trace), so ``set_solver``/``set_lr`` from another thread apply
    from the next step on. Per step it records the loss, ``nfe_forward`` (evaluations in
    the forward solve), ``nfe_backward`` (evaluations backpropagated through, or solved
    by the adjoint) and the wall time.

    Instability: torchdiffeq's "underflow in dt" (the adaptive step shrank to nothing),
    ``NFELimitExceeded`` and a non-finite loss, gradient or state restore the weights of
    the last rollback point (weights that gave a finite loss and gradient, with Adam's
    state, at most ``snapshot_every`` steps old), set ``last_instability`` ("underflow",
    "nfe" or "nan") and raise ``TrainingDivergedError`` saying what happened, at which
    step, which weights came back and what to try.
    """

    task = ""
    metric_name = ""
    #: the metric's share of training time is kept to about 1 / (1 + metric_budget): a
    #: reporting step evaluates it only once the steps since the last evaluation took
    #: ``metric_budget`` times as long as that evaluation (the spiral's whole trajectory
    #: costs 5-10 steps; every 25 steps it was 35-40 % of the time, issue 18)
    metric_budget = 20.0

    def __init__(self, model: nn.Module, func: ODEFunc, dynamics: _Counted, lr: float,
                 solver: SolverConfig | dict | None, device: torch.device, seed: int) -> None:
        self.model, self.func, self.dynamics = model, func, dynamics
        self.device = device
        self.model.to(device)
        self.solver = _config(solver)
        self.lr = check_lr(lr)
        self.optimizer = adam(self.model.parameters(), lr=self.lr)
        self.gen = torch.Generator().manual_seed(seed)
        self.seed = seed
        self.nfe_forward: list[int] = []
        self.nfe_backward: list[int] = []
        self.step_seconds: list[float] = []
        self.last_instability = ""
        self.last_metric = math.nan
        self.clip_grad: float | None = None
        self._metric_seconds = 0.0     # the last evaluation's time
        self._since_metric = 0.0       # seconds of training steps since it
        self._init_session()

    def _records(self) -> list[list]:
        return [self.losses, self.nfe_forward, self.nfe_backward, self.step_seconds]

    # -- settings ----------------------------------------------------------------------------
    def set_solver(self, **kw) -> SolverConfig:
        """Change method/rtol/atol/step_size/adjoint/max_nfe from the next step on
        (validated first: ``InvalidParameterError`` leaves the settings as they were)."""
        new = _with(self.solver, kw)
        with self.lock:
            self.solver = new
        return replace(new)

    # -- session files: the solver and the last evaluation (models/session.py) --------------
    def _extra_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        return {}, {"solver": asdict(self.solver), "last_metric": encode_number(self.last_metric),
                    "last_instability": self.last_instability,
                    "clip_grad": None if self.clip_grad is None else float(self.clip_grad)}

    @staticmethod
    def _checked_extra(extra, where: str) -> tuple[SolverConfig, float, str, float | None]:
        if not isinstance(extra, dict) or not isinstance(extra.get("solver"), dict):
            raise SessionFileError(f"{where}the ODE session's solver settings are missing.")
        try:
            solver = _config(extra["solver"])
        except InvalidParameterError as exc:
            raise SessionFileError(f"{where}the ODE session's solver cannot be used: "
                                   f"{exc}") from exc
        metric = decode_number(extra.get("last_metric", "nan"), "the last metric", where)
        instability = extra.get("last_instability", "")
        if instability not in ("", "underflow", "nfe", "nan"):
            raise SessionFileError(f"{where}unknown instability {instability!r}.")
        clip = extra.get("clip_grad")
        if clip is not None:
            clip = decode_number(clip, "the gradient clipping", where)
            if not (math.isfinite(clip) and clip > 0):
                raise SessionFileError(f"{where}the gradient clipping ({clip}) is not a "
                                       "number > 0.")
        return solver, metric, instability, clip

    def load_state(self, tensors: dict, meta: dict, name: str = "") -> None:
        self._checked_extra(meta.get("extra"), f"{name}: " if name else "")   # first
        super().load_state(tensors, meta, name)

    def _load_extra_state(self, tensors: dict, meta: dict) -> None:
        self.solver, self.last_metric, self.last_instability, self.clip_grad = \
            self._checked_extra(meta, "")

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

    # -- rollback --------------------------------------------------------------------------------
    def _after_restore(self) -> None:
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

    def _diverged(self, what: str, kind: str = "nan", cfg: SolverConfig | None = None,
                  ) -> TrainingDivergedError:
        """Roll back and return the error to raise. ``kind``: "underflow" (``what`` is
        torchdiffeq's message), "nfe" (``what``: "forward" or "backward", the pass that
        hit the cap) or "nan" (``what`` says what became non-finite; the base's checks of
        the loss and the gradients come here too). ``cfg``: the step's solver."""
        cfg = self.solver if cfg is None else cfg
        step = self.step + 1
        self._restore()
        self.last_instability = kind
        restored = f"The weights of step {self.good_step} were restored."
        if kind == "underflow":
            what = (f"the adaptive solver's step shrank below what float32 can resolve "
                    f"({what}): the learned dynamics became stiff")
            tips = (f"Try a smaller learning rate (now {self.lr:g}), looser tolerances (now "
                    f"rtol {cfg.rtol:g}, atol {cfg.atol:g}), or a fixed-step solver such as rk4.")
        elif kind == "nfe":
            solve = ("the adjoint's backward pass (its backward solves, one per output "
                     "interval, together)" if what == "backward" and cfg.adjoint
                     else "one solve")
            what = (f"the solver ({cfg.describe()}) needed more than {cfg.max_nfe} evaluations "
                    f"of f for {solve}: the learned dynamics became hard to integrate")
            tips = (f"Raise the cap (max_nfe, now {cfg.max_nfe}), loosen the tolerances, lower the "
                    f"learning rate (now {self.lr:g}), or use a fixed-step solver such as rk4.")
        else:
            tips = (f"Try a smaller learning rate (now {self.lr:g}), gradient clipping, or a "
                    "smaller fixed step (an explicit solver blows up when the step is too "
                    "large for the dynamics).")
        return TrainingDivergedError(f"Training stopped at step {step}: {what}. {restored} {tips}")

    # -- training ----------------------------------------------------------------------------
    def train(self, steps: int, eval_every: int = 25) -> Iterator[Progress]:
        """Train ``steps`` more steps, yielding a ``Progress`` after each: metrics "loss",
        "nfe_forward", "nfe_backward", "seconds" (since this call), "steps_per_s",
        "step_seconds" and the task's metric (re-evaluated at the end, at the first step
        while there is no value yet, and on the ``eval_every`` steps of the session when
        the time since the last evaluation allows, see ``metric_budget``; the last value
        otherwise);
        ``history`` (the loss curve) every ``eval_every`` steps and at the end."""
        return super().train(steps, every=eval_every)

    def _train_step(self, run: Run) -> StepOutcome:
        """One step under the lock: solve, backpropagate, check, update, record; the
        metric when ``_metric_due``."""
        t0 = time.perf_counter()
        cfg = replace(self.solver)
        value, nfe_f, nfe_b = self._solve_and_backpropagate(cfg)
        # 3. these weights gave a finite loss and gradient: a rollback point when one is due
        self._mark_good()
        try:
            self.optimizer.step()
        except RuntimeError as exc:   # e.g. lr · gradient overflowing float32
            raise self._diverged(f"the optimizer's update failed ({exc})", "nan", cfg) from exc
        if not finite(self.model.parameters()):
            raise self._diverged("the update made the weights non-finite", "nan", cfg)
        self.step += 1
        seconds = time.perf_counter() - t0     # the step itself, not the evaluation
        self.losses.append(value)
        self.nfe_forward.append(int(nfe_f))
        self.nfe_backward.append(int(nfe_b))
        self.step_seconds.append(seconds)
        self._since_metric += seconds
        if self._metric_due(run):
            t1 = time.perf_counter()
            self.last_metric = self._evaluate_safely()
            self._metric_seconds, self._since_metric = time.perf_counter() - t1, 0.0
        return StepOutcome(value, {"loss": value, "nfe_forward": float(nfe_f),
                                   "nfe_backward": float(nfe_b), "step_seconds": seconds,
                                   self.metric_name: self.last_metric})

    def _metric_due(self, run: Run) -> bool:
        """Evaluate the metric after this step: at the last step of a call, at the first
        while there is none yet, and at a reporting step once the training time since the
        last evaluation is ``metric_budget`` times that evaluation's."""
        if run.last or (run.index == 1 and not math.isfinite(self.last_metric)):
            return True
        return run.report and self._since_metric >= self.metric_budget * self._metric_seconds

    def _solve_and_backpropagate(self, cfg: SolverConfig) -> tuple[float, int, int]:
        """The loss of the next batch and its gradients, checked: (loss, NFE forward, NFE
        backward). A solver that gives up, or anything non-finite, rolls back and raises."""
        params = [p for g in self.optimizer.param_groups for p in g["params"]]
        dyn = self.dynamics
        train_mode(self.model)
        dyn.reset_counts()
        backward = False
        try:
            # 1. forward solve and loss
            loss = self._loss(self._next_batch(), cfg)
            nfe_f = dyn.nfe
            value = self._check_loss(loss)
            # 2. backward (direct: through every solver stage; adjoint: a solve
            #    backwards in time, capped like the forward one)
            dyn.start_solve()
            backward = True
            self._checked_backward(loss, params, clip=self.clip_grad)
            nfe_b = dyn.nfe_backward
        except NFELimitExceeded as exc:
            raise self._diverged("backward" if backward else "forward", "nfe", cfg) from exc
        except AssertionError as exc:
            msg = str(exc)
            if "underflow in dt" in msg and not finite(self.model.parameters()):
                raise self._diverged("the weights became non-finite", "nan", cfg) from exc
            if "underflow in dt" in msg:
                raise self._diverged(msg.split("\n")[0], "underflow", cfg) from exc
            if "non-finite values in state" in msg:
                raise self._diverged("the ODE state became non-finite", "nan", cfg) from exc
            raise
        return value, nfe_f, nfe_b

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
        """``models.ode.diagnostics.compare_adjoint`` on this session: direct against
        adjoint backpropagation on one fixed batch (weights and optimizer untouched)."""
        return compare_adjoint(self, repeats, solver)
