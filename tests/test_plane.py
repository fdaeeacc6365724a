"""The 2D plane view (viz/plane.py): its layers hold what they were given, the arrows
are scaled together, class regions take the palette, and the mouse adds and drags
points as a user would."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor

from viz import figure
from viz.plane import REGION_ALPHA, PlanePlot
from viz.plots import CurvesPlot
from viz.theme import PALETTE


@pytest.fixture
def plane(qtbot):
    view = PlanePlot()
    qtbot.addWidget(view)
    view.resize(500, 420)
    view.show()
    qtbot.waitExposed(view)
    view.set_extent((-2, 2, -2, 2))
    return view


def _at(view: PlanePlot, x: float, y: float) -> QPoint:
    return view.mapFromScene(view.plotItem.vb.mapViewToScene(QPointF(x, y)))


def test_arrows_are_scaled_together_so_the_longest_fills_most_of_a_cell(plane):
    g = np.linspace(-1, 1, 5)
    x, y = (a.ravel() for a in np.meshgrid(g, g))
    u, v = x.copy(), np.zeros_like(x)          # speed grows with |x|; the fastest is |x| = 1
    plane.set_field(x, y, u, v)
    assert plane.field_arrows() == 25
    xs, ys = plane.field.getData()
    shafts = np.stack([xs, ys], 1).reshape(-1, 2, 2)[:25]      # (start, end) per arrow
    lengths = np.linalg.norm(shafts[:, 1] - shafts[:, 0], axis=1)
    np.testing.assert_allclose(lengths.max(), 0.9 * 0.5, rtol=1e-9)   # 90 % of the spacing
    np.testing.assert_allclose(lengths, 0.45 * np.abs(x), atol=1e-12)  # proportional
    plane.set_field([], [], [], [])
    assert plane.field_arrows() == 0


def test_class_regions_take_the_palette_and_minus_one_stays_clear(plane):
    ids = np.array([[0, 1], [2, -1]])
    plane.set_image(ids, (-2, 2, -2, 2), classes=True)
    rgba = plane.image.image
    for (r, c), k in np.ndenumerate(ids):
        if k < 0:
            assert rgba[r, c, 3] == 0
        else:
            q = QColor(PALETTE[k])
            assert tuple(rgba[r, c]) == (q.red(), q.green(), q.blue(), REGION_ALPHA)
    assert not plane.colorbar.isVisible()
    plane.set_image(np.array([[0.0, 1.0], [2.0, np.nan]]), (-2, 2, -2, 2))
    assert plane.colorbar.isVisible() and plane.image.levels[0] == 0.0


def test_layers_are_reused_hidden_when_empty_and_listed_for_export(plane, tmp_path):
    paths = np.random.default_rng(0).normal(size=(3, 10, 2))
    plane.set_lines("paths", paths, legend="trajectories")
    item = plane.lines["paths"]
    x, _ = item.getData()
    assert len(x) == 3 * 11 and np.isnan(x[10])            # NaN between paths
    plane.set_lines("paths", paths[:1])
    assert plane.lines["paths"] is item and len(item.getData()[0]) == 11
    plane.set_points("pts", paths[:, 0], classes=np.array([0, 1, 2]), legend="starts")
    np.testing.assert_allclose(plane.layer_points("pts"), paths[:, 0])
    assert set(plane.export_arrays()) == {"lines_paths", "points_pts"}
    plane.set_points("pts", np.zeros((0, 2)))
    assert not plane.points["pts"].isVisible() and "points_pts" not in plane.export_arrays()
    plane.keep_layers([])
    assert not item.isVisible()
    png = tmp_path / "plane.png"
    size = figure.render(plane, str(png), "png", width=400)
    assert png.stat().st_size > 1000 and size.width() == 400


def test_click_adds_and_drag_moves_a_movable_point(qtbot, plane):
    plane.set_points("support", np.array([[0.0, 0.0], [1.0, 1.0]]), size=10)
    plane.set_movable("support")
    clicks, moves = [], []
    plane.clicked.connect(lambda x, y: clicks.append((x, y)))
    plane.moved.connect(lambda i, x, y: moves.append((i, x, y)))
    qtbot.mouseClick(plane.viewport(), Qt.MouseButton.LeftButton, pos=_at(plane, -1.0, 1.5))
    assert len(clicks) == 1 and clicks[0] == pytest.approx((-1.0, 1.5), abs=0.05)
    # a click on a point is not a new point
    qtbot.mouseClick(plane.viewport(), Qt.MouseButton.LeftButton, pos=_at(plane, 1.0, 1.0))
    assert len(clicks) == 1
    # press on point 1 and drag it: the plot reports where it went, and does not pan
    before = plane.plotItem.vb.viewRange()
    start, end = _at(plane, 1.0, 1.0), _at(plane, -0.5, -1.0)
    qtbot.mousePress(plane.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for f in np.linspace(0.1, 1.0, 8):
        qtbot.mouseMove(plane.viewport(), start + (end - start) * f)
    qtbot.mouseRelease(plane.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert moves and moves[-1][0] == 1
    assert moves[-1][1:] == pytest.approx((-0.5, -1.0), abs=0.05)
    np.testing.assert_allclose(plane.plotItem.vb.viewRange(), before)


def test_bands_follow_their_curves(qtbot):
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    x = np.arange(5.0)
    ys = [np.ones(5), 2 * np.ones(5)]
    plot.set_curves(x, ys, ["a", "b"])
    plot.set_bands(x, [y - 0.1 for y in ys], [y + 0.1 for y in ys])
    assert len(plot._bands) == 2
    plot.set_bands(x, [], [])
    assert plot._bands == []


def test_non_finite_pixels_are_drawn_not_left_transparent_and_the_bar_is_labelled(plane):
    """pyqtgraph leaves NaN and inf pixels transparent: white holes and stripes in a
    density. They are drawn as the low and the high end of the colour scale."""
    d = np.ones((4, 5), np.float32)
    d[1, :] = np.nan                       # a row where exp(log p) failed
    d[2, 2] = np.inf                       # and one that overflowed
    plane.set_image(d, (-2, 2, -2, 2), levels=(0.0, 2.0))
    shown = plane.image.image
    assert np.isfinite(shown).all()
    assert (shown[1] == 0.0).all() and shown[2, 2] == 2.0
    assert np.isnan(plane.image_values()[1]).all()     # the data itself is kept
    plane.set_colorbar_label("density p_t(x)")
    assert plane.colorbar.getAxis("right").labelText == "density p_t(x)"
    assert plane.colorbar_label() == "density p_t(x)"
    plane.set_axis_labels("z₁", "z₂")
    assert plane.axis_labels() == ("z₁", "z₂")
