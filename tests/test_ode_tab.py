"""The neural-ODE tab driven as a person would: the animation along t, the three tasks,
training with a solver switched mid-run, the adjoint comparison, unstable training
(NFE cap, a huge learning rate) that stops and restores, your own start points, the
tour, and the data behind every view."""

from __future__ import annotations

import figure_checks
import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.tabs import ode as ode_tab
from app.tabs.ode import ODETab, views
from models.traces.ode import ODEResult
from tests.windows import open_tab
from viz.plane import class_colour


@pytest.fixture
def tab(qtbot, window) -> ODETab:
    t = open_tab(qtbot, window, "ode")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    return t


def _wait_result(qtbot, tab, task: str, timeout: int = 30_000) -> ODEResult:
    qtbot.waitUntil(lambda: tab.result is not None and tab.result.task == task
                    and tab.result.key == tab._session_key(), timeout=timeout)
    return tab.result


def test_names_match_the_model_module():
    from models import ode

    assert ode_tab.TASKS == ode.TASKS
    assert ode_tab.SOLVERS == ode.SOLVERS
    assert ode_tab.ADAPTIVE == ode.ADAPTIVE
    from models.flows.options import DENSITIES
    assert set(ode_tab.DENSITIES) <= set(DENSITIES)


def test_spiral_shows_field_trajectories_fit_and_trivial_errors(qtbot, tab):
    r = _wait_result(qtbot, tab, "spiral")
    tr = r.trace
    assert tr.true.shape == tr.fitted.shape == (1000, 2)
    assert tab.field_view.plot.field_arrows() == ode_tab.FIELD_GRID ** 2
    readout = tab.view("task").panel.readout.text()
    assert "constant y0 1.257" in readout and "zero 0.530" in readout
    # the learned trajectory from the true y0, drawn up to t, ends at the marker
    tab.apply_state({"t": 0.5})
    assert "t = 12.50" in tab.t_label.text()
    now = tab.field_view.plot.layer_points("now")
    shown, pos = views.paths_until(r.paths, r.times, 12.5, False)
    np.testing.assert_allclose(now, pos, atol=1e-5)
    assert shown.shape[1] < r.paths.shape[1]          # only the part up to t
    assert "accepted" in tab.view("steps").panel.readout.text()
    # the comparison of the untrained model runs by itself, once
    qtbot.waitUntil(lambda: r.key in tab.comparisons, timeout=30_000)
    assert tab.comparisons[r.key]["step"] == 0 and not tab.adjoint_view.plot.hint.isVisible()
    assert "step 0" in tab.view("adjoint").panel.readout.text()
    # Play runs t to the end and stops there
    tab.apply_state({"t": 0.9})
    qtbot.mouseClick(tab.play_button, Qt.MouseButton.LeftButton)
    assert tab.timer.isActive()
    qtbot.waitUntil(lambda: not tab.timer.isActive(), timeout=10_000)
    assert tab.slider.value() == ode_tab.SLIDER_MAX and not tab.play_button.isChecked()


def test_the_adjoint_panel_follows_the_model_it_describes(qtbot, tab):
    """The adjoint panel showed the untrained model's comparison (step 0) after 172
    training steps: while training runs it says which step its bars are of, and once
    training stops the model as trained is compared again, its step named."""
    r = _wait_result(qtbot, tab, "spiral")
    key = r.key
    qtbot.waitUntil(lambda: key in tab.comparisons, timeout=30_000)
    first = tab.comparisons[key]
    assert first["step"] == 0
    tab.apply_state({"train": True})
    session = tab.sessions[key]
    qtbot.waitUntil(lambda: session.step >= 10 and "the model is at step" in
                    tab.view("adjoint").panel.readout.text(), timeout=60_000)
    assert "of step 0" in tab.view("adjoint").panel.readout.text()
    tab.apply_state({"train": False})
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    qtbot.waitUntil(lambda: tab.comparisons[key]["step"] == session.step > 0,
                    timeout=30_000)
    trained = session.step
    c = tab.comparisons[key]
    assert c is not first and c["result"] is not first["result"]
    readout = tab.view("adjoint").panel.readout.text()
    assert f"step {trained}" in readout and "the model is at" not in readout
    # its bars are the new comparison's (time, memory, NFE backward: direct, adjoint)
    a = c["result"]
    drawn = tab.adjoint_view.plot.values()
    assert drawn[0][2] / drawn[1][2] == pytest.approx(
        a.nfe_backward_direct / max(a.nfe_backward_adjoint, 1e-30), rel=1e-4)


