"""Plots of the neural-ODE tab that the shared ones do not cover.

* ``TimelinePlot``: curves over training steps (a ``CurvesPlot``) with labelled vertical
  markers where something changed (the solver was switched mid-run).
* ``StepsPlot``: the steps an ODE solver took over [t0, t1], step size dt against t on a
  log axis, accepted steps as dots on a line and rejected ones as crosses.
* ``LabelledBarsPlot``: grouped bars (a ``GroupedBarsPlot``) with a text over each bar
  (the absolute value when the bars show relative ones) and a hint while empty.

Shapes:
    markers: xs float[m], labels list of m strings
    steps: accepted_t, accepted_dt float[a]; rejected_t, rejected_dt float[r]
    bars: values float[series, categories], labels: series lists of category strings
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from viz.legend import keep_clear
from viz.plots import (
    CurvesPlot,
    GroupedBarsPlot,
    LabelledPlot,
    _TickLevelsAxis,
    hint_item,
    set_hint_text,
)
from viz.theme import LEGEND_BORDER, SERIES_COLOURS


class TimelinePlot(CurvesPlot):
    """A ``CurvesPlot`` over training steps with labelled vertical markers
    (``set_markers(xs, labels)``). While its hint shows (nothing trained yet), the axes
    keep their labels and grid but no tick values: an empty 0 … 1 range numbered 0.2,
    0.4, … read as data that was not there."""

    def __init__(self, parent=None, **kw) -> None:
        super().__init__(parent, **kw)
        self._markers: list[pg.InfiniteLine] = []
        self._marker_data: tuple[np.ndarray, list[str]] = (np.zeros(0), [])

    def set_hint(self, text: str) -> None:
        super().set_hint(text)
        for name in ("bottom", "left"):
            self.plotItem.getAxis(name).setStyle(showValues=not text)

    def tick_values_shown(self) -> bool:
        return bool(self.plotItem.getAxis("left").style["showValues"])

    def set_markers(self, xs: Sequence[float], labels: Sequence[str]) -> None:
        """A dashed vertical line at each x, its label near the top (reused items): right
        of the line in the left half of the curves' x range, left of it in the right half
        (so it is not cut off at the plot's edge)."""
        xs = [float(x) for x in xs]
        data_x = [np.asarray(x) for x in self.curves()[0] if np.asarray(x).size]
        x_hi = max((float(np.nanmax(x)) for x in data_x), default=1.0)
        x_lo = min((float(np.nanmin(x)) for x in data_x), default=0.0)
        while len(self._markers) > len(xs):
            self.plotItem.removeItem(self._markers.pop())
        pen = pg.mkPen("#777777", width=1, style=Qt.PenStyle.DashLine)
        for i, (x, text) in enumerate(zip(xs, labels, strict=True)):
            if i < len(self._markers):
                line = self._markers[i]
                line.setValue(x)
                line.label.setFormat(text)
            else:
                line = pg.InfiniteLine(pos=x, angle=90, pen=pen, movable=False,
                                       label=text,
                                       labelOpts={"position": 0.92, "color": "#444444",
                                                  "fill": pg.mkBrush(255, 255, 255, 200),
                                                  "anchors": [(0, 0.5), (0, 0.5)]})
                line.setZValue(-2)
                self.plotItem.addItem(line, ignoreBounds=True)
                self._markers.append(line)
            side = (1, 0.5) if x > 0.5 * (x_lo + x_hi) else (0, 0.5)
            line.label.anchors = [side, side]
            line.label.updatePosition()
        self._marker_data = (np.asarray(xs, np.float32), list(labels))

    def markers(self) -> tuple[np.ndarray, list[str]]:
        return self._marker_data


class StepsPlot(LabelledPlot):
    """Step size dt against t (log dt): accepted steps as dots joined by a line,
    rejected steps as crosses; a hint while there are none."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent, axisItems={"left": _TickLevelsAxis("left")})
        item = self.plotItem
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setLogMode(x=False, y=True)
        item.getAxis("left").enableAutoSIPrefix(False)
        item.getAxis("bottom").enableAutoSIPrefix(False)     # t in 0 … 1: no "(x0.001)"
        item.getAxis("left").setStyle(textFillLimits=[(0, 0.35)])
        self.legend = item.addLegend(offset=(-10, -10), labelTextSize="8pt",
                                     brush=pg.mkBrush(255, 255, 255, 210),
                                     pen=pg.mkPen(LEGEND_BORDER))
        keep_clear(item, self.legend, prefer=("bottom-right", "top-right", "bottom-left",
                                              "top-left"))
        self.accepted = item.plot([], [], pen=pg.mkPen(SERIES_COLOURS[0], width=1),
                                  symbol="o", symbolSize=6, symbolPen=None,
                                  symbolBrush=SERIES_COLOURS[0])
        self.rejected = item.plot([], [], pen=None, symbol="x", symbolSize=10,
                                  symbolPen=pg.mkPen(SERIES_COLOURS[1], width=2),
                                  symbolBrush=SERIES_COLOURS[1])
        self.hint = hint_item(item)
        self._legend_key: tuple = ()
        self._data = {k: np.zeros(0, np.float32) for k in
                      ("accepted_t", "accepted_dt", "rejected_t", "rejected_dt")}

    def set_hint(self, text: str) -> None:
        set_hint_text(self.hint, text)

    def set_steps(self, accepted_t, accepted_dt, rejected_t, rejected_dt,
                  names: tuple[str, str]) -> None:
        data = {"accepted_t": accepted_t, "accepted_dt": accepted_dt,
                "rejected_t": rejected_t, "rejected_dt": rejected_dt}
        self._data = {k: np.asarray(v, np.float32).ravel() for k, v in data.items()}
        d = self._data
        # log axis: a zero or negative dt cannot be drawn (it would be -inf)
        ok_a, ok_r = d["accepted_dt"] > 0, d["rejected_dt"] > 0
        self.accepted.setData(d["accepted_t"][ok_a], d["accepted_dt"][ok_a])
        self.rejected.setData(d["rejected_t"][ok_r], d["rejected_dt"][ok_r])
        rejected = bool(ok_r.any()) and bool(names[1])
        if (names, rejected) != self._legend_key:      # rejected steps: named when drawn
            self.legend.clear()
            self.legend.addItem(self.accepted, names[0])
            if rejected:
                self.legend.addItem(self.rejected, names[1])
            self._legend_key = (names, rejected)
        self.rejected.setVisible(rejected)
        self.plotItem.enableAutoRange()

    def steps(self) -> dict[str, np.ndarray]:
        return dict(self._data)


class LabelledBarsPlot(GroupedBarsPlot):
    """Grouped bars with a text above each bar and a centred hint while empty."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.hint = hint_item(self.plotItem)
        self._texts: list[pg.TextItem] = []
        # one row across the top, above the bars (the y range leaves room for it): two
        # rows covered the value over the tallest bar at the top right
        self.legend.setColumnCount(2)
        self.legend_placer.inside_columns = 2

    def set_hint(self, text: str) -> None:
        set_hint_text(self.hint, text)

    def set_bars(self, categories: Sequence[str], values: np.ndarray,
                 series: Sequence[str], labels: Sequence[Sequence[str]] = ()) -> None:
        """values: float[series, categories]; ``labels[s][c]``: the text over a bar."""
        super().set_bars(categories, values, series)
        for t in self._texts:
            self.plotItem.removeItem(t)
        self._texts = []
        values = np.asarray(values, np.float32)
        n = max(1, len(series))
        width = 0.8 / n
        for s, row in enumerate(labels):
            for c, text in enumerate(row):
                item = pg.TextItem(text, anchor=(0.5, 1.0),
                                   color=SERIES_COLOURS[s % len(SERIES_COLOURS)])
                item._archscope_data_label = True     # a bar's value: the legend avoids it
                font = item.textItem.font()
                font.setPointSizeF(7.5)
                item.setFont(font)
                item.setPos(c - 0.4 + width * (s + 0.5), float(values[s, c]))
                self.plotItem.addItem(item)
                self._texts.append(item)
        top = float(np.nanmax(values)) if values.size else 1.0
        # headroom: the value labels over the bars, and the legend above them
        self.plotItem.setYRange(0, 1.45 * (top if top > 0 else 1.0), padding=0)

    def clear_bars(self) -> None:
        for bar in self._bars:
            self.legend.removeItem(bar)
            self.plotItem.removeItem(bar)
        for t in self._texts:
            self.plotItem.removeItem(t)
        self._bars, self._texts = [], []
        self._values = np.zeros((0, 0), np.float32)
        self.legend.setVisible(False)
        self.plotItem.getAxis("bottom").setTicks([[]])       # no categories: no ticks

    def labels(self) -> list[str]:
        return [t.toPlainText() for t in self._texts]
