"""The graph canvas (viz/graph_view.py), driven as a user would: set a small graph,
colour it, hover and click nodes, highlight a receptive field, export it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage

from viz import figure
from viz.graph_geometry import bin_range, edge_geometry
from viz.graph_view import NONE_COLOUR, PALETTE, GraphCanvas

# 6 nodes: a square 0-1-3-4, node 2 to the right with a self-loop, node 5 far right
POS = np.array([[0, 0], [1, 0], [2, 0.5], [1, 1], [0, 1], [3, 1]], np.float32)
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [2, 2], [1, 3], [5, 2]], np.int64)


@pytest.fixture
def canvas(qtbot):
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(600, 420)
    view.show()
    qtbot.waitExposed(view)
    view.set_graph(POS, EDGES)
    view.repaint()
    return view


def _at(view: GraphCanvas, x: float, y: float) -> QPoint:
    """Where data point (x, y) is on the viewport, in widget pixels."""
    return view.mapFromScene(view.plotItem.vb.mapViewToScene(QPointF(x, y)))


def _screen(view: GraphCanvas, i: int) -> QPoint:
    """Where node i is on the viewport."""
    return _at(view, float(POS[i, 0]), float(POS[i, 1]))


def _visible(items):
    return [it for it in items if it.isVisible()]


def test_edge_values_are_binned_into_one_item_per_bin(canvas):
    values = np.array([0.0, 0.1, 0.3, 0.45, 0.6, 0.8, 0.95, 1.0])
    canvas.set_edge_values(values, levels=(0.0, 1.0), n_bins=4, title="α")
    items = _visible(canvas.edge_items)
    assert len(items) == 4                               # 4 bins, never one item per edge
    seen = set()
    for item, (b, faded), owners in zip(canvas.edge_items, canvas.edge_item_keys,
                                        canvas.edge_item_edges, strict=True):
        if not item.isVisible():
            continue
        assert not faded
        lo, hi = bin_range(b, (0.0, 1.0), 4)
        for e in np.unique(owners):
            v = values[e]
            assert lo <= v <= hi, (b, e, v)
            seen.add(int(e))
        x, _ = item.getData()
        assert len(x) == 2 * len(owners)                 # pairs of points
    assert seen == set(range(len(EDGES)))                # every edge drawn once
    # wider pens for higher bins
    widths = {b: it.opts["pen"].widthF() for it, (b, _) in
              zip(canvas.edge_items, canvas.edge_item_keys, strict=True) if it.isVisible()}
    assert widths[3] > widths[0]
    assert canvas.edge_bar.isVisible()
    # None: plain grey edges in a single item
    canvas.set_edge_values(None)
    assert len(_visible(canvas.edge_items)) == 1
    assert not canvas.edge_bar.isVisible()


def test_self_loop_is_a_circle_and_directed_edges_get_arrowheads(canvas):
    canvas.set_graph(POS, EDGES, directed=True)
    segs, owner = edge_geometry(canvas.positions(), EDGES, directed=True, half=False,
                                px=0.01, radius_px=np.full(6, 4.5))
    loop = np.flatnonzero(EDGES[:, 0] == EDGES[:, 1])[0]
    ring = segs[owner == loop].reshape(-1, 2)
    centre = ring.mean(0)
    radius = np.hypot(*(ring - centre).T)
    assert np.ptp(radius) < 1e-3 * radius.mean() + 1e-9 and radius.mean() > 0
    assert np.hypot(*(centre - POS[2])) < 3 * radius.mean()      # beside its node
    # an ordinary directed edge: its line plus a 3-segment triangle at the target
    assert np.count_nonzero(owner == 0) == 4
    tip = segs[owner == 0][0, 1]
    assert np.hypot(*(tip - POS[1])) == pytest.approx(0.055, abs=1e-6)   # (4.5+1) px
    # the loop and arrows are drawn in the same per-bin items (no item per edge)
    canvas.set_edge_values(np.arange(8.0), n_bins=2)
    assert len(_visible(canvas.edge_items)) == 2


def test_edge_values_for_other_edges_and_half_edges(canvas):
    extra = np.concatenate([EDGES, [[0, 0], [1, 1], [2, 1]]])
    values = np.linspace(0, 1, len(extra))
    canvas.set_edge_values(values, edges=extra, half=True, n_bins=3)
    drawn = np.concatenate([o for it, o in zip(canvas.edge_items, canvas.edge_item_edges,
                                               strict=True) if it.isVisible()])
    assert set(np.unique(drawn)) == set(range(len(extra)))
    # half edges: from the midpoint to the target, so 1→2 and 2→1 are both visible
    segs, owner = canvas._geometry()
    for k in (1, len(extra) - 1):                       # 1→2 and 2→1
        s, t = extra[k]
        seg = segs[owner == k][0]
        np.testing.assert_allclose(seg[0], (POS[s] + POS[t]) / 2, atol=1e-6)
        np.testing.assert_allclose(seg[1], POS[t], atol=1e-6)
    canvas.set_edge_values(None)
    drawn = np.concatenate([o for it, o in zip(canvas.edge_items, canvas.edge_item_edges,
                                               strict=True) if it.isVisible()])
    assert set(np.unique(drawn)) == set(range(len(EDGES)))   # back to the graph's edges


def test_categorical_colours_group_nodes(canvas):
    codes = np.array([0, 1, 2, 0, -1, 1])
    canvas.set_node_colors(codes, categorical=True, names=["a", "b", "类别"], title="类")
    groups = {}
    for item, (g, _), nodes in zip(canvas.node_items, canvas.node_item_keys,
                                   canvas.node_item_nodes, strict=True):
        if item.isVisible():
            groups[g] = set(nodes.tolist())
            colour = item.opts["brush"].color().name()
            expected = NONE_COLOUR if g == 3 else PALETTE[g]
            assert colour == QColor(expected).name()
    assert groups == {0: {0, 3}, 1: {1, 5}, 2: {2}, 3: {4}}      # 3 = "none" (grey)
    assert canvas.legend.isVisible()
    labels = [label.text for _, label in canvas.legend.items]
    assert any("类别" in t for t in labels)
    canvas.set_node_colors(None, categorical=False)
    assert len(_visible(canvas.node_items)) == 1
    assert not canvas.legend.isVisible()


def test_hundreds_of_classes_keep_the_legend_to_its_rows(canvas):
    """Label propagation on a large graph can find hundreds of communities: one legend
    entry each froze the window for seconds (the monkey, 3.3 s)."""
    from viz.graph_drawing import LEGEND_ENTRIES

    rng = np.random.default_rng(0)
    pos = rng.normal(size=(600, 2)).astype(np.float32)
    canvas.set_graph(pos, np.zeros((0, 2), np.int64))
    canvas.set_node_colors(np.arange(600) % 500, categorical=True, title="community")
    with canvas.batch():
        pass
    labels = [label.text for _, label in canvas.legend.items]
    assert len(labels) == LEGEND_ENTRIES + 1                  # the title, 31 entries, "+N"
    assert "community" in labels[0] and labels[-1] == f"… +{500 - (LEGEND_ENTRIES - 1)}"
    canvas.set_node_colors(np.arange(600) % 5, categorical=True, title="community")
    with canvas.batch():
        pass
    assert len(canvas.legend.items) == 6


def test_continuous_colours_nan_is_grey(canvas):
    values = np.array([0.0, 0.5, np.nan, 1.0, 0.25, 0.75])
    canvas.set_node_colors(values, categorical=False, title="值", levels=(0.0, 1.0))
    grey = QColor(NONE_COLOUR).name()
    for item, nodes in zip(canvas.node_items, canvas.node_item_nodes, strict=True):
        if item.isVisible():
            is_grey = item.opts["brush"].color().name() == grey
            assert is_grey == (2 in nodes.tolist())
            if is_grey:
                assert nodes.tolist() == [2]
    assert canvas.node_bar.isVisible()
    assert canvas.node_bar.levels() == (0.0, 1.0)


def test_hover_shows_the_read_out(canvas, qtbot):
    canvas.set_hover_info(lambda i: f"node {i}: degree {int((i == EDGES).sum())}")
    hovered = []
    canvas.nodeHovered.connect(hovered.append)
    qtbot.mouseMove(canvas.viewport(), _screen(canvas, 3))
    qtbot.waitUntil(lambda: canvas.hovered() == 3, timeout=2000)
    assert canvas.readout_text() == "node 3: degree 3"
    assert hovered[-1] == 3
    # empty space: no node, no read-out (offscreen Qt drops a move sent at once)
    qtbot.wait(50)
    qtbot.mouseMove(canvas.viewport(), _at(canvas, 2.2, 0.0))
    qtbot.waitUntil(lambda: canvas.hovered() == -1, timeout=2000)
    assert canvas.readout_text() == ""
    assert hovered[-1] == -1


def test_click_selects_a_node_and_background_gives_minus_one(canvas, qtbot):
    with qtbot.waitSignal(canvas.nodeClicked) as blocker:
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=_screen(canvas, 5))
    assert blocker.args == [5]
    assert canvas.selected() == 5
    assert len(canvas.select_ring.data) == 1
    empty = _at(canvas, 2.2, 0.0)
    with qtbot.waitSignal(canvas.nodeClicked) as blocker:
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=empty)
    assert blocker.args == [-1]
    assert canvas.selected() == -1


def test_highlight_fades_nodes_and_edges_outside(canvas):
    canvas.set_edge_values(np.linspace(0, 1, len(EDGES)), n_bins=2)
    hops = np.array([0, 1, 2, 1, -1, -1])
    canvas.set_highlight(hops, selected=0)
    assert canvas.selected() == 0
    for item, (_, faded), nodes in zip(canvas.node_items, canvas.node_item_keys,
                                       canvas.node_item_nodes, strict=True):
        if item.isVisible():
            assert faded == bool(np.all(hops[nodes] < 0))
            assert item.opts["brush"].color().alpha() < 100 if faded else \
                item.opts["brush"].color().alpha() == 255
    faded_edges = set()
    for item, (_, faded), owners in zip(canvas.edge_items, canvas.edge_item_keys,
                                        canvas.edge_item_edges, strict=True):
        if item.isVisible() and faded:
            faded_edges |= set(np.unique(owners).tolist())
            assert item.opts["pen"].color().lightness() > 200        # close to white
    outside = {k for k, (s, t) in enumerate(EDGES) if hops[s] < 0 or hops[t] < 0}
    assert faded_edges == outside
    assert len(canvas.hop_rings[0].data) == 2 and len(canvas.hop_rings[1].data) == 1
    canvas.set_highlight(None)
    assert not any(f for it, (_, f) in zip(canvas.node_items, canvas.node_item_keys,
                                           strict=True) if it.isVisible())


def test_overlay_labels_sizes_and_positions(canvas, qtbot):
    canvas.set_overlay_edges(np.array([[0, 5], [4, 2]]), np.array([0.9, 0.7]), title="预测")
    assert canvas.overlay_item.isVisible()
    assert canvas.overlay_item.opts["pen"].style() == Qt.PenStyle.DashLine
    assert len(canvas.overlay_item.getData()[0]) == 4
    canvas.set_node_labels([f"n{i}" for i in range(6)])
    assert sum(it.isVisible() for it in canvas.label_items) == 6
    canvas.set_node_labels([f"n{i}" for i in range(6)], max_labels=3)
    assert sum(it.isVisible() for it in canvas.label_items) == 0
    canvas.select(2)
    assert [it.toPlainText() for it in canvas.label_items if it.isVisible()] == ["n2"]
    canvas.set_node_sizes(np.array([1, 4, 9, 16, 25, 0]), min_px=6, max_px=22)
    sizes = np.concatenate([it.data["size"] for it in canvas.node_items if it.isVisible()])
    assert sizes.min() == pytest.approx(6) and sizes.max() == pytest.approx(22)
    new = POS * 2
    canvas.set_positions(new, animate=True)
    qtbot.waitUntil(lambda: np.allclose(canvas.positions(), new), timeout=3000)
    with pytest.raises(ValueError):
        canvas.set_positions(POS[:3])


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_single_node_graphs(qtbot, n):
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(300, 200)
    view.show()
    pos = np.zeros((n, 2), np.float32)
    edges = np.array([[0, 0]] * n, np.int64).reshape(-1, 2)
    view.set_graph(pos, edges, directed=True)
    view.set_node_colors(np.zeros(n), categorical=False)
    view.set_node_colors(np.zeros(n, int), categorical=True)
    view.set_node_sizes(np.ones(n))
    view.set_edge_values(np.ones(len(edges)))
    view.set_highlight(np.zeros(n, int), selected=0 if n else -1)
    view.set_overlay_edges(edges)
    view.set_node_labels(["x"] * n)
    view.set_positions(pos + 1, animate=True)
    qtbot.waitUntil(lambda: view._animation is None or not view._animation.state().value,
                    timeout=3000)
    assert view.node_at(1.0, 1.0) == (0 if n else -1)
    view.repaint()
    assert not view.grab().isNull()


def test_export_renders_a_non_blank_image(canvas, tmp_path):
    canvas.set_node_colors(np.array([0, 1, 2, 0, -1, 1]), categorical=True)
    canvas.set_edge_values(np.linspace(0, 1, len(EDGES)), title="注意力")
    path = tmp_path / "graph.png"
    figure.render(canvas, str(path), "png", width=800)
    img = QImage(str(path))
    assert img.width() == 800
    arr = np.frombuffer(img.convertToFormat(QImage.Format.Format_RGB32).constBits(),
                        np.uint8).reshape(img.height(), img.width(), 4)
    assert (arr[..., :3] < 200).any(axis=-1).mean() > 0.005      # drawn, not blank
    svg = tmp_path / "graph.svg"
    figure.render(canvas, str(svg), "svg")
    assert "<path" in svg.read_text() or "<polyline" in svg.read_text()
    assert set(canvas.export_arrays()) >= {"pos", "edges", "node_values", "edge_values"}


@pytest.mark.parametrize("title", ["importance", "重要性"])
def test_a_colour_bar_title_set_while_hidden_sits_beside_the_bar(qtbot, canvas, title):
    """pyqtgraph sizes an axis for its label only while the label is visible: a title set
    on the hidden bar got an axis 0 px wide and was drawn over the colours."""
    canvas.set_edge_values(np.linspace(0, 1, 8), levels=(0.0, 1.0), title=title)
    qtbot.wait(50)
    bar = canvas.edge_bar
    axis = bar.getAxis("left")
    label = axis.label.mapRectToScene(axis.label.boundingRect())
    colours = bar.vb.sceneBoundingRect()
    assert bar.isVisible() and axis.label.isVisible()
    assert axis.width() >= 0.7 * axis.label.boundingRect().height()
    assert label.right() <= colours.left() + 1, (label, colours)


def test_the_same_colours_edges_and_places_again_redraw_only_the_legend(canvas, monkeypatch):
    """A language switch redraws every view with the same data: the canvas rebuilt its
    nodes and edges each time (most of the graph tab's retranslation for a big graph).
    Setting what is drawn already now redraws only the legend and the colour bars'
    titles; any real change still redraws."""
    calls: list[str] = []
    for part in ("_update_nodes", "_update_edges", "_update_legend"):
        own = getattr(canvas, part)
        monkeypatch.setattr(canvas, part, lambda own=own, part=part: (calls.append(part),
                                                                      own())[1])

    def draw(names, title, values, hops=None, edge_title="α"):
        with canvas.batch():
            canvas.set_node_colors(np.array([0, 1, 1, 0, 2, -1]), categorical=True,
                                   names=names, title=title)
            canvas.set_edge_values(values, levels=(0.0, 1.0), n_bins=4, title=edge_title)
            canvas.set_highlight(hops, 1)

    values = np.linspace(0, 1, len(EDGES))
    draw(["a", "b", "c"], "label", values)
    assert set(calls) == {"_update_nodes", "_update_edges", "_update_legend"}
    calls.clear()
    draw(["甲", "乙", "丙"], "标签", values.copy(), edge_title="注意力")   # texts only
    assert calls == ["_update_legend"]
    assert canvas.edge_bar.getAxis("left").labelText == "注意力"
    assert "标签" in [item.text for _, item in canvas.legend.items][0]
    calls.clear()
    draw(["甲", "乙", "丙"], "标签", values[::-1].copy())              # new edge values
    assert set(calls) - {"_update_legend"} == {"_update_edges"}
    calls.clear()
    draw(["甲", "乙", "丙"], "标签", values[::-1].copy(), hops=np.array([1, 0, 1, 1, 2, -1]))
    assert set(calls) - {"_update_legend"} == {"_update_nodes", "_update_edges"}
    calls.clear()
    canvas.set_positions(POS.copy())                                   # where they are
    assert calls == []
    canvas.set_positions(POS[::-1].copy())                             # moved
    assert {"_update_nodes", "_update_edges"} <= set(calls)
    canvas.set_positions(POS.copy())
    calls.clear()
    with canvas.batch():                                               # plain edges, twice
        canvas.set_edge_values(None)
    with canvas.batch():
        canvas.set_edge_values(None)
    assert calls == ["_update_edges"]