def test_training_with_a_solver_switch_mid_run_marks_the_timeline(qtbot, tab):
    tab.apply_state({"train": True})
    key = tab._session_key()
    qtbot.waitUntil(lambda: tab.sessions[key].step >= 5, timeout=30_000)
    tab.apply_state({"method": "rk4", "step_size": 0.05})    # while it runs: no restart
    qtbot.waitUntil(lambda: len(tab.switches[key]) == 2, timeout=10_000)
    assert tab.jobs.is_running() and tab.sessions[key].solver.method == "rk4"
    switch = tab.switches[key][-1][0]
    qtbot.waitUntil(lambda: tab.sessions[key].step >= switch + 5, timeout=30_000)
    tab.apply_state({"train": False})
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    s = tab.sessions[key]
    # rk4 on a fixed grid: 4 evaluations per step, the same steps for every window
    nfe = set(s.nfe_forward[switch:])
    assert len(nfe) == 1 and nfe.pop() % 4 == 0
    xs, labels = tab.nfe_view.plot.markers()
    assert len(xs) == 1 and abs(xs[0] - (switch + 0.5)) < 1e-6 and "rk4" in labels[0]
    qtbot.waitUntil(lambda: "rk4" in tab.view("nfe").panel.readout.text(), timeout=10_000)
    qtbot.waitUntil(lambda: "every step is accepted" in
                    tab.view("steps").panel.readout.text(), timeout=10_000)
    assert tab.train_button.text() == "Resume training"
    # the views redraw once the job has stopped: the whole loss curve
    qtbot.waitUntil(lambda: tab.loss_view.plot.curves()[1][0].size == s.step, timeout=10_000)
    # a new device: training stops, every session moves there
    tab.apply_state({"train": True})
    assert tab.jobs.is_running()
    tab.on_device_changed("cpu")
    assert not tab.jobs.is_running()
    assert all(x.device.type == "cpu" for x in tab.sessions.values())


def test_nfe_cap_stops_training_restores_and_says_what_to_try(qtbot, tab, monkeypatch):
    monkeypatch.setattr(tab.ctx, "report_error", lambda *a: None)
    key = tab._session_key()
    before = {k: v.clone() for k, v in tab.session().model.state_dict().items()}
    tab.apply_state({"max_nfe": 10, "train": True})
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=30_000)
    note = tab.error_note.text()
    assert "10 evaluations" in note and "restored" in note and "max_nfe" in note
    s = tab.sessions[key]
    assert s.last_instability == "nfe" and s.step == 0
    for k, v in s.model.state_dict().items():
        assert np.array_equal(v.numpy(), before[k].numpy())
    # the views keep the last good picture and say why they are not redrawn
    # in a few words of the tab's own (the model's sentence ran past the read-out), the
    # whole of it in the tooltip
    readout = tab.view("field").panel.readout
    qtbot.waitUntil(lambda: "NFE cap (10)" in readout.text(), timeout=20_000)
    assert "10 evaluations" in readout.toolTip() and "rk4" in readout.toolTip()
    assert len(views.solve_note(tab.result.display_error or
                                  "The ODE solver needed more than 10 evaluations")[0]) < 80
    assert tab.result.trace is not None


def test_a_huge_learning_rate_stops_and_keeps_finite_weights(qtbot, tab, monkeypatch):
    monkeypatch.setattr(tab.ctx, "report_error", lambda *a: None)
    # a learning rate of 1000 makes f so steep that the next solves need thousands of
    # evaluations: the cap (500 here, to keep the test short) stops it; NaN is rarer
    tab.apply_state({"task": "classify", "data": "moons", "lr": 1000.0, "max_nfe": 500,
                     "train": True})
    key = tab._session_key()
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=60_000)
    s = tab.sessions[key]
    assert s.last_instability in ("nan", "underflow", "nfe")
    assert "restored" in tab.error_note.text()
    assert all(np.isfinite(p.detach().numpy()).all() for p in s.model.parameters())
    qtbot.waitUntil(lambda: tab.result.key == key and tab.result.step == s.step,
                    timeout=20_000)


