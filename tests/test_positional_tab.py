"""The positional-encoding tab driven as a person would: sliders, typing, hovering,
the Learn button, the tour. Each test asserts what changed on screen or in the trace."""

from __future__ import annotations

import numpy as np
import pytest
from figure_checks import english_words
from figure_checks import view_marks as drawn_marks
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from app.tabs.positional import PositionalTab, parse_dims
from tests.windows import open_tab


@pytest.fixture
def tab(qtbot, window) -> PositionalTab:
    return open_tab(qtbot, window, "positional")


def wait_trace(qtbot, tab, predicate, timeout=15_000):
    qtbot.waitUntil(lambda: tab.trace is not None and predicate(tab.trace), timeout=timeout)


def test_first_trace_uses_defaults_and_real_module(tab):
    t = tab.trace
    assert t.pe.shape == (100, 128)
    assert t.similarity.shape == (100, 100)
    np.testing.assert_allclose(np.diag(t.similarity), 64.0, atol=1e-3)
    # what the heatmap shows is the trace itself
    np.testing.assert_array_equal(tab.pe_view.plot.matrix(), t.pe)


def test_dragging_d_model_slider_recomputes(qtbot, tab):
    slider = tab.d_model.slider
    slider.setFocus()
    for _ in range(5):
        QTest.keyClick(slider, Qt.Key.Key_PageUp)
    wait_trace(qtbot, tab, lambda t: t.d_model != 128)
    assert tab.trace.d_model == int(tab.d_model.value())
    assert tab.pe_view.plot.matrix().shape == (100, tab.trace.d_model)
    assert tab.trace.d_model % 2 == 0


def test_typing_max_len_resizes_every_view(qtbot, tab):
    spin = tab.max_len.spin
    spin.selectAll()
    QTest.keyClicks(spin, "2000")
    QTest.keyClick(spin, Qt.Key.Key_Return)
    wait_trace(qtbot, tab, lambda t: t.max_len == 2000)
    t = tab.trace
    assert t.pe.shape == (2000, 128)
    # long tables are sampled for the similarity matrix, labelled with true positions
    assert t.similarity.shape == (1000, 1000)
    assert t.sim_positions[1] - t.sim_positions[0] == 2
    assert "2" in tab.view("similarity").panel.title.text()
    assert tab.offset.slider.maximum() == 1999


def test_hover_over_heatmap_reads_out_value(qtbot, tab):
    plot = tab.pe_view.plot
    vb = plot.plotItem.vb
    # the centre of cell (pos 10, dim 3) in widget coordinates
    scene_pt = vb.mapViewToScene(QPointF(3, 10))
    widget_pt = plot.mapFromScene(scene_pt)
    QTest.mouseMove(plot.viewport(), QPoint(int(widget_pt.x()), int(widget_pt.y())))
    qtbot.waitUntil(lambda: "pos 10" in tab.view("pe").panel.readout.text(), timeout=3000)
    text = tab.view("pe").panel.readout.text()
    assert "dim 3" in text
    assert f"{tab.trace.pe[10, 3]:+.4f}" in text


def test_bad_dimensions_are_reported_not_crashing(qtbot, tab):
    tab.dims.setText("0, 5-7, 999, x")
    tab.dims.editingFinished.emit()
    wait_trace(qtbot, tab, lambda t: list(t.curve_dims) == [0, 5, 6, 7])
    assert "999" in tab.dims_note.text() and "x" in tab.dims_note.text()
    assert len(tab.curves_view.plot.curves()[1]) == 4


def test_parse_dims_ranges_and_limits():
    assert parse_dims("0, 2-4", 8) == ([0, 2, 3, 4], [])
    dims, problems = parse_dims("7, 8, a", 8)
    assert dims == [7] and problems == ["8", "a"]


def test_offset_slider_updates_relative_map_and_error(qtbot, tab):
    tab.offset.setValue(9)
    wait_trace(qtbot, tab, lambda t: t.offset == 9)
    assert "k = 9" in tab.view("relative").panel.title.text()
    assert tab.trace.offset_max_error < 1e-5
    assert "e-0" in tab.error_label.text()


def test_embedding_init_changes_relative_magnitudes(qtbot, tab):
    ratio_normal = tab.embeddings_view.plot.values()[0].mean() / tab.embeddings_view.plot.values()[1].mean()
    tab.init.setCurrentIndex(1)
    wait_trace(qtbot, tab, lambda t: t.embedding_init == "scaled")
    ratio_scaled = tab.embeddings_view.plot.values()[0].mean() / tab.embeddings_view.plot.values()[1].mean()
    assert ratio_normal > 10 > 3 > ratio_scaled


