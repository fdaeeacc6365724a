"""The meta-learning tab driven as a person would: a test task adapted by four methods,
the step scrubber, support points dragged, added and removed with the mouse, training
with options changed mid-run, a diverging run, the 600-task evaluation (also out of
distribution), the prototypical network's two planes, the tour and every export."""

from __future__ import annotations

import csv

import figure_checks
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from app.tabs.meta import ADAPT_STEPS, METHODS, MetaTab
from tests.windows import open_tab


@pytest.fixture
def tab(qtbot, window) -> MetaTab:
    t = open_tab(qtbot, window, "meta")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    qtbot.wait(50)
    return t


def _at(plot, x: float, y: float) -> QPoint:
    return plot.mapFromScene(plot.plotItem.vb.mapViewToScene(QPointF(x, y)))


def _csv_rows(path) -> list[list[str]]:
    """The rows of an exported CSV file, read with the csv module, meta lines left out."""
    with open(path, encoding="utf-8", newline="") as fh:
        return [r for r in csv.reader(fh) if not r[0].startswith("#")]


def _stop(qtbot, tab) -> None:
    if tab.jobs.is_running():
        tab.jobs.stop()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    qtbot.waitUntil(lambda: not tab.evaluator.is_busy() and not tab.compute.is_busy(),
                    timeout=30_000)


def test_every_method_adapts_to_the_task_and_the_slider_scrubs_the_steps(qtbot, tab):
    trace, task = tab.result.adapt, tab.result.task
    k = tab.params()["k"]
    assert trace.methods == METHODS
    assert trace.predictions.shape == (4, ADAPT_STEPS + 1, len(task.x_grid))
    np.testing.assert_allclose(trace.x_support, task.x_support)
    assert len(tab.adapt_view.plot.layer_points("support")) == k
    truth = tab.adapt_view.plot.lines["truth"].getData()[1]
    np.testing.assert_allclose(truth[:len(task.y_grid)], task.y_grid, atol=1e-5)
    shown = tab.result
    for step in (0, 4, ADAPT_STEPS):
        tab.steps_slider.setValue(step)        # drawn from the trace: nothing recomputed
        y = tab.adapt_view.plot.lines["pred_maml"].getData()[1][:-1]   # NaN-terminated
        np.testing.assert_allclose(y, trace.predictions[0, step], atol=1e-5)
        assert f"after {step} step" in tab.view("adapt").panel.readout.text()
    assert tab.result is shown
    # earlier steps as faint curves: one path per earlier step, NaN-separated
    x = tab.adapt_view.plot.lines["trail_maml"].getData()[0]
    assert np.isnan(x).sum() == ADAPT_STEPS
    tab.trail_box.click()
    assert not tab.adapt_view.plot.lines["trail_maml"].isVisible()
    assert tab.params()["trail"] is False


def test_drag_click_and_right_click_edit_the_support_points(qtbot, tab):
    plot = tab.adapt_view.plot
    tab.apply_state({"support": [[-3.0, 1.0], [0.0, -1.0], [3.0, 2.0]]})
    qtbot.waitUntil(lambda: len(tab.result.adapt.x_support) == 3, timeout=10_000)
    first = tab.result.adapt.predictions.copy()
    # drag point 1 from (0, -1) to (1, 2): every method re-adapts to the moved point
    start, end = _at(plot, 0.0, -1.0), _at(plot, 1.0, 2.0)
    qtbot.mousePress(plot.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for f in np.linspace(0.1, 1.0, 6):
        qtbot.mouseMove(plot.viewport(), start + (end - start) * f)
    qtbot.mouseRelease(plot.viewport(), Qt.MouseButton.LeftButton, pos=end)
    qtbot.waitUntil(lambda: abs(tab.result.adapt.x_support[1] - 1.0) < 0.1, timeout=10_000)
    assert tab.result.adapt.y_support[1] == pytest.approx(2.0, abs=0.15)
    assert not np.allclose(tab.result.adapt.predictions[:, 1:], first[:, 1:])
    np.testing.assert_allclose(tab.result.adapt.predictions[:, 0], first[:, 0], atol=1e-6)
    # a click on empty space adds a point, a right-click on one removes it
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=_at(plot, -1.0, -3.0))
    qtbot.waitUntil(lambda: len(tab.result.adapt.x_support) == 4, timeout=10_000)
    assert tab.result.adapt.x_support[3] == pytest.approx(-1.0, abs=0.1)
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.RightButton, pos=_at(plot, -3.0, 1.0))
    qtbot.waitUntil(lambda: len(tab.result.adapt.x_support) == 3, timeout=10_000)
    assert -3.0 not in np.round(tab.result.adapt.x_support, 1)
    # Reset points: the task's own K points; New task: another task
    qtbot.mouseClick(tab.reset_points_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.result.adapt.x_support) == tab.params()["k"],
                    timeout=10_000)
    amplitude = tab.result.task.amplitude
    qtbot.mouseClick(tab.new_task_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.result.task.amplitude != amplitude, timeout=10_000)


