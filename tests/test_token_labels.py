"""Every token or row an axis stands for is named (issue 32, item 2), and small heatmaps
open enlarged on a click (item 10): the axes get smaller type or turned labels, and
below the smallest type the view asks for the height that names them all (its panel
grows, the grid of views scrolls). The window-wide walk is in tests/test_figures.py;
the check itself (tests/figure_checks.py) is tried here on an axis that thins."""

from __future__ import annotations

import figure_checks as fc
import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QCoreApplication, QPoint, Qt

from viz.attention import HeadGrid, PanelRow
from viz.head_view import HeadView
from viz.heatmap import MIN_POINT, TokenAxis
from viz.neuron_view import NeuronPlot

DIGITS = ["▸", "3", "1", "4", "1", "5", "9", "2", "6", "■", "·", "·"]
WORDS = ["[CLS]", "the", "cat", "sat", "on", "the", "mat", ",", "and", "then", "it",
         "fell", "asleep", ".", "[SEP]"]


def _weights(heads: int, q: int, k: int) -> np.ndarray:
    w = np.random.default_rng(0).random((heads, q, k)).astype(np.float32)
    return w / w.sum(-1, keepdims=True)


def _grown(qtbot, widget, timeout: int = 5_000) -> None:
    """Let the widget take the minimum size it asked for (from the event loop)."""
    qtbot.wait(30)
    qtbot.waitUntil(lambda: widget.height() >= widget.minimumHeight()
                    and widget.width() >= widget.minimumWidth(), timeout=timeout)
    qtbot.wait(30)


def test_the_check_finds_an_axis_that_skips_or_crowds_its_rows(qtbot):
    """pyqtgraph culls no explicit tick, so 40 rows in 120 px overlap: found."""
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(200, 160)
    plot.show()
    plot.plot(np.arange(40.0), np.arange(40.0))
    plot.plotItem.getAxis("left").setTicks([[(i, f"row {i}") for i in range(40)]])
    plot.plotItem.setRange(yRange=(0, 39), padding=0)
    # (until laid out, which a loaded machine took more than 30 ms to do, the axis
    # draws no label at all: "40 of 40 labels not drawn")
    qtbot.waitExposed(plot)
    try:
        qtbot.waitUntil(lambda: any("overlap" in f for f in fc.scene_label_problems(plot)[1]),
                        timeout=5_000)
    except qtbot.TimeoutError:
        raise AssertionError(fc.scene_label_problems(plot)[1]) from None
    plot.plotItem.getAxis("left").setTicks([[(i, f"row {i}") for i in range(0, 40, 8)]])
    try:                                                # five rows named: fine by itself
        qtbot.waitUntil(lambda: fc.scene_label_problems(plot)[1] == [], timeout=5_000)
    except qtbot.TimeoutError:
        raise AssertionError(fc.scene_label_problems(plot)[1]) from None
    axis = TokenAxis("left")                           # a token axis stands for all rows
    assert fc._expected_ticks(axis) is None


def test_every_head_names_every_token_and_grows_when_the_cells_are_too_small(qtbot):
    """The cross-attention grid read "3 4 5 2 ■ ·" for "3 1 4 1 5 9 2 6 ■ · ·": every
    n-th token. Now every token on both axes of every head, in smaller type, and a grid
    too short for even that asks for the height it needs."""
    grid = HeadGrid()
    qtbot.addWidget(grid)
    grid.resize(340, 260)
    grid.show()
    grid.set_heads(_weights(4, len(DIGITS), len(DIGITS)), DIGITS, DIGITS,
                   [f"head {h}" for h in range(4)])
    _grown(qtbot, grid)
    assert grid.minimumHeight() > 260, "the grid asked for more height"
    for plot in grid.plots:
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            assert axis.shown_labels() == DIGITS
            assert axis.point_size() >= MIN_POINT and axis.fits()
            assert grid.cell_px >= axis.min_cell_px() - 1e-6
    checked, found = fc.scene_label_problems(grid)
    assert checked == 8 * len(DIGITS) and found == [], found
    grid.resize(900, 900)                    # room enough: the labels at full size again
    qtbot.wait(50)
    assert grid.plots[0].getAxis("left").point_size() > MIN_POINT
    assert fc.scene_label_problems(grid)[1] == []


