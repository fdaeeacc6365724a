"""A figure's PNG painted in horizontal strips and written while it is painted.

A PNG 20,000 pixels wide was one ``QImage`` of 1.6 GB, then Qt's encoder (2.4 GB in
the headless export, 17 s with the window frozen). Here the figure is painted a strip
of rows at a time (:class:`PngStrips`, at most :data:`STRIP_BYTES` each) into a small
``QImage``, and each strip goes to :class:`viz.png_writer.PngWriter`, which filters and
deflates it into the file. Painting touches the scene and stays on the GUI thread;
encoding (:func:`encode`) may run in a worker. :func:`write_png` does both at once for
a caller that may block (the headless export, the tests); the window runs the same two
halves as a background job (``app.png_export``).

A strip is the whole figure painted with the painter shifted up by the strip's top:
the same transformation, clip and pens as one large image, only the device is
shorter. A figure that fits one strip (up to about 1,000 x 1,000 pixels) is painted
exactly as the one image was before. In strips, Qt's antialiasing of a line or a glyph
crossing a strip's edge can differ by a few levels (a line end by a pixel); beyond
that, two things depend on where a strip begins and are made not to:

* dashes: Qt leaves out the dashes of a wide pen outside the device and starts the
  pattern afresh where a line enters it, so a dashed line came out dashed differently
  in every strip. :class:`WidePenPainter` dashes such a line itself, in the figure's
  pixels (``QPainterPathStroker``), and fills the outline;
* cost: a strip paints only what it reaches (``viz.figure.paint_scene`` skips the
  items outside it, a scatter's points outside it, a heatmap's cells outside it; a
  long line is cut to the strip), and what every strip would work out again (heatmap
  cells, axis ticks) is kept in :attr:`PngStrips.cache`, so a strip of a few rows is
  quick.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import BinaryIO

import numpy as np
from PySide6.QtCore import QLine, QLineF, QPoint, QPointF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QImage,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsView, QWidget

from viz.figure import FigureError, _Figure, _paint_on, _WidePenPainter
from viz.png_writer import PngWriter

#: the most bytes a strip holds (ARGB32): 4 MiB, 52 rows of a 20,000-px figure and the
#: whole of a figure up to about 1,000 x 1,000 pixels; painting one takes some 10-50 ms
STRIP_BYTES = 4 << 20
#: what a strip is painted on. A figure is opaque (white first), and on an opaque image
#: RGB32 blends exactly as ARGB32 does, without its conversion of every span to and from
#: premultiplied colours: 50,000 long edges took 1.5 s to paint on ARGB32, 0.2 s here
STRIP_FORMAT = QImage.Format.Format_RGB32
#: the PNG widths the export takes, in pixels
MIN_WIDTH, MAX_WIDTH = 16, 20000


class PngStrips:
    """The PNG of ``widget`` (a ``ViewPanel``, a pyqtgraph view or a whole tab) at
    ``width`` pixels, or ``scale`` times its size on screen (default 2), the height
    keeping the aspect ratio; painted by :meth:`paint`, strip by strip."""

    def __init__(self, widget: QWidget | _Figure, width: int | None = None,
                 scale: float | None = None, strip_bytes: int = STRIP_BYTES) -> None:
        self.fig = widget if isinstance(widget, _Figure) else _Figure(widget)
        logical = self.fig.size()
        out_w = png_width(logical.width(), width, scale)
        self.factor = out_w / logical.width()
        self.size = QSize(out_w, max(1, round(logical.height() * self.factor)))
        #: at the size on screen, scatter symbols come from pyqtgraph's pixel atlas as
        #: the window draws them: the graph tab's 10,000 nodes were painted as a path
        #: each, 3.4x the time (580 against 170 ms) and further from the window (mean
        #: |PNG - window| 0.019 against 0.0001); enlarged, they stay paths, sharp
        self.screen_size = abs(self.factor - 1.0) < 1e-9
        # the screen's DPI: the PNG is the view enlarged, not the view printed smaller
        dpm = round(self.fig.dpi / 0.0254)
        self.dots_per_meter = (dpm, dpm)
        self.rows = max(1, min(self.size.height(), strip_bytes // (4 * out_w)))
        # what every strip would work out again (heatmap cells, axis ticks): the figure
        # must not change while its strips are painted
        self.cache: dict = {}

    def spans(self) -> list[tuple[int, int]]:
        """(top, rows) of every strip, top to bottom."""
        height = self.size.height()
        return [(top, min(self.rows, height - top)) for top in range(0, height, self.rows)]

    def scenes(self) -> list:
        """The scenes the figure shows (a change in one of them changes the figure)."""
        fig = self.fig
        views = [fig.scene_view] if fig.scene_view is not None else \
            fig.widget.findChildren(QGraphicsView)
        return [v.scene() for v in views if v.scene() is not None]

    def paint(self, top: int, rows: int) -> QImage:
        """Rows ``top`` to ``top + rows`` of the PNG (RGB32). GUI thread only."""
        image = QImage(QSize(self.size.width(), rows), STRIP_FORMAT)
        image.fill(QColor("white"))
        fig = self.fig
        if fig.scene_view is not None:
            # the scene enlarged, with every cosmetic (1-px) pen enlarged too, as the
            # SVG's strokes are when it is shown at this size
            def paint(painter: QPainter) -> None:
                painter.translate(0, -top)
                fig.paint(painter, vector_cells=True, upsample=False, scale=self.factor,
                          cache=self.cache, vector_symbols=not self.screen_size)

            # one strip for the whole figure: Qt's own dashes, exactly as before strips
            dashes = rows < self.size.height()
            _paint_on(image, paint, WidePenPainter(self.factor, top, dashes))
        else:
            # a whole tab: painted at a device pixel ratio, so text and widgets scale
            # together
            def paint(painter: QPainter) -> None:
                painter.translate(0, -top / self.factor)
                fig.paint(painter, vector_cells=False, upsample=False)

            image.setDevicePixelRatio(self.factor)
            _paint_on(image, paint)
            image.setDevicePixelRatio(1.0)
        return image


def png_width(logical_width: int, width: int | None = None,
              scale: float | None = None) -> int:
    """The PNG's width in pixels: ``width``, or ``scale`` (default 2) times the view's
    ``logical_width``; FigureError, naming what was asked, if that is not a width from
    MIN_WIDTH to MAX_WIDTH (a NaN, an infinite or a negative scale included)."""
    if width is not None:
        if not MIN_WIDTH <= width <= MAX_WIDTH:
            raise FigureError(f"The PNG width must be between {MIN_WIDTH} and {MAX_WIDTH} "
                              f"pixels, got {width}.")
        return int(width)
    factor = 2.0 if scale is None else float(scale)
    wide = logical_width * factor
    if not MIN_WIDTH <= wide <= MAX_WIDTH:      # False for NaN too
        made = (f"makes the PNG {wide:.0f} pixels wide" if np.isfinite(wide) and wide > 0
                else "gives no PNG size")
        raise FigureError(
            f"A scale of {factor:g} {made}; use a scale from {MIN_WIDTH / logical_width:.3g}"
            f" to {MAX_WIDTH / logical_width:.3g} for this view ({logical_width} pixels wide"
            f" on screen; a PNG is {MIN_WIDTH} to {MAX_WIDTH} pixels wide).")
    return round(wide)


def rgba(image: QImage) -> np.ndarray:
    """The pixels of ``image`` as uint8[height, width, 4] (R, G, B, A), a copy. Any
    thread."""
    converted = image.convertToFormat(QImage.Format.Format_RGBA8888)
    # a view of the image's memory, which lives only as long as ``converted``: copied
    bits = np.frombuffer(converted.constBits(), np.uint8, count=converted.sizeInBytes())
    rows = bits.reshape(converted.height(), converted.bytesPerLine())
    pixels = rows[:, : converted.width() * 4].reshape(converted.height(),
                                                       converted.width(), 4).copy()
    del converted
    return pixels


def encode(fh: BinaryIO, strips: PngStrips, images: Iterable[QImage]) -> Iterator[int]:
    """Write the PNG of ``strips`` to ``fh`` from its strip ``images`` (in order);
    yields the rows written after each. Any thread: it touches no scene."""
    writer = PngWriter(fh, strips.size.width(), strips.size.height(),
                       strips.dots_per_meter)
    for image in images:
        writer.write_rows(rgba(image))
        yield writer.rows_written
    writer.finish()


def write_png(widget: QWidget | _Figure, path: str, width: int | None = None,
              scale: float | None = None) -> QSize:
    """Paint and write the PNG of ``widget`` to ``path``; returns its size. Strips are
    painted on this thread and encoded by a worker thread meanwhile, at most two
    waiting: memory holds a few strips, not the image."""
    strips = PngStrips(widget, width, scale)
    waiting: queue.Queue = queue.Queue(maxsize=2)
    failures: list[BaseException] = []
    ended = threading.Event()      # the encoder has taken the end marker

    def taken() -> Iterator[QImage]:
        while (image := waiting.get()) is not None:
            yield image
        ended.set()

    def encoder() -> None:
        try:
            with open(path, "wb") as fh:
                for _ in encode(fh, strips, taken()):
                    pass
        except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
            failures.append(exc)
            while not ended.is_set():   # take what is sent, so the painter never waits
                if waiting.get() is None:
                    ended.set()

    thread = threading.Thread(target=encoder, name="png-encoder", daemon=True)
    thread.start()
    try:
        for top, rows in strips.spans():
            if failures:
                break
            waiting.put(strips.paint(top, rows))
    finally:
        waiting.put(None)
        thread.join()
    if failures:
        raise failures[0]
    return strips.size


class WidePenPainter(_WidePenPainter):
    """``viz.figure``'s painter with cosmetic pens ``factor`` times as wide, for a strip
    whose first row is row ``top`` of the figure. With ``dashes`` (a figure in more
    than one strip), wide dashed lines are dashed here and long lines cut to the strip
    (see the module docstring)."""

    def __init__(self, factor: float, top: float = 0.0, dashes: bool = False) -> None:
        super().__init__(factor)
        self.top = top
        self.dashes = dashes

    def drawPath(self, path) -> None:  # noqa: N802 - Qt's name
        if not self._dash(path):
            super().drawPath(path)

    def drawLine(self, *args) -> None:  # noqa: N802 - Qt's name
        line = _line_of(args) if self.dashes else None
        if line is None:
            super().drawLine(*args)
            return
        pen = self.pen()
        if _wide_dashes(pen):
            self._dash(_path_of(line))
            return
        part = self._part_in_strip(line, pen)
        if part is not None:
            super().drawLine(part)

    def _part_in_strip(self, line: QLineF, pen: QPen) -> QLineF | None:
        """The part of ``line`` that reaches the strip, ends well outside it (None: no
        part). Qt rasterises a wide line whole, clipped or not: the head view's
        400 lines, each crossing the whole figure, took 0.5 s in every strip."""
        world = self.worldTransform()
        a, b = world.map(line.p1()), world.map(line.p2())
        width = pen.widthF() if pen.isCosmetic() else pen.widthF() * max(
            abs(world.m11()) + abs(world.m21()), abs(world.m12()) + abs(world.m22()))
        margin = max(width, 1.0) + 4.0
        device = self.device()
        lo = (-margin, -margin)
        hi = (device.width() + margin, device.height() + margin)
        t0, t1 = 0.0, 1.0
        for start, delta, low, high in ((a.x(), b.x() - a.x(), lo[0], hi[0]),
                                        (a.y(), b.y() - a.y(), lo[1], hi[1])):
            if delta == 0.0:
                if not low <= start <= high:
                    return None
                continue
            enter, leave = sorted(((low - start) / delta, (high - start) / delta))
            t0, t1 = max(t0, enter), min(t1, leave)
            if t0 > t1:
                return None
        if t0 == 0.0 and t1 == 1.0:
            return line
        return QLineF(line.pointAt(t0), line.pointAt(t1))

    def _dash(self, path: QPainterPath) -> bool:
        """Draw ``path`` with the pen set if that is a wide dashed cosmetic pen, its
        dashes laid out in the figure's pixels; False (nothing drawn) for other pens."""
        pen = self.pen()
        if not self.dashes or not _wide_dashes(pen):
            return False
        to_figure = self.worldTransform() * QTransform.fromTranslate(0, self.top)
        outline = QPainterPathStroker(pen).createStroke(to_figure.map(path))
        self.save()
        self.setWorldTransform(QTransform.fromTranslate(0, -self.top))
        super().setPen(Qt.PenStyle.NoPen)
        self.setBrush(pen.brush())
        super().drawPath(outline)
        self.restore()
        return True


def _wide_dashes(pen: QPen) -> bool:
    """A dashed cosmetic pen wider than a pixel (Qt's stroker dashes it per device)."""
    return (pen.style() not in (Qt.PenStyle.SolidLine, Qt.PenStyle.NoPen)
            and pen.isCosmetic() and pen.widthF() > 1.0)


def _line_of(args: tuple) -> QLineF | None:
    """The line of ``QPainter.drawLine``'s arguments (any of its overloads)."""
    if len(args) == 2 and isinstance(args[0], QPointF) and isinstance(args[1], QPointF):
        return QLineF(args[0], args[1])
    if len(args) == 1 and isinstance(args[0], (QLineF, QLine)):
        return QLineF(args[0])
    if len(args) == 2 and all(isinstance(a, (QPointF, QPoint)) for a in args):
        return QLineF(QPointF(args[0]), QPointF(args[1]))
    if len(args) == 4 and all(isinstance(a, (int, float)) for a in args):
        return QLineF(*(float(a) for a in args))
    return None


def _path_of(line: QLineF) -> QPainterPath:
    path = QPainterPath(line.p1())
    path.lineTo(line.p2())
    return path
