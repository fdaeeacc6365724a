"""Heatmaps in a figure: small rasters painted as vector cells, large ones upsampled.

An ``ImageItem`` (or a colour bar's pixmap) of at most :data:`MAX_VECTOR_CELLS` cells
is painted as one filled rectangle per run of equal cells in a row
(:func:`vector_swaps` gives the painter a stand-in to paint in the image's place; the
scene is not touched, so nothing on screen changes while a figure is painted over
several event-loop turns). A larger image stays an image; for a PDF it is upsampled
nearest-neighbour first (:func:`upsampled_images`), since PDF viewers smooth images and
Qt stores them as JPEG.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPixmapItem, QGraphicsView

#: Images with more cells than this (about 128 x 128) stay images in SVG and PDF.
MAX_VECTOR_CELLS = 128 * 128
#: Images larger than MAX_VECTOR_CELLS but shorter than this are upsampled for PDF.
PDF_MIN_IMAGE_SIDE = 1200


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
def upsampled_images(scene, vector: Container[QGraphicsItem] = ()) -> Iterator[None]:
    """Nearest-neighbour upsampling of the images that stay images, so a PDF viewer's
    smoothing and Qt's JPEG do not blur the cells. The items in ``vector`` (the keys of
    :func:`vector_swaps`) are left alone: their cells are rectangles in the image's own
    pixel units, and upsampling changes those units (``setRect`` scales the item down
    by the factor), so the cells came out 10-110x too small in the plot's corner."""
    saved: list[tuple[pg.ImageItem, np.ndarray, QRectF, object]] = []
    for it in scene.items():
        if not isinstance(it, pg.ImageItem) or it.image is None or it.opacity() <= 0 \
                or it in vector:
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
