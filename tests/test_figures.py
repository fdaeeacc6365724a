"""What a person sees: nothing covers data, no text is cut off, nothing stays English in
Chinese, the bottom bar never outlives its job. The window-wide walks run over every
registered view of every tab (tests/figure_checks.py), at 1600x1000 and 1280x800, in
English and Simplified Chinese; the parts they rely on (legend placement, fitted
read-outs) are tested on their own first."""

from __future__ import annotations

import figure_checks as fc
import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QFontMetrics
from pytestqt.exceptions import TimeoutError as WaitTimeout

from tests.windows import open_tab, tab_settled
from viz.legend import OUTSIDE, THROTTLE_MS, KeepClear, covered, drawn_geometry
from viz.plots import CurvesPlot, GroupedBarsPlot
from viz.text import FitLabel, fit_lines

SIZES = [(1600, 1000), (1280, 800)]


def _settle(qtbot, widget, ms: int = THROTTLE_MS + 60) -> None:
    """Let the legend placer (a timer, throttled while data keeps changing) run."""
    qtbot.wait(ms)


# -- legend placement ---------------------------------------------------------------------


def _curves(qtbot, ys, names, **kw) -> CurvesPlot:
    plot = CurvesPlot(**kw)
    qtbot.addWidget(plot)
    plot.resize(420, 300)
    plot.show()
    x = np.arange(ys.shape[1], dtype=np.float32)
    plot.set_curves(x, ys, names)
    _settle(qtbot, plot)
    return plot


def _overlap(plot) -> list[str]:
    return fc.overlaps_in_scene(plot.scene())


def test_legend_takes_a_free_corner_when_the_preferred_one_holds_data(qtbot):
    x = np.arange(200, dtype=np.float32)
    falling = 10 * np.exp(-x / 30)           # fills the top-left, leaves the top-right
    rising = np.linspace(0, 10, 200)         # fills the top-right, leaves the top-left
    plot = _curves(qtbot, np.stack([rising, rising * 0.95]), ["a", "b"],
                   legend="top-right")
    assert plot.legend_placer.where == "top-left"
    assert _overlap(plot) == []
    plot.set_curves(x, np.stack([falling, falling * 0.9]), ["a", "b"])
    _settle(qtbot, plot)
    assert plot.legend_placer.where == "top-right"
    assert _overlap(plot) == []


def test_legend_moves_below_the_plot_when_every_corner_holds_data_and_comes_back(qtbot):
    x = np.arange(400, dtype=np.float32)
    waves = np.stack([np.sin(x / 6), np.cos(x / 5)]) * 3 + 4
    plot = _curves(qtbot, waves, ["sin", "cos"])
    placer = plot.legend_placer
    assert placer.where == OUTSIDE
    vb_rect = plot.plotItem.vb.sceneBoundingRect()
    legend_rect = plot.legend.sceneBoundingRect()
    assert legend_rect.top() >= vb_rect.bottom(), "the legend is below the data area"
    assert plot.plotItem.sceneBoundingRect().contains(legend_rect), "and inside the figure"
    assert plot.legend.columnCount == 2, "as one row of entries when they fit"
    assert _overlap(plot) == []
    plot.set_curves(x, np.stack([x * 0.01, x * 0.012]), ["up", "up more"])   # room above
    _settle(qtbot, plot)
    assert placer.where in ("top-left", "bottom-right")
    assert plot.legend.columnCount == 1
    assert _overlap(plot) == []


@pytest.mark.slow
def test_a_legend_below_a_plot_whose_axis_label_wraps_is_placed_once(qtbot, monkeypatch):
    """With the legend below, the left axis is shorter and its label wraps (viz.axis_label),
    the axis thickens and the view box narrows a turn later: the placement was recorded
    before that, ran again, went inside and out, four times a second for ever (the graph
    tab's communities plot at 1280x800; the window walks never settled)."""
    calls = []
    decide = KeepClear._decide
    monkeypatch.setattr(KeepClear, "_decide", lambda self: calls.append(1) or decide(self))
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    x = np.arange(400, dtype=np.float32)
    plot.setLabel("left", "a label long enough to wrap on a short axis")
    plot.resize(260, 250)
    plot.show()
    plot.set_curves(x, np.stack([np.sin(x / 6 + k) for k in range(6)]) * 3 + 4,
                    [f"wave number {k}" for k in range(6)])
    qtbot.wait(1500)
    assert plot.legend_placer.where == OUTSIDE
    assert plot.getAxis("left").label.textWidth() > 0, "the label wrapped"
    calls.clear()
    qtbot.wait(6 * THROTTLE_MS)
    assert calls == [], f"placed {len(calls)} times more with nothing changed"
    assert not plot.legend_placer._timer.isActive()


def test_a_name_wider_than_the_figure_wraps_below_it_and_unwraps_inside(qtbot):
    """The flows tab's "entropy of the data: the lowest NLL possible" was cut at the
    figure's right edge when its legend went below a narrow plot."""
    x = np.arange(400, dtype=np.float32)
    waves = np.stack([np.sin(x / 6), np.cos(x / 5)]) * 3 + 4
    long = "entropy of the data: the lowest NLL possible, whatever the model"
    plot = _curves(qtbot, waves, ["sin", long])
    plot.resize(240, 300)
    _settle(qtbot, plot)
    plot.set_curves(x, waves, ["sin", long])
    _settle(qtbot, plot)
    assert plot.legend_placer.where == OUTSIDE
    figure = plot.plotItem.sceneBoundingRect()
    labels = [label for _, label in plot.legend.items]
    for label in labels:
        text = label.item.mapRectToScene(label.item.boundingRect())
        assert figure.contains(text), (label.text, text, figure)
    assert labels[1].item.boundingRect().height() > 1.5 * labels[0].item.boundingRect().height()
    plot.resize(900, 400)
    plot.set_curves(x, np.stack([x * 0.01, x * 0.012]), ["up", long])        # room inside
    _settle(qtbot, plot)
    assert plot.legend_placer.where != OUTSIDE
    assert labels[1].item.textWidth() < 0                                  # one line again


def test_legend_follows_new_data_inside_the_same_range(qtbot):
    """Data redrawn without a change of range still moves the legend."""
    x = np.arange(100, dtype=np.float32)
    plot = _curves(qtbot, np.stack([np.linspace(0, 1, 100)]), ["line"], legend="top-right")
    plot.plotItem.disableAutoRange()
    before = plot.legend_placer.where
    plot.set_curves(x, np.stack([np.linspace(1, 0, 100)]), ["line"])
    plot.plotItem.disableAutoRange()
    _settle(qtbot, plot)
    assert before == "top-left" and plot.legend_placer.where == "top-right"
    assert _overlap(plot) == []


