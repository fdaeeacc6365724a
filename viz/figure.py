"""Render a view to PNG, SVG or PDF, with text kept as text in the vector formats.

pyqtgraph 0.14.0's own SVGExporter cannot parse the paths Qt writes today (they end
in `` Z``; pyqtgraph issues #3485 / #3495), so vector output goes through Qt:
``QSvgGenerator`` (its resolution set to the view's logical DPI, or the data shifts
against the axes) and ``QPdfWriter``. pyqtgraph's export mode is switched on for the
scene's items while painting, so scatter symbols stay vector paths. PDF stores images
as JPEG, so small heatmaps are upsampled (nearest neighbour) for the export to keep
each cell crisp.

This module writes to the path it is given; the caller makes the write atomic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QMarginsF, QPoint, QRect, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsView, QWidget

FORMATS = ("png", "svg", "pdf")
#: Heatmaps smaller than this on their long side are upsampled for PDF export.
PDF_MIN_IMAGE_SIDE = 1200


class FigureError(RuntimeError):
    """The figure could not be rendered (unknown format, Qt refused to write)."""


def render(widget: QWidget, path: str, fmt: str, width: int | None = None,
           title: str = "ArchScope figure", scale: float | None = None) -> QSize:
    """Render ``widget`` to ``path`` as ``fmt``; returns the output size in pixels.

    A pyqtgraph ``GraphicsView`` is rendered from its scene with export mode on;
    any other widget (a whole tab) is rendered with ``QWidget.render``.
    ``width`` sets the PNG width in pixels, or ``scale`` a multiple of the on-screen
    size (default 2); the height keeps the aspect ratio;
    vector formats use the on-screen size, which fixes the font-to-plot proportions.
    """
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise FigureError(f"Unknown figure format '{fmt}' (choose png, svg or pdf).")
    logical = widget.size()
    if logical.width() < 2 or logical.height() < 2:
        raise FigureError("The view has no size yet; show it before exporting.")
    dpi = max(1, widget.logicalDpiX())
    if fmt == "png":
        out_w = int(width) if width else round(logical.width() * (scale or 2.0))
        if not 16 <= out_w <= 20000:
            raise FigureError(f"The PNG width must be between 16 and 20000 pixels, got {out_w}.")
        scale = out_w / logical.width()
        out = QSize(out_w, max(1, round(logical.height() * scale)))
        image = QImage(out, QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        # the screen's DPI, not DPI x scale: the painter is scaled already, and text that
        # is drawn straight onto the device in points (axis tick labels) would grow with
        # the device's DPI a second time (the labels came out scale² larger)
        image.setDotsPerMeterX(round(dpi / 0.0254))
        image.setDotsPerMeterY(round(dpi / 0.0254))
        _paint(widget, image, QRectF(0, 0, out.width(), out.height()), scale, upsample=False)
        if not image.save(path, "PNG"):
            raise FigureError(f"Qt could not write the PNG file {path}.")
        return out
    if fmt == "svg":
        gen = QSvgGenerator()
        gen.setFileName(path)
        gen.setSize(logical)
        gen.setViewBox(QRect(0, 0, logical.width(), logical.height()))
        gen.setResolution(dpi)
        gen.setTitle(title)
        gen.setDescription("Exported from ArchScope")
        _paint(widget, gen, QRectF(0, 0, logical.width(), logical.height()), 1.0,
               upsample=False)
        return logical
    writer = QPdfWriter(path)
    writer.setTitle(title)
    writer.setCreator("ArchScope")
    writer.setResolution(dpi)
    points = QSizeF(logical.width() * 72.0 / dpi, logical.height() * 72.0 / dpi)
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize.Unit.Point, "figure"),
                                     QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    _paint(widget, writer, QRectF(0, 0, logical.width(), logical.height()), 1.0, upsample=True)
    return logical


def _paint(widget: QWidget, device, target: QRectF, scale: float, upsample: bool) -> None:
    painter = QPainter()
    if not painter.begin(device):
        raise FigureError("Qt could not open the output for painting.")
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        if isinstance(widget, QGraphicsView):
            painter.fillRect(target, widget.backgroundBrush().color()
                             if widget.backgroundBrush().style() != Qt.BrushStyle.NoBrush
                             else QColor("white"))
            scene = widget.scene()
            opts = {"antialias": True, "background": QColor("white"), "painter": painter,
                    "resolutionScale": scale}
            with _export_mode(scene, opts), _upsampled_images(scene, upsample):
                scene.render(painter, target, widget.mapToScene(widget.viewport().rect())
                             .boundingRect(), Qt.AspectRatioMode.IgnoreAspectRatio)
        else:
            painter.scale(target.width() / widget.width(), target.height() / widget.height())
            widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()


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


@contextmanager
def _upsampled_images(scene, enabled: bool) -> Iterator[None]:
    saved: list[tuple[pg.ImageItem, np.ndarray, QRectF, Callable]] = []
    if enabled:
        for it in scene.items():
            if not isinstance(it, pg.ImageItem) or it.image is None:
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
