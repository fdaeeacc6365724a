"""Attention views: every head of a layer side by side, and one head step by step.

Both are ``GraphicsLayoutWidget``s whose items are created once and updated with
``setImage`` (row-major float32, explicit levels, one shared colour bar per view).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtWidgets import QGraphicsRectItem

from models.traces import ForwardStep
from viz.heatmap import HeatmapPlot
from viz.theme import HIGHLIGHT, colormap

#: above this many tokens the axes show positions, not every token (unreadable, and
#: drawing 512 labels per axis took most of a redraw)
MAX_TOKEN_LABELS = 40
#: colour of the keep-mask: blocked = dark grey, keep = light green
MASK_COLOURS = pg.ColorMap([0.0, 1.0], [(60, 60, 60), (200, 230, 200)])


# pyqtgraph redraws an axis from scratch after any setTicks/setStyle, and a title
# after setTitle, even when nothing changed: on a mask toggle (same tokens) that was
# most of the redraw (38 axes, about 30 ms). These setters skip unchanged values.
def _set_ticks(ax: pg.AxisItem, ticks, fill_limit: float | None = None) -> None:
    key = (ticks, fill_limit)
    if getattr(ax, "_archscope_ticks", None) == key:
        return
    ax._archscope_ticks = key
    if fill_limit is not None:
        ax.setStyle(textFillLimits=[(0, fill_limit)])
    ax.setTicks(ticks)


def _set_title(plot: pg.PlotItem, title: str | None, **style) -> None:
    key = (title, tuple(sorted(style.items())))
    if getattr(plot, "_archscope_title", None) != key:
        plot._archscope_title = key
        plot.setTitle(title, **style)
        if title:              # pyqtgraph's title row is one line high
            lines = title.count("<br>") + 1
            plot.titleLabel.setMaximumHeight(15 * lines + 5)
            plot.layout.setRowFixedHeight(0, 15 * lines + 5)


def _fit(plot: pg.PlotItem, shape: tuple[int, ...]) -> None:
    """Range the view on the image when its shape changes (not on every update)."""
    if getattr(plot, "_archscope_shape", None) != shape:
        plot._archscope_shape = shape
        plot.autoRange(padding=0)


def _token_ticks(plot: pg.PlotItem, q_labels: Sequence[str], k_labels: Sequence[str],
                 show_left: bool = True, square: bool = True) -> None:
    """Token names on the axes: every few tokens always, the rest only where they fit
    (pyqtgraph draws a second tick level only while the text fills < 90 % of the
    axis), so words do not print over each other; the hover read-out names every
    cell anyway."""
    for axis, labels, show in (("bottom", k_labels, True), ("left", q_labels, show_left)):
        ax = plot.getAxis(axis)
        if not show:
            _set_ticks(ax, [[]])
        elif len(labels) > MAX_TOKEN_LABELS:
            _set_ticks(ax, None)      # automatic position ticks
        else:
            # about 16 characters' worth of labels always (a small panel holds that)
            width = max((len(str(t)) for t in labels), default=1) + 1
            step = max(1, -(-len(labels) * width // 16))
            ticks = list(enumerate(labels))
            # (a square heatmap fills only part of its left axis: stricter there)
            _set_ticks(ax, [ticks[::step], [t for i, t in enumerate(ticks) if i % step]],
                       0.6 if square and axis == "left" else 0.9)


def _square_plot(layout: pg.GraphicsLayout, row: int, col: int) -> tuple[pg.PlotItem,
                                                                             pg.ImageItem]:
    plot = layout.addPlot(row=row, col=col)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.invertY(True)
    plot.setMouseEnabled(x=False, y=False)
    plot.setAspectLocked(True)          # square cells: one query × one key
    # long sequences: downsample to screen pixels before the lookup table, not after
    image = pg.ImageItem(axisOrder="row-major", autoDownsample=True)
    plot.addItem(image)
    for axis in ("bottom", "left"):
        plot.getAxis(axis).setStyle(tickFont=None, tickTextOffset=2)
    return plot, image


class HeadGrid(pg.GraphicsLayoutWidget):
    """Every head of one layer as a heatmap (query rows × key columns), one colour bar.

    Signals:
        hovered(head, row, col, value): the cell under the mouse (head -1 outside).
        headClicked(head): a head was clicked (the tab shows its panels).
    """

    hovered = Signal(int, int, int, float)
    headClicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.grid = self.ci.addLayout(row=0, col=0)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=12,
                                        interactive=False, values=(0.0, 1.0))
        self.ci.addItem(self.colorbar, row=0, col=1)
        self.plots: list[pg.PlotItem] = []
        self.images: list[pg.ImageItem] = []
        self._weights = np.zeros((0, 1, 1), np.float32)
        self._selected = -1
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)

    def set_heads(self, weights: np.ndarray, q_labels: Sequence[str], k_labels: Sequence[str],
                  titles: Sequence[str], selected: int = -1, cols: int | None = None,
                  ticks: bool = True, levels: tuple[float, float] = (0.0, 1.0)) -> None:
        """weights: float[n, q, k], coloured over ``levels`` (attention weights: 0..1),
        drawn in ``cols`` columns (default: one row up to 4, else two rows);
        ``ticks=False`` for thumbnails."""
        weights = np.ascontiguousarray(weights, dtype=np.float32)
        heads = weights.shape[0]
        cols = cols or (heads if heads <= 4 else int(np.ceil(heads / 2)))
        if heads != len(self.plots) or cols != getattr(self, "_cols", None):
            self._cols = cols
            self.grid.clear()
            self.plots, self.images = [], []
            for h in range(heads):
                plot, image = _square_plot(self.grid, h // cols, h % cols)
                self.plots.append(plot)
                self.images.append(image)
            self.colorbar.setImageItem(self.images)
        for h, (plot, image) in enumerate(zip(self.plots, self.images, strict=True)):
            image.setImage(weights[h], autoLevels=False, levels=levels)
            image.setRect(QRectF(-0.5, -0.5, weights.shape[2], weights.shape[1]))
            if ticks:
                _token_ticks(plot, q_labels, k_labels, show_left=h % cols == 0)
            for axis in ("bottom", "left"):
                if plot.getAxis(axis).isVisible() != ticks:
                    plot.showAxis(axis, ticks)
            _set_title(plot, titles[h], color=HIGHLIGHT if h == selected else "#222",
                       bold=h == selected, size="9pt")
            _fit(plot, weights.shape[1:])
        if levels != getattr(self, "_levels", (0.0, 1.0)):
            self.colorbar.setLevels(levels)
            self._levels = levels
        self._weights = weights
        self._selected = selected

    def weights(self) -> np.ndarray:
        return self._weights

    def _cell(self, scene_pos: QPointF) -> tuple[int, int, int]:
        for h, plot in enumerate(self.plots):
            if plot.vb.sceneBoundingRect().contains(scene_pos):
                p = plot.vb.mapSceneToView(scene_pos)
                row, col = int(np.floor(p.y() + 0.5)), int(np.floor(p.x() + 0.5))
                _, q, k = self._weights.shape
                if 0 <= row < q and 0 <= col < k:
                    return h, row, col
        return -1, -1, -1

    def _on_move(self, scene_pos: QPointF) -> None:
        h, r, c = self._cell(scene_pos)
        self.hovered.emit(h, r, c, float(self._weights[h, r, c]) if h >= 0 else float("nan"))

    def _on_click(self, event) -> None:
        h, _, _ = self._cell(event.scenePos())
        if h >= 0:
            self.headClicked.emit(h)


class PanelRow(pg.GraphicsLayoutWidget):
    """One head in four steps, 2 × 2: keep-mask, raw scores / masked scores, softmax.

    Signals:
        hovered(panel, row, col, value)
    """

    hovered = Signal(int, int, int, float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plots, self.images = [], []
        for i in range(4):
            plot, image = _square_plot(self.ci, i // 2, i % 2)
            self.plots.append(plot)
            self.images.append(image)
        # blocked = dark grey, keep = light green (white would vanish into the background)
        self.images[0].setColorMap(MASK_COLOURS)
        self.score_bar = pg.ColorBarItem(colorMap=colormap("CET-D1"), width=10,
                                         interactive=False)
        self.score_bar.setImageItem([self.images[1], self.images[2]])
        self.ci.addItem(self.score_bar, row=0, col=2)
        self.softmax_bar = pg.ColorBarItem(colorMap=colormap("viridis"), width=10,
                                           interactive=False, values=(0.0, 1.0))
        self.softmax_bar.setImageItem(self.images[3])
        self.ci.addItem(self.softmax_bar, row=1, col=2)
        self._data = [np.zeros((1, 1), np.float32)] * 4
        self.scene().sigMouseMoved.connect(self._on_move)

    def set_panels(self, mask: np.ndarray, raw: np.ndarray, masked: np.ndarray,
                   softmax: np.ndarray, q_labels, k_labels, titles: Sequence[str]) -> None:
        lim = float(np.nanmax(np.abs(raw))) if raw.size else 1.0
        lim = lim if np.isfinite(lim) and lim > 0 else 1.0
        data = [mask.astype(np.float32), raw, masked, softmax]   # mask: 1 = keep
        levels = [(0.0, 1.0), (-lim, lim), (-lim, lim), (0.0, 1.0)]
        for i, (plot, image, arr, lv) in enumerate(zip(self.plots, self.images, data, levels,
                                                       strict=True)):
            arr = np.ascontiguousarray(arr, dtype=np.float32)
            image.setImage(arr, autoLevels=False, levels=lv)
            image.setRect(QRectF(-0.5, -0.5, arr.shape[1], arr.shape[0]))
            _token_ticks(plot, q_labels, k_labels, show_left=i % 2 == 0)
            _set_title(plot, titles[i], size="9pt")
            _fit(plot, arr.shape)
        self.score_bar.setLevels((-lim, lim))
        self._data = data

    def _on_move(self, scene_pos: QPointF) -> None:
        for i, plot in enumerate(self.plots):
            if plot.vb.sceneBoundingRect().contains(scene_pos):
                p = plot.vb.mapSceneToView(scene_pos)
                r, c = int(np.floor(p.y() + 0.5)), int(np.floor(p.x() + 0.5))
                arr = self._data[i]
                if 0 <= r < arr.shape[0] and 0 <= c < arr.shape[1]:
                    self.hovered.emit(i, r, c, float(arr[r, c]))
                    return
        self.hovered.emit(-1, -1, -1, float("nan"))


class StepView(HeatmapPlot):
    """One step of a forward pass (a ``ForwardStep``) as a heatmap, rows = tokens.

    Signed values are centred on 0 (blue-white-red), attention weights run 0..1
    (viridis), a mask is grey (blocked) / green (may attend). Blocked scores (-inf)
    are drawn blank.
    """

    def __init__(self, parent=None) -> None:
        super().__init__("CET-D1", parent)
        self._kind = "values"
        self.step: ForwardStep | None = None

    def set_step(self, step: ForwardStep, title: str, x_label: str) -> None:
        values = np.array(step.values, dtype=np.float32)
        values[~np.isfinite(values)] = np.nan
        if step.kind == "weights":
            cmap, levels = colormap("viridis"), (0.0, 1.0)
        elif step.kind == "mask":
            cmap, levels = MASK_COLOURS, (0.0, 1.0)
        elif step.kind == "ids":
            cmap, levels = colormap("viridis"), None
        else:
            lim = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
            cmap, levels = colormap("CET-D1"), (-(lim or 1.0), lim or 1.0)
        if step.kind != self._kind:
            self.colorbar.setColorMap(cmap)
            self._kind = step.kind
        shape_changed = values.shape != self._matrix.shape
        self.set_matrix(values, levels, auto_range=shape_changed)
        self.step = step
        plot = self.plotItem
        _token_ticks(plot, step.row_labels, step.col_labels or (), square=False)
        if not step.col_labels:
            _set_ticks(plot.getAxis("bottom"), None)       # feature indices
        if getattr(plot, "_archscope_xlabel", None) != x_label:
            plot._archscope_xlabel = x_label
            plot.setLabel("bottom", x_label)
        _set_title(plot, title, size="8pt")


class TileMosaic(pg.GraphicsLayoutWidget):
    """Many small heatmaps (every layer × head, say) drawn as one image.

    One ``setImage`` per update whatever the number of tiles (48 separate plots took
    about 30 ms to redraw; one image takes about 1). Tiles are separated by blank
    (NaN) gaps; column headers run along the top axis, row titles down the left one;
    the selected tile is framed.

    Signals:
        hovered(index, row, col, value): tile and cell under the mouse (-1 outside)
        headClicked(index): a tile was clicked
    """

    hovered = Signal(int, int, int, float)
    headClicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = self.ci.addPlot(row=0, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.invertY(True)
        self.plot.setAspectLocked(True)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideAxis("bottom")
        self.plot.showAxis("top")
        for axis in ("top", "left"):
            self.plot.getAxis(axis).setStyle(tickLength=0)
            self.plot.getAxis(axis).setPen(None)
        self.image = pg.ImageItem(axisOrder="row-major", autoDownsample=True)
        self.plot.addItem(self.image)
        self.frame = QGraphicsRectItem()
        pen = pg.mkPen(HIGHLIGHT, width=3)
        pen.setCosmetic(True)
        self.frame.setPen(pen)
        self.frame.setZValue(10)
        self.plot.addItem(self.frame, ignoreBounds=True)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=12,
                                        interactive=False, values=(0.0, 1.0))
        self.colorbar.setImageItem(self.image)
        self.ci.addItem(self.colorbar, row=0, col=1)
        self._tiles = np.zeros((0, 1, 1), np.float32)
        self._cols, self._gap = 1, 1
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)

    def set_tiles(self, tiles: np.ndarray, cols: int, col_titles: Sequence[str],
                  row_titles: Sequence[str], selected: int = -1) -> None:
        """tiles: float[n, q, k] in [0, 1], laid out ``cols`` to a row."""
        tiles = np.ascontiguousarray(tiles, dtype=np.float32)
        n, q, k = tiles.shape
        rows = -(-n // cols)
        gap = max(1, round(0.12 * max(q, k)))
        grid = np.full((rows * cols, q + gap, k + gap), np.nan, np.float32)
        grid[:n, :q, :k] = tiles
        mosaic = grid.reshape(rows, cols, q + gap, k + gap).transpose(0, 2, 1, 3).reshape(
            rows * (q + gap), cols * (k + gap))[: rows * (q + gap) - gap, : cols * (k + gap) - gap]
        self.image.setImage(np.ascontiguousarray(mosaic), autoLevels=False, levels=(0.0, 1.0))
        self.image.setRect(QRectF(-0.5, -0.5, mosaic.shape[1], mosaic.shape[0]))
        _set_ticks(self.plot.getAxis("top"),
                   [[(c * (k + gap) + (k - 1) / 2, t) for c, t in enumerate(col_titles)]])
        _set_ticks(self.plot.getAxis("left"),
                   [[(r * (q + gap) + (q - 1) / 2, t) for r, t in enumerate(row_titles)]])
        if 0 <= selected < n:
            r, c = divmod(selected, cols)
            self.frame.setRect(QRectF(c * (k + gap) - 0.5, r * (q + gap) - 0.5, k, q))
        self.frame.setVisible(0 <= selected < n)
        # room on the right for the last column's header (an axis label that would
        # overhang the axis is not drawn)
        self.plot.setRange(xRange=(-0.5, mosaic.shape[1] - 0.5 + k / 2),
                           yRange=(-0.5, mosaic.shape[0] - 0.5), padding=0.01)
        self._tiles, self._cols, self._gap = tiles, cols, gap

    def tiles(self) -> np.ndarray:
        return self._tiles

    def tile_centre(self, index: int) -> QPointF:
        """Scene position of a tile's centre (for tests and tours)."""
        _, q, k = self._tiles.shape
        r, c = divmod(index, self._cols)
        p = QPointF(c * (k + self._gap) + (k - 1) / 2, r * (q + self._gap) + (q - 1) / 2)
        return self.plot.vb.mapViewToScene(p)

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
        index = r * self._cols + c
        if col >= k or row >= q or c >= self._cols or index >= n:
            return -1, -1, -1          # in a gap, or past the last tile
        return index, row, col

    def _on_move(self, scene_pos: QPointF) -> None:
        i, r, c = self._cell(scene_pos)
        self.hovered.emit(i, r, c, float(self._tiles[i, r, c]) if i >= 0 else float("nan"))

    def _on_click(self, event) -> None:
        i, _, _ = self._cell(event.scenePos())
        if i >= 0:
            self.headClicked.emit(i)
