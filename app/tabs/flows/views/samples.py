"""The samples' journey through the flow's layers (``FlowView``) with the row under it:
Play, the position slider, the layer's caption, Draw points and Export animation…

The row's widgets are the view's; the tab connects Play, Draw points and Export. The
slider moves the picture here, and points drawn with the mouse are sprayed here
(``drawn``), for the tab to take when drawing ends."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSlider, QVBoxLayout, QWidget

from app.tabs.view import TabView, ViewData
from models.flows.options import FlowRequest
from models.traces import FlowResult
from viz.flow_view import FlowView
from viz.panel import ViewPanel
from viz.text import FitLabel

translate = QCoreApplication.translate


class SamplesView(TabView):
    key = "flow"

    def build(self) -> FlowView:
        plot = FlowView()
        self.drawn: list[np.ndarray] = []      # the points sprayed while drawing
        plot.drawn.connect(self.add_drawn_point)
        return plot

    def make_panel(self, plot: FlowView) -> ViewPanel:
        host = QWidget()           # the view with its play button and layer slider
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.play_button = QPushButton()
        self.play_button.setObjectName("PlayButton")
        self.play_button.setCheckable(True)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 800)
        self.slider.valueChanged.connect(self._slider_moved)
        # the time, layer and its log-det: wrapped over two lines where the row is narrow
        # (it needed 482 px of 456 at 1280x800), always two lines high so the row keeps
        # its place as the animation names one layer after another
        self.layer_label = FitLabel(max_lines=2, min_lines=2)
        self.layer_label.setMinimumWidth(280)
        self.frames_button = QPushButton()
        self.draw_button = QPushButton()
        self.draw_button.setObjectName("DrawButton")
        self.draw_button.setCheckable(True)
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.layer_label, 1)
        row.addWidget(self.draw_button)
        row.addWidget(self.frames_button)
        col.addLayout(row)
        panel = ViewPanel(plot)         # exports the view, not the controls
        panel.layout().replaceWidget(plot, host)
        col.insertWidget(0, plot, 1)
        return panel

    def title(self) -> str:
        forward = self.request is None or self.request.direction == "forward"
        return (translate("FlowsTab", "Samples through each layer: data → latent") if forward
                else translate("FlowsTab", "Sampling by the inverse: latent → data"))

    def draw(self, result: FlowResult, request: FlowRequest | None) -> None:
        trace = result.trace
        self.plot.set_trace(trace, result.grid)
        self.plot.fit_middle()
        layers = trace.points.shape[0] - 1
        self.slider.blockSignals(True)
        self.slider.setRange(0, 100 * layers)
        self.slider.blockSignals(False)
        self._slider_moved(self.slider.value())
        forward = trace.direction == "forward"
        latent = translate("FlowsTab", "latent z (dashed: N(0, I) at 1, 2, 3σ)")
        self.plot.set_titles(translate("FlowsTab", "data x") if forward else latent,
                             translate("FlowsTab", "through the layers"),
                             latent if forward else translate("FlowsTab", "samples x"))
        x, z, h = ("x₁", "x₂"), ("z₁", "z₂"), ("h₁", "h₂")
        self.plot.set_axis_labels([x, h, z] if forward else [z, h, x])

    # -- the position ----------------------------------------------------------------
    def layer_note(self, trace, t: float) -> str:
        """The caption under the panels at position t: what that layer does."""
        layers = trace.points.shape[0] - 1
        if layers < 1:
            return ""
        layer = min(int(t), layers - 1)
        axis, arrows = "xy", "↔↕"
        masked, changed = trace.masked[layer], trace.transformed[layer]
        return (translate("FlowsTab", "layer {0}: {1} kept · {2} moves {3}").format(
                    layer + 1, axis[masked], axis[changed], arrows[changed])
                if masked >= 0 and changed >= 0 else
                translate("FlowsTab", "layer {0}: every coordinate moves").format(layer + 1))

    def _slider_moved(self, value: int) -> None:
        t = value / 100
        self.plot.set_position(t)
        trace = self.plot.trace
        if trace is None:
            return
        layers = trace.points.shape[0] - 1
        layer = min(int(t), layers - 1) if layers else -1
        if layer < 0:
            self.layer_label.setText("")
            return
        axis = "xy"
        masked, changed = trace.masked[layer], trace.transformed[layer]
        self.plot.set_note(self.layer_note(trace, t))
        what = (translate("FlowsTab", "{0} unchanged, {1} transformed").format(
                    axis[masked], axis[changed])
                if masked >= 0 and changed >= 0 else
                translate("FlowsTab", "every coordinate transformed"))
        names = {"affine coupling": translate("FlowsTab", "affine coupling"),
                 "additive coupling": translate("FlowsTab", "additive coupling"),
                 "permute": translate("FlowsTab", "permutation")}
        name = names.get(trace.layer_names[layer], trace.layer_names[layer])
        self.layer_label.setText(translate(
            "FlowsTab", "t = {0:.2f} · layer {1} {2}: {3}; log|det J| {4:+.3f}").format(
                t, layer + 1, name, what, float(trace.logdet[layer])))

    # -- points drawn with the mouse -------------------------------------------------
    def start_drawing(self) -> None:
        self.drawn = []
        self.plot.show_data(np.zeros((0, 2), np.float32))

    def drawn_points(self) -> np.ndarray:
        return np.concatenate(self.drawn) if self.drawn else np.zeros((0, 2), np.float32)

    def add_drawn_point(self, x: float, y: float) -> None:
        view = self.plot.plots[0].vb.viewRange()
        spread = 0.015 * max(view[0][1] - view[0][0], view[1][1] - view[1][0])
        rng = np.random.default_rng(len(self.drawn))
        self.drawn.append((np.array([x, y]) + spread * rng.normal(size=(12, 2)))
                          .astype(np.float32))
        self.plot.show_data(np.concatenate(self.drawn))

    def data(self) -> ViewData | None:
        r = self.trace
        if r is None:
            return None
        t = r.trace
        pts = self.plot.points_at(self.plot.t)
        return ViewData("points", {"points": pts, "all_layers": t.points.reshape(-1, 2)},
                        {"direction": t.direction, "position": self.plot.t,
                         "layers": list(t.layer_names)},
                        row_labels=list(range(len(pts))), col_labels=["x", "y"])
