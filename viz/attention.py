"""Attention views: every head of a layer side by side, and one head step by step.

Both are ``GraphicsLayoutWidget``s whose items are created once and updated with
``setImage`` (row-major float32, explicit levels, one shared colour bar per view).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QVBoxLayout

from viz.figure import figure_style
from viz.heatmap import TokenAxis, ask_minimum
from viz.text import fit_lines
from viz.theme import HIGHLIGHT, PALETTE, colormap

#: colour of the keep-mask: blocked = dark grey, keep = light green
MASK_COLOURS = pg.ColorMap([0.0, 1.0], [(60, 60, 60), (200, 230, 200)])
#: one colour per head, shared by the heads grid's titles and the head view's lines
HEAD_COLOURS = PALETTE
TITLE_H = 20      # a one-line plot title
#: a click on a heatmap whose cells are smaller than this (or that has no axes: a
#: thumbnail) opens it enlarged, every token named, as BertViz's model view opens a head
ENLARGE_BELOW = 16
GAP = 8           # between heatmaps
BAR_W = 58        # a colour bar with its tick labels


def head_colour(h: int) -> str:
    return HEAD_COLOURS[h % len(HEAD_COLOURS)]


# pyqtgraph redraws an axis from scratch after any setTicks/setStyle, and a title
# after setTitle, even when nothing changed: on a mask toggle (same tokens) that was
# most of the redraw (38 axes, about 30 ms). These setters skip unchanged values.
def set_ticks(ax: pg.AxisItem, ticks, fill_limit: float | None = None) -> None:
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


def wrap_title(title: str | None, width: float, size: str = "9pt", bold: bool = False) -> str:
    """``title`` with line breaks (``<br>``) so that no line is wider than ``width``
    pixels, broken as Qt breaks text (at spaces, between Chinese characters); a title
    with markup is left as it is."""
    if not title or width <= 0 or "<" in title.replace("<br>", ""):
        return title or ""
    font = QFont()
    font.setPointSizeF(float(size.rstrip("pt")))
    font.setBold(bold)
    lines, _ = fit_lines(title.replace("<br>", "\n"), font, int(width - 4), max_lines=99)
    return "<br>".join(lines)


def _lines(title: str) -> int:
    return title.count("<br>") + 1


def _square_plot() -> tuple[pg.PlotItem, pg.ImageItem]:
    plot = pg.PlotItem(axisItems={"left": TokenAxis("left"), "bottom": TokenAxis("bottom")},
                       enableMenu=False)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.invertY(True)
    plot.setMouseEnabled(x=False, y=False)
    plot.setAspectLocked(True)          # square cells: one query × one key
    # long sequences: downsample to screen pixels before the lookup table, not after
    image = pg.ImageItem(axisOrder="row-major", autoDownsample=True)
    plot.addItem(image)
    return plot, image


def fit_cells(width: float, height: float, n: int, q: int, k: int, left: float,
              bottom: float, options, title: float = TITLE_H) -> tuple[int, float]:
    """(columns, pixels per cell) that make ``n`` square-celled q × k heatmaps, each with
    a ``title`` row, a ``left`` axis and a ``bottom`` axis, and one colour bar, as large
    as ``width`` × ``height`` allows; ``options``: the column counts to try."""
    best = (next(iter(options)), -1.0)
    for cols in options:
        rows = -(-n // cols)
        sx = (width - BAR_W - cols * (left + 2 + GAP) - 4) / (cols * k)
        sy = (height - rows * (title + bottom + 2) - (rows - 1) * GAP - 4) / (rows * q)
        s = min(sx, sy)
        if s > best[1] + 1e-9:
            best = (cols, s)
    # under a pixel a cell if need be (the image is downsampled): floored at 1 px, a
    # 64-key block outgrew a narrow view and its colour bar's ticks were cut ("1.", "0.")
    return best[0], max(best[1], 0.25)


class _SquareGrid(pg.GraphicsLayoutWidget):
    """Heatmaps of one shape with square cells, laid out to fill the widget.

    On every resize and new shape the column count and the cell size are chosen so the
    heatmaps are as large as the widget allows; each plot is sized to its image plus
    its axes (no blank inside the axes) and the block is centred. Every heatmap names
    the tokens on both axes (``TokenAxis``: thinned or turned when they do not fit).
    """

    def __init__(self, n: int, col_options, parent=None) -> None:
        super().__init__(parent)
        self._col_options = col_options
        self.ci.layout.setSpacing(GAP)
        self.plots: list[pg.PlotItem] = []
        self.images: list[pg.ImageItem] = []
        self.bars: list[tuple[pg.ColorBarItem, int]] = []    # (bar, grid row)
        self._shape = (1, 1)
        self._labels: tuple[Sequence[str], Sequence[str]] = ((), ())
        self._cols = 0
        self._placed: tuple = ()
        self.cell_px = 0.0
        self._title_h = TITLE_H
        self._titles: list[tuple[str, dict]] = []     # (title, _set_title style) per plot
        self._ticks = True
        self._make_plots(n)

    def _make_plots(self, n: int) -> None:
        for item in [*self.plots, *(b for b, _ in self.bars)]:
            if item.scene() is not None:
                self.ci.removeItem(item)
        self.plots, self.images = [], []
        for _ in range(n):
            plot, image = _square_plot()
            self.plots.append(plot)
            self.images.append(image)
        self._placed = ()

    def _place(self, cols: int) -> None:
        rows = -(-len(self.plots) // cols)
        key = (cols, len(self.plots), tuple(r for _, r in self.bars))
        if key == self._placed:
            return
        for item in [*self.plots, *(b for b, _ in self.bars)]:
            if item.scene() is not None:
                self.ci.removeItem(item)
        for i, plot in enumerate(self.plots):
            self.ci.addItem(plot, row=i // cols, col=i % cols)
        for bar, row in self.bars:
            # a lone bar spans every row: one row of small thumbnails is too short for
            # its tick labels (they overlapped in a 3-row grid of 12 heads)
            span = rows if len(self.bars) == 1 else 1
            self.ci.addItem(bar, row=min(row, rows - 1), col=cols, rowspan=span)
        self._placed = key

    def relayout(self) -> None:
        """Fit the heatmaps to the widget (called on resize and on new data)."""
        w, h = self.viewport().width(), self.viewport().height()
        # (a resize before the first trace: no heatmaps given yet, nothing to lay out)
        if not getattr(self, "plots", None) or w < 20 or h < 20 or len(self._titles) != len(
                self.plots):
            return
        q, k = self._shape
        q_labels, k_labels = self._labels
        left_ax, bottom_ax = self.plots[0].getAxis("left"), self.plots[0].getAxis("bottom")
        left_ax.set_tokens(q_labels, 1e6)
        bottom_ax.set_tokens(k_labels, 1e6)
        lw = left_ax.extent() if self._ticks else 0.0
        bh_full = max(bottom_ax.extent(False), bottom_ax.extent(True))   # at full size
        n, th = len(self.plots), self._title_h
        for _ in range(2):     # a title wrapped to the plot's width may need more height
            cols, s = fit_cells(w, h, n, q, k, lw,
                                bottom_ax.extent(False) if self._ticks else 0.0,
                                self._col_options, th)
            bottom_ax.set_tokens(k_labels, s)
            if bottom_ax.rotated() and self._ticks:
                cols, s = fit_cells(w, h, n, q, k, lw, bottom_ax.extent(True),
                                    self._col_options, th)
            titles, need = self._wrapped_titles(s * k + lw)
            if need <= th:
                break
            th = need
        bh = bottom_ax.extent() if self._ticks else 0.0
        if self._ticks:
            # every token named: the cells as large as their labels need at the smallest
            # type, else the widget asks for more height (its panel scrolls)
            left_ax.set_tokens(q_labels, s)
            self._ask_height(n, q, k, lw, bh_full,
                             max(left_ax.min_cell_px(), bottom_ax.min_cell_px()))
        else:
            ask_minimum(self, 0, 0)        # thumbnails: no labels to make room for
        self._place(cols)
        self._cols, self.cell_px = cols, s
        rows = -(-n // cols)
        pw, ph = np.floor(lw + s * k) + 2, np.floor(th + s * q + bh) + 2
        for plot, title, (_, style) in zip(self.plots, titles, self._titles, strict=True):
            _set_title(plot, title, **style)
            for name in ("left", "bottom"):
                if plot.getAxis(name).isVisible() != self._ticks:
                    plot.showAxis(name, self._ticks)
            plot.getAxis("left").set_tokens(q_labels, s)
            plot.getAxis("bottom").set_tokens(k_labels, s)
            plot.getAxis("left").setWidth(int(lw))
            plot.getAxis("bottom").setHeight(int(bh))
            plot.layout.setRowFixedHeight(0, th)
            plot.setFixedWidth(pw)
            plot.setFixedHeight(ph)
        lone = len(self.bars) == 1          # spans every row (see ``_place``)
        for bar, _ in self.bars:
            bar.setFixedHeight(rows * ph + (rows - 1) * GAP if lone else ph)
            bar.setFixedWidth(BAR_W - GAP)
            bar.setContentsMargins(0, th + 1, 0, bh + 1)
        block_w = cols * (pw + GAP) + BAR_W - GAP
        block_h = rows * ph + (rows - 1) * GAP
        mx, my = max(0.0, (w - block_w) / 2), max(0.0, (h - block_h) / 2)
        self.ci.setContentsMargins(mx, my, mx, my)
        self.ci.layout.activate()
        for plot in self.plots:
            plot.layout.activate()
            plot.autoRange(padding=0)

    def _wrapped_titles(self, width: float) -> tuple[list[str], float]:
        """The titles broken to a plot ``width`` pixels wide, and the title row's height
        they need."""
        titles = [wrap_title(t, width, st.get("size", "9pt"), bool(st.get("bold")))
                  for t, st in self._titles]
        return titles, 15 * max((_lines(t) for t in titles), default=1) + 5

    def _ask_height(self, n: int, q: int, k: int, lw: float, bh: float,
                    need: float) -> None:
        """Ask for the height at which ``fit_cells`` makes cells of ``need`` pixels (the
        size at which every token's label fits at the smallest type, see
        ``TokenAxis.min_cell_px``) at this width. Worked out from the width alone, so a
        taller widget asks for the same (no back and forth). The least width at which
        any height does it is asked for too, from the data alone, never from the
        present width: asked only while the widget was narrower, it was dropped once
        the minimum had widened the widget, which then shrank to the panel's width
        and asked again, a resize at every turn of the event loop (the pretrained
        tab's 29-token map between 351 and 367 px: a frozen window, 10 GB)."""
        w = self.viewport().width()

        def enough(width: float, height: float) -> bool:
            # the titles wrapped as ``relayout`` wraps them at this size: with the title
            # row of the present size instead, a taller widget (titles on one line)
            # asked for less than a shorter one (titles on two), and the transformer
            # tab's step panels swung between 318 and 348 px at every turn
            th = self._title_h
            for _ in range(2):
                s = fit_cells(width, height, n, q, k, lw, bh, self._col_options, th)[1]
                th_need = self._wrapped_titles(s * k + lw)[1]
                if th_need <= th:
                    break
                th = th_need
            return fit_cells(width, height, n, q, k, lw, bh, self._col_options, th)[1] \
                >= need - 1e-6

        min_w = 0
        if need > 0:
            lo_w, hi_w = 0, 100_000      # the least width at which some height is enough
            while lo_w < hi_w:
                mid = (lo_w + hi_w) // 2
                if enough(mid, 100_000):
                    hi_w = mid
                else:
                    lo_w = mid + 1
            min_w = lo_w + 2 * self.frameWidth()
            w = max(w, lo_w)
        lo, hi = 0, 100_000
        while lo < hi:                  # the least height that is enough
            mid = (lo + hi) // 2
            if enough(w, mid):
                hi = mid
            else:
                lo = mid + 1
        frame = 2 * self.frameWidth()      # (the viewport may not follow a resize yet)
        ask_minimum(self, min_w, lo + frame if need > 0 else 0)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(ev)
        if getattr(self, "closed", False):      # pyqtgraph's close() cleared the scene
            return
        self.relayout()

    def _set_shape(self, shape: tuple[int, int], q_labels, k_labels,
                   titles: Sequence[tuple[str, dict]], ticks: bool = True) -> None:
        """New data's shape, labels and (title, style) per plot: lay out again if any
        of them changed."""
        shape = (int(shape[0]), int(shape[1]))
        labels = (tuple(map(str, q_labels)), tuple(map(str, k_labels)))
        title_h = 15 * max((_lines(t) for t, _ in titles), default=1) + 5
        if (shape, labels, tuple(titles), ticks) != (
                self._shape, self._labels, tuple(self._titles), self._ticks) or not self._placed:
            self._shape, self._labels, self._title_h, self._ticks = shape, labels, title_h, ticks
            self._titles = list(titles)
            self.relayout()

    def columns(self) -> int:
        return self._cols

    def thumbnails(self) -> bool:
        """Whether a click opens a heatmap enlarged: no axes, or cells too small to read
        comfortably (``ENLARGE_BELOW``)."""
        return bool(self.plots) and (not self._ticks or self.cell_px < ENLARGE_BELOW)

    def enlarge(self, index: int) -> EnlargedMap:
        """Heatmap ``index`` in a window of its own, large, every token named, with its
        colours and scale (one window per grid, reused)."""
        dialog = getattr(self, "_enlarged", None)
        if dialog is None:
            dialog = self._enlarged = EnlargedMap(self)
        image = self.images[index]
        title = self._titles[index][0] if index < len(self._titles) else ""
        dialog.show_map(np.asarray(image.image, np.float32), *self._labels, title,
                        image.getColorMap() or colormap("viridis"),
                        tuple(image.getLevels()))
        return dialog

    def _cell_of(self, scene_pos: QPointF, shape: tuple[int, int]) -> tuple[int, int, int]:
        for i, plot in enumerate(self.plots):
            if plot.vb.sceneBoundingRect().contains(scene_pos):
                p = plot.vb.mapSceneToView(scene_pos)
                row, col = int(np.floor(p.y() + 0.5)), int(np.floor(p.x() + 0.5))
                if 0 <= row < shape[0] and 0 <= col < shape[1]:
                    return i, row, col
        return -1, -1, -1


class HeadGrid(_SquareGrid):
    """Every head of one layer as a heatmap (query rows × key columns), one colour bar.

    The heads take one row, two, or a column, whichever makes them largest; each names
    the query tokens down its left axis and the key tokens along its bottom axis.

    Signals:
        hovered(head, row, col, value): the cell under the mouse (head -1 outside).
        headClicked(head): a head was clicked (the tab shows its panels).
    """

    hovered = Signal(int, int, int, float)
    headClicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(0, [1], parent)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=12,
                                        interactive=False, values=(0.0, 1.0))
        self.bars = [(self.colorbar, 0)]
        self._weights = np.zeros((0, 1, 1), np.float32)
        self._selected = -1
        self._levels = (0.0, 1.0)
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)

    def set_heads(self, weights: np.ndarray, q_labels: Sequence[str], k_labels: Sequence[str],
                  titles: Sequence[str], selected: int = -1, cols: int | None = None,
                  ticks: bool = True, levels: tuple[float, float] = (0.0, 1.0),
                  swatches: bool = False) -> None:
        """weights: float[n, q, k], coloured over ``levels`` (attention weights: 0..1);
        ``cols`` fixes the column count (default: whatever makes the heads largest);
        ``ticks=False`` for thumbnails (no axes); ``swatches`` puts each head's colour
        (``head_colour``, as in the head view) before its title."""
        weights = np.ascontiguousarray(weights, dtype=np.float32)
        heads = weights.shape[0]
        options = [cols] if cols else list(range(1, heads + 1))
        if heads != len(self.plots) or options != self._col_options:
            self._col_options = options
            self._make_plots(heads)
            self.colorbar.setImageItem(self.images)
        styled = []
        for h, image in enumerate(self.images):
            image.setImage(weights[h], autoLevels=False, levels=levels)
            image.setRect(QRectF(-0.5, -0.5, weights.shape[2], weights.shape[1]))
            swatch = f"<span style='color:{head_colour(h)}'>■</span> " if swatches else ""
            styled.append((swatch + titles[h], {"color": HIGHLIGHT if h == selected else "#222",
                                                "bold": h == selected, "size": "9pt"}))
        if levels != self._levels:
            self.colorbar.setLevels(levels)
            self._levels = levels
        self._weights = weights
        self._selected = selected
        self._set_shape(weights.shape[1:], q_labels, k_labels, styled, ticks)
        for h, plot in enumerate(self.plots):    # the selection stays in the window
            figure_style(plot.titleLabel, **({"color": "#222", "bold": False}
                                             if h == selected else {}))

    def weights(self) -> np.ndarray:
        return self._weights

    def _on_move(self, scene_pos: QPointF) -> None:
        h, r, c = self._cell_of(scene_pos, self._weights.shape[1:])
        self.hovered.emit(h, r, c, float(self._weights[h, r, c]) if h >= 0 else float("nan"))

    def _on_click(self, event) -> None:
        h, _, _ = self._cell_of(event.scenePos(), self._weights.shape[1:])
        if h >= 0:
            self.headClicked.emit(h)
            if self.thumbnails():
                self.enlarge(h)


