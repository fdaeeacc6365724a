"""The normalizing-flow tab: RealNVP, NICE, MAF or IAF trained live on a 2D density,
samples animated through each layer (forward: data → latent, inverse: latent → data)
with a deformed grid, the learned density, the NLL against the entropy floor, and each
layer's log|det J|."""

from __future__ import annotations

import math
import time
from functools import partial

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSlider, QVBoxLayout, QWidget

from app.tabs.base import TabContext, View, ViewData
from app.tabs.flows.export import FlowsExport
from app.tabs.flows.points import UserPointsNote, read_points
from app.tabs.flows.state import FlowSessionFile
from app.tabs.training import TrainingTab
from models.flows import options
from models.traces import FlowResult, Progress
from viz.controls import Param, ParamForm
from viz.flow_view import DensityView, FlowView
from viz.ode_view import TimelinePlot
from viz.panel import ViewPanel
from viz.plots import GroupedBarsPlot
from viz.text import FitLabel

DENSITIES = (*options.DENSITIES, options.CUSTOM)
MODELS = options.FLOW_KINDS
_ASK = options.FlowRequest()     # the defaults; the limits are options.RANGES'


def _number(key: str, kind: str, **style) -> Param:
    r = options.RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, **style)


MODEL_PARAMS = (
    Param("density", "choice", _ASK.density, choices=DENSITIES),
    Param("model", "choice", _ASK.model, choices=MODELS),
    _number("layers", "int"),
    _number("hidden", "int"),
    Param("actnorm", "bool", _ASK.actnorm),
    _number("lr", "float", step=5e-4, decimals=5),
    _number("batch", "int", step=64),
    _number("clip", "float", step=1.0),
)
VIEW_PARAMS = (
    Param("direction", "choice", _ASK.direction, choices=options.DIRECTIONS),
    _number("points", "int", step=500),
    Param("grid", "bool", _ASK.grid),
    _number("speed", "float", step=0.5),
    _number("seed", "int"),
    Param("course", "bool", _ASK.course),    # the density as the chapter composes the layers
)
#: the parameters that make a different model (the others tune the one there is)
MODEL_KEY = ("density", "model", "layers", "hidden", "actnorm")
SESSIONS_KEPT = 4


