"""Rows of small graphs drawn as node-link thumbnails, the generators' MMD table as
horizontal bars, and a loss curve with a labelled reference level: the generation view's
pictures. Drawing only: positions and scores
come laid out and computed in the traces (``models.traces.generation``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

from models.traces.generation import GraphSet
from viz.ode_view import TimelinePlot
from viz.plots import LabelledPlot, hint_item, set_hint_text
from viz.scatter import Scatter
from viz.theme import MUTED, SERIES_COLOURS

#: the colour of the training graphs' row and of the reference row (dark grey)
TRAINING_COLOUR = "#444444"
CELL = 1.25            # a thumbnail takes the unit square; the rest is the gap
MAX_PITCH = 2 * CELL   # the most from one column to the next where the width is spare


def row_colour(index: int | None) -> str:
    """A series colour by index, or the training grey for None."""
    return TRAINING_COLOUR if index is None else SERIES_COLOURS[index % len(SERIES_COLOURS)]


class GraphGallery(LabelledPlot):
    """One row of thumbnails per set of graphs (``set_rows``): the graph's nodes as dots
    and its edges as lines in the row's colour, each graph in its own cell, the row's
    name on the left axis. Items are made once per row and updated."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        item = self.plotItem
        item.hideAxis("bottom")
        item.getAxis("left").setPen(pg.mkPen(None))
        item.getAxis("left").setStyle(tickLength=0)
        item.setMouseEnabled(x=False, y=False)
        item.invertY(True)
        item.vb.sigResized.connect(self._fit)
        self.hint = hint_item(item)
        self._frames = pg.PlotCurveItem(pen=pg.mkPen("#dddddd", width=1), connect="pairs")
        item.addItem(self._frames)
        self._edges: list[pg.PlotCurveItem] = []
        self._nodes: list[pg.ScatterPlotItem] = []
        self._rows: list[tuple[str, GraphSet]] = []
        self._extent = (1, 0)              # (columns, rows) drawn
        self._drawn: tuple = ((), (), 0)   # (sets, colours, columns) as given
        self.pitch = CELL                  # from one column to the next (``_fit``)

    def set_hint(self, text: str) -> None:
        set_hint_text(self.hint, text)

    def set_rows(self, names: Sequence[str], sets: Sequence[GraphSet],
                 colours: Sequence[int | None], columns: int) -> None:
        """Row r: the first ``columns`` graphs of ``sets[r]`` (laid out: their
        ``positions``), labelled ``names[r]``, drawn in ``row_colour(colours[r])``."""
        while len(self._edges) > len(sets):
            self.plotItem.removeItem(self._edges.pop())
            self.plotItem.removeItem(self._nodes.pop())
        self._drawn = (tuple(sets), tuple(colours), columns)
        self._draw_rows()
        self.plotItem.getAxis("left").setTicks([[(r * CELL + 0.5, name)
                                                for r, name in enumerate(names)], []])
        self._rows = list(zip(names, sets, strict=True))
        self._extent = (max([min(columns, len(s)) for s in sets] or [1]) or 1, len(sets))
        self._fit()

    def _draw_rows(self) -> None:
        """The thumbnails, ``self.pitch`` apart from one column to the next."""
        sets, colours, columns = self._drawn
        frames = []
        for r, (graphs, colour) in enumerate(zip(sets, colours, strict=True)):
            xe, ye, xn, yn = [], [], [], []
            offsets = graphs.node_offsets()
            for i in range(min(columns, len(graphs))):
                x0, y0 = i * self.pitch, r * CELL
                n, edges = graphs.graph(i)
                pos = graphs.positions[offsets[i]:offsets[i] + n]
                if len(pos) != n:
                    continue
                xn.append(pos[:, 0] + x0)
                yn.append(pos[:, 1] + y0)
                if len(edges):
                    ends = pos[edges.reshape(-1)]
                    xe.append(ends[:, 0] + x0)
                    ye.append(ends[:, 1] + y0)
                pad = 0.1
                a, b, c, d = x0 - pad, x0 + 1 + pad, y0 - pad, y0 + 1 + pad
                frames += [(a, c), (b, c), (b, c), (b, d), (b, d), (a, d), (a, d), (a, c)]
            cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0)  # noqa: E731
            pen = pg.mkPen(row_colour(colour), width=1.2)
            brush = pg.mkBrush(row_colour(colour))
            if r < len(self._edges):
                self._edges[r].setData(cat(xe), cat(ye), pen=pen, connect="pairs")
                self._nodes[r].setData(cat(xn), cat(yn), brush=brush)
            else:
                edge = pg.PlotCurveItem(cat(xe), cat(ye), pen=pen, connect="pairs")
                node = Scatter(cat(xn), cat(yn), size=5, pen=pg.mkPen("w", width=0.6),
                               brush=brush)
                self.plotItem.addItem(edge)
                self.plotItem.addItem(node)
                self._edges.append(edge)
                self._nodes.append(node)
        f = np.asarray(frames, np.float64).reshape(-1, 2)
        self._frames.setData(f[:, 0], f[:, 1], connect="pairs")
        self._frames.setVisible(len(f) > 0)

    def _fit(self, *_) -> None:
        """Every thumbnail square and as large as the box allows, from the top left (a
        locked aspect ratio centres the cells and leaves a gap after the row names);
        where the rows' height sets the size, the columns spread over the width (up to
        ``MAX_PITCH``) rather than leave an empty strip beside them."""
        vb = self.plotItem.vb
        w, h = vb.width(), vb.height()
        cols, rows = self._extent
        if w < 2 or h < 2 or rows == 0:
            return
        margin = 0.15
        need_x, need_y = (cols - 1) * CELL + 1 + 2 * margin, (rows - 1) * CELL + 1 + 2 * margin
        scale = min(w / need_x, h / need_y)          # pixels per unit, the same both ways
        pitch = CELL
        if cols > 1:
            pitch = min(MAX_PITCH, max(CELL, (w / scale - 1 - 2 * margin) / (cols - 1)))
        if abs(pitch - self.pitch) > 1e-6:
            self.pitch = pitch
            self._draw_rows()
        vb.setRange(xRange=(-margin, -margin + w / scale),
                    yRange=(-margin, -margin + h / scale), padding=0)

    def rows(self) -> list[tuple[str, GraphSet]]:
        """What is drawn: (name, graphs) per row."""
        return list(self._rows)

    def drawn_counts(self) -> list[tuple[int, int]]:
        """(nodes, edge lines) drawn per row."""
        out = []
        for edge, node in zip(self._edges, self._nodes, strict=True):
            x, _ = edge.getData()
            out.append((len(node.getData()[0]), 0 if x is None else len(x) // 2))
        return out


class MMDBars(pg.GraphicsLayoutWidget):
    """The MMD table as bars: one plot per statistic (degree, clustering), one row per
    generator plus a reference row, a horizontal bar per value. The row names (with the
    wall time) are on the first plot's left axis and each value is written on its plot's
    right axis, so the numbers are read as in a table and nothing covers a bar."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.ci.layout.setHorizontalSpacing(4)
        self.plots: list[pg.PlotItem] = []
        self._bars: list[pg.BarGraphItem | None] = []
        self._values = np.zeros((0, 0), np.float32)
        self._names: list[str] = []
        self.hint = None

    def _ensure(self, count: int) -> None:
        while len(self.plots) < count:
            plot = self.addPlot(row=0, col=len(self.plots), enableMenu=False)
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.setMouseEnabled(x=False, y=False)
            plot.invertY(True)
            plot.showGrid(x=True, alpha=0.25)
            plot.showAxis("right")
            # the values are written on the right axis: the bottom keeps the grid only
            plot.getAxis("bottom").setStyle(showValues=False)
            right = plot.getAxis("right")
            right.setStyle(tickLength=0)
            font = QFont()
            font.setBold(True)
            right.setTickFont(font)
            if self.plots:
                plot.hideAxis("left")
                plot.setYLink(self.plots[0])
            else:
                self.hint = hint_item(plot)
            self.plots.append(plot)
            self._bars.append(None)

    def set_hint(self, text: str) -> None:
        self._ensure(1)
        set_hint_text(self.hint, text)

    def set_table(self, names: Sequence[str], values: np.ndarray, titles: Sequence[str],
                  colours: Sequence[int | None], decimals: int = 3) -> None:
        """values: float[rows, statistics]; one plot per statistic titled ``titles[s]``;
        row r named ``names[r]`` in ``row_colour(colours[r])``."""
        values = np.asarray(values, np.float32).reshape(len(names), len(titles))
        self._ensure(len(titles))
        rows = np.arange(len(names), dtype=np.float64)
        brushes = [pg.mkBrush(row_colour(c)) for c in colours]
        for s, plot in enumerate(self.plots):
            if self._bars[s] is not None:
                plot.removeItem(self._bars[s])
                self._bars[s] = None
            shown = s < len(titles)
            plot.setVisible(shown)
            if not shown:
                continue
            plot.setTitle(titles[s], size="8pt")
            v = np.nan_to_num(values[:, s].astype(np.float64), posinf=0.0, neginf=0.0)
            if len(names):
                bar = pg.BarGraphItem(x0=np.zeros(len(v)), width=v, y=rows, height=0.62,
                                      brushes=brushes, pens=[pg.mkPen(None)] * len(v))
                plot.addItem(bar)
                self._bars[s] = bar
            texts = [f"{x:.{decimals}f}" if np.isfinite(x) else "—" for x in values[:, s]]
            right = plot.getAxis("right")
            right.setTicks([[(float(r), t) for r, t in enumerate(texts)], []])
            # wide enough for its numbers before the layout is made (grown afterwards,
            # the last plot's numbers were pushed past the view's edge)
            metrics = QFontMetrics(right.style["tickFont"] or QFont())
            right.setWidth(max([metrics.horizontalAdvance(t) for t in texts] or [0]) + 6)
            hi = float(max(np.max(v, initial=0.0), 1e-6))
            lo = float(min(np.min(v, initial=0.0), 0.0))
            plot.setXRange(lo, hi * 1.05, padding=0.02)
        if self.plots:
            left = self.plots[0].getAxis("left")
            left.setTicks([list(enumerate(names)), []])
            metrics = QFontMetrics(left.style["tickFont"] or QFont())
            left.setWidth(max([metrics.horizontalAdvance(n) for n in names] or [0]) + 12)
            self.plots[0].setYRange(-0.5, max(len(names), 1) - 0.5, padding=0.02)
        self._values = values
        self._names = list(names)
        # never narrower than names, bars and numbers need: the grid of views scrolls
        # instead (squeezed, the layout ran past the view and cut the last numbers off)
        self.ci.layout.invalidate()
        need = self.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
        self.setMinimumWidth(int(np.ceil(need)) + 2)

    def values(self) -> np.ndarray:
        return self._values

    def names(self) -> list[str]:
        return list(self._names)


class LossPlot(TimelinePlot):
    """A ``TimelinePlot`` without a legend (one curve, named in the read-out) and with a
    reference level: a dashed horizontal line labelled at its right end
    (``set_reference``), so neither a legend nor a label sits over the step marker."""

    def __init__(self, parent=None, log_y: bool = True) -> None:
        super().__init__(parent, log_y=log_y)
        self._log_y = log_y
        self.reference = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(MUTED, width=1, style=Qt.PenStyle.DashLine),
            label="", labelOpts={"position": 0.97, "color": MUTED, "anchors": [(1, 1), (1, 1)],
                                 "fill": pg.mkBrush(255, 255, 255, 200)})
        self.reference.setZValue(-2)
        self.plotItem.addItem(self.reference)
        self.reference.setVisible(False)
        self._reference = (float("nan"), "")

    def set_curves(self, x, ys, names, symbols=(), colours=()) -> None:
        super().set_curves(x, ys, names, symbols, colours)
        self.legend.setVisible(False)
        self._headroom()

    def _headroom(self) -> None:
        """The y range of the curves and the reference level, with room above them for
        the marker's label (a short run's curve starts at the top left, under it)."""
        values = [np.asarray(y, np.float64) for y in self.curves()[1]]
        if self.reference.isVisible():
            values.append(np.asarray([self._reference[0]]))
        v = np.concatenate(values) if values else np.zeros(0)
        v = v[np.isfinite(v) & ((v > 0) if self._log_y else True)]
        if not len(v):
            return
        lo, hi = float(v.min()), float(v.max())
        if self._log_y:
            lo, hi = np.log10(lo), np.log10(hi)
        span = hi - lo if hi > lo else max(abs(hi), 1e-3)
        self.plotItem.enableAutoRange(y=False)
        self.plotItem.setYRange(lo - 0.05 * span, hi + 0.25 * span, padding=0)

    def set_reference(self, y: float, text: str) -> None:
        """The dashed level ``y`` labelled ``text`` (hidden for a NaN ``y``)."""
        shown = bool(np.isfinite(y) and (y > 0 or not self._log_y))
        self.reference.setVisible(shown)
        if shown:
            self.reference.setValue(float(np.log10(y)) if self._log_y else float(y))
            self.reference.label.setFormat(text)
        self._reference = (float(y), text)
        self._headroom()

    def reference_level(self) -> tuple[float, str]:
        return self._reference
