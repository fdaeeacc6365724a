"""The meta-learning tab: MAML, first-order MAML, Reptile and a pretrained baseline
meta-trained side by side on sinusoid regression (Finn et al. 2017) and adapted live to a
test task whose K support points the student drags; the MSE after 0…10 adaptation steps
over 600 test tasks with 95 % confidence bands (also out of distribution); and a
prototypical network on 2D few-shot episodes, drawn in the input and in the embedding."""

from __future__ import annotations

import json
import time
from functools import partial

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app.jobs import ComputeRunner
from app.tabs.base import BaseTab, TabContext, View, ViewData
from models.traces import Progress
from viz.controls import Param, ParamForm
from viz.meta_view import AdaptPlot, ProtoPlane
from viz.panel import ViewPanel
from viz.plots import CurvesPlot
from viz.theme import error_style, muted_style

#: the order of models.meta.METHODS (the tab imports no torch before torch is loaded)
METHODS = ("maml", "fomaml", "reptile", "pretrained")
FAMILIES = ("blobs", "rings", "anisotropic")
ADAPT_STEPS = 10           # the adaptation steps computed (and shown by the slider 0 … 10)
EVAL_TASKS = 600
MAX_SUPPORT = 50           # support points a student may place
TRAIN_AMP_MAX = 5.0        # the training tasks' largest amplitude
META_PARAMS = (
    Param("k", "choice", "10", choices=("5", "10")),
    Param("inner_lr", "float", 0.01, 0.0005, 2.0, step=0.005, decimals=4),
    Param("inner_steps", "int", 1, 1, 5),
    Param("reptile_steps", "int", 5, 1, 10),
    Param("meta_batch", "int", 25, 1, 100),
    Param("meta_lr", "float", 1e-3, 1e-5, 0.5, step=5e-4, decimals=5),
)
TASK_PARAMS = (
    Param("amp_max", "float", 5.0, 5.0, 10.0, step=0.5, decimals=1),
    Param("task_seed", "int", 9, 0, 99999),    # 9: a clear curve, A = 3.1
    Param("trail", "bool", True),
)
SHOW_PARAMS = tuple(Param(f"show_{m}", "bool", True) for m in METHODS)
PROTO_PARAMS = (
    Param("family", "choice", "blobs", choices=FAMILIES),
    Param("n_way", "int", 5, 2, 10),
    Param("k_shot", "int", 5, 1, 20),
    Param("episode_seed", "int", 0, 0, 99999),
    Param("input_regions", "choice", "learned", choices=("learned", "baseline")),
)
ACTIONS = ("train", "train_proto", "evaluate", "support", "steps_shown", "methods")


def _truthy(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes",
                                                                        "on")