def test_sentence_longer_than_max_len_is_truncated_with_a_note(qtbot, tab):
    tab.max_len.setValue(3)
    tab.sentence.setText("one two three four five")
    tab.sentence.editingFinished.emit()
    wait_trace(qtbot, tab, lambda t: t.max_len == 3 and t.tokens_dropped == 2)
    assert tab.trace.tokens == ("one", "two", "three")
    assert "2 tokens beyond max_len" in tab.view("embeddings").panel.readout.text()
    assert tab.embeddings_view.plot.values().shape == (3, 3)


def test_huge_dimension_range_is_clipped_not_walked(qtbot, tab):
    import time

    t0 = time.perf_counter()
    dims, problems = parse_dims("0-999999999, 5-2", 128)
    assert time.perf_counter() - t0 < 0.01
    assert dims == list(range(12)) and "0-999999999" in problems and "5-2" in problems


def test_dragging_a_slider_keeps_drawing(qtbot, tab):
    """A throttle, not a debounce: traces arrive while the value keeps changing."""
    seen = set()
    tab.compute.done.connect(lambda t: seen.add(t.d_model))
    for value in range(130, 200, 2):
        tab.d_model.setValue(value)
        qtbot.wait(10)
    assert len(seen) >= 3, seen


def test_learn_button_trains_and_stop_stops(qtbot, tab):
    tab.d_model.setValue(16)
    wait_trace(qtbot, tab, lambda t: t.d_model == 16)
    qtbot.mouseClick(tab.learn_button, Qt.MouseButton.LeftButton)
    assert tab.jobs.is_running()
    qtbot.waitUntil(lambda: len(tab.fit_history) >= 200, timeout=30_000)
    first = float(tab.fit_history[0])
    assert float(tab.fit_history[-1]) < first / 10
    assert tab.job_bar.stop_button.isEnabled()
    assert "Learning M_k" in tab.job_bar.label.text()
    qtbot.mouseClick(tab.job_bar.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=5_000)
    assert not tab.job_bar.stop_button.isEnabled()
    n = len(tab.fit_history)
    qtbot.wait(300)
    assert len(tab.fit_history) == n  # nothing arrives after Stop
    # the learned map is drawn on demand
    tab.relative_mode.setCurrentIndex(1)
    np.testing.assert_array_equal(tab.relative_view.plot.matrix(), tab.fit.learned)


def test_changing_parameters_stops_learning_and_drops_the_old_fit(qtbot, tab):
    qtbot.mouseClick(tab.learn_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.fit_history) > 0, timeout=30_000)
    tab.base.setValue(500)
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=5_000)
    qtbot.wait(200)   # anything the stopped job had queued arrives now, and is dropped
    assert tab.fit is None and len(tab.fit_history) == 0
    wait_trace(qtbot, tab, lambda t: t.base == 500)
    tab.relative_mode.setCurrentIndex(1)   # "learned": nothing stale is shown
    np.testing.assert_array_equal(tab.relative_view.plot.matrix(), tab.trace.offset_matrix)


def test_restarting_learning_never_mixes_two_runs(qtbot, tab):
    qtbot.mouseClick(tab.learn_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.fit_history) > 50, timeout=30_000)
    tab.toggle_job("train")   # stop
    tab.toggle_job("train")   # and start again at once
    qtbot.waitUntil(lambda: len(tab.fit_errors) >= 5, timeout=30_000)
    steps = [s for s, _ in tab.fit_errors]
    assert steps == sorted(steps) and len(tab.fit_history) == steps[-1]
    tab.jobs.stop()


def test_offset_zero_has_nothing_to_learn(qtbot, tab, window):
    tab.offset.setValue(0)
    qtbot.mouseClick(tab.learn_button, Qt.MouseButton.LeftButton)
    assert not tab.jobs.is_running()
    assert "identity" in window.statusBar().currentMessage()


def test_tour_steps_apply_view_state(qtbot, tab):
    steps = tab.tour_steps()
    assert 5 <= len(steps) <= 8
    assert tab.tour.counter.text().endswith(str(len(steps)))
    target = next(i for i, s in enumerate(steps) if s.state.get("base") == 100)
    for _ in range(target):
        qtbot.mouseClick(tab.tour.next_button, Qt.MouseButton.LeftButton)
    assert tab.tour.index() == target
    assert tab.base.value() == 100
    highlighted = [v.key for v in tab.views if v.panel.is_highlighted()]
    assert highlighted == [steps[target].state["highlight"]]
    wait_trace(qtbot, tab, lambda t: t.base == 100)
    qtbot.mouseClick(tab.tour.back_button, Qt.MouseButton.LeftButton)
    assert tab.tour.index() == target - 1
    tab.jobs.stop()