def _comparison_placed(qtbot) -> GroupedBarsPlot:
    """The graph tab's comparison before training, its legend placed top right, above
    the baseline bar and clear of every bar."""
    bars = GroupedBarsPlot()
    qtbot.addWidget(bars)
    bars.resize(420, 300)
    bars.show()
    bars.set_bars(["GCN", "GraphSAGE", "GAT", "baseline"], np.array([[0.2, 0.3, 0.1, 0.7]]),
                  ["untrained"])
    bars.plotItem.setYRange(0, 1, padding=0.02)
    _settle(qtbot, bars)
    assert bars.legend_placer.where == "top-right" and _overlap(bars) == []
    return bars


def test_a_legend_that_grows_after_its_placement_is_placed_again(qtbot):
    """Same entries, same data, same range, a bigger box (its layout settling late, a
    font): placed for the smaller box, the graph tab's comparison legend came down over
    the baseline bar (CI, twice)."""
    bars = _comparison_placed(qtbot)
    _, label = bars.legend.items[0]
    label.setText(label.text, size="48pt")          # the box grows down over the bar
    _settle(qtbot, bars)
    assert _overlap(bars) == [], bars.legend_placer.where


def test_a_legend_is_placed_again_when_its_view_box_shrinks_inside_the_same_plot(qtbot):
    """Same plot size, entries, data, range and legend box; the view box shorter (an axis
    grown by its labels after the first paint, on a loaded machine): placed for the
    taller box, the comparison legend came down over the baseline bar (CI again)."""
    bars = _comparison_placed(qtbot)
    size = bars.plotItem.size()
    bars.plotItem.getAxis("bottom").setHeight(150)   # the view box loses half its height
    _settle(qtbot, bars)
    assert bars.plotItem.size() == size
    assert _overlap(bars) == [], bars.legend_placer.where


def test_bar_names_that_would_run_together_take_two_lines(qtbot):
    """The graph tab's comparison read "GCNGraphSAGEGAT" at 1280×800: names too wide for
    their group take turns on two lines, inside the axis, and stay on one when they fit."""
    from PySide6.QtGui import QImage, QPainter

    bars = GroupedBarsPlot()
    qtbot.addWidget(bars)
    bars.show()
    names = ["GCN", "GraphSAGE", "GAT", "baseline"]
    bars.set_bars(names, np.array([[0.2, 0.3, 0.1, 0.7]]), ["untrained"])
    axis = bars.plotItem.getAxis("bottom")

    def labels():
        image = QImage(10, 10, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        texts = axis.generateDrawSpecs(painter)[2]
        painter.end()
        return sorted(((rect, text) for rect, _, text in texts), key=lambda t: t[0].left())

    def clear_of_each_other(found) -> bool:
        return all(not a.intersects(b) for i, (a, _) in enumerate(found)
                   for b, _ in found[i + 1:])

    bars.resize(700, 300)
    _settle(qtbot, bars)
    wide = labels()
    assert [t for _, t in wide] == names and len({r.top() for r, _ in wide}) == 1
    assert clear_of_each_other(wide)
    bars.resize(230, 300)
    _settle(qtbot, bars)
    narrow = labels()
    assert [t for _, t in narrow] == names and len({r.top() for r, _ in narrow}) == 2
    assert clear_of_each_other(narrow)
    inside = axis.boundingRect()
    assert all(inside.contains(r) for r, _ in narrow), (inside, [r for r, _ in narrow])


@pytest.mark.slow
def test_every_bar_name_is_drawn_however_narrow_the_plot(qtbot):
    """pyqtgraph leaves out a tick name that reaches past an end of its axis: the graph
    tab's comparison drew 3 of its 4 names at 1280x800 ("baseline" missing). Each name
    is drawn, inside the axis, clear of its neighbours, at every width."""
    bars = GroupedBarsPlot()
    qtbot.addWidget(bars)
    bars.show()
    names = ["GCN", "GraphSAGE", "GAT", "baseline"]
    bars.set_bars(names, np.array([[0.2, 0.3, 0.1, 0.7]]), ["accuracy"])
    axis = bars.plotItem.getAxis("bottom")
    for width in range(150, 330, 15):
        bars.resize(width, 260)
        _settle(qtbot, bars)
        checked, problems = fc.axis_label_problems(axis, bars)
        assert checked == len(names) and problems == [], (width, problems)


def test_bar_names_have_room_before_their_first_paint(qtbot):
    """pyqtgraph learns an axis's text height when it paints its names: a comparison
    filled behind another tab had a 3 px axis when first shown and every name culled
    (the window walk at 1280x800: "4 of 4 labels not drawn"). The axis makes room for
    its names, on one line or two, as soon as it has them and is sized."""
    from PySide6.QtWidgets import QLabel, QTabWidget

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(QLabel("front"), "front")
    bars = GroupedBarsPlot()
    tabs.addTab(bars, "bars")
    tabs.resize(210, 260)
    tabs.show()
    bars.set_bars(["GCN", "GraphSAGE", "GAT", "baseline"],
                  np.array([[0.4, 0.1, 0.5, 0.75]]), ["untrained"])
    qtbot.wait(50)
    tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: bars.plotItem.vb.width() > 100, timeout=5000)
    axis = bars.plotItem.getAxis("bottom")
    assert fc.axis_label_problems(axis, bars) == (4, [])


def test_bar_names_keep_their_descenders_and_no_series_shows_no_legend(qtbot):
    """pyqtgraph centres a name on 0.8 of its font's height: with no axis label below,
    the ODE tab's "memory" lost its descender at the plot's bottom edge, in both
    languages. And bars without series showed an empty legend frame (the graph tab's
    comparison before its first numbers)."""
    bars = GroupedBarsPlot()
    qtbot.addWidget(bars)
    bars.resize(300, 200)
    bars.show()
    bars.set_bars([], np.zeros((0, 0)), [])     # as the ODE tab starts: no names yet, so
    _settle(qtbot, bars)                        # the axis sizes itself on the names alone
    bars.set_bars(["time", "memory", "jQy"], np.array([[1.0, 0.5, 0.2]]), ["direct"])
    _settle(qtbot, bars)
    image = bars.grab().toImage()
    axis = bars.plotItem.getAxis("bottom").sceneBoundingRect()

    def inked(y: int) -> bool:      # any dark pixel of a name on row y
        return any(image.pixelColor(x, y).value() < 120
                   for x in range(int(axis.left()) + 1, int(axis.right()) - 1))

    rows = [y for y in range(int(axis.top()) + 3, image.height()) if inked(y)]
    assert rows, "no name was drawn"
    assert max(rows) < image.height() - 1 and not inked(image.height() - 1), \
        (max(rows), image.height())
    assert bars.legend.isVisible()
    bars.set_bars(["a", "b"], np.zeros((0, 2)), [])
    assert not bars.legend.isVisible()


