"""Legends that never cover data.

pyqtgraph anchors a ``LegendItem`` at a fixed corner of the view box, whatever the data
does there: a loss curve that starts high ran under a top-right legend, a density image
lay under every corner. ``KeepClear`` places a legend after every change of the data,
the range or the size: in the first corner of the data area (in ``prefer`` order) whose
rectangle holds no drawn data, else *outside* the data area, as a row of entries below
the plot (matplotlib's ``loc="upper center", bbox_to_anchor=(0.5, -0.1)``), with room
made for it in the plot item's layout.

"What is drawn" is read from the items themselves (``drawn_geometry``): the points of
curves (sampled every few pixels along each segment, so a line crossing a corner counts)
and of scatters, the rectangles of bars and images, mapped to the view box's pixels
through each item's own transform (log axes, image rectangles included).
"""

from __future__ import annotations

import contextlib
import math
import time
import weakref
from collections.abc import Iterable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, Qt, QTimer
from shiboken6 import isValid

from viz.segments import CLIP_MARGIN_PX, STEP_PX, densify

#: inside corners, tried in this order; (item anchor, parent anchor, offset sign)
CORNERS = {
    "top-right": ((1, 0), (1, 0), (-1, 1)),
    "top-left": ((0, 0), (0, 0), (1, 1)),
    "bottom-right": ((1, 1), (1, 1), (-1, -1)),
    "bottom-left": ((0, 1), (0, 1), (1, -1)),
}
OUTSIDE = "below"
#: while the data keeps changing, the legend is re-placed at most this often (ms)
THROTTLE_MS = 250
#: the data area keeps at least this height when the legend goes below it (pixels)
MIN_DATA_HEIGHT = 120
#: layout passes a placement makes at most for the plot to keep its size
SETTLE_ROUNDS = 6


def _affine(item, target) -> np.ndarray | None:
    """The 2x3 affine map from ``item``'s coordinates to ``target``'s (the scene's when
    ``target`` is None), or None."""
    if target is None:
        transform = item.sceneTransform()
    else:
        transform, ok = item.itemTransform(target)
        if not ok:
            return None
    return np.array([[transform.m11(), transform.m21(), transform.dx()],
                     [transform.m12(), transform.m22(), transform.dy()]])


def _apply(m: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.stack([m[0, 0] * x + m[0, 1] * y + m[0, 2],
                     m[1, 0] * x + m[1, 1] * y + m[1, 2]], axis=1)


def _box(target) -> tuple[float, float, float, float] | None:
    """A view box's own area and a margin, as ``densify`` clips to (None: no clip)."""
    if not isinstance(target, pg.ViewBox):
        return None
    r = target.boundingRect()
    return (r.left() - CLIP_MARGIN_PX, r.top() - CLIP_MARGIN_PX,
            r.right() + CLIP_MARGIN_PX, r.bottom() + CLIP_MARGIN_PX)


def drawn_geometry(items: Iterable, target) -> tuple[np.ndarray, list[QRectF]]:
    """What ``items`` draw, in ``target``'s coordinates (an item, or None for the
    scene's): (points float[k, 2], rectangles).

    Curves give samples along their segments, scatters their spots, bars and images
    their rectangles. Hidden items and text (annotations, hints) are not data."""
    points: list[np.ndarray] = []
    rects: list[QRectF] = []
    for item in items:
        if not item.isVisible():
            continue
        if isinstance(item, pg.PlotDataItem):
            for child in (item.curve, item.scatter):
                if child.isVisible():
                    p, r = drawn_geometry([child], target)
                    points.append(p)
                    rects.extend(r)
            continue
        if isinstance(item, pg.TextItem) and getattr(item, "_archscope_data_label", False):
            m = _affine(item, target)          # a bar's value, a node's name: keep it clear
            if m is not None and item.toPlainText().strip():
                rects.append(_map_rect(m, item.boundingRect()))
            continue
        if isinstance(item, (pg.TextItem, pg.InfiniteLine, pg.LegendItem)):
            continue
        m = _affine(item, target)
        if m is None:
            continue
        if isinstance(item, pg.PlotCurveItem):
            x, y = item.getData()
            if x is not None and len(x):
                pts = _apply(m, np.asarray(x, np.float64), np.asarray(y, np.float64))
                points.append(densify(pts, STEP_PX, item.opts.get("connect") == "pairs",
                                       _box(target))
                              if item.opts.get("pen") is not None else pts)
        elif isinstance(item, pg.ScatterPlotItem):
            x, y = item.getData()
            if x is not None and len(x):
                points.append(_apply(m, np.asarray(x, np.float64), np.asarray(y, np.float64)))
        elif isinstance(item, (pg.BarGraphItem, pg.ImageItem, pg.FillBetweenItem)):
            if isinstance(item, pg.ImageItem) and item.image is None:
                continue
            if isinstance(item, pg.BarGraphItem):
                for r in _bar_rects(item):
                    rects.append(_map_rect(m, r))
            else:
                rects.append(_map_rect(m, item.boundingRect()))
        else:                       # a composite (GraphItem, an arrow field ...)
            p, r = drawn_geometry(item.childItems(), target)
            points.append(p)
            rects.extend(r)
    pts = np.concatenate([p for p in points if len(p)]) if any(len(p) for p in points) \
        else np.zeros((0, 2))
    return pts[np.isfinite(pts).all(1)], rects


def _map_rect(m: np.ndarray, r: QRectF) -> QRectF:
    corners = _apply(m, np.array([r.left(), r.right()]), np.array([r.top(), r.bottom()]))
    (x0, y0), (x1, y1) = corners
    return QRectF(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))