def _displayable(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` as float32 with NaN where the inner loop diverged: not finite, or over
    10 times the largest finite ``reference`` (the MSE before adapting: adapting that made
    things ten times worse has left the basin)."""
    ref = reference[np.isfinite(reference)]
    limit = 10.0 * float(ref.max()) if ref.size else 1e6
    out = np.asarray(values, dtype=np.float64).copy()
    out[~np.isfinite(out) | (np.abs(out) > limit)] = np.nan
    return out.astype(np.float32)


def _log_headroom(plot, ys, fraction: float = 0.6) -> None:
    """A log-y range over the finite positive values of ``ys`` with ``fraction`` of the
    span free above them, where the legend sits (top right) without hiding a curve."""
    v = np.concatenate([np.asarray(y, np.float64).ravel() for y in ys]) if ys else np.zeros(0)
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return
    lo, hi = np.log10(v.min()), np.log10(v.max())
    span = max(hi - lo, 0.3)
    bottom, top = lo - 0.05 * span, hi + fraction * span
    # a power of ten right at an edge gets no room for its label (and the 2·10ⁿ, 5·10ⁿ
    # labels are left out when two powers lie in the range): keep them clear of the edges
    if abs(top - round(top)) < 0.05 * span:
        top = round(top) + 0.08 * span
    if abs(bottom - round(bottom)) < 0.05 * span:
        bottom = round(bottom) - 0.08 * span
    plot.plotItem.setYRange(bottom, top, padding=0)


def _smooth(values: np.ndarray, window: int) -> np.ndarray:
    """Running mean over ``window`` values (the first ones over what there is)."""
    if len(values) == 0:
        return values
    c = np.cumsum(np.insert(values.astype(np.float64), 0, 0.0))
    n = np.minimum(np.arange(1, len(values) + 1), window)
    return ((c[1:] - c[np.arange(1, len(values) + 1) - n]) / n).astype(np.float32)


class MetaTab(BaseTab):
    key = "meta"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.session = None                  # models.meta.MetaSession, made when torch is ready
        self.proto = None                    # models.meta.ProtoSession
        self.result: dict | None = None      # {"task", "adapt", "episode", keys}
        self.eval_result = None              # models.traces.MetaEvalTrace
        self.support: np.ndarray | None = None   # float[n, 2]; None: the task's K points
        self._running: str | None = None     # "meta" or "proto" while a job runs
        self._want_eval = False              # evaluate once the session exists
        self._last_curves = 0.0
        self._last_redraw = 0.0
        self.evaluator = ComputeRunner(self)
        self.evaluator.done.connect(self._on_eval)
        self.evaluator.failed.connect(self._on_failure)
        self.evaluator.failed.connect(lambda f: self._set_eval_busy(False))
        self._eval_busy = False

        self.meta_form = ParamForm(META_PARAMS)
        self.task_form = ParamForm(TASK_PARAMS)
        self.show_form = ParamForm(SHOW_PARAMS)
        self.proto_form = ParamForm(PROTO_PARAMS)
        for form in (self.meta_form, self.proto_form):   # long choice texts: elided, so
            for w in form.widgets.values():                # the controls keep their width
                if isinstance(w, QComboBox):
                    w.setSizeAdjustPolicy(
                        QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                    w.setMinimumContentsLength(10)
        self.train_button = QPushButton()
        self.train_button.setObjectName("TrainButton")
        self.train_button.clicked.connect(self.toggle_training)
        self.reset_button = QPushButton()
        self.reset_button.clicked.connect(self.reset_meta)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.error_note = QLabel()
        self.error_note.setWordWrap(True)
        self.error_note.setStyleSheet(error_style())
        self.new_task_button = QPushButton()
        self.new_task_button.clicked.connect(self.new_task)
        self.reset_points_button = QPushButton()
        self.reset_points_button.clicked.connect(self.reset_points)
        self.ood_note = QLabel()
        self.ood_note.setWordWrap(True)
        self.ood_note.setStyleSheet("color: #b35c00;")
        self.mouse_note = QLabel()
        self.mouse_note.setWordWrap(True)
        self.mouse_note.setStyleSheet(muted_style())
        self.eval_button = QPushButton()
        self.eval_button.setObjectName("EvaluateButton")
        self.eval_button.clicked.connect(self.evaluate)
        self.proto_train_button = QPushButton()
        self.proto_train_button.setObjectName("ProtoTrainButton")
        self.proto_train_button.clicked.connect(self.toggle_proto_training)
        self.proto_reset_button = QPushButton()
        self.proto_reset_button.clicked.connect(self.reset_proto)
        self.new_episode_button = QPushButton()
        self.new_episode_button.clicked.connect(self.new_episode)
        self.proto_status = QLabel()
        self.proto_status.setWordWrap(True)

        lay = self.controls_layout
        lay.addWidget(self.meta_form)
        row = QHBoxLayout()
        row.addWidget(self.train_button, 2)
        row.addWidget(self.reset_button, 1)
        lay.addLayout(row)
        lay.addWidget(self.status)
        lay.addWidget(self.error_note)
        lay.addWidget(self.task_form)
        row = QHBoxLayout()
        row.addWidget(self.new_task_button)
        row.addWidget(self.reset_points_button)
        lay.addLayout(row)
        lay.addWidget(self.ood_note)
        lay.addWidget(self.mouse_note)
        lay.addWidget(self.show_form)
        lay.addWidget(self.eval_button)
        lay.addWidget(self.proto_form)
        row = QHBoxLayout()
        row.addWidget(self.proto_train_button, 2)
        row.addWidget(self.proto_reset_button, 1)
        lay.addLayout(row)
        lay.addWidget(self.new_episode_button)
        lay.addWidget(self.proto_status)
        lay.addStretch(1)

        self.meta_form.changed.connect(self._meta_changed)
        self.task_form.changed.connect(self._task_form_changed)
        self.show_form.changed.connect(self._redraw_all)
        self.proto_form.changed.connect(self._proto_changed)
        self._task_key = self._current_task_key()
        self._build_views()
        self.jobs.progressed.connect(self._on_progress)
        self.jobs.stopped.connect(self._on_job_stopped)
        self.jobs.failed.connect(self._on_job_failed)
        self._job_failed = False
        self.retranslate()
        self.schedule_update()

    # -- views ---------------------------------------------------------------------------------
    def _build_views(self) -> None:
        self.adapt_plot = AdaptPlot()
        self.adapt_plot.moved.connect(self.move_point)
        self.adapt_plot.clicked.connect(self.add_point)
        self.adapt_plot.removed.connect(self.remove_point)
        host = QWidget()                     # the plot with its adaptation-step scrubber
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.steps_label = QLabel()
        self.steps_label.setMinimumWidth(190)
        self.steps_slider = QSlider(Qt.Orientation.Horizontal)
        self.steps_slider.setObjectName("StepsSlider")
        self.steps_slider.setRange(0, ADAPT_STEPS)
        self.steps_slider.setValue(1)
        self.steps_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.steps_slider.setPageStep(1)
        self.steps_slider.valueChanged.connect(self._steps_moved)
        self.trail_box = QCheckBox()
        self.trail_box.setChecked(True)
        self.trail_box.toggled.connect(self._trail_toggled)
        row.addWidget(self.steps_label)
        row.addWidget(self.steps_slider, 1)
        row.addWidget(self.trail_box)
        col.addLayout(row)
        panel = ViewPanel(self.adapt_plot)       # exports the plot, not the scrubber
        panel.layout().replaceWidget(self.adapt_plot, host)
        col.addWidget(self.adapt_plot, 1)
        self.mse_plot = CurvesPlot(log_y=True)
        self.loss_plot = CurvesPlot(log_y=True)
        self.input_plane = ProtoPlane()
        self.embed_plane = ProtoPlane()
        self.add_view(View("adapt", self._adapt_title, panel, self._data_adapt), 0, 0, 1, 2)
        self.add_view(View("mse", lambda: self.tr("MSE vs adaptation steps ({0} test tasks, "
                                                  "95% CI)").format(EVAL_TASKS),
                           ViewPanel(self.mse_plot), self._data_mse), 0, 2)
        self.add_view(View("loss", lambda: self.tr("Meta-training: query MSE after the "
                                                   "inner loop"),
                           ViewPanel(self.loss_plot), self._data_loss), 1, 0)
        self.add_view(View("proto_input", self._input_title,
                           ViewPanel(self.input_plane), self._data_proto_input), 1, 1)
        self.add_view(View("proto_embedding", lambda: self.tr("Prototypical network: "
                                                              "embedding"),
                           ViewPanel(self.embed_plane), self._data_proto_embedding), 1, 2)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        for c in range(3):
            self.grid.setColumnStretch(c, 1)

    def _adapt_title(self) -> str:
        amp = self.params()["amp_max"]
        if amp > TRAIN_AMP_MAX:
            return self.tr("Adapting to a new task from K points (amplitudes up to {0:g}: "
                           "out of distribution)").format(amp)
        return self.tr("Adapting to a new task from K points")

    def _input_title(self) -> str:
        if self.proto_form.values()["input_regions"] == "baseline":
            return self.tr("Input space: nearest class mean (baseline)")
        return self.tr("Prototypical network: input space")

    def method_labels(self) -> dict[str, str]:
        return {"maml": self.tr("MAML"), "fomaml": self.tr("first-order MAML"),
                "reptile": self.tr("Reptile"), "pretrained": self.tr("pretrained")}

    def short_labels(self) -> dict[str, str]:
        """For the one-line read-outs."""
        return {"maml": "MAML", "fomaml": "FOMAML", "reptile": "Reptile",
                "pretrained": self.tr("pretrained")}

    def shown_methods(self) -> list[str]:
        v = self.show_form.values()
        return [m for m in METHODS if v[f"show_{m}"]]

    # -- parameters ------------------------------------------------------------------------------
    def params(self) -> dict:
        p = {**self.meta_form.values(), **self.task_form.values(), **self.show_form.values(),
             **self.proto_form.values()}
        p["k"] = int(p["k"])
        p["steps_shown"] = self.steps_slider.value()
        return p

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
        state = dict(state)
        problems = []
        if "methods" in state:
            names = state["methods"]
            if isinstance(names, str):
                names = [n.strip() for n in names.split(",") if n.strip()]
            bad = [n for n in names if n not in METHODS]
            if bad:
                problems.append(f"methods: unknown {', '.join(map(str, bad))} (choose from "
                                f"{', '.join(METHODS)}).")
            else:
                for m in METHODS:
                    state.setdefault(f"show_{m}", m in names)
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
                support = self._parse_support(state["support"])
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
            if key in state and _truthy(state[key]) != (self._running == which):
                self._toggle(which)
        if "evaluate" in state and _truthy(state["evaluate"]):
            self.evaluate()

    @staticmethod
    def _parse_support(value) -> np.ndarray | None:
        if value is None or (isinstance(value, str) and value.strip().lower() in ("", "task")):
            return None
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"'{value}' is not a list of [x, y] pairs") from exc
        pts = np.asarray(value, dtype=np.float64)
        if pts.size == 0:
            return None
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ValueError("give a list of [x, y] pairs")
        if not np.isfinite(pts).all():
            raise ValueError("the points must be finite numbers")
        if len(pts) > MAX_SUPPORT:
            raise ValueError(f"at most {MAX_SUPPORT} points")
        return pts.astype(np.float32)

    def _current_task_key(self) -> tuple:
        p = self.task_form.values()
        return (p["task_seed"], self.meta_form.values()["k"], p["amp_max"])

    def _session_options(self) -> dict:
        p = self.params()
        return {"k": p["k"], "inner_lr": p["inner_lr"], "inner_steps": p["inner_steps"],
                "reptile_inner_steps": p["reptile_steps"], "meta_batch": p["meta_batch"],
                "meta_lr": p["meta_lr"]}

    def _meta_changed(self) -> None:
        """K, the learning rates, the inner steps and the meta batch apply to the running
        session from its next step (no restart)."""
        s = self.session
        if s is not None:
            options = self._session_options()
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
        self.view("adapt").panel.set_title(self._adapt_title())
        if self.eval_result is not None and (self.eval_result.k, self.eval_result.amp_max) != (
                self.params()["k"], self.params()["amp_max"]):
            self.evaluate()                  # the shown evaluation follows K and the range
        self._readapt()

    def _proto_changed(self) -> None:
        ps = self.proto
        if ps is not None:
            p = self.params()
            options = {"family": p["family"], "n_way": p["n_way"], "k_shot": p["k_shot"]}
            if any(getattr(ps, k) != v for k, v in options.items()):
                try:
                    ps.set_options(**options)
                except Exception as exc:  # noqa: BLE001 - InvalidParameterError: shown
                    self.error_note.setText(str(exc))
        self.view("proto_input").panel.set_title(self._input_title())
        if self.result is not None and self.result.get("episode") is not None:
            self._draw_episode()             # the input regions' choice: no new episode
        self.schedule_update()

    def _readapt(self) -> None:
        self.schedule_update()

    def _update_notes(self) -> None:
        amp = self.params()["amp_max"]
        self.ood_note.setText(self.tr(
            "Test amplitudes up to {0:g}, training went up to {1:g}: tasks with an amplitude "
            "above {1:g} are out of distribution.").format(amp, TRAIN_AMP_MAX)
            if amp > TRAIN_AMP_MAX else "")

    # -- sessions ----------------------------------------------------------------------------------
    def _make_sessions(self) -> None:
        from models.meta import MetaSession, ProtoSession

        p = self.params()
        if self.session is None:
            self.session = MetaSession(k=p["k"], inner_lr=p["inner_lr"],
                                       inner_steps=p["inner_steps"], meta_batch=p["meta_batch"],
                                       meta_lr=p["meta_lr"],
                                       reptile_inner_steps=p["reptile_steps"],
                                       device=self.ctx.device())
        if self.proto is None:
            self.proto = ProtoSession(n_way=p["n_way"], k_shot=p["k_shot"], family=p["family"],
                                      device=self.ctx.device())

    def on_torch_ready(self) -> None:
        self._make_sessions()
        super().on_torch_ready()
        self._update_buttons()
        if self._want_eval:
            self.evaluate()

    def on_device_changed(self, name: str) -> None:
        if self.jobs.is_running():
            self.jobs.stop()
        for s in (self.session, self.proto):
            if s is not None:
                s.to(name)
        super().on_device_changed(name)

    def reset_meta(self) -> None:
        """Start meta-training over: every method back to the initial weights (seed 0)."""
        if self._running == "meta":
            self.jobs.stop()
        if not self.torch_ready:
            return
        self.session = None
        self.eval_result = None
        self._make_sessions()
        self.error_note.setText("")
        self._draw_eval()
        self._redraw_losses()
        self._update_buttons()
        self.request_update()

    def reset_proto(self) -> None:
        if self._running == "proto":
            self.jobs.stop()
        if not self.torch_ready:
            return
        self.proto = None
        self._make_sessions()
        self.error_note.setText("")
        self._update_buttons()
        self.request_update()

    # -- computing -----------------------------------------------------------------------------------
    def compute_fn(self):
        if self.session is None:
            self._make_sessions()
        p = self.params()
        shown = self.result or {}
        episode_key = (p["episode_seed"], p["n_way"], p["k_shot"], p["family"], self.proto.step,
                       id(self.proto))
        reuse = shown.get("episode") if shown.get("episode_key") == episode_key else None
        return partial(_meta_result, self.session, self.proto, p, self.support, episode_key,
                       reuse)

    def show_trace(self, result: dict) -> None:
        if result is None:
            return
        new_task = self.result is None or self.result["task_key"] != result["task_key"]
        self.result = result
        self._redraw()
        if new_task:              # a y range for the task; a drag keeps the student's zoom
            top = max(TRAIN_AMP_MAX, result["task"]["amplitude"]) + 1.0
            self.adapt_plot.set_extent((-5.0, 5.0, -top, 1.3 * top), padding=0.02)
        self._redraw_losses()
        self._draw_episode()

    def shutdown(self) -> None:
        self.evaluator.close()
        super().shutdown()

    def compute_now(self) -> None:
        """Synchronously (headless export, tests), the evaluation too when asked for."""
        super().compute_now()
        if self._want_eval or self._eval_busy:
            self.evaluator.invalidate()
            self._on_eval(_evaluate(self.session, self.params()))

    # -- the adaptation view ---------------------------------------------------------------------
    def _steps_moved(self, value: int) -> None:
        self._redraw()

    def _redraw(self) -> None:
        s = self.steps_slider.value()
        self.steps_label.setText(self.tr("after {0} gradient step(s)").format(s))
        r = self.result
        if r is None:
            return
        task, trace = r["task"], r["adapt"]
        shown = self.shown_methods()
        labels = self.method_labels()
        idx = [trace.methods.index(m) for m in shown if m in trace.methods]
        names = [trace.methods[i] for i in idx]
        truth = task["y_grid"]
        support = np.stack([trace.x_support, trace.y_support], 1)
        preds = _displayable(trace.predictions[idx], np.array([1e5], np.float32))
        self.adapt_plot.show_adaptation(
            trace.x_grid, truth, preds, names,
            [METHODS.index(m) for m in names], [labels[m] for m in names], s,
            self.task_form.values()["trail"], support,
            self.tr("true function A·sin(x − φ)"),
            self.tr("{0} support points").format(len(support)))
        err = ((trace.predictions[:, s] - truth[None]) ** 2).mean(1)
        short = self.short_labels()
        parts = [f"{short[m]} {err[trace.methods.index(m)]:.3f}" for m in names]
        self.view("adapt").panel.set_readout(self.tr(
            "A = {0:.2f}, φ = {1:.2f} · MSE after {2} step(s): {3}").format(
                task["amplitude"], task["phase"], s, " · ".join(parts)))

    def _redraw_all(self) -> None:
        self._redraw()
        self._draw_eval()
        self._redraw_losses()

    # -- the support points ----------------------------------------------------------------------
    def _points(self) -> np.ndarray:
        if self.support is not None:
            return self.support.copy()
        if self.result is not None:
            t = self.result["adapt"]
            return np.stack([t.x_support, t.y_support], 1).astype(np.float32)
        return np.zeros((0, 2), np.float32)

    def move_point(self, i: int, x: float, y: float) -> None:
        pts = self._points()
        if not 0 <= i < len(pts):
            return
        pts[i] = (np.clip(x, -5.0, 5.0), y)
        self.support = pts
        self.adapt_plot.set_points("support", pts, "#111111", size=11, outline="w")
        self._readapt()

    def add_point(self, x: float, y: float) -> None:
        pts = self._points()
        if len(pts) >= MAX_SUPPORT or not -5.0 <= x <= 5.0:
            return
        self.support = np.concatenate([pts, np.array([[x, y]], np.float32)])
        self.adapt_plot.set_points("support", self.support, "#111111", size=11, outline="w")
        self._readapt()

    def remove_point(self, i: int) -> None:
        pts = self._points()
        if 0 <= i < len(pts):
            self.support = np.delete(pts, i, axis=0)
            self.adapt_plot.set_points("support", self.support, "#111111", size=11,
                                       outline="w")
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
        if not self.torch_ready:
            self._want_eval = True
            return
        self._make_sessions()
        self._want_eval = False
        p = self.params()
        self._set_eval_busy(True)
        self.evaluator.request(partial(_evaluate, self.session, p))

    def _set_eval_busy(self, busy: bool) -> None:
        self._eval_busy = busy
        self.eval_button.setText(self.tr("Evaluating…") if busy else
                                 self.tr("Evaluate on {0} tasks").format(EVAL_TASKS))

    def _on_eval(self, result: tuple) -> None:
        session, trace = result
        self._set_eval_busy(False)
        if session is not self.session:
            return                           # evaluated before “Start over”
        self._want_eval = False
        self.eval_result = trace
        self._draw_eval()

    def _draw_eval(self) -> None:
        e = self.eval_result
        panel = self.view("mse").panel
        if e is None:
            self.mse_plot.set_curves([], [], [])
            self.mse_plot.set_bands([], [], [])
            self.mse_plot.set_hint(self.tr("Press “Evaluate on {0} tasks”:\neach method adapts "
                                           "to {0} new tasks from K points.").format(EVAL_TASKS))
            panel.set_readout("")
            return
        self.mse_plot.set_hint("")
        labels = self.method_labels()
        names = [m for m in self.shown_methods() if m in e.methods]
        idx = [e.methods.index(m) for m in names]
        x = np.arange(e.steps + 1, dtype=np.float32)
        colours = [METHODS.index(m) for m in names]
        s1, s10 = min(1, e.steps), e.steps
        mse, lows, highs, xs, text = [], [], [], [], []
        diverged = self.tr("diverged")
        for m, i in zip(names, idx, strict=True):
            y = _displayable(e.mse[i], e.mse[:, 0])
            mse.append(y)
            # the band up to the first step where the inner loop diverged
            n = int(np.argmin(np.isfinite(y))) if not np.isfinite(y).all() else len(y)
            xs.append(x[:n])
            lows.append((e.mse[i] - e.ci95[i])[:n])
            highs.append((e.mse[i] + e.ci95[i])[:n])
            a, b = (f"{v:.3f}" if np.isfinite(v) else diverged for v in (y[s1], y[s10]))
            text.append(f"{labels[m]}: {a} → {b}")
        # the read-out is narrow: each method's MSE after 1 and 10 steps is in its legend
        self.mse_plot.set_curves(x, mse, text, ["o"] * len(idx), colours=colours)
        self.mse_plot.set_bands(xs, lows, highs, colours=colours)
        _log_headroom(self.mse_plot, mse + highs, 0.45)
        text = self.tr("legend: MSE after 1 → {0} steps · K = {1}, A ≤ {2:g}").format(
            s10, e.k, e.amp_max)
        if self.session is not None and e.step != self.session.step:
            text += " " + self.tr("· at step {0}").format(e.step)
        panel.set_readout(text)

    # -- the training curves ------------------------------------------------------------------------
    def _redraw_losses(self) -> None:
        s = self.session
        panel = self.view("loss").panel
        if s is None or s.step == 0:
            self.loss_plot.set_curves([], [], [])
            self.loss_plot.set_hint(self.tr("Press “Meta-train” to train the four methods\n"
                                            "on one stream of sinusoid tasks."))
            panel.set_readout("")
            return
        self.loss_plot.set_hint("")
        labels = self.method_labels()
        names = [m for m in self.shown_methods() if m in s.methods]
        curves = [np.asarray(s.losses[m], np.float32) for m in names]
        n = min((len(c) for c in curves), default=0)
        if n == 0:
            self.loss_plot.set_curves([], [], [])
            panel.set_readout("")
            return
        window = max(1, min(50, n // 10))
        x = np.arange(1, n + 1, dtype=np.float32)
        ys = [_smooth(c[:n], window) for c in curves]
        self.loss_plot.set_curves(x, ys, [f"{labels[m]} {y[-1]:.3f}" for m, y in
                                          zip(names, ys, strict=True)],
                                  colours=[METHODS.index(m) for m in names])
        _log_headroom(self.loss_plot, ys)
        panel.set_readout(self.tr("step {0} · running mean over {1} steps").format(n, window))

    # -- prototypical networks --------------------------------------------------------------------
    def _draw_episode(self) -> None:
        r = self.result
        if r is None or r.get("episode") is None:
            return
        e = r["episode"]
        baseline = self.params()["input_regions"] == "baseline"
        if baseline:
            d = ((e.query_x[:, None, :] - e.baseline_prototypes[None]) ** 2).sum(-1)
            wrong_in = d.argmin(1) != e.query_y
            self.input_plane.show_episode(e.regions_baseline, e.extent_input, e.support_x,
                                          e.support_y, e.query_x, e.query_y, wrong_in,
                                          e.baseline_prototypes)
        else:
            wrong_in = e.query_pred != e.query_y
            self.input_plane.show_episode(e.regions_input, e.extent_input, e.support_x,
                                          e.support_y, e.query_x, e.query_y, wrong_in)
        self.embed_plane.show_episode(e.regions_embedding, e.extent_embedding, e.support_emb,
                                      e.support_y, e.query_emb, e.query_y,
                                      e.query_pred != e.query_y, e.prototypes)
        self.view("proto_input").panel.set_readout(self.tr(
            "query accuracy: learned {0:.0%} · input baseline {1:.0%}").format(
                e.accuracy, e.baseline_accuracy))
        self.view("proto_embedding").panel.set_readout(self.tr(
            "● support  ○ query  ★ prototype  ✕ wrong"))

    # -- training -----------------------------------------------------------------------------------
    def toggle_training(self) -> None:
        self._toggle("meta")

    def toggle_proto_training(self) -> None:
        self._toggle("proto")

    def _toggle(self, which: str) -> None:
        running = self._running
        if self.jobs.is_running():
            self.jobs.stop()
            if running == which:
                return
        if not self.torch_ready:
            return
        self._make_sessions()
        self.error_note.setText("")
        session = self.session if which == "meta" else self.proto
        self._running = which
        self.jobs.start(partial(session.train, 10_000_000))
        self._update_buttons()

    def _on_progress(self, progress: Progress) -> None:
        labels = self.short_labels()
        if self._running == "meta":
            parts = " · ".join(f"{labels[m]} {progress.metrics[f'loss_{m}']:.3f}"
                               for m in METHODS if f"loss_{m}" in progress.metrics)
            self.job_bar.show_progress(0, self.tr(
                "Meta-training: step {0} · query MSE {1} · {2:.1f} steps/s").format(
                    progress.step, parts, progress.metrics.get("steps_per_s", float("nan"))))
        else:
            self.job_bar.show_progress(0, self.tr(
                "Prototypical network: episode {0} · loss {1:.3f} · accuracy {2:.0%} · "
                "{3:.0f} episodes/s").format(progress.step, progress.loss,
                                             progress.metrics.get("accuracy", float("nan")),
                                             progress.metrics.get("steps_per_s", float("nan"))))
        now = time.monotonic()
        if self._running == "meta" and now - self._last_curves > 0.3:
            self._last_curves = now
            self._redraw_losses()
        if now - self._last_redraw > 1.0:      # the adapted curves / the episode, refreshed
            self._last_redraw = now
            self.request_update()
        self._update_buttons()

    def _on_job_failed(self, failure) -> None:
        self._job_failed = True
        self.error_note.setText(str(failure.error))

    def _on_job_stopped(self, _completed: bool) -> None:
        was, failed = self._running, self._job_failed
        self._running, self._job_failed = None, False
        self._update_buttons()
        self._redraw_losses()
        self.request_update()
        if was == "meta" and not failed and self.session is not None and self.session.step:
            self.evaluate()                   # the MSE view follows the trained weights

    def _update_buttons(self) -> None:
        meta, proto = self._running == "meta", self._running == "proto"
        s, ps = self.session, self.proto
        self.train_button.setText(self.tr("Stop") if meta else (
            self.tr("Resume meta-training") if s is not None and s.step else
            self.tr("Meta-train")))
        self.proto_train_button.setText(self.tr("Stop") if proto else (
            self.tr("Resume training") if ps is not None and ps.step else
            self.tr("Train the embedding")))
        for b in (self.train_button, self.proto_train_button, self.reset_button,
                  self.proto_reset_button, self.eval_button):
            b.setEnabled(self.torch_ready)
        self.status.setText("" if s is None or not s.step else self.tr(
            "{0} meta-steps trained (each: {1} tasks, all four methods)").format(
                s.step, s.meta_batch))
        self.proto_status.setText("" if ps is None or not ps.step else self.tr(
            "{0} episodes trained").format(ps.step))

    # -- export data ---------------------------------------------------------------------------------
    def _data_adapt(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        t, task = r["adapt"], r["task"]
        s = self.steps_slider.value()
        table = np.concatenate([t.x_grid[:, None], task["y_grid"][:, None],
                                t.predictions[:, s].T], 1)
        return ViewData("curves", {"curves": table, "predictions": t.predictions,
                                   "support": np.stack([t.x_support, t.y_support], 1)},
                        {"amplitude": task["amplitude"], "phase": task["phase"],
                         "steps_shown": s, "inner_lr": t.inner_lr,
                         "methods": list(t.methods), "meta_step": r["meta_step"]},
                        row_labels=None,
                        col_labels=["x", "true", *[f"{m}_step{s}" for m in t.methods]])

    def _data_mse(self) -> ViewData | None:
        e = self.eval_result
        if e is None:
            return None
        table = np.concatenate([e.mse.T, e.ci95.T], 1)
        return ViewData("mse", {"mse": table, "mse_mean": e.mse, "ci95": e.ci95},
                        {"n_tasks": e.n_tasks, "k": e.k, "amp_max": e.amp_max,
                         "meta_step": e.step, "methods": list(e.methods)},
                        row_labels=list(range(e.steps + 1)),
                        col_labels=[f"mse_{m}" for m in e.methods]
                        + [f"ci95_{m}" for m in e.methods])

    def _data_loss(self) -> ViewData | None:
        s = self.session
        if s is None or s.step == 0:
            return None
        n = min(len(s.losses[m]) for m in s.methods)
        table = np.asarray([s.losses[m][:n] for m in s.methods], np.float32).T
        return ViewData("loss", {"loss": table},
                        {"methods": list(s.methods), "k": s.k, "inner_lr": s.inner_lr,
                         "inner_steps": s.inner_steps, "meta_batch": s.meta_batch,
                         "meta_lr": s.meta_lr},
                        row_labels=list(range(1, n + 1)), col_labels=list(s.methods))

    def _episode_meta(self, e) -> dict:
        return {"n_way": e.n_way, "k_shot": e.k_shot, "family": e.family, "seed": e.seed,
                "trained_episodes": e.step, "accuracy": e.accuracy,
                "baseline_accuracy": e.baseline_accuracy}

    def _data_proto_input(self) -> ViewData | None:
        e = (self.result or {}).get("episode")
        if e is None:
            return None
        pts = np.concatenate([e.support_x, e.query_x])
        labels = np.concatenate([e.support_y, e.query_y]).astype(np.float32)
        role = np.r_[np.zeros(len(e.support_x)), np.ones(len(e.query_x))].astype(np.float32)
        table = np.concatenate([pts, labels[:, None], role[:, None]], 1)
        return ViewData("points", {"points": table, "regions": e.regions_input,
                                   "regions_baseline": e.regions_baseline,
                                   "class_means": e.baseline_prototypes},
                        {**self._episode_meta(e), "extent": list(e.extent_input)},
                        col_labels=["x", "y", "class", "query"])

    def _data_proto_embedding(self) -> ViewData | None:
        e = (self.result or {}).get("episode")
        if e is None:
            return None
        pts = np.concatenate([e.support_emb, e.query_emb])
        labels = np.concatenate([e.support_y, e.query_y]).astype(np.float32)
        role = np.r_[np.zeros(len(e.support_emb)), np.ones(len(e.query_emb))].astype(
            np.float32)
        table = np.concatenate([pts, labels[:, None], role[:, None]], 1)
        return ViewData("embedded", {"embedded": table, "prototypes": e.prototypes,
                                     "regions": e.regions_embedding},
                        {**self._episode_meta(e), "extent": list(e.extent_embedding)},
                        col_labels=["e1", "e2", "class", "query"])

    # -- translations -----------------------------------------------------------------------------------
    def retranslate(self) -> None:
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
        labels = self.method_labels()
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
        self.trail_box.setText(self.tr("earlier steps"))
        self.mouse_note.setText(self.tr("In the main view: drag a support point to move it, "
                                        "click on empty space to add one, right-click a point "
                                        "to remove it."))
        self._set_eval_busy(self._eval_busy)
        self.eval_button.setToolTip(self.tr("Each method adapts to {0} new tasks (K points "
                                            "each) and is scored on the whole curve after "
                                            "0 … {1} steps").format(EVAL_TASKS, ADAPT_STEPS))
        self.adapt_plot.set_axis_labels("x", "y")
        self.mse_plot.set_axis_labels(self.tr("adaptation steps"),
                                      self.tr("MSE on the whole curve"))
        self.loss_plot.set_axis_labels(self.tr("meta-step"), self.tr("query MSE"))
        self._update_buttons()
        self._update_notes()
        super().retranslate()
        for v in self.views:
            v.panel.set_title(v.title())
        self._redraw_all()
        self._draw_episode()

    @property
    def trace(self):
        return self.result


def _meta_result(session, proto, p: dict, support: np.ndarray | None, episode_key: tuple,
                 episode) -> dict:
    """The test task, every method adapted to its support points (or the student's), and
    the prototypical-network episode (reused when nothing about it changed). Any thread."""
    task = session.test_task(p["task_seed"], k=p["k"], amp_max=p["amp_max"])
    if support is None:
        xs, ys = task["x_support"], task["y_support"]
    else:
        xs, ys = support[:, 0], support[:, 1]
    adapt = session.adapt_curves(xs, ys, task["x_grid"], steps=ADAPT_STEPS)
    if episode is None:
        episode = proto.episode(p["episode_seed"])
    return {"task": task, "adapt": adapt, "episode": episode, "episode_key": episode_key,
            "meta_step": session.step,
            "task_key": (p["task_seed"], p["k"], p["amp_max"])}


def _evaluate(session, p: dict) -> tuple:
    """(the session, its MSE after 0 … 10 steps over the test tasks). Any thread."""
    return session, session.evaluate(EVAL_TASKS, k=p["k"], steps=ADAPT_STEPS,
                                     amp_max=p["amp_max"])