def test_methods_shown_and_k_follow_the_controls(qtbot, tab):
    tab.apply_state({"methods": "maml,reptile", "k": 5})
    qtbot.waitUntil(lambda: len(tab.result.adapt.x_support) == 5, timeout=10_000)
    assert tab.session.k == 5
    assert tab.adapt_view.plot.lines["pred_maml"].isVisible()
    assert not tab.adapt_view.plot.lines["pred_pretrained"].isVisible()
    assert "pretrained" not in tab.view("adapt").panel.readout.text()
    tab.show_form.widgets["show_pretrained"].click()
    assert tab.adapt_view.plot.lines["pred_pretrained"].isVisible()
    # another device: a running job stops, both sessions move (here to the same cpu)
    tab.toggle_proto_training()
    assert tab.jobs.is_running()
    tab.on_device_changed("cpu")
    assert not tab.jobs.is_running()
    assert str(tab.session.device) == "cpu" and str(tab.proto.device) == "cpu"
    _stop(qtbot, tab)


def test_training_applies_options_mid_run_stops_and_reevaluates(qtbot, tab):
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    assert tab.jobs.is_running() and tab.train_button.text() == "Stop"
    qtbot.waitUntil(lambda: tab.session.step >= 3, timeout=60_000)
    tab.apply_state({"meta_batch": 4, "inner_lr": 0.02, "meta_lr": 0.002})
    assert tab.jobs.is_running()                          # no restart
    s = tab.session
    # made at once, or by the training thread as its running step ends (never waited for)
    qtbot.waitUntil(lambda: (s.meta_batch, s.inner_lr, s.meta_lr) == (4, 0.02, 0.002),
                    timeout=30_000)
    step = s.step
    qtbot.waitUntil(lambda: s.step >= step + 5, timeout=60_000)
    assert "Meta-training: step" in tab.job_bar.label.text()
    qtbot.mouseClick(tab.train_button, Qt.MouseButton.LeftButton)
    _stop(qtbot, tab)
    assert tab.train_button.text() == "Resume meta-training"
    # after the stop (the one of the untrained methods came at the start)
    qtbot.waitUntil(lambda: tab.eval_result is not None and tab.eval_result.step == s.step,
                    timeout=60_000)
    xs, ys = tab.loss_view.plot.curves()
    assert len(ys) == 4 and len(ys[0]) == s.step
    assert all(len(s.losses[m]) == s.step for m in METHODS)


