"""A heatmap with a colour bar, hover read-out and data coordinates on the axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
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

    def __init__(self, cmap: str, parent=None, bar: str = "right", **kwargs) -> None:
        kwargs.setdefault("axisItems", {"bottom": SpacedAxis("bottom")})
        super().__init__(parent, **kwargs)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plotItem.addItem(self.image)
        self.plotItem.invertY(True)
        # ``bar="bottom"``: the colour bar level under the x axis, for a narrow view whose
        # columns need the width a bar at the right takes (about 60 px with its ticks)
        horizontal = bar == "bottom"
        self.colorbar = pg.ColorBarItem(
            colorMap=colormap(cmap), width=10 if horizontal else 14, interactive=False,
            orientation="horizontal" if horizontal else "vertical")
        self.colorbar.setImageItem(self.image, insert_in=self.plotItem)
        if horizontal:       # pyqtgraph fixed the x axis' label row at 10 px: give it back
            self.plotItem.layout.setRowMaximumHeight(4, 1e6)
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
#: token labels are drawn at this size where their cells allow ...
FULL_POINT = 8.5
#: ... and smaller, down to this, where they do not; below it the view grows (and its
#: panel scrolls) so that every token keeps its label: an axis never skips one
MIN_POINT = 6.0
#: the pitch of labels one above the other, in heights of their font
ROW = 0.9


def token_font(point: float = FULL_POINT) -> QFont:
    """The font of token labels on attention axes (readable on a slide)."""
    font = QFont()
    font.setPointSizeF(point)
    return font


def _point_sizes() -> list[float]:
    sizes, pt = [], FULL_POINT
    while pt >= MIN_POINT - 1e-9:
        sizes.append(pt)
        pt -= 0.5
    return sizes


#: how many of a widget's last minimum-size requests ``ask_minimum`` remembers: a swing is
#: two answers that alternate twice (A B A B)
SWING_MEMORY = 4


def ask_minimum(widget, width: int, height: int) -> None:
    """Give ``widget`` the minimum size (``width`` × ``height``; 0 = none) at which its
    token labels fit, from the event loop: set inside a resize event, the new size
    reached the view while Qt's scroll area ignores a resize nested in another, and its
    viewport kept the old size (half the widget stayed blank)."""
    asked = (int(width), int(height))
    # A size that depends on the size it gets can swing between two answers (a scroll
    # bar that comes with the taller size narrows the viewport, which then asks for
    # more height, which ...): the transformer tab's head grid swung at every turn of
    # the event loop and grew to 7.7 GB in test_session_tr. Two answers that alternate
    # twice (A B A B) are such a swing: the widget then keeps the larger of them, a
    # fixed point, for as long as the requests stay among them; any other answer (new
    # data, a new shape) is taken as it is. One return (A B A, as a layout settles at
    # start-up) is not a swing: keeping the larger there left panels too small.
    history = getattr(widget, "_archscope_asked", [])
    if not history or history[-1] != asked:
        # answers, not calls: a view asks again at every resize of a relayout (the forward
        # view asked 201 201 201 243 243 201 …, a swing of 0.1 s the test never saw)
        history = (history + [asked])[-SWING_MEMORY:]
    widget._archscope_asked = history
    swing = getattr(widget, "_archscope_swing", None)
    if swing is not None and asked not in swing:
        swing = None
    if swing is None and len(history) == SWING_MEMORY and history[0] == history[2] \
            and history[1] == history[3] and history[0] != history[1]:
        swing = (history[0], history[1])
    widget._archscope_swing = swing
    key = asked if swing is None else (max(k[0] for k in swing), max(k[1] for k in swing))
    if getattr(widget, "_archscope_minimum", None) == key:
        return
    widget._archscope_minimum = key

    def apply() -> None:
        if getattr(widget, "_archscope_minimum", None) == key and not getattr(
                widget, "closed", False):
            widget.setMinimumSize(*key)
    QTimer.singleShot(0, widget, apply)


def short_label(text: object) -> str:
    """A token as an axis prints it: cut with "…" past ``MAX_LABEL_CHARS`` characters."""
    s = str(text)
    return s if len(s) <= MAX_LABEL_CHARS else s[: MAX_LABEL_CHARS - 1] + "…"


def fit_token_font(texts: Sequence[str], cell_px: float,
                   vertical: bool) -> tuple[float, bool, bool]:
    """(point size, rotated, fits) for labels ``texts`` one per cell of ``cell_px``
    pixels: the largest size from ``FULL_POINT`` down to ``MIN_POINT`` at which every
    label fits its cell, level (one above the other on a vertical axis, side by side on
    a horizontal one) or, on a horizontal axis, turned by 90° when that fits and level
    does not. ``fits`` is False when none does (the caller makes the cells larger)."""
    n = len(texts)
    for pt in _point_sizes():
        fm = QFontMetricsF(token_font(pt))
        h = fm.height()
        if vertical:
            if h * ROW <= cell_px + 1e-6 or n <= 1:
                return pt, False, True
            continue
        w = max((fm.horizontalAdvance(t) for t in texts), default=0.0)
        if w + 2 <= cell_px + 1e-6 or n <= 1:
            return pt, False, True
        if w > h and h * ROW <= cell_px + 1e-6:
            return pt, True, True
    fm = QFontMetricsF(token_font(MIN_POINT))
    w = max((fm.horizontalAdvance(t) for t in texts), default=0.0)
    return MIN_POINT, not vertical and w > fm.height(), False


def min_cell_px(texts: Sequence[str], vertical: bool) -> float:
    """The smallest cell in which every label of ``texts`` fits at ``MIN_POINT``."""
    if len(texts) <= 1:
        return 0.0
    fm = QFontMetricsF(token_font(MIN_POINT))
    h = fm.height() * ROW
    if vertical:
        return float(np.ceil(h))
    w = max((fm.horizontalAdvance(t) for t in texts), default=0.0) + 2
    return float(np.ceil(min(w, h) if w > fm.height() + 2 else w))


class TokenAxis(pg.AxisItem):
    """An axis that names every token of a heatmap's rows or columns.

    ``set_tokens(labels, cell_px)`` labels every token, one per cell of ``cell_px``
    pixels on screen, never every n-th: the labels get smaller type (``FULL_POINT``
    down to ``MIN_POINT``) and a bottom axis turns them by 90° when they are wider than
    a cell (words, long sub-words). Where even that does not fit, ``fits()`` is False
    and ``min_cell_px()`` says how large the cells must be: the view grows to that (its
    panel scrolls). Tokens longer than ``MAX_LABEL_CHARS`` are cut with "…"; a view's
    hover read-out names them whole. ``extent()`` is the width (left axis) or height
    (bottom axis) the labels need.
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
        self._point = FULL_POINT
        self._fits = True
        self._need = 0.0
        self._font_h = float(QFontMetricsF(token_font()).height())

    def label_width(self, labels: Sequence[object], point: float | None = None) -> float:
        fm = QFontMetricsF(token_font(self._point if point is None else point))
        return max((fm.horizontalAdvance(short_label(t)) for t in labels), default=0.0)

    def set_tokens(self, labels: Sequence[object], cell_px: float) -> None:
        texts = [short_label(t) for t in labels]
        vertical = self.orientation in ("left", "right")
        point, rotated, fits = fit_token_font(texts, max(cell_px, 1e-3), vertical)
        if not fits and texts == [str(i) for i in range(len(texts))]:
            # positions 0 … n−1 (the efficient tab's N = 64 pattern) are a number line:
            # pyqtgraph's numbered ticks, not a name per cell the view grows for
            self.set_auto()
            self._label_w = self.label_width([str(len(texts) - 1)], FULL_POINT)
            return
        self._fits, self._need = fits, min_cell_px(texts, vertical)
        ticks = list(enumerate(texts))
        key = (tuple(ticks), rotated, point)
        if key == self._key:
            return
        self._key, self._ticks, self._rotated, self._point = key, ticks, rotated, point
        font = token_font(point)
        self._font_h = float(QFontMetricsF(font).height())
        self._label_w = self.label_width(texts, point)
        self.setStyle(tickFont=font)
        self.setTicks([ticks])

    def set_auto(self) -> None:
        """pyqtgraph's own numbered ticks (feature indices), not tokens."""
        if self._key is not None:
            self._key, self._ticks, self._rotated = None, [], False
            self._label_w, self._fits, self._need = 0.0, True, 0.0
            self._point = FULL_POINT
            self.setStyle(tickFont=token_font())
            self._font_h = float(QFontMetricsF(token_font()).height())
            self.setTicks(None)

    def rotated(self) -> bool:
        return self._rotated

    def point_size(self) -> float:
        return self._point

    def fits(self) -> bool:
        """Whether every label fits its cell at the size drawn (else they would touch)."""
        return self._fits

    def min_cell_px(self) -> float:
        """The cell size in pixels at which every label fits (at ``MIN_POINT``)."""
        return self._need

    def shown_labels(self) -> list[str]:
        """The labels drawn, in order: one per token."""
        return [t for _, t in self._ticks]

    def extent(self, rotated: bool | None = None) -> float:
        rotated = self._rotated if rotated is None else rotated
        return self._extent(self._label_w, self._font_h, rotated)

    def _extent(self, label_w: float, font_h: float, rotated: bool) -> float:
        offset = self.style["tickLength"] + self._text_offset() + self.PAD
        if self.orientation in ("left", "right") or rotated:
            return float(np.ceil(label_w + offset))
        return float(np.ceil(font_h + offset))

    def extent_for(self, labels: Sequence[object], cell_px: float) -> float:
        """The ``extent()`` that ``set_tokens(labels, cell_px)`` would give, the axis left
        as it is: a view works out its layout from its size alone with it."""
        texts = [short_label(t) for t in labels]
        vertical = self.orientation in ("left", "right")
        point, rotated, fits = fit_token_font(texts, max(cell_px, 1e-3), vertical)
        if not fits and texts == [str(i) for i in range(len(texts))]:     # set_auto
            return self._extent(self.label_width([str(len(texts) - 1)], FULL_POINT),
                                float(QFontMetricsF(token_font()).height()), False)
        return self._extent(self.label_width(texts, point),
                            float(QFontMetricsF(token_font(point)).height()), rotated)

    def _text_offset(self) -> float:
        return self.style["tickTextOffset"][0 if self.orientation in ("left", "right") else 1]

    def rotated_label_rects(self) -> list[tuple[QRectF, str]]:
        """Where the turned labels are drawn, in the axis' coordinates (empty when the
        labels are level: pyqtgraph's ``generateDrawSpecs`` places those)."""
        view = self.linkedView()
        if not self._rotated or view is None:
            return []
        y0 = self.style["tickLength"] + self._text_offset()
        fm = QFontMetricsF(token_font(self._point))
        out = []
        for value, text in self._ticks:
            x = self.mapFromScene(view.mapViewToScene(QPointF(value, 0))).x()
            w = fm.horizontalAdvance(text)
            # the text's line, less the leading above and below (as pyqtgraph measures
            # level labels at 0.8 of their font's height)
            out.append((QRectF(x - self._font_h * ROW / 2, y0, self._font_h * ROW, w), text))
        return out

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802 - Qt name
        if not self._rotated:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        view = self.linkedView()
        if view is None:
            return
        p.setFont(token_font(self._point))
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
