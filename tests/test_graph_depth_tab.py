"""The graph tab's depth study driven as a person would: the layers and the GCN
normalisation switch redraw the per-layer curves beside the baseline, "Depth study" trains
every depth, and the headless export takes depth=8 and refuses depth=9."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.tabs.graph import GraphTab
from tests.windows import open_tab

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tab(qtbot, window) -> GraphTab:
    t = open_tab(qtbot, window, "graph")
    window.tabs_widget.setCurrentWidget(t)
    qtbot.waitUntil(lambda: t.result is not None, timeout=30_000)
    return t


def _study(tab):
    return tab.depth.shown().study


def test_layers_and_normalisation_redraw_the_curves_beside_the_baseline(qtbot, tab):
    tab.depth.form.widgets["depth"].setValue(4)
    qtbot.waitUntil(lambda: _study(tab) is not None and _study(tab).depth == 4, timeout=30_000)
    # the curves drawn are the study's: five layers of the run, three of the baseline
    (xs, ys) = tab.depth.view.plot.curves()
    assert [len(x) for x in xs] == [5, 3, 5, 3]
    s = _study(tab)
    np.testing.assert_allclose(ys[0], s.energy)
    assert (np.diff(s.energy) < 0).all()                  # normalised: it smooths
    # normalisation off (the switch, as a click would): the plain sums blow the energy up
    assert not tab.depth.form.widgets["gcn_norm"].isHidden()
    tab.depth.form.widgets["gcn_norm"].setChecked(False)
    qtbot.waitUntil(lambda: _study(tab) is not None and not _study(tab).normalize,
                    timeout=30_000)
    s = _study(tab)
    assert s.energy[-1] > s.energy[0]
    # the same numbers as the models' own study of these settings
    from models.graphs.depth import untrained_depth_study
    from models.graphs.options import session_kwargs

    p = tab.params()
    ref = untrained_depth_study(tab.document().data, "gcn", 4, False, p["seed"],
                                p["train_per_class"], "cpu", **session_kwargs(p))
    np.testing.assert_allclose(s.energy, ref.energy, rtol=1e-5)
    tab.apply_state({"depth_show": "accuracy"})
    qtbot.waitUntil(lambda: tab.view("depth").panel.title.text() ==
                    "Test accuracy against depth", timeout=30_000)
    labels = [label.text for _sample, label in tab.depth.view.plot.legend.items]
    assert any("GCN, 4 layers, not normalised (as initialised)" in t for t in labels), labels
    # the switch is GCN's: hidden for GAT
    tab.apply_state({"model": "gat"})
    assert tab.depth.form.widgets["gcn_norm"].isHidden()


def test_depth_study_button_trains_every_depth(qtbot, tab):
    tab.apply_state({"epochs": 20, "depth": 3, "depth_show": "accuracy"})
    qtbot.waitUntil(lambda: _study(tab) is not None and _study(tab).depth == 3,
                    timeout=30_000)
    assert tab.depth.button.text() == "Depth study"
    qtbot.mouseClick(tab.depth.button, Qt.MouseButton.LeftButton)
    assert tab.running() == "depth" and tab.depth.button.text() == "Stop"
    qtbot.waitUntil(lambda: not tab.jobs.is_running(), timeout=120_000)
    qtbot.waitUntil(lambda: len(_study(tab).depths) == 8, timeout=10_000)
    s = _study(tab)
    assert s.epoch == 20 and s.depth_test_acc[2] == pytest.approx(s.test_acc)
    data = tab.view("depth").data()
    assert data.row_labels == list(range(1, 9))
    np.testing.assert_allclose(data.arrays["accuracy"][:, 0], s.depth_test_acc)
    assert "8 of 8 depths trained" in tab.view("depth").panel.readout.text()
    tab.apply_state({"depth_show": "layers"})
    qtbot.waitUntil(lambda: tab.view("depth").data().primary == "per_layer", timeout=30_000)
    per_layer = tab.view("depth").data()
    np.testing.assert_allclose(per_layer.arrays["per_layer"][:, 0], s.energy)
    assert tab.depth.button.text() == "Depth study"


def _cli(args, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", OMP_NUM_THREADS="1",
               ARCHSCOPE_SETTINGS_DIR=str(tmp_path / "settings"))
    return subprocess.run([sys.executable, "-m", "app", "export", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)


def test_headless_export_takes_depth_8_and_refuses_9(tmp_path):
    out = tmp_path / "smoothing.csv"
    done = _cli(["graph.depth", "--set", "depth=8", "--set", "gcn_norm=false",
                 "--out", str(out)], tmp_path)
    assert done.returncode == 0, done.stderr
    rows = out.read_text().splitlines()
    assert len(rows) >= 10          # a header (and comments), then layers 0…8
    refused = _cli(["graph.depth", "--set", "depth=9", "--out", str(tmp_path / "d.png")],
                   tmp_path)
    assert refused.returncode == 1
    assert "depth must be between 1 and 8, not 9" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "d.png").exists()


def test_a_tour_step_scrolls_the_view_it_talks_of_into_sight(qtbot, window, tab):
    """At 1280 × 800 the graph tab's grid is taller than the window and the depth view
    sits below the fold: its tour step scrolls it into sight."""
    window.resize(1280, 800)
    qtbot.wait(300)
    panel = tab.depth.view.panel
    tab.highlight("graph")
    qtbot.wait(100)
    hidden = panel.visibleRegion().isEmpty()
    tab.highlight("depth")
    qtbot.wait(100)
    region = panel.visibleRegion().boundingRect()
    assert hidden and region.height() == panel.height() and region.width() == panel.width()