class FlowsTab(FlowSessionFile, FlowsExport, UserPointsNote, TrainingTab):
    key = "flows"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        # one model per architecture + data: the 4 most recently used (issue 19: a model of
        # 32 layers of 512 units is ~150 MB trained)
        self.sessions = self.keep_sessions(SESSIONS_KEPT, lambda: self._session_key(),
                                           lambda: self.running() and self._running_key)
        self._made: dict[tuple, object] = {}  # models made in a worker, not kept yet
        self.custom_points: np.ndarray | None = None
        self.custom_name = ""
        self._custom_id = 0                   # counts the point sets loaded or drawn
        self.result: FlowResult | None = None
        self._last_redraw = 0.0
        self._running_key: tuple = ()         # the session the training job trains
        self._running_model = ""
        self.model_form = ParamForm(MODEL_PARAMS)
        self.view_form = ParamForm(VIEW_PARAMS)
        lay = self.controls_layout
        lay.addWidget(self.model_form)
        self.add_training_controls(lay)
        self._data_note = ""                  # the note on the user's points shown, if any
        self.standardise_button = QPushButton()
        self.standardise_button.setObjectName("StandardiseButton")
        self.standardise_button.clicked.connect(self.standardise_points)
        self.standardise_button.hide()
        lay.addWidget(self.standardise_button)
        lay.addWidget(self.view_form)
        lay.addStretch(1)
        self.model_form.changed.connect(self._model_changed)
        self.view_form.changed.connect(self._view_changed)
        self._drawn_params: dict | None = None
        self._build_views()
        self._build_export()
        self.timer = QTimer(self)
        self.timer.setInterval(33)                 # about 30 frames a second
        self.timer.timeout.connect(self._tick)
        self.retranslate()
        self.schedule_update()

    # -- views ---------------------------------------------------------------------------
    def _build_views(self) -> None:
        self.flow_view = FlowView()
        host = QWidget()           # the view with its play button and layer slider
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.play_button = QPushButton()
        self.play_button.setObjectName("PlayButton")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._play)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 800)
        self.slider.valueChanged.connect(self._slider_moved)
        # the time, layer and its log-det: wrapped over two lines where the row is narrow
        # (it needed 482 px of 456 at 1280x800), always two lines high so the row keeps
        # its place as the animation names one layer after another
        self.layer_label = FitLabel(max_lines=2, min_lines=2)
        self.layer_label.setMinimumWidth(280)
        self.frames_button = QPushButton()
        self.frames_button.clicked.connect(self.export_frames_dialog)
        self.draw_button = QPushButton()
        self.draw_button.setObjectName("DrawButton")
        self.draw_button.setCheckable(True)
        self.draw_button.toggled.connect(self.set_drawing)
        self._drawn: list[np.ndarray] = []
        self.flow_view.drawn.connect(self.add_drawn_point)
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.layer_label, 1)
        row.addWidget(self.draw_button)
        row.addWidget(self.frames_button)
        col.addLayout(row)
        self.density_plot = DensityView()
        self.nll_plot = TimelinePlot()
        self.logdet_plot = GroupedBarsPlot()
        panel = ViewPanel(self.flow_view)         # exports the view, not the controls
        panel.layout().replaceWidget(self.flow_view, host)
        col.insertWidget(0, self.flow_view, 1)
        self.add_view(View("flow", self._flow_title, panel, self._data_flow), 0, 0, 1, 4)
        # two square panels side by side: the target and the learned density
        self.add_view(View("density", lambda: self.tr("The data's density beside the learned "
                                                      "exp log p_θ(x) with samples"),
                           ViewPanel(self.density_plot), self._data_density), 1, 0, 1, 2)
        self.add_view(View("nll", lambda: self.tr("Training: NLL against the entropy floor"),
                           ViewPanel(self.nll_plot), self._data_nll), 1, 2)
        self.add_view(View("logdet", lambda: self.tr("log|det J| of each layer (mean)"),
                           ViewPanel(self.logdet_plot), self._data_logdet), 1, 3)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        for c in range(4):
            self.grid.setColumnStretch(c, 1)

    def _flow_title(self) -> str:
        p = self.params()
        return (self.tr("Samples through each layer: data → latent") if p["direction"] ==
                "forward" else self.tr("Sampling by the inverse: latent → data"))

    # -- parameters ------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.model_form.values(), **self.view_form.values()}

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import InvalidParameterError

        known = set(self.params()) | {"train", "position", "play"}
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        problems = self.model_form.set_values(state) + self.view_form.set_values(state)
        if state.get("density") == "custom" and self.custom_points is None:
            problems.append("density=custom needs a file of points: File → Open… first.")
            self.model_form.set_values({"density": "two_moons"})
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        if "position" in state:
            self.slider.setValue(int(float(state["position"]) * 100))
        if "play" in state:
            self.play_button.setChecked(str(state["play"]).lower() in ("1", "true", "yes"))
        if state.get("train") and not self.running():
            self.toggle_job("train")
        self._model_changed()

    def _view_changed(self) -> None:
        """The animation speed only paces the timer: no new trace for it."""
        p = {k: v for k, v in self.view_form.values().items() if k != "speed"}
        if p != self._drawn_params:
            self._drawn_params = p
            self.schedule_update()

    def _model_changed(self) -> None:
        if self.params()["density"] == options.CUSTOM and self.custom_points is None:
            self.model_form.set_values({"density": "two_moons"})
            self.error_note.setText(self.tr("“Your points” needs points first: open a file "
                                            "(File → Open…) or draw them."))
        if self.running() == "train" and self._session_key() != self._running_key:
            self.stop_jobs()
        session = self.sessions.get(self._session_key())
        if session is not None:               # learning rate etc. apply to the model there is
            p = self.params()
            session.set_options(p["lr"], p["batch"], p["clip"] or None)   # between two steps
        self._show_data_problem()
        self.update_buttons()
        self.schedule_update()

    def _session_key(self) -> tuple:
        p = self.params()
        # custom data: one model per loaded / drawn point set (not per file name: the same
        # name opened again may hold other points)
        return tuple(p[k] for k in MODEL_KEY) + ((self._custom_id,) if p["density"] ==
                                                  options.CUSTOM else ())

    def _new_session(self):
        """The maker of the current setting's model: read here, run on any thread."""
        from models.flows import FlowSession

        ask = options.FlowRequest.from_values(self.params())
        custom = ask.density == options.CUSTOM
        return partial(FlowSession, ask.model, data="two_moons" if custom else ask.density,
                       points=self.custom_points if custom else None, device=self.ctx.device(),
                       lr=ask.lr, batch_size=ask.batch, hidden_dim=ask.hidden,
                       num_flows=ask.layers, actnorm=ask.actnorm, clip_grad=ask.clip_grad,
                       statistics=self.points_statistics() if custom else None)

    def session(self):
        key = self._session_key()
        made = self._made.pop(key, None)        # made by the worker of compute_fn
        if key not in self.sessions:
            self.sessions[key] = made or self._new_session()()
        return self.sessions[key]

    def training_sessions(self):
        return self.sessions.values()

    # -- computing ---------------------------------------------------------------------------
    def compute_fn(self):
        from models.flows.probe import flow_result

        key, points = self._session_key(), self.custom_points
        ask = options.FlowRequest.from_values(self.params())
        if key in self.sessions or key in self._made:
            return partial(flow_result, self.session(), ask, points)
        make = self._new_session()

        def made_and_traced():    # a new model is made here, off the GUI thread (a density's
            session = make()      # entropy and 32 layers of 512 units took it 2-4 s)
            self._made[key] = session
            return flow_result(session, ask, points)
        return made_and_traced

    def show_trace(self, result: FlowResult) -> None:
        if result is None:
            return
        if self._made:                # models made by workers: the one shown is kept, the
            if self._session_key() in self._made:       # others (settings passed over) go
                self.session()
            self._made.clear()
        self.result = result
        trace = result.trace
        self.flow_view.set_trace(trace, result.grid)
        self.flow_view.fit_middle()
        layers = trace.points.shape[0] - 1
        self.slider.blockSignals(True)
        self.slider.setRange(0, 100 * layers)
        self.slider.blockSignals(False)
        self._slider_moved(self.slider.value())
        d = result.density if result.course is None else result.course.density
        self.density_plot.set_densities(result.target, d.density, d.extent, result.frame,
                                        d.samples[:1000])
        self._density_texts(result)
        self.logdet_plot.set_bars([str(i + 1) for i in range(layers)], trace.logdet[None],
                                  [self.tr("mean log|det J|")])
        self._redraw_nll(result.entropy)
        for v in self.views:
            v.panel.set_title(v.title())
        forward = trace.direction == "forward"
        latent = self.tr("latent z (dashed: N(0, I) at 1, 2, 3σ)")
        self.flow_view.set_titles(self.tr("data x") if forward else latent,
                                  self.tr("through the layers"),
                                  latent if forward else self.tr("samples x"))
        x, z, h = ("x₁", "x₂"), ("z₁", "z₂"), ("h₁", "h₂")
        self.flow_view.set_axis_labels([x, h, z] if forward else [z, h, x])
        self.view("density").panel.set_readout(self.tr(
            "learned mass on the grid: {0:.3f} (1 if it holds all of it)").format(d.mass)
            if result.course is None else self._course_text(result.course))

    def _course_text(self, c) -> str:
        """The chapter's TransformedDistribution(base, layers) against the trained flow."""
        return self.tr(
            "Course's TransformedDistribution(base, layers): log p {0:.2f} vs ours {1:.2f}, "
            "Δ {2:.1f} nats/point; layers inverted, reversed: Δ {3:.0e}").format(
                c.log_p_course, c.log_p_ours, c.mean_abs_delta, c.inverted_delta)

    def _density_texts(self, result: FlowResult) -> None:
        exact = result.target_kind == "density"
        self.density_plot.set_texts(
            # short: a panel's title sets its least width (a long one cut the view off)
            self.tr("data p(x)") if exact else self.tr("data histogram"),
            self.tr("model p_θ(x)") if result.course is None
            else self.tr("course's p(x)"), self.tr("density"), "x₁", "x₂")

    def _redraw_nll(self, entropy: float) -> None:
        session = self.sessions.get(self._session_key())
        # one copy, then only the copy: a worker's divergence rollback can shorten the
        # session's list meanwhile (seen empty between the check and the read)
        losses = np.asarray(list(session.losses) if session is not None else [], np.float32)
        if not len(losses):
            self._redraw_untrained_nll(entropy)
            return
        self.nll_plot.set_hint("")
        steps = np.arange(1, len(losses) + 1, dtype=np.float32)
        window = min(50, len(losses))
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        xs, ys = [steps, steps[window - 1:]], [losses, smooth.astype(np.float32)]
        names = [self.tr("NLL of each batch (nats)"), self.tr("running mean")]
        if np.isfinite(entropy):
            xs.append(np.array([1, len(losses)], np.float32))
            ys.append(np.array([entropy, entropy], np.float32))
            names.append(self.tr("entropy floor (the lowest NLL)"))
        self.nll_plot.set_curves(xs, ys, names)
        below = np.isfinite(entropy) and len(smooth) and smooth[-1] < entropy - 0.05
        self.view("nll").panel.set_readout(
            self.tr("NLL below the entropy floor: a bug or overfitting to a small data set")
            if below else self.tr("step {0}: NLL {1:.3f} nats; floor {2:.3f}").format(
                len(losses), float(smooth[-1]), entropy))

    def _redraw_untrained_nll(self, entropy: float) -> None:
        """Before training: the untrained flow's NLL of the shown points at step 0 and the
        floor it can reach, so the plot says where training starts and where it ends."""
        nll0 = self.result.nll if self.result is not None else math.nan
        xs, ys, names, symbols, colours = [], [], [], [], []
        if math.isfinite(nll0):
            xs.append(np.zeros(1, np.float32))
            ys.append(np.array([nll0], np.float32))
            names.append(self.tr("untrained flow (step 0)"))
            symbols.append("o")
            colours.append(1)
        if math.isfinite(entropy):
            xs.append(np.array([0, 100], np.float32))
            ys.append(np.array([entropy, entropy], np.float32))
            names.append(self.tr("entropy floor (the lowest NLL)"))
            symbols.append(None)
            colours.append(2)
        self.nll_plot.set_curves(xs, ys, names, symbols=symbols, colours=colours)
        if not xs:
            self.nll_plot.set_hint(self.tr("Press “Train” to fit this flow\nby maximum "
                                           "likelihood."))
            self.view("nll").panel.set_readout("")
            return
        self.nll_plot.set_hint("")
        self.view("nll").panel.set_readout(
            self.tr("untrained: NLL {0:.4g} nats at step 0, floor {1:.4g}; press “Train” to "
                    "fit the flow by maximum likelihood").format(nll0, entropy))

    # -- the animation ----------------------------------------------------------------------------
    def _play(self, on: bool) -> None:
        self.play_button.setText(self.tr("Pause") if on else self.tr("Play"))
        if on:
            if self.slider.value() >= self.slider.maximum():
                self.slider.setValue(0)
            self.timer.start()
        else:
            self.timer.stop()

    def _tick(self) -> None:
        step = int(100 * self.params()["speed"] * self.timer.interval() / 1000) or 1
        value = self.slider.value() + step
        if value > self.slider.maximum():
            self.play_button.setChecked(False)
            value = self.slider.maximum()
        self.slider.setValue(value)

    def layer_note(self, trace, t: float) -> str:
        """The caption under the panels at position t: what that layer does."""
        layers = trace.points.shape[0] - 1
        if layers < 1:
            return ""
        layer = min(int(t), layers - 1)
        axis, arrows = "xy", "↔↕"
        masked, changed = trace.masked[layer], trace.transformed[layer]
        return (self.tr("layer {0}: {1} kept · {2} moves {3}").format(
                    layer + 1, axis[masked], axis[changed], arrows[changed])
                if masked >= 0 and changed >= 0 else
                self.tr("layer {0}: every coordinate moves").format(layer + 1))

    def _slider_moved(self, value: int) -> None:
        t = value / 100
        self.flow_view.set_position(t)
        trace = self.flow_view.trace
        if trace is None:
            return
        layers = trace.points.shape[0] - 1
        layer = min(int(t), layers - 1) if layers else -1
        if layer < 0:
            self.layer_label.setText("")
            return
        axis = "xy"
        masked, changed = trace.masked[layer], trace.transformed[layer]
        self.flow_view.set_note(self.layer_note(trace, t))
        what = (self.tr("{0} unchanged, {1} transformed").format(axis[masked], axis[changed])
                if masked >= 0 and changed >= 0 else self.tr("every coordinate transformed"))
        names = {"affine coupling": self.tr("affine coupling"),
                 "additive coupling": self.tr("additive coupling"),
                 "permute": self.tr("permutation")}
        name = names.get(trace.layer_names[layer], trace.layer_names[layer])
        self.layer_label.setText(self.tr("t = {0:.2f} · layer {1} {2}: {3}; log|det J| {4:+.3f}")
                                 .format(t, layer + 1, name, what, float(trace.logdet[layer])))

    # -- training ----------------------------------------------------------------------------------
    def make_job(self, name: str):
        session = self.session()
        self._running_key = self._session_key()
        self._running_model = self.model_form.widgets["model"].currentText()
        return partial(session.train, 1_000_000)

    def job_text(self, name: str, progress: Progress) -> str:
        return self.tr("Training {0}: step {1} · NLL {2:.3f} nats · {3:.0f} steps/s").format(
            self._running_model, progress.step, progress.loss,
            progress.metrics.get("steps_per_s", float("nan")))

    def on_job_progress(self, name: str, progress: Progress) -> None:
        now = time.monotonic()
        if now - self._last_redraw > 1.0:          # the density and the samples, refreshed
            self._last_redraw = now
            self.request_update()

    def current_session(self):
        return self.sessions.get(self._session_key())

    # -- points drawn on the canvas ----------------------------------------------------------------
    def set_drawing(self, on: bool) -> None:
        """Draw your own density: press and drag in the data panel; each mouse move
        sprays a few points. Switching drawing off makes them the training data (at
        least ``MIN_POINTS``), as a file of points would be."""
        from models.flows.points import MIN_POINTS

        if on:
            self.stop_jobs()
            self._drawn = []
            self.flow_view.show_data(np.zeros((0, 2), np.float32))
        self.flow_view.set_drawing(on)
        self.draw_button.setText(self.tr("Use these points") if on else
                                 self.tr("Draw points"))
        if on:
            return
        points = np.concatenate(self._drawn) if self._drawn else np.zeros((0, 2), np.float32)
        if len(points) < MIN_POINTS:
            self.error_note.setText(self.tr("Draw at least {0} points (press and drag in the "
                                            "data panel); {1} were drawn.").format(
                                                MIN_POINTS, len(points)))
            self.request_update()
            return
        self.error_note.setText("")
        self.custom_points, self.custom_name = points.astype(np.float32), self.tr("drawn")
        self._custom_id += 1
        self.model_form.set_values({"density": options.CUSTOM})
        self._model_changed()

    def add_drawn_point(self, x: float, y: float) -> None:
        view = self.flow_view.plots[0].vb.viewRange()
        spread = 0.015 * max(view[0][1] - view[0][0], view[1][1] - view[1][0])
        rng = np.random.default_rng(len(self._drawn))
        self._drawn.append((np.array([x, y]) + spread * rng.normal(size=(12, 2)))
                           .astype(np.float32))
        self.flow_view.show_data(np.concatenate(self._drawn))

    # -- files -------------------------------------------------------------------------------------
    def file_filter(self) -> str | None:
        return self.tr("2D points (*.csv *.txt *.tsv)")

    def file_reader(self, path: str):
        return partial(read_points, path)       # InvalidParameterError names the line

    def accept_file(self, path: str, loaded) -> None:
        """The points read from ``path`` become "your points"; training stops only now."""
        from pathlib import Path

        points, self._known_statistics = loaded[0], loaded
        self.stop_jobs()
        self.custom_points, self.custom_name = points, Path(path).name
        self._custom_id += 1
        self.model_form.set_values({"density": options.CUSTOM})
        self._model_changed()
        self.ctx.status(self.tr("Opened {0}: {1} points.").format(Path(path).name,
                                                                  len(points)))

    # -- export data -------------------------------------------------------------------------------
    def _data_flow(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        t = r.trace
        pts = self.flow_view.points_at(self.flow_view.t)
        return ViewData("points", {"points": pts, "all_layers": t.points.reshape(-1, 2)},
                        {"direction": t.direction, "position": self.flow_view.t,
                         "layers": list(t.layer_names)},
                        row_labels=list(range(len(pts))), col_labels=["x", "y"])

    def _data_density(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        d = r.density if r.course is None else r.course.density     # the one shown
        return ViewData("density", {"density": d.density, "target": r.target,
                                    "samples": d.samples},
                        {"extent": list(d.extent), "frame": list(r.frame), "mass": d.mass,
                         "target": r.target_kind, "as_the_course_writes_it": r.course
                         is not None},
                        row_labels=None, col_labels=None)

    def _data_nll(self) -> ViewData | None:
        session = self.sessions.get(self._session_key())
        if session is None or not session.losses:
            return None
        return ViewData("nll", {"nll": np.asarray(session.losses, np.float32)},
                        {"entropy": session.entropy, "model": session.kind,
                         "data": session.data},
                        row_labels=list(range(1, len(session.losses) + 1)), col_labels=["nll"])

    def _data_logdet(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        t = r.trace
        return ViewData("logdet", {"logdet": t.logdet, "logdet_points": t.logdet_points},
                        {"layers": list(t.layer_names), "direction": t.direction},
                        row_labels=list(t.layer_names), col_labels=["mean log|det J|"])

    # -- translations ------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.model_form.setTitle(self.tr("Flow and training"))
        self.model_form.set_texts(
            {"density": self.tr("Density"), "model": self.tr("Model"),
             "layers": self.tr("Layers"), "hidden": self.tr("Hidden units"),
             "actnorm": self.tr("ActNorm"), "lr": self.tr("Learning rate"),
             "batch": self.tr("Batch size"), "clip": self.tr("Clip gradients (0 = off)")},
            {"density": [self.tr("two moons"), self.tr("circles"), self.tr("8 gaussians"),
                         self.tr("checkerboard"), self.tr("two spirals"), self.tr("pinwheel"),
                         self.tr("rings"), self.tr("swiss roll"),
                         self.tr("your points (File → Open…)")],
             "model": [self.tr("RealNVP (affine coupling)"), self.tr("NICE (additive coupling)"),
                       self.tr("MAF (masked autoregressive)"),
                       self.tr("IAF (inverse autoregressive)")]})
        self.view_form.setTitle(self.tr("Animation"))
        self.view_form.set_texts(
            {"direction": self.tr("Direction"), "points": self.tr("Points"),
             "grid": self.tr("Deformed grid"), "speed": self.tr("Layers per second"),
             "seed": self.tr("Seed"), "course": self.tr("Density as the course writes it")},
            {"direction": [self.tr("forward: data → latent"),
                           self.tr("inverse: latent → data (sampling)")]})
        self.play_button.setText(self.tr("Pause") if self.play_button.isChecked()
                                 else self.tr("Play"))
        self.frames_button.setText(self.tr("Export animation…"))
        self.standardise_button.setText(self.tr("Standardise the points"))
        self.standardise_button.setToolTip(self.tr("Move the points to mean 0 and scale them "
                                                   "to standard deviation 1 in each "
                                                   "coordinate; open the file again to undo"))
        self._show_data_problem()
        self.draw_button.setText(self.tr("Use these points") if self.draw_button.isChecked()
                                 else self.tr("Draw points"))
        self.draw_button.setToolTip(self.tr("Press and drag in the data panel to draw a "
                                            "density of your own, then train on it"))
        self.retranslate_export()
        self.nll_plot.set_axis_labels(self.tr("step"), self.tr("nats per point"))
        super().retranslate()
        if self.result is not None:
            self.show_trace(self.result)
        for v in self.views:
            v.panel.set_title(v.title())

    @property
    def trace(self):
        return self.result