def test_classify_circles_with_augmentation_and_decision_regions(qtbot, tab):
    tab.apply_state({"task": "classify", "data": "circles", "augment": 1})
    r = _wait_result(qtbot, tab, "classify")
    assert tab.params()["hidden"] == 32 and tab.params()["lr"] == pytest.approx(1e-2)
    assert r.trace.augment == 1 and r.paths.shape == (300, 41, 2)
    assert tab.model_form.widgets["augment"].isVisibleTo(tab)
    assert not tab.model_form.widgets["density"].isVisibleTo(tab)
    regions = tab.task_view.plot.image_values()
    assert regions.shape == (80, 80) and set(np.unique(regions)) <= {0.0, 1.0}
    # and on screen: the regions are tinted in the two class colours (not left white)
    from PySide6.QtGui import QColor

    from viz.plane import REGION_ALPHA
    shot = tab.task_view.plot.grab().toImage()
    seen = {shot.pixelColor(x, y).name() for x in range(0, shot.width(), 7)
            for y in range(0, shot.height(), 7)}
    for c in (0, 1):
        q = QColor(class_colour(c))
        tint = QColor(*(round(255 + (v - 255) * REGION_ALPHA / 255)
                        for v in (q.red(), q.green(), q.blue())))
        assert any(QColor(n).red() == tint.red() and abs(QColor(n).green() - tint.green()) <= 2
                   and abs(QColor(n).blue() - tint.blue()) <= 2 for n in seen), c
    assert "accuracy" in tab.view("task").panel.readout.text()
    assert "other 1 at 0" in tab.view("field").panel.readout.text()
    # the solver group: fixed-step rows for rk4, tolerances for dopri5
    tab.apply_state({"method": "euler"})
    assert tab.solver_form.widgets["step_size"].isVisibleTo(tab)
    assert not tab.solver_form.widgets["rtol"].isVisibleTo(tab)


def test_cnf_samples_flow_from_the_base_and_the_density_follows_t(qtbot, tab):
    tab.apply_state({"task": "cnf", "density": "8gaussians", "t": 1.0})
    r = _wait_result(qtbot, tab, "cnf", timeout=60_000)
    tr = r.trace
    assert tr.density.shape[0] == 9 and tr.times[0] == pytest.approx(1.0)
    at_base = tab.task_view.plot.image_values().copy()
    np.testing.assert_allclose(at_base, tr.density[0])           # t = 1: the base
    base = tab.field_view.plot.layer_points("now")
    assert abs(base.mean()) < 0.2 and 0.8 < base.std() < 1.2
    tab.apply_state({"t": 0.0})
    np.testing.assert_allclose(tab.task_view.plot.image_values(), tr.density[-1])
    assert "−f" in tab.view("field").panel.readout.text()
    assert tab.slider.invertedAppearance()
    # Play runs from the base (t = 1) down to the data (t = 0)
    tab.apply_state({"t": 0.95, "play": True})
    qtbot.waitUntil(lambda: not tab.timer.isActive(), timeout=10_000)
    assert tab.slider.value() == 0 and not tab.play_button.isChecked()


def test_adjoint_comparison_fills_its_view(qtbot, tab):
    tab.apply_state({"compare": True})
    key = tab._session_key()
    qtbot.waitUntil(lambda: key in tab.comparisons, timeout=30_000)
    a = tab.comparisons[key]["result"]
    assert a.saved_bytes_adjoint < a.saved_bytes_direct
    assert tab.adjoint_view.plot.values().shape == (2, 3)
    assert not tab.adjoint_view.plot.hint.isVisible()
    readout = tab.view("adjoint").panel.readout
    assert "Δgrad" in readout.text() and "gradient difference" in readout.toolTip()


def test_a_click_starts_a_trajectory_and_dragging_moves_it(qtbot, tab):
    _wait_result(qtbot, tab, "spiral")
    tab.add_start(0.5, 0.5)
    qtbot.waitUntil(lambda: tab.user_paths is not None and len(tab.user_paths.paths) == 1,
                    timeout=20_000)
    np.testing.assert_allclose(tab.user_paths.paths[0, 0], [0.5, 0.5], atol=1e-6)
    tab.move_start(0, -0.5, 1.0)
    qtbot.waitUntil(lambda: tab.user_paths is not None
                    and np.allclose(tab.user_paths.paths[0, 0], [-0.5, 1.0]),
                    timeout=20_000)
    assert len(tab.field_view.plot.layer_points("user_now")) == 1
    tab.clear_button.click()
    assert tab.starts["spiral"] == [] and len(tab.field_view.plot.layer_points("user_start")) == 0


def test_every_tour_step_applies_strictly(qtbot, tab, monkeypatch):
    started = []
    monkeypatch.setattr(tab, "toggle_compare", lambda: started.append("compare"))
    steps = tab.tour_steps()
    assert 8 <= len(steps) <= 10
    for i, step in enumerate(steps):
        state = {k: v for k, v in step.state.items() if k != "highlight"}
        tab.apply_state(state, strict=True)
        tab.tour.go_to(i)
        assert [v.key for v in tab.views if v.panel.is_highlighted()] == [
            step.state["highlight"]]
        params = tab.params()
        for k, v in state.items():
            if k in params:
                assert params[k] == pytest.approx(v) if isinstance(v, float) else \
                    params[k] == v, (step.id, k)
    assert "compare" in started
    # the command line's strict mode refuses what the controls would not take
    from models.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="Unknown parameter"):
        tab.apply_state({"nope": 1}, strict=True)
    with pytest.raises(InvalidParameterError, match="t must be"):
        tab.apply_state({"t": 2}, strict=True)
    with pytest.raises(InvalidParameterError, match="method"):
        tab.apply_state({"method": "leapfrog"}, strict=True)


