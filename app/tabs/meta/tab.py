"""The meta-learning tab: MAML, first-order MAML, Reptile and a pretrained baseline
meta-trained side by side on sinusoid regression (Finn et al. 2017) and adapted live to a
test task whose K support points the student drags; the MSE after 0…10 adaptation steps
over 600 test tasks with 95 % confidence bands (also out of distribution); and a
prototypical network on 2D few-shot episodes, drawn in the input and in the embedding.

Two training jobs on the ``TrainingTab`` base: "meta" (the base's Train button, worded
"Meta-train") and "proto" (its own button). The views are the classes of ``views``,
each shown what it draws; the controls' values are a ``MetaRequest``, which the
background computations of ``models.meta.probe`` take.
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np

from app.jobs import ComputeRunner
from app.tabs.base import TabContext
from app.tabs.meta.controls import (
    ACTIONS,
    MAX_SUPPORT,
    TRAIN_AMP_MAX,
    _truthy,
    build_controls,
    parse_methods,
    parse_support,
)
from app.tabs.meta.state import MetaSessionFile
from app.tabs.meta.views import (
    AdaptView,
    EvalShown,
    LossShown,
    LossView,
    MSEView,
    ProtoEmbeddingView,
    ProtoInputView,
    method_labels,
    short_labels,
)
from app.tabs.training import TrainingTab
from models.meta.options import ADAPT_STEPS, EVAL_TASKS, METHODS, X_RANGE, MetaRequest
from models.traces import Progress
from models.traces.meta import MetaEvalTrace, MetaResult


class MetaTab(MetaSessionFile, TrainingTab):
    train_job = "meta"          # the Train button meta-trains; the embedding has its own
    key = "meta"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.session = None                  # models.meta.MetaSession, made when torch is ready
        self.proto = None                    # models.meta.ProtoSession
        self.result: MetaResult | None = None    # the task, the adapted curves, the episode
        self.eval_result: MetaEvalTrace | None = None
        self.support: np.ndarray | None = None   # float[n, 2]; None: the task's K points
        self._want_eval = False              # evaluate once the session exists
        self._last_curves = 0.0
        self._last_redraw = 0.0
        self.evaluator = ComputeRunner(self)
        self.evaluator.done.connect(self._on_eval)
        self.evaluator.failed.connect(self._on_failure)
        self.evaluator.failed.connect(lambda f: self._set_eval_busy(False))
        self._eval_busy = False
        # the base's Train button is the meta-training button
        build_controls(self)
        self.meta_form.changed.connect(self._meta_changed)
        self.task_form.changed.connect(self._task_form_changed)
        self.show_form.changed.connect(self._redraw_all)
        self.proto_form.changed.connect(self._proto_changed)
        self._build_views()
        self._task_key = self._current_task_key()
        self.retranslate()
        self.schedule_update()

    # -- views ---------------------------------------------------------------------------------
    def _build_views(self) -> None:
        self.adapt_view, self.mse_view, self.loss_view = AdaptView(self), MSEView(self), \
            LossView(self)
        self.proto_input_view, self.proto_embedding_view = ProtoInputView(self), \
            ProtoEmbeddingView(self)
        self.tab_views = (self.adapt_view, self.mse_view, self.loss_view,
                          self.proto_input_view, self.proto_embedding_view)
        self.adapt_view.moved.connect(self.move_point)
        self.adapt_view.clicked.connect(self.add_point)
        self.adapt_view.removed.connect(self.remove_point)
        # the adaptation view's scrubber is a control of the tab
        self.steps_label = self.adapt_view.steps_label
        self.steps_slider = self.adapt_view.steps_slider
        self.trail_box = self.adapt_view.trail_box
        self.steps_slider.valueChanged.connect(self._steps_moved)
        self.trail_box.toggled.connect(self._trail_toggled)
        self.add_view(self.adapt_view, 0, 0, 1, 2)
        self.add_view(self.mse_view, 0, 2)
        self.add_view(self.loss_view, 1, 0)
        self.add_view(self.proto_input_view, 1, 1)
        self.add_view(self.proto_embedding_view, 1, 2)
        for view in self.tab_views:
            view.status.connect(self.ctx.status)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        for c in range(3):
            self.grid.setColumnStretch(c, 1)

    def shown_methods(self) -> list[str]:
        return self.request().shown_methods

    # -- parameters ------------------------------------------------------------------------------
    def params(self) -> dict:
        p = {**self.meta_form.values(), **self.task_form.values(), **self.show_form.values(),
             **self.proto_form.values()}
        p["k"] = int(p["k"])
        p["steps_shown"] = self.steps_slider.value()
        return p

    def request(self) -> MetaRequest:
        """The controls as the models' request."""
        return MetaRequest.from_values(self.params())

    def apply_state(self, state: dict, strict: bool = False) -> None:
        """Set controls from ``state``. Besides every control: ``train`` / ``train_proto``
        (start or stop meta-training / the prototypical network), ``evaluate`` (run the
        600-task evaluation), ``support`` (a list of [x, y] pairs, also as a JSON string;
        empty or "task": the task's own K points), ``steps_shown`` (0 … 10), ``methods``
        (a list or comma-separated names: which methods are shown)."""
        from models.errors import InvalidParameterError

        known = set(self.params()) | set(ACTIONS)
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        if strict:          # every value the request knows, checked as the request does
            MetaRequest.from_values({**self.params(), **state})
        state = dict(state)
        problems = []
        if "methods" in state:
            shows, problems = parse_methods(state["methods"])
            for key, value in shows.items():
                state.setdefault(key, value)
        before = self._current_task_key()
        problems += (self.meta_form.set_values(state) + self.task_form.set_values(state)
                     + self.show_form.set_values(state) + self.proto_form.set_values(state))
        if "steps_shown" in state:
            try:
                s = int(float(state["steps_shown"]))
                if not 0 <= s <= ADAPT_STEPS:
                    raise ValueError
                self.steps_slider.setValue(s)
            except (TypeError, ValueError):
                problems.append(f"steps_shown must be a whole number from 0 to {ADAPT_STEPS}, "
                                f"got {state['steps_shown']}.")
        support = None
        if "support" in state:
            try:
                support = parse_support(state["support"])
            except (TypeError, ValueError) as exc:
                problems.append(f"support: {exc}")
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        self._sync_trail()
        self._meta_changed()
        if self._current_task_key() != before:
            self._task_changed()
        if "support" in state:
            self.support = support
            self._readapt()
        self._proto_changed()
        self._redraw_all()
        for key, which in (("train", "meta"), ("train_proto", "proto")):
            if key in state and _truthy(state[key]) != (self.running() == which):
                self.toggle_job(which)
        if "evaluate" in state and _truthy(state["evaluate"]):
            self.evaluate()

    def _current_task_key(self) -> tuple:
        return self.request().task_key

    def _meta_changed(self) -> None:
        """K, the learning rates, the inner steps and the meta batch apply to the running
        session from its next step (no restart)."""
        s = self.session
        if s is not None:
            options = self.request().session_options
            if any(getattr(s, k) != v for k, v in options.items()):
                try:        # waits for the step in progress (the session's lock)
                    s.set_options(**options)
                except Exception as exc:  # noqa: BLE001 - InvalidParameterError: shown
                    self.error_note.setText(str(exc))
        if self._current_task_key() != self._task_key:
            self._task_changed()
        else:
            self._readapt()

    def _sync_trail(self) -> None:
        self.trail_box.blockSignals(True)
        self.trail_box.setChecked(self.task_form.values()["trail"])
        self.trail_box.blockSignals(False)

    def _trail_toggled(self, on: bool) -> None:
        self.task_form.set_values({"trail": on})
        self._redraw()

    def _task_form_changed(self) -> None:
        self._sync_trail()
        if self._current_task_key() != self._task_key:
            self._task_changed()
        else:
            self._redraw()

    def _task_changed(self) -> None:
        key = self._current_task_key()
        if key != self._task_key:
            self._task_key = key
            self.support = None              # a new task: its own K points
        self._update_notes()
        ask = self.request()
        self.adapt_view.retitle(ask)
        if self.eval_result is not None and (self.eval_result.k, self.eval_result.amp_max) != (
                ask.k, ask.amp_max):
            self.evaluate()                  # the shown evaluation follows K and the range
        self._readapt()

    def _proto_changed(self) -> None:
        ps = self.proto
        ask = self.request()
        if ps is not None:
            options = ask.proto_options
            if any(getattr(ps, k) != v for k, v in options.items()):
                try:
                    ps.set_options(**options)
                except Exception as exc:  # noqa: BLE001 - InvalidParameterError: shown
                    self.error_note.setText(str(exc))
        # the input regions' choice: the title, the episode redrawn (no new one)
        self._show_episode(ask)
        self.schedule_update()

    def _readapt(self) -> None:
        self.schedule_update()

    def _update_notes(self) -> None:
        amp = self.request().amp_max
        self.ood_note.setText(self.tr(
            "Test amplitudes up to {0:g}, training went up to {1:g}: tasks with an amplitude "
            "above {1:g} are out of distribution.").format(amp, TRAIN_AMP_MAX)
            if amp > TRAIN_AMP_MAX else "")

    # -- sessions ----------------------------------------------------------------------------------
    def _make_sessions(self) -> None:
        from models.meta import MetaSession, ProtoSession

        ask = self.request()
        if self.session is None:
            self.session = MetaSession(**ask.session_options, device=self.ctx.device())
        if self.proto is None:
            self.proto = ProtoSession(**ask.proto_options, device=self.ctx.device())

    def training_sessions(self) -> list:
        return [s for s in (self.session, self.proto) if s is not None]

    def on_torch_ready(self) -> None:
        self._make_sessions()
        if self.eval_result is None:
            # the untrained methods' evaluation (about 2 s off the GUI thread): the view
            # shows where every method starts, not an empty box
            self._want_eval = True
        super().on_torch_ready()
        if self._want_eval:
            self.when_shown(self.evaluate)

    def reset_meta(self) -> None:
        """Start meta-training over: every method back to the initial weights (seed 0)."""
        if self.running() == "meta":
            self.stop_jobs()
        if not self.torch_ready:
            return
        self.session = None
        self.eval_result = None
        self.evaluator.invalidate()          # an evaluation under way is of the old weights
        self._set_eval_busy(False)
        self._make_sessions()
        self.error_note.setText("")
        self._show_evaluation()
        self._show_losses()
        self.update_buttons()
        self.request_update()

    def reset_proto(self) -> None:
        if self.running() == "proto":
            self.stop_jobs()
        if not self.torch_ready:
            return
        self.proto = None
        self._make_sessions()
        self.error_note.setText("")
        self.update_buttons()
        self.request_update()

    # -- computing -----------------------------------------------------------------------------------
    def compute_fn(self):
        from models.meta.probe import meta_result

        if self.session is None:
            self._make_sessions()
        ask = self.request()
        shown = self.result
        episode_key = (ask.episode_seed, ask.n_way, ask.k_shot, ask.family, self.proto.step,
                       id(self.proto))
        reuse = shown.episode if shown is not None and shown.episode_key == episode_key \
            else None
        return partial(meta_result, self.session, self.proto, ask, self.support, episode_key,
                       reuse)

    def show_trace(self, result: MetaResult) -> None:
        if result is None:
            return
        new_task = self.result is None or self.result.task_key != result.task_key
        self.result = result
        ask = self.request()
        self.adapt_view.show(result, ask)
        if new_task:              # a y range for the task; a drag keeps the student's zoom
            self.adapt_view.frame(result.task.amplitude)
        self._show_losses(ask)
        self._show_episode(ask)

    def shutdown(self) -> None:
        self.evaluator.close()
        super().shutdown()

    def compute_now(self) -> None:
        """Synchronously (headless export, tests), the evaluation too when asked for."""
        from models.meta.probe import meta_evaluation

        super().compute_now()
        if self._want_eval or self._eval_busy:
            self.evaluator.invalidate()
            self._on_eval(meta_evaluation(self.session, self.request()))

    # -- the adaptation view ---------------------------------------------------------------------
    def _steps_moved(self, value: int) -> None:
        self._redraw()

    def _redraw(self) -> None:
        self.adapt_view.show(self.result, self.request())

    def _redraw_all(self) -> None:
        ask = self.request()
        self.adapt_view.show(self.result, ask)
        self._show_evaluation(ask)
        self._show_losses(ask)

    def _show_evaluation(self, ask: MetaRequest | None = None) -> None:
        step = self.session.step if self.session is not None else None
        self.mse_view.show(EvalShown(self.eval_result, step), ask or self.request())

    def _show_losses(self, ask: MetaRequest | None = None) -> None:
        self.loss_view.show(LossShown.of(self.session), ask or self.request())

    def _show_episode(self, ask: MetaRequest | None = None) -> None:
        """The episode in the input plane (learned or baseline regions) and in the
        embedding; without one, the planes' titles."""
        ask = ask or self.request()
        e = self.result.episode if self.result is not None else None
        self.proto_input_view.show(e, ask)
        self.proto_embedding_view.show(e, ask)

    # -- the support points ----------------------------------------------------------------------
    def _points(self) -> np.ndarray:
        if self.support is not None:
            return self.support.copy()
        if self.result is not None:
            t = self.result.adapt
            return np.stack([t.x_support, t.y_support], 1).astype(np.float32)
        return np.zeros((0, 2), np.float32)

    def move_point(self, i: int, x: float, y: float) -> None:
        pts = self._points()
        if not 0 <= i < len(pts):
            return
        pts[i] = (np.clip(x, *X_RANGE), y)
        self.support = pts
        self.adapt_view.show_support(pts)
        self._readapt()

    def add_point(self, x: float, y: float) -> None:
        pts = self._points()
        if len(pts) >= MAX_SUPPORT or not X_RANGE[0] <= x <= X_RANGE[1]:
            return
        self.support = np.concatenate([pts, np.array([[x, y]], np.float32)])
        self.adapt_view.show_support(self.support)
        self._readapt()

    def remove_point(self, i: int) -> None:
        pts = self._points()
        if 0 <= i < len(pts):
            self.support = np.delete(pts, i, axis=0)
            self.adapt_view.show_support(self.support)
            self._readapt()

    def reset_points(self) -> None:
        self.support = None
        self._readapt()

    def new_task(self) -> None:
        seed = (self.task_form.values()["task_seed"] + 1) % 100000
        self.task_form.set_values({"task_seed": seed})
        self._task_changed()

    def new_episode(self) -> None:
        seed = (self.proto_form.values()["episode_seed"] + 1) % 100000
        self.proto_form.set_values({"episode_seed": seed})
        self._proto_changed()

    # -- evaluation over 600 tasks ---------------------------------------------------------------
    def evaluate(self) -> None:
        """MSE after 0 … 10 steps over 600 test tasks, off the GUI thread."""
        from models.meta.probe import meta_evaluation

        if not self.torch_ready:
            self._want_eval = True
            return
        self._make_sessions()
        self._want_eval = False
        ask = self.request()
        self._set_eval_busy(True)
        self.evaluator.request(partial(meta_evaluation, self.session, ask))

    def _set_eval_busy(self, busy: bool) -> None:
        self._eval_busy = busy
        self.eval_button.setText(self.tr("Evaluating…") if busy else
                                 self.tr("Evaluate on {0} tasks").format(EVAL_TASKS))

    def _on_eval(self, trace: MetaEvalTrace) -> None:
        # one of this session's: "Start over" drops the evaluations still under way
        self._set_eval_busy(False)
        self._want_eval = False
        self.eval_result = trace
        self._show_evaluation()

    # -- training -----------------------------------------------------------------------------------
    def toggle_proto_training(self) -> None:
        self.toggle_job("proto")

    def make_job(self, name: str):
        self._make_sessions()
        session = self.session if name == "meta" else self.proto
        return partial(session.train, 10_000_000)

    def job_text(self, name: str, progress: Progress) -> str:
        if name == "meta":
            labels = short_labels()
            parts = " · ".join(f"{labels[m]} {progress.metrics[f'loss_{m}']:.3f}"
                               for m in METHODS if f"loss_{m}" in progress.metrics)
            return self.tr(
                "Meta-training: step {0} · query MSE {1} · {2:.1f} steps/s").format(
                    progress.step, parts, progress.metrics.get("steps_per_s", float("nan")))
        return self.tr(
            "Prototypical network: episode {0} · loss {1:.3f} · accuracy {2:.0%} · "
            "{3:.0f} episodes/s").format(progress.step, progress.loss,
                                         progress.metrics.get("accuracy", float("nan")),
                                         progress.metrics.get("steps_per_s", float("nan")))

    def on_job_progress(self, name: str, progress: Progress) -> None:
        now = time.monotonic()
        if name == "meta" and now - self._last_curves > 0.3:
            self._last_curves = now
            self._show_losses()
        if now - self._last_redraw > 1.0:      # the adapted curves / the episode, refreshed
            self._last_redraw = now
            self.request_update()
        self.update_buttons()

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        self._show_losses()
        self.request_update()
        if name == "meta" and not failed and self.session is not None and self.session.step:
            self.evaluate()                   # the MSE view follows the trained weights

    def update_buttons(self) -> None:
        """Word both Train buttons ("Meta-train", "Train the embedding"), enable the
        buttons and write both status lines."""
        s, ps = self.session, self.proto
        self.train_button.setText(self.job_button_text("meta", (
            self.tr("Resume meta-training") if s is not None and s.step else
            self.tr("Meta-train"))))
        self.proto_train_button.setText(self.job_button_text("proto", (
            self.tr("Resume training") if ps is not None and ps.step else
            self.tr("Train the embedding"))))
        for b in (self.train_button, self.proto_train_button, self.reset_button,
                  self.proto_reset_button, self.eval_button):
            b.setEnabled(self.torch_ready)
        self.status.setText(self.status_text())
        self.proto_status.setText("" if ps is None or not ps.step else self.tr(
            "{0} episodes trained").format(ps.step))

    def current_session(self):
        return self.session

    def status_text(self) -> str:
        s = self.session
        return "" if s is None or not s.step else self.tr(
            "{0} meta-steps trained (each: {1} tasks, all four methods)").format(
                s.step, s.meta_batch)

    # -- translations -----------------------------------------------------------------------------------
    def retranslate(self) -> None:  # every text of the tab, once per language
        self.meta_form.setTitle(self.tr("Sinusoid regression: meta-training"))
        self.meta_form.set_texts(
            {"k": self.tr("K (support points)"), "inner_lr": self.tr("Inner learning rate α"),
             "inner_steps": self.tr("Inner steps (MAML, FOMAML)"),
             "reptile_steps": self.tr("Inner steps (Reptile)"),
             "meta_batch": self.tr("Meta batch (tasks)"),
             "meta_lr": self.tr("Meta learning rate β")}, {})
        self.task_form.setTitle(self.tr("Test task"))
        self.task_form.set_texts(
            {"amp_max": self.tr("Largest amplitude"), "task_seed": self.tr("Task seed"),
             "trail": self.tr("Show earlier steps")}, {})
        self.show_form.setTitle(self.tr("Methods shown"))
        labels = method_labels()
        self.show_form.set_texts({f"show_{m}": labels[m] for m in METHODS}, {})
        self.proto_form.setTitle(self.tr("Prototypical networks"))
        self.proto_form.set_texts(
            {"family": self.tr("Task family"), "n_way": self.tr("N (classes)"),
             "k_shot": self.tr("K (shots per class)"), "episode_seed": self.tr("Episode seed"),
             "input_regions": self.tr("Input regions")},
            {"family": [self.tr("blobs"), self.tr("rings"), self.tr("stretched blobs")],
             "input_regions": [self.tr("learned: nearest prototype after embedding"),
                               self.tr("baseline: nearest class mean in the input")]})
        self.reset_button.setText(self.tr("Start over"))
        self.reset_button.setToolTip(self.tr("Every method back to the same initial "
                                             "weights; the training so far is dropped"))
        self.proto_reset_button.setText(self.tr("Start over"))
        self.new_task_button.setText(self.tr("New task"))
        self.reset_points_button.setText(self.tr("Reset points"))
        self.new_episode_button.setText(self.tr("New episode"))
        self.mouse_note.setText(self.tr("In the main view: drag a support point to move it, "
                                        "click on empty space to add one, right-click a point "
                                        "to remove it."))
        self._set_eval_busy(self._eval_busy)
        self.eval_button.setToolTip(self.tr("Each method adapts to {0} new tasks (K points "
                                            "each) and is scored on the whole curve after "
                                            "0 … {1} steps").format(EVAL_TASKS, ADAPT_STEPS))
        for view in self.tab_views:
            view.label()
        self._update_notes()
        super().retranslate()               # the tour, the job bar and update_buttons
        self._redraw_all()                  # every view's title and read-out anew
        self._show_episode()

    @property
    def trace(self):
        return self.result
