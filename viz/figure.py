"""Render a view to PNG, SVG or PDF: the same figure in all three, as in the window.

A view's figure is its panel's title above the pyqtgraph scene (axes, axis labels,
token labels, legend, colour bar), at the sizes the window shows them. The scene is
painted once per format with pyqtgraph's export mode on (scatter symbols stay vector
paths):

* SVG: ``QSvgGenerator`` (SVG 1.1, so clipping is kept: a curve past the axis range
  does not spill over the axes), then :func:`viz.svg_post.fix_svg` makes it render
  the same in Qt, Chromium and librsvg (cosmetic strokes baked, images pixelated,
  portable font names);
* PNG: the same painting, enlarged by the asked-for factor, cosmetic (1-px) pens
  enlarged with it (``viz.figure_png.WidePenPainter``), so a PNG is the SVG at that
  size: text, legends (which ignore the view's transformations) and line widths keep
  their proportions. Painting the scene into a scaled QImage drew legend text at screen
  size (8 px beside 30-px node labels at 2x) and 1-px lines. (Rasterising the SVG with
  ``QSvgRenderer`` is no way round: it ignores ``clip-path``.) It is painted and
  written in strips of rows (:mod:`viz.figure_png`), never held whole.
* PDF: ``QPdfWriter`` at the view's logical DPI (fonts embedded by Qt).

Heatmaps: an ``ImageItem`` of at most :data:`MAX_VECTOR_CELLS` cells is drawn as one
filled rectangle per run of equal cells in a row (vector, crisp at any zoom, no
interpolation in any viewer); a larger image stays an image, pixelated in SVG and
upsampled nearest-neighbour in PDF (PDF viewers smooth images and Qt stores them as
JPEG). A whole tab (not a view) is painted with ``QWidget.render``; its PNG at a
device pixel ratio, so its text scales with it.

This module writes to the path it is given; the caller makes the write atomic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import (
    QBuffer,
    QIODevice,
    QMarginsF,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    QSizeF,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QFontMetricsF,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPainterPath,
    QPdfWriter,
    QPen,
    QTextDocument,
    QTransform,
)
from PySide6.QtGui import Qt as QtGui_Qt
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QAbstractGraphicsShapeItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPixmapItem,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from viz.panel import ViewPanel
from viz.svg_post import fix_svg

FORMATS = ("png", "svg", "pdf")
#: Images with more cells than this (about 128 x 128) stay images in SVG and PDF.
MAX_VECTOR_CELLS = 128 * 128
#: Images larger than MAX_VECTOR_CELLS but shorter than this are upsampled for PDF.
PDF_MIN_IMAGE_SIDE = 1200
#: Left/right margin of the title band, as the panel's layout has it.
TITLE_MARGIN = 4


class FigureError(RuntimeError):
    """The figure could not be rendered (unknown format, Qt refused to write)."""


class _Figure:
    """What gets painted: an optional title band, then the graphics (or a whole widget)."""

    def __init__(self, widget: QWidget) -> None:
        self.heading = ""
        self.font = QFont()
        if isinstance(widget, ViewPanel):
            label = widget.title
            label.ensurePolished()
            self.heading = _plain(label.text())
            self.font = QFont(label.font())
            widget = widget.graphics
        self.widget = widget
        self.scene_view = widget if isinstance(widget, QGraphicsView) else None
        size = widget.size()
        self.width, self.body_height = size.width(), size.height()
        if self.width < 2 or self.body_height < 2:
            raise FigureError("The view has no size yet; show it before exporting.")
        self.band = 0.0
        if self.heading:
            metrics = QFontMetricsF(self.font)
            text = metrics.boundingRect(self._heading_rect(1e6), self._heading_flags(),
                                        self.heading)
            self.band = float(np.ceil(text.height() + 6))
        self.dpi = max(1, widget.logicalDpiX())

    def size(self) -> QSize:
        return QSize(self.width, self.body_height + int(self.band))

    def _heading_rect(self, height: float) -> QRectF:
        return QRectF(TITLE_MARGIN, 3, self.width - 2 * TITLE_MARGIN, height)

    @staticmethod
    def _heading_flags() -> int:
        return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
                   | Qt.TextFlag.TextWordWrap)

    def paint(self, painter: QPainter, vector_cells: bool, upsample: bool,
              scale: float = 1.0, cache: dict | None = None) -> None:
        """Paint the whole figure in logical pixels (0, 0, width, height), enlarged by
        ``scale``. The painter's transformation on entry (a PNG strip's shift) stays
        outermost. The scene is left as it was (no item added, moved or hidden).
        ``cache`` keeps what strips of one figure share (heatmap cells, axis ticks);
        the caller clears it when the scene changes."""
        device = painter.worldTransform()
        painter.scale(scale, scale)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        full = QRectF(0, 0, self.width, self.body_height + self.band)
        painter.fillRect(full, self._background())
        if self.heading:
            painter.save()
            painter.setFont(self.font)
            painter.setPen(QColor("#000000"))
            painter.drawText(self._heading_rect(self.band), self._heading_flags(), self.heading)
            painter.restore()
        body = QRectF(0, self.band, self.width, self.body_height)
        if self.scene_view is None:
            painter.save()
            painter.translate(0, self.band)
            self.widget.render(painter, QPoint(0, 0))
            painter.restore()
            return
        view = self.scene_view
        scene = view.scene()
        source = view.mapToScene(view.viewport().rect()).boundingRect()
        # resolutionScale: scatter symbols (sized in screen pixels) grow with the figure
        opts = {"antialias": True, "background": QColor("white"), "painter": painter,
                "resolutionScale": scale}
        with ExitStack() as stack:
            stack.enter_context(_export_mode(scene, opts))
            swaps = {}
            if vector_cells:
                swaps = cache.get("swaps") if cache is not None else None
                if swaps is None:
                    swaps = vector_swaps(scene, view)
                    if cache is not None:
                        cache["swaps"] = swaps
            if upsample:
                stack.enter_context(_upsampled_images(scene))
            paint_scene(painter, scene, source, body.topLeft(), scale, device, swaps, cache)

    def _background(self) -> QColor:
        view = self.scene_view
        if view is not None and view.backgroundBrush().style() != Qt.BrushStyle.NoBrush:
            return view.backgroundBrush().color()
        return QColor("white")


def render(widget: QWidget, path: str, fmt: str, width: int | None = None,
           title: str = "ArchScope figure", scale: float | None = None) -> QSize:
    """Render ``widget`` to ``path`` as ``fmt``; returns the output size in pixels.

    ``widget`` is a ``ViewPanel`` (its title above its graphics), a pyqtgraph view, or
    any widget (a whole tab). ``width`` sets the PNG width in pixels, or ``scale`` a
    multiple of the on-screen size (default 2); the height keeps the aspect ratio.
    SVG and PDF have the on-screen size, which fixes the font-to-plot proportions.
    """
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise FigureError(f"Unknown figure format '{fmt}' (choose png, svg or pdf).")
    fig = _Figure(widget)
    logical = fig.size()
    if fmt == "png":
        from viz.figure_png import write_png  # it builds on this module

        return write_png(fig, path, width, scale)
    if fmt == "svg":
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(svg_text(fig, title))
        return logical
    writer = QPdfWriter(path)
    writer.setTitle(title)
    writer.setCreator("ArchScope")
    writer.setResolution(fig.dpi)
    points = QSizeF(logical.width() * 72.0 / fig.dpi, logical.height() * 72.0 / fig.dpi)
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize.Unit.Point, "figure"),
                                     QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    _paint_on(writer, lambda p: fig.paint(p, vector_cells=True, upsample=True))
    return logical


def svg_text(fig: _Figure, title: str) -> str:
    """The figure as portable SVG text (see the module docstring)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator(QSvgGenerator.SvgVersion.Svg11)
    gen.setOutputDevice(buffer)
    size = fig.size()
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    # the view's logical DPI, or the data shifts against the axes
    gen.setResolution(fig.dpi)
    gen.setTitle(title)
    gen.setDescription("Exported from ArchScope")
    _paint_on(gen, lambda p: fig.paint(p, vector_cells=True, upsample=False))
    buffer.close()
    return fix_svg(bytes(buffer.data()).decode("utf-8"), _portable_family)


