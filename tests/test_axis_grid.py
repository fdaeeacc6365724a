"""Grid lines drawn as strips (viz.axis_grid) give pyqtgraph's own lines, pixel for pixel.

The reference is pyqtgraph drawing the same plot with its own ``AxisItem.paint`` and
``drawPicture`` (one translucent line per grid line), restored for the comparison."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from viz import axis_grid


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(),
                                                             image.bytesPerLine())
    return rows[:, :image.width() * 4].reshape(image.height(), image.width(), 4)[..., :3].copy()


@pytest.fixture
def pyqtgraphs_own(monkeypatch):
    """``draw(widget)``: the widget drawn with pyqtgraph's own axis painting."""
    strips = pg.AxisItem.paint, pg.AxisItem.drawPicture
    own = (getattr(strips[0], "__wrapped__", None), getattr(strips[1], "__wrapped__", None))
    assert all(own), "viz.axis_grid is not installed (viz.theme.apply installs it)"

    def draw(widget, paint=None):
        monkeypatch.setattr(pg.AxisItem, "paint", own[0])
        monkeypatch.setattr(pg.AxisItem, "drawPicture", own[1])
        try:
            return grab(widget, paint)
        finally:
            monkeypatch.setattr(pg.AxisItem, "paint", strips[0])
            monkeypatch.setattr(pg.AxisItem, "drawPicture", strips[1])
    return draw


def grab(widget: pg.PlotWidget, paint=None) -> np.ndarray:
    for axis in widget.getPlotItem().axes.values():
        axis["item"].picture = None            # recorded again by whoever paints now
    if paint is not None:
        return paint(widget)
    widget.viewport().repaint()
    return pixels(widget.grab().toImage())


def plot(qtbot, size, x_range, y_range, alpha=0.2, axes=("left", "bottom")):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(*size)
    item = widget.getPlotItem()
    for side in ("left", "bottom", "top", "right"):
        item.showAxis(side, side in axes)
    item.showGrid(x=True, y=True, alpha=alpha)
    item.plot([x_range[0], x_range[1]], [y_range[1], y_range[0]], pen="r")
    item.setRange(xRange=x_range, yRange=y_range, padding=0)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.mark.parametrize("size", [(400, 300), (401, 299), (523, 377), (300, 517)])
@pytest.mark.parametrize("x_range, y_range", [
    ((0, 1), (0, 1)), ((-3.3, 7.7), (-1.65, 10.01)), ((0.001, 0.0027), (-5e-4, 3e-3)),
    ((-1e4, 3e4), (-5e3, 3.9e4))])
def test_the_strips_are_pyqtgraphs_lines_pixel_for_pixel(qtbot, pyqtgraphs_own, monkeypatch,
                                                         size, x_range, y_range):
    widget = plot(qtbot, size, x_range, y_range)
    made = []
    strips = axis_grid.grid_strips
    monkeypatch.setattr(axis_grid, "grid_strips",
                        lambda *a, **k: made.append(1) or strips(*a, **k))
    ours = grab(widget)
    assert len(made) == 2                     # both axes took the strips
    theirs = pyqtgraphs_own(widget)
    differ = (ours != theirs).any(-1)
    assert not differ.any(), f"{int(differ.sum())} pixels differ, first at {np.argwhere(differ)[0]}"
    # and it is a grid: light lines across the view, not a blank one
    assert ((theirs < 250) & (theirs > 200)).all(-1).sum() > size[0]


@pytest.mark.parametrize("alpha", [0.05, 0.25, 1.0])
def test_every_side_and_grid_strength_and_an_odd_placement(qtbot, pyqtgraphs_own, alpha):
    widget = plot(qtbot, (347, 263), (-2.2, 5.3), (0.1, 0.37), alpha=alpha,
                  axes=("left", "bottom", "top", "right"))
    widget.getPlotItem().setContentsMargins(3.5, 7.25, 1.75, 2.5)   # fractional placement
    qtbot.wait(10)
    assert (grab(widget) == pyqtgraphs_own(widget)).all()


def test_a_scaled_painter_keeps_the_lines(qtbot, pyqtgraphs_own):
    """Drawn through a scaling painter (an export at twice the size), whole device
    pixels are not known where the picture is recorded: the lines are drawn."""
    widget = plot(qtbot, (300, 200), (0, 10), (0, 1))

    def render(w):
        image = QImage(600, 400, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0xFFFFFFFF)
        painter = QPainter(image)
        w.scene().render(painter, QRectF(0, 0, 600, 400), QRectF(0, 0, 300, 200))
        painter.end()
        return pixels(image)
    assert (grab(widget, render) == pyqtgraphs_own(widget, render)).all()


def test_what_is_not_a_plain_grid_line_stays_a_line():
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QColor, QPen

    def pen(**kw):
        p = QPen(QColor(0, 0, 0, 50))
        p.setCosmetic(True)
        for name, value in kw.items():
            getattr(p, name)(value)
        return p
    from PySide6.QtCore import Qt
    specs = [(pen(), QPointF(10.2, 0), QPointF(10.2, 50)),                 # a grid line
             (pen(), QPointF(20.7, 0), QPointF(20.7, 50)),                 # another
             (pen(setWidthF=2.0), QPointF(30, 0), QPointF(30, 50)),        # wide
             (pen(setStyle=Qt.PenStyle.DashLine), QPointF(40, 0), QPointF(40, 50)),
             (pen(), QPointF(50, 0), QPointF(51, 50)),                     # slanted
             (pen(), QPointF(float("nan"), 0), QPointF(float("nan"), 50)),
             (pen(), QPointF(60, 5), QPointF(60, 5))]                      # a dot
    strips, rest = axis_grid.grid_strips(specs, vertical=True, offset=(0.5, 0.25))
    assert rest == specs[2:]
    (image, rect), = strips
    assert (image.width(), image.height()) == (12, 1)   # columns 10 and 21 (floor(x + 0.5))
    assert rect == QRectF(10 - 0.5, 0 - 0.25, 12, 51)   # on whole device pixels, rows 0-50
    assert image.pixelColor(0, 0).alpha() == 50 and image.pixelColor(11, 0).alpha() == 50
    assert all(image.pixelColor(k, 0).alpha() == 0 for k in range(1, 11))