def test_a_diverging_run_says_so_and_keeps_the_last_good_weights(qtbot, tab, monkeypatch):
    monkeypatch.setattr(tab.ctx, "report_error", lambda *a: None)
    tab.toggle_training()
    # past the first rollback point after the start (every snapshot_every = 10 good steps)
    qtbot.waitUntil(lambda: tab.session.step >= tab.session.snapshot_every + 1,
                    timeout=60_000)
    tab.apply_state({"inner_lr": 2.0, "inner_steps": 5})     # the inner loop blows up
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=60_000)
    assert "diverged" in tab.error_note.text() and "restored" in tab.error_note.text()
    s = tab.session
    # back to the last rollback point, at most 10 steps before the divergence
    assert f"weights of step {s.good_step} were restored" in tab.error_note.text()
    assert s.step == s.good_step >= s.snapshot_every
    assert all(len(s.losses[m]) == s.step for m in METHODS)
    for p in s.params.values():
        assert all(np.isfinite(v.detach().cpu().numpy()).all() for v in p.values())
    _stop(qtbot, tab)
    assert tab.result is not None and np.isfinite(tab.result.adapt.predictions[:, 0]).all()
    tab.apply_state({"inner_lr": 0.01, "inner_steps": 1})
    tab.toggle_training()                                    # trains on from the good step
    assert tab.error_note.text() == ""
    step = s.step
    qtbot.waitUntil(lambda: s.step > step, timeout=60_000)
    _stop(qtbot, tab)


def test_evaluation_has_bands_and_follows_the_amplitude_range(qtbot, tab):
    # the untrained methods are evaluated on first open: four identical starts
    qtbot.waitUntil(lambda: tab.eval_result is not None, timeout=60_000)
    assert tab.eval_result.step == 0 and not tab.mse_view.plot.hint.isVisible()
    np.testing.assert_allclose(tab.eval_result.mse[:, 0], tab.eval_result.mse[0, 0],
                               rtol=1e-5)
    assert "untrained" in tab.view("mse").panel.readout.text()
    qtbot.mouseClick(tab.eval_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.eval_result is not None, timeout=60_000)
    e = tab.eval_result
    assert e.n_tasks == 600 and e.mse.shape == (4, ADAPT_STEPS + 1) and (e.ci95 > 0).all()
    assert len(tab.mse_view.plot._bands) == 4
    names = [tab.mse_view.plot.legend.getLabel(i).text for i in tab.mse_view.plot._items]
    assert all("→" in n for n in names)
    assert "A ≤ 5" in tab.view("mse").panel.readout.text()
    # out of distribution: the note, the title, and the evaluation reruns by itself
    assert tab.ood_note.text() == ""
    tab.apply_state({"amp_max": 10.0})
    assert "out of distribution" in tab.ood_note.text()
    assert "out of distribution" in tab.view("adapt").panel.title.text()
    qtbot.waitUntil(lambda: tab.eval_result.amp_max == 10.0, timeout=60_000)
    assert tab.eval_result.mse[:, 0].mean() > e.mse[:, 0].mean() * 2
    _stop(qtbot, tab)


def test_prototypical_network_planes_train_and_beat_the_baseline_on_rings(qtbot, tab):
    combo = tab.proto_form.widgets["family"]
    combo.setCurrentIndex(1)                                  # rings
    qtbot.waitUntil(lambda: tab.result.episode.family == "rings", timeout=10_000)
    e = tab.result.episode
    assert e.prototypes.shape == (5, 2) and e.regions_embedding.shape == (160, 160)
    np.testing.assert_array_equal(tab.proto_embedding_view.plot.image_values(), e.regions_embedding)
    assert len(tab.proto_embedding_view.plot.layer_points("prototypes")) == 5
    qtbot.mouseClick(tab.proto_train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.proto.step >= 300, timeout=60_000)
    qtbot.mouseClick(tab.proto_train_button, Qt.MouseButton.LeftButton)
    _stop(qtbot, tab)
    qtbot.waitUntil(lambda: tab.result.episode.step == tab.proto.step, timeout=10_000)
    e = tab.result.episode
    assert e.accuracy > e.baseline_accuracy + 0.3             # rings: class means are useless
    assert "learned" in tab.view("proto_input").panel.readout.text()
    wrong = (e.query_pred != e.query_y).sum()
    assert len(tab.proto_embedding_view.plot.layer_points("wrong")) == wrong
    tab.apply_state({"input_regions": "baseline"})
    assert "baseline" in tab.view("proto_input").panel.title.text()
    np.testing.assert_array_equal(tab.proto_input_view.plot.image_values(), e.regions_baseline)
    seed = tab.params()["episode_seed"]
    qtbot.mouseClick(tab.new_episode_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.result.episode.seed == seed + 1, timeout=10_000)