def _bar_rects(bar: pg.BarGraphItem) -> list[QRectF]:
    """Each bar's rectangle in the bar item's coordinates (pyqtgraph's own rule for
    x/x0/x1/width and y/y0/y1/height, scalars broadcast)."""
    o = bar.opts

    def arr(name):
        v = o.get(name)
        return None if v is None else np.asarray(v, np.float64)

    height, width = arr("height"), arr("width")
    x0, x1, x = arr("x0"), arr("x1"), arr("x")
    y0, y1, y = arr("y0"), arr("y1"), arr("y")
    if x0 is None:
        x0 = x - width / 2 if x is not None and width is not None else (
            x1 - width if x1 is not None and width is not None else None)
    if x1 is None and x0 is not None:
        x1 = x0 + width if width is not None else None
    if y0 is None:
        y0 = y - height / 2 if y is not None and height is not None else (
            y1 - height if y1 is not None and height is not None else np.zeros(1))
    if y1 is None:
        y1 = y0 + height if height is not None else None
    if x0 is None or x1 is None or y1 is None:
        return [bar.boundingRect()]
    x0, x1, y0, y1 = np.broadcast_arrays(x0, x1, y0, y1)
    return [QRectF(min(a, b), min(c, d), abs(b - a), abs(d - c))
            for a, b, c, d in zip(x0.ravel(), x1.ravel(), y0.ravel(), y1.ravel(), strict=True)
            if np.isfinite([a, b, c, d]).all()]


def covered(rect: QRectF, points: np.ndarray, rects: Sequence[QRectF]) -> int:
    """How many of ``points`` and ``rects`` ``rect`` touches."""
    n = 0
    if len(points):
        inside = ((points[:, 0] >= rect.left()) & (points[:, 0] <= rect.right())
                  & (points[:, 1] >= rect.top()) & (points[:, 1] <= rect.bottom()))
        n += int(inside.sum())
    n += sum(1 for r in rects if r.intersects(rect) or rect.contains(r.topLeft()))
    return n


#: every placer made, so that an export can run the placements still waiting for the
#: event loop before it paints (``place_waiting``)
_PLACERS: weakref.WeakSet[KeepClear] = weakref.WeakSet()


