"""A decoder's next-token choice as horizontal bars, one row per candidate token, as
Transformer Explainer shows it: the probability at the chosen temperature (grey where
top-k or top-p drops the token) and, beside it, the renormalised probability that
sampling draws from (zero for a dropped token)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal

from viz.heatmap import TokenAxis, ask_minimum
from viz.legend import keep_clear
from viz.plots import LabelledPlot, hint_item, set_hint_text
from viz.theme import LEGEND_BORDER, SERIES_COLOURS

KEPT = SERIES_COLOURS[0]
DROPPED = "#b0b0b0"
FILTERED = SERIES_COLOURS[4]
BAR = 0.38        # the thickness of one bar (a row is 1)


class TokenBars(LabelledPlot):
    """Candidates down the left axis (most likely on top), two bars per candidate.

    Signals:
        hovered(row, series, value): the bar under the mouse (series 0 = probability,
            1 = after top-k / top-p; row -1 outside).
    """

    hovered = Signal(int, int, float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent, axisItems={"left": TokenAxis("left")})
        plot = self.plotItem
        plot.invertY(True)
        plot.setMouseEnabled(x=False, y=False)
        plot.showGrid(x=True, alpha=0.25)
        self.legend = plot.addLegend(offset=(-10, -10), labelTextSize="8pt",
                                     brush=pg.mkBrush(255, 255, 255, 210),
                                     pen=pg.mkPen(LEGEND_BORDER))
        self.legend_placer = keep_clear(plot, self.legend, prefer=("bottom-right",
                                                                   "top-right"))
        self.probs = pg.BarGraphItem(x0=[0], y=[0], width=[0], height=BAR)
        self.filtered = pg.BarGraphItem(x0=[0], y=[0], width=[0], height=BAR,
                                        brush=FILTERED, pen=pg.mkPen(FILTERED))
        plot.addItem(self.probs)
        plot.addItem(self.filtered)
        self.legend.addItem(self.probs, "")
        self.legend.addItem(self.filtered, "")
        self.hint = hint_item(plot)
        self._values = np.zeros((2, 0), np.float32)
        self._labels: tuple[str, ...] = ()
        self.scene().sigMouseMoved.connect(self._on_move)

    def set_hint(self, text: str) -> None:
        set_hint_text(self.hint, text)

    def set_bars(self, tokens: Sequence[str], probs: np.ndarray, kept: np.ndarray,
                 filtered: np.ndarray, names: tuple[str, str]) -> None:
        """probs, filtered: float[m]; kept: bool[m]; ``names`` the two series' names."""
        probs = np.asarray(probs, np.float32)
        filtered = np.asarray(filtered, np.float32)
        kept = np.asarray(kept, bool)
        y = np.arange(len(probs), dtype=np.float64)
        colours = [KEPT if k else DROPPED for k in kept] or [KEPT]   # (pyqtgraph fails on
        self.probs.setOpts(x0=np.zeros_like(y), y=y - BAR / 2, width=probs, height=BAR,
                           brushes=[pg.mkBrush(c) for c in colours],   # an empty pen list)
                           pens=[pg.mkPen(c) for c in colours])
        self.filtered.setOpts(x0=np.zeros_like(y), y=y + BAR / 2, width=filtered,
                              height=BAR)
        for item, name in zip((self.probs, self.filtered), names, strict=True):
            label = self.legend.getLabel(item)
            if label is not None and label.text != name:
                label.setText(name)
        self._values = np.stack([probs, filtered]) if len(probs) else np.zeros((2, 0),
                                                                              np.float32)
        self._labels = tuple(map(str, tokens))
        self._relabel()
        top = float(max(probs.max(initial=0.0), filtered.max(initial=0.0)))
        self.plotItem.setRange(xRange=(0.0, max(top, 1e-3) * 1.05),
                               yRange=(-0.6, max(len(probs), 1) - 0.4), padding=0)

    def _relabel(self) -> None:
        n = max(len(self._labels), 1)
        row_px = self.plotItem.vb.height() / n if self.plotItem.vb.height() > 0 else 12.0
        axis = self.plotItem.getAxis("left")
        axis.set_tokens(self._labels, row_px)
        axis.setWidth(int(axis.extent()))
        # every candidate named: below the smallest type, ask for the height it needs
        need = len(self._labels) * axis.min_cell_px()
        need = int(np.ceil(need + self.height() - self.plotItem.vb.height())) if need else 0
        if self.plotItem.vb.height() > 0:
            ask_minimum(self, 0, need)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(ev)
        if getattr(self, "closed", False):      # pyqtgraph's close() cleared the scene
            return
        if getattr(self, "_labels", None) is not None:
            self._relabel()

    def values(self) -> np.ndarray:
        """float[2, m]: the probabilities and the renormalised ones, as drawn."""
        return self._values.copy()

    def _on_move(self, scene_pos: QPointF) -> None:
        vb = self.plotItem.vb
        if vb.sceneBoundingRect().contains(scene_pos) and self._values.shape[1]:
            p = vb.mapSceneToView(scene_pos)
            row = int(np.floor(p.y() + 0.5))
            if 0 <= row < self._values.shape[1]:
                series = 0 if p.y() < row else 1
                self.hovered.emit(row, series, float(self._values[series, row]))
                return
        self.hovered.emit(-1, -1, float("nan"))
