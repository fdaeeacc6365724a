"""Level of detail for a canvas whose edges cost more to draw than a frame allows.

Drawing 50,000 long edges (a hairball: every edge ~400 px on screen, the view covered
some twenty times over) takes QPainter's raster engine 100-150 ms on this machine,
whichever pen or path is used, so every pan or zoom frame and every hover repaint took
that long. ``EdgeLayer`` paints all the canvas's edge items into one image of the view
and shows that image:

* while nothing moves, the image is drawn one to one: the same pixels as the items,
  and a hover or a node recolour repaints in a few milliseconds instead of redrawing
  every edge;
* during a pan or zoom, the last image is drawn moved and scaled with the view (it
  goes soft when zoomed in), and the edges are drawn afresh, sharp, once the view has
  been still for ``SETTLE_MS``, as map viewers and Cytoscape's ``hideEdgesOnViewport``
  do;
* when the edges change (colours, a highlight, positions) the image is drawn afresh at
  the next paint. Where drawing them all would take longer than a frame
  (``FRAME_MS``, from the raster engine's measured cost, ``drawing_ms``) and the items on
  top already cover the view ``COVER_TIMES`` over, only those items are drawn at once
  and the ones under them once the edges have been still for ``SETTLE_MS``: a stream of
  new values (training, stepping through heads) stays fluid and ends sharp. The cover
  is counted over the whole view, so lines bunched in a dense core leave more to show
  than it says: when the sharp image differs from the part drawn before it in more than
  ``HIDDEN_MAX`` of its pixels (measured, 1 % for a 50,000-edge hairball of random
  pairs, 2.5-4 % for a Gaussian blob), that view draws every change whole again.

The image is drawn on the GUI thread. A worker thread was tried and measured: PySide
keeps the interpreter during ``drawLines`` (and ``drawPicture``), so the worker took it
from the GUI thread in every gap and the node scatter's paint went from 17 to 150 ms
while it drew, worse than drawing the edges at once. The raster engine's time goes per
pixel of line (8-15 ns here; lines half as long take half as long, and pens wider than
1.4 px about twice as long): a lower resolution would be faster but no longer the
items' own pixels, as exports draw them.

The layer takes over only for ``MIN_SEGMENTS`` segments or more whose on-screen length
(each counted up to the view's diagonal) exceeds ``LAYER_MIN_PX`` (``heavy``); below it
the items paint themselves, as before. It paints only for the screen (``on_screen``):
in exports, and in a whole tab rendered to a file, the items paint their own lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt.internals import PrimitiveArray
from PySide6.QtCore import QLineF, QPointF, QRectF, QTimer
from PySide6.QtGui import QImage, QPaintEngine, QPainter, QPen, QTransform

__all__ = ["COVER_TIMES", "EdgeLayer", "FRAME_MS", "HIDDEN_MAX", "LAYER_MIN_PX", "MIN_SEGMENTS", "SETTLE_MS",
           "drawing_ms", "heavy", "on_screen", "parts_now", "visible_lengths"]

#: the edges' total on-screen length (pixels) above which they are drawn as one image:
#: half a million pixels of aliased lines take about 10 ms to draw here
LAYER_MIN_PX = 5e5
#: ... and only with at least this many segments: a few long lines cost little
MIN_SEGMENTS = 5000
#: a pan or zoom (or a change of the edges drawn in part) is taken as finished when the
#: view has not moved (nor the edges changed) for this long
SETTLE_MS = 150
#: the most a change of the edges may take to draw at once, in full (``parts_now``) ...
FRAME_MS = 20.0
#: ... else the items on top are drawn alone if they cover the view this many times over
COVER_TIMES = 8.0
#: ... unless a part drawn so in this view differed from the sharp image after it in
#: more than this share of the pixels
HIDDEN_MAX = 0.015
#: the estimates take every k-th segment of an item, this many in all
ESTIMATE_SEGMENTS = 2000
#: the raster engine's cost of aliased lines here (fitted to 40 items of 1,000-25,000
#: segments, 18-360 px long, within 10-25 %): per segment, and per device pixel of line
#: for pens up to 1 px (drawn a pixel at a time) and wider ones (a span a scanline)
SEGMENT_NS, THIN_PX_NS, WIDE_PX_NS = 170.0, 12.0, 4.9


def _key(t: QTransform, w: int, h: int, ratio: float) -> tuple[float, ...]:
    return (round(t.m11(), 9), round(t.m12(), 9), round(t.m21(), 9), round(t.m22(), 9),
            round(t.dx(), 3), round(t.dy(), 3), w, h, ratio)


def on_screen(p: QPainter) -> bool:
    """Whether ``p`` paints the view on screen (or a grab of it): the raster engine at
    the device's own pixel ratio. A whole tab exported to SVG or PDF (another engine),
    or to a PNG at twice the size (``QWidget.render`` with a larger ratio), is not: there
    the edge items paint their own lines, as in any export."""
    engine = p.paintEngine()
    device = p.device()
    if engine is None or device is None or engine.type() != QPaintEngine.Type.Raster:
        return False
    world, dev = p.worldTransform(), p.deviceTransform()
    w = np.hypot(world.m11(), world.m12())
    return bool(w > 0 and abs(np.hypot(dev.m11(), dev.m12()) / w
                              - device.devicePixelRatioF()) < 1e-6)


def render_edges(parts: Sequence[tuple[QPen, np.ndarray]], transform: QTransform,
                 size: tuple[int, int], ratio: float) -> QImage:
    """An image of ``size`` device pixels (``ratio`` per logical pixel) with the line
    segments of ``parts`` ((pen, float[2 m, 2] pairs of end points in data units), drawn
    in order) under ``transform`` (data -> logical device pixels), aliased, on a
    transparent background."""
    image = QImage(*size, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setWorldTransform(transform)
    _draw_lines(painter, parts)
    painter.end()
    return image


def _draw_lines(painter: QPainter, parts: Sequence[tuple[QPen, np.ndarray]]) -> None:
    lines = PrimitiveArray(QLineF, 4)
    for pen, points in parts:
        painter.setPen(pen)
        lines.resize(len(points))
        lines.ndarray()[:] = points.reshape(-1, 4)
        painter.drawLines(*lines.drawargs())


def visible_lengths(points: np.ndarray, transform: QTransform, width: float,
                    height: float) -> np.ndarray:
    """The on-screen length of each segment of ``points`` (float[m, 2, 2], data units)
    under ``transform`` (data -> pixels): the part inside the ``width`` x ``height`` view
    (Liang-Barsky clipping for the segments with an end outside it), in pixels."""
    x, y = points[..., 0], points[..., 1]
    px = transform.m11() * x + transform.m21() * y + transform.dx()
    py = transform.m12() * x + transform.m22() * y + transform.dy()
    dx, dy = px[:, 1] - px[:, 0], py[:, 1] - py[:, 0]
    lengths = np.hypot(dx, dy)
    out = ~((px >= 0) & (px <= width) & (py >= 0) & (py <= height)).all(axis=1)
    if out.any():
        x0, y0, dx, dy = px[out, 0], py[out, 0], dx[out], dy[out]
        t0, t1 = np.zeros(len(x0)), np.ones(len(x0))
        with np.errstate(divide="ignore", invalid="ignore"):
            for p, q in ((-dx, x0), (dx, width - x0), (-dy, y0), (dy, height - y0)):
                r = q / p
                t0 = np.where(p < 0, np.maximum(t0, r), t0)
                t1 = np.where(p > 0, np.minimum(t1, r), t1)
                t1 = np.where((p == 0) & (q < 0), -1.0, t1)   # parallel and outside
        lengths[out] *= np.clip(t1 - t0, 0.0, None)
    return lengths


def _pen_px(pen: QPen, transform: QTransform, ratio: float) -> float:
    """The width of ``pen``'s lines in device pixels (at least 1: an aliased line)."""
    width = pen.widthF()
    if not pen.isCosmetic():
        width *= float(np.sqrt(abs(transform.determinant())))
    return max(1.0, width * ratio)


