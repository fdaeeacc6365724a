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
  enlarged with it (``_WidePenPainter``), so a PNG is the SVG at that
  size: text, legends (which ignore the view's transformations) and line widths keep
  their proportions. Painting the scene into a scaled QImage drew legend text at screen
  size (8 px beside 30-px node labels at 2x) and 1-px lines. (Rasterising the SVG with
  ``QSvgRenderer`` is no way round: it ignores ``clip-path``.) It is painted and
  written in strips of rows (:mod:`viz.figure_png`), never held whole.
* PDF: ``QPdfWriter`` at the view's logical DPI (fonts embedded by Qt).

Heatmaps: an ``ImageItem`` of at most ``MAX_VECTOR_CELLS`` cells is drawn as one
filled rectangle per run of equal cells in a row (vector, crisp at any zoom, no
interpolation in any viewer); a larger image stays an image, pixelated in SVG and
upsampled nearest-neighbour in PDF (:mod:`viz.figure_cells`; only the images that stay
images: upsampling a heatmap drawn as cells shrank its cells into the plot's corner).
A whole tab (not a view) is painted with ``QWidget.render``; its PNG at a device pixel
ratio, so its text scales with it.

A figure is the view's content, not the widget's state: what only the interface shows
(a selection, a hover highlight, greyed legend entries) is left out (``interface_only``,
``figure_style``, ``painting_figure``), and a view that centres a smaller block of plots
in its panel is trimmed to that block (``content_rect``). Chinese text names the
Simplified Chinese faces in the SVG (``viz.fonts``).

This module writes to the path it is given; the caller makes the write atomic.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Generator, Iterator, Mapping
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
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from viz.figure_cells import (  # noqa: F401 - MAX_VECTOR_CELLS, cell_runs: as before
    MAX_VECTOR_CELLS,
    cell_runs,
    upsampled_images,
    vector_swaps,
)
from viz.figure_state import (  # noqa: F401 - interface_only, figure_style, painting_figure
    TRIM_MARGIN,
    _in_figure,
    content_rect,
    figure_style,
    interface_only,
    interface_swaps,
    painting_figure,
    settle,
)
from viz.fonts import SVG_CJK_FAMILIES, simplified_chinese_family
from viz.panel import ViewPanel
from viz.svg_post import fix_svg

FORMATS = ("png", "svg", "pdf")
#: Left/right margin of the title band, as the panel's layout has it.
TITLE_MARGIN = 4


class FigureError(RuntimeError):
    """The figure could not be rendered (unknown format, Qt refused to write)."""


class _Figure:
    """What gets painted: an optional title band, then the graphics (or a whole widget)."""

    def __init__(self, widget: QWidget, trim: bool = True) -> None:
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
        # the layouts first, then the size: a tab laid out in this turn resized the
        # graphics (370x484 -> 365x508 as the graph tab opened) and the PNG had the old
        # size, the SVG after it the new (mean |PNG - SVG| 0.042)
        settle(self.scene_view)
        size = widget.size()
        self.width, self.body_height = size.width(), size.height()
        if self.width < 2 or self.body_height < 2:
            raise FigureError("The view has no size yet; show it before exporting.")
        self.source = QRectF()          # the part of the scene shown
        if self.scene_view is not None:
            view = self.scene_view
            self.source = view.mapToScene(view.viewport().rect()).boundingRect()
            content = content_rect(view.scene(), self.source) if trim else self.source
            if content != self.source:
                self.source = content
                self.width, self.body_height = int(content.width()), int(content.height())
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
              scale: float = 1.0, cache: dict | None = None,
              vector_symbols: bool = True) -> None:
        """Paint the whole figure in logical pixels (0, 0, width, height), enlarged by
        ``scale``. The painter's transformation on entry (a PNG strip's shift) stays
        outermost. The scene is left as it was (no item added, moved or hidden).
        ``cache`` keeps what strips of one figure share (heatmap cells, axis ticks);
        the caller clears it when the scene changes. ``vector_symbols``: see
        ``render_png_steps``."""
        for _ in self.paint_steps(painter, vector_cells, upsample, scale,
                                  vector_symbols=vector_symbols, cache=cache):
            pass

    def paint_steps(self, painter: QPainter, vector_cells: bool, upsample: bool,
                    scale: float = 1.0, vector_symbols: bool = True,
                    cache: dict | None = None) -> Iterator[None]:
        """``paint``, one scene item per step (see :func:`render_png_steps`)."""
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
            yield
            return
        view = self.scene_view
        scene = view.scene()
        source = self.source
        # resolutionScale: scatter symbols (sized in screen pixels) grow with the figure
        opts = {"antialias": True, "background": QColor("white"), "painter": painter,
                "resolutionScale": scale,
                # the pixels the window shows may be taken as they are (viz.edge_layer)
                "screen_pixels": not vector_symbols and abs(scale - 1.0) < 1e-9}
        with ExitStack() as stack:
            stack.enter_context(_export_mode(scene, opts, vector_symbols))
            swaps = cache.get("swaps") if cache is not None else None
            if swaps is None:
                swaps = vector_swaps(scene, view) if vector_cells else {}
                swaps.update(interface_swaps(scene))
                if cache is not None:
                    cache["swaps"] = swaps
            if upsample:
                stack.enter_context(upsampled_images(scene, swaps))
            yield from paint_scene_steps(painter, scene, source, body.topLeft(), scale,
                                         device, swaps, cache)

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
    if fmt == "png":
        from viz.figure_png import write_png  # it builds on this module

        return write_png(widget, path, width, scale)
    fig = _Figure(widget)
    logical = fig.size()
    if fmt == "svg":
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(svg_text(fig, title))
        return logical
    # into memory, then written by Python: QPdfWriter on a path drops write errors, and a
    # full disk left a cut PDF behind a success
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(title)
    writer.setCreator("ArchScope")
    writer.setResolution(fig.dpi)
    points = QSizeF(logical.width() * 72.0 / fig.dpi, logical.height() * 72.0 / fig.dpi)
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize.Unit.Point, "figure"),
                                     QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    _paint_on(writer, lambda p: fig.paint(p, vector_cells=True, upsample=True))
    del writer          # the PDF is finished when its writer goes
    with open(path, "wb") as fh:
        fh.write(bytes(buffer.data()))
    return logical