def test_bars_and_images_count_as_data(qtbot):
    bars = GroupedBarsPlot()
    qtbot.addWidget(bars)
    bars.resize(400, 300)
    bars.show()
    bars.set_bars(list("abcdef"), np.full((2, 6), 5.0), ["x", "y"])   # bars fill the plot
    _settle(qtbot, bars)
    assert bars.legend_placer.where == OUTSIDE
    assert _overlap(bars) == []
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(300, 300)
    plot.show()
    image = pg.ImageItem(np.random.default_rng(0).random((20, 20)).astype(np.float32))
    plot.addItem(image)
    plot.plotItem.vb.autoRange(padding=0)
    _settle(qtbot, plot)
    points, rects = drawn_geometry(plot.plotItem.vb.addedItems, None)
    assert len(rects) == 1 and rects[0].width() > 100
    assert covered(rects[0].adjusted(5, 5, -5, -5), points, rects) == 1


def test_drawn_geometry_samples_along_segments():
    """A long segment between two far points still covers the corner it crosses."""
    curve = pg.PlotCurveItem(np.array([0.0, 100.0]), np.array([0.0, 100.0]))
    points, _ = drawn_geometry([curve], curve)
    assert len(points) > 30
    assert np.allclose(points[:, 0], points[:, 1])


def test_a_view_zoomed_in_samples_only_what_is_inside_its_box(qtbot):
    """Zoomed far in, every curve ran far past the view box and was sampled up to
    MAX_SAMPLES times: one legend placement held the GUI thread 1.7 s in the monkey
    (seed 20250, action 871). Only the parts inside the box (and a margin) are sampled
    now; the checks here read the scene-wide geometry, unclipped, as before."""
    import time

    from viz.segments import CLIP_MARGIN_PX, MAX_SAMPLES, clip_segments

    a, b = np.array([[-1e6, -1e6], [-50.0, 10.0], [10.0, 10.0]]), \
        np.array([[1e6, 1e6], [-40.0, 20.0], [20.0, 10.0]])
    ca, cb = clip_segments(a, b, (0.0, 0.0, 300.0, 300.0))
    np.testing.assert_allclose(ca, [[0, 0], [10, 10]])      # the diagonal, cut; the
    np.testing.assert_allclose(cb, [[300, 300], [20, 10]])  # one outside dropped
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(300, 300)
    plot.show()
    x = np.linspace(-1.0, 1.0, 400)
    for k in range(120):
        plot.plot(x, np.sin(3 * x + k / 20.0) * (k / 120.0))
    plot.plotItem.vb.setRange(xRange=(0, 0.002), yRange=(0, 0.002), padding=0)
    _settle(qtbot, plot)
    vb = plot.plotItem.vb
    t = time.perf_counter()
    points, _ = drawn_geometry(vb.addedItems, vb)
    took = time.perf_counter() - t
    box = vb.boundingRect().adjusted(-CLIP_MARGIN_PX - 1e-6, -CLIP_MARGIN_PX - 1e-6,
                                     CLIP_MARGIN_PX + 1e-6, CLIP_MARGIN_PX + 1e-6)
    inside = [box.contains(float(px), float(py)) for px, py in points]
    assert all(inside)
    assert 0 < len(points) < 120 * MAX_SAMPLES / 20, (len(points), f"{took:.3f} s")


def test_an_unmanaged_legend_over_data_is_found(qtbot):
    """The window-wide walk can fail: a plain pyqtgraph legend over a curve is reported."""
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    plot.show()
    legend = plot.addLegend(offset=(10, 10))
    plot.plot(np.linspace(0, 1, 50), np.full(50, 0.85), name="flat near the top")
    plot.plot(np.linspace(0, 1, 50), np.full(50, 0.0), name="flat at the bottom")
    plot.plotItem.vb.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.02)
    _settle(qtbot, plot)
    assert legend.isVisible()
    assert fc.overlaps_in_scene(plot.scene()), "the top-left legend lies on the top line"
    KeepClear(plot.plotItem, legend).place()
    assert fc.overlaps_in_scene(plot.scene()) == []


# -- read-outs that fit ----------------------------------------------------------------------


def test_fit_label_wraps_then_elides_and_keeps_the_whole_text(qtbot):
    label = FitLabel(max_lines=2)
    qtbot.addWidget(label)
    label.resize(200, 40)
    label.show()
    text = " ".join(f"word{i}" for i in range(60))
    label.set_text(text)
    shown = label.__class__.__mro__[1].text(label)
    fm = QFontMetrics(label.font())
    lines = shown.split("\n")
    assert len(lines) == 2
    assert all(fm.horizontalAdvance(line) <= label.contentsRect().width() for line in lines)
    assert lines[-1].endswith("…")
    assert label.text() == text and label.toolTip() == text
    assert label.height() >= 2 * fm.lineSpacing()
    label.set_text("short")
    assert label.toolTip() == "" and not label.property("archscope_elided")


def test_a_fit_label_with_min_lines_keeps_its_height_for_a_short_text(qtbot):
    """The flows animation's layer read-out wraps at 1280x800 (it needed 482 px of 456)
    and names one layer after another: its row keeps one height whatever the text."""
    label = FitLabel(max_lines=2, min_lines=2)
    qtbot.addWidget(label)
    label.resize(200, 40)
    label.show()
    label.set_text(" ".join(f"word{i}" for i in range(12)))
    wrapped = label.height()
    label.set_text("short")
    assert label.height() == wrapped
    assert wrapped >= 2 * QFontMetrics(label.font()).lineSpacing()


def test_fit_lines_breaks_at_spaces_and_between_chinese_characters(qapp):
    from PySide6.QtGui import QFont

    font = QFont()
    fm = QFontMetrics(font)
    lines, cut = fit_lines("a b c", font, 10_000, 2)
    assert lines == ["a b c"] and not cut
    width = max(fm.horizontalAdvance("alpha beta"), fm.horizontalAdvance("gamma delta"))
    lines, cut = fit_lines("alpha beta gamma delta", font, width, 3)
    assert lines == ["alpha beta", "gamma delta"] and not cut
    # Chinese has no spaces: it breaks between characters, it is not elided as one word
    text = "精确注意力与线性注意力的输出相对误差随随机特征数的变化"
    lines, cut = fit_lines(text, font, fm.horizontalAdvance(text[:10]), 3)
    assert not cut and "".join(lines) == text and len(lines) >= 3