def _paint_on(device, paint: Callable[[QPainter], None],
              painter: QPainter | None = None) -> None:
    painter = QPainter() if painter is None else painter
    if not painter.begin(device):
        raise FigureError("Qt could not open the output for painting.")
    try:
        paint(painter)
    finally:
        painter.end()


def _plain(text: str) -> str:
    if QtGui_Qt.mightBeRichText(text):   # QtGui's part of the Qt namespace
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _portable_family(family: str) -> str:
    """Qt's family name (often a generic "Sans Serif") as a CSS list that Chromium and
    librsvg resolve to the font Qt used."""
    resolved = QFontInfo(QFont(family)).family()
    names = [resolved] if resolved else []
    if family not in names and family.lower() not in ("sans serif", "sans"):
        names.append(family)
    return ", ".join([f"'{n}'" if " " in n else n for n in names] + ["sans-serif"])


# -- painting a scene item by item -----------------------------------------------------------------
def paint_scene(painter: QPainter, scene, source: QRectF, origin: QPointF,
                scale: float = 1.0, device: QTransform | None = None,
                swaps: Mapping[QGraphicsItem, QGraphicsItem] | None = None,
                cache: dict | None = None) -> None:
    """Paint the items of ``scene`` in ``source`` with ``source.topLeft()`` at ``origin``,
    enlarged by ``scale`` (then mapped by ``device``, e.g. a PNG strip's shift), one by
    one in stacking order, each under its own clip set afresh. An item in ``swaps`` is
    painted by its stand-in (same place, clip and opacity) instead; ``cache`` keeps
    the axes' ticks from one PNG strip to the next.

    ``QGraphicsScene.render`` nests save/restore around clips, and ``QSvgGenerator``
    (SVG 1.1, Qt 6.11) tags the groups after a restore with the wrong clip path: axis
    lines came out clipped to the legend's box and vanished in librsvg. Here a clip is
    set only outside a save, and replaced, never restored."""
    base = QTransform.fromTranslate(origin.x() - source.x(), origin.y() - source.y())
    outer = QTransform.fromScale(scale, scale)
    if device is not None:
        outer = outer * device
    seen = _strip_rect(painter, scale)
    option = QStyleOptionGraphicsItem()
    for item in scene.items(Qt.SortOrder.AscendingOrder):
        if (not item.isVisible() or item.effectiveOpacity() <= 0.0
                or item.flags() & QGraphicsItem.GraphicsItemFlag.ItemHasNoContents):
            continue
        # items that ignore the view's transformations (legends) keep their on-screen
        # size in the figure, and are enlarged with it
        if item.flags() & QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations:
            world = item.deviceTransform(base) * outer
        else:
            world = item.sceneTransform() * base * outer
        bounds = item.boundingRect()
        if seen is not None and not bounds.isEmpty() and not world.mapRect(bounds).intersects(seen):
            continue        # a PNG strip this item does not reach
        clip = _clip_of(item)
        painter.setWorldTransform(base * outer)
        if clip is None:
            painter.setClipping(False)
        else:
            painter.setClipPath(clip)
        painter.save()
        painter.setWorldTransform(world)
        painter.setOpacity(item.effectiveOpacity())
        stand_in = swaps.get(item) if swaps else None
        if stand_in is not None:
            option.exposedRect = stand_in.boundingRect()
            stand_in.paint(painter, option, None)
            painter.restore()
            continue
        option.exposedRect = bounds
        with _wide_item_pen(item, painter), _points_in(item, world, seen):
            if isinstance(item, pg.AxisItem) and getattr(painter, "factor", 1.0) != 1.0:
                _paint_axis(item, painter, cache)
            else:
                item.paint(painter, option, None)
        painter.restore()
    painter.setClipping(False)


