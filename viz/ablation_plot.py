"""Two plots side by side in one picture, each with a baseline's and an ablated model's curves
overlaid (the Transformer tab's Ablations view). Items are created once and updated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg

from viz.legend import CORNERS, keep_clear, one_layout
from viz.plots import _TickLevelsAxis, hint_item, set_hint_text
from viz.theme import LEGEND_BORDER, SERIES_COLOURS

#: where a value of exactly 0 is drawn on a log axis (the read-out gives the exact value)
LOG_FLOOR = 1e-9


@dataclass(frozen=True)
class Curve:
    """One curve: y over the plot's x, its legend name, a series colour index, whether
    it is dashed (the ablated model's curves are), and a pyqtgraph symbol."""

    y: np.ndarray
    name: str
    colour: int = 0
    dashed: bool = False
    symbol: str | None = "o"


class PairedPlots(pg.GraphicsLayoutWidget):
    """``plots[0]`` beside ``plots[1]``; ``set_plot(i, x, curves, log_y, x_label, y_label)``
    draws one of them. On a log axis a value of 0 is drawn at ``LOG_FLOOR``."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.plots: list[pg.PlotItem] = []
        self.legends: list[pg.LegendItem] = []
        self.hints = []
        self._items: list[list[pg.PlotDataItem]] = [[], []]
        self._data: list[tuple[np.ndarray, list[Curve]]] = [(np.zeros(0), []), (np.zeros(0), [])]
        for row in range(2):
            plot = self.addPlot(row=0, col=row, axisItems={
                "left": _TickLevelsAxis("left"), "bottom": _TickLevelsAxis("bottom")})
            # powers of ten, and 2·10ⁿ … 9·10ⁿ only where they do not crowd
            plot.getAxis("left").setStyle(textFillLimits=[(0, 0.35)])
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.getAxis("bottom").enableAutoSIPrefix(False)
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.showGrid(x=True, y=True, alpha=0.25)
            legend = plot.addLegend(offset=(-10, 10), labelTextSize="8pt",
                                    brush=pg.mkBrush(255, 255, 255, 210),
                                    pen=pg.mkPen(LEGEND_BORDER))
            keep_clear(plot, legend, prefer=("top-right", *(c for c in CORNERS
                                                             if c != "top-right")))
            self.plots.append(plot)
            self.legends.append(legend)
            self.hints.append(hint_item(plot))

    def set_plot(self, index: int, x: np.ndarray, curves: Sequence[Curve], log_y: bool,
                 x_label: str, y_label: str, zero_note: str = "") -> None:
        """``zero_note`` is added to the y label when a value of 0 is drawn on a log axis
        (at ``LOG_FLOOR``)."""
        plot, legend, items = self.plots[index], self.legends[index], self._items[index]
        plot.setLogMode(x=False, y=log_y)
        if log_y and zero_note and any((np.asarray(c.y) <= 0).any() for c in curves):
            y_label = f"{y_label} ({zero_note})"
        plot.setLabel("bottom", x_label)
        plot.setLabel("left", y_label)
        x = np.asarray(x, np.float64)
        legend.setVisible(bool(curves))       # no empty box while nothing is drawn
        with one_layout(legend):
            while len(items) > len(curves):
                item = items.pop()
                legend.removeItem(item)
                plot.removeItem(item)
            for i, curve in enumerate(curves):
                if i == len(items):
                    items.append(plot.plot())
                item = items[i]
                y = np.asarray(curve.y, np.float64)
                if log_y:
                    y = np.maximum(y, LOG_FLOOR)
                colour = SERIES_COLOURS[curve.colour % len(SERIES_COLOURS)]
                pen = pg.mkPen(colour, width=2, style=pg.QtCore.Qt.PenStyle.DashLine
                               if curve.dashed else pg.QtCore.Qt.PenStyle.SolidLine)
                item.setData(x, y, pen=pen, symbol=curve.symbol, symbolSize=6,
                             symbolBrush=colour, symbolPen=colour)
                legend.removeItem(item)
                legend.addItem(item, curve.name)
        # a few whole numbers (layers, positions): one tick each, no 0.5 between them
        whole = len(x) <= 16 and np.array_equal(x, np.round(x))
        plot.getAxis("bottom").setTicks([[(v, f"{v:g}") for v in x]] if whole else None)
        self._data[index] = (x, list(curves))
        plot.enableAutoRange()
        plot.autoRange()

    def set_hint(self, text: str, index: int = 0) -> None:
        """A note in plot ``index`` (the left one) while nothing is drawn there."""
        set_hint_text(self.hints[index], text)

    def curves(self, index: int) -> tuple[np.ndarray, list[Curve]]:
        """(x, curves) as last given to ``set_plot(index, …)`` (values not floored)."""
        return self._data[index]