# -- the bottom bar ------------------------------------------------------------------------------


def test_bottom_bar_resets_when_training_stops_and_speaks_the_new_language(qtbot, window):
    tab = open_tab(qtbot, window, "transformer")
    window.tabs_widget.setCurrentWidget(tab)
    tab.toggle_training()
    qtbot.waitUntil(lambda: "step" in tab.job_bar.label.text(), timeout=60_000)
    tab.toggle_training()                                    # Stop
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=30_000)
    assert tab.job_bar.bar.value() == 0
    assert "step" not in tab.job_bar.label.text()
    done_en = tab.job_bar.label.text()
    window.set_language("zh_CN")
    done_zh = tab.job_bar.label.text()
    assert not fc._words(done_zh), f"still English after the switch: {done_zh!r}"
    assert (done_en == "") == (done_zh == "")


# -- the whole window ------------------------------------------------------------------------


def _resize(qtbot, window, size) -> None:
    """The window at ``size``, really: no minimum size may hold it wider."""
    window.resize(*size)
    qtbot.wait(100)
    assert (window.width(), window.height()) == size, "the window cannot shrink that far"


def still_laid_out(window, wait, ms: int = 300) -> list[str]:
    """The views of the tab in front still resized ``ms`` after the tab settled: a
    layout that swings (the forward view's square step did, ten times a second, with its
    labels overlapping half of the time, so a check at one moment passed or failed by
    chance)."""
    from PySide6.QtCore import QEvent, QObject

    tab = window.tabs_widget.currentWidget()
    views = {view.panel.graphics: f"{tab.key}.{view.key}" for view in getattr(tab, "views", ())}
    resized: dict[str, int] = {}

    class Counter(QObject):
        def eventFilter(self, watched, event):  # noqa: N802 - Qt's API
            if event.type() == QEvent.Type.Resize and watched in views:
                resized[views[watched]] = resized.get(views[watched], 0) + 1
            return False

    counter = Counter()
    for graphics in views:
        graphics.installEventFilter(counter)
    wait(ms)
    for graphics in views:
        graphics.removeEventFilter(counter)
    return [f"{key}: resized {n} times in {ms} ms after its tab settled"
            for key, n in sorted(resized.items())]


def _walk(window, qtbot, check) -> tuple[int, list[str]]:
    checked, found = 0, []
    for i in range(len(window.tabs)):
        window.tabs_widget.setCurrentIndex(i)
        tab_settled(qtbot.wait, window.tabs[i])
        n, f = check(window)
        checked += n
        found += f
    return checked, sorted(set(found))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_nothing_covers_data_in_any_view(qtbot, window, size):
    _resize(qtbot, window, size)
    checked, found = 0, []
    for code in ("en", "zh_CN"):
        window.set_language(code)
        for i in range(len(window.tabs)):
            window.tabs_widget.setCurrentIndex(i)
            tab = window.tabs[i]
            tab_settled(qtbot.wait, tab)
            for view in tab.views:
                checked += 1
                found += [f"{code} {tab.key}.{view.key}: {f}"
                          for f in fc.overlaps_in_scene(view.panel.graphics.scene())]
    print(f"\n{size}: {checked} views checked, {len(found)} overlaps")
    assert checked >= 2 * 40
    assert not found, "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_text_is_clipped_and_every_token_and_row_is_named(qtbot, window, size):
    """One walk, two checks of what is written: no text cut off, and every tick label of
    a token or row axis drawn, none thinned, culled, overlapping or cut (issue 32 item 2;
    first, that no view is still being laid out: a swing makes both checks chance;
    tests/test_token_labels.py tests the parts). One walk instead of two saves a walk of
    every tab per size and language (about 50 s each)."""
    _resize(qtbot, window, size)
    checks = {"texts clipped": fc.clipped_texts, "token labels not drawn": fc.unlabelled_ticks}
    report = []
    for code in ("en", "zh_CN"):
        window.set_language(code)
        counts = {name: [0, 0] for name in checks}

        def both(win, counts=counts):
            found = still_laid_out(win, qtbot.wait)
            for name, check in checks.items():
                n, f = check(win)
                counts[name][0] += n
                counts[name][1] += len(f)
                found += f
            return 0, found

        _checked, found = _walk(window, qtbot, both)
        for name, (n, bad) in counts.items():
            print(f"\n{size} {code}: {n} checked, {bad} {name}")
            assert n > 200, name
        report += [f"{code} {f}" for f in found]
    assert not report, "\n".join(report)


def test_nothing_stays_english_in_chinese(qtbot, window):
    window.set_language("zh_CN")
    checked, found = _walk(window, qtbot, fc.untranslated)
    print(f"\n{checked} visible texts checked, {len(found)} with English words")
    assert checked > 300
    assert not found, "\n".join(found)


def test_every_view_draws_something_on_first_open(qtbot, window):
    """No empty axis box: each view shows data, the untrained state, or a measurement
    made when its tab is first shown (a hint alone is not content). Each tab is opened
    as a person would and given the time its first background computations take."""
    checked, found = 0, []
    for i, tab in enumerate(window.tabs):
        window.tabs_widget.setCurrentIndex(i)

        def empty(tab=tab):
            return [v.key for v in tab.views if fc.view_marks(v) == 0]
        try:
            qtbot.waitUntil(lambda: not empty(), timeout=60_000)
        except (AssertionError, WaitTimeout):    # listed below, view by view
            pass
        checked += len(tab.views)
        found += [f"{tab.key}.{key}: nothing drawn" for key in empty()]
    print(f"\n{checked} views checked, {len(found)} empty")
    assert checked >= 40
    assert not found, "\n".join(found)


def test_a_hint_wraps_inside_its_plot_and_a_note_past_the_edge_is_found(qtbot):
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    plot.resize(220, 200)
    plot.show()
    plot.set_hint("Untrained: no steps yet. Press “Train” to train this model live.")
    _settle(qtbot, plot)
    assert fc._scene_text_clipped(plot.scene()) == []
    note = pg.TextItem("a note that starts near the right edge and runs on", anchor=(0, 0))
    plot.addItem(note)
    note.setPos(0.9, 0.5)
    plot.plotItem.vb.setRange(xRange=(0, 1), yRange=(0, 1))
    _settle(qtbot, plot)
    assert [t for t, _ in fc._scene_text_clipped(plot.scene())] == [note.toPlainText()]


