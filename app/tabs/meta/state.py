"""The meta-learning tab's part of a session file (File → Save session… / Open session…).

The tab shows two training sessions, both kept: ``meta`` (``MetaSession``: MAML,
first-order MAML, Reptile and the pretrained baseline, each with its weights, Adam state
and loss curve) and ``proto`` (``ProtoSession``: the prototypical network, its losses
and accuracies). Beyond the controls (which hold the test task's seed, the episode seed,
the adaptation step shown and the methods shown), a session keeps:

* the support points the student placed, dragged or removed (``support``,
  float32[n, 2]; absent when the task's own K points are shown; n may be 0);
* the evaluation on the test tasks shown in the MSE view (``evaluation`` and the
  ``eval_*`` arrays), as it was: it may be of an earlier meta-step than the weights,
  and running it again would take seconds and could differ in the last bits on
  another device.

The adapted curves and the episode are computed again from the weights, which gives
the same arrays (both are deterministic functions of the weights, the seeds and the
points). Everything is checked before the tab changes; a refusal names the file.
"""

from __future__ import annotations

import math

import numpy as np

from app.tabs.meta.controls import MAX_SUPPORT
from models.errors import SessionFileError
from models.meta.options import AMPLITUDE
from models.traces.meta import MetaEvalTrace

#: the sessions the tab shows, by the name a session file gives them
SESSIONS = ("meta", "proto")
#: the evaluation's arrays, saved as ``eval_<name>``
EVAL_ARRAYS = ("mse", "ci95", "median", "task_mse", "seconds")
X_RANGE = (-5.0, 5.0)       # where the task's inputs lie (and a support point may be)


