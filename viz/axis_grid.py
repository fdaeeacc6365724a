"""Grid lines drawn as one image instead of one translucent line each, on screen.

pyqtgraph draws a plot's grid as its axes' tick lines stretched across the view, in
translucent colours (``showGrid(alpha=…)``, fainter for the minor levels). Qt's raster
engine blends an aliased translucent line one pixel at a time: 60 such lines across a
1100 × 400 view took 6-14 ms against 0.2 ms opaque (``/tmp/dyn/lines2.py`` in the
issue 18 notes), and a grid was most of a plot's repaint. The flows tab's views spent
45 of their 70 ms repainting on it, and every training step repaints a curve's grid.

Here the grid lines of an axis, which all share one span across the view, are painted
once into a strip one pixel deep (each line's colour at its pixel, blended as the lines
would be where two meet) and that strip is drawn stretched over the span, which Qt does
a whole row at a time (0.3 ms for the same 60 lines). Pixel for pixel the result is the
lines' (``tests/test_axis_grid.py`` compares them).

Only the on-screen path takes it: ``AxisItem.paint`` records its drawing into a
``QPicture`` (recorded again when the axis lands on other pixels), and this looks for
that device under a pure translation. Figure exports never replay that picture: they
paint axes through ``drawPicture`` on their own device (``viz.figure._paint_axis``) and
keep real lines, which SVG and PDF need; so does a pen that is not a plain solid line
one pixel wide.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPicture, QTransform

__all__ = ["install", "grid_strips"]

#: the longest strip drawn (pixels); a grid spanning more keeps its lines
MAX_STRIP = 1 << 15
#: device transforms under which a picture's whole pixels are known
_MOVES = (QTransform.TransformationType.TxNone, QTransform.TransformationType.TxTranslate)


def _plain(pen: QPen) -> bool:
    """A solid line one pixel wide (a cosmetic pen of width 0 or 1)."""
    return (pen.style() == Qt.PenStyle.SolidLine and pen.isCosmetic() and
            pen.widthF() <= 1.0 and pen.brush().style() == Qt.BrushStyle.SolidPattern)


def grid_strips(tick_specs, vertical: bool, offset: tuple[float, float] = (0.0, 0.0)):
    """``(strips, rest)``: the tick specs ``(pen, p1, p2)`` that are plain lines across
    the tick direction (vertical lines for a bottom or top axis), grouped by their span,
    as ``(image, rect)`` pairs to draw; the other specs as they were. ``offset``: the
    device position of the specs' origin (the painter only translates)."""
    groups: dict[tuple[float, float], list] = defaultdict(list)
    rest = []
    for spec in tick_specs:
        pen, p1, p2 = spec
        at, other, start, stop = ((p1.x(), p2.x(), p1.y(), p2.y()) if vertical else
                                  (p1.y(), p2.y(), p1.x(), p2.x()))
        if (at == other and start != stop and _plain(pen) and
                all(math.isfinite(v) for v in (at, start, stop))):
            groups[(min(start, stop), max(start, stop))].append((at, pen.color(), spec))
        else:
            rest.append(spec)
    across, along = offset if vertical else offset[::-1]
    strips = []
    for (start, stop), lines in groups.items():
        # Qt's aliased one-pixel line from (x, y0) to (x, y1) in device coordinates
        # lights column floor(x), rows floor(y0) to floor(y1) (measured); so does the
        # strip, placed on whole device pixels
        pixels = [(math.floor(at + across), colour) for at, colour, _ in lines]
        first = min(k for k, _ in pixels)
        size = max(k for k, _ in pixels) - first + 1
        top = math.floor(start + along)
        length = math.floor(stop + along) + 1 - top
        if max(size, length) > MAX_STRIP:
            rest.extend(spec for _, _, spec in lines)
            continue
        image = QImage(size if vertical else 1, 1 if vertical else size,
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        for k, colour in pixels:          # source-over, as the lines are drawn
            painter.fillRect(k - first if vertical else 0, 0 if vertical else k - first, 1, 1,
                             QColor(colour))
        painter.end()
        x, y = first - across, top - along
        rect = (QRectF(x, y, size, length) if vertical else QRectF(y, x, length, size))
        strips.append((image, rect))
    return strips, rest


def install() -> None:
    """``AxisItem.drawPicture`` draws a grid's lines as strips when it records the
    axis's on-screen picture (once per process)."""
    paint, draw = pg.AxisItem.paint, pg.AxisItem.drawPicture
    if getattr(draw, "_archscope_strips", False):
        return

    def paint_axis(self, p, opt, widget):
        # where the picture recorded now lands on the device: whole pixels are only
        # known there (a pure translation; any other transform keeps the lines)
        device = p.deviceTransform()
        offset = ((device.dx(), device.dy()) if device.type() in _MOVES and
                  math.isfinite(device.dx()) and math.isfinite(device.dy()) else None)
        # a picture recorded for other pixels (the axis moved by a fraction of a pixel
        # without a resize, another screen's pixel ratio) is recorded again
        where = None if offset is None else (offset[0] % 1.0, offset[1] % 1.0)
        if getattr(self, "_archscope_recorded_at", where) != where:
            self.picture = None
        if self.picture is None:
            self._archscope_recorded_at = where
        self._archscope_offset = offset
        try:
            return paint(self, p, opt, widget)
        finally:
            self._archscope_offset = None

    def draw_picture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N803 - pyqtgraph's
        offset = getattr(self, "_archscope_offset", None)
        if self.grid is False or offset is None or not isinstance(p.device(), QPicture):
            return draw(self, p, axisSpec, tickSpecs, textSpecs)
        strips, rest = grid_strips(tickSpecs, self.orientation in ("top", "bottom"), offset)
        p.save()
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for image, rect in strips:
            p.drawImage(rect, image)
        p.restore()
        return draw(self, p, axisSpec, rest, textSpecs)

    paint_axis.__wrapped__, draw_picture.__wrapped__ = paint, draw
    draw_picture._archscope_strips = True
    pg.AxisItem.paint, pg.AxisItem.drawPicture = paint_axis, draw_picture
