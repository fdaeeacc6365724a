"""The normalizing-flow tab: RealNVP, NICE, MAF or IAF trained live on a 2D density,
samples animated through each layer (forward: data → latent, inverse: latent → data)
with a deformed grid, the learned density, the NLL against the entropy floor, and each
layer's log|det J|."""

from __future__ import annotations

import time
from functools import partial

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QPushButton

from app.tabs.base import TabContext
from app.tabs.flows.export import FlowsExport
from app.tabs.flows.params import MODEL_KEY, MODEL_PARAMS, VIEW_PARAMS
from app.tabs.flows.points import UserPointsNote, read_points
from app.tabs.flows.state import FlowSessionFile
from app.tabs.flows.views import LearnedDensityView, LogDetView, NllShown, NllView, SamplesView
from app.tabs.training import TrainingTab
from models.flows import options
from models.traces import FlowResult, Progress
from viz.controls import ParamForm

__all__ = ["FlowsTab", "SESSIONS_KEPT", "MODEL_PARAMS", "VIEW_PARAMS"]

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
        self.samples_view = SamplesView(self)
        self.density_view, self.nll_view = LearnedDensityView(self), NllView(self)
        self.logdet_view = LogDetView(self)
        self.tab_views = (self.samples_view, self.density_view, self.nll_view,
                          self.logdet_view)
        samples = self.samples_view          # its row: the tab's controls of the animation
        self.play_button, self.slider = samples.play_button, samples.slider
        self.layer_label, self.frames_button = samples.layer_label, samples.frames_button
        self.draw_button = samples.draw_button
        self.play_button.toggled.connect(self._play)
        self.frames_button.clicked.connect(self.export_frames_dialog)
        self.draw_button.toggled.connect(self.set_drawing)
        self.add_view(self.samples_view, 0, 0, 1, 4)
        # two square panels side by side: the target and the learned density
        self.add_view(self.density_view, 1, 0, 1, 2)
        self.add_view(self.nll_view, 1, 2)
        self.add_view(self.logdet_view, 1, 3)
        for view in self.tab_views:
            view.status.connect(self.ctx.status)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        for c in range(4):
            self.grid.setColumnStretch(c, 1)

    @property
    def flow_view(self):
        """The samples' ``FlowView`` (the export paints copies of it)."""
        return self.samples_view.plot


    # -- parameters ------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.model_form.values(), **self.view_form.values()}

    def request(self) -> options.FlowRequest:
        """The controls as the models' request (the animation speed is the tab's alone)."""
        return options.FlowRequest.from_values(self.params())

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

        ask = self.request()
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
        ask = self.request()
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
        ask = self.request()
        for view in (self.samples_view, self.density_view, self.logdet_view):
            view.show(result, ask)
        self._redraw_nll(result.entropy)

    def _redraw_nll(self, entropy: float) -> None:
        """The shown model's NLL so far (before training: the untrained flow's at step 0)
        against the floor."""
        self.nll_view.show(NllShown(self.sessions.get(self._session_key()), entropy,
                                    self.result.nll if self.result is not None
                                    else float("nan")))


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
            self.samples_view.start_drawing()
        self.flow_view.set_drawing(on)
        self.draw_button.setText(self.tr("Use these points") if on else
                                 self.tr("Draw points"))
        if on:
            return
        points = self.samples_view.drawn_points()
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
        for view in self.tab_views:
            view.label()
        super().retranslate()
        if self.result is not None:
            self.show_trace(self.result)
        else:
            for view in self.tab_views:
                view.show(None, self.request())

    @property
    def trace(self):
        return self.result

