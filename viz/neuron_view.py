"""One head opened up for one query, as BertViz's neuron view: the query vector q,
every key vector k, their element-wise product q ⊙ k (its row sum is q·k), the scaled
score q·k/√d_k and the softmax over the keys.

Five heatmaps in one ``GraphicsLayoutWidget``, made once and updated with ``setImage``:
q on top (one row), then k and q ⊙ k (a row per key token, a column per dimension of
the head) and the two columns of the scores and the weights, with their values written
in the cells while the rows are tall enough to read them. Masked keys (score −∞) are
blank. Colour bars under the heatmaps give their scales: one under k for q and k (one
scale for both), one under q ⊙ k for the products (signed, their own range). Every key
token is named down k's axis: smaller type where the rows are close, and below the
smallest type the view asks for more height (its panel scrolls).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QFontMetricsF

from viz.heatmap import TokenAxis, ask_minimum, token_font
from viz.theme import colormap

Q, K, QK, SCORE, SOFTMAX = range(5)
NUMBER_COL_W = 50     # the width of the score and softmax columns
MIN_TEXT_ROW = 12     # below this many pixels a row shows no number
BAR_H = 34            # a level colour bar with its tick labels, under its heatmaps
BAR_END = 10          # room at a bar's ends for half of an end tick's label


def _levels(a: np.ndarray) -> tuple[float, float]:
    finite = a[np.isfinite(a)]
    lim = float(np.abs(finite).max()) if finite.size else 1.0
    lim = lim if lim > 0 else 1.0
    return -lim, lim


def symmetric_ticks(lim: float) -> list[tuple[float, str]]:
    """−t, 0 and t for a bar over (−lim, lim): t the largest of 1, 2, 2.5, 5 × 10ᵏ not
    above ``lim``, so the three sit near the bar's ends and middle. pyqtgraph's own
    ticks put −2, 0 and 2 close together on a 50 px bar over ±4.5 ("-20 2")."""
    if not np.isfinite(lim) or lim <= 0:
        return [(0.0, "0")]
    exp = np.floor(np.log10(lim))
    t = max(m * 10.0 ** exp for m in (1.0, 2.0, 2.5, 5.0) if m * 10.0 ** exp <= lim * (1 + 1e-9))
    return [(-t, f"{-t:g}"), (0.0, "0"), (t, f"{t:g}")]


class NeuronPlot(pg.GraphicsLayoutWidget):
    """q, k, q ⊙ k, q·k/√d_k and softmax of one head for one query token.

    Signals:
        hovered(panel, row, col, value): panel Q, K, QK, SCORE or SOFTMAX (-1 outside).
    """

    hovered = Signal(int, int, int, float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.ci.layout.setSpacing(4)
        self.plots: list[pg.PlotItem] = []
        self.images: list[pg.ImageItem] = []
        places = [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)]
        for i, (row, col) in enumerate(places):
            plot = self.ci.addPlot(row=row, col=col, axisItems={"left": TokenAxis("left")},
                                   enableMenu=False)
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.invertY(True)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideAxis("bottom")
            if i not in (Q, K):
                plot.hideAxis("left")
            plot.setMinimumWidth(24)      # a narrow panel: the columns shrink, none is cut
            image = pg.ImageItem(axisOrder="row-major")
            image.setColorMap(colormap("viridis" if i == SOFTMAX else "CET-D1"))
            plot.addItem(image)
            self.plots.append(plot)
            self.images.append(image)
        # each scale level under its own heatmaps: q and k share one (under k), q ⊙ k
        # has its own (its values are products, signed, on another range: under it)
        self.qk_bar = pg.ColorBarItem(colorMap=colormap("CET-D1"), width=8,
                                      interactive=False, orientation="horizontal")
        self.qk_bar.setImageItem([self.images[Q], self.images[K]])
        self.ci.addItem(self.qk_bar, row=2, col=0)
        self.prod_bar = pg.ColorBarItem(colorMap=colormap("CET-D1"), width=8,
                                        interactive=False, orientation="horizontal")
        self.prod_bar.setImageItem(self.images[QK])
        self.ci.addItem(self.prod_bar, row=2, col=1)
        for bar in (self.qk_bar, self.prod_bar):
            bar.setFixedHeight(BAR_H)
            # the end ticks (−t, t) are drawn though their labels reach past the bar's
            # ends, into its margins (pyqtgraph dropped them: a bar named only "0")
            bar.axis.setStyle(hideOverlappingLabels=False)
            bar.setContentsMargins(BAR_END, 0, BAR_END, 0)
            bar.geometryChanged.connect(partial(self._bar_ticks, bar))
        for col in (2, 3):
            self.ci.layout.setColumnFixedWidth(col, NUMBER_COL_W)
        self.ci.layout.setColumnStretchFactor(0, 1)
        self.ci.layout.setColumnStretchFactor(1, 1)
        self._texts: list[list[pg.TextItem]] = [[], []]     # score, softmax
        self._data = [np.zeros((1, 1), np.float32)] * 5
        self._tokens: tuple[str, ...] = ()
        self.scene().sigMouseMoved.connect(self._on_move)

    def set_neurons(self, q: np.ndarray, k: np.ndarray, scores: np.ndarray,
                    weights: np.ndarray, tokens: Sequence[str], query: str,
                    titles: Sequence[str]) -> None:
        """q: float[d_k] (the chosen query's vector), k: float[n, d_k], scores and
        weights: float[n] (the query's row; −inf / nan where a key is masked);
        ``titles``: the five panels' titles."""
        q_row = np.ascontiguousarray(np.asarray(q, np.float32).reshape(1, -1))
        k = np.ascontiguousarray(k, dtype=np.float32)
        qk = np.ascontiguousarray(q_row * k)
        s = np.asarray(scores, np.float32).reshape(-1, 1).copy()
        s[~np.isfinite(s)] = np.nan
        w = np.asarray(weights, np.float32).reshape(-1, 1).copy()
        w[~np.isfinite(s)] = np.nan
        data = [q_row, k, qk, s, w]
        lv_qk = _levels(np.concatenate([q_row.ravel(), k.ravel()]))
        levels = [lv_qk, lv_qk, _levels(qk), _levels(s), (0.0, 1.0)]
        for plot, image, arr, lv, title in zip(self.plots, self.images, data, levels, titles,
                                               strict=True):
            image.setImage(arr, autoLevels=False, levels=lv)
            image.setRect(QRectF(-0.5, -0.5, arr.shape[1], arr.shape[0]))
            if getattr(plot, "_archscope_title", None) != title:
                plot._archscope_title = title
                plot.setTitle(title, size="9pt")
        for bar, lv in ((self.qk_bar, lv_qk), (self.prod_bar, levels[QK])):
            bar.setLevels(lv)
        self._data = data
        self._tokens = tuple(map(str, tokens))
        self._query = str(query)
        self._set_numbers(s[:, 0], w[:, 0])
        self._relayout()

    def _set_numbers(self, scores: np.ndarray, weights: np.ndarray) -> None:
        for which, (plot, values, fmt) in enumerate(((self.plots[SCORE], scores, "{:.1f}"),
                                                     (self.plots[SOFTMAX], weights, "{:.2f}"))):
            items = self._texts[which]
            while len(items) > len(values):
                plot.removeItem(items.pop())
            while len(items) < len(values):
                item = pg.TextItem(anchor=(0.5, 0.5))
                item._archscope_data_label = True     # the cell's own value, not a note
                item.setFont(token_font())
                plot.addItem(item)
                items.append(item)
            for row, (item, v) in enumerate(zip(items, values, strict=True)):
                item.setPos(0, row)
                item.setText("" if not np.isfinite(v) else fmt.format(v))
                light = which == 1 and np.isfinite(v) and v < 0.55
                item.setColor("#ffffff" if light else "#111111")

    def _relayout(self) -> None:
        n = self._data[K].shape[0]
        h = self.viewport().height()
        title_h = 22
        q_h = title_h + max(14.0, min(24.0, (h - 2 * title_h) / max(n + 1, 1)))
        self.ci.layout.setRowFixedHeight(0, q_h)
        row_px = (h - q_h - title_h - BAR_H - 16) / max(n, 1)
        self.ci.layout.activate()
        k_h = self.plots[K].vb.height()
        other = h - k_h if k_h > 0 else q_h + title_h + BAR_H + 16   # not k's rows
        row_px = k_h / max(n, 1) if k_h > 0 else row_px
        k_axis, q_axis = self.plots[K].getAxis("left"), self.plots[Q].getAxis("left")
        k_axis.set_tokens(self._tokens, row_px)
        # every key named: below the smallest type, ask for the height it needs (the q
        # row is counted at its tallest: the same answer whatever the height now)
        other += title_h + 24 - q_h
        need = int(np.ceil(other + n * k_axis.min_cell_px())) + 2 * self.frameWidth()
        ask_minimum(self, 0, need)
        q_axis.set_tokens((getattr(self, "_query", ""),), 30.0)
        width = max(k_axis.extent(), q_axis.extent())
        k_axis.setWidth(int(width))
        q_axis.setWidth(int(width))
        self.qk_bar.setContentsMargins(int(width) + BAR_END, 0, BAR_END, 0)   # under k
        self.ci.layout.activate()
        for bar in (self.qk_bar, self.prod_bar):
            self._bar_ticks(bar)
        show = row_px >= MIN_TEXT_ROW
        for items in self._texts:
            for item in items:
                item.setVisible(show)
        for plot, arr in zip(self.plots, self._data, strict=True):
            plot.setRange(xRange=(-0.5, arr.shape[1] - 0.5), yRange=(-0.5, arr.shape[0] - 0.5),
                          padding=0)

    @staticmethod
    def _bar_ticks(bar: pg.ColorBarItem) -> None:
        """−t, 0, t on ``bar`` (``symmetric_ticks``); where those would not stand a
        space apart on the bar's length, −t and t, else 0 and t, else t alone. Worked
        out again whenever the bar is laid out anew."""
        lim = float(bar.levels()[1])
        ticks = symmetric_ticks(lim)
        if len(ticks) == 3:
            fm = QFontMetricsF(bar.axis.style.get("tickFont") or bar.axis.font())
            # the bar's length from its own place in the layout (its axis is laid out
            # later, from the event loop: its width may still be the last size's)
            length, space = bar.contentsRect().width(), fm.horizontalAdvance(" ")

            def apart(choice) -> bool:
                spans = [((v + lim) / (2 * lim) * length, fm.boundingRect(t).width() / 2 + 1)
                         for v, t in choice]
                inside = all(x - w >= -BAR_END and x + w <= length + BAR_END
                             for x, w in spans)
                return inside and all(b[0] - b[1] - (a[0] + a[1]) >= space
                                      for a, b in zip(spans, spans[1:], strict=False))
            ticks = next((c for c in (ticks, [ticks[0], ticks[2]], ticks[1:]) if apart(c)),
                         ticks[2:])
        bar.axis.setTicks([ticks])

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(ev)
        if getattr(self, "closed", False):      # pyqtgraph's close() cleared the scene
            return
        if getattr(self, "plots", None):
            self._relayout()

    def values(self) -> list[np.ndarray]:
        """[q (1 × d_k), k (n × d_k), q ⊙ k, scores (n × 1), softmax (n × 1)] as drawn."""
        return list(self._data)

    def shown_numbers(self) -> list[str]:
        """The softmax column's numbers as written in its cells (empty when hidden)."""
        return [t.textItem.toPlainText() for t in self._texts[1] if t.isVisible()]

    def _on_move(self, scene_pos: QPointF) -> None:
        for i, plot in enumerate(self.plots):
            if plot.vb.sceneBoundingRect().contains(scene_pos):
                p = plot.vb.mapSceneToView(scene_pos)
                row, col = int(np.floor(p.y() + 0.5)), int(np.floor(p.x() + 0.5))
                arr = self._data[i]
                if 0 <= row < arr.shape[0] and 0 <= col < arr.shape[1]:
                    self.hovered.emit(i, row, col, float(arr[row, col]))
                    return
        self.hovered.emit(-1, -1, -1, float("nan"))