def _strip_rect(painter: QPainter, scale: float) -> QRectF | None:
    """The device's rectangle when painting a PNG strip (a ``QImage``), with a margin
    for antialiasing and for cosmetic pens made ``scale`` times as wide; else None."""
    device = painter.device()
    if not isinstance(device, QImage):
        return None
    margin = 2.0 + 4.0 * scale
    return QRectF(-margin, -margin, device.width() + 2 * margin,
                  device.height() + 2 * margin)


@contextmanager
def _points_in(item: QGraphicsItem, world: QTransform, seen: QRectF | None) -> Iterator[None]:
    """A scatter drawn in export mode paints its points one by one, in Python: in a PNG
    strip, only those that reach the strip (pyqtgraph culls the points by the item's
    ``viewRect``, whose symbol margins it adds)."""
    if seen is None or not isinstance(item, pg.ScatterPlotItem) or not item.opts["pxMode"]:
        yield
        return
    inverse, invertible = world.inverted()
    in_view = item.viewRect()
    if not invertible or in_view is None:
        yield
        return
    strip = inverse.mapRect(seen).intersected(in_view)
    item.viewRect = lambda: strip      # an instance attribute shadows the method
    try:
        yield
    finally:
        del item.viewRect


def _clip_of(item: QGraphicsItem) -> QPainterPath | None:
    """The clip (scene coordinates) that the scene applies to ``item``: the shapes of
    the ancestors that clip their children, and the item's own when it clips itself."""
    clip: QPainterPath | None = None
    flags = QGraphicsItem.GraphicsItemFlag
    holders = [item] if item.flags() & flags.ItemClipsToShape else []
    parent = item.parentItem()
    while parent is not None:
        if parent.flags() & flags.ItemClipsChildrenToShape:
            holders.append(parent)
        parent = parent.parentItem()
    for holder in holders:
        shape = holder.sceneTransform().map(holder.shape())
        clip = shape if clip is None else clip.intersected(shape)
    return clip


