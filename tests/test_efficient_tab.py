"""The efficient-attention tab driven as a person would: patterns, approximations, the
three-API panel, q/k/v from the Transformer tab, and the cost measurement."""

from __future__ import annotations

import figure_checks
import numpy as np
import pytest
from figure_checks import english_words
from figure_checks import view_marks as drawn_marks
from PySide6.QtCore import Qt

from app.tabs.efficient import EfficientTab
from tests.windows import open_tab


@pytest.fixture
def tab(qtbot, window) -> EfficientTab:
    t = open_tab(qtbot, window, "efficient")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    return t


def wait_result(qtbot, tab, predicate, timeout=30_000):
    qtbot.waitUntil(lambda: tab.result is not None and predicate(tab.result), timeout=timeout)


def test_first_view_shows_pattern_approximation_and_apis(tab):
    r = tab.result
    m = r.mask
    assert m.kind == "longformer" and m.mask.shape == (64, 64)
    np.testing.assert_array_equal(tab.pattern_view.plot.weights()[0], m.mask.astype(np.float32))
    assert r.approx.method == "performer" and r.approx.exact.shape == (64, 64)
    c = r.conventions
    assert c.weights.shape == (3, 64, 64) and (c.max_diff < 1e-5).all()
    assert "density" in tab.view("pattern").panel.title.text()


def test_pattern_controls_follow_the_pattern(qtbot, tab):
    tab.apply_state({"pattern": "dilated", "window": 4, "dilation": 2, "n": 32})
    wait_result(qtbot, tab, lambda r: r.mask.kind == "dilated" and r.mask.n == 32)
    form = tab.pattern_form
    assert not form.widgets["dilation"].isHidden() and form.widgets["block"].isHidden()
    m = tab.result.mask
    assert m.mask[16, 12] and m.mask[16, 20] and not m.mask[16, 17]
    curves = tab.field_view.plot.curves()
    assert len(curves[1]) == 3                # measured, theory, pairs connected


def test_changing_the_pattern_does_not_recompute_the_approximation(qtbot, tab):
    before = tab.result.approx
    tab.apply_state({"n": 48})
    wait_result(qtbot, tab, lambda r: r.mask.n == 48)
    assert tab.result.approx is before


def test_more_features_less_error_and_trig_features_go_negative(qtbot, tab):
    a = tab.result.approx
    assert a.sweep_names[0] and a.sweep_error.shape[1] == a.sweep_x.size
    assert a.sweep_error[0, -1] < a.sweep_error[0, 0]
    tab.apply_state({"feature_kind": "trig"})
    wait_result(qtbot, tab, lambda r: r.approx.negative > 0)
    assert "negative" in tab.view("matrices").panel.readout.text()


def test_linformer_with_identity_projection_is_exact(qtbot, tab):
    tab.apply_state({"method": "linformer", "seq_len": 32, "k_len": 32,
                     "projection": "identity"})
    wait_result(qtbot, tab, lambda r: r.approx.method == "linformer")
    assert tab.result.approx.output_error < 1e-5


def test_qkv_from_the_transformer_tab(qtbot, window, tab):
    peer = open_tab(qtbot, window, "transformer")
    qtbot.waitUntil(lambda: peer.trace is not None, timeout=30_000)
    tab.apply_state({"source": "transformer", "method": "performer"})
    wait_result(qtbot, tab, lambda r: r.approx.exact.shape == (11, 11))
    q = peer.trace.steps.get("cross.q_heads").values
    assert "d_k = 16" in tab.source_note.text() and q.shape == (11, 16)


def test_a_refused_setting_is_explained_and_leaves_the_other_views(qtbot, window, tab,
                                                                    monkeypatch):
    dialogs = []
    monkeypatch.setattr(tab.ctx, "report_error", lambda *a: dialogs.append(a))
    approx = tab.result.approx
    tab.apply_state({"pattern": "global", "global_tokens": "zero"})
    qtbot.waitUntil(lambda: "Global tokens" in tab.pattern_error.text(), timeout=10_000)
    tab.apply_state({"pattern": "bigbird", "n": 60, "block": 8})
    qtbot.waitUntil(lambda: "divisible" in tab.pattern_error.text(), timeout=10_000)
    tab.apply_state({"seq_len": 40})                   # the approximation still follows
    wait_result(qtbot, tab, lambda r: r.approx.exact.shape == (40, 40))
    assert tab.result.approx is not approx and "divisible" in tab.pattern_error.text()
    tab.apply_state({"n": 64})
    wait_result(qtbot, tab, lambda r: r.mask.kind == "bigbird")
    assert tab.pattern_error.text() == "" and not dialogs


