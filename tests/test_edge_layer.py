"""The graph canvas's level of detail (viz/edge_layer.py): dense edges drawn as one image
of the view. Checked against the edge items drawing themselves, the reference the
layer must reproduce pixel for pixel while the view is still."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPen, QTransform

from viz import figure
from viz.edge_layer import (
    COVER_TIMES,
    FRAME_MS,
    HIDDEN_MAX,
    LAYER_MIN_PX,
    SETTLE_MS,
    drawing_ms,
    parts_now,
    visible_lengths,
)
from viz.graph_view import GraphCanvas

N_NODES, N_EDGES = 2000, 8000


def _hairball(seed: int = 0, n_nodes: int = N_NODES,
              n_edges: int = N_EDGES) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pos = rng.random((n_nodes, 2)).astype(np.float32)
    src = rng.integers(0, n_nodes, n_edges)
    dst = (src + rng.integers(1, n_nodes, n_edges)) % n_nodes
    return pos, np.stack([src, dst], 1).astype(np.int64)


def _fill(view: GraphCanvas, **size) -> GraphCanvas:
    pos, edges = _hairball(**size)
    view.set_graph(pos, edges)
    view.set_edge_values(np.random.default_rng(1).random(len(edges)), levels=(0.0, 1.0),
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


def test_visible_lengths_are_the_parts_of_the_segments_inside_the_view():
    """Against a dense sampling of each segment: inside, outside, crossing the view,
    parallel to a side, of length zero."""
    rng = np.random.default_rng(0)
    points = rng.uniform(-0.5, 1.5, (400, 2, 2))
    points[:5, :, 1] = [[1.0, 1.0], [-0.3, -0.3], [2.5, 2.5], [0.5, 0.5], [0.1, 0.1]]
    points[0, :, 0] = [-0.5, 1.5]                                   # across, level
    points[3, 1, 0] = points[3, 0, 0]                               # a point
    transform = QTransform(300.0, 0.0, 0.0, -200.0, 50.0, 400.0)    # y up, as a plot
    lengths = visible_lengths(points, transform, 400.0, 300.0)
    t = np.linspace(0.0, 1.0, 4001)                 # steps of 0.25 px at most
    x = 300 * points[:, :1, 0] + 300 * (points[:, 1:, 0] - points[:, :1, 0]) * t + 50
    y = -200 * points[:, :1, 1] - 200 * (points[:, 1:, 1] - points[:, :1, 1]) * t + 400
    inside = ((x >= 0) & (x <= 400) & (y >= 0) & (y <= 300)).mean(axis=1)
    whole = np.hypot(x[:, -1] - x[:, 0], y[:, -1] - y[:, 0])
    assert np.allclose(lengths, inside * whole, atol=0.5)
    assert lengths[3] == 0.0 and lengths[1] == 0.0 and lengths[2] == 0.0
    assert lengths[0] == pytest.approx(400.0) and whole[0] == pytest.approx(600.0)
    assert (lengths > 0).mean() > 0.3 and (lengths < whole - 1).mean() > 0.3


def _parts(lengths_px: list[float], counts: list[int], widths: list[float]):
    """Parts of horizontal segments of the given on-screen lengths in a 1000 x 500 view
    (the identity transform), one pen each."""
    parts = []
    for length, count, width in zip(lengths_px, counts, widths, strict=True):
        y = np.linspace(1.0, 499.0, count)
        points = np.stack([np.stack([np.full(count, 0.5), y], 1),
                           np.stack([np.full(count, 0.5 + length), y], 1)], 1)
        pen = QPen(QColor("black"), width)
        pen.setCosmetic(True)
        parts.append((pen, points))
    return parts


def test_a_slow_change_draws_the_top_items_at_once_only_where_they_cover_the_rest():
    """``parts_now``: all parts if they are cheap; the fewest on top that cover the view
    ``COVER_TIMES`` over if all would take more than ``FRAME_MS``; all again where the
    top is too thin to hide what is under it, or too slow itself."""
    size, identity = (1000.0, 500.0), QTransform()
    cheap = _parts([100.0] * 4, [200] * 4, [1.0, 2.0, 3.0, 4.0])
    assert drawing_ms(cheap, identity, size, 1.0)[0].sum() < FRAME_MS
    assert parts_now(cheap, identity, size, 1.0) == 4
    dense = _parts([999.0] * 8, [2000] * 8, [0.6, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0])
    times, covers = drawing_ms(dense, identity, size, 1.0)
    assert times.sum() > FRAME_MS
    assert np.allclose(covers, 2000 * 999 * np.maximum([0.6, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5,
                                                        4.0], 1.0) / 5e5)
    n = parts_now(dense, identity, size, 1.0)
    assert 1 <= n < 8
    assert covers[8 - n:].sum() >= COVER_TIMES > covers[8 - n + 1:].sum()
    assert times[8 - n:].sum() <= FRAME_MS
    # at twice the pixel ratio the same wide lines cover as much, with twice the pixels
    times2, covers2 = drawing_ms(dense, identity, size, 2.0)
    assert np.allclose(covers2[1:], covers[1:]) and np.all(times2[2:] > 1.9 * times[2:])
    sparse = _parts([999.0] * 8, [600] * 8, [1.0] * 8)     # slow, but nothing covers
    assert drawing_ms(sparse, identity, size, 1.0)[0].sum() > FRAME_MS
    assert parts_now(sparse, identity, size, 1.0) == 8
    slow_top = _parts([999.0] * 3, [1000, 1000, 12000], [1.0, 1.0, 4.0])
    assert drawing_ms(slow_top, identity, size, 1.0)[0][-1] > FRAME_MS
    assert parts_now(slow_top, identity, size, 1.0) == 3


@pytest.fixture
def hairball(qtbot):
    """Dense enough that drawing every edge is predicted over ``FRAME_MS``, and the
    strongest bins cover the view ``COVER_TIMES`` over."""
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(640, 460)
    view.show()
    qtbot.waitExposed(view)
    _fill(view, n_nodes=3000, n_edges=30000)
    _grab(view)
    qtbot.waitUntil(view.edge_layer.settled, timeout=SETTLE_MS + 3000)
    if view.viewport().devicePixelRatioF() != 1.0:
        pytest.skip("the cost model's figures are for a pixel ratio of 1")
    return view


def test_a_recolour_too_slow_for_a_frame_shows_the_top_bins_then_all_once_still(hairball,
                                                                                qtbot):
    layer = hairball.edge_layer
    assert _same(_grab(hairball), _items_drawing(hairball)) == 0.0
    for seed in (2, 3, 4):            # a stream of new values: each drawn in part at once
        renders = layer.renders
        hairball.set_edge_values(np.random.default_rng(seed).random(30000),
                                 levels=(0.0, 1.0), title="α")
        part = _grab(hairball)
        assert layer.renders == renders + 1 and not layer.settled()
    # the timer the last recolour started sharpens the image, with one more drawing
    qtbot.waitUntil(lambda: layer.renders > renders + 1, timeout=SETTLE_MS + 3000)
    sharp = _grab(hairball)
    assert layer.settled() and layer.renders == renders + 2
    _grab(hairball)
    assert layer.renders == renders + 2         # settled: nothing drawn again
    assert 0.0 < layer.part_differs <= HIDDEN_MAX     # measured: the next goes in part too
    exact = _items_drawing(hairball)
    assert _same(sharp, exact) == 0.0
    assert 0.0 < _same(part, exact) < 0.01  # the bins underneath showed in few pixels


def test_a_highlight_over_a_hairball_is_drawn_whole_at_once(hairball):
    """The faded edges are 1 px wide, drawn a pixel at a time: those that would hide
    the rest take longer than a frame themselves, so all is drawn at once."""
    hops = np.full(3000, -1)
    hops[:30] = 1
    hops[0] = 0
    hairball.set_highlight(hops, selected=0)
    drawn = _grab(hairball)
    layer = hairball.edge_layer
    size = (hairball.viewport().width(), hairball.viewport().height())
    assert drawing_ms(layer._parts(), layer._transform, size, 1.0)[0].sum() > FRAME_MS
    assert layer.settled()
    assert _same(drawn, _items_drawing(hairball)) == 0.0


def test_a_view_whose_part_hid_too_much_draws_every_change_whole(qtbot):
    """A Gaussian blob: the top bins cover the whole view eight times over, bunched in
    the core, and the sparse rim's lower bins differ in more than ``HIDDEN_MAX`` of the
    pixels. Measured when the sharp image follows, that view then draws changes whole."""
    rng = np.random.default_rng(0)
    pos = np.clip(rng.normal(0.5, 0.15, (3000, 2)), 0, 1).astype(np.float32)
    src = rng.integers(0, 3000, 30000)
    edges = np.stack([src, (src + rng.integers(1, 3000, 30000)) % 3000], 1)
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(640, 460)
    view.show()
    qtbot.waitExposed(view)
    view.set_graph(pos, edges.astype(np.int64))
    layer = view.edge_layer

    def recolour(seed: int) -> None:
        view.set_edge_values(np.random.default_rng(seed).random(30000), levels=(0.0, 1.0),
                             title="α")
        _grab(view)

    recolour(1)
    qtbot.waitUntil(lambda: (_grab(view) is not None) and layer.settled(),
                    timeout=SETTLE_MS + 3000)
    recolour(2)
    assert not layer.settled()                      # in part ...
    qtbot.waitUntil(lambda: (_grab(view) is not None) and layer.settled(),
                    timeout=SETTLE_MS + 3000)
    assert layer.part_differs > HIDDEN_MAX          # ... which hid too much
    renders = layer.renders
    recolour(3)
    assert layer.settled() and layer.renders == renders + 1     # whole, at once
    assert _same(_grab(view), _items_drawing(view)) == 0.0


def _png(view, path, scale: float = 1.0) -> np.ndarray:
    figure.render(view, str(path), "png", scale=scale)
    png = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(png.constBits(), np.uint8).reshape(png.height(), png.bytesPerLine())
    return data[:, : png.width() * 4].copy()


def test_a_screen_size_png_takes_the_sharp_image_and_draws_lines_only_when_it_must(
        hairball, tmp_path, monkeypatch):
    """At the size on screen the PNG's edges are the window's sharp image, not drawn
    again (a 50,000-edge hairball's PNG took 2.4x Qt's grab, every line painted twice);
    an image drawn in part, or edges changed since, are drawn line by line in the PNG;
    enlarged, the items paint their own lines. Each is the window's picture."""
    from viz import edge_layer

    drawn = []
    real = edge_layer._draw_lines
    monkeypatch.setattr(edge_layer, "_draw_lines",
                        lambda p, parts: drawn.append(len(parts)) or real(p, parts))
    layer = hairball.edge_layer
    for item in hairball.node_items:          # symbols are painted as paths in exports
        item.setVisible(False)
    window = _grab(hairball)
    assert layer.settled() and not drawn
    sharp = _png(hairball, tmp_path / "sharp.png")
    assert not drawn and _same(sharp, window) < 0.015
    hairball.set_edge_values(np.random.default_rng(7).random(30000), levels=(0.0, 1.0),
                             title="α")
    part = _grab(hairball)
    assert not layer.settled() and len(drawn) == 1      # the top bins, on screen
    exported = _png(hairball, tmp_path / "part.png")
    assert len(drawn) == 2 and drawn[-1] == len(layer._parts())   # every bin, in the PNG
    exact = _items_drawing(hairball)
    assert _same(exported, exact) < 0.015 and _same(part, exact) > 0.0
    enlarged = _png(hairball, tmp_path / "big.png", scale=2.0)
    assert len(drawn) == 2 and enlarged.shape[0] == 2 * exported.shape[0]
    assert layer.isVisible()
