"""The graph canvas's level of detail (viz/edge_layer.py): dense edges drawn as one image
of the view. Checked against the edge items drawing themselves, the reference the
layer must reproduce pixel for pixel while the view is still."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from viz import figure
from viz.edge_layer import LAYER_MIN_PX, SETTLE_MS
from viz.graph_view import GraphCanvas

N_NODES, N_EDGES = 2000, 8000


def _hairball(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pos = rng.random((N_NODES, 2)).astype(np.float32)
    src = rng.integers(0, N_NODES, N_EDGES)
    dst = (src + rng.integers(1, N_NODES, N_EDGES)) % N_NODES
    return pos, np.stack([src, dst], 1).astype(np.int64)


def _fill(view: GraphCanvas) -> GraphCanvas:
    pos, edges = _hairball()
    view.set_graph(pos, edges)
    view.set_edge_values(np.random.default_rng(1).random(N_EDGES), levels=(0.0, 1.0),
                         title="α")
    view.repaint()
    return view


@pytest.fixture
def heavy(qtbot):
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(640, 460)
    view.show()
    qtbot.waitExposed(view)
    return _fill(view)


def _grab(view: GraphCanvas) -> np.ndarray:
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(),
                                                              image.bytesPerLine())
    return data[:, : image.width() * 4].copy()


def _items_drawing(view: GraphCanvas) -> np.ndarray:
    """The view as the edge items draw it themselves (the layer switched off)."""
    layer = view.edge_layer
    layer.set_active(False)
    try:
        return _grab(view)
    finally:
        view._choose_edge_layer()


def _same(a: np.ndarray, b: np.ndarray) -> float:
    """The fraction of pixels that differ by more than 2 levels in a channel (under the
    translucent legend, blending over the image and over the items' own pixels rounds
    one level apart)."""
    diff = np.abs(a.reshape(-1, 4).astype(np.int16) - b.reshape(-1, 4).astype(np.int16))
    return float(np.mean(np.any(diff > 2, axis=1)))


def test_long_dense_edges_go_into_the_layer_and_a_small_graph_does_not(heavy, qtbot):
    assert heavy.edge_layer.active()
    assert heavy._edge_lengths.sum() / heavy._pixel_size() > LAYER_MIN_PX
    assert all(item.in_layer for item in heavy.edge_items)
    heavy.set_graph(np.array([[0, 0], [1, 0], [0, 1]], np.float32),
                    np.array([[0, 1], [1, 2]], np.int64))
    assert not heavy.edge_layer.active()
    assert not any(item.in_layer for item in heavy.edge_items)


def test_the_still_image_is_the_items_own_drawing(heavy):
    layered = _grab(heavy)
    assert heavy.edge_layer.settled()
    assert _same(layered, _items_drawing(heavy)) == 0.0
    assert _same(layered, _grab(heavy)) == 0.0


def test_a_pan_moves_the_old_image_and_the_edges_are_redrawn_once_still(heavy, qtbot):
    layer = heavy.edge_layer
    _grab(heavy)
    before = layer.renders
    (x0, x1), (y0, y1) = heavy.plotItem.vb.viewRange()
    shift = 0.1 * (x1 - x0)
    for step in range(1, 4):          # three frames of a drag: no drawing of the edges
        heavy.plotItem.vb.setRange(xRange=(x0 + step * shift / 3, x1 + step * shift / 3),
                                   yRange=(y0, y1), padding=0)
        heavy.viewport().repaint()
        assert not layer.settled()
    assert layer.renders == before
    qtbot.waitUntil(lambda: layer.renders > before and layer.settled(),
                    timeout=SETTLE_MS + 3000)
    assert _same(_grab(heavy), _items_drawing(heavy)) == 0.0


def test_recolouring_and_a_receptive_field_redraw_the_image(heavy):
    layer = heavy.edge_layer
    old = _grab(heavy)
    renders = layer.renders
    heavy.set_edge_values(np.random.default_rng(2).random(N_EDGES), levels=(0.0, 1.0),
                          title="α")
    recoloured = _grab(heavy)
    assert layer.renders == renders + 1 and layer.settled()
    assert _same(recoloured, old) > 0.01
    assert _same(recoloured, _items_drawing(heavy)) == 0.0
    hops = np.full(N_NODES, -1)
    hops[:50] = 1
    hops[0] = 0
    heavy.set_highlight(hops, selected=0)
    assert _same(_grab(heavy), _items_drawing(heavy)) == 0.0


def test_exports_draw_the_items_not_the_image(heavy, tmp_path):
    """The layer hides itself in an export, where the items paint their vector lines:
    the SVG is the same with the layer on or off."""
    on, off = tmp_path / "on.svg", tmp_path / "off.svg"
    renders = heavy.edge_layer.renders
    figure.render(heavy, str(on), "svg")
    assert heavy.edge_layer.renders == renders
    assert heavy.edge_layer.active() and heavy.edge_layer.isVisible()
    heavy.edge_layer.set_active(False)
    figure.render(heavy, str(off), "svg")
    text = on.read_text(encoding="utf-8")
    assert text == off.read_text(encoding="utf-8")
    assert text.count("<path") > 8          # the edge bins as vector paths


def test_a_png_export_draws_the_dense_edges_aliased_as_on_screen(heavy, tmp_path):
    """pyqtgraph smooths curves in exports; dense edges stay aliased, as the window
    draws them (7.6 s instead of 0.2 s for 50,000 long edges otherwise). At scale 1 the
    PNG's edge pixels are the window's."""
    for item in heavy.node_items:       # symbols are painted as paths in exports
        item.setVisible(False)
    renders = heavy.edge_layer.renders
    figure.render(heavy, str(tmp_path / "on.png"), "png", scale=1.0)
    assert heavy.edge_layer.renders == renders
    png = QImage(str(tmp_path / "on.png")).convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(png.constBits(), np.uint8).reshape(png.height(), png.bytesPerLine())
    exported = data[:, : png.width() * 4]
    window = _grab(heavy)
    assert exported.shape == window.shape
    assert _same(exported, window) < 0.015     # (0.2-0.4 %: text; smoothed edges 4.5 %)
    for item in heavy.edge_items:
        item.setVisible(False)
    figure.render(heavy, str(tmp_path / "bare.png"), "png", scale=1.0)
    bare = QImage(str(tmp_path / "bare.png")).convertToFormat(QImage.Format.Format_RGB32)
    bare_data = np.frombuffer(bare.constBits(), np.uint8).reshape(bare.height(),
                                                                   bare.bytesPerLine())
    assert _same(exported, bare_data[:, : bare.width() * 4]) > 0.2   # the edges are there


def test_a_graph_elsewhere_and_a_far_pan_are_drawn_where_they_are(heavy, qtbot):
    """The layer's extent follows the view (it once kept the first view's, and a graph
    at other coordinates, or a pan away from there, lost its edges)."""
    pos, edges = _hairball(3)
    heavy.set_graph(pos + 100.0, edges)
    assert heavy.edge_layer.active()
    assert _same(_grab(heavy), _items_drawing(heavy)) == 0.0
    vb = heavy.plotItem.vb
    vb.setRange(xRange=(100.0, 100.3), yRange=(100.0, 100.3), padding=0)   # zoomed in
    _grab(heavy)
    vb.setRange(xRange=(100.7, 101.0), yRange=(100.7, 101.0), padding=0)   # far away
    qtbot.waitUntil(lambda: (_grab(heavy) is not None) and heavy.edge_layer.settled(),
                    timeout=SETTLE_MS + 3000)
    assert heavy.edge_layer.active()
    assert _same(_grab(heavy), _items_drawing(heavy)) == 0.0


def test_few_edges_stay_items_however_far_one_zooms(heavy):
    """Length off screen costs nothing to draw: a small graph zoomed in stays items."""
    rng = np.random.default_rng(0)
    heavy.set_graph(rng.random((200, 2)).astype(np.float32),
                    rng.integers(0, 200, (600, 2)).astype(np.int64))
    heavy.plotItem.vb.setRange(xRange=(0.4, 0.401), yRange=(0.4, 0.401), padding=0)
    assert not heavy.edge_layer.active()


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_a_whole_tab_export_gets_the_items_lines(qtbot, tmp_path, fmt):
    """A whole tab is exported by ``QWidget.render``, out of export mode: the layer
    steps aside for any painter but the screen's, so the file is the same with the
    layer on or off (not the screen's image scaled up)."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    tab = QWidget()
    qtbot.addWidget(tab)
    heavy = GraphCanvas(tab)
    QVBoxLayout(tab).addWidget(heavy)
    tab.resize(700, 520)
    tab.show()
    qtbot.waitExposed(tab)
    _grab(_fill(heavy))
    assert heavy.edge_layer.active()
    on, off = tmp_path / f"on.{fmt}", tmp_path / f"off.{fmt}"
    renders = heavy.edge_layer.renders
    figure.render(tab, str(on), fmt)
    assert heavy.edge_layer.renders == renders
    heavy.edge_layer.set_active(False)
    figure.render(tab, str(off), fmt)
    if fmt == "svg":
        assert on.read_text(encoding="utf-8") == off.read_text(encoding="utf-8")
    else:
        assert QImage(str(on)) == QImage(str(off))
