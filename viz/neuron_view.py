"""One head opened up for one query, as BertViz's neuron view: the query vector q,
every key vector k, their element-wise product q ⊙ k (its row sum is q·k), the scaled
score q·k/√d_k and the softmax over the keys.

Five heatmaps in one ``GraphicsLayoutWidget``, made once and updated with ``setImage``:
q on top (one row), then k and q ⊙ k (a row per key token, a column per dimension of
the head) and the two columns of the scores and the weights, with their values written
in the cells while the rows are tall enough to read them. Masked keys (score −∞) are
blank.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal

from viz.heatmap import TokenAxis, token_font
from viz.theme import colormap

Q, K, QK, SCORE, SOFTMAX = range(5)
NUMBER_COL_W = 50     # the width of the score and softmax columns
MIN_TEXT_ROW = 12     # below this many pixels a row shows no number


def _levels(a: np.ndarray) -> tuple[float, float]:
    finite = a[np.isfinite(a)]
    lim = float(np.abs(finite).max()) if finite.size else 1.0
    lim = lim if lim > 0 else 1.0
    return -lim, lim


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
        row_px = (h - q_h - title_h - 12) / max(n, 1)
        k_axis, q_axis = self.plots[K].getAxis("left"), self.plots[Q].getAxis("left")
        k_axis.set_tokens(self._tokens, row_px)
        q_axis.set_tokens((getattr(self, "_query", ""),), 30.0)
        width = max(k_axis.extent(), q_axis.extent())
        k_axis.setWidth(int(width))
        q_axis.setWidth(int(width))
        show = row_px >= MIN_TEXT_ROW
        for items in self._texts:
            for item in items:
                item.setVisible(show)
        for plot, arr in zip(self.plots, self._data, strict=True):
            plot.setRange(xRange=(-0.5, arr.shape[1] - 0.5), yRange=(-0.5, arr.shape[0] - 0.5),
                          padding=0)

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
