"""The neural-ODE tab: a network f(t, y) is the velocity of a state and the model's output
is the state after an ODE solver has integrated it (continuous depth). Three tasks
(torchdiffeq's spiral fit, a classifier of two moons or circles with optional augmented
dimensions, and a continuous normalizing flow on a 2D density), trained live; the solver,
its tolerances, the adjoint method and an NFE cap can be changed while training runs.

Views: the learned vector field with trajectories animated along t, the task's own view
(fit, decision regions, density p_t), the function evaluations per training step, the
steps the solver took (accepted / rejected), the loss, and a direct-vs-adjoint
comparison (time, memory kept for backward, NFE, gradient difference)."""

from __future__ import annotations

import gc
import time
from functools import partial

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from app.jobs import ComputeRunner
from app.tabs.base import BaseTab, TabContext, View, ViewData
from models import gcpause
from models.traces import Progress
from viz.controls import Param, ParamForm
from viz.ode_view import LabelledBarsPlot, StepsPlot, TimelinePlot
from viz.panel import ViewPanel
from viz.plane import PlanePlot, class_colour
from viz.plots import CurvesPlot
from viz.theme import error_style

# the same names as models.ode (not imported here: that module imports torch, and tabs are
# built before torch has loaded); tests/test_ode_tab.py checks they agree
TASKS = ("spiral", "classify", "cnf")
SOLVERS = ("dopri5", "bosh3", "rk4", "midpoint", "euler")
ADAPTIVE = ("dopri5", "bosh3")
CLASSIFY_DATA = ("moons", "circles")
#: the flow tab's densities (models.densities), without "your points"
DENSITIES = ("two_moons", "circles", "8gaussians", "checkerboard", "two_spirals", "pinwheel",
             "rings", "swiss_roll")
MODEL_PARAMS = (
    Param("task", "choice", "spiral", choices=TASKS),
    Param("data", "choice", "moons", choices=CLASSIFY_DATA),
    Param("density", "choice", "two_moons", choices=DENSITIES),
    Param("hidden", "int", 50, 4, 256),
    Param("augment", "int", 0, 0, 8),
    Param("lr", "float", 1e-3, 1e-5, 1000.0, step=1e-3, decimals=5),
)
SOLVER_PARAMS = (
    Param("method", "choice", "dopri5", choices=SOLVERS),
    Param("rtol", "float", 1e-3, 1e-7, 0.5, step=1e-4, decimals=7),
    Param("atol", "float", 1e-4, 1e-7, 0.5, step=1e-4, decimals=7),
    Param("step_size", "float", 0.05, 0.001, 1.0, step=0.01, decimals=3),
    Param("adjoint", "bool", False),
    Param("max_nfe", "int", 5000, 10, 100_000, step=500),
)
#: what a task starts with when it is chosen: hidden units and learning rate (the
#: sessions' own defaults: the demo's 50 units at 1e-3 for the spiral, ...)
TASK_DEFAULTS = {"spiral": {"hidden": 50, "lr": 1e-3},
                 "classify": {"hidden": 32, "lr": 1e-2},
                 "cnf": {"hidden": 64, "lr": 1e-3}}
#: start points of the spiral's extra trajectories (the first is the true y0)
SPIRAL_STARTS = ((2.0, 0.0), (-2.0, 0.0), (0.0, 1.6), (0.0, -1.6), (1.0, 1.0), (-1.0, -1.0))
FIELD_GRID = 19              # arrows per side of the vector field
CNF_PATHS = 600              # samples animated from the base to the data
CNF_PATH_TIMES = 41
MAX_STARTS = 8               # start points the user may place at once
USER_COLOUR = "#7b2f9e"      # their trajectories (purple: not a class colour)
PLAY_SECONDS = 4.0           # the whole interval, played
SLIDER_MAX = 1000
STATE_KEYS = ("train", "t", "play", "compare", "starts")