def test_words_turn_on_a_bottom_axis_and_are_all_drawn(qtbot):
    grid = HeadGrid()
    qtbot.addWidget(grid)
    grid.resize(300, 300)
    grid.show()
    grid.set_heads(_weights(1, len(WORDS), len(WORDS)), WORDS, WORDS, ["head 0"])
    _grown(qtbot, grid)
    bottom = grid.plots[0].getAxis("bottom")
    assert bottom.rotated()
    assert [t for _, t in bottom.rotated_label_rects()] == WORDS
    assert fc.scene_label_problems(grid)[1] == []


def test_a_click_on_a_thumbnail_opens_it_enlarged_with_every_token(qtbot):
    """Twelve 60-px maps without axes (the pretrained tab's every head): a click opens
    the head large, its tokens named on both axes, its values and scale kept."""
    grid = HeadGrid()
    qtbot.addWidget(grid)
    grid.resize(420, 300)
    grid.show()
    w = _weights(12, len(WORDS), len(WORDS))
    grid.set_heads(w, WORDS, WORDS, [f"h{h}" for h in range(12)], ticks=False)
    qtbot.wait(50)
    assert grid.thumbnails()
    with qtbot.waitSignal(grid.headClicked) as clicked:
        centre = grid.plots[5].vb.sceneBoundingRect().center()
        qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton,
                         pos=QPoint(int(centre.x()), int(centre.y())))
    assert clicked.args == [5]
    dialog = grid._enlarged
    qtbot.waitUntil(dialog.isVisible, timeout=3_000)
    qtbot.wait(100)
    big = dialog.grid
    np.testing.assert_array_equal(big.weights()[0], w[5])
    assert big.cell_px > 3 * grid.cell_px
    assert big.plots[0].getAxis("left").shown_labels() == WORDS
    assert fc.scene_label_problems(big)[1] == []


def test_a_step_panel_opens_enlarged_with_its_own_colours(qtbot):
    row = PanelRow()
    qtbot.addWidget(row)
    row.resize(340, 340)
    row.show()
    n = len(DIGITS)
    mask = np.tril(np.ones((n, n), bool))
    raw = np.random.default_rng(1).normal(size=(n, n)).astype(np.float32)
    row.set_panels(mask, raw, np.where(mask, raw, -np.inf), _weights(1, n, n)[0],
                   DIGITS, DIGITS, ["mask", "raw", "masked", "softmax"])
    _grown(qtbot, row)
    assert row.thumbnails()
    dialog = row.enlarge(1)
    qtbot.wait(100)
    lim = float(np.abs(raw).max())
    assert tuple(dialog.grid.colorbar.levels()) == (-lim, lim)
    assert dialog.grid.colorbar.colorMap().name == row.score_bar.colorMap().name
    assert fc.scene_label_problems(dialog.grid)[1] == []


def test_the_head_view_names_every_token_and_asks_for_the_height(qtbot):
    """At 1280×800 the head view named 8 of 15 tokens while its lines went to all 15."""
    view = HeadView()
    qtbot.addWidget(view)
    view.resize(260, 160)
    view.show()
    view.set_heads(_weights(12, 15, 15), WORDS, WORDS, [f"head {h}" for h in range(12)])
    _grown(qtbot, view)
    assert view.height() > 160
    rects = view.lines.token_rects()
    assert [t for _, t in rects] == [*WORDS, *WORDS]
    checked, found = fc.scene_label_problems(view)
    assert checked == 30 and found == [], found


def test_the_neuron_view_names_every_key_and_has_a_scale_for_q_and_k(qtbot):
    view = NeuronPlot()
    qtbot.addWidget(view)
    view.resize(280, 200)
    view.show()
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=32).astype(np.float32), rng.normal(size=(15, 32)).astype(
        np.float32)
    s = k @ q / np.sqrt(32)
    view.set_neurons(q, k, s, np.exp(s) / np.exp(s).sum(), WORDS, WORDS[0],
                     ["q", "k", "q ⊙ k", "q·k/√d", "softmax"])
    _grown(qtbot, view)
    assert view.plots[1].getAxis("left").shown_labels() == WORDS
    assert fc.scene_label_problems(view)[1] == []
    lim = float(max(np.abs(q).max(), np.abs(k).max()))
    np.testing.assert_allclose(view.qk_bar.levels(), (-lim, lim), rtol=1e-6)
    assert view.qk_bar.isVisible()