def svg_text(fig: _Figure, title: str) -> str:
    """The figure as portable SVG text (see the module docstring)."""
    return finish_svg(*svg_parts(fig, title))


def svg_parts(fig: _Figure | QWidget, title: str) -> tuple[str, dict[str, str]]:
    """What only the GUI thread can make of an SVG export: the text ``QSvgGenerator``
    writes, and the portable name of each font family in it. ``finish_svg`` makes the
    file of them on any thread (for a large view that is most of the time: 1 s of the
    1.3 s of the positional encodings' 13,000 cells)."""
    if not isinstance(fig, _Figure):
        fig = _Figure(fig)
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
    text = bytes(buffer.data()).decode("utf-8")
    cjk = bool(_CJK.search(text))
    families = {name: _portable_family(name, cjk) for name in
                {html.unescape(n) for n in re.findall(r'font-family="([^"]*)"', text)}}
    return text, families


def finish_svg(text: str, families: dict[str, str]) -> str:
    """``svg_parts``'s text made portable (``viz.svg_post.fix_svg``); no Qt, any thread."""
    return fix_svg(text, lambda name: families.get(name, name))


def render_png_steps(widget: QWidget, width: int | None = None, scale: float | None = None,
                     vector_symbols: bool = True) -> Generator[None, None, QImage]:
    """``render``'s PNG image (not written), painted one scene item per step: a caller
    on the GUI thread paints a few items per event-loop turn and the window stays
    responsive (the scene must not change until the last step). The generator's return
    value is the ``QImage``; closing it early ends the painting.

    ``vector_symbols=False`` draws scatter symbols from pyqtgraph's pixel atlas at
    their on-screen pixel size (one call per item instead of one painted path per
    point: 20,000 points about 10x faster; for animation frames)."""
    from viz.figure_png import png_width  # it builds on this module

    fig = _Figure(widget, trim=False)    # an animation's frames: all of one size
    logical = fig.size()
    out_w = png_width(logical.width(), width, scale)
    factor = out_w / logical.width()
    out = QSize(out_w, max(1, round(logical.height() * factor)))
    return (yield from _png_steps(fig, out, factor, vector_symbols))


def _png_steps(fig: _Figure, out: QSize, factor: float,
               vector_symbols: bool = True) -> Generator[None, None, QImage]:
    image = QImage(out, QImage.Format.Format_RGB32)      # see figure_png.STRIP_FORMAT
    image.fill(QColor("white"))
    if fig.scene_view is not None:
        # the scene enlarged, with every cosmetic (1-px) pen enlarged too, as the SVG's
        # strokes are when it is shown at this size
        painter = _WidePenPainter(factor)
        if not painter.begin(image):
            raise FigureError("Qt could not open the output for painting.")
        try:
            yield from fig.paint_steps(painter, vector_cells=True, upsample=False,
                                       scale=factor, vector_symbols=vector_symbols)
        finally:
            painter.end()
    else:
        # a whole tab: paint at a device pixel ratio, so text and widgets scale together
        image.setDevicePixelRatio(factor)
        _paint_on(image, lambda p: fig.paint(p, vector_cells=False, upsample=False))
        image.setDevicePixelRatio(1.0)
    # the PNG's pixels as the streamed writer writes them (RGBA), for Qt's own writer
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    # the screen's DPI: the PNG is the view enlarged, not the view printed smaller
    image.setDotsPerMeterX(round(fig.dpi / 0.0254))
    image.setDotsPerMeterY(round(fig.dpi / 0.0254))
    return image


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