def test_apply_state_is_strict_about_keys_and_values(tab):
    from models.errors import InvalidParameterError

    for bad in ({"nope": 1}, {"steps_shown": 11}, {"support": "[[1, 2, 3]]"},
                {"methods": "maml,foo"}, {"k": 7}, {"amp_max": 11}):
        with pytest.raises(InvalidParameterError):
            tab.apply_state(bad, strict=True)
    tab.apply_state({"support": "[[0.5, 1.0], [2.0, -1.0]]", "steps_shown": 3}, strict=True)
    assert tab.support.shape == (2, 2) and tab.steps_slider.value() == 3


def test_every_tour_step_applies_strictly_and_highlights_a_view(qtbot, tab):
    steps = tab.tour_steps()
    assert 8 <= len(steps) <= 10
    keys = {v.key for v in tab.views}
    for i, step in enumerate(steps):
        state = dict(step.state)
        assert state.pop("highlight") in keys, step.id
        tab.apply_state(state, strict=True)
        tab.tour.go_to(i)
        assert [v.key for v in tab.views if v.panel.is_highlighted()] == [
            step.state["highlight"]]
        params = tab.params()
        for k, v in state.items():
            if k in params:
                assert params[k] == v, (step.id, k)
    assert not tab.jobs.is_running()           # the tour never starts a long job itself
    _stop(qtbot, tab)


def test_every_view_exports_its_data_and_figure(qtbot, window, tab, tmp_path):
    for _ in tab.session.train(3):
        pass
    tab.apply_state({"evaluate": True})
    qtbot.waitUntil(lambda: tab.eval_result is not None, timeout=60_000)
    tab.compute_now()
    for view in tab.views:
        out = window.export_data(tab, view.key, str(tmp_path / f"{view.key}.csv"))
        rows = _csv_rows(out)
        assert len(rows) > 2 and all(len(r) == len(rows[0]) for r in rows), view.key
        png = window.export_figure(tab, view.key, str(tmp_path / f"{view.key}.png"), 500)
        assert (tmp_path / png).stat().st_size > 2000
    header = _csv_rows(tmp_path / "mse.csv")[0]
    assert header[:2] == ["row", "mse_maml"] and "ci95_pretrained" in header


# -- the planes' labels and extent; content on first open ------------------------------------
def test_prototype_planes_are_labelled_and_their_regions_fill_the_panel(qtbot, window, tab):
    import plane_checks as pc

    assert tab.proto_input_view.plot.axis_labels() == ("x₁", "x₂")
    assert all(tab.proto_embedding_view.plot.axis_labels())
    for size in ((1500, 940), (1280, 800)):
        window.resize(*size)
        qtbot.wait(200)
        for plane in (tab.proto_input_view.plot, tab.proto_embedding_view.plot):
            # the class regions reach every edge of the aspect-locked plane (the raster
            # used to end at the points' box, white bands beside it)
            assert pc.uncovered(plane.plotItem, plane.image) == 0.0, size
            # and every point is in view
            (x0, x1), (y0, y1) = plane.plotItem.vb.viewRange()
            for name in ("support", "prototypes"):
                pts = plane.layer_points(name)
                assert ((pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0)
                        & (pts[:, 1] <= y1)).all()


def test_every_view_has_content_on_first_open(qtbot, tab):
    import plane_checks as pc

    from app.tabs.meta.views import zero_predictor_mse

    qtbot.waitUntil(lambda: tab.eval_result is not None, timeout=60_000)
    for key in ("adapt", "mse", "proto_input", "proto_embedding"):
        assert pc.drawn_items(tab.view(key).panel.graphics), key
    # before meta-training: the loss of not learning (predicting 0) is the line to get under
    _, ys = tab.loss_view.plot.curves()
    assert len(ys) == 1 and np.allclose(ys[0], zero_predictor_mse())
    assert tab.loss_view.plot.tick_values_shown() and not tab.loss_view.plot.hint.isVisible()
    assert "Meta-train" in tab.view("loss").panel.readout.text()