def test_the_neuron_views_q_times_k_has_its_own_signed_scale_under_it(qtbot):
    """q ⊙ k was coloured on a scale nobody could read (issue 32, item 10): it gets its
    own colour bar, symmetric about 0 over the largest |q_i k_i|, in the diverging map
    of its image, drawn under the q ⊙ k heatmap (the q and k bar under k)."""
    view = NeuronPlot()
    qtbot.addWidget(view)
    view.resize(400, 430)
    view.show()
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=32).astype(np.float32), 3 * rng.normal(size=(15, 32)).astype(
        np.float32)
    s = k @ q / np.sqrt(32)
    view.set_neurons(q, k, s, np.exp(s) / np.exp(s).sum(), WORDS, WORDS[0],
                     ["q", "k", "q ⊙ k", "q·k/√d", "softmax"])
    _grown(qtbot, view)
    bar, image = view.prod_bar, view.images[2]
    lim = float(np.abs(np.outer(np.ones(15), q) * k).max())
    np.testing.assert_allclose(bar.levels(), (-lim, lim), rtol=1e-6)
    np.testing.assert_allclose(image.getLevels(), (-lim, lim), rtol=1e-6)
    # its own range: not q and k's (here three times wider)
    assert abs(view.qk_bar.levels()[1] - lim) > 0.1 * lim
    # diverging: the ends are a blue and a red, the middle (0) near white
    lut = bar.colorMap().getLookupTable(nPts=3, alpha=False)
    assert lut[0][2] > lut[0][0] and lut[2][0] > lut[2][2] and min(lut[1]) > 200
    assert bar.colorMap().getLookupTable(nPts=9).tolist() == \
        image.getColorMap().getLookupTable(nPts=9).tolist()
    # drawn, under the q ⊙ k cells and as wide as about them
    assert bar.isVisible()
    cells = view.plots[2].vb.sceneBoundingRect()
    rect = bar.sceneBoundingRect()
    assert rect.top() >= cells.bottom() - 1
    assert rect.left() >= cells.left() - 2 and rect.right() <= cells.right() + 2
    assert rect.width() > 0.6 * cells.width()
    qk = view.qk_bar.sceneBoundingRect()
    assert qk.right() <= cells.left() + 2           # q and k's bar is left of it
    # each bar names −t, 0 and t (t a round number near its limit), fewer where they
    # would touch on a short bar; at the narrow width of the pretrained tab's panel at
    # 1280 × 800 pyqtgraph's own ticks read "-20 2" (−2, 0 and 2 touching)
    for width in (400, 280, 275):
        view.resize(width, view.height())
        qtbot.wait(40)
        for b in (view.qk_bar, view.prod_bar):
            b.axis.picture = None       # the labels as they are drawn now
            drawn = sorted(fc._drawn_ticks(b.axis), key=lambda d: d[0].left())
            texts = [t for _, t in drawn]
            top = float(b.levels()[1])
            t = float(texts[-1])
            assert top / 2.5 <= t <= top and set(texts) <= {f"{-t:g}", "0", f"{t:g}"}, texts
            assert len(texts) >= (3 if width == 400 else 1)
            for (a, _), (c, _) in zip(drawn, drawn[1:], strict=False):
                assert c.left() - a.right() >= 3, (width, texts)


