"""The neural-ODE tab: a network f(t, y) is the velocity of a state and the model's output
is the state after an ODE solver has integrated it (continuous depth). Three tasks
(torchdiffeq's spiral fit, a classifier of two moons or circles with optional augmented
dimensions, and a continuous normalizing flow on a 2D density), trained live; the solver,
its tolerances, the adjoint method and an NFE cap can be changed while training runs.

Views: the learned vector field with trajectories animated along t, the task's own view
(fit, decision regions, density p_t), the function evaluations per training step, the
steps the solver took (accepted / rejected), the loss, and a direct-vs-adjoint
comparison (time, memory kept for backward, NFE, gradient difference).

This module holds the controls and their wiring, the jobs and the time axis; the views
are the classes of ``views``, each shown what it draws; the controls' values are an
``ODERequest``; the background computations are ``models.ode.probe``'s (``gc_hold`` holds
garbage collection off during each of their steps)."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton

from app.jobs import ComputeRunner
from app.tabs.base import TabContext
from app.tabs.ode.controls import (
    MAX_STARTS,
    MODEL_PARAMS,
    SLIDER_MAX,
    SOLVER_PARAMS,
    STATE_KEYS,
    TASK_DEFAULTS,
    _flag,
    read_time_and_starts,
    retranslate_forms,
)
from app.tabs.ode.gc_hold import held, held_steps
from app.tabs.ode.state import ODESessionFile
from app.tabs.ode.views import (
    AdjointView,
    FieldView,
    LossView,
    NFEView,
    SessionShown,
    StepsView,
    TaskView,
    TimeShown,
    solve_note,
    solver_label,
)
from app.tabs.training import TrainingTab
from models.ode.options import ADAPTIVE, TASKS, ODERequest
from models.traces import Progress
from models.traces.ode import ODEResult, UserPaths
from viz.controls import ParamForm


class ODETab(ODESessionFile, TrainingTab):
    key = "ode"
    #: (session key, step or None, solver settings or None): a change reached a session
    settings_applied = Signal(object)

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        #: per session: [(step, solver label)] — the solver from that step on
        self.switches: dict[tuple, list[tuple[int, str]]] = {}
        self.comparisons: dict[tuple, dict] = {}
        #: what was last handed to each session (solver settings, learning rate)
        self._asked: dict[tuple, dict] = {}
        # the 4 most recently used models (issue 19); their marks and comparisons go with them
        self.sessions = self.keep_sessions(
            4, lambda: self._session_key(), lambda: self.running() and self._running_key,
            forget=(self.switches, self.comparisons, self._asked))
        #: the user's start points per task (state coordinates at the animation's start)
        self.starts: dict[str, list[tuple[float, float]]] = {t: [] for t in TASKS}
        self.user_paths: UserPaths | None = None
        self.result: ODEResult | None = None
        self._running_key: tuple | None = None
        self._pending_compare = False
        self._last_redraw = 0.0
        self._task = "spiral"
        self._shown_key: tuple | None = None
        self._settings_pool = None
        self._settings_future = None
        self.settings_applied.connect(self._on_settings_applied)
        self.model_form = ParamForm(MODEL_PARAMS)
        self.solver_form = ParamForm(SOLVER_PARAMS)
        self.compare_button = QPushButton()
        self.compare_button.setObjectName("CompareButton")
        self.compare_button.clicked.connect(self.toggle_compare)
        lay = self.controls_layout
        lay.addWidget(self.model_form)
        lay.addWidget(self.solver_form)
        self.add_training_controls(lay)
        lay.insertWidget(lay.indexOf(self.train_button) + 1, self.compare_button)
        lay.addStretch(1)
        self.model_form.changed.connect(self._model_changed)
        self.solver_form.changed.connect(self._solver_changed)
        self._build_views()
        self.paths_runner = ComputeRunner(self)     # the user's trajectories only (drags)
        self.paths_runner.done.connect(self._on_user_paths)
        self.paths_runner.failed.connect(self._on_failure)
        # each model's adjoint comparison, run once on its own (0.2 … 0.7 s on a CPU) so
        # the view shows the untrained model's figures, not an empty box
        self.compare_runner = ComputeRunner(self)
        self.compare_runner.done.connect(self._on_auto_compare)
        self._update_rows()
        self.retranslate()
        self.schedule_update()

    # -- views ---------------------------------------------------------------------------------
    def _build_views(self) -> None:
        """The six views; the plane's play button, t slider and Clear button are its."""
        self.tab_views = (FieldView(self), TaskView(self), NFEView(self), StepsView(self),
                          LossView(self), AdjointView(self))
        (self.field_view, self.task_view, self.nfe_view, self.steps_view, self.loss_view,
         self.adjoint_view) = self.tab_views
        fv = self.field_view
        fv.clicked.connect(self.add_start)
        fv.moved.connect(self.move_start)
        self.play_button, self.slider = fv.play_button, fv.slider
        self.t_label, self.clear_button, self.timer = fv.t_label, fv.clear_button, fv.timer
        self.slider.valueChanged.connect(self._slider_moved)
        self.clear_button.clicked.connect(self.clear_starts)
        for view, place in zip(self.tab_views, ((0, 0, 1, 2), (0, 2, 1, 2), (1, 0), (1, 1),
                                                (1, 2), (1, 3)), strict=True):
            self.add_view(view, *place)
            view.status.connect(self.ctx.status)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        for c in range(4):
            self.grid.setColumnStretch(c, 1)

    def _retitle(self) -> None:
        ask = self.request()
        for view in self.tab_views:
            view.retitle(ask)

    def _show_training(self, *views) -> None:
        """The NFE timeline, the loss and the comparison (or those of ``views``) of the
        model shown, read once from its session."""
        key = self._session_key()
        shown = SessionShown.of(self.sessions.get(key), self.comparisons.get(key),
                                self.switches.get(key, []))
        for view in views or (self.nfe_view, self.loss_view, self.adjoint_view):
            view.show(shown, None)

    def _time_shown(self) -> TimeShown:
        r = self.result
        return TimeShown(r, self.current_t(), self.t_fraction(), self.user_paths,
                         tuple(self.starts[r.task]))

    def _show_field(self) -> None:
        if self.result is not None:
            self.field_view.show(self._time_shown(), self.request())

    @property
    def trace(self) -> ODEResult | None:
        return self.result

    # -- parameters ------------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.model_form.values(), **self.solver_form.values()}

    def request(self) -> ODERequest:
        """The controls as the models' request."""
        return ODERequest.from_values(self.params())

    def solver_kwargs(self) -> dict:
        return self.request().solver_kwargs

    # over 60 lines: one block per state key, read and checked before any is applied
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
        if strict:          # every value the request knows, checked as the request does
            ODERequest.from_values({**self.params(), **state})
        problems = []
        if "task" in state:
            problems += self.model_form.set_values({"task": state["task"]})
            self._take_task_defaults(except_keys=set(state))
        problems += self.model_form.set_values({k: v for k, v in state.items() if k != "task"})
        problems += self.solver_form.set_values(state)
        t, starts = read_time_and_starts(state, problems)
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
        if "train" in state and _flag(state["train"]) != (self.running() == "train"):
            self.toggle_training()
        if _flag(state.get("compare", False)):
            if self.torch_ready:
                if self.running() != "compare":
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
        self.field_view.set_backwards(task == "cnf")

    def _model_changed(self) -> None:
        task_before = self._task
        self._take_task_defaults()
        self._update_rows()
        if self._task != task_before:         # show the end of the new task's animation
            self.slider.setValue(0 if self._task == "cnf" else SLIDER_MAX)
        if (self.jobs.is_running() and self._running_key is not None
                and self._session_key() != self._running_key):
            self.stop_jobs()
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
        self.update_buttons()
        self._retitle()
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
            self._mark_switch(key, step, solver_label(self.sessions[key].solver, short=True))
            if key == self._session_key():
                self._show_training(self.nfe_view)
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

    def _session_key(self) -> tuple:
        return self.request().session_key

    def session(self):
        from models.ode import ClassifierSession, CNFSession, SolverConfig, SpiralSession

        key = self._session_key()
        if key not in self.sessions:
            ask = self.request()
            cfg = SolverConfig(**ask.solver_kwargs)
            device = self.ctx.device()
            if ask.task == "spiral":
                s = SpiralSession(hidden=ask.hidden, lr=ask.lr, device=device, solver=cfg)
            elif ask.task == "classify":
                s = ClassifierSession(data=ask.data, augment=ask.augment, hidden=ask.hidden,
                                      lr=ask.lr, device=device, solver=cfg)
            else:
                s = CNFSession(density=ask.density, hidden=ask.hidden, lr=ask.lr,
                               device=device, solver=cfg)
            self.sessions[key] = s
            self.switches[key] = [(0, solver_label(s.solver, short=True))]
            self._asked[key] = {"lr": ask.lr, "solver": ask.solver_kwargs}
        return self.sessions[key]

    def training_sessions(self):
        return list(self.sessions.values())

    def shutdown(self) -> None:
        self.timer.stop()
        self.paths_runner.close()
        self.compare_runner.close()
        if self._settings_pool is not None:
            self._settings_pool.shutdown(wait=False)
        super().shutdown()

    # -- computing --------------------------------------------------------------------------------
    def compute_fn(self):
        from models.ode.probe import ode_result

        session = self.session()
        task = self.params()["task"]
        return held(partial(ode_result, session, task, list(self.starts[task]),
                            self._session_key()))

    def compute_now(self) -> None:
        """Synchronously (headless export): the views, and a comparison asked for."""
        from models.ode.probe import adjoint_comparison

        self._wait_for_settings()
        super().compute_now()
        if self._pending_compare or self._session_key() not in self.comparisons:
            self._pending_compare = False
            result = adjoint_comparison(self.session())
            self._store_comparison(self._session_key(), result)
            self._show_training(self.adjoint_view)

    def show_trace(self, result: ODEResult) -> None:
        if result is None or result.key != self._session_key():
            return                       # computed for a model no longer shown
        if result.display_error and self.result is not None and \
                self.result.key == result.key and self.result.trace is not None:
            # this model cannot be solved within the settings (e.g. the NFE cap): keep
            # what was drawn, say why it is not redrawn
            self.field_view.say(*solve_note(result.display_error))
            self.steps_view.show(result, self.request())
            return
        self.result = result
        self.user_paths = result.user
        self._slider_moved(self.slider.value())
        self.steps_view.show(result, self.request())
        self._show_training()
        self._retitle()
        self.update_buttons()
        self.when_shown(lambda: self.result is not None and self._auto_compare(self.result),
                        key="auto_compare")

    def _auto_compare(self, result: ODEResult) -> None:
        """The adjoint comparison of a model shown for the first time, or trained since
        its comparison, off the GUI thread (not while a job runs: training would slow
        both and skew the times; the panel says meanwhile which step it compared)."""
        key = result.key
        if (self.comparison_is_current(key) or result.display_error
                or self.jobs.is_running() or self.compare_runner.is_busy()
                or key not in self.sessions):
            return
        from models.ode.probe import adjoint_comparison

        session = self.sessions[key]
        self.compare_runner.request(held(lambda: (key, session.step,
                                                  adjoint_comparison(session))))

    def comparison_is_current(self, key: tuple) -> bool:
        """The model ``key`` has a comparison of the weights it has now (the panel
        showed the untrained model's after 172 training steps)."""
        c, session = self.comparisons.get(key), self.sessions.get(key)
        return c is not None and session is not None and c["step"] == session.step

    def _on_auto_compare(self, done: tuple) -> None:
        key, step, comparison = done
        session = self.sessions.get(key)
        if session is not None and not self.comparison_is_current(key) and \
                step == session.step:
            self.comparisons[key] = {"result": comparison, "step": step,
                                     "solver": solver_label(self.sessions[key].solver)}
            if key == self._session_key():
                self._show_training()           # the untrained model's step 0 too

    # -- the time axis ------------------------------------------------------------------------------
    def t_fraction(self) -> float:
        return self.slider.value() / SLIDER_MAX

    def current_t(self) -> float:
        r = self.result
        if r is None:
            return 0.0
        t0, t1 = r.interval
        return t0 + self.t_fraction() * (t1 - t0)

    def _slider_moved(self, _value: int) -> None:
        r = self.result
        if r is None:
            self.t_label.setText("")
            return
        shown = self._time_shown()
        self.t_label.setText(self.tr("t = {0:.2f} of {1:g}").format(shown.t, r.interval[1]))
        ask = self.request()
        self.field_view.show(shown, ask)
        self.task_view.show(shown, ask)

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
        self._show_field()

    def _request_user_paths(self) -> None:
        task = self.params()["task"]
        self.user_paths = None
        self._show_field()                  # the start point shows at once
        if self.torch_ready and self.starts[task]:
            from models.ode.probe import user_paths

            self.paths_runner.request(held(partial(user_paths, self.session(), task,
                                                   list(self.starts[task]),
                                                   self._session_key())))

    def _on_user_paths(self, u: UserPaths) -> None:
        if u.key != self._session_key() or u.starts != tuple(self.starts[u.task]):
            return
        self.user_paths = u
        if self.result is not None:
            self.result = replace(self.result, user_error=u.error)
            self._show_field()

    # -- training and the comparison ----------------------------------------------------------------
    def toggle_compare(self) -> None:
        self.toggle_job("compare")

    def make_job(self, name: str):
        session = self.session()
        self._running_key = self._session_key()
        if name == "train":
            return partial(held_steps, partial(_after, self._settings_future, session.train,
                                               1_000_000))
        from models.ode.probe import compare_job

        self.job_bar.show_progress(0, self.tr("Comparing the adjoint method with direct "
                                              "backpropagation…"))
        return partial(held_steps, partial(_after, self._settings_future, compare_job, session))

    def _store_comparison(self, key: tuple, result) -> None:
        session = self.sessions[key]
        self.comparisons[key] = {"result": result, "step": session.step,
                                 "solver": solver_label(session.solver)}

    def job_text(self, name: str, progress: Progress) -> str:
        if name == "compare":
            return self.tr("The comparison is done.") if progress.trace is not None else ""
        m = progress.metrics
        return self.tr(
            "Training: step {0} · loss {1:.4f} · NFE {2:.0f} forward, {3:.0f} backward · "
            "{4:.1f} steps/s").format(progress.step, progress.loss,
                                      m.get("nfe_forward", float("nan")),
                                      m.get("nfe_backward", float("nan")),
                                      m.get("steps_per_s", float("nan")))

    def job_fraction(self, name: str, progress: Progress) -> float:
        return 1.0 if name == "compare" else 0.0

    def job_done_text(self, name: str, completed: bool, failed: bool) -> str:
        if name == "compare" and completed and not failed:
            return self.tr("The comparison is done.")
        return ""

    def on_job_progress(self, name: str, progress: Progress) -> None:
        if name == "compare":
            if progress.trace is not None and self._running_key in self.sessions:
                self._store_comparison(self._running_key, progress.trace)
                if self._running_key == self._session_key():
                    self._show_training(self.adjoint_view)
            return
        if self._running_key == self._session_key():
            self._show_training(self.nfe_view)  # cheap: every report
            now = time.monotonic()
            if now - self._last_redraw > 1.0:   # the field, the fit, the steps: once a second
                self._last_redraw = now
                self._show_training(self.loss_view)
                self.request_update()

    def update_buttons(self) -> None:
        super().update_buttons()
        self.compare_button.setText(self.tr("Stop the comparison")
                                    if self.running() == "compare"
                                    else self.tr("Compare adjoint on/off"))
        self.compare_button.setEnabled(self.torch_ready)

    def current_session(self):
        return self.sessions.get(self._session_key())

    # -- translations ----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        retranslate_forms(self)
        for view in self.tab_views:
            view.label()
        super().retranslate()
        if self.result is not None:
            self.show_trace(self.result)
        else:
            self._show_training()
        self._retitle()


def _after(future, make_gen, *args):
    """``make_gen(*args)``'s items once the settings handed over before have reached the
    session (so Train right after a new NFE cap trains with that cap)."""
    if future is not None:
        future.result()
    yield from make_gen(*args)