def test_a_plot_asking_for_more_height_never_slides_over_its_readout(qtbot):
    """A legend moved below a short plot makes the plot ask for more height; the panel
    grows with it (the grid scrolls) instead of drawing the plot over the read-out."""
    from PySide6.QtWidgets import QWidget

    from viz.panel import MIN_HEIGHT, ViewPanel

    host = QWidget()
    qtbot.addWidget(host)
    plot = CurvesPlot()
    panel = ViewPanel(plot, host)
    panel.set_title("Node classification: loss and accuracy")
    panel.set_readout("epoch 200: loss 0.074 · test accuracy 0.58")
    panel.resize(290, MIN_HEIGHT)
    host.show()
    plot.setMinimumHeight(MIN_HEIGHT + 60)
    qtbot.waitUntil(lambda: panel.minimumHeight() > MIN_HEIGHT + 60)
    panel.resize(290, panel.minimumHeight())
    qtbot.wait(20)
    assert panel.readout.geometry().top() >= plot.geometry().bottom()
    assert panel.readout.geometry().bottom() <= panel.height()


def test_an_axis_keeps_plain_values_after_its_si_prefix_is_switched_off_again(qtbot):
    """pyqtgraph's ``enableAutoSIPrefix(False)`` works the prefix out once more and keeps
    it: switched off while the axis showed 0 … 1e-4, 0.05 read 50,000 from then on (the
    ODE tab's loss axis read 0.12 as 120 after a language change)."""
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.show()
    w.plotItem.setLabel("left", "loss")
    axis = w.plotItem.getAxis("left")
    w.plotItem.setYRange(0, 1e-4, padding=0)
    qtbot.wait(10)
    axis.enableAutoSIPrefix(False)           # as a retranslate does
    w.plotItem.setYRange(0, 0.15, padding=0)
    qtbot.wait(10)
    assert axis.autoSIPrefixScale == 1.0 and axis.labelUnitPrefix == ""
    assert axis.tickStrings([0.05, 0.1], axis.autoSIPrefixScale * axis.scale, 0.05) == [
        "0.05", "0.10"]


@pytest.mark.parametrize("size", [(270, 230), (230, 230), (200, 140)])
def test_a_bar_value_wider_than_its_bar_is_raised_clear_of_the_bars_and_values(qtbot, size):
    """The ODE tab's adjoint comparison drew "1,145 ms" over the neighbouring "direct"
    bar: a value wider than its bar rises above every bar and value its text spans, and
    the y range grows to keep it inside."""
    from PySide6.QtCore import QPointF, QRectF

    from viz.ode_view import LabelledBarsPlot

    bars = LabelledBarsPlot()
    qtbot.addWidget(bars)
    bars.resize(*size)
    bars.show()
    values = np.array([[1.0, 1.0, 0.2], [0.8, 0.1, 1.0]])
    bars.set_bars(["time", "memory", "NFE bwd"], values, ["direct", "adjoint"],
                  [["1,259 ms", "60 kB", "13"], ["1,145 ms", "7 kB", "172"]])
    qtbot.wait(200)
    vb = bars.plotItem.vb

    def scene(x0, x1, y0, y1) -> QRectF:
        return QRectF(vb.mapViewToScene(QPointF(x0, y1)),
                      vb.mapViewToScene(QPointF(x1, y0))).normalized()

    bar_rects = [scene(*bars._bar_span(s, c), 0.0, values[s, c])
                 for s in range(2) for c in range(3)]
    margin = bars._texts[0].textItem.document().documentMargin()   # around the text
    texts = [t.textItem.mapRectToScene(t.textItem.boundingRect()).adjusted(
        margin - 1, margin - 1, 1 - margin, 1 - margin) for t in bars._texts]
    inside = vb.sceneBoundingRect()
    for i, text in enumerate(texts):
        assert inside.contains(text), (bars.labels()[i], text, inside)
        assert not any(text.intersects(b) for b in bar_rects), bars.labels()[i]
        assert not any(text.intersects(o) for o in texts[i + 1:]), bars.labels()[i]
    # a value that fits its bar stays on it
    red_172 = bars._texts[bars.labels().index("172")]
    assert red_172.pos().y() == pytest.approx(1.0)


# -- text the view itself cuts: axis labels, legend columns, colour-bar ticks ------------------


@pytest.mark.parametrize("texts", [
    ("PC 1 (32% of the variance)", "PC 2 (16% of the variance)"),
    ("i", "eigenvalue of the normalised Laplacian"),
    ("步数", "损失 / 错误率（对数刻度）"),
], ids=["pca", "spectrum", "zh"])
def test_an_axis_label_longer_than_its_axis_wraps_inside_it(qtbot, texts):
    """A label longer than its axis is wrapped to the axis's length, centred, and the
    axis is made thick enough for its lines: nothing of it runs past the view (pyqtgraph
    wrote it on one line centred on the axis, and the view cut both ends)."""
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    plot.resize(200, 150)
    plot.show()
    plot.set_curves(np.arange(5.0), np.arange(5.0)[None], ["x"])
    plot.set_axis_labels(*texts)
    _settle(qtbot, plot)
    assert fc._view_texts_clipped(plot) == []
    for name in ("bottom", "left"):
        axis = plot.plotItem.getAxis(name)
        label = axis.label
        m = label.document().documentMargin()
        text = label.mapRectToScene(label.boundingRect().adjusted(m, m, -m, -m))
        along = axis.sceneBoundingRect()
        if name == "bottom":
            assert along.left() - 1 <= text.left() and text.right() <= along.right() + 1
        else:
            assert along.top() - 1 <= text.top() and text.bottom() <= along.bottom() + 1
    # a wider plot gives the line back: one line as pyqtgraph draws it
    plot.resize(900, 700)
    _settle(qtbot, plot)
    one_line = QFontMetrics(plot.plotItem.getAxis("left").label.font()).lineSpacing() * 1.6
    assert plot.plotItem.getAxis("left").label.document().size().height() < one_line + 8
    assert fc._view_texts_clipped(plot) == []