def test_the_heads_take_the_layout_that_makes_their_cells_largest(qtbot):
    """Four heads stacked in a column or two by two (issue 32, item 10: at 1280 × 800 the
    transformer's four heads were a column of ~110 px maps): the grid picks the column
    count whose drawn cells are the largest of every layout it could take, measured on
    the view boxes, in a tall panel (one column) as in a wider one (two by two) and a
    flat one (one row)."""
    weights = _weights(4, 11, 11)
    keys = ["3", "1", "4", "1", "5", "9", "2", "6", "■", "·", "·"]

    def drawn(size, cols):
        grid = HeadGrid()
        qtbot.addWidget(grid)
        grid.resize(*size)
        grid.show()
        grid.set_heads(weights, DIGITS[:11], keys, [f"head {h}" for h in range(4)],
                       cols=cols, swatches=True)
        qtbot.wait(40)
        widths = {round(p.vb.width() / 11, 2) for p in grid.plots}
        assert len(widths) == 1           # one cell size for every head
        return grid.columns(), widths.pop(), grid.size().toTuple()

    chosen = {}
    for size in ((335, 700), (600, 500), (900, 300)):
        cols, px, _ = drawn(size, None)
        forced = {c: drawn(size, c)[1] for c in (1, 2, 3, 4)}
        assert px >= max(forced.values()) - 0.05, (size, cols, px, forced)
        assert forced[cols] == pytest.approx(px, abs=0.05)
        chosen[size] = cols
    assert chosen == {(335, 700): 1, (600, 500): 2, (900, 300): 4}


@pytest.mark.parametrize("size, least", [((1280, 800), 3.9), ((1600, 1000), 4.5)],
                         ids=["1280x800", "1600x1000"])
@pytest.mark.parametrize("code", ["en", "zh_CN"])
def test_the_messages_into_a_node_give_each_feature_a_column_to_read(qtbot, window, size,
                                                                      least, code):
    """"Messages into node 0" drew its 32 features in ~30 px at 1280 × 800 (issue 32,
    item 10): its colour bar took 60 of the view's ~210 px and the row axis ~100 for
    "aggregate (sum)". The bar lies under the matrix now and the two sums are named
    over their rows; each feature's column, measured on the view box, is at least
    ``least`` pixels (1.4-1.8 and 2.1-3.1 before, 4.1 and 4.6-5.4 now), and every
    neighbour is still named."""
    from tests.windows import open_tab

    window.resize(*size)
    window.set_language(code)
    tab = open_tab(qtbot, window, "graph")
    qtbot.waitUntil(lambda: tab.result is not None and tab.result.message is not None,
                    timeout=60_000)
    qtbot.wait(300)
    m = tab.result.message
    plot = tab.messages_view.plot
    features = m.messages.shape[1]
    assert features == 32                   # the default model's hidden units
    px = plot.plotItem.vb.width() / features
    assert px >= least, px
    bar = plot.colorbar.sceneBoundingRect()
    assert bar.top() >= plot.plotItem.vb.sceneBoundingRect().bottom()     # under it
    ticks = [t for _, t in plot.plotItem.getAxis("left")._tickLevels[0]]
    assert sum("c=" in t for t in ticks) == len(m.neighbors) == len(ticks)
    # the sums' names: over the matrix, each ending at the top of its row
    gaps, edge, _ = tab.messages_view.message_layout
    n, vb = len(m.neighbors), plot.plotItem.vb
    box = vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    words = (QCoreApplication.translate("GraphTab", "aggregate ({0})").split("{0}")[0],
             QCoreApplication.translate("GraphTab", "update hᵢ′"))
    for item, row, word in zip(tab.messages_view.message_names, (edge + n + gaps, edge + n + 2 * gaps + 1),
                               words, strict=True):
        assert item.isVisible() and item.toPlainText().startswith(word)
        rect = item.sceneBoundingRect()
        top = vb.mapViewToScene(pg.Point(0, row - 0.5)).y()
        left = vb.mapViewToScene(pg.Point(-0.5, 0)).x()
        assert box.contains(rect), (rect, box)
        assert abs(rect.bottom() - top) <= 1.5 and abs(rect.left() - left) <= 1.5
        # in the empty rows above it: clear of the row over them
        assert rect.top() >= vb.mapViewToScene(pg.Point(0, row - gaps - 0.5)).y() - 1