def _flag(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")


class ODETab(BaseTab):
    key = "ode"
    #: (session key, step or None, solver settings or None): a change reached a session
    settings_applied = Signal(object)

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.sessions: dict[tuple, object] = {}
        #: per session: [(step, solver label)] — the solver from that step on
        self.switches: dict[tuple, list[tuple[int, str]]] = {}
        self.comparisons: dict[tuple, dict] = {}
        #: the user's start points per task (state coordinates at the animation's start)
        self.starts: dict[str, list[tuple[float, float]]] = {t: [] for t in TASKS}
        self.user_paths: dict | None = None
        self.result: dict | None = None
        self._running = ""
        self._running_key: tuple | None = None
        self._pending_compare = False
        self._last_redraw = 0.0
        self._task = "spiral"
        self._shown_key: tuple | None = None
        #: what was last handed to each session (solver settings, learning rate)
        self._asked: dict[tuple, dict] = {}
        self._settings_pool = None
        self._settings_future = None
        self.settings_applied.connect(self._on_settings_applied)
        self.model_form = ParamForm(MODEL_PARAMS)
        self.solver_form = ParamForm(SOLVER_PARAMS)
        self.train_button = QPushButton()
        self.train_button.setObjectName("TrainButton")
        self.train_button.clicked.connect(self.toggle_training)
        self.compare_button = QPushButton()
        self.compare_button.setObjectName("CompareButton")
        self.compare_button.clicked.connect(self.toggle_compare)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.error_note = QLabel()
        self.error_note.setWordWrap(True)
        self.error_note.setStyleSheet(error_style())
        lay = self.controls_layout
        lay.addWidget(self.model_form)
        lay.addWidget(self.solver_form)
        lay.addWidget(self.train_button)
        lay.addWidget(self.compare_button)
        lay.addWidget(self.status)
        lay.addWidget(self.error_note)
        lay.addStretch(1)
        self.model_form.changed.connect(self._model_changed)
        self.solver_form.changed.connect(self._solver_changed)
        self._build_views()
        self.paths_runner = ComputeRunner(self)     # the user's trajectories only (drags)
        self.paths_runner.done.connect(self._on_user_paths)
        self.paths_runner.failed.connect(self._on_failure)
        self.timer = QTimer(self)
        self.timer.setInterval(33)
        self.timer.timeout.connect(self._tick)
        self.jobs.progressed.connect(self._on_progress)
        self.jobs.stopped.connect(self._on_job_stopped)
        self.jobs.failed.connect(lambda f: self.error_note.setText(str(f.error)))
        self._gc_held = False
        self._gc_timer = QTimer(self)
        self._gc_timer.setInterval(500)
        self._gc_timer.timeout.connect(self._gc_tick)
        self._update_rows()
        self.retranslate()
        self.schedule_update()

    # -- views ---------------------------------------------------------------------------------
    def _build_views(self) -> None:
        self.field_plot = PlanePlot()
        self.field_plot.clicked.connect(self.add_start)
        self.field_plot.moved.connect(self.move_start)
        self.field_plot.set_movable("user_start")
        host = QWidget()                  # the plane with its play button and t slider
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.play_button = QPushButton()
        self.play_button.setObjectName("PlayButton")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._play)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_MAX)
        self.slider.setValue(SLIDER_MAX)
        self.slider.valueChanged.connect(self._slider_moved)
        self.t_label = QLabel()
        self.t_label.setMinimumWidth(120)
        self.clear_button = QPushButton()
        self.clear_button.clicked.connect(self.clear_starts)
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.t_label)
        row.addWidget(self.clear_button)
        col.addLayout(row)
        panel = ViewPanel(self.field_plot)        # exports the plane, not the controls
        panel.layout().replaceWidget(self.field_plot, host)
        col.insertWidget(0, self.field_plot, 1)
        self.task_plot = PlanePlot()
        self.nfe_plot = TimelinePlot(legend="top-left")
        self.steps_plot = StepsPlot()
        self.loss_plot = CurvesPlot()
        self.adjoint_plot = LabelledBarsPlot()
        self.add_view(View("field", lambda: self.tr("Vector field and trajectories"), panel,
                           self._data_field), 0, 0, 1, 2)
        self.add_view(View("task", self._task_title, ViewPanel(self.task_plot),
                           self._data_task), 0, 2, 1, 2)
        self.add_view(View("nfe", lambda: self.tr("Function evaluations per step"),
                           ViewPanel(self.nfe_plot), self._data_nfe), 1, 0)
        self.add_view(View("steps", lambda: self.tr("Adaptive solver steps"),
                           ViewPanel(self.steps_plot), self._data_steps), 1, 1)
        self.add_view(View("loss", lambda: self.tr("Training loss"),
                           ViewPanel(self.loss_plot), self._data_loss), 1, 2)
        self.add_view(View("adjoint", lambda: self.tr("Adjoint method against direct "
                                                      "backpropagation"),
                           ViewPanel(self.adjoint_plot), self._data_adjoint), 1, 3)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        for c in range(4):
            self.grid.setColumnStretch(c, 1)

    def _task_title(self) -> str:
        return {"spiral": self.tr("Spiral: the true trajectory, the noisy observations and "
                                  "the fit"),
                "classify": self.tr("Decision regions and held-out points"),
                "cnf": self.tr("Density p_t and samples at t")}[self.params()["task"]]

    @property
    def trace(self) -> dict | None:
        return self.result

    # -- parameters ------------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.model_form.values(), **self.solver_form.values()}

    def solver_kwargs(self) -> dict:
        s = self.solver_form.values()
        return {"method": s["method"], "rtol": float(s["rtol"]), "atol": float(s["atol"]),
                "step_size": float(s["step_size"]), "adjoint": bool(s["adjoint"]),
                "max_nfe": int(s["max_nfe"])}

    def apply_state(self, state: dict, strict: bool = False) -> None:
        """Controls by key (every parameter of the two forms), and:

        * ``train``: start (true) or stop (false) training;
        * ``t``: the animation's time as a fraction 0 … 1 of the integration interval
          (spiral [0, 25], classify and CNF [0, t1]); for the CNF t = 1 is the base
          N(0, I) and t = 0 the data, and Play runs from 1 down to 0;
        * ``play``: start or stop the animation;
        * ``compare``: run the adjoint comparison;
        * ``starts``: the start points of your own trajectories, [[x, y], …] or
          "x,y; x,y" ("" clears them).
        """
        from models.errors import InvalidParameterError

        known = set(self.params()) | set(STATE_KEYS)
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        problems = []
        if "task" in state:
            problems += self.model_form.set_values({"task": state["task"]})
            self._take_task_defaults(except_keys=set(state))
        problems += self.model_form.set_values({k: v for k, v in state.items() if k != "task"})
        problems += self.solver_form.set_values(state)
        t = None
        if "t" in state:
            try:
                t = float(state["t"])
                if not 0.0 <= t <= 1.0:
                    raise ValueError
            except (TypeError, ValueError):
                problems.append(f"t must be a fraction of the time interval from 0 to 1, "
                                f"got {state['t']}.")
                t = None
        starts = None
        if "starts" in state:
            try:
                starts = _parse_starts(state["starts"])
            except ValueError as exc:
                problems.append(str(exc))
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        if starts is not None:
            self.starts[self.params()["task"]] = starts[-MAX_STARTS:]
        self._model_changed()
        self._solver_changed()
        if t is not None:
            self.slider.setValue(int(round(t * SLIDER_MAX)))
        if "play" in state:
            self.play_button.setChecked(_flag(state["play"]))
        if "train" in state:
            want = _flag(state["train"])
            if want != (self.jobs.is_running() and self._running == "train"):
                self.toggle_training()
        if _flag(state.get("compare", False)):
            if self.torch_ready:
                if not (self.jobs.is_running() and self._running == "compare"):
                    self.toggle_compare()
            else:
                self._pending_compare = True      # headless export: compute_now runs it

    def _take_task_defaults(self, except_keys: set[str] = frozenset()) -> None:
        task = self.model_form.values()["task"]
        if task != self._task:
            self._task = task
            self.model_form.set_values({k: v for k, v in TASK_DEFAULTS[task].items()
                                        if k not in except_keys})

    def _update_rows(self) -> None:
        task = self.model_form.values()["task"]
        rows = {"task", "hidden", "lr"} | ({"data", "augment"} if task == "classify" else
                                           {"density"} if task == "cnf" else set())
        self.model_form.set_visible_rows(rows)
        method = self.solver_form.values()["method"]
        self.solver_form.set_visible_rows(
            {"method", "adjoint", "max_nfe"} | ({"rtol", "atol"} if method in ADAPTIVE
                                                else {"step_size"}))
        self.slider.setInvertedAppearance(task == "cnf")

    def _model_changed(self) -> None:
        task_before = self._task
        self._take_task_defaults()
        self._update_rows()
        if self._task != task_before:         # show the end of the new task's animation
            self.slider.setValue(0 if self._task == "cnf" else SLIDER_MAX)
        if (self.jobs.is_running() and self._running_key is not None
                and self._session_key() != self._running_key):
            self.jobs.stop()
        if not self.jobs.is_running() and self._session_key() != self._shown_key:
            self.job_bar.show_progress(0, "")     # the last job's line was another model's
        self._shown_key = self._session_key()
        key = self._session_key()
        lr = float(self.params()["lr"])
        if key in self.sessions and self._asked.get(key, {}).get("lr") != lr:
            self._asked[key]["lr"] = lr
            self._submit(key, lr=lr)            # from the next step on
        self.user_paths = None
        self._solver_changed()                # the form's solver, also for a model met again
        self._update_buttons()
        for v in self.views:
            v.panel.set_title(v.title())
        self.schedule_update()

    def _solver_changed(self) -> None:
        """The solver group applies to the session there is, from its next step on (no
        restart); the NFE timeline marks the switch."""
        from models.errors import ArchScopeError

        self._update_rows()
        key = self._session_key()
        session = self.sessions.get(key)
        if session is None:
            self.schedule_update()
            return
        from models.ode import SolverConfig

        kw = self.solver_kwargs()
        asked = self._asked.setdefault(key, {})
        if asked.get("solver") == kw:
            return
        try:
            SolverConfig(**kw).validate()
        except ArchScopeError as exc:          # e.g. rtol ≥ 1: the settings stay as they were
            self.error_note.setText(str(exc))
            return
        asked["solver"] = kw
        self._submit(key, solver=kw)

    def _submit(self, key: tuple, solver: dict | None = None, lr: float | None = None) -> None:
        """Hand a new solver or learning rate to a session off the GUI thread: the session
        takes it under its lock, between two training steps, and a step of a stiff model
        can take seconds (the GUI would freeze waiting). ``_settings_applied`` follows."""
        from concurrent.futures import ThreadPoolExecutor

        if self._settings_pool is None:
            self._settings_pool = ThreadPoolExecutor(max_workers=1,
                                                     thread_name_prefix="ode-settings")
        session = self.sessions[key]
        signal = self.settings_applied

        def work() -> None:
            step = None
            if lr is not None:
                session.set_lr(lr)
            if solver is not None:
                session.set_solver(**solver)
                step = session.step
            try:
                signal.emit((key, step, solver))
            except RuntimeError:               # the tab was closed meanwhile
                pass

        self._settings_future = self._settings_pool.submit(work)

    def _on_settings_applied(self, applied: tuple) -> None:
        key, step, solver = applied
        if solver is not None and key in self.sessions:
            self._mark_switch(key, step, self._solver_label(self.sessions[key].solver,
                                                            short=True))
            if key == self._session_key():
                self._redraw_nfe()
        if key == self._session_key():
            self.schedule_update()

    def _wait_for_settings(self, timeout: float = 60.0) -> None:
        if self._settings_future is not None:
            self._settings_future.result(timeout)

    def _mark_switch(self, key: tuple, step: int, label: str) -> None:
        """The solver from step ``step`` + 1 on is ``label`` (a marker on the timeline)."""
        marks = self.switches.setdefault(key, [])
        if marks and marks[-1][0] == step:
            marks[-1] = (step, label)             # no step was taken with the one before
        elif not marks or marks[-1][1] != label:
            marks.append((step, label))

    def _solver_label(self, cfg, short: bool = False) -> str:
        """"dopri5, rtol 0.001, atol 0.0001 + adjoint"; short: "dopri5 1e-03/1e-04 +adj"."""
        if short:
            text = (f"{cfg.method} {cfg.rtol:.0e}/{cfg.atol:.0e}" if cfg.method in ADAPTIVE
                    else f"{cfg.method} h={cfg.step_size:g}")
            return text + (self.tr(" +adj") if cfg.adjoint else "")
        text = (self.tr("{0}, rtol {1:g}, atol {2:g}").format(cfg.method, cfg.rtol, cfg.atol)
                if cfg.method in ADAPTIVE else
                self.tr("{0}, step {1:g}").format(cfg.method, cfg.step_size))
        return text + (self.tr(" + adjoint") if cfg.adjoint else "")

    def _session_key(self) -> tuple:
        p = self.params()
        task = p["task"]
        return (task, p["data"] if task == "classify" else p["density"] if task == "cnf"
                else "", p["hidden"], p["augment"] if task == "classify" else 0)

    def session(self):
        from models.ode import ClassifierSession, CNFSession, SolverConfig, SpiralSession

        key = self._session_key()
        if key not in self.sessions:
            p = self.params()
            cfg = SolverConfig(**self.solver_kwargs())
            device = self.ctx.device()
            if p["task"] == "spiral":
                s = SpiralSession(hidden=p["hidden"], lr=p["lr"], device=device, solver=cfg)
            elif p["task"] == "classify":
                s = ClassifierSession(data=p["data"], augment=p["augment"], hidden=p["hidden"],
                                      lr=p["lr"], device=device, solver=cfg)
            else:
                s = CNFSession(density=p["density"], hidden=p["hidden"], lr=p["lr"],
                               device=device, solver=cfg)
            self.sessions[key] = s
            self.switches[key] = [(0, self._solver_label(s.solver, short=True))]
            self._asked[key] = {"lr": float(p["lr"]), "solver": self.solver_kwargs()}
        return self.sessions[key]

    def on_device_changed(self, name: str) -> None:
        if self.jobs.is_running():
            self.jobs.stop()
        for s in self.sessions.values():
            s.to(name)
        super().on_device_changed(name)

    def on_torch_ready(self) -> None:
        super().on_torch_ready()
        self._update_buttons()

    # -- the garbage collector ---------------------------------------------------------------------
    def _hold_gc(self) -> None:
        """Python's automatic garbage collection off while this tab's models run in worker
        threads; the GUI thread collects and switches it back on once the tab is idle.

        Automatic collection runs on whichever thread happens to allocate: a training
        thread could free the GUI's cyclic garbage (Qt objects, which must die on the GUI
        thread), and a collection on the GUI thread while a worker was inside an ODE solve
        aborted the test process now and then ("Fatal Python error" while
        "Garbage-collecting"; none in 9 full runs with this hold). Training and the
        redraws make no cyclic garbage (none in 30 s of spiral or CNF training with every
        view redrawing), so nothing piles up meanwhile."""
        if not self._gc_held:
            gcpause.hold()
            self._gc_held = True
        if not self._gc_timer.isActive():
            self._gc_timer.start()

    def _release_gc(self) -> None:
        self._gc_timer.stop()
        if self._gc_held:
            self._gc_held = False
            gc.collect(0)        # what piled up, here on the GUI thread (cheap: the young)
            gcpause.release()    # automatic collection back on unless another user holds it

    def _gc_tick(self) -> None:
        if not (self.jobs.is_running() or self.compute.is_busy()
                or self.paths_runner.is_busy()):
            self._release_gc()

    def request_update(self) -> None:
        if self.torch_ready:
            self._hold_gc()
        super().request_update()

    def shutdown(self) -> None:
        self._release_gc()
        self.timer.stop()
        self.paths_runner.close()
        if self._settings_pool is not None:
            self._settings_pool.shutdown(wait=False)
        super().shutdown()

    # -- computing --------------------------------------------------------------------------------
    def compute_fn(self):
        session = self.session()
        task = self.params()["task"]
        return partial(_ode_result, session, task, list(self.starts[task]),
                       self._session_key())

    def compute_now(self) -> None:
        """Synchronously (headless export): the views, and a comparison asked for."""
        self._wait_for_settings()
        super().compute_now()
        if self._pending_compare:
            self._pending_compare = False
            result = self.session().compare_adjoint(repeats=3)
            self._store_comparison(self._session_key(), result)
            self._redraw_adjoint()

    def show_trace(self, result: dict) -> None:
        if result is None or result["key"] != self._session_key():
            return                       # computed for a model no longer shown
        if result.get("display_error") and self.result is not None and \
                self.result["key"] == result["key"] and self.result["trace"] is not None:
            # this model cannot be solved within the settings (e.g. the NFE cap): keep
            # what was drawn, say why it is not redrawn
            self._readout("field", result["display_error"])
            self._redraw_steps(result)
            return
        self.result = result
        self.user_paths = result.get("user")
        self._slider_moved(self.slider.value())
        self._redraw_steps(result)
        self._redraw_loss()
        self._redraw_nfe()
        self._redraw_adjoint()
        for v in self.views:
            v.panel.set_title(v.title())
        self._update_buttons()

    # -- the time axis ------------------------------------------------------------------------------
    def t_fraction(self) -> float:
        return self.slider.value() / SLIDER_MAX

    def current_t(self) -> float:
        r = self.result
        if r is None:
            return 0.0
        t0, t1 = r["interval"]
        return t0 + self.t_fraction() * (t1 - t0)

    def _play(self, on: bool) -> None:
        self.play_button.setText(self.tr("Pause") if on else self.tr("Play"))
        if on:
            if self._at_end():
                self.slider.setValue(SLIDER_MAX if self._backwards() else 0)
            self.timer.start()
        else:
            self.timer.stop()

    def _backwards(self) -> bool:
        """The CNF's samples flow from the base (t1) back to the data (0)."""
        return self.params()["task"] == "cnf"

    def _at_end(self) -> bool:
        return self.slider.value() == (0 if self._backwards() else SLIDER_MAX)

    def _tick(self) -> None:
        step = max(1, int(round(SLIDER_MAX * self.timer.interval() / 1000 / PLAY_SECONDS)))
        value = self.slider.value() + (-step if self._backwards() else step)
        if value >= SLIDER_MAX or value <= 0:
            value = min(max(value, 0), SLIDER_MAX)
            self.slider.setValue(value)
            self.play_button.setChecked(False)
            return
        self.slider.setValue(value)

    def _slider_moved(self, _value: int) -> None:
        r = self.result
        if r is None:
            self.t_label.setText("")
            return
        t = self.current_t()
        self.t_label.setText(self.tr("t = {0:.2f} of {1:g}").format(t, r["interval"][1]))
        self._draw_field(t)
        self._draw_task(t)

    # -- drawing ------------------------------------------------------------------------------------
    def _draw_field(self, t: float) -> None:
        r = self.result
        plot = self.field_plot
        task = r["task"]
        f = r["fields"]
        k = int(np.argmin(np.abs(f["times"] - t)))
        sign = -1.0 if task == "cnf" else 1.0       # CNF: arrows the way samples move
        plot.set_field(f["x"], f["y"], sign * f["u"][k], sign * f["v"][k])
        back = task == "cnf"
        paths, times = r["paths"], r["times"]
        shown, now = _paths_until(paths, times, t, back)
        layers = ["user_paths", "user_start", "user_now"]
        if task == "spiral":
            plot.set_lines("true", r["true"], colour="#999999", width=1.2,
                           style=Qt.PenStyle.DashLine, legend=self.tr("true spiral"), z=1)
            plot.set_lines("others", shown[1:], colour="#6b8fb5", width=1.0,
                           legend=self.tr("other start points"), z=2)
            plot.set_lines("fitted", shown[:1], colour=class_colour(0), width=2.2,
                           legend=self.tr("learned, from the true y0"), z=3)
            plot.set_points("now", now, colour=class_colour(2), size=8, z=12)
            layers += ["true", "others", "fitted", "now"]
        elif task == "classify":
            labels = r["labels"]
            for c in (0, 1):
                sel = labels == c
                plot.set_lines(f"paths{c}", shown[sel][:150], colour=_faded(class_colour(c)),
                               width=0.8, z=1)
                plot.set_points(f"now{c}", now[sel], colour=class_colour(c), size=6,
                                legend=self.tr("class {0}").format(c), z=10 + c)
            layers += ["paths0", "paths1", "now0", "now1"]
        else:
            plot.set_lines("paths", shown[:80], colour="#9aa9bd", width=0.8, z=1)
            plot.set_points("now", now, colour="#1f4e99", size=3.5, outline=None,
                            legend=self.tr("samples"), z=10)
            layers += ["paths", "now"]
        u = self.user_paths
        if u is not None and u["key"] == r["key"] and len(u["paths"]):
            ushown, unow = _paths_until(u["paths"], u["times"], t, back)
            plot.set_lines("user_paths", ushown, colour=USER_COLOUR, width=2.2,
                           legend=self.tr("your start points"), z=4)
            plot.set_points("user_start", u["paths"][:, 0 if not back else -1],
                            colour="#ffffff", outline=USER_COLOUR, size=9, symbol="s", z=13)
            plot.set_points("user_now", unow, colour=USER_COLOUR, size=8, z=14)
        else:
            starts = np.asarray(self.starts[task], np.float64).reshape(-1, 2)
            plot.set_lines("user_paths", np.zeros((0, 2)))
            plot.set_points("user_start", starts, colour="#ffffff", outline=USER_COLOUR,
                            size=9, symbol="s", z=13)
            plot.set_points("user_now", np.zeros((0, 2)))
        plot.keep_layers(layers)
        if r.get("extent_key") != getattr(self, "_field_extent_key", None):
            self._field_extent_key = r.get("extent_key")
            plot.set_extent(r["extent"])
        self._readout("field", self._field_readout(t))

    def _field_readout(self, t: float) -> str:
        r = self.result
        task = r["task"]
        if task == "spiral":
            text = self.tr("t = {0:.2f} · arrows: f(y), the same at every t · click to start "
                           "a trajectory").format(t)
        elif task == "classify":
            aug = r["augment"]
            text = (self.tr("t = {0:.2f} · arrows: f(t, h) in the first two coordinates, the "
                            "other {1} at 0").format(t, aug)
                    if aug else
                    self.tr("t = {0:.2f} · arrows: f(t, h); trajectories never cross")
                    .format(t))
        else:
            text = self.tr("t = {0:.2f} · arrows: −f(t, z), the way the samples move, from "
                           "the base (t = 1) to the data (t = 0)").format(t)
        if r.get("user_error"):
            text += " · " + r["user_error"]
        if r.get("display_error"):
            text = r["display_error"]
        return text

    def _draw_task(self, t: float) -> None:
        r = self.result
        plot = self.task_plot
        task = r["task"]
        tr = r["trace"]
        if tr is None:
            plot.clear_image()
            plot.keep_layers([])
            self._readout("task", r.get("display_error", ""))
        elif task == "spiral":
            plot.clear_image()
            plot.set_points("observed", tr.observed, colour="#8c8c8c", size=3, outline=None,
                            legend=self.tr("noisy observations"), z=5)
            plot.set_lines("true", tr.true, colour="#333333", width=1.5,
                           style=Qt.PenStyle.DashLine, legend=self.tr("true trajectory"), z=6)
            plot.set_lines("fitted", tr.fitted, colour=class_colour(0), width=2.0,
                           legend=self.tr("learned trajectory"), z=7)
            i = int(np.clip(np.searchsorted(tr.t, t), 0, len(tr.t) - 1))
            plot.set_points("now", np.stack([tr.true[i], tr.fitted[i]]),
                            colour=class_colour(2), size=8, z=12)
            plot.keep_layers(["observed", "true", "fitted", "now"])
            self._readout("task", self.tr(
                "mean L1 {0:.3f} (trivial: constant y0 {1:.3f}, zero {2:.3f}) · NFE {3}").format(
                tr.error_l1, tr.trivial["constant_y0"], tr.trivial["zero"], tr.nfe))
        elif task == "classify":
            plot.set_image((tr.prob > 0.5).astype(np.int64), tr.extent, classes=True)
            for c in (0, 1):
                sel = tr.labels == c
                plot.set_points(f"class{c}", tr.points[sel], colour=class_colour(c), size=6,
                                legend=self.tr("class {0}").format(c), z=10 + c)
            wrong = tr.predictions != tr.labels if tr.predictions.size else np.zeros(0, bool)
            plot.set_points("wrong", tr.points[wrong], colour="#000000", size=9, symbol="x",
                            outline="#000000", legend=self.tr("misclassified"), z=13)
            plot.keep_layers(["class0", "class1", "wrong"])
            note = (self.tr(" · {0} augmented dimensions").format(tr.augment) if tr.augment
                    else "")
            self._readout("task", self.tr("held-out accuracy {0:.1%}").format(tr.accuracy)
                          + note)
        else:
            k = int(np.argmin(np.abs(tr.times - t)))
            plot.set_image(tr.density[k], tr.extent)
            _, now = _paths_until(r["paths"], r["times"], t, True)
            plot.set_points("now", now, colour="#ffffff", size=3, outline=None, z=10)
            plot.keep_layers(["now"])
            self._readout("task", self.tr(
                "p_t at t = {0:.2f} · held-out NLL {1:.3f} nats (floor {2:.3f}) · mass on the "
                "grid {3:.2f}").format(float(tr.times[k]), tr.nll, tr.entropy,
                                        float(tr.mass[k]) if tr.mass.size else float("nan")))
        if r.get("extent_key") != getattr(self, "_task_extent_key", None):
            self._task_extent_key = r.get("extent_key")
            plot.set_extent(r["task_extent"])

    def _redraw_steps(self, r: dict) -> None:
        steps = r.get("steps")
        if steps is None:
            self.steps_plot.set_steps([], [], [], [], (self.tr("accepted"), ""))
            self.steps_plot.set_hint(self.tr("The solver could not finish this solve."))
            self._readout("steps", r.get("steps_error", ""))
            return
        self.steps_plot.set_hint("")
        adaptive = steps.method in ADAPTIVE
        self.steps_plot.set_steps(
            steps.accepted_t, np.abs(steps.accepted_dt), steps.rejected_t,
            np.abs(steps.rejected_dt),
            (self.tr("accepted step"), self.tr("rejected step") if adaptive else ""))
        if adaptive:
            self._readout("steps", self.tr("{0}: {1} accepted, {2} rejected · NFE {3}").format(
                steps.method, steps.n_accepted, steps.n_rejected, steps.nfe),
                self.tr("{0}: {1} accepted and {2} rejected steps in one solve of the current "
                        "model over [{3:g}, {4:g}]; NFE {5}").format(
                steps.method, steps.n_accepted, steps.n_rejected, steps.t0, steps.t1,
                steps.nfe))
        else:
            self._readout("steps", self.tr("{0}: every step is accepted: {1} · NFE {2}").format(
                steps.method, steps.n_accepted, steps.nfe),
                self.tr("{0} steps on a fixed grid: every step is accepted ({1} steps of at "
                        "most {2:g} over [{3:g}, {4:g}]); NFE {5}").format(
                steps.method, steps.n_accepted, float(np.abs(steps.accepted_dt).max()),
                steps.t0, steps.t1, steps.nfe))

    def _redraw_nfe(self) -> None:
        key = self._session_key()
        session = self.sessions.get(key)
        if session is None or not session.nfe_forward:
            self.nfe_plot.set_curves([], [], [])
            self.nfe_plot.set_markers([], [])
            self.nfe_plot.set_hint(self.tr("Press “Train”: the evaluations of f\nin each "
                                           "step's forward and backward\npass appear here."))
            cfg = session.solver if session is not None else None
            self._readout("nfe", self.tr("solver: {0}").format(self._solver_label(cfg))
                          if cfg is not None else "")
            return
        self.nfe_plot.set_hint("")
        h = session.history()
        fwd = h["nfe_forward"].astype(np.float32)
        bwd = h["nfe_backward"].astype(np.float32)
        steps = np.arange(1, len(fwd) + 1, dtype=np.float32)
        adjoint = session.solver.adjoint
        self.nfe_plot.set_curves(steps, np.stack([fwd, bwd]),
                                 [self.tr("forward"), self.tr("backward (adjoint: its solve)")
                                  if adjoint else self.tr("backward")])
        marks = [m for m in self.switches.get(key, []) if m[0] <= len(fwd)]
        self.nfe_plot.set_markers([m[0] + 0.5 for m in marks[1:]], [m[1] for m in marks[1:]])
        cfg = session.solver
        self._readout("nfe", self.tr("step {0}: {1} fwd, {2} bwd · {3}").format(
            len(fwd), int(fwd[-1]), int(bwd[-1]),
            cfg.method + (self.tr(" +adj") if cfg.adjoint else "")),
            self.tr("step {0}: NFE forward {1}, backward {2} · solver: {3}").format(
            len(fwd), int(fwd[-1]), int(bwd[-1]), self._solver_label(cfg)))

    def _redraw_loss(self) -> None:
        session = self.sessions.get(self._session_key())
        if session is None or not session.losses:
            self.loss_plot.set_curves([], [], [])
            self.loss_plot.set_hint(self.tr("Press “Train” to fit the model."))
            self._readout("loss", "")
            return
        self.loss_plot.set_hint("")
        losses = session.history()["loss"]
        steps = np.arange(1, len(losses) + 1, dtype=np.float32)
        window = min(25, len(losses))
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid").astype(np.float32)
        xs, ys = [steps, steps[window - 1:]], [losses, smooth]
        names = [self.tr("batch loss"), self.tr("running mean")]
        task = session.task
        if task == "cnf" and np.isfinite(session.entropy):
            xs.append(np.array([1, len(losses)], np.float32))
            ys.append(np.full(2, session.entropy, np.float32))
            names.append(self.tr("entropy floor"))
        self.loss_plot.set_curves(xs, ys, names)
        metric = session.last_metric
        if task == "spiral":
            short = self.tr("L1 {0:.3f}").format(metric)
            m = self.tr("whole trajectory from y0: mean L1 {0:.3f}").format(metric)
        elif task == "classify":
            short = self.tr("accuracy {0:.1%}").format(metric)
            m = self.tr("held-out accuracy {0:.1%}").format(metric)
        else:
            short = self.tr("floor {0:.3f}").format(session.entropy)
            m = self.tr("NLL {0:.3f} nats, floor {1:.3f}").format(metric, session.entropy)
        self._readout("loss", self.tr("step {0}: {1:.4f} · {2}").format(
            len(losses), float(smooth[-1]), short),
            self.tr("step {0}: loss {1:.4f} (running mean) · {2}").format(
            len(losses), float(smooth[-1]), m))

    def _redraw_adjoint(self) -> None:
        c = self.comparisons.get(self._session_key())
        if c is None:
            self.adjoint_plot.clear_bars()
            self.adjoint_plot.set_hint(self.tr("Press “Compare adjoint on/off”"))
            self._readout("adjoint", "")
            return
        a = c["result"]
        self.adjoint_plot.set_hint("")
        # time, memory kept for backward, evaluations in the backward pass (the forward
        # solve is the same both ways: its NFE goes to the tooltip)
        values = np.array([[a.seconds_direct * 1e3, a.saved_bytes_direct, a.nfe_backward_direct],
                           [a.seconds_adjoint * 1e3, a.saved_bytes_adjoint,
                            a.nfe_backward_adjoint]], np.float64)
        top = np.maximum(values.max(0), 1e-30)
        labels = [[self.tr("{0:.0f} ms").format(row[0]) if row[0] >= 10 else
                   self.tr("{0:.1f} ms").format(row[0]), _bytes(row[1]), f"{row[2]:.0f}"]
                  for row in values]
        self.adjoint_plot.set_bars(
            [self.tr("time"), self.tr("memory"), self.tr("NFE bwd")],
            (values / top).astype(np.float32), [self.tr("direct"), self.tr("adjoint")], labels)
        short = self.tr("Δgrad {0:.1e} · step {1}").format(a.grad_rel_diff, c["step"])
        text = self.tr(
            "relative gradient difference max|Δg|/max|g| = {0:.1e} · memory: tensors kept for "
            "the backward pass · NFE forward {1} and {2} · {3} · step {4}").format(
            a.grad_rel_diff, a.nfe_forward_direct, a.nfe_forward_adjoint, c["solver"],
            c["step"])
        if np.isfinite(a.cuda_peak_direct):
            text += self.tr(" · CUDA peak {0:.1f} MB against {1:.1f} MB").format(
                a.cuda_peak_direct / 2 ** 20, a.cuda_peak_adjoint / 2 ** 20)
        self._readout("adjoint", short, text)

    def _readout(self, key: str, text: str, full: str | None = None) -> None:
        """A short read-out under a view; the whole sentence in its tooltip."""
        panel = self.view(key).panel
        panel.set_readout(text)
        panel.readout.setToolTip(full if full is not None else text)

    # -- start points of your own -----------------------------------------------------------------
    def add_start(self, x: float, y: float) -> None:
        """A click in the plane: a new start point (the oldest goes beyond MAX_STARTS)."""
        task = self.params()["task"]
        self.starts[task] = (self.starts[task] + [(float(x), float(y))])[-MAX_STARTS:]
        self._request_user_paths()

    def move_start(self, i: int, x: float, y: float) -> None:
        task = self.params()["task"]
        if 0 <= i < len(self.starts[task]):
            self.starts[task][i] = (float(x), float(y))
            self._request_user_paths()

    def clear_starts(self) -> None:
        self.starts[self.params()["task"]] = []
        self.user_paths = None
        if self.result is not None:
            self._draw_field(self.current_t())

    def _request_user_paths(self) -> None:
        task = self.params()["task"]
        self.user_paths = None
        if self.result is not None:
            self._draw_field(self.current_t())        # the start point shows at once
        if self.torch_ready and self.starts[task]:
            self._hold_gc()
            self.paths_runner.request(partial(_user_paths, self.session(), task,
                                              list(self.starts[task]), self._session_key()))

    def _on_user_paths(self, u: dict) -> None:
        if u["key"] != self._session_key() or u["starts"] != self.starts[u["task"]]:
            return
        self.user_paths = u
        if self.result is not None:
            self.result["user_error"] = u.get("error", "")
            self._draw_field(self.current_t())

    # -- training and the comparison ----------------------------------------------------------------
    def toggle_training(self) -> None:
        from models.errors import ArchScopeError

        if self.jobs.is_running():
            running = self._running
            self.jobs.stop()
            if running == "train":
                return
        if not self.torch_ready:
            return
        self.error_note.setText("")
        try:
            session = self.session()
        except ArchScopeError as exc:
            self.error_note.setText(str(exc))
            return
        self._running, self._running_key = "train", self._session_key()
        self._hold_gc()
        self.jobs.start(partial(_after, self._settings_future, session.train, 1_000_000))
        self._update_buttons()

    def toggle_compare(self) -> None:
        if self.jobs.is_running():
            running = self._running
            self.jobs.stop()
            if running == "compare":
                return
        if not self.torch_ready:
            return
        self.error_note.setText("")
        self._running, self._running_key = "compare", self._session_key()
        self._hold_gc()
        self.jobs.start(partial(_after, self._settings_future, _compare_job, self.session()))
        self.job_bar.show_progress(0, self.tr("Comparing the adjoint method with direct "
                                              "backpropagation…"))
        self._update_buttons()

    def _store_comparison(self, key: tuple, result) -> None:
        session = self.sessions[key]
        self.comparisons[key] = {"result": result, "step": session.step,
                                 "solver": self._solver_label(session.solver)}

    def _on_progress(self, progress: Progress) -> None:
        if self._running == "compare":
            if progress.trace is not None and self._running_key in self.sessions:
                self.job_bar.show_progress(1, self.tr("The comparison is done."))
                self._store_comparison(self._running_key, progress.trace)
                if self._running_key == self._session_key():
                    self._redraw_adjoint()
            return
        m = progress.metrics
        self.job_bar.show_progress(0, self.tr(
            "Training: step {0} · loss {1:.4f} · NFE {2:.0f} forward, {3:.0f} backward · "
            "{4:.1f} steps/s").format(progress.step, progress.loss,
                                      m.get("nfe_forward", float("nan")),
                                      m.get("nfe_backward", float("nan")),
                                      m.get("steps_per_s", float("nan"))))
        if self._running_key == self._session_key():
            self._redraw_nfe()                  # cheap: every report
            now = time.monotonic()
            if now - self._last_redraw > 1.0:   # the field, the fit, the steps: once a second
                self._last_redraw = now
                self._redraw_loss()
                self.request_update()

    def _on_job_stopped(self, _completed: bool) -> None:
        self._running = ""
        self._update_buttons()
        self.request_update()

    def _update_buttons(self) -> None:
        running = self._running if self.jobs.is_running() else ""
        session = self.sessions.get(self._session_key())
        self.train_button.setText(self.tr("Stop") if running == "train" else (
            self.tr("Resume training") if session is not None and session.step
            else self.tr("Train")))
        self.compare_button.setText(self.tr("Stop the comparison") if running == "compare"
                                    else self.tr("Compare adjoint on/off"))
        self.train_button.setEnabled(self.torch_ready)
        self.compare_button.setEnabled(self.torch_ready)
        self.status.setText("" if session is None or not session.step else self.tr(
            "{0} steps trained").format(session.step))

    # -- export data ----------------------------------------------------------------------------------
    def _data_field(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        t = self.current_t()
        f = r["fields"]
        k = int(np.argmin(np.abs(f["times"] - t)))
        sign = -1.0 if r["task"] == "cnf" else 1.0
        table = np.stack([f["x"], f["y"], sign * f["u"][k], sign * f["v"][k]], 1)
        shown, now = _paths_until(r["paths"], r["times"], t, r["task"] == "cnf")
        arrays = {"field": table.astype(np.float32), "positions": now.astype(np.float32),
                  "paths": r["paths"], "times": r["times"]}
        if self.user_paths is not None and self.user_paths["key"] == r["key"]:
            arrays["your_paths"] = self.user_paths["paths"]
        return ViewData("field", arrays,
                        {"task": r["task"], "t": t, "t_fraction": self.t_fraction(),
                         "arrows": "-f(t, z)" if r["task"] == "cnf" else "f(t, y)"},
                        col_labels=["x", "y", "u", "v"])

    def _data_task(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        tr = r["trace"]
        if r["task"] == "spiral":
            table = np.concatenate([tr.t[:, None], tr.true, tr.observed, tr.fitted], 1)
            return ViewData("trajectory", {"trajectory": table},
                            {"error_l1": tr.error_l1, **{f"trivial_{k}": v for k, v in
                                                         tr.trivial.items()}},
                            col_labels=["t", "true_x", "true_y", "observed_x", "observed_y",
                                        "fitted_x", "fitted_y"])
        if r["task"] == "classify":
            return ViewData("prob", {"prob": tr.prob, "points": tr.points,
                                     "labels": tr.labels, "predictions": tr.predictions},
                            {"extent": list(tr.extent), "accuracy": tr.accuracy,
                             "augment": tr.augment})
        t = self.current_t()
        k = int(np.argmin(np.abs(tr.times - t)))
        return ViewData("density", {"density": tr.density[k], "all_densities": tr.density,
                                    "times": tr.times, "samples": tr.samples[-1]},
                        {"extent": list(tr.extent), "t": float(tr.times[k]), "nll": tr.nll,
                         "entropy": tr.entropy})

    def _data_nfe(self) -> ViewData | None:
        session = self.sessions.get(self._session_key())
        if session is None or not session.nfe_forward:
            return None
        h = session.history()
        table = np.stack([h["nfe_forward"], h["nfe_backward"]], 1)
        marks = self.switches.get(self._session_key(), [])
        return ViewData("nfe", {"nfe": table.astype(np.float32)},
                        {"solvers": "; ".join(f"from step {s + 1}: {label}"
                                              for s, label in marks)},
                        row_labels=list(range(1, len(table) + 1)),
                        col_labels=["nfe_forward", "nfe_backward"])

    def _data_steps(self) -> ViewData | None:
        r = self.result
        if r is None or r.get("steps") is None:
            return None
        s = r["steps"]
        acc = np.stack([s.accepted_t, s.accepted_dt], 1)
        return ViewData("accepted", {"accepted": acc,
                                     "rejected": np.stack([s.rejected_t, s.rejected_dt], 1)},
                        {"method": s.method, "nfe": s.nfe, "t0": s.t0, "t1": s.t1,
                         "rejected": s.n_rejected},
                        col_labels=["t", "dt"])

    def _data_loss(self) -> ViewData | None:
        session = self.sessions.get(self._session_key())
        if session is None or not session.losses:
            return None
        h = session.history()
        return ViewData("loss", {"loss": h["loss"], "step_seconds": h["step_seconds"]},
                        {"task": session.task, "metric": session.metric_name,
                         "last_metric": session.last_metric},
                        row_labels=list(range(1, len(h["loss"]) + 1)),
                        col_labels=["loss"])

    def _data_adjoint(self) -> ViewData | None:
        c = self.comparisons.get(self._session_key())
        if c is None:
            return None
        a = c["result"]
        table = np.array([[a.seconds_direct, a.saved_bytes_direct, a.nfe_forward_direct,
                           a.nfe_backward_direct, a.loss_direct],
                          [a.seconds_adjoint, a.saved_bytes_adjoint, a.nfe_forward_adjoint,
                           a.nfe_backward_adjoint, a.loss_adjoint]], np.float64)
        return ViewData("comparison", {"comparison": table},
                        {"grad_rel_diff": a.grad_rel_diff, "solver": c["solver"],
                         "step": c["step"], "cuda_peak_direct": a.cuda_peak_direct,
                         "cuda_peak_adjoint": a.cuda_peak_adjoint},
                        row_labels=["direct", "adjoint"],
                        col_labels=["seconds", "saved_bytes", "nfe_forward", "nfe_backward",
                                    "loss"])

    # -- translations ----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.model_form.setTitle(self.tr("Task and model"))
        self.model_form.set_texts(
            {"task": self.tr("Task"), "data": self.tr("Data"), "density": self.tr("Density"),
             "hidden": self.tr("Hidden units"), "augment": self.tr("Augmented dimensions"),
             "lr": self.tr("Learning rate")},
            {"task": [self.tr("fit a spiral"), self.tr("classify"),
                      self.tr("continuous normalizing flow")],
             "data": [self.tr("two moons"), self.tr("circles")],
             "density": [self.tr("two moons"), self.tr("circles"), self.tr("8 gaussians"),
                         self.tr("checkerboard"), self.tr("two spirals"), self.tr("pinwheel"),
                         self.tr("rings"), self.tr("swiss roll")]})
        self.solver_form.setTitle(self.tr("Solver"))
        self.solver_form.set_texts(
            {"method": self.tr("Method"), "rtol": self.tr("rtol"), "atol": self.tr("atol"),
             "step_size": self.tr("Step size"), "adjoint": self.tr("Adjoint method"),
             "max_nfe": self.tr("NFE cap per solve")},
            {"method": [self.tr("dopri5 (adaptive, order 5)"),
                        self.tr("bosh3 (adaptive, order 3)"), self.tr("rk4 (fixed step)"),
                        self.tr("midpoint (fixed step)"), self.tr("euler (fixed step)")]})
        self.solver_form.setToolTip(self.tr("Changes apply to the running training from its "
                                            "next step on"))
        self.play_button.setText(self.tr("Pause") if self.play_button.isChecked()
                                 else self.tr("Play"))
        self.clear_button.setText(self.tr("Clear start points"))
        self.clear_button.setToolTip(self.tr("Click in the plane to start a trajectory there; "
                                             "drag a square to move it"))
        self.nfe_plot.set_axis_labels(self.tr("training step"), self.tr("evaluations of f"))
        self.steps_plot.set_axis_labels(self.tr("t"), self.tr("step size |dt|"))
        self.loss_plot.set_axis_labels(self.tr("training step"), self.tr("loss"))
        self.loss_plot.plotItem.getAxis("left").enableAutoSIPrefix(False)
        self.adjoint_plot.set_axis_labels("", self.tr("relative (the larger = 1)"))
        self._update_buttons()
        super().retranslate()
        if self.result is not None:
            self.show_trace(self.result)
        else:
            self._redraw_nfe()
            self._redraw_loss()
            self._redraw_adjoint()
        for v in self.views:
            v.panel.set_title(v.title())


# -- helpers (any thread) -------------------------------------------------------------------------
def _faded(colour: str, alpha: int = 90) -> tuple[int, int, int, int]:
    c = colour.lstrip("#")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), alpha)


