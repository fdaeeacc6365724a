"""The layers × heads mosaic: every attention map of a model as one image."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QGraphicsRectItem

from viz.attention import BAR_W, GAP, set_ticks
from viz.figure import interface_only
from viz.heatmap import token_font
from viz.theme import HIGHLIGHT, colormap

__all__ = ["TileMosaic"]


class TileMosaic(pg.GraphicsLayoutWidget):
    """Many small heatmaps (every layer × head, say) drawn as one image.

    One ``setImage`` per update whatever the number of tiles (48 separate plots took
    about 30 ms to redraw; one image takes about 1). Tiles are separated by blank
    (NaN) gaps; column headers run along the top axis, row titles down the left one;
    the selected tile is framed. ``transpose=None``: in a tall panel the mosaic is drawn
    transposed (the given columns as rows), whichever makes the tiles larger;
    ``transpose=True`` or ``False`` fixes the orientation, whatever the panel's size (a
    view whose orientation flipped on a resize read differently from one window to the
    next). The plot is sized to the mosaic and centred, with a colour bar as tall as the
    mosaic.

    Signals:
        hovered(index, row, col, value): tile and cell under the mouse (-1 outside)
        headClicked(index): a tile was clicked
    """

    hovered = Signal(int, int, int, float)
    headClicked = Signal(int)

    def __init__(self, parent=None, transpose: bool | None = None) -> None:
        super().__init__(parent)
        self._transpose = transpose
        self.ci.layout.setSpacing(GAP)
        self.plot = self.ci.addPlot(row=0, col=0, enableMenu=False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.invertY(True)
        self.plot.setAspectLocked(True)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideAxis("bottom")
        self.plot.showAxis("top")
        for axis in ("top", "left"):
            ax = self.plot.getAxis(axis)
            ax.setStyle(tickLength=0, tickFont=token_font(), autoExpandTextSpace=False,
                        hideOverlappingLabels=False)
            ax.setPen(None)
            ax.setTextPen("#222")
        self.image = pg.ImageItem(axisOrder="row-major", autoDownsample=True)
        self.plot.addItem(self.image)
        self.frame = interface_only(QGraphicsRectItem())    # the selection: not in a figure
        pen = pg.mkPen(HIGHLIGHT, width=3)
        pen.setCosmetic(True)
        self.frame.setPen(pen)
        self.frame.setZValue(10)
        self.plot.addItem(self.frame, ignoreBounds=True)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=10,
                                        interactive=False, values=(0.0, 1.0))
        self.colorbar.setImageItem(self.image)
        self.ci.addItem(self.colorbar, row=0, col=1)
        self._tiles = np.zeros((0, 1, 1), np.float32)
        self._cols, self._gap = 1, 1
        self._titles: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self._selected = -1
        self.transposed = bool(transpose)
        self.tile_px = 0.0
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)

    def set_tiles(self, tiles: np.ndarray, cols: int, col_titles: Sequence[str],
                  row_titles: Sequence[str], selected: int = -1) -> None:
        """tiles: float[n, q, k] in [0, 1], laid out ``cols`` to a row."""
        self._tiles = np.ascontiguousarray(tiles, dtype=np.float32)
        _, q, k = self._tiles.shape
        self._cols, self._gap = cols, max(1, round(0.12 * max(q, k)))
        self._titles = (tuple(col_titles), tuple(row_titles))
        self._selected = selected
        self._draw(self._choose_transposed())

    def _grid_shape(self, transposed: bool) -> tuple[int, int]:
        """(rows, columns) of tiles as drawn."""
        rows = -(-len(self._tiles) // self._cols)
        return (self._cols, rows) if transposed else (rows, self._cols)

    def _header_sizes(self, transposed: bool) -> tuple[float, float]:
        """(left axis width, top axis height) for the headers."""
        fm = QFontMetricsF(token_font())
        col_titles, row_titles = self._titles
        left = row_titles if not transposed else col_titles
        width = max((fm.horizontalAdvance(t) for t in left), default=0.0) + 10
        return float(np.ceil(width)), float(np.ceil(fm.height() + 6))

    def _fit(self, transposed: bool) -> float:
        """Pixels per cell when drawn ``transposed`` (or not) in this widget."""
        _, q, k = self._tiles.shape
        gr, gc = self._grid_shape(transposed)
        lw, th = self._header_sizes(transposed)
        mw, mh = gc * (k + self._gap) - self._gap, gr * (q + self._gap) - self._gap
        w = self.viewport().width() - lw - BAR_W - 6
        h = self.viewport().height() - th - 6
        return max(0.1, min(w / mw, h / mh))

    def _choose_transposed(self) -> bool:
        if self._transpose is not None:
            return self._transpose
        if not len(self._tiles):
            return False
        return self._fit(True) > 1.15 * self._fit(False)   # keep layers as rows if close

    def _draw(self, transposed: bool) -> None:
        tiles = self._tiles
        n, q, k = tiles.shape
        gap = self._gap
        self.transposed = transposed
        gr, gc = self._grid_shape(transposed)
        grid = np.full((gr, gc, q + gap, k + gap), np.nan, np.float32)
        for i in range(n):
            r, c = self._grid_pos(i)
            grid[r, c, :q, :k] = tiles[i]
        mosaic = grid.transpose(0, 2, 1, 3).reshape(gr * (q + gap), gc * (k + gap))[
            : gr * (q + gap) - gap, : gc * (k + gap) - gap]
        self.image.setImage(np.ascontiguousarray(mosaic), autoLevels=False, levels=(0.0, 1.0))
        self.image.setRect(QRectF(-0.5, -0.5, mosaic.shape[1], mosaic.shape[0]))
        col_titles, row_titles = self._titles
        top, left = (row_titles, col_titles) if transposed else (col_titles, row_titles)
        set_ticks(self.plot.getAxis("top"),
                   [[(c * (k + gap) + (k - 1) / 2, t) for c, t in enumerate(top)]])
        set_ticks(self.plot.getAxis("left"),
                   [[(r * (q + gap) + (q - 1) / 2, t) for r, t in enumerate(left)]])
        if 0 <= self._selected < n:
            r, c = self._grid_pos(self._selected)
            self.frame.setRect(QRectF(c * (k + gap) - 0.5, r * (q + gap) - 0.5, k, q))
        self.frame.setVisible(0 <= self._selected < n)
        self._mosaic_shape = mosaic.shape
        self._size_plot()

    def _size_plot(self) -> None:
        """The plot as large as the mosaic at the fitted scale, centred; the colour bar
        beside it as tall as the mosaic."""
        if not len(self._tiles):
            return
        s = self._fit(self.transposed)
        _, q, k = self._tiles.shape
        mh, mw = self._mosaic_shape
        lw, th = self._header_sizes(self.transposed)
        self.plot.getAxis("left").setWidth(int(lw))
        self.plot.getAxis("top").setHeight(int(th))
        pw, ph = np.floor(lw + s * mw) + 2, np.floor(th + s * mh) + 2
        self.plot.setFixedWidth(pw)
        self.plot.setFixedHeight(ph)
        self.colorbar.setFixedHeight(ph)
        self.colorbar.setFixedWidth(BAR_W - GAP)
        self.colorbar.setContentsMargins(0, th + 1, 0, 1)
        w, h = self.viewport().width(), self.viewport().height()
        mx, my = max(0.0, (w - pw - BAR_W) / 2), max(0.0, (h - ph) / 2)
        self.ci.setContentsMargins(mx, my, mx, my)
        self.ci.layout.activate()
        self.plot.layout.activate()
        self.plot.setRange(xRange=(-0.5, mw - 0.5), yRange=(-0.5, mh - 0.5), padding=0)
        self.tile_px = s * min(q, k)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(ev)
        if getattr(self, "closed", False):      # pyqtgraph's close() cleared the scene
            return
        if len(getattr(self, "_tiles", ())):
            transposed = self._choose_transposed()
            if transposed != self.transposed:
                self._draw(transposed)
            else:
                self._size_plot()

    def _grid_pos(self, index: int) -> tuple[int, int]:
        """(row, column) of tile ``index`` as drawn."""
        r, c = divmod(index, self._cols)
        return (c, r) if self.transposed else (r, c)

    def tiles(self) -> np.ndarray:
        return self._tiles

    def tile_rect(self, index: int) -> QRectF:
        """Scene rectangle of a tile (for tests and tours)."""
        _, q, k = self._tiles.shape
        r, c = self._grid_pos(index)
        rect = QRectF(c * (k + self._gap) - 0.5, r * (q + self._gap) - 0.5, k, q)
        return self.plot.vb.mapViewToScene(rect).boundingRect()

    def tile_centre(self, index: int) -> QPointF:
        """Scene position of a tile's centre (for tests and tours)."""
        return self.tile_rect(index).center()

    def _cell(self, scene_pos: QPointF) -> tuple[int, int, int]:
        if not self.plot.vb.sceneBoundingRect().contains(scene_pos):
            return -1, -1, -1
        n, q, k = self._tiles.shape
        p = self.plot.vb.mapSceneToView(scene_pos)
        x, y = int(np.floor(p.x() + 0.5)), int(np.floor(p.y() + 0.5))
        if x < 0 or y < 0:
            return -1, -1, -1
        c, col = divmod(x, k + self._gap)
        r, row = divmod(y, q + self._gap)
        gr, gc = self._grid_shape(self.transposed)
        if col >= k or row >= q or c >= gc or r >= gr:
            return -1, -1, -1          # in a gap, or past the last tile
        index = c * self._cols + r if self.transposed else r * self._cols + c
        if index >= n:
            return -1, -1, -1
        return index, row, col

    def _on_move(self, scene_pos: QPointF) -> None:
        i, r, c = self._cell(scene_pos)
        self.hovered.emit(i, r, c, float(self._tiles[i, r, c]) if i >= 0 else float("nan"))

    def _on_click(self, event) -> None:
        i, _, _ = self._cell(event.scenePos())
        if i >= 0:
            self.headClicked.emit(i)
