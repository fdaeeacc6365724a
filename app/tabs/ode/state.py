"""The neural-ODE tab in a session file (File → Save session… / Open session…), mixed into
``ODETab``.

What it keeps, beyond the controls (task, model, solver): the session of the model shown
(weights, Adam's moments, its records: loss, NFE forward and backward, seconds per step,
its solver and last evaluation: ``ODESession._extra_state``), the solver switches
marked on the NFE timeline, the adjoint comparison shown (its times and memory were
measured on the machine that saved it: kept, not measured again), the start points the
user placed in the plane (every task's) and the animation's time.

Opening checks the start points, the time, the marks and the comparison before
anything changes; a refusal later (weights that do not fit) rolls the whole window
back (``app.sessions.apply``).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent

from app.tabs.ode.controls import MAX_STARTS, SLIDER_MAX, _parse_starts
from app.tabs.ode.views import solver_label
from models.ode.options import TASKS
from models.traces import AdjointComparison

#: the solver switches kept (one per change of the solver while training)
MAX_SWITCHES = 10_000
#: the comparison's numbers, in the order of its array in the file; its text fields
NUMBERS = tuple(f.name for f in fields(AdjointComparison) if f.type in ("float", "int"))
TEXTS = tuple(f.name for f in fields(AdjointComparison) if f.type == "str")


def _comparison_state(entry: dict) -> tuple[dict, np.ndarray]:
    a = entry["result"]
    data = {"numbers": list(NUMBERS), "step": int(entry["step"]),
            "solver": str(entry["solver"]), **{k: getattr(a, k) for k in TEXTS}}
    return data, np.array([getattr(a, k) for k in NUMBERS], np.float64)


def _checked_comparison(data, values, where: str) -> dict:
    from models.errors import SessionFileError

    values = np.asarray(values)
    if not isinstance(data, dict) or data.get("numbers") != list(NUMBERS) \
            or values.dtype != np.float64 or values.shape != (len(NUMBERS),):
        raise SessionFileError(f"{where}the adjoint comparison should hold "
                               f"{len(NUMBERS)} float64 numbers: {', '.join(NUMBERS)}.")
    step = data.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0 or \
            not all(isinstance(data.get(k), str) and len(data[k]) <= 200
                    for k in ("solver", *TEXTS)):
        raise SessionFileError(f"{where}the adjoint comparison's step or solver is "
                               "malformed.")
    kinds = {f.name: f.type for f in fields(AdjointComparison)}
    numbers = {}
    for k, v in zip(NUMBERS, values.tolist(), strict=True):
        if kinds[k] == "int":
            if not (np.isfinite(v) and v >= 0 and v == round(v)):
                raise SessionFileError(f"{where}the adjoint comparison's {k} ({v}) is not "
                                       "a whole number ≥ 0.")
            v = int(v)
        elif k.startswith("seconds") and not (np.isfinite(v) and v >= 0):
            raise SessionFileError(f"{where}the adjoint comparison's {k} ({v}) is not a "
                                   "time.")
        numbers[k] = v
    result = AdjointComparison(**numbers, **{k: data[k] for k in TEXTS})
    return {"result": result, "step": step, "solver": data["solver"]}


def _checked_switches(switches, where: str) -> list[tuple[int, str]] | None:
    from models.errors import SessionFileError

    if switches is None:
        return None
    ok = isinstance(switches, list) and 0 < len(switches) <= MAX_SWITCHES
    out = []
    for item in switches if ok else ():
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)
                and not isinstance(item[0], bool) and item[0] >= 0
                and isinstance(item[1], str) and len(item[1]) <= 200):
            ok = False
            break
        out.append((item[0], item[1]))
    if not ok or any(b[0] < a[0] for a, b in zip(out, out[1:], strict=False)):
        raise SessionFileError(f"{where}the solver switches should be [step, solver] pairs "
                               "with the steps counting up.")
    return out


def _checked_starts(starts, where: str) -> dict[str, list[tuple[float, float]]]:
    from models.errors import SessionFileError

    if not isinstance(starts, dict) or set(starts) - set(TASKS):
        raise SessionFileError(f"{where}the start points should be given per task "
                               f"({', '.join(TASKS)}).")
    out = {task: [] for task in TASKS}
    for task, points in starts.items():
        try:
            if not isinstance(points, list):
                raise ValueError(f"start points of {task} are not a list")
            out[task] = _parse_starts(points)
        except ValueError as exc:
            raise SessionFileError(f"{where}{exc}") from exc
        if len(out[task]) > MAX_STARTS:
            raise SessionFileError(f"{where}{len(out[task])} start points for {task}; the "
                                   f"plane takes at most {MAX_STARTS}.")
    return out


class ODESessionFile:
    """The session-file hooks of ``TrainingTab``, for the neural-ODE tab."""

    def session_inputs(self) -> tuple[dict, dict]:
        key = self._session_key()
        data = {"starts": {task: [list(p) for p in points]
                           for task, points in self.starts.items()},
                "t": self.t_fraction()}
        arrays = {}
        if key in self.switches:
            data["switches"] = [list(m) for m in self.switches[key]]
        if key in self.comparisons:
            data["comparison"], arrays["comparison"] = _comparison_state(self.comparisons[key])
        return data, arrays

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        from models.errors import SessionFileError

        where = f"{name}: "
        t = data.get("t", 1.0)
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0.0 <= t <= 1.0:
            raise SessionFileError(f"{where}the animation's time ({t!r}) is not a fraction "
                                   "from 0 to 1.")
        starts = _checked_starts(data.get("starts", {}), where)
        switches = _checked_switches(data.get("switches"), where)
        comparison = None
        if "comparison" in data or "comparison" in arrays:
            comparison = _checked_comparison(data.get("comparison"), arrays.get("comparison"),
                                             where)
        sessions = data.get("sessions", {})
        # checked: now the tab changes
        self.play_button.setChecked(False)
        self.starts = starts
        self.user_paths = None
        self._opened_extras = {"name": name, "t": float(t), "switches": switches, "comparison": comparison,
                               "sessions": set(sessions) if isinstance(sessions, dict)
                               else set()}

    def session_named(self, name: str):
        from models.errors import SessionFileError

        if name != "main":
            file = getattr(self, "_opened_extras", {}).get("name", "the session")
            raise SessionFileError(f"{file}: the {self.key} tab has no training session "
                                   f"{name!r}.")
        self._wait_for_settings()     # a solver or learning rate handed over: in before
        return self.session()

    def after_session_opened(self) -> None:
        extras = self.__dict__.pop("_opened_extras", None)
        if extras is not None:
            self._wait_for_settings()
            # the settings handed over while the controls were set have reached the
            # session: their marks now, before the file's replace them
            QCoreApplication.sendPostedEvents(self, QEvent.Type.MetaCall)
            key = self._session_key()
            if "main" not in extras["sessions"] and getattr(self.sessions.get(key), "step", 0):
                del self.sessions[key]            # not in the file: untrained, as saved
            session = self.session()
            switches = extras["switches"] or [(0, solver_label(session.solver,
                                                                         short=True))]
            self.switches[key] = [m for m in switches if m[0] <= session.step] or switches[:1]
            if extras["comparison"] is not None:
                self.comparisons[key] = extras["comparison"]
            else:
                self.comparisons.pop(key, None)
            s = session.solver
            self._asked[key] = {"lr": float(session.lr), "solver": {
                "method": s.method, "rtol": float(s.rtol), "atol": float(s.atol),
                "step_size": float(s.step_size), "adjoint": bool(s.adjoint),
                "max_nfe": int(s.max_nfe)}}
            self._shown_key = key
            for runner in (self.compute, self.paths_runner, self.compare_runner):
                runner.invalidate()               # results for the state before opening
            self.slider.setValue(int(round(extras["t"] * SLIDER_MAX)))
        super().after_session_opened()