def wider(pen: QPen, factor: float) -> QPen:
    """``pen``, ``factor`` times as wide if it is cosmetic (width 0 counts as 1)."""
    if factor == 1.0 or not pen.isCosmetic() or pen.style() == Qt.PenStyle.NoPen:
        return pen
    out = QPen(pen)
    out.setWidthF(max(pen.widthF(), 1.0) * factor)
    return out


def _paint_axis(axis: pg.AxisItem, painter: QPainter, cache: dict | None = None) -> None:
    """``AxisItem.paint`` without its cached QPicture, whose pens this painter cannot
    widen (the picture is recorded by a painter of its own and replayed in C++)."""
    if axis.style.get("tickFont"):
        painter.setFont(axis.style["tickFont"])
    key = ("axis", id(axis))
    if cache is not None and key in cache:
        specs = cache[key]
    else:
        specs = axis.generateDrawSpecs(painter)
        if cache is not None:
            cache[key] = specs
    if specs is not None:
        axis.drawPicture(painter, *specs)


@contextmanager
def _wide_item_pen(item: QGraphicsItem, painter: QPainter) -> Iterator[None]:
    factor = getattr(painter, "factor", 1.0)
    if factor != 1.0 and isinstance(item, pg.GraphItem) and isinstance(item.pen, QPen):
        # its edges are a QPicture recorded with item.pen: record them again, wider
        pen = item.pen
        item.pen, item.picture = wider(QPen(pen), factor), None
        try:
            yield
        finally:
            item.pen, item.picture = pen, None
        return
    if factor == 1.0 or not isinstance(item, (QAbstractGraphicsShapeItem, QGraphicsLineItem)):
        yield
        return
    pen = QPen(item.pen())
    item.setPen(wider(pen, factor))
    try:
        yield
    finally:
        item.setPen(pen)


# -- scene items during an export ----------------------------------------------------------------
@contextmanager
def _export_mode(scene, opts: dict) -> Iterator[None]:
    items = [it for it in scene.items() if hasattr(it, "setExportMode")]
    for it in items:
        it.setExportMode(True, opts)
    try:
        yield
    finally:
        for it in items:
            it.setExportMode(False, opts)


class _CellsItem(QGraphicsItem):
    """Paints an ``ImageItem``'s rendered colours as filled rectangles, one per run of
    equal cells in a row, in the image item's place (never added to the scene: the
    painter paints it instead of the image). ``rects``: float64[run, 4] (x, y, w, h);
    ``colours``: uint8[run, 4] (r, g, b, a)."""

    def __init__(self, rects: np.ndarray, colours: np.ndarray, bounds: QRectF) -> None:
        super().__init__()
        self.rects, self.colours, self.bounds = rects, colours, bounds

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self.bounds

    def paint(self, painter: QPainter, *args) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        keep = range(len(self.rects))
        device = painter.device()
        inverse, invertible = painter.worldTransform().inverted()
        if isinstance(device, QImage) and invertible:
            # a PNG strip: only the rows of cells it shows (with a margin for antialiasing)
            seen = inverse.mapRect(QRectF(-2, -2, device.width() + 4, device.height() + 4))
            y, h = self.rects[:, 1], self.rects[:, 3]
            keep = np.flatnonzero((y + h >= seen.top()) & (y <= seen.bottom())).tolist()
        rects, colours = self.rects, self.colours
        for i in keep:
            x, y, w, h = rects[i].tolist()
            red, green, blue, alpha = colours[i].tolist()
            painter.fillRect(QRectF(x, y, w, h), QColor(red, green, blue, alpha))