def _parse_starts(value) -> list[tuple[float, float]]:
    """[[x, y], …] or "x,y; x,y" → [(x, y), …]."""
    if isinstance(value, str):
        parts = [p for p in value.replace(" ", "").split(";") if p]
        value = [p.split(",") for p in parts]
    out = []
    try:
        for pair in value:
            x, y = (float(v) for v in pair)
            if not (np.isfinite(x) and np.isfinite(y)):
                raise ValueError
            out.append((x, y))
    except (TypeError, ValueError):
        raise ValueError(f"starts must be points [[x, y], …] or \"x,y; x,y\", got {value!r}."
                         ) from None
    return out


def _paths_until(paths: np.ndarray, times: np.ndarray, t: float, backwards: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The part of each path the animation has run through by time t (from times[0], or
    from times[-1] when ``backwards``), ending at the interpolated position at t; and
    those positions. paths: float[n, T, 2], times ascending float[T]."""
    n = paths.shape[0]
    if n == 0:
        return np.zeros((0, 1, 2), np.float32), np.zeros((0, 2), np.float32)
    t = float(np.clip(t, times[0], times[-1]))
    j = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)) \
        if len(times) > 1 else 0
    if len(times) > 1:
        w = (t - times[j]) / max(times[j + 1] - times[j], 1e-12)
        now = (1 - w) * paths[:, j] + w * paths[:, j + 1]
    else:
        now = paths[:, 0]
    if backwards:
        shown = np.concatenate([now[:, None], paths[:, j + 1:]], 1)
    else:
        shown = np.concatenate([paths[:, :j + 1], now[:, None]], 1)
    return shown, now


def _bytes(n: float) -> str:
    for unit, size in (("MB", 2 ** 20), ("kB", 2 ** 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def _after(future, make_gen, *args):
    """``make_gen(*args)``'s items once the settings handed over before have reached the
    session (so Train right after a new NFE cap trains with that cap)."""
    if future is not None:
        future.result()
    yield from make_gen(*args)


def _compare_job(session):
    """The adjoint comparison as a one-report job."""
    result = session.compare_adjoint(repeats=3)
    yield Progress(step=1, total=1, loss=float(result.loss_direct), trace=result)


def _field_times(session, times: np.ndarray) -> np.ndarray:
    return times if session.func.time_dependent else times[:1]


def _fields(session, extent, times: np.ndarray) -> dict:
    """f(t, ·) on a FIELD_GRID² grid at each of ``times`` (one when f ignores t)."""
    from models.ode import vector_field

    times = _field_times(session, np.asarray(times, np.float32))
    with session.lock:
        out = [vector_field(session.func, extent, n=FIELD_GRID, t=float(t),
                            state_dim=session.func.dim) for t in times]
    return {"times": times.astype(np.float32), "x": out[0].x.ravel(), "y": out[0].y.ravel(),
            "u": np.stack([f.u.ravel() for f in out]),
            "v": np.stack([f.v.ravel() for f in out])}


def _bounds(*arrays: np.ndarray, pad: float = 0.08) -> tuple[float, float, float, float]:
    pts = np.concatenate([np.asarray(a, np.float64).reshape(-1, 2) for a in arrays])
    pts = pts[np.isfinite(pts).all(1)]
    lo, hi = pts.min(0), pts.max(0)
    p = pad * np.maximum(hi - lo, 1e-3)
    return (float(lo[0] - p[0]), float(hi[0] + p[0]), float(lo[1] - p[1]), float(hi[1] + p[1]))


def _solve_paths(session, task: str, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Trajectories of the current model from ``starts`` (state coordinates at the
    animation's start): (paths float[n, T, 2], times ascending float[T])."""
    from dataclasses import replace

    import torch

    from models.ode import odesolve

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


def _solve_errors():
    from models.ode import NFELimitExceeded

    return (NFELimitExceeded, AssertionError)


def _user_paths(session, task: str, starts: list, key: tuple) -> dict:
    out = {"key": key, "task": task, "starts": list(starts),
           "paths": np.zeros((0, 2, 2), np.float32), "times": np.zeros(2, np.float32)}
    if starts:
        try:
            out["paths"], out["times"] = _solve_paths(session, task, np.asarray(starts))
        except _solve_errors() as exc:
            out["error"] = str(exc).split("\n")[0]
    return out


def _ode_result(session, task: str, starts: list, key: tuple) -> dict:
    """Everything the tab draws, off the GUI thread: the task's trace, trajectories on a
    time grid, the vector field at those times, the solver's steps and your own start
    points' trajectories. A solve that fails within the settings (the NFE cap, an
    underflow in dt) gives ``display_error`` instead of a trace."""
    errors = _solve_errors()
    t_end = float(session.t_np[-1]) if task == "spiral" else float(session.t1)
    out: dict = {"task": task, "key": key, "step": session.step, "interval": (0.0, t_end)}
    try:
        out["steps"] = session.solver_steps()
    except errors as exc:
        out["steps"], out["steps_error"] = None, str(exc).split("\n")[0]
    try:
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
            import torch
            gen = torch.Generator().manual_seed(session.seed + 7)
            z = torch.randn(CNF_PATHS, 2, generator=gen).numpy()
            paths, times = _solve_paths(session, task, z)
            out.update(interval=(0.0, float(session.t1)), extent=tr.extent,
                       task_extent=tr.extent)
    except errors as exc:
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
    out["user"] = _user_paths(session, task, starts, key)
    out["user_error"] = out["user"].get("error", "")
    return out