def drawing_ms(parts: Sequence[tuple[QPen, np.ndarray]], transform: QTransform,
               size: tuple[float, float], ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``parts`` (as ``render_edges`` takes them, ``size`` in logical
    pixels): the predicted time (ms) the raster engine takes to draw it, and how many
    times over its lines cover the view."""
    w, h = size
    times, covers = [], []
    for pen, points in parts:
        some = points[::max(1, len(points) // ESTIMATE_SEGMENTS)]
        pixels = float(visible_lengths(some, transform, w, h).sum()) * ratio \
            * len(points) / max(1, len(some))
        pen_px = _pen_px(pen, transform, ratio)
        per_px = THIN_PX_NS if pen_px <= 1.0 else WIDE_PX_NS
        times.append((len(points) * SEGMENT_NS + pixels * per_px) * 1e-6)
        covers.append(pixels * pen_px / max(1.0, w * h * ratio * ratio))
    return np.asarray(times), np.asarray(covers)


def parts_now(parts: Sequence[tuple[QPen, np.ndarray]], transform: QTransform,
              size: tuple[float, float], ratio: float) -> int:
    """How many of ``parts`` (bottom first), counted from the top, to draw at once after
    a change: all of them if that takes at most ``FRAME_MS``; else the fewest on top
    that cover the view ``COVER_TIMES`` over, if they take at most ``FRAME_MS``
    (the rest follow when the edges are still); else all (nothing would be hidden
    without being seen)."""
    times, covers = drawing_ms(parts, transform, size, ratio)
    if times.sum() <= FRAME_MS:
        return len(parts)
    top_times, top_covers = np.cumsum(times[::-1]), np.cumsum(covers[::-1])
    enough = np.flatnonzero(top_covers >= COVER_TIMES)
    if enough.size and top_times[enough[0]] <= FRAME_MS:
        return int(enough[0]) + 1
    return len(parts)


def heavy(lengths: np.ndarray, pixel: float, view_w: float, view_h: float) -> bool:
    """Whether segments of ``lengths`` (data units) cost more than a frame to draw in a
    ``view_w`` x ``view_h`` view of ``pixel`` data units a pixel: at least
    ``MIN_SEGMENTS`` of them, and over ``LAYER_MIN_PX`` pixels long in all, each counted
    up to the view's diagonal (what lies outside the view is clipped away cheaply)."""
    if len(lengths) < MIN_SEGMENTS or not pixel > 0:
        return False
    diagonal = float(np.hypot(view_w, view_h))
    return float(np.minimum(lengths / pixel, diagonal).sum()) > LAYER_MIN_PX


class EdgeLayer(pg.GraphicsObject):
    """The edge items of a ``GraphCanvas`` (``items()``, in any order) as one image of the
    view; see the module's docstring. Added to the view box with ``ignoreBounds``."""

    def __init__(self, items: Callable[[], Sequence[pg.PlotCurveItem]]) -> None:
        super().__init__()
        self._items = items
        self._active = False
        self._image: QImage | None = None
        self._drawn_with: tuple | None = None       # _key of the view it was drawn for
        self._transform = QTransform()               # data -> device when drawn
        self._version = 0                            # bumped when the edges change
        self._image_version = -1                     # the version the image shows
        self._full = False                           # the image has every item's lines
        self._part: QImage | None = None             # the last image drawn in part ...
        self._part_of: tuple | None = None           # ... for (version, view key)
        self._lossy: set[tuple] = set()              # views whose parts hid too much
        self._shown_for: tuple | None = None         # _key of the view last painted
        self._exporting = False                      # paints a screen-size PNG's edges
        self._drawn_items: tuple = ()                # _items_shown() when last drawn
        self._settle = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self.update)
        self.renders = 0                             # images drawn (for tests, benchmarks)
        self.part_differs: float | None = None       # the last part's share measured

    # -- state set by the canvas ----------------------------------------------------------
    def set_active(self, active: bool) -> None:
        """Take over the drawing of the edges (or give it back to the items)."""
        active = bool(active)
        for item in self._items():
            item.in_layer = active
        if active != self._active:
            self._active = active
            self._version += 1
            self._lossy.clear()
            if not active:
                self._image = self._part = None  # no memory held for a light graph
            self.prepareGeometryChange()
            self.update()

    def active(self) -> bool:
        return self._active

    def invalidate(self) -> None:
        """The edges changed: draw them afresh."""
        self._version += 1
        self.update()

    def view_moved(self) -> None:
        """The view was panned or zoomed: keep showing the last image, moved with the
        view, until it has been still for ``SETTLE_MS``."""
        if self._active:
            self._shown_for = None          # not painted at the new place yet
            self._settle.start()

    def settled(self) -> bool:
        """Whether the image on screen is sharp and up to date."""
        return not self._active or (self._image is not None and self._full
                                    and self._image_version == self._version
                                    and self._drawn_with == self._shown_for)

    def image(self) -> QImage | None:
        """The image last drawn (for tests, benchmarks)."""
        return self._image

    def setExportMode(self, export, opts=None):   # noqa: N802 - pyqtgraph's API
        """Hidden in exports, where the edge items paint their vector lines; but in a
        PNG at the size on screen (``opts["screen_pixels"]``) the layer paints every
        edge itself: its sharp image where the export's pixels are the screen's moved
        by whole pixels (the items' own pixels, drawn already: a 50,000-edge hairball's
        PNG took 2.4x Qt's grab of the view, drawing every line again), else the lines."""
        self._exporting = bool(export and self._active and isinstance(opts, dict)
                               and opts.get("screen_pixels"))
        for item in self._items():
            item.in_layer_export = self._exporting
        self.setVisible(not export or self._exporting)
        return super().setExportMode(export, opts)

    def _paint_export(self, p: QPainter) -> None:
        now = p.worldTransform()
        then = self._transform
        dx, dy = now.dx() - then.dx(), now.dy() - then.dy()
        device = p.device()
        if (self._image is not None and self._full and self._image_version == self._version
                and self._drawn_items == self._items_shown()
                and self._image.devicePixelRatio() == 1.0 and device is not None
                and device.devicePixelRatioF() == 1.0
                and all(abs(a - b) < 1e-9 for a, b in (
                    (now.m11(), then.m11()), (now.m12(), then.m12()),
                    (now.m21(), then.m21()), (now.m22(), then.m22())))
                and abs(dx - round(dx)) < 1e-6 and abs(dy - round(dy)) < 1e-6):
            p.save()
            p.resetTransform()
            p.drawImage(QPointF(round(dx), round(dy)), self._image)
            p.restore()
            return
        p.save()                            # not the screen's pixels: every line, now
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        _draw_lines(p, self._parts())
        p.restore()

    # -- QGraphicsItem ---------------------------------------------------------------------
    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        rect = self.viewRect() if self._active else None
        return QRectF(rect) if rect is not None else QRectF()

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        super().viewTransformChanged()      # drops pyqtgraph's cached viewRect()
        self.prepareGeometryChange()

    def paint(self, p: QPainter, *args) -> None:
        if self._exporting:
            self._paint_export(p)
            return
        if not self._active or not on_screen(p):
            return
        device = p.device()
        w, h = (device.width(), device.height()) if device is not None else (0, 0)
        if w <= 0 or h <= 0:
            return
        ratio = device.devicePixelRatioF()
        now = QTransform(p.worldTransform())
        key = self._shown_for = _key(now, w, h, ratio)
        if self._items_shown() != self._drawn_items:   # an item hidden or shown
            self._version += 1
        changed = self._image is None or self._image_version != self._version
        if changed or (not self._settle.isActive()
                       and (self._drawn_with != key or not self._full)):
            parts = self._parts()
            count = len(parts)
            if changed and key not in self._lossy:  # the top items alone if all is slow
                count = parts_now(parts, now, (w, h), ratio)
                if count < len(parts):
                    self._settle.start()    # ... and the rest when the edges are still
            self._image = render_edges(parts[len(parts) - count:], now,
                                       self._size(w, h, ratio), ratio)
            self._drawn_with, self._transform = key, now
            self._image_version, self._full = self._version, count == len(parts)
            self._drawn_items = self._items_shown()
            self.renders += 1
            self._judge_part(key)
        if self._drawn_with == key:
            p.save()
            p.resetTransform()
            p.drawImage(QPointF(0, 0), self._image)
            p.restore()
            return
        inverse, ok = self._transform.inverted()
        if ok:
            p.save()
            p.setWorldTransform(inverse * now)      # image pixels -> data -> device now
            p.drawImage(QPointF(0, 0), self._image)
            p.restore()

    def _judge_part(self, key: tuple) -> None:
        """Keep an image drawn in part; when the sharp one for the same edges and view
        follows, compare them, and draw every change of that view whole from then on if
        they differ in more than ``HIDDEN_MAX`` of the pixels."""
        if not self._full:
            self._part, self._part_of = self._image, (self._version, key)
            return
        part, self._part = self._part, None
        if part is not None and self._part_of == (self._version, key) \
                and part.size() == self._image.size():
            a = np.frombuffer(part.constBits(), np.uint32, part.width() * part.height())
            b = np.frombuffer(self._image.constBits(), np.uint32, a.size)
            self.part_differs = float(np.count_nonzero(a != b)) / max(1, a.size)
            if self.part_differs > HIDDEN_MAX:
                self._lossy.add(key)

    # -- rendering --------------------------------------------------------------------------
    def _items_shown(self) -> tuple:
        """Which edge items there are and which are visible (hiding one changes the
        edges drawn without a new version)."""
        return tuple((id(item), item.isVisible()) for item in self._items())

    @staticmethod
    def _size(w: int, h: int, ratio: float) -> tuple[int, int]:
        return max(1, int(np.ceil(w * ratio))), max(1, int(np.ceil(h * ratio)))

    def _parts(self) -> list[tuple[QPen, np.ndarray]]:
        """(pen, end points) of every visible edge item, bottom first."""
        parts = []
        for item in sorted(self._items(), key=lambda it: it.zValue()):
            x, y = item.xData, item.yData
            if item.isVisible() and x is not None and len(x) >= 2:
                n = len(x) // 2 * 2
                points = np.empty((n // 2, 2, 2))
                points[..., 0] = x[:n].reshape(-1, 2)
                points[..., 1] = y[:n].reshape(-1, 2)
                if not (np.isfinite(x[:n]).all() and np.isfinite(y[:n]).all()):
                    points = points[np.isfinite(points).all(axis=(1, 2))]
                parts.append((QPen(item.opts["pen"]), points))
        return parts