class KeepClear(QObject):
    """Keeps ``legend`` off what ``plot`` draws (see the module docstring).

    ``plot``: the ``PlotItem`` whose view box holds the data; ``prefer``: inside corners
    in the order to try. Re-placed (at most once per event-loop turn) when the view's
    range or size changes or ``schedule()`` is called; ``place()`` does it now."""

    def __init__(self, plot: pg.PlotItem, legend: pg.LegendItem, margin: float = 8.0,
                 prefer: Sequence[str] = tuple(CORNERS), parent: QObject | None = None):
        super().__init__(parent if parent is not None else plot)
        self.plot, self.legend, self.margin = plot, legend, margin
        self.prefer = tuple(prefer)
        #: the legend's columns inside the view box (a plot with little headroom above
        #: its data, as the labelled bars, takes its entries side by side: one short row)
        self.inside_columns = 1
        self.where: str | None = None
        self._base_margins = plot.layout.getContentsMargins()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.place)
        vb = plot.vb
        vb.sigResized.connect(self.schedule)
        vb.sigRangeChanged.connect(self.schedule)
        vb.sigTransformChanged.connect(self.schedule)
        self._size = None
        self._placing = False
        self._last_placed = -1e9
        self._placed_for: tuple | None = None
        self._version = 0                   # counts changes of the drawn data
        self.where_inside: str | None = None
        legend.geometryChanged.connect(self._on_legend_geometry)
        # new data without a new range (a curve redrawn inside the same bounds) moves
        # nothing in the view box: listen to the items themselves, and to items coming
        self._watched: set[int] = set()
        vb.childGroup.itemsChangedListeners.append(self)
        _PLACERS.add(self)
        self.schedule()

    def itemsChanged(self) -> None:  # noqa: N802 - pyqtgraph's listener API
        # called while an item is being added, before the view box lists it
        self._data_changed()

    def _watch(self) -> None:
        for item in list(self.plot.vb.addedItems) + [
                it for box in getattr(self.plot, "archscope_boxes", ()) for it in box.addedItems]:
            if id(item) in self._watched:
                continue
            signal = getattr(item, "sigPlotChanged", None) or getattr(
                item, "sigImageChanged", None)
            if signal is not None:
                signal.connect(self._data_changed)
            self._watched.add(id(item))

    def _data_changed(self, *_) -> None:
        self._version += 1
        self.schedule()

    def schedule(self, *_) -> None:
        """Place soon: at once after a quiet spell, at most every ``THROTTLE_MS`` while
        the data keeps changing (an animation or a training redraws 25 times a second;
        placing on each frame cost about 10 ms of it)."""
        if self._placing or self._timer.isActive():
            return
        since = (time.monotonic() - self._last_placed) * 1000.0
        self._timer.start(0 if since >= THROTTLE_MS else int(THROTTLE_MS - since))

    def _on_legend_geometry(self) -> None:
        # entries added, removed or renamed; a move (our own anchoring) is not a reason
        size = (round(self.legend.width()), round(self.legend.height()))
        if size != self._size:
            self._size = size
            self.schedule()

    def entries(self) -> int:
        return len(self.legend.items)

    def data_geometry(self) -> tuple[np.ndarray, list[QRectF]]:
        vb = self.plot.vb
        # and what a second view box over the same area draws (a right-hand axis's)
        items = list(vb.addedItems) + [it for box in getattr(self.plot, "archscope_boxes", ())
                                       for it in box.addedItems]
        return drawn_geometry(items, vb)

    def place(self) -> str | None:
        """Put the legend where it covers nothing; returns where it went.

        The corners are judged on the view box as it is with the legend inside (the
        room below given back and the layout settled, synchronously), so a decision
        never depends on the legend's own last move: judged on the smaller box the
        legend left behind, a corner looked free that was not, and it went in and
        out at every turn of the event loop."""
        self._timer.stop()
        if self._placing:
            return self.where
        self._last_placed = time.monotonic()
        self._placing = True
        try:
            self._watch()
            key = self._inputs()
            if key == self._placed_for:
                return self.where
            self.where = self._decide()
            self._placed_for = self._inputs()
            return self.where
        finally:
            self._placing = False

    def _inputs(self) -> tuple:
        """What a placement depends on; placing again for the same is a no-op."""
        vb = self.plot.vb
        # the legend's size too: it can grow after a placement with the same entries (its
        # layout settling late on a loaded machine, a font); judged on the smaller box,
        # the graph tab's comparison legend came down over a bar (CI, twice). And the
        # view box's own: an axis widened by its labels at its first paint shrinks it
        # inside a plot of the same size, and the same legend then covered a bar (CI)
        return (round(self.plot.width()), round(self.plot.height()), self._version,
                tuple(lab.text for _s, lab in self.legend.items), self.legend.isVisible(),
                tuple(round(v, 9) for r in vb.viewRange() for v in r),
                round(self.legend.width()), round(self.legend.height()),
                round(vb.width()), round(vb.height()))

    def _decide(self) -> str | None:
        legend, vb = self.legend, self.plot.vb
        if not self.entries() or not legend.isVisible():
            if self.where == OUTSIDE:      # give the room below back
                self._go_inside(self.prefer[0])
            return self.where
        if self.where == OUTSIDE:
            self._go_inside(self.where_inside or self.prefer[0])
        self._settle()                     # the range and the matrix of this size, now
        size = legend.boundingRect()
        area = vb.boundingRect()
        if area.width() < 4 or area.height() < 4:
            return self.where
        points, rects = self.data_geometry()
        for name in self.prefer:
            if self._fits(name, size, area) and not covered(
                    self._corner_rect(name, size, area), points, rects):
                if self.where != name:
                    self._go_inside(name)
                return name
        self._go_outside()
        self._settle()
        return OUTSIDE

    def _settle(self) -> None:
        """Lay the plot out until its view box keeps its size, now.

        One ``activate()`` is not enough: an axis resized by it fits its label again
        (``viz.axis_label``: wrapped over more lines on a shorter axis) and asks for a
        new thickness, which the layout applied only at the next turn of the event loop.
        The placement was then recorded for a view box that was about to change: with
        the legend below, the graph tab's communities plot (1280x800) wrapped its left
        label and lost 27 px of width a turn later, the placement ran again, went inside
        and out, and so on four times a second for ever."""
        vb = self.plot.vb
        size = None
        for _ in range(SETTLE_ROUNDS):
            self.plot.layout.activate()
            vb.prepareForPaint()
            now = (round(vb.width()), round(vb.height()),
                   round(self.plot.width()), round(self.plot.height()))
            if now == size:
                break
            size = now

    # -- geometry ----------------------------------------------------------------------
    def _fits(self, name: str, size: QRectF, area: QRectF) -> bool:
        return (size.width() + 2 * self.margin <= area.width()
                and size.height() + 2 * self.margin <= 0.6 * area.height())

    def _corner_rect(self, name: str, size: QRectF, area: QRectF) -> QRectF:
        (ix, iy), _parent, (sx, sy) = CORNERS[name]
        x = area.left() + self.margin if ix == 0 else area.right() - self.margin - size.width()
        y = area.top() + self.margin if iy == 0 else area.bottom() - self.margin - size.height()
        # a little air around the box: a point touching its border reads as covered
        return QRectF(x - 2, y - 2, size.width() + 4, size.height() + 4)

    def _room_below(self) -> float:
        return self.legend.boundingRect().height() + 4

    # -- moves -------------------------------------------------------------------------
    def _columns(self, n: int) -> None:
        if getattr(self.legend, "columnCount", 1) != n:
            self.legend.setColumnCount(n)

    def _wrap_labels(self, width: float | None) -> None:
        """Wrap the entries' names wider than ``width`` pixels onto more lines (None:
        each on one line again)."""
        for _, label in self.legend.items:
            text = label.item
            want = -1.0
            if width is not None:
                text.setTextWidth(-1)
                if text.boundingRect().width() > width:
                    want = float(width)
            if text.textWidth() != want:
                text.setTextWidth(want)
            label.updateMin()
            label.updateGeometry()             # the legend's grid takes the new size

    def _go_inside(self, name: str) -> None:
        item_pos, parent_pos, (sx, sy) = CORNERS[name]
        self._wrap_labels(None)
        self.plot.layout.setContentsMargins(*self._base_margins)
        if self.legend.parentItem() is not self.plot.vb:
            self.legend.setParentItem(self.plot.vb)
        self._columns(self.inside_columns)
        self._size = (round(self.legend.width()), round(self.legend.height()))
        self.legend.anchor(itemPos=item_pos, parentPos=parent_pos,
                           offset=(sx * self.margin, sy * self.margin))
        self.where = self.where_inside = name

    def _go_outside(self) -> None:
        legend = self.legend
        if legend.parentItem() is not self.plot:
            legend.setParentItem(self.plot)
        self._wrap_labels(None)
        widths = [sample.boundingRect().width() + label.itemRect().width() + 12
                  for sample, label in legend.items]
        # the figure's width (a plot shrunk to its data's shape, centred in its view,
        # leaves the view's whole width to the legend below it)
        view = self.plot.getViewWidget()
        width = self.plot.boundingRect().width()
        if view is not None and getattr(view, "fit_box", False):
            width = max(width, view.viewport().width())
        avail = max(40.0, width - 8)
        cols = max(1, min(len(widths), int(avail // max(1.0, max(widths, default=1.0)))))
        self._columns(cols)
        if cols == 1 and max(widths, default=0.0) > avail:
            # one entry wider than the figure even alone: its name wraps (it was cut at
            # the figure's edge: the flows tab's "… the lowest NLL possible")
            samples = max(sample.boundingRect().width() for sample, _ in legend.items)
            wrap = max(40.0, avail - samples - 12)
            for _ in range(2):      # then less by what the legend's margins add
                self._wrap_labels(wrap)
                # the grid stretched each entry to the legend's old width: shrink it first
                legend.setGeometry(0, 0, 0, 0)
                legend.layout.activate()
                legend.updateSize()
                if legend.width() <= avail:
                    break
                wrap = max(40.0, wrap - (legend.width() - avail))
        legend.updateSize()
        self._size = (round(legend.width()), round(legend.height()))
        left, top, right, bottom = self._base_margins
        self.plot.layout.setContentsMargins(left, top, right,
                                            bottom + math.ceil(self._room_below()))
        legend.anchor(itemPos=(0.5, 1), parentPos=(0.5, 1), offset=(0, -2))
        self.where = OUTSIDE
        self._keep_data_room()

    def _keep_data_room(self) -> None:
        """A tall legend below a short plot left no room for the data: the view asks for
        the height it needs (its grid scrolls). Only ever grown, so the placement
        does not swing between two sizes."""
        view = self.plot.getViewWidget()
        if view is None:
            return
        axes = self.plot.height() - self.plot.vb.height() - self._room_below()
        need = math.ceil(self._room_below() + max(0.0, axes) + MIN_DATA_HEIGHT)
        if view.minimumHeight() < need:
            view.setMinimumHeight(need)


def release_anchors(scene) -> None:
    """Before a window is deleted: legends stop following the item they are anchored to.
    A legend's geometry changes while its entries are deleted, and pyqtgraph's anchor
    then asked its view box, already half deleted, for its size ("Internal C++ object
    (ViewBox) already deleted", raised inside Qt's teardown)."""
    if scene is None:
        return
    for item in scene.items():
        if isinstance(item, pg.GraphicsWidgetAnchor):
            with contextlib.suppress(RuntimeError):
                item._GraphicsWidgetAnchor__parent = None   # noqa: SLF001 - pyqtgraph's


def place_waiting(scene) -> int:
    """Place now every legend of ``scene`` whose placement waits for the event loop (its
    data or its view changed in this turn); returns how many were placed. An export
    calls it so that the figure shows what the window is about to show."""
    placed = 0
    for placer in list(_PLACERS):
        if not isValid(placer) or not placer._timer.isActive():
            continue
        plot = placer.plot
        if isValid(plot) and plot.scene() is scene:
            placer.place()
            placed += 1
    return placed


def keep_clear(plot: pg.PlotItem, legend: pg.LegendItem, **kwargs) -> KeepClear:
    """Attach a ``KeepClear`` placer to ``legend`` (parented to the legend's plot)."""
    return KeepClear(plot, legend, **kwargs)


# -- the entries' grid --------------------------------------------------------------------


def _cell(item) -> tuple[float, float]:
    hint = item.effectiveSizeHint(Qt.SizeHint.PreferredSize)
    return hint.width(), hint.height()


def lay_out(legend: pg.LegendItem) -> None:
    """Entry i of ``legend`` in row i // columns, column i % columns (a sample and its
    name each), from an empty grid, and the legend as wide as its columns are.

    pyqtgraph fills a multi-column legend from the grid's old column count (which a
    QGraphicsGridLayout never lowers) and sums the entries' *current* widths row by row:
    after a change of columns the entries landed in the wrong cells, and the width
    grew on every re-layout (a 4-column legend of 11 short names took 667 px, its title's
    cell 405 px); centred below the graph tab's football graph, it ran past both edges
    of the view ("uvain", columns missing)."""
    grid = legend.layout
    for i in range(grid.count() - 1, -1, -1):
        grid.removeAt(i)
    columns = max(1, int(getattr(legend, "columnCount", 1)))
    for i, (sample, label) in enumerate(legend.items):
        row, col = divmod(i, columns)
        grid.addItem(sample, row, 2 * col, alignment=Qt.AlignmentFlag.AlignVCenter)
        grid.addItem(label, row, 2 * col + 1)
    legend.rowCount = max(1, math.ceil(len(legend.items) / columns))
    _fit_size(legend)


def _fit_size(legend: pg.LegendItem) -> None:
    """The legend's size: each grid column as wide as its widest entry, each row as high
    as its highest, with the grid's spacing and margins (pyqtgraph summed the entries'
    current widths row by row)."""
    if legend.size is not None:
        return
    columns = max(1, int(getattr(legend, "columnCount", 1)))
    widths = [0.0] * (2 * min(columns, max(1, len(legend.items))))
    heights: dict[int, float] = {}
    for i, (sample, label) in enumerate(legend.items):
        row, col = divmod(i, columns)
        for j, item in ((2 * col, sample), (2 * col + 1, label)):
            w, h = _cell(item)
            widths[j] = max(widths[j], w)
            heights[row] = max(heights.get(row, 0.0), h)
    grid = legend.layout
    left, top, right, bottom = grid.getContentsMargins()
    width = sum(widths) + grid.horizontalSpacing() * (len(widths) - 1) + left + right
    height = (sum(heights.values()) + grid.verticalSpacing() * max(0, len(heights) - 1)
              + top + bottom) if heights else 0.0
    grid.invalidate()
    legend.setGeometry(0, 0, math.ceil(width), math.ceil(height))


@contextlib.contextmanager
def one_layout(legend: pg.LegendItem):
    """Entries added and removed inside are laid out once, at the end (``lay_out`` per
    entry made a plot's new legend of n curves O(n²): 141 layouts, 0.17 s of an Open
    session's 1.4 s under the profiler)."""
    if getattr(legend, "_archscope_deferred", False):
        yield
        return
    legend._archscope_deferred, legend._archscope_dirty = True, False
    try:
        yield
    finally:
        legend._archscope_deferred = False
        if legend._archscope_dirty:
            lay_out(legend)


def _deferred(legend: pg.LegendItem) -> bool:
    """True (and the legend marked to be laid out) inside ``one_layout``."""
    if getattr(legend, "_archscope_deferred", False):
        legend._archscope_dirty = True
        return True
    return False


def install() -> None:
    """Every ``pg.LegendItem`` lays its entries out with ``lay_out`` (once per process)."""
    cls = pg.LegendItem
    if getattr(cls._addItemToLayout, "_archscope_grid", False):
        return

    def add_to_layout(self, sample, label):
        if not _deferred(self):
            lay_out(self)

    def set_column_count(self, column_count):
        if column_count != self.columnCount:
            self.columnCount = column_count
            if not _deferred(self):
                lay_out(self)

    def update_size(self):
        if not _deferred(self):
            _fit_size(self)

    remove = cls.removeItem

    def remove_item(self, item):
        remove(self, item)
        if not _deferred(self):
            lay_out(self)      # the entries after it close the gap

    add_to_layout._archscope_grid = True
    add_to_layout.__wrapped__, set_column_count.__wrapped__ = (cls._addItemToLayout,
                                                               cls.setColumnCount)
    update_size.__wrapped__, remove_item.__wrapped__ = cls.updateSize, remove
    cls._addItemToLayout, cls.setColumnCount = add_to_layout, set_column_count
    cls.updateSize, cls.removeItem = update_size, remove_item
