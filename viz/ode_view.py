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
from PySide6.QtGui import QFontMetricsF

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
        self._label_bars: list[tuple[int, int]] = []       # (series, category) per text
        self.plotItem.vb.sigResized.connect(self._place_labels)

    def set_hint(self, text: str) -> None:
        set_hint_text(self.hint, text)

    def set_bars(self, categories: Sequence[str], values: np.ndarray,
                 series: Sequence[str], labels: Sequence[Sequence[str]] = ()) -> None:
        """values: float[series, categories]; ``labels[s][c]``: the text over a bar."""
        super().set_bars(categories, values, series)
        for t in self._texts:
            self.plotItem.removeItem(t)
        self._texts, self._label_bars = [], []
        for s, row in enumerate(labels):
            for c, text in enumerate(row):
                item = pg.TextItem(text, anchor=(0.5, 1.0),
                                   color=SERIES_COLOURS[s % len(SERIES_COLOURS)])
                item._archscope_data_label = True     # a bar's value: the legend avoids it
                font = item.textItem.font()
                font.setPointSizeF(7.5)
                item.setFont(font)
                self.plotItem.addItem(item)
                self._texts.append(item)
                self._label_bars.append((s, c))
        self._place_labels()

    def _bar_span(self, s: int, c: int) -> tuple[float, float]:
        width = 0.8 / max(1, self._values.shape[0])
        return c - 0.4 + width * s, c - 0.4 + width * (s + 1)

    def _place_labels(self, *_args) -> None:
        """Each value over its bar; one wider than its bar is raised above every bar
        (and every label placed before it) that its text spans, so that no text is
        drawn over a neighbouring bar or another value. Placed again on every resize
        (a text's width in data units depends on the view's size)."""
        values = self._values
        finite = values[np.isfinite(values)]
        top = float(finite.max()) if finite.size else 1.0
        # headroom: the value labels over the bars, and the legend above them
        low = 1.45 * (top if top > 0 else 1.0)
        ymax = max(low, self._stack_labels(low))
        if ymax > low:              # raised texts need more: the y range grows to hold them
            self._stack_labels(ymax)

    def _stack_labels(self, ymax: float) -> float:
        """Place the texts for a y range of [0, ``ymax``]; returns the range their tops
        need (with 4 % to spare), 0 when they fit or the view is not laid out yet."""
        self.plotItem.setYRange(0, ymax, padding=0)
        if not self._texts:
            return 0.0
        vb = self.plotItem.vb
        px = vb.viewPixelSize()
        if not (np.isfinite(px).all() and px[0] > 0 and px[1] > 0 and vb.height() > 0):
            px = (0.0, 0.0)              # not laid out yet: every text on its own bar
        values = self._values
        (x_lo, x_hi), _ = vb.viewRange()
        need = 0.0
        # a text's bottom is a bar's top (``base``, data units) plus the texts stacked
        # on it (``lift``, pixels): a change of the y range moves both differently
        placed: list[tuple[float, float, float, float]] = []          # x0, x1, y0, y1
        tops: list[tuple[float, float]] = []                          # (base, lift) of y1
        # the tallest bar of a group first: its value stays on it, the others rise
        order = sorted(zip(self._texts, self._label_bars, strict=True),
                       key=lambda t: (t[1][1], -np.nan_to_num(values[t[1][0], t[1][1]])))
        for item, (s, c) in order:
            x0, x1 = self._bar_span(s, c)
            centre = (x0 + x1) / 2
            rect = item.textItem.boundingRect()
            # the text's own width (its box has the document's margin on either side)
            wide = QFontMetricsF(item.textItem.font()).horizontalAdvance(
                item.toPlainText()) + 2
            half, height = wide * px[0] / 2, rect.height() * px[1]
            if px[0] > 0:                # inside the view, not over the axis beside it
                edge = half + 2 * px[0]
                centre = min(max(centre, x_lo + edge), max(x_lo + edge, x_hi - edge))
            lo, hi = centre - half, centre + half
            base = float(values[s, c]) if np.isfinite(values[s, c]) else 0.0
            for other in range(values.shape[0]):        # bars of its group under the text
                b0, b1 = self._bar_span(other, c)
                if b0 < hi and lo < b1 and np.isfinite(values[other, c]):
                    base = max(base, float(values[other, c]))
            lift, y = 0.0, base
            moved = True
            while moved:                                  # above every label in the way
                moved = False
                for (p0, p1, q0, q1), (b, up) in zip(placed, tops, strict=True):
                    if p0 < hi and lo < p1 and q0 < y + height and y < q1:
                        y, base, lift, moved = q1, b, up, True
            placed.append((lo, hi, y, y + height))
            tops.append((base, lift + rect.height()))
            item.setPos(centre, y)
            if px[1] > 0 and y + height > 0.96 * ymax:
                room = 0.96 - (lift + rect.height()) / vb.height()
                need = max(need, base / room if room > 0.2 else ymax)
        return need

    def clear_bars(self) -> None:
        for bar in self._bars:
            self.legend.removeItem(bar)
            self.plotItem.removeItem(bar)
        for t in self._texts:
            self.plotItem.removeItem(t)
        self._bars, self._texts, self._label_bars = [], [], []
        self._values = np.zeros((0, 0), np.float32)
        self.legend.setVisible(False)
        self.plotItem.getAxis("bottom").setTicks([[]])       # no categories: no ticks

    def labels(self) -> list[str]:
        return [t.toPlainText() for t in self._texts]
