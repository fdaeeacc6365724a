"""The head view (BertViz style) of the Transformer tab: lines as opaque as the weights,
hover to isolate a token's lines, heads as colours, export of its data and figure."""

from __future__ import annotations

import json
import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest

from app.tabs.transformer import TransformerTab
from tests.windows import open_tab
from viz.attention import head_colour
from viz.head_view import KEY, QUERY, HeadView


@pytest.fixture
def tab(qtbot, window) -> TransformerTab:
    t = open_tab(qtbot, window, "transformer")
    window.tabs_widget.setCurrentWidget(t)
    return t


def _move_to(qtbot, view: HeadView, side: int, index: int) -> None:
    """Point at a token; where the tab's layout is still settling (a just-shown tab
    widens its controls column), point again at where the token is now."""
    def there() -> bool:
        if view.lines.hover == (side, index):
            return True
        pt = view.mapFromScene(view.token_scene_pos(side, index))
        # away first: Qt sends no move to where the pointer already is, and a token that
        # moved under it since the last try would never be hovered; then past pyqtgraph's
        # move rate limit (a move within 1/mouseRateLimit s of the last is dropped)
        QTest.mouseMove(view.viewport(), QPoint(1, 1))
        time.sleep(2.0 / pg.getConfigOption("mouseRateLimit"))
        QTest.mouseMove(view.viewport(), QPoint(pt.x() + (-4 if side == QUERY else 4), pt.y()))
        return view.lines.hover == (side, index)
    qtbot.waitUntil(there, timeout=10_000)   # a loaded CI machine lays out slowly


def test_line_opacity_is_the_weight_of_every_head_of_the_layer(tab):
    t = tab.trace
    view = tab.head_lines_view.plot
    assert tab.view("head_view") is not None
    np.testing.assert_array_equal(view.weights(), t.weights[t.layer])
    np.testing.assert_allclose(view.line_alpha(), t.weights[t.layer], atol=1e-7)
    assert view.lines.names == tuple(f"head {h}" for h in range(t.weights.shape[1]))


def test_hovering_a_query_keeps_only_its_lines_and_names_it(qtbot, tab):
    t = tab.trace
    view = tab.head_lines_view.plot
    w = t.weights[t.layer]
    _move_to(qtbot, view, QUERY, 2)
    alpha = view.line_alpha()
    np.testing.assert_allclose(alpha[:, 2], w[:, 2], atol=1e-7)
    assert not np.delete(alpha, 2, axis=1).any()            # every other query's lines gone
    readout = tab.view("head_view").panel.readout.text()
    assert f"“{t.q_tokens[2]}”" in readout and "h0 →" in readout
    _move_to(qtbot, view, KEY, 4)                           # a key: the lines into it
    alpha = view.line_alpha()
    np.testing.assert_allclose(alpha[:, :, 4], w[:, :, 4], atol=1e-7)
    assert not np.delete(alpha, 4, axis=2).any()
    view.set_hover(-1, -1)
    np.testing.assert_allclose(view.line_alpha(), w, atol=1e-7)


def test_clicking_a_head_in_the_legend_hides_its_lines(qtbot, tab):
    view = tab.head_lines_view.plot
    rect = view.legend_scene_rect(1)
    pt = view.mapFromScene(rect.center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pt)
    assert not view.shown_heads()[1] and view.shown_heads()[[0, 2, 3]].all()
    assert not view.line_alpha()[1].any() and view.line_alpha()[0].any()
    data = tab.view("head_view").data()
    assert data.meta["heads_shown"] == [0, 2, 3]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pt)
    assert view.shown_heads().all()


def test_lines_are_drawn_in_each_heads_colour(qtbot):
    """A head whose query 0 puts all its weight on key 2 draws one opaque line there in
    its colour; a head with weight 0 draws nothing."""
    view = HeadView()
    qtbot.addWidget(view)
    view.resize(320, 360)
    view.show()
    w = np.zeros((2, 3, 3), np.float32)
    w[0, 0, 2] = 1.0
    view.set_heads(w, ["a", "b", "c"], ["x", "y", "z"], ["head 0", "head 1"])
    qtbot.wait(20)
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    a, b = view.token_scene_pos(QUERY, 0), view.token_scene_pos(KEY, 2)
    mid = view.mapFromScene((a + b) / 2)
    colour = QColor(image.pixel(mid.x(), mid.y()))
    want = QColor(head_colour(0))
    assert max(abs(colour.red() - want.red()), abs(colour.green() - want.green()),
               abs(colour.blue() - want.blue())) < 40
    other = view.mapFromScene((a + view.token_scene_pos(KEY, 0)) / 2)     # q0 → k0: weight 0
    assert QColor(image.pixel(other.x(), other.y())).lightness() > 245   # no line there


