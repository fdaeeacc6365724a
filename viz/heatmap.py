"""A heatmap with a colour bar, hover read-out and data coordinates on the axes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal

from viz.plots import LabelledPlot
from viz.theme import colormap


class HeatmapPlot(LabelledPlot):
    """``ImageItem`` (row-major, explicit levels) in a plot, with one ``ColorBarItem``.

    The image is created once and updated with ``set_matrix``. Rows run down the
    y axis (row 0 at the top), columns along x. ``x_values`` / ``y_values`` give the
    data coordinate of each column / row (evenly spaced), so a sampled matrix is
    still labelled with true positions.

    Signals:
        hovered(row, col, value): the cell under the mouse (-1, -1, nan when outside).
    """

    hovered = Signal(int, int, float)

    def __init__(self, cmap: str, parent=None) -> None:
        super().__init__(parent)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plotItem.addItem(self.image)
        self.plotItem.invertY(True)
        self.colorbar = pg.ColorBarItem(colorMap=colormap(cmap), width=14, interactive=False)
        self.colorbar.setImageItem(self.image, insert_in=self.plotItem)
        self._matrix = np.zeros((1, 1), np.float32)
        self._x0, self._dx, self._y0, self._dy = 0.0, 1.0, 0.0, 1.0
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_matrix(self, matrix: np.ndarray, levels: tuple[float, float] | None = None,
                   x_values: np.ndarray | None = None, y_values: np.ndarray | None = None,
                   auto_range: bool = True) -> None:
        m = np.ascontiguousarray(matrix, dtype=np.float32)
        if m.ndim != 2 or m.size == 0:
            m = np.zeros((1, 1), np.float32)
        if levels is None:
            finite = m[np.isfinite(m)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            levels = (lo, hi if hi > lo else lo + 1.0)
        self._matrix = m
        rows, cols = m.shape
        self._x0, self._dx = _spacing(x_values, cols)
        self._y0, self._dy = _spacing(y_values, rows)
        self.image.setImage(m, autoLevels=False, levels=levels)
        self.image.setRect(QRectF(self._x0 - self._dx / 2, self._y0 - self._dy / 2,
                                  self._dx * cols, self._dy * rows))
        self.colorbar.setLevels(levels)
        if auto_range:
            self.plotItem.autoRange(padding=0)

    def matrix(self) -> np.ndarray:
        return self._matrix

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int]:
        p = self.plotItem.vb.mapSceneToView(scene_pos)
        col = int(np.floor((p.x() - self._x0) / self._dx + 0.5))
        row = int(np.floor((p.y() - self._y0) / self._dy + 0.5))
        rows, cols = self._matrix.shape
        if 0 <= row < rows and 0 <= col < cols and self.plotItem.vb.sceneBoundingRect().contains(
                scene_pos):
            return row, col
        return -1, -1

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        row, col = self.cell_at(scene_pos)
        value = float(self._matrix[row, col]) if row >= 0 else float("nan")
        self.hovered.emit(row, col, value)


def _spacing(values: np.ndarray | None, n: int) -> tuple[float, float]:
    if values is None or len(values) == 0:
        return 0.0, 1.0
    values = np.asarray(values, dtype=np.float64)
    step = float(values[1] - values[0]) if len(values) > 1 else 1.0
    return float(values[0]), step or 1.0