def test_a_wrapped_axis_label_keeps_its_lines_while_its_axis_grows_a_little(qtbot,
                                                                            monkeypatch):
    """The depth view at 1280 × 800 swung for ever: 3 lines at 59 px, 2 at 64, the height
    freed changed the left axis's ticks and their width took the 5 px back. A wrapped
    label is fitted again only once its axis has grown by ``GROWTH`` or shrunk."""
    from viz import axis_label

    plot = CurvesPlot()
    qtbot.addWidget(plot)
    axis = plot.plotItem.getAxis("bottom")
    plot.set_axis_labels("layer (0 = the input features)", "y")
    lines, length = [], {"px": 70}
    monkeypatch.setattr(axis_label, "_length", lambda _axis: length["px"])
    # (this label takes 64 px of height at 66-72 px, 50 at 74-100: one line fewer)
    for px in (70, 78, 70, 120, 70):
        length["px"] = px
        axis_label.fit(axis)
        label = axis.label
        lines.append(round(label.boundingRect().height()))
        room = px - 2 * axis_label.PAD
        assert label.textWidth() <= room and label.document().idealWidth() <= room + 0.5
    assert lines[1] == lines[0] == lines[2]               # a few px more: the same lines
    assert lines[3] < lines[0] and lines[4] == lines[0]    # much more: fewer; back: same


def test_fitting_an_axis_label_again_and_again_keeps_no_copies(qtbot):
    """Each fit measured the label on a copy of its document (``clone()``) that its
    source kept: 17 KB a fit, 71,000 of them (1.1 GB) after the 1,000-action monkey.
    Two thousand fits now leave no document and no memory behind."""
    import gc

    import psutil
    from PySide6.QtGui import QTextDocument

    from viz import axis_label

    plot = CurvesPlot()
    qtbot.addWidget(plot)
    plot.resize(200, 150)
    plot.show()
    plot.set_axis_labels("step", "损失 / 错误率（对数刻度） loss / max error (log scale)")
    _settle(qtbot, plot)
    axis = plot.plotItem.getAxis("left")

    def documents() -> int:
        gc.collect()
        return sum(type(o) is QTextDocument for o in gc.get_objects())

    before, rss = documents(), psutil.Process().memory_info().rss
    for _ in range(2000):
        axis_label.fit(axis)
    assert documents() <= before
    assert psutil.Process().memory_info().rss - rss < 8 << 20


def test_an_axis_label_follows_a_new_text_centred(qtbot):
    """A new (translated) label is fitted and centred at once, without a resize."""
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    plot.resize(220, 160)
    plot.show()
    plot.set_axis_labels("x", "y")
    _settle(qtbot, plot)
    plot.set_axis_labels("x", "eigenvalue of the normalised Laplacian")
    _settle(qtbot, plot)
    axis = plot.plotItem.getAxis("left")
    text = axis.label.sceneBoundingRect()
    assert abs(text.center().y() - axis.sceneBoundingRect().center().y()) <= 2
    assert fc._view_texts_clipped(plot) == []