def test_every_view_exports_its_data(qtbot, window, tab, tmp_path):
    import csv

    tab.apply_state({"compare": True})
    key = tab._session_key()
    qtbot.waitUntil(lambda: key in tab.comparisons and not tab.jobs.is_running(),
                    timeout=30_000)
    tab.apply_state({"train": True})
    qtbot.waitUntil(lambda: tab.jobs.is_running() and tab.sessions[key].step >= 3,
                    timeout=30_000)
    tab.apply_state({"train": False})
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    for view in tab.views:
        assert view.data() is not None, view.key
        out = window.export_data(tab, view.key, str(tmp_path / f"{view.key}.csv"))
        with open(out, encoding="utf-8") as fh:
            rows = [r for r in csv.reader(fh) if r and r[0][0] != "#"]
        assert len(rows) >= 2, view.key
        window.export_figure(tab, view.key, str(tmp_path / f"{view.key}.png"), 600)
        assert (tmp_path / f"{view.key}.png").read_bytes()[:4] == b"\x89PNG"
        window.export_figure(tab, view.key, str(tmp_path / f"{view.key}.svg"))
        assert b"<svg" in (tmp_path / f"{view.key}.svg").read_bytes()[:2000]


def test_non_finite_weights_stop_training_and_the_good_ones_come_back(qtbot, tab,
                                                                      monkeypatch):
    import math

    import torch

    monkeypatch.setattr(tab.ctx, "report_error", lambda *a: None)
    s = tab.session()
    for _ in s.train(s.snapshot_every + 2):      # past a rollback point after the start
        pass
    with s.lock, torch.no_grad():                 # as if a step had gone to NaN
        next(s.func.parameters())[0, 0] = math.nan
    tab.apply_state({"train": True})
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=30_000)
    assert s.last_instability == "nan" and "non-finite" in tab.error_note.text()
    assert all(np.isfinite(p.detach().numpy()).all() for p in s.model.parameters())
    assert s.step == s.good_step == s.snapshot_every
    assert tab.train_button.text() == "Resume training"


# -- labels, units, content on first open ---------------------------------------------------------
def test_the_loss_axis_reads_the_losses_in_chinese_too(qtbot, window, tab):
    """Losses of 0.05 … 0.15 read 0.05 … 0.15 on the axis: pyqtgraph's automatic SI
    prefix showed 50 … 150 with "(x0.001)" in the label, which the translation dropped."""
    window.set_language("zh_CN")
    try:
        s = tab.session()
        n = 60
        s.losses.extend(np.linspace(0.15, 0.05, n).tolist())
        s.nfe_forward.extend([26] * n)
        s.nfe_backward.extend([0] * n)
        s.step_seconds.extend([0.01] * n)
        tab._show_training(tab.loss_view)
        qtbot.wait(100)
        axis = tab.loss_view.plot.plotItem.getAxis("left")
        lo, hi = tab.loss_view.plot.plotItem.vb.viewRange()[1]
        levels = axis.tickValues(lo, hi, axis.height())
        values = [v for _, vs in levels for v in vs if lo <= v <= hi]
        strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale,
                                   levels[0][0])
        numbers = [float(x) for x in strings]
        assert len(numbers) >= 3
        assert min(numbers) >= 0.03 and max(numbers) <= 0.17, strings
        assert axis.labelText == "损失"
        assert "x" not in axis.labelString().replace(axis.labelText, "")   # no (x0.001)
    finally:
        window.set_language("en")


def test_every_plane_has_axis_labels_and_the_density_a_labelled_colour_bar(qtbot, tab):
    for task, state, task_axes in (("spiral", ("y₁", "y₂"), ("y₁", "y₂")),
                                   ("classify", ("h₁", "h₂"), ("x₁", "x₂")),
                                   ("cnf", ("z₁", "z₂"), ("x₁", "x₂"))):
        tab.apply_state({"task": task})
        _wait_result(qtbot, tab, task)
        assert tab.field_view.plot.axis_labels() == state
        assert tab.task_view.plot.axis_labels() == task_axes
    assert tab.task_view.plot.colorbar.isVisible()
    assert tab.task_view.plot.colorbar_label() == "density p_t(x)"
    assert tab.task_view.plot.colorbar.getAxis("right").labelText == "density p_t(x)"
    shown = tab.task_view.plot.image.image
    assert shown.size and np.isfinite(shown).all()