def run_table(rgba: np.ndarray, cell_w: float = 1.0, cell_h: float = 1.0,
              overlap: tuple[float, float] = (0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """The runs of :func:`cell_runs` as arrays: rectangles float64[run, 4] (x, y, w, h)
    and colours uint8[run, 4], in rows top to bottom, left to right."""
    rows, cols = rgba.shape[:2]
    packed = rgba.astype(np.uint32)
    key = (packed[..., 0] << 24) | (packed[..., 1] << 16) | (packed[..., 2] << 8) | packed[..., 3]
    starts = np.ones((rows, cols), bool)
    starts[:, 1:] = key[:, 1:] != key[:, :-1]
    r, s = np.nonzero(starts)                      # row-major: each row's runs in order
    same_row = np.r_[r[1:] == r[:-1], False]
    e = np.where(same_row, np.r_[s[1:], 0], cols)
    colours = rgba[r, s].astype(np.uint8)
    opaque = colours[:, 3] == 255
    w = (e - s) * cell_w
    h = np.full(len(r), cell_h, np.float64)
    w = np.where(opaque & (e < cols), w + overlap[0], w)
    h = np.where(opaque & (r < rows - 1), h + overlap[1], h)
    rects = np.stack([s * cell_w, r * cell_h, w, h], axis=1).astype(np.float64)
    visible = colours[:, 3] != 0
    return rects[visible], colours[visible]


def cell_runs(rgba: np.ndarray, cell_w: float = 1.0, cell_h: float = 1.0,
              overlap: tuple[float, float] = (0.0, 0.0)) -> list[tuple[QRectF, QColor]]:
    """Rectangles for an image of ``rgba[row, col] = (r, g, b, a)`` (uint8), one per run
    of equal colours in a row; transparent cells are left out. An opaque run reaches
    ``overlap`` (x, y) into its right and lower neighbours, which are drawn after it,
    so antialiased edges leave no hairline seams between cells."""
    rects, colours = run_table(rgba, cell_w, cell_h, overlap)
    return [(QRectF(*rect), QColor(*colour)) for rect, colour in
            zip(rects.tolist(), colours.tolist(), strict=True)]


def _rgba(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    buf = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes()).copy()
    rows = buf.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].reshape(image.height(), image.width(), 4)


def _raster_of(it: QGraphicsItem) -> tuple[QImage, QRectF] | None:
    """The image an item draws and where (item coordinates), or None."""
    if isinstance(it, pg.ImageItem):
        if it.image is None:
            return None
        it.render()                # the QImage the item would draw, LUT and levels applied
        qimage = it.qimage
        if qimage is None or qimage.isNull():
            return None
        return qimage, QRectF(0, 0, it.width(), it.height())
    if isinstance(it, QGraphicsPixmapItem) and not it.pixmap().isNull():
        pixmap = it.pixmap()
        dpr = pixmap.devicePixelRatio() or 1.0
        size = QSizeF(pixmap.width() / dpr, pixmap.height() / dpr)
        return pixmap.toImage(), QRectF(it.offset(), size)
    return None


def vector_swaps(scene, view: QGraphicsView) -> dict[QGraphicsItem, _CellsItem]:
    """A ``_CellsItem`` for every small, visible raster (a heatmap's ``ImageItem``, a
    colour bar's pixmap), to paint in its place."""
    swaps: dict[QGraphicsItem, _CellsItem] = {}
    for it in scene.items():
        if not it.isVisible() or it.effectiveOpacity() <= 0:
            continue
        raster = _raster_of(it)
        if raster is None:
            continue
        qimage, target = raster
        if qimage.width() * qimage.height() > MAX_VECTOR_CELLS:
            continue
        cell_w, cell_h = target.width() / qimage.width(), target.height() / qimage.height()
        # one screen pixel of overlap, in the item's units: a pixel that two cells
        # share is then covered whole by the first (antialiased edges composited one
        # over the other let the white through: seams between the rows)
        on_screen = view.mapFromScene(it.mapToScene(QRectF(0, 0, cell_w, cell_h))
                                      ).boundingRect()
        overlap = (cell_w / max(on_screen.width(), 1.0), cell_h / max(on_screen.height(), 1.0))
        rects, colours = run_table(_rgba(qimage), cell_w, cell_h, overlap)
        rects[:, 0] += target.x()
        rects[:, 1] += target.y()
        swaps[it] = _CellsItem(rects, colours, target)
    return swaps


@contextmanager
def _upsampled_images(scene) -> Iterator[None]:
    """Large images only (small ones are vector cells): nearest-neighbour upsampling,
    so a PDF viewer's smoothing and Qt's JPEG do not blur the cells."""
    saved: list[tuple[pg.ImageItem, np.ndarray, QRectF, object]] = []
    for it in scene.items():
        if not isinstance(it, pg.ImageItem) or it.image is None or it.opacity() <= 0:
            continue
        img = it.image
        side = max(img.shape[0], img.shape[1])
        factor = int(np.ceil(PDF_MIN_IMAGE_SIDE / max(1, side)))
        if factor <= 1:
            continue
        rect = it.mapRectToParent(it.boundingRect())
        levels = it.getLevels()
        big = np.repeat(np.repeat(img, factor, axis=0), factor, axis=1)
        it.setImage(big, autoLevels=False, levels=levels)
        it.setRect(rect)
        saved.append((it, img, rect, levels))
    try:
        yield
    finally:
        for it, img, rect, levels in saved:
            it.setImage(img, autoLevels=False, levels=levels)
            it.setRect(rect)
