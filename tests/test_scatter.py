"""viz.scatter.Scatter against pyqtgraph's own ScatterPlotItem: the same symbol
rectangles for every point and the same picture, through the fast lookup and its
fallbacks."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from viz import scatter
from viz.scatter import Scatter


def _image(item: pg.ScatterPlotItem) -> np.ndarray:
    plot = pg.PlotWidget()
    plot.resize(300, 240)
    plot.addItem(item)
    plot.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    image = QImage(300, 240, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    plot.render(painter)
    painter.end()
    out = np.frombuffer(image.constBits(), np.uint8).reshape(240, 300, 4).copy()
    plot.removeItem(item)
    plot.deleteLater()
    return out


def _cases(n: int, rng):
    pos = rng.normal(size=(n, 2))
    red, blue = pg.mkBrush(200, 30, 30, 230), pg.mkBrush(30, 30, 200, 120)
    white = pg.mkPen(255, 255, 255, 230, width=0.8)
    many = [pg.mkBrush(int(i), 100, 50) for i in rng.integers(0, 255, n)]
    return {
        "one style": dict(pos=pos, size=9, pen=white, brush=red, symbol="o"),
        "a few sizes": dict(pos=pos, size=rng.choice([4.0, 7.5, 11.0], n), pen=white,
                            brush=red, symbol="o"),
        "two brushes per point": dict(pos=pos, size=6, pen=None,
                                      brush=[red if i % 3 else blue for i in range(n)]),
        "mixed symbols": dict(pos=pos, size=8, pen=white, brush=blue,
                              symbol=["o" if i % 2 else "t" for i in range(n)]),
        "a style per point (pyqtgraph's own path)": dict(pos=pos, size=6, pen=None,
                                                         brush=many),
    }


@pytest.mark.parametrize("case", list(_cases(5, np.random.default_rng(0))))
def test_the_same_symbols_and_picture_as_pyqtgraph(qtbot, case):
    rng = np.random.default_rng(1)
    kwargs = _cases(400, rng)[case]
    ours, theirs = Scatter(pxMode=True, antialias=True), pg.ScatterPlotItem(pxMode=True,
                                                                            antialias=True)
    ours.setData(**kwargs)
    theirs.setData(**kwargs)
    assert (ours.data["sourceRect"]["w"] > 0).all() and (ours.data["sourceRect"]["h"] > 0).all()
    # the same atlas entries: the rectangles may sit elsewhere in each item's atlas, but
    # points of one style share one, and the pictures agree
    np.testing.assert_array_equal(ours.data["sourceRect"]["w"], theirs.data["sourceRect"]["w"])
    np.testing.assert_array_equal(ours.data["sourceRect"]["h"], theirs.data["sourceRect"]["h"])
    ours_key = ours.data["sourceRect"][["x", "y"]]
    theirs_key = theirs.data["sourceRect"][["x", "y"]]
    _, a = np.unique(ours_key, return_inverse=True)
    _, b = np.unique(theirs_key, return_inverse=True)
    assert len(np.unique(np.stack([a.ravel(), b.ravel()], 1), axis=0)) == len(np.unique(a))
    picture = _image(ours)
    assert (picture != picture[0, 0]).any(axis=2).sum() > 500     # the points were drawn
    np.testing.assert_array_equal(picture, _image(theirs))


def test_points_added_later_and_restyled_find_their_symbols(qtbot):
    rng = np.random.default_rng(2)
    red, green = pg.mkBrush("r"), pg.mkBrush("g")
    first, later = rng.normal(size=(50, 2)), rng.normal(size=(30, 2))
    ours, theirs = Scatter(pxMode=True), pg.ScatterPlotItem(pxMode=True)
    for item in (ours, theirs):
        item.setData(pos=first, size=7, brush=red)
        item.addPoints(pos=later, size=12, brush=green)
        item.setBrush([green] * 40 + [red] * 40)
        item.setSize(np.r_[np.full(40, 5.0), np.full(40, 9.0)])
    assert (ours.data["sourceRect"]["w"] > 0).all()
    np.testing.assert_array_equal(ours.data["sourceRect"]["w"], theirs.data["sourceRect"]["w"])
    picture = _image(ours)
    assert (picture != picture[0, 0]).any(axis=2).sum() > 100
    np.testing.assert_array_equal(picture, _image(theirs))


def test_a_restyle_asks_for_a_repaint_as_pyqtgraph_does(qtbot):
    """A restyle fills the symbols before pyqtgraph looks: it would then see nothing to
    do and not repaint the item (the old picture stayed on screen)."""
    for item in (Scatter(pxMode=True), pg.ScatterPlotItem(pxMode=True)):
        item.setData(pos=np.zeros((20, 2)), size=7, brush="r")
        repaints = []
        item.invalidate = lambda repaints=repaints: repaints.append(1)
        item.setBrush("g")
        item.setSize(np.r_[np.full(10, 5.0), np.full(10, 9.0)])
        assert len(repaints) == 2, type(item)


def test_more_styles_than_the_limit_go_through_pyqtgraph(qtbot, monkeypatch):
    calls = []
    atlas_get = type(pg.ScatterPlotItem().fragmentAtlas).__getitem__
    monkeypatch.setattr(type(pg.ScatterPlotItem().fragmentAtlas), "__getitem__",
                        lambda self, styles: calls.append(len(styles)) or atlas_get(self, styles))
    item = Scatter(pxMode=True)
    n = scatter.MAX_STYLES + 1
    item.setData(pos=np.zeros((n, 2)), size=np.arange(1.0, n + 1), brush="r")
    assert calls == [n]                      # pyqtgraph's own lookup, once per point
    calls.clear()
    item.setData(pos=np.zeros((1000, 2)), size=np.tile([3.0, 4.0], 500), brush="r")
    assert calls == [2]                      # ours: once per style
    assert (item.data["sourceRect"]["w"] > 0).all()