class PanelRow(_SquareGrid):
    """One head in four steps, 2 × 2: keep-mask, raw scores / masked scores, softmax.

    Signals:
        hovered(panel, row, col, value)
    """

    hovered = Signal(int, int, int, float)

    def __init__(self, parent=None) -> None:
        super().__init__(4, [2], parent)
        # blocked = dark grey, keep = light green (white would vanish into the background)
        self.images[0].setColorMap(MASK_COLOURS)
        self.score_bar = pg.ColorBarItem(colorMap=colormap("CET-D1"), width=10,
                                         interactive=False)
        self.score_bar.setImageItem([self.images[1], self.images[2]])
        self.softmax_bar = pg.ColorBarItem(colorMap=colormap("viridis"), width=10,
                                           interactive=False, values=(0.0, 1.0))
        self.softmax_bar.setImageItem(self.images[3])
        self.bars = [(self.score_bar, 0), (self.softmax_bar, 1)]
        self._data = [np.zeros((1, 1), np.float32)] * 4
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)

    def _on_click(self, event) -> None:
        i, _, _ = self._cell_of(event.scenePos(), self._data[3].shape)
        if i >= 0 and self.thumbnails():
            self.enlarge(i)

    def set_panels(self, mask: np.ndarray, raw: np.ndarray, masked: np.ndarray,
                   softmax: np.ndarray, q_labels, k_labels, titles: Sequence[str]) -> None:
        lim = float(np.nanmax(np.abs(raw))) if raw.size else 1.0
        lim = lim if np.isfinite(lim) and lim > 0 else 1.0
        data = [mask.astype(np.float32), raw, masked, softmax]   # mask: 1 = keep
        levels = [(0.0, 1.0), (-lim, lim), (-lim, lim), (0.0, 1.0)]
        for image, arr, lv in zip(self.images, data, levels, strict=True):
            arr = np.ascontiguousarray(arr, dtype=np.float32)
            image.setImage(arr, autoLevels=False, levels=lv)
            image.setRect(QRectF(-0.5, -0.5, arr.shape[1], arr.shape[0]))
        self.score_bar.setLevels((-lim, lim))
        self._data = data
        self._set_shape(softmax.shape, q_labels, k_labels, [(t, {"size": "9pt"}) for t in titles])

    def _on_move(self, scene_pos: QPointF) -> None:
        i, r, c = self._cell_of(scene_pos, self._data[3].shape)
        self.hovered.emit(i, r, c, float(self._data[i][r, c]) if i >= 0 else float("nan"))


class EnlargedMap(QDialog):
    """One heatmap of a grid in a window of its own: as large as the window, every
    query and key named (``HeadGrid`` with axes), its colours and scale kept."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.grid = HeadGrid()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.grid)
        self.resize(620, 620)

    def show_map(self, matrix: np.ndarray, q_labels, k_labels, title: str, cmap,
                 levels: tuple[float, float]) -> None:
        self.setWindowTitle(title.split("</span>")[-1].strip() if title else "")
        self.grid.set_heads(matrix[None], q_labels, k_labels, [title], cols=1,
                            levels=(float(levels[0]), float(levels[1])))
        self.grid.colorbar.setColorMap(cmap)
        self.show()
        self.raise_()
