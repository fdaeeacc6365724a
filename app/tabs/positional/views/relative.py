"""The views of the relative-position map: M_k (exact, learned or their difference) and
the fit that learns it by gradient descent. Both see a ``FitShown``: the table shown and
the fit so far."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.traces import OffsetFitTrace, PEGrid
from models.transformer.options import PositionalRequest
from viz.heatmap import HeatmapPlot
from viz.plots import CurvesPlot
from viz.theme import DIVERGING

translate = QCoreApplication.translate


@dataclass(frozen=True)
class FitShown:
    """The table shown and the fit so far: the fit (None before one), its loss at every
    step, its max error at each report, how many steps a run takes, and whether one runs."""

    grid: PEGrid | None
    fit: OffsetFitTrace | None = None
    history: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    errors: tuple[tuple[int, float], ...] = ()
    steps: int = 0
    learning: bool = False

    @property
    def fit_matches(self) -> bool:
        """The fit is of the table shown (a W learned for other parameters would mislead)."""
        g = self.grid
        return g is not None and self.fit is not None and \
            self.fit.matches(g.d_model, g.max_len, g.base, g.offset)


class RelativeView(TabView):
    key = "relative"

    def build(self) -> HeatmapPlot:
        plot = HeatmapPlot(DIVERGING)
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        shown, ask = self.trace, self.request
        mode = ask.relative_mode if ask is not None else "analytic"
        k = ask.offset if ask is not None else 0
        fit_k = shown.fit.offset if shown is not None and shown.fit is not None else k
        if mode == "learned":
            return translate("PositionalTab", "Learned W (k = {0})").format(fit_k)
        if mode == "difference":
            return translate("PositionalTab", "W − M_k (k = {0})").format(fit_k)
        return translate("PositionalTab", "Relative-position map M_k, k = {0}").format(k)

    def label(self) -> None:
        self.plot.set_axis_labels(translate("PositionalTab", "input dimension"),
                                  translate("PositionalTab", "output dimension"))

    def draw(self, shown: FitShown, ask: PositionalRequest) -> None:
        t = shown.grid
        if t is None:
            return
        if ask.relative_mode == "learned" and shown.fit_matches:
            self.plot.set_matrix(shown.fit.learned, levels=(-1.0, 1.0))
        elif ask.relative_mode == "difference" and shown.fit_matches:
            diff = shown.fit.learned - shown.fit.analytic
            lim = float(max(1e-6, np.abs(diff).max()))
            self.plot.set_matrix(diff, levels=(-lim, lim))
        else:
            self.plot.set_matrix(t.offset_matrix, levels=(-1.0, 1.0))
            if ask.relative_mode != "analytic" and not shown.learning:
                self.status.emit(translate(
                    "PositionalTab", "Nothing learned yet for these parameters: press "
                    "“Learn M_k by gradient descent”."))

    def _hover(self, row: int, col: int, value: float) -> None:
        self.set_readout(f"[{row}, {col}] = {value:+.5f}" if row >= 0 else "")

    def data(self) -> ViewData | None:
        shown, ask = self.trace, self.request
        t = shown.grid if shown is not None else None
        if t is None:
            return None
        arrays = {"offset_matrix": t.offset_matrix, "offset_error": t.offset_error}
        primary = "offset_matrix"
        if shown.fit_matches:
            arrays["learned"] = shown.fit.learned
            arrays["difference"] = shown.fit.learned - shown.fit.analytic
            mode = ask.relative_mode if ask is not None else "analytic"
            primary = {"learned": "learned", "difference": "difference"}.get(mode, primary)
        return ViewData(primary, arrays, {"d_model": t.d_model, "max_len": t.max_len,
                                          "base": t.base, "offset": t.offset,
                                          "device": t.device})


class FitView(TabView):
    """The fit's loss and error curves, from step 0 (W = 0, where ``fit_offset_map``
    starts, worked out from the table) with the exact M_k's error as the floor."""

    key = "fit"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_y=True)

    def title(self) -> str:
        return translate("PositionalTab", "Learning M_k by gradient descent")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("PositionalTab", "step"),
                                  translate("PositionalTab", "loss / max error (log scale)"))

    def show(self, shown: FitShown, request=None) -> None:
        super().show(shown, request)
        if shown is None or shown.grid is None or \
                not 0 < shown.grid.offset < shown.grid.max_len:
            self.plot.set_curves([], [], [])
            self.set_readout("")

    def draw(self, shown: FitShown, request) -> None:
        h, t = shown.history, shown.grid
        if t is None or not 0 < t.offset < t.max_len:
            return
        names = [translate("PositionalTab", "training loss (MSE)"),
                 translate("PositionalTab", "max error, all positions")]
        target = t.pe[t.offset:]                   # what W·PE[pos] should reach
        start = (float(np.mean(target ** 2)), float(np.abs(target).max()))
        floor = float(max(t.offset_error.max(initial=0.0), 1e-12))
        last = float(max(shown.steps, len(h)))
        names.append(translate("PositionalTab", "exact M_k: max error {0:.1e}").format(floor))
        steps = np.arange(0, len(h) + 1, dtype=np.float32)
        err_steps = np.array([0, *(s for s, _ in shown.errors)], np.float32)
        errors = np.array([start[1], *(e for _, e in shown.errors)], np.float32)
        self.plot.set_curves(
            [steps, err_steps, np.array([0.0, last], np.float32)],
            [np.maximum(np.array([start[0], *h], np.float32), 1e-12),
             np.maximum(errors, 1e-12), np.array([floor, floor], np.float32)],
            names, symbols=["o" if not len(h) else None, "o", None])
        self.plot.set_hint("")
        if not len(h):              # nothing learned: the start, the floor, what to press
            self.plot.plotItem.setXRange(0, last, padding=0.02)
            self.set_readout(translate(
                "PositionalTab", "Step 0: W = 0. Press “Learn M_k by gradient descent” to fit "
                "W·PE[pos] ≈ PE[pos+k] with Adam."))
            return
        if shown.fit is not None:
            self.set_readout(translate(
                "PositionalTab", "step {0}: loss {1:.2e}, max |W − M_k| = {2:.2f}").format(
                    len(h), float(h[-1]), shown.fit.max_abs_difference))

    def data(self) -> ViewData | None:
        shown = self.trace
        if shown is None or not len(shown.history):
            return None
        arrays = {"loss": shown.history,
                  "max_error_steps": np.array([s for s, _ in shown.errors], np.int64),
                  "max_error": np.array([e for _, e in shown.errors], np.float32)}
        meta = {}
        fit = shown.fit
        if fit is not None:
            arrays["learned"] = fit.learned
            arrays["analytic"] = fit.analytic
            meta = {"d_model": fit.d_model, "max_len": fit.max_len, "base": fit.base,
                    "offset": fit.offset}
        return ViewData("loss", arrays, meta, col_labels=["loss"],
                        row_labels=list(range(1, len(shown.history) + 1)))