def test_every_view_has_content_on_first_open(qtbot, tab):
    import plane_checks as pc

    key = tab._session_key()
    qtbot.waitUntil(lambda: key in tab.comparisons, timeout=30_000)
    for view in ("field", "task", "steps", "adjoint"):
        assert pc.drawn_items(tab.view(view).panel.graphics), view
    # before training, the NFE and loss timelines show the untrained model's step 0: the
    # batch loss and the evaluations of f of the comparison's pass with the session's method
    result = tab.comparisons[key]["result"]
    adjoint = tab.sessions[key].solver.adjoint
    qtbot.waitUntil(lambda: bool(pc.drawn_items(tab.loss_view.plot)), timeout=5000)
    _, ys = tab.loss_view.plot.curves()
    assert float(ys[0][0]) == pytest.approx(
        result.loss_adjoint if adjoint else result.loss_direct, rel=1e-5)
    _, ys = tab.nfe_view.plot.curves()
    assert [float(y[0]) for y in ys] == (
        [result.nfe_forward_adjoint, result.nfe_backward_adjoint] if adjoint
        else [result.nfe_forward_direct, result.nfe_backward_direct])
    for name, plot in (("nfe", tab.nfe_view.plot), ("loss", tab.loss_view.plot)):
        assert not plot.hint.isVisible() and plot.tick_values_shown()
        assert "step 0" in tab.view(name).panel.readout.text()


def test_tolerances_read_as_powers_of_ten():
    assert [views.tolerance(v) for v in (1e-3, 1e-4, 2.5e-4, 0.05, 1e-7)] == [
        "1e-3", "1e-4", "2.5e-4", "0.05", "1e-7"]
    from models.ode import SolverConfig

    cfg = SolverConfig(method="dopri5", rtol=1e-3, atol=1e-4)
    assert views.solver_label(cfg) == "dopri5, rtol 1e-3, atol 1e-4"
    assert views.solver_label(cfg, short=True) == "dopri5 1e-3/1e-4"


def test_going_back_in_the_tour_restores_what_each_step_shows(qtbot, tab, monkeypatch):
    """Every step names the controls its screen depends on, and Back re-applies them (a
    step that named fewer kept what a later step had set, e.g. an NFE cap of 10 under the solver's steps)."""
    monkeypatch.setattr(tab, "toggle_compare", lambda: None)
    monkeypatch.setattr(tab, "toggle_training", lambda: None)
    steps = tab.tour_steps()
    for step in steps:
        assert set(("task", "method", "max_nfe")) <= set(step.state), step.id
    assert figure_checks.tour_back_mismatches(tab) == []


class _Cycle:
    def __init__(self):
        self.me = self


def test_garbage_is_collected_while_a_training_runs_and_never_during_a_step(qtbot, window,
                                                                            tab, monkeypatch):
    """A training holds collection off during each step only: the window's collector
    still frees the app's cyclic garbage between two steps (a training runs until it is
    stopped: held throughout, garbage piled up for minutes and its collection froze the
    window), and never collects while a worker is inside a step."""
    import threading
    import weakref

    from models import gcpause

    inside = []
    real_collect = gcpause.gc.collect

    def watched(generation=2):
        # a collection while a worker thread holds a step is what crashed: every one is
        # on the GUI thread with only the window collector's own hold on
        inside.append((gcpause.holds(), threading.current_thread() is threading.main_thread()))
        return real_collect(generation)

    monkeypatch.setattr(gcpause.gc, "collect", watched)
    tab.apply_state({"train": True})
    key = tab._session_key()
    qtbot.waitUntil(lambda: tab.sessions[key].step >= 3, timeout=30_000)
    before = sum(window.collector.collections)
    garbage = [_Cycle() for _ in range(3000)]          # past generation 0's threshold
    probe = weakref.ref(garbage[0])
    del garbage
    qtbot.waitUntil(lambda: probe() is None, timeout=20_000)
    assert tab.jobs.is_running() and sum(window.collector.collections) > before
    assert inside and set(inside) == {(1, True)}, set(inside)
    tab.apply_state({"train": False})
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=10_000)
    # the steps' holds all ended (the tab's trace after the training may still run)
    qtbot.waitUntil(lambda: not tab.compute.is_busy() and gcpause.holds() == 1,
                    timeout=20_000)
