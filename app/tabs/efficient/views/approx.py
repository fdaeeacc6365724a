"""The views of one approximation against exact attention (an ``ApproxTrace``): both
matrices, the error against the method's size, the error against the q/k scale."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.efficient.views.names import method_name
from app.tabs.view import TabView, ViewData
from models.traces import ApproxTrace
from viz.attention import HeadGrid
from viz.plots import CurvesPlot

translate = QCoreApplication.translate


def curve_names(a: ApproxTrace) -> list[str]:
    curves = {"orthogonal": translate("EfficientTab", "orthogonal features"),
              "i.i.d.": translate("EfficientTab", "i.i.d. features"),
              "random": translate("EfficientTab", "random projection"),
              "mean": translate("EfficientTab", "mean pooling"),
              "elu+1": translate("EfficientTab", "φ = elu + 1"),
              "banded": translate("EfficientTab", "banded window")}
    return [curves.get(c, c) for c in a.sweep_names]


class MatricesView(TabView):
    key = "matrices"

    def build(self) -> HeadGrid:
        plot = HeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        a = self.trace
        if a is None:
            return translate("EfficientTab", "Exact and approximate attention")
        return translate("EfficientTab",
                         "Exact softmax attention and {0} (relative output error {1:.3g})"
                         ).format(method_name(a.method), a.output_error)

    def draw(self, a: ApproxTrace, request) -> None:
        n = a.exact.shape[0]
        labels = [str(i) for i in range(n)]
        # weights of a long sequence are small: colour up to the largest exact weight
        top = float(max(a.exact.max(), 1e-6))
        self.plot.set_heads(np.stack([a.exact, a.implied]), labels, labels,
                            [translate("EfficientTab", "exact softmax"),
                             translate("EfficientTab", "implied by {0}").format(
                                 method_name(a.method).split(" (")[0].split("（")[0])],
                            cols=2, ticks=n <= 40, levels=(0.0, top))
        self.set_readout(
            translate("EfficientTab", "{0:.1%} of the implied weights are negative").format(
                a.negative) if a.negative > 0 else "")

    def _hover(self, tile: int, row: int, col: int, value: float) -> None:
        a = self.trace
        if tile < 0 or a is None:
            self.set_readout("")
            return
        self.set_readout(translate(
            "EfficientTab",
            "query {0} → key {1}: exact {2:.4f}, approximate {3:.4f}; row TV distance {4:.3f}"
        ).format(row, col, a.exact[row, col], a.implied[row, col], a.row_tv[row]))

    def data(self) -> ViewData | None:
        a = self.trace
        return None if a is None else ViewData(
            "implied", {"implied": a.implied, "exact": a.exact, "row_tv": a.row_tv},
            {"method": a.method, "output_error": a.output_error, **a.params},
            row_labels=list(range(a.exact.shape[0])),
            col_labels=list(range(a.exact.shape[1])))


class ErrorView(TabView):
    key = "error"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_x=True, log_y=True)

    def title(self) -> str:
        return translate("EfficientTab", "Error against exact attention")

    def draw(self, a: ApproxTrace, request) -> None:
        names = curve_names(a)
        self.plot.set_curves([a.sweep_x] * len(names), list(np.maximum(a.sweep_error, 1e-8)),
                             names, symbols=["o"] * len(names))
        x_name = {"performer": translate("EfficientTab", "random features m"),
                  "linformer": translate("EfficientTab", "projected length k")}.get(
            a.method, translate("EfficientTab", "window w"))
        self.plot.set_axis_labels(x_name, translate("EfficientTab", "relative error"))

    def data(self) -> ViewData | None:
        a = self.trace
        return None if a is None else ViewData(
            "error", {"error": a.sweep_error, "std": a.sweep_std, "x": a.sweep_x},
            {"method": a.method, "curves": list(a.sweep_names)},
            row_labels=list(a.sweep_names), col_labels=a.sweep_x.tolist())


class ScaleView(TabView):
    key = "scale"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_y=True)

    def title(self) -> str:
        return translate("EfficientTab", "Error against the q/k scale")

    def draw(self, a: ApproxTrace, request) -> None:
        names = curve_names(a)
        self.plot.set_curves([a.scale_x] * len(names), list(np.maximum(a.scale_error, 1e-8)),
                             names, symbols=["o"] * len(names))
        self.plot.set_axis_labels(translate("EfficientTab", "q/k scale"),
                                  translate("EfficientTab", "relative error"))

    def data(self) -> ViewData | None:
        a = self.trace
        return None if a is None else ViewData(
            "error", {"error": a.scale_error, "scale": a.scale_x},
            {"method": a.method, "curves": list(a.sweep_names)},
            row_labels=list(a.sweep_names), col_labels=a.scale_x.tolist())