def test_export_data_round_trip_and_figure(qtbot, window, tab, tmp_path):
    t = tab.trace
    out = window.export_data(tab, "head_view", str(tmp_path / "head_view.json"))
    with open(out, encoding="utf-8") as fh:
        doc = json.load(fh)
    w = t.weights[t.layer]
    np.testing.assert_allclose(np.array(doc["arrays"]["weights"]),
                               w.reshape(-1, w.shape[2]), atol=1e-6)
    np.testing.assert_allclose(np.array(doc["arrays"]["line_alpha"]), w, atol=1e-6)
    assert doc["meta"]["keys"] == list(t.k_tokens) and doc["meta"]["layer"] == t.layer
    csv_out = window.export_data(tab, "head_view", str(tmp_path / "head_view.csv"))
    with open(csv_out, encoding="utf-8") as fh:
        rows = [r for r in fh if not r.startswith("#")]
    assert len(rows) == 1 + w.shape[0] * w.shape[1]
    png = window.export_figure(tab, "head_view", str(tmp_path / "head_view.png"))
    image = QImage(png)
    assert not image.isNull()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert len(colours) > 20            # lines, tokens and legend, not a blank page


def test_screen_lines_match_true_width_lines_and_exports_keep_the_width(qtbot, monkeypatch):
    """On screen a 2-px smoothed line is two one-pixel lines (a fast path of the raster
    engine); the picture matches the lines drawn at their true width within a few levels,
    and an SVG keeps one line of width 2 per weight."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    from viz import head_view

    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(11), size=(4, 11)).astype(np.float32)
    labels = [str(i) for i in range(11)]
    view = HeadView()
    qtbot.addWidget(view)
    view.resize(420, 420)
    view.show()
    view.set_heads(w, labels, labels, [f"head {h}" for h in range(4)])
    qtbot.wait(20)

    def picture() -> np.ndarray:
        view.lines._image_key = None            # the lines drawn anew, not blitted
        image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        return np.frombuffer(image.constBits(), np.uint8).reshape(
            image.height(), image.width(), 4)[..., :3].astype(float)

    drawn: list[int] = []
    strands = head_view._strands
    monkeypatch.setattr(head_view, "_strands", lambda p, width: drawn.append(
        strands(p, width)) or drawn[-1])
    fast = picture()
    assert drawn[-1] == 2                                # the view's rows are ≥ 12 px
    monkeypatch.setattr(head_view, "_strands", lambda p, width: 0)
    true = picture()
    diff = np.abs(fast - true)
    ink = 255 - true
    assert ink.mean() > 5                                # there are lines to compare
    assert diff.mean() < 0.15 * ink.mean(), (diff.mean(), ink.mean())
    assert abs((255 - fast).mean() - ink.mean()) < 0.15 * ink.mean()
    # an SVG (not the raster engine) gets the true width
    monkeypatch.setattr(head_view, "_strands", lambda p, width: drawn.append(
        strands(p, width)) or drawn[-1])
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    svg = QSvgGenerator()
    svg.setOutputDevice(buffer)
    svg.setViewBox(QRectF(0, 0, 420, 420))
    p = QPainter(svg)
    view.lines.paint(p, None)
    p.end()
    assert drawn[-1] == 0
    assert 'stroke-width="2"' in bytes(data).decode()


def test_many_lines_drawn_with_numpy_match_the_painters_aliased_lines(qtbot):
    """Above SMOOTH_LINES the screen's lines come from ``raster_lines`` (numpy), not the
    raster engine's slow translucent blending: the same pixels within a level or two,
    for shallow and steep lines, two-pixel and thinner pens, many heads overlapping."""
    from PySide6.QtGui import QPainter

    from viz import head_view

    rng = np.random.default_rng(1)
    for heads, q, row, width in ((4, 29, 24, 2.0), (12, 15, 20, 2.0), (8, 32, 10, 1.2)):
        alpha = rng.dirichlet(np.ones(q) * 0.3, size=(heads, q)).astype(np.float32)
        ys = 20 + (np.arange(q) + 0.5) * row
        shape = (int(ys.max()) + 10, 320)
        lines = (alpha, 72.0, 292.0, ys, ys.copy(), width)
        assert int((alpha >= head_view.MIN_ALPHA).sum()) > head_view.SMOOTH_LINES

        def on_white(image: QImage) -> np.ndarray:
            out = QImage(image.size(), QImage.Format.Format_RGB32)
            out.fill(Qt.GlobalColor.white)
            p = QPainter(out)
            p.drawImage(0, 0, image)
            p.end()
            return np.frombuffer(out.constBits(), np.uint8).reshape(
                out.height(), out.width(), 4)[..., :3].astype(float)

        ours = on_white(head_view.raster_lines(*lines, shape))
        qt = QImage(shape[1], shape[0], QImage.Format.Format_ARGB32_Premultiplied)
        qt.fill(Qt.GlobalColor.transparent)
        painter = QPainter(qt)
        head_view._Lines()._paint_lines(painter, *lines)      # aliased: > SMOOTH_LINES
        painter.end()
        theirs = on_white(qt)
        ink = (255 - theirs).mean()
        assert ink > 20, ink                                   # lines to compare
        assert abs((255 - ours).mean() - ink) < 0.02 * ink, ((255 - ours).mean(), ink)
        assert np.abs(ours - theirs).mean() < 1.5, np.abs(ours - theirs).mean()
