"""The adaptation view: the test task's true curve, its support points (which the
student drags, adds and removes) and every shown method's prediction after the number
of steps its scrubber shows (earlier steps faint). It sees the tab's ``MetaResult``."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from app.tabs.meta.views.common import displayable, method_labels, short_labels
from app.tabs.view import TabView, ViewData
from models.meta.options import AMPLITUDE, METHODS, RANGES, X_RANGE, MetaRequest
from models.traces.meta import MetaResult
from viz.meta_view import AdaptPlot
from viz.panel import ViewPanel

translate = QCoreApplication.translate
#: the training tasks' largest amplitude (5): above it a test task is out of distribution
TRAIN_AMP_MAX = AMPLITUDE[1]


class AdaptView(TabView):
    """Emits ``moved(i, x, y)``, ``clicked(x, y)`` and ``removed(i)`` of the support
    points, as its plot does; its scrubber (``steps_slider``, ``trail_box``) is a control
    the tab reads and connects."""

    key = "adapt"
    moved = Signal(int, float, float)
    clicked = Signal(float, float)
    removed = Signal(int)

    def build(self) -> AdaptPlot:
        plot = AdaptPlot()
        plot.moved.connect(self.moved)
        plot.clicked.connect(self.clicked)
        plot.removed.connect(self.removed)
        return plot

    def make_panel(self, plot: AdaptPlot) -> ViewPanel:
        """The plot under a row with the step label, the step slider (0 … 10) and the
        "earlier steps" box (the panel exports the plot, not the scrubber)."""
        host = QWidget()
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.steps_label = QLabel()
        self.steps_label.setMinimumWidth(190)
        steps = RANGES["steps_shown"]
        self.steps_slider = QSlider(Qt.Orientation.Horizontal)
        self.steps_slider.setObjectName("StepsSlider")
        self.steps_slider.setRange(int(steps.minimum), int(steps.maximum))
        self.steps_slider.setValue(int(steps.default))
        self.steps_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.steps_slider.setPageStep(1)
        self.trail_box = QCheckBox()
        self.trail_box.setChecked(MetaRequest().trail)
        row.addWidget(self.steps_label)
        row.addWidget(self.steps_slider, 1)
        row.addWidget(self.trail_box)
        col.addLayout(row)
        panel = ViewPanel(plot)
        panel.layout().replaceWidget(plot, host)
        col.addWidget(plot, 1)
        return panel

    def title(self) -> str:
        ask = self.request
        if ask is not None and ask.amp_max > TRAIN_AMP_MAX:
            return translate("MetaTab", "Adapting to a new task from K points (amplitudes "
                             "up to {0:g}: out of distribution)").format(ask.amp_max)
        return translate("MetaTab", "Adapting to a new task from K points")

    def label(self) -> None:
        self.plot.set_axis_labels("x", "y")
        self.trail_box.setText(translate("MetaTab", "earlier steps"))

    def retitle(self, request: MetaRequest) -> None:
        """The title of ``request`` (its largest amplitude), the curves left as they are."""
        self.request = request
        self.panel.set_title(self.title())

    def show(self, trace: MetaResult | None, request: MetaRequest | None = None) -> None:
        if request is not None:
            self.steps_label.setText(translate("MetaTab", "after {0} gradient step(s)").format(
                request.steps_shown))
        super().show(trace, request)

    def draw(self, r: MetaResult, ask: MetaRequest) -> None:
        s = ask.steps_shown
        task, trace = r.task, r.adapt
        labels = method_labels()
        idx = [trace.methods.index(m) for m in ask.shown_methods if m in trace.methods]
        names = [trace.methods[i] for i in idx]
        truth = task.y_grid
        support = np.stack([trace.x_support, trace.y_support], 1)
        preds = displayable(trace.predictions[idx], np.array([1e5], np.float32))
        self.plot.show_adaptation(
            trace.x_grid, truth, preds, names,
            [METHODS.index(m) for m in names], [labels[m] for m in names], s,
            ask.trail, support,
            translate("MetaTab", "true function A·sin(x − φ)"),
            translate("MetaTab", "{0} support points").format(len(support)))
        err = ((trace.predictions[:, s] - truth[None]) ** 2).mean(1)
        short = short_labels()
        parts = [f"{short[m]} {err[trace.methods.index(m)]:.3f}" for m in names]
        self.set_readout(translate(
            "MetaTab", "A = {0:.2f}, φ = {1:.2f} · MSE after {2} step(s): {3}").format(
                task.amplitude, task.phase, s, " · ".join(parts)))

    def frame(self, amplitude: float) -> None:
        """A y range for a task of ``amplitude`` (a drag keeps the student's zoom)."""
        top = max(TRAIN_AMP_MAX, amplitude) + 1.0
        self.plot.set_extent((*X_RANGE, -top, 1.3 * top), padding=0.02)

    def show_support(self, points: np.ndarray) -> None:
        """The support points as placed, before the methods have adapted to them."""
        self.plot.set_points("support", points, "#111111", size=11, outline="w")

    def data(self) -> ViewData | None:
        r, ask = self.trace, self.request
        if r is None:
            return None
        t, task = r.adapt, r.task
        s = ask.steps_shown
        table = np.concatenate([t.x_grid[:, None], task.y_grid[:, None],
                                t.predictions[:, s].T], 1)
        return ViewData("curves", {"curves": table, "predictions": t.predictions,
                                   "support": np.stack([t.x_support, t.y_support], 1)},
                        {"amplitude": task.amplitude, "phase": task.phase,
                         "steps_shown": s, "inner_lr": t.inner_lr,
                         "methods": list(t.methods), "meta_step": r.meta_step},
                        row_labels=None,
                        col_labels=["x", "true", *[f"{m}_step{s}" for m in t.methods]])
