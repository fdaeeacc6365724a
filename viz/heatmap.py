"""A heatmap with a colour bar, hover read-out and data coordinates on the axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF

from viz.plots import LabelledPlot, SpacedAxis
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

    def __init__(self, cmap: str, parent=None, **kwargs) -> None:
        kwargs.setdefault("axisItems", {"bottom": SpacedAxis("bottom")})
        super().__init__(parent, **kwargs)
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


# -- token axes ----------------------------------------------------------------------------
#: longer tokens are cut to this many characters on an axis (the read-out names them whole)
MAX_LABEL_CHARS = 8


def token_font() -> QFont:
    """The font of token labels on attention axes (readable on a slide)."""
    font = QFont()
    font.setPointSizeF(8.5)
    return font


def short_label(text: object) -> str:
    """A token as an axis prints it: cut with "…" past ``MAX_LABEL_CHARS`` characters."""
    s = str(text)
    return s if len(s) <= MAX_LABEL_CHARS else s[: MAX_LABEL_CHARS - 1] + "…"


class TokenAxis(pg.AxisItem):
    """An axis that names the tokens of a heatmap's rows or columns.

    ``set_tokens(labels, cell_px)`` labels every token when one cell (``cell_px``
    pixels on screen) holds its name, else every n-th; a bottom axis turns its labels
    by 90° when they are wider than a cell (words, long sub-words). Tokens longer than
    ``MAX_LABEL_CHARS`` are cut with "…"; a view's hover read-out names them whole.
    ``extent()`` is the width (left axis) or height (bottom axis) the labels need.
    """

    PAD = 2        # between the labels and the axis item's far edge

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.setStyle(tickFont=token_font(), tickTextOffset=3, tickLength=3,
                      autoExpandTextSpace=False, hideOverlappingLabels=False)
        self._ticks: list[tuple[int, str]] = []
        self._rotated = False
        self._key: tuple | None = None
        self._label_w = 0.0
        self._font_h = float(QFontMetricsF(token_font()).height())

    def label_width(self, labels: Sequence[object]) -> float:
        fm = QFontMetricsF(token_font())
        return max((fm.horizontalAdvance(short_label(t)) for t in labels), default=0.0)

    def set_tokens(self, labels: Sequence[object], cell_px: float) -> None:
        n = len(labels)
        self._label_w = self.label_width(labels)
        cell_px = max(cell_px, 1e-3)
        vertical = self.orientation in ("left", "right")
        if vertical:
            rotated, need = False, self._font_h * 0.9
        else:
            rotated = n > 1 and self._label_w + 3 > cell_px and self._label_w > self._font_h
            need = self._font_h * 0.9 if rotated else self._label_w + 2
        step = max(1, int(np.ceil(need / cell_px)))
        ticks = [(i, short_label(labels[i])) for i in range(0, n, step)]
        key = (tuple(ticks), rotated)
        if key == self._key:
            return
        self._key, self._ticks, self._rotated = key, ticks, rotated
        self.setTicks([ticks])

    def set_auto(self) -> None:
        """pyqtgraph's own numbered ticks (feature indices), not tokens."""
        if self._key is not None:
            self._key, self._ticks, self._rotated = None, [], False
            self._label_w = 0.0
            self.setTicks(None)

    def rotated(self) -> bool:
        return self._rotated

    def shown_labels(self) -> list[str]:
        """The labels drawn (after thinning), in order."""
        return [t for _, t in self._ticks]

    def extent(self, rotated: bool | None = None) -> float:
        rotated = self._rotated if rotated is None else rotated
        offset = self.style["tickLength"] + self._text_offset() + self.PAD
        if self.orientation in ("left", "right") or rotated:
            return float(np.ceil(self._label_w + offset))
        return float(np.ceil(self._font_h + offset))

    def _text_offset(self) -> float:
        return self.style["tickTextOffset"][0 if self.orientation in ("left", "right") else 1]

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802 - Qt name
        if not self._rotated:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        view = self.linkedView()
        if view is None:
            return
        p.setFont(token_font())
        p.setPen(self.textPen())
        y0 = self.style["tickLength"] + self._text_offset()
        w = self._label_w + 2
        for value, text in self._ticks:
            x = self.mapFromScene(view.mapViewToScene(QPointF(value, 0))).x()
            p.save()
            p.translate(x, y0)
            p.rotate(-90)       # reads bottom to top, ending at its tick
            p.drawText(QRectF(-w, -self._font_h / 2, w, self._font_h),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()