def test_a_grid_narrower_than_its_labels_need_settles_in_a_scrolling_panel(qtbot):
    """The pretrained tab froze (a 29-token map, memory to 10 GB): the grid asked for
    the width its labels need only while it was narrower, so once widened it dropped the
    minimum, the scroll area shrank it to the panel's width, and it asked again: a
    resize at every turn of the event loop. Settled, it is resized no more."""
    from PySide6.QtWidgets import QScrollArea

    tokens = [f"w{i}" for i in range(29)]
    area = QScrollArea()
    area.setWidgetResizable(True)
    grid = HeadGrid()
    area.setWidget(grid)
    qtbot.addWidget(area)
    area.resize(300, 340)
    area.show()
    grid.set_heads(_weights(1, 29, 29), tokens, tokens, ["head 0"])
    qtbot.wait(300)
    sizes = []
    relayout = grid.relayout
    grid.relayout = lambda: (sizes.append((grid.width(), grid.height())), relayout())[1]
    qtbot.wait(300)
    assert sizes == [], f"still resized {len(sizes)} times in 300 ms: {sorted(set(sizes))}"
    assert grid.width() >= grid.minimumWidth() > area.viewport().width()
    assert grid.cell_px >= grid.plots[0].getAxis("bottom").min_cell_px() - 1e-6


def test_a_minimum_size_that_swings_between_two_answers_settles_on_the_larger(qtbot):
    """A grid whose taller size brings a scroll bar that narrows it, and so asks for more
    height, swung between two minimum sizes at every turn of the event loop (the
    transformer tab in test_session_tr grew to 7.7 GB): ``ask_minimum`` keeps the larger
    of a swing, and a new answer (new data) is still taken as it is."""
    from PySide6.QtWidgets import QWidget

    from viz.heatmap import ask_minimum

    widget = QWidget()
    qtbot.addWidget(widget)
    for height in (100, 120, 100):      # one return, as a layout settles: not a swing
        ask_minimum(widget, 0, height)
        qtbot.wait(5)
    assert widget.minimumHeight() == 100
    for height in (120, 100, 120, 100):
        ask_minimum(widget, 0, height)
        qtbot.wait(5)
    assert widget.minimumHeight() == 120
    ask_minimum(widget, 0, 80)          # a new answer: taken
    qtbot.wait(5)
    assert widget.minimumHeight() == 80
    # a view asks at every resize of a relayout: answers repeated count once
    for height in (60, 60, 90, 90, 60, 60, 90, 90, 60):
        ask_minimum(widget, 0, height)
        qtbot.wait(5)
    assert widget.minimumHeight() == 90


@pytest.mark.parametrize("height", [190, 201, 215, 230])
def test_a_square_step_settles_whatever_its_title_wraps_to(qtbot, height):
    """The forward view's square step swung at 1280 × 800 without end (ten relayouts a
    second, labels overlapping half of the time): a narrower image wrapped the title
    over more lines, which left less height, which narrowed the image further, and the
    minimum height it asked for followed. Its layout is now worked out from its size
    alone: settled, it is laid out no more and every token is named. (253 × 201 is the
    forward view's size in the window at 1280 × 800.)"""
    from PySide6.QtWidgets import QFrame, QScrollArea

    from models.traces import ForwardStep
    from viz.step_view import StepView

    n = len(DIGITS) - 1
    step = ForwardStep(key="self.softmax", dims="(batch, num_heads, q_len, k_len)",
                       shape=(1, 4, n, n), values=_weights(1, n, n)[0],
                       row_labels=tuple(DIGITS[:n]), col_labels=tuple(DIGITS[:n]),
                       kind="weights")
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    view = StepView()
    view.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(view)
    qtbot.addWidget(area)
    area.resize(253, height)
    area.show()
    view.set_step(step, "(batch, num_heads, q_len, k_len) = (1\u00a0×\u00a04\u00a0×\u00a0"
                  f"{n}\u00a0×\u00a0{n})", "key")
    qtbot.wait(500)
    calls = []
    tighten = view._tighten
    view._tighten = lambda *a: (calls.append(view.height()), tighten(*a))[1]
    qtbot.wait(400)
    assert calls == [], f"laid out {len(calls)} times in 400 ms: {sorted(set(calls))}"
    assert fc.scene_label_problems(view)[1] == []