def test_causal_switched_on_then_a_method_without_it(qtbot, tab):
    tab.apply_state({"method": "performer", "approx_causal": True})
    wait_result(qtbot, tab, lambda r: r.approx.params.get("causal") is True)
    tab.apply_state({"method": "banded"})
    wait_result(qtbot, tab, lambda r: r.approx.method == "banded")
    assert tab.approx_error.text() == ""
    assert tab.approx_form.widgets["approx_causal"].isHidden()


def test_a_new_seed_draws_a_new_random_pattern(qtbot, tab):
    tab.apply_state({"pattern": "random", "random_keys": 3, "seed": 0})
    wait_result(qtbot, tab, lambda r: r.mask.kind == "random")
    first = tab.result.mask.mask.copy()
    tab.apply_state({"seed": 5})
    wait_result(qtbot, tab, lambda r: not np.array_equal(r.mask.mask, first))
    assert (tab.result.mask.mask.sum(1) == 3).all()


def test_token_by_token_transformer_heads_are_not_square(qtbot, window, tab):
    peer = open_tab(qtbot, window, "transformer")
    peer.apply_state({"generated": 3})
    qtbot.waitUntil(lambda: peer.trace is not None and len(peer.trace.q_tokens) == 3,
                    timeout=30_000)
    tab.apply_state({"source": "transformer"})
    qtbot.waitUntil(lambda: "square" in tab.source_note.text(), timeout=10_000)
    assert tab.approx_error.text() == ""


def test_measuring_fills_the_time_and_memory_plots(qtbot, tab, tmp_path, window):
    tab.apply_state({"max_n": "1024", "time_budget": 0.5, "cost_m": 64, "cost_w": 32,
                     "cost_k": 32})
    assert tab.measure_button.text() == "Measure time and memory"
    qtbot.mouseClick(tab.measure_button, Qt.MouseButton.LeftButton)
    assert tab.jobs.is_running() and tab.measure_button.text() == "Stop"
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=120_000)
    assert tab.measure_button.text() == "Measure time and memory"
    t = tab.cost
    assert t is not None and set(t.measured_n.tolist()) == {256, 512, 1024}
    assert len(tab.time_view.plot.curves()[1]) >= 4
    assert "SDPA" in tab.cost_note.text() and "xformers" in tab.cost_note.text()
    out = window.export_data(tab, "time", str(tmp_path / "time.csv"))
    header = next(line for line in (tmp_path / out).read_text().splitlines()
                  if not line.startswith("#"))
    assert "seconds" in header and "peak_bytes" in header


def test_every_tour_step_applies(qtbot, tab):
    steps = tab.tour_steps()
    assert 8 <= len(steps) <= 11
    for i, step in enumerate(steps):
        tab.tour.go_to(i)
        assert [v.key for v in tab.views if v.panel.is_highlighted()] == [
            step.state["highlight"]]
        state = {k: v for k, v in step.state.items() if k != "highlight"}
        assert all(tab.params()[k] == v for k, v in state.items()), step.id
        tab.compute_now()                       # every step's settings compute cleanly
        assert tab.pattern_error.text() == tab.approx_error.text() == "", step.id


def test_every_view_has_content_on_first_open(qtbot, tab):
    """The measured panels too: a quick measurement runs the first time the tab shows."""
    qtbot.waitUntil(lambda: tab.cost is not None and not tab.jobs.is_running(),
                    timeout=60_000)
    assert tab.cost_is_quick and set(tab.cost.measured_n.tolist()) <= {256, 512, 1024}
    assert np.isfinite(tab.cost.seconds).any()
    for view in tab.views:
        assert drawn_marks(view) > 0, view.key
    assert len(tab.time_view.plot.curves()[1]) >= 2 and not tab.time_view.plot.hint.isVisible()
    assert "Measure" in tab.view("time").panel.readout.text()
    # the full measurement replaces it (the quick one is not shown as the full one)
    tab.apply_state({"max_n": "1024", "time_budget": 0.2})
    assert tab.cost is None
    tab.toggle_job("measure")
    assert tab.running() == "measure" and not tab.cost_is_quick
    tab.jobs.stop()


