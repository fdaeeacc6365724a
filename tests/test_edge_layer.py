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


@pytest.fixture
def heavy(qtbot):
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(640, 460)
    view.show()
    qtbot.waitExposed(view)
    pos, edges = _hairball()
    view.set_graph(pos, edges)
    view.set_edge_values(np.random.default_rng(1).random(N_EDGES), levels=(0.0, 1.0),
                         title="α")
    view.repaint()
    return view


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
    assert heavy._edge_length / heavy._pixel_size() > LAYER_MIN_PX
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


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_exports_draw_the_items_not_the_image(heavy, tmp_path, fmt):
    """The layer hides itself in an export, where the items paint vector lines: the
    file is the same with the layer on or off."""
    on = tmp_path / f"on.{fmt}"
    off = tmp_path / f"off.{fmt}"
    figure.render(heavy, str(on), fmt)
    assert heavy.edge_layer.active() and heavy.edge_layer.isVisible()
    heavy.edge_layer.set_active(False)
    figure.render(heavy, str(off), fmt)
    if fmt == "png":
        a, b = QImage(str(on)), QImage(str(off))
        assert a.size() == b.size() and a == b
    else:
        text = on.read_text(encoding="utf-8")
        assert text == off.read_text(encoding="utf-8")
        assert text.count("<path") > 8          # the edge bins as vector paths