#: Chinese characters and punctuation (CJK symbols, ideographs, full-width forms)
_CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _portable_family(family: str, cjk: bool = False) -> str:
    """Qt's family name (often a generic "Sans Serif") as a CSS list that Chromium and
    librsvg resolve to the font Qt used; with ``cjk`` (the text has Chinese), the
    Simplified Chinese faces too (``viz.fonts.SVG_CJK_FAMILIES``), so that a renderer takes
    the Chinese glyphs and punctuation from the face Qt used, not from one of its own
    choosing (a Japanese face centres "，" and "。")."""
    resolved = QFontInfo(QFont(family)).family()
    names = [resolved] if resolved else []
    if family not in names and family.lower() not in ("sans serif", "sans"):
        names.append(family)
    if cjk:
        for name in (simplified_chinese_family(), *SVG_CJK_FAMILIES):
            if name and name not in names:
                names.append(name)
    return ", ".join([f"'{n}'" if " " in n else n for n in names] + ["sans-serif"])


# -- painting a scene item by item -----------------------------------------------------------------
def paint_scene(painter: QPainter, scene, source: QRectF, origin: QPointF,
                scale: float = 1.0, device: QTransform | None = None,
                swaps: Mapping[QGraphicsItem, QGraphicsItem] | None = None,
                cache: dict | None = None) -> None:
    """Paint the items of ``scene`` (see :func:`paint_scene_steps`)."""
    for _ in paint_scene_steps(painter, scene, source, origin, scale, device, swaps, cache):
        pass


def paint_scene_steps(painter: QPainter, scene, source: QRectF, origin: QPointF,
                      scale: float = 1.0, device: QTransform | None = None,
                      swaps: Mapping[QGraphicsItem, QGraphicsItem] | None = None,
                      cache: dict | None = None) -> Iterator[None]:
    """Paint the items of ``scene`` in ``source`` with ``source.topLeft()`` at ``origin``,
    enlarged by ``scale`` (then mapped by ``device``, e.g. a PNG strip's shift), one by
    one in stacking order, each under its own clip set afresh. An item in ``swaps`` is
    painted by its stand-in (same place, clip and opacity) instead; ``cache`` keeps
    the axes' ticks from one PNG strip to the next; on a ``QImage`` only the items that
    reach it are painted.

    ``QGraphicsScene.render`` nests save/restore around clips, and ``QSvgGenerator``
    (SVG 1.1, Qt 6.11) tags the groups after a restore with the wrong clip path: axis
    lines came out clipped to the legend's box and vanished in librsvg. Here a clip is
    set only outside a save, and replaced, never restored. Yields after each item."""
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
            with _in_figure():
                stand_in.paint(painter, option, None)
            painter.restore()
            yield
            continue
        option.exposedRect = bounds
        with _wide_item_pen(item, painter), _points_in(item, world, seen), _in_figure():
            if isinstance(item, pg.AxisItem):     # its own lines, never the screen's picture
                _paint_axis(item, painter, cache)
            else:
                item.paint(painter, option, None)
        painter.restore()
        yield
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


class _WidePenPainter(QPainter):
    """A painter whose cosmetic pens are ``factor`` times as wide.

    A cosmetic pen (pyqtgraph's default) is drawn ``width`` device pixels wide whatever
    the transformation, so a PNG at twice the view's size had lines half as thick,
    relative to everything else, as the window and the SVG. Python items set their pens
    through this painter's ``setPen``; Qt's own shape items are given wider pens by
    :func:`_wide_item_pen` while they paint."""

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def setPen(self, pen) -> None:  # noqa: N802 - Qt's name
        if not isinstance(pen, QPen):
            pen = QPen(pen)
        super().setPen(wider(pen, self.factor))

    def strokePath(self, path, pen) -> None:  # noqa: N802 - Qt's name
        super().strokePath(path, wider(QPen(pen), self.factor))


def wider(pen: QPen, factor: float) -> QPen:
    """``pen``, ``factor`` times as wide if it is cosmetic (width 0 counts as 1)."""
    if factor == 1.0 or not pen.isCosmetic() or pen.style() == Qt.PenStyle.NoPen:
        return pen
    out = QPen(pen)
    out.setWidthF(max(pen.widthF(), 1.0) * factor)
    return out


def _paint_axis(axis: pg.AxisItem, painter: QPainter, cache: dict | None = None) -> None:
    """``AxisItem.paint`` without its cached QPicture: this painter could not widen its
    pens (it is recorded by a painter of its own and replayed in C++), and on screen its
    grid is drawn as images (``viz.axis_grid``), where SVG and PDF want lines."""
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
def _export_mode(scene, opts: dict, vector_symbols: bool = True) -> Iterator[None]:
    items = [it for it in scene.items() if hasattr(it, "setExportMode")
             and (vector_symbols or not isinstance(it, pg.ScatterPlotItem))]
    for it in items:
        it.setExportMode(True, opts)
    try:
        yield
    finally:
        for it in items:
            it.setExportMode(False, opts)