def test_the_tour_forward_and_back_keeps_each_step_true(qtbot, tab):
    steps = tab.tour_steps()
    order = [*range(len(steps)), *reversed(range(len(steps) - 1))]
    for i in order:
        tab.tour.go_to(i)
        state = {k: v for k, v in steps[i].state.items() if k != "highlight"}
        assert all(tab.params()[k] == v for k, v in state.items()), steps[i].id
        tab.compute_now()
        r = tab.result
        if steps[i].state.get("highlight") == "error":      # the curves the text reads
            assert r.approx.method == state["method"]
            if state["method"] == "performer":
                assert r.approx.params["kind"] == "positive", steps[i].id
        if "blue dots" in steps[i].text.get("en", ""):       # the legend keeps off them
            placer = tab.field_view.plot.legend_placer
            placer.place()
            assert placer.where == "below" or not figure_checks.overlaps_in_scene(
                tab.field_view.plot.scene())
        tab.jobs.stop()


def test_nothing_stays_english_in_chinese(qtbot, window, tab):
    window.set_language("zh_CN")
    wait_result(qtbot, tab, lambda r: True)
    qtbot.wait(300)
    assert english_words(window, "efficient") == []
    assert "course" not in tab.view("conventions").panel.readout.text()
    window.set_language("en")


def test_views_draw_and_export_a_trace_without_the_tab(qapp):
    """A view sees only a trace and a request: made, drawn and exported with no tab."""
    from app.tabs.efficient.views import (
        ConventionsView,
        Measured,
        PatternView,
        ScaleView,
        TimeView,
    )
    from models.efficient_attention import efficient_trace
    from models.efficient_attention.options import EFFICIENT_PART_FIELDS, EfficientRequest

    ask = EfficientRequest(pattern="local", n=16, window=2, seq_len=16, features=8)
    t = efficient_trace(ask, None, {p: ask.part(p) for p in EFFICIENT_PART_FIELDS})
    pattern = PatternView()
    pattern.show(t.mask, ask)
    np.testing.assert_array_equal(pattern.plot.weights()[0], t.mask.mask.astype(np.float32))
    assert pattern.data().arrays["mask"].shape == (16, 16) and "N = 16" in pattern.title()
    conventions = ConventionsView()
    conventions.show(t.conventions, ask)
    assert conventions.data().arrays["weights"].shape == (48, 16)
    assert "nn.MHA" in conventions.panel.readout.text()
    scale = ScaleView()
    scale.show(t.approx, ask)
    assert scale.data().primary == "error" and len(scale.plot.curves()[1]) == 2
    time = TimeView()
    time.show(Measured(None), None)               # nothing measured: a hint, no data
    assert time.data() is None and time.plot.hint.isVisible()


def test_chunked_attention_views_follow_the_chunk_controls(qtbot, tab):
    """Issue 35: pick N, the chunk and a row; the output equals exact attention, the
    online softmax of that row ends at its exact max and sum, memory is measured."""
    before = tab.result.chunk_memory
    tab.apply_state({"chunk_n": 100, "chunk": 12, "chunk_row": 99, "chunk_mask": "causal"})
    wait_result(qtbot, tab, lambda r: r.chunked is not None and r.chunked.n == 100
                and r.chunk_memory is not None and r.chunk_memory.chunk == 12)
    c = tab.result.chunked
    assert (c.chunk, c.row, c.mask_kind) == (12, 99, "causal")
    equal = tab.view("chunk_equal").data()
    assert equal.arrays["max_abs_diff"].max() < 1e-6
    assert "c = 12" in tab.view("chunk_equal").panel.title.text()
    xs, ys = tab.online_view.plot.curves()
    assert len(ys) == 4 and len(xs[0]) == 9                       # ceil(100 / 12) chunks
    assert abs(ys[0][-1] - c.row_max) < 1e-5 and abs(ys[3][-1] - c.row_sum) < 1e-4
    assert "Σ e^(s − max)" in tab.view("online").panel.readout.text()
    m = tab.result.chunk_memory
    assert m is not before and (m.chunked_bytes[-1] < m.exact_bytes[-1] / 4)
    assert "MiB" in tab.view("chunk_memory").panel.readout.text()
    # another row: the memory measurement (which depends on the chunk only) stays
    tab.apply_state({"chunk_row": 10})
    wait_result(qtbot, tab, lambda r: r.chunked.row == 10)
    assert tab.result.chunk_memory is m
    assert not tab.chunk_form.widgets["chunk_row"].isHidden()