def test_legend_columns_fit_their_entries_after_the_column_count_changes(qtbot):
    """Entries in row-major order in a grid as wide as its columns, however often the
    column count changes (pyqtgraph placed them from the grid's old column count and
    summed the entries' current widths, so the legend grew at every change: 11 short
    names in 4 columns took 667 px and a centred legend ran past both edges of its
    view: "uvain", columns missing)."""
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(380, 300)
    plot.plotItem.layout.setContentsMargins(10, 10, 10, 10)   # the "1.0" tick's top
    plot.show()
    legend = pg.LegendItem(labelTextSize="8pt")
    legend.setParentItem(plot.plotItem)
    legend.addItem(pg.PlotDataItem(pen=None), "<b>社区：Louvain</b>")
    for i in range(10):
        legend.addItem(pg.ScatterPlotItem(brush="r"), str(i))
    for columns in (4, 2, 4):
        legend.setColumnCount(columns)
        legend.anchor(itemPos=(0.5, 1), parentPos=(0.5, 1), offset=(0, -2))
        qtbot.wait(20)
        rows = {}
        for i, (_sample, label) in enumerate(legend.items):
            rows.setdefault(i // columns, []).append(label.sceneBoundingRect())
        for row in rows.values():          # left to right, one row
            assert all(a.right() <= b.left() for a, b in zip(row[:-1], row[1:], strict=True))
            assert all(abs(r.top() - row[0].top()) < 1 for r in row)
        # as wide as its entries, samples and margins (~45 px) included
        need = max(r.right() for row in rows.values() for r in row) - min(
            r.left() for row in rows.values() for r in row)
        assert legend.width() <= need + 60, (columns, legend.width(), need)
        assert fc._view_texts_clipped(plot) == [], columns


def test_removing_a_legend_entry_closes_the_gap(qtbot):
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    legend = plot.plotItem.addLegend(colCount=2)
    plot.resize(500, 400)
    plot.show()
    curves = [plot.plot([0, 1], [i, i], name=f"curve {i}") for i in range(5)]

    def compact() -> None:
        qtbot.wait(20)
        grid = legend.layout
        places = [next((r, c) for r in range(grid.rowCount())
                       for c in range(grid.columnCount()) if grid.itemAt(r, c) is lab)
                  for _s, lab in legend.items]
        assert places == [(i // 2, 2 * (i % 2) + 1) for i in range(len(places))]
        assert fc._view_texts_clipped(plot) == []

    legend.removeItem(curves[1])
    compact()
    plot.plot([0, 1], [9, 9], name="curve 5")
    compact()
    assert [lab.text for _s, lab in legend.items] == [f"curve {i}" for i in (0, 2, 3, 4, 5)]


def test_a_colour_bar_beside_wide_thumbnails_keeps_its_ticks_in_the_view(qtbot):
    """Three 64-key thumbnails and their colour bar in a 248-px view (the efficient tab's
    "one mask, three APIs" in zh at 1280×800): the cells go under a pixel rather than
    push the bar's ticks out of the view (floored at 1 px, they read "1.", "0.")."""
    from viz.attention import HeadGrid

    grid = HeadGrid()
    qtbot.addWidget(grid)
    grid.resize(248, 600)
    grid.show()
    weights = np.tile(np.eye(64, dtype=np.float32), (3, 1, 1))
    labels = [str(i) for i in range(64)]
    grid.set_heads(weights, labels, labels, ["a", "b", "c"], cols=3, ticks=False)
    qtbot.wait(50)
    ticks = [t for bar, _ in grid.bars for t, _r in fc._tick_texts(bar.getAxis("right"))]
    assert "1.0" in ticks
    assert fc._view_texts_clipped(grid) == []


@pytest.mark.slow
def test_the_adaptation_legend_keeps_its_size_going_in_and_out(qtbot):
    """The meta tab's "Adapting" legend goes below the plot while the support points
    fill every corner and back inside when one frees up, at every redraw of a training.
    pyqtgraph's legend summed its entries' stretched widths at each change of columns:
    the legend doubled at every round trip (491, 700, 1036, 1678, ... px) until, some
    600 meta-steps in, it lay far outside the view (four curves, no key)."""
    from viz.meta_view import AdaptPlot

    plot = AdaptPlot()
    qtbot.addWidget(plot)
    plot.resize(800, 420)
    plot.show()
    x = np.linspace(-5, 5, 100)
    pred = np.stack([np.stack([np.sin(x + s) * (3 + m) for s in range(6)]) for m in range(4)])
    widths = {}
    for it in range(8):
        spread = np.linspace(-6, 6, 12) if it % 2 == 0 else np.zeros(12)
        plot.show_adaptation(x, 3 * np.sin(x), pred, ["a", "b", "c", "d"], [0, 1, 2, 3],
                             ["MAML", "一阶 MAML", "Reptile", "预训练"], 1, True,
                             np.stack([np.linspace(-5, 5, 12), spread], 1),
                             "真实函数 A·sin(x − φ)", "12 个支持点")
        _settle(qtbot, plot, 2 * THROTTLE_MS)
        assert fc._view_texts_clipped(plot) == [], it
        assert fc.overlaps_in_scene(plot.scene()) == [], it
        widths.setdefault(plot.legend.columnCount, set()).add(round(plot.legend.width()))
    assert len(widths) == 2, widths              # it did go in and out
    assert all(len(w) == 1 for w in widths.values()), widths   # the same size each time


def test_a_reused_curve_takes_the_colour_of_its_new_place(qtbot):
    """Curves drawn with chosen colours, then drawn again with the default ones: each
    takes its own (the flows tab's untrained view gave its floor colour 2, and training's
    "running mean", drawn by the same item, stayed green beside a green floor)."""
    from viz.theme import SERIES_COLOURS

    plot = CurvesPlot()
    qtbot.addWidget(plot)
    x = np.arange(3, dtype=np.float32)
    plot.set_curves([x, x], [x, x + 1], ["step 0", "floor"], colours=[1, 2])
    plot.set_curves([x, x, x], [x, x + 1, x + 2], ["NLL", "running mean", "floor"])
    colours = [pg.mkPen(item.opts["pen"]).color().name() for item in plot._items]
    assert colours == [c.lower() for c in SERIES_COLOURS[:3]]
    legend = [pg.mkPen(sample.item.opts["pen"]).color().name()
              for sample, _l in plot.legend.items]
    assert legend == colours


def test_zero_on_a_log_axis_is_a_mark_on_its_edge_not_a_made_up_value(qtbot):
    """An error of exactly 0 on a log axis (100 % correct) is drawn as a mark on the
    bottom edge, in its curve's colour and named in the legend; the curve leaves it out
    and the values kept are the given ones (the transformer tab drew 0 as 10⁻³: 0.1 %)."""
    plot = CurvesPlot(log_y=True)
    qtbot.addWidget(plot)
    plot.resize(420, 300)
    plot.show()
    plot.set_zero_label("0 errors")
    x = np.arange(1, 7, dtype=np.float32)
    err = np.array([0.5, 0.1, 0.01, 0.0, 0.0, 0.002], np.float32)
    plot.set_curves([x, x], [np.linspace(2, 0.1, 6, dtype=np.float32), err],
                    ["loss", "error"], symbols=[None, "o"])
    _settle(qtbot, plot)
    zx, zc = plot.zero_points()
    assert zx.tolist() == [4.0, 5.0] and zc.tolist() == [1, 1]
    drawn = plot._items[1].getData()[1]
    assert np.isnan(drawn[3:5]).all() and np.nanmin(drawn) == pytest.approx(np.log10(0.002))
    assert plot.curves()[1][1].tolist() == err.tolist()
    # on the bottom edge of the view, inside it
    vb = plot.plotItem.vb
    ys = plot.zero_marks.getData()[1]
    bottom = vb.viewRange()[1][0]
    per_px = (vb.viewRange()[1][1] - bottom) / vb.height()
    assert np.all((ys > bottom) & (ys < bottom + 12 * per_px))
    assert "0 errors" in [lab.text for _s, lab in plot.legend.items]
    assert np.log10(0.002) > bottom            # the smallest real value is not under it
    # no zero any more: no mark, no legend entry
    plot.set_curves([x], [err + 0.001], ["error"])
    _settle(qtbot, plot)
    assert len(plot.zero_points()[0]) == 0
    assert "0 errors" not in [lab.text for _s, lab in plot.legend.items]


@pytest.mark.parametrize(("low", "powers"), [(1e-7, True), (1e-2, False)])
def test_a_log_axis_writes_its_ticks_in_one_notation(qtbot, low, powers):
    """Every tick of a log axis, whatever its level, in one notation: powers of ten where
    the view reaches below 10⁻³ (pyqtgraph's "%0.1g" wrote "0.001", "0.0001" and then
    "10⁻⁵", "10⁻⁶" on one axis), plain numbers inside 10⁻³ … 10⁴."""
    import re

    plot = CurvesPlot(log_y=True)
    qtbot.addWidget(plot)
    plot.resize(300, 500)
    plot.show()
    x = np.arange(50, dtype=np.float32)
    plot.set_curves(x, np.geomspace(low, 5.0, 50, dtype=np.float32)[None], ["loss"])
    _settle(qtbot, plot)
    texts = [t for t, _r in fc._tick_texts(plot.plotItem.getAxis("left"))]
    assert len(texts) >= 3, texts
    power = re.compile(r"^(\d·)?10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+$")
    plain = re.compile(r"^\d+(\.\d+)?$")
    assert all((power if powers else plain).match(t) for t in texts), texts


def test_two_quantities_get_two_axes(qtbot):
    """A loss and an accuracy are drawn against two axes, each with its own label and
    range (one axis named "loss · accuracy" read an accuracy of 0.8 as a loss); the
    legend keeps off the right-hand curves too, and a plot of one quantity has no
    right-hand axis."""
    plot = CurvesPlot()
    qtbot.addWidget(plot)
    plot.resize(420, 300)
    plot.show()
    epochs = np.arange(1, 101, dtype=np.float32)
    loss = np.linspace(40.0, 2.0, 100, dtype=np.float32)
    acc = np.linspace(0.1, 0.9, 100, dtype=np.float32)
    plot.set_curves([epochs, epochs], [loss, acc], ["loss", "accuracy"], right=[False, True])
    plot.set_axis_labels("epoch", "loss", "accuracy")
    _settle(qtbot, plot)
    left, right = plot.plotItem.getAxis("left"), plot.plotItem.getAxis("right")
    assert right.isVisible() and right.labelText == "accuracy" and left.labelText == "loss"
    lo, hi = plot._right.viewRange()[1]
    assert lo <= 0.1 and 0.9 <= hi < 1.5             # the accuracy's own range
    lo, hi = plot.plotItem.vb.viewRange()[1]
    assert hi >= 40 and lo <= 2
    assert plot._right.geometry() == pg.QtCore.QRectF(plot.plotItem.vb.scenePos(),
                                                      plot.plotItem.vb.size())
    right_values = [t for t, _r in fc._tick_texts(right)]
    assert right_values and all(float(t) <= 1.5 for t in right_values)
    assert fc.overlaps_in_scene(plot.scene()) == []
    assert fc._view_texts_clipped(plot) == []
    assert [lab.text for _s, lab in plot.legend.items] == ["loss", "accuracy"]
    # one quantity again: no right-hand axis
    plot.set_curves([epochs], [loss], ["loss"])
    plot.set_axis_labels("epoch", "loss", "accuracy")
    _settle(qtbot, plot)
    assert not plot.plotItem.getAxis("right").isVisible()
    assert [lab.text for _s, lab in plot.legend.items] == ["loss"]


@pytest.mark.parametrize("size", [(500, 260), (700, 300), (420, 240)])
def test_data_and_model_densities_are_drawn_over_the_same_range(qtbot, size):
    """The flows tab's data and model panels show the same x and y range, so the two
    densities compare point for point (the second panel was laid out wider and, with
    its aspect locked, showed x −1.7 … 2.7 beside the data's −1.5 … 2.5)."""
    from viz.flow_view import DensityView

    view = DensityView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    view.set_texts("data histogram", "model p_θ(x)", "density", "x₁", "x₂")
    grid = np.random.default_rng(0).random((40, 40)).astype(np.float32)
    view.set_densities(grid, grid, (-2.0, 3.0, -2.5, 3.0), (-1.5, 2.5, -1.75, 2.25))
    qtbot.wait(50)
    (a, b) = (p.vb.viewRange() for p in view.plots)
    np.testing.assert_allclose(a, b, atol=1e-6)
    assert view.plots[0].vb.width() == pytest.approx(view.plots[1].vb.width(), abs=0.5)


@pytest.mark.parametrize("size", [(600, 420), (380, 600)])
def test_a_vector_field_fills_its_axes_in_a_panel_of_another_shape(qtbot, size):
    """A square plane fitted to its extent shrinks its plot, not its data: the axes run
    exactly over the extent the field was computed on, whatever the panel's shape (the
    ODE tab's field covered −2.2 … 2.2 of axes running −3.5 … 3.5)."""
    from viz.plane import PlanePlot

    plot = PlanePlot()
    qtbot.addWidget(plot)
    plot.fit_box = True
    plot.resize(*size)
    plot.show()
    g = np.linspace(-2.0, 2.0, 9)
    x, y = np.meshgrid(g, g)
    plot.set_field(x, y, -y, x)
    plot.set_extent((-2.2, 2.2, -2.2, 2.2))
    qtbot.wait(50)
    (x0, x1), (y0, y1) = plot.plotItem.vb.viewRange()
    assert (x0, x1, y0, y1) == pytest.approx((-2.2, 2.2, -2.2, 2.2), abs=0.05)
    vb = plot.plotItem.vb
    assert vb.width() == pytest.approx(vb.height(), rel=0.02)
    assert plot.plotItem.sceneBoundingRect().height() <= plot.height()
    assert fc._view_texts_clipped(plot) == []
    plot.resize(size[1], size[0])            # and after a change of shape
    qtbot.wait(50)
    (x0, x1), (y0, y1) = plot.plotItem.vb.viewRange()
    assert (x0, x1, y0, y1) == pytest.approx((-2.2, 2.2, -2.2, 2.2), abs=0.05)
    # lines in every corner: the legend goes below the plot, the box is fitted again
    t = np.linspace(0, 2 * np.pi, 200)
    plot.set_lines("ring", np.stack([2.1 * np.cos(t), 2.1 * np.sin(t)], 1), legend="ring")
    plot.set_lines("cross", np.array([[-2.1, -2.1], [2.1, 2.1], [np.nan, np.nan],
                                      [-2.1, 2.1], [2.1, -2.1]]), legend="cross")
    _settle(qtbot, plot, 3 * THROTTLE_MS)
    (x0, x1), (y0, y1) = plot.plotItem.vb.viewRange()
    assert (x0, x1, y0, y1) == pytest.approx((-2.2, 2.2, -2.2, 2.2), abs=0.05)
    assert fc.overlaps_in_scene(plot.scene()) == []
    renders = []
    plot.plotItem.vb.sigResized.connect(lambda *_: renders.append(1))
    qtbot.wait(300)
    assert len(renders) <= 2            # settled, not fitted again and again


def test_new_curves_lay_their_legend_out_once_and_as_entry_by_entry(qtbot, monkeypatch):
    """``set_curves`` of 12 new curves laid the legend out once per entry (O(n²): 141
    layouts, 0.17 s of an Open session's 1.4 s under the profiler). Now once, at the
    end, to the same places and size as entry by entry; a reused curve whose name did
    not change is not measured again."""
    import contextlib

    import viz.legend as legend_module
    import viz.plots as plots_module

    def drawn(plot: CurvesPlot):
        legend = plot.legend
        qtbot.wait(30)
        return (legend.geometry().getRect(),
                [(s.geometry().getRect(), lab.geometry().getRect(), lab.text)
                 for s, lab in legend.items])

    names = [f"curve {i}" for i in range(12)]
    ys = np.arange(12, dtype=np.float32)[:, None] * np.ones((12, 5), np.float32)
    plots = []
    for batched in (True, False):
        if not batched:
            monkeypatch.setattr(plots_module, "one_layout",
                                lambda legend: contextlib.nullcontext())
        plot = CurvesPlot()
        qtbot.addWidget(plot)
        plot.resize(600, 400)
        plot.show()
        calls = []
        real = legend_module.lay_out
        monkeypatch.setattr(legend_module, "lay_out",
                            lambda legend, real=real, calls=calls: (calls.append(1), real(legend))[1])
        plot.set_curves(np.arange(5), ys, names)
        monkeypatch.setattr(legend_module, "lay_out", real)
        plots.append((plot, len(calls)))
    (batched, once), (single, per_entry) = plots
    assert once == 1 and per_entry >= 12, (once, per_entry)
    assert drawn(batched) == drawn(single)
    set_text = []
    monkeypatch.setattr(pg.LabelItem, "setText",
                        lambda self, *a, **k: set_text.append(a))
    batched.set_curves(np.arange(5), ys * 2, names)
    assert set_text == []