def test_state_is_remembered_across_sessions(qtbot, window):
    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings

    tab = open_tab(qtbot, window, "positional")
    tab.d_model.setValue(64)
    tab.sentence.setText("a b c")
    window.close()
    again = MainWindow(Settings(), Translations(), start_loader=False)
    qtbot.addWidget(again)
    assert not again.tabs[0].learn_button.isEnabled()   # until torch has loaded
    assert again.tabs[0].d_model.value() == 64
    assert again.tabs[0].sentence.text() == "a b c"


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_controls_fit_their_panel_in_both_languages(qtbot, window, tab, lang):
    window.set_language(lang)
    qtbot.wait(50)
    viewport = tab.controls.parentWidget()
    assert tab.controls.minimumSizeHint().width() <= viewport.width(), (
        "controls are wider than the panel: they would be clipped")
    window.set_language("en")


def test_every_view_has_content_on_first_open(qtbot, tab):
    """The fit panel too: W starts at 0 (step 0) and the exact M_k's error is its floor."""
    t = tab.trace
    for view in tab.views:
        assert drawn_marks(view) > 0, view.key
    xs, ys = tab.fit_view.plot.curves()
    target = t.pe[t.offset:]
    np.testing.assert_allclose(ys[0], [np.mean(target ** 2)], rtol=1e-5)   # loss of W = 0
    np.testing.assert_allclose(ys[1], [np.abs(target).max()], rtol=1e-5)
    np.testing.assert_allclose(ys[2], t.offset_error.max(), rtol=1e-5)
    assert not tab.fit_view.plot.hint.isVisible()
    assert "Learn" in tab.view("fit").panel.readout.text()


def test_learning_starts_where_step_0_says(qtbot, tab):
    tab.d_model.setValue(16)
    wait_trace(qtbot, tab, lambda t: t.d_model == 16)
    start = float(tab.fit_view.plot.curves()[1][0][0])
    qtbot.mouseClick(tab.learn_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.fit_history) >= 20, timeout=30_000)
    tab.jobs.stop()
    first_loss = float(tab.fit_history[0])      # the first batch's loss, W still 0
    assert abs(first_loss - start) < 0.15 * start
    assert tab.fit_view.plot.curves()[1][0][0] == start


def test_the_tour_forward_and_back_keeps_each_step_true(qtbot, tab):
    steps = tab.tour_steps()
    for i in [*range(len(steps)), *reversed(range(len(steps) - 1))]:
        tab.tour.go_to(i)
        p = tab.params()
        state = {k: v for k, v in steps[i].state.items() if k not in ("highlight", "learn")}
        for k, v in state.items():
            if k in p:
                assert p[k] == v, (steps[i].id, k)
        assert [v.key for v in tab.views if v.panel.is_highlighted()] == [
            steps[i].state["highlight"]]
        tab.jobs.stop()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)


def test_nothing_stays_english_in_chinese(qtbot, window, tab):
    window.tabs_widget.setCurrentWidget(tab)
    window.set_language("zh_CN")
    qtbot.wait(300)
    names = [*tab.trace.tokens]
    assert english_words(window, "positional", names) == []
    window.set_language("en")


def test_views_draw_and_export_a_trace_without_the_tab(qapp):
    """A view sees only a trace and a request: made, drawn and exported with no tab."""
    from app.tabs.positional.views import FitShown, PEView, RelativeView, SimilarityView
    from models.transformer import pe_grid
    from models.transformer.options import PositionalRequest

    ask = PositionalRequest(d_model=16, max_len=40, offset=3, relative_mode="learned")
    grid = pe_grid(ask)
    pe = PEView()
    pe.show(grid, ask)
    np.testing.assert_array_equal(pe.plot.matrix(), grid.pe)
    assert pe.data().arrays["pe"] is grid.pe
    sim = SimilarityView()
    sim.show(grid, ask)
    assert sim.data().arrays["similarity"].shape == (40, 40)
    said = []
    rel = RelativeView()
    rel.status.connect(said.append)
    rel.show(FitShown(grid), ask)         # nothing learned: the exact map, and a word why
    np.testing.assert_array_equal(rel.plot.matrix(), grid.offset_matrix)
    assert said and rel.data().primary == "offset_matrix"
    assert "3" in rel.title()