def test_going_back_in_the_tour_restores_what_each_step_shows(qtbot, tab, monkeypatch):
    """Every step names the controls its screen depends on, and Back re-applies them (a
    step that named fewer kept what a later step had set, e.g. the out-of-distribution task under MAML's)."""
    monkeypatch.setattr(tab, "evaluate", lambda: None)
    monkeypatch.setattr(tab, "toggle_job", lambda name: None)
    steps = tab.tour_steps()
    for step in steps:          # the adaptation view's steps name its task
        if step.state["highlight"] == "adapt":
            assert {"amp_max", "task_seed", "support"} <= set(step.state), step.id
    assert figure_checks.tour_back_mismatches(tab) == []


def test_before_meta_training_the_loss_plot_shows_the_loss_of_not_learning():
    """The reference line is E[A² sin²(x − φ)] of the task family: checked by sampling
    the tasks the way the sessions do."""
    import numpy as np

    from app.tabs.meta.views import zero_predictor_mse
    from models.meta.options import X_RANGE
    from models.meta.tasks import sample_tasks, sinusoid

    rng = np.random.default_rng(0)
    amps, phases = sample_tasks(400_000, rng)
    x = rng.uniform(*X_RANGE, size=amps.shape)
    mse = float(np.mean(sinusoid(x, amps, phases) ** 2))
    assert abs(mse - zero_predictor_mse()) < 0.03 * zero_predictor_mse()


def test_the_mse_plot_shows_its_bands_whole_and_little_empty_room(qtbot, tab):
    """The evaluation's y range holds every band from its low to its high (the lows were
    left out of the range and cut at the bottom) and keeps at most a fifth of the plot
    more empty above them than below (a third was kept free for the legend, which finds
    its own room)."""
    qtbot.waitUntil(lambda: tab.eval_result is not None, timeout=60_000)
    qtbot.wait(100)
    lo, hi = tab.mse_view.plot.plotItem.vb.viewRange()[1]        # log10 units
    tops, bottoms = [], []
    for band in tab.mse_view.plot._bands:
        for curve, out in ((band.curves[0], bottoms), (band.curves[1], tops)):
            y = np.asarray(curve.getData()[1], np.float64)
            out.append(y[np.isfinite(y)])
    bottoms, tops = np.concatenate(bottoms), np.concatenate(tops)
    assert bottoms.min() >= lo - 1e-6 and tops.max() <= hi + 1e-6
    above, below = hi - tops.max(), bottoms.min() - lo
    assert (above - below) / (hi - lo) <= 0.2


def test_views_draw_and_export_a_trace_without_the_tab(qapp):
    """A view sees only a trace and a request: made, drawn and exported with no tab."""
    from app.tabs.meta.views import AdaptView, EvalShown, LossShown, LossView, MSEView
    from models.meta import MetaSession, ProtoSession
    from models.meta.options import MetaRequest
    from models.meta.probe import meta_result

    ask = MetaRequest(k=5, steps_shown=3, show_pretrained=False, amp_max=8.0)
    session, proto = MetaSession(k=5), ProtoSession()
    result = meta_result(session, proto, ask, None, (), None)
    adapt = AdaptView()
    adapt.show(result, ask)
    assert "out of distribution" in adapt.title()
    y = adapt.plot.lines["pred_maml"].getData()[1][:-1]
    np.testing.assert_allclose(y, result.adapt.predictions[0, 3], atol=1e-5)
    assert "pred_pretrained" not in adapt.plot.lines
    assert adapt.data().meta["steps_shown"] == 3
    mse = MSEView()
    mse.show(EvalShown(None), ask)            # no evaluation yet: a hint, nothing to export
    assert mse.plot.hint.isVisible() and mse.data() is None
    loss = LossView()
    loss.show(LossShown.of(None), ask)
    assert "Meta-train" in loss.panel.readout.text() and loss.data() is None