def _whole(value, what: str, lo: int, hi: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise SessionFileError(f"{name}: the meta tab's {what} must be a whole number from "
                               f"{lo} to {hi}, got {value!r}.")
    return value


def _number(value, what: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value):
        raise SessionFileError(f"{name}: the meta tab's {what} must be a finite number, got "
                               f"{value!r}.")
    return float(value)


def check_support(points, name: str) -> np.ndarray | None:
    """Saved support points as float32[n, 2] (0 ≤ n ≤ ``MAX_SUPPORT``, finite, x within
    the task's range), or ``SessionFileError``."""
    if points is None:
        return None
    pts = np.asarray(points)
    where = f"{name}: the meta tab's support points"
    if pts.dtype.kind not in "fiu":
        raise SessionFileError(f"{where} must be numbers, got {pts.dtype}.")
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise SessionFileError(f"{where} must be rows of (x, y), got shape {pts.shape}.")
    if len(pts) > MAX_SUPPORT:
        raise SessionFileError(f"{where}: {len(pts)} of them; at most {MAX_SUPPORT}.")
    with np.errstate(over="ignore", invalid="ignore"):
        pts = np.array(pts, dtype=np.float32)
    if not np.isfinite(pts).all():
        raise SessionFileError(f"{where} must be finite numbers (NaN or infinity found).")
    if len(pts) and not (X_RANGE[0] <= pts[:, 0].min() and pts[:, 0].max() <= X_RANGE[1]):
        raise SessionFileError(f"{where} must have x from {X_RANGE[0]:g} to {X_RANGE[1]:g}.")
    return pts


def check_evaluation(ev, arrays: dict, methods: tuple[str, ...],
                     name: str) -> MetaEvalTrace | None:
    """A saved evaluation as the ``MetaEvalTrace`` the MSE view draws, or
    ``SessionFileError``. Its MSE may hold NaN or infinity: an inner loop that diverged
    on a task (the view leaves such steps out)."""
    if ev is None:
        return None
    if not isinstance(ev, dict):
        raise SessionFileError(f"{name}: the meta tab's evaluation is malformed.")
    if ev.get("methods") != list(methods):
        raise SessionFileError(f"{name}: the meta tab's evaluation is of the methods "
                               f"{ev.get('methods')!r}, not {list(methods)!r}.")
    steps = _whole(ev.get("steps"), "evaluation's number of steps", 0, 1000, name)
    n_tasks = _whole(ev.get("n_tasks"), "evaluation's number of tasks", 1, 1_000_000, name)
    k = _whole(ev.get("k"), "evaluation's K", 1, 1000, name)
    step = _whole(ev.get("step"), "evaluation's meta-step", 0, 2 ** 62, name)
    seed = _whole(ev.get("seed"), "evaluation's seed", 0, 2 ** 62, name)
    amp_max = _number(ev.get("amp_max"), "evaluation's largest amplitude", name)
    if amp_max <= AMPLITUDE[0]:
        raise SessionFileError(f"{name}: the meta tab's evaluation has a largest amplitude "
                               f"{amp_max:g} ≤ {AMPLITUDE[0]:g}.")
    inner_lr = ev.get("inner_lr")
    inner_lr = math.nan if inner_lr is None else _number(inner_lr, "evaluation's inner "
                                                         "learning rate", name)
    m = len(methods)
    shapes = {"mse": (m, steps + 1), "ci95": (m, steps + 1), "median": (m, steps + 1),
              "task_mse": (m, steps + 1, n_tasks), "seconds": (m,)}
    got = {}
    for key, shape in shapes.items():
        a = arrays.get(f"eval_{key}")
        if a is None:
            raise SessionFileError(f"{name}: the meta tab's evaluation has no {key}.")
        if a.dtype.kind != "f" or a.shape != shape:
            raise SessionFileError(f"{name}: the meta tab's evaluation {key} must be "
                                   f"float[{', '.join(map(str, shape))}], got {a.dtype}"
                                   f"{list(a.shape)}.")
        got[key] = a
    if not (np.isfinite(got["seconds"]).all() and (got["seconds"] >= 0).all()):
        raise SessionFileError(f"{name}: the meta tab's evaluation times must be finite "
                               "and ≥ 0.")
    return MetaEvalTrace(methods=tuple(methods), steps=steps, mse=got["mse"],
                         ci95=got["ci95"], n_tasks=n_tasks, k=k, amp_max=amp_max,
                         seconds=got["seconds"], task_mse=got["task_mse"],
                         median=got["median"], inner_lr=inner_lr, seed=seed, step=step)


class MetaSessionFile:
    """Mixed into ``MetaTab`` (which has ``session``, ``proto``, ``support``,
    ``eval_result``, ``result``, ``evaluator``, ``_make_sessions()``, ``evaluate()``,
    ``_show_evaluation()`` and ``_show_losses()``)."""

    _opened: dict | None = None

    def saved_sessions(self) -> dict[str, object]:
        return {n: s for n, s in zip(SESSIONS, (self.session, self.proto), strict=True)
                if s is not None}

    def session_named(self, name: str):
        """A fresh session ``name`` with the settings now, for the saved state (a step
        the stopped job may still take goes to the old one)."""
        if name not in SESSIONS:
            raise SessionFileError(f"the meta tab has no training session {name!r} (it has "
                                   f"{', '.join(SESSIONS)}).")
        if name == "meta":
            self.session = None
        else:
            self.proto = None
        self._make_sessions()
        return self.session if name == "meta" else self.proto

    def session_inputs(self) -> tuple[dict, dict]:
        data: dict = {}
        arrays: dict[str, np.ndarray] = {}
        if self.support is not None:
            arrays["support"] = np.ascontiguousarray(self.support, np.float32)
        e = self.eval_result
        if e is not None:
            data["evaluation"] = {
                "methods": list(e.methods), "steps": e.steps, "n_tasks": e.n_tasks,
                "k": e.k, "amp_max": e.amp_max, "seed": e.seed, "step": e.step,
                "inner_lr": e.inner_lr if math.isfinite(e.inner_lr) else None}
            arrays.update({f"eval_{key}": getattr(e, key) for key in EVAL_ARRAYS})
        return data, arrays

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        from models.meta.options import METHODS

        sessions = data.get("sessions", {})
        names = set(sessions) if isinstance(sessions, dict) else set()
        unknown = sorted(names - set(SESSIONS))
        if unknown:
            raise SessionFileError(f"{name}: the meta tab has no training session "
                                   f"{unknown[0]!r} (it has {', '.join(SESSIONS)}).")
        if names and names != set(SESSIONS):
            missing = sorted(set(SESSIONS) - names)[0]
            raise SessionFileError(f"{name}: the meta tab's session {missing!r} is missing "
                                   f"(the file holds only {', '.join(sorted(names))}).")
        support = check_support(arrays.get("support"), name)
        evaluation = check_evaluation(data.get("evaluation"), arrays, METHODS, name)
        self._opened = {"support": support, "evaluation": evaluation, "sessions": names,
                        "file": name}

    def after_session_opened(self) -> None:
        opened, self._opened = self._opened or {}, None
        if not opened.get("sessions"):    # saved before the sessions were made: untrained
            self.session = self.proto = None
            self._make_sessions()
        evaluation = opened.get("evaluation")
        if evaluation is not None and evaluation.step > self.session.step:
            raise SessionFileError(
                f"{opened.get('file')}: the meta tab's evaluation is of meta-step "
                f"{evaluation.step}, after the {self.session.step} steps trained.")
        # the controls set the task; the placed points are the saved ones
        self._task_key = self._current_task_key()
        self.support = opened.get("support")
        self.result = None                  # other sessions: task and episode anew
        # no evaluation of the weights before opening may land now
        self.evaluator.invalidate()
        self._on_show.pop(self.evaluate, None)
        self._want_eval = False
        self._set_eval_busy(False)
        self.eval_result = evaluation
        p = self.params()
        if evaluation is not None and (evaluation.k, evaluation.amp_max) != (p["k"],
                                                                              p["amp_max"]):
            self.evaluate()   # saved while the evaluation for new settings was under way
        self._show_evaluation()
        self._show_losses()
        super().after_session_opened()
