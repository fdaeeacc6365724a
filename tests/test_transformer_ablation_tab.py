"""The Transformer tab's Ablations view, driven as a person would, and headless."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.tabs.transformer import TransformerTab
from tests.windows import open_tab

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tab(qtbot, window) -> TransformerTab:
    t = open_tab(qtbot, window, "transformer")
    window.tabs_widget.setCurrentWidget(t)
    return t


def wait_ablation(qtbot, tab, name, timeout=20_000):
    qtbot.waitUntil(lambda: tab.trace is not None and tab.trace.ablation is not None
                    and tab.trace.ablation.ablation == name
                    and tab.ablation_view.trace is tab.trace.ablation, timeout=timeout)


def test_choosing_a_switch_measures_it_beside_the_baseline(qtbot, tab):
    from app.tabs.transformer.views.ablation import switch_names
    from models.transformer.options import ABLATIONS

    wait_ablation(qtbot, tab, "no_pe")
    view = tab.ablation_view
    x, curves = view.plot.curves(0)
    a = tab.trace.ablation
    np.testing.assert_array_equal(curves[0].y, a.baseline)
    np.testing.assert_array_equal(curves[1].y, a.ablated)
    assert a.summary[1] < 1e-6 < 1e-1 < a.summary[0]
    assert "without PE the encoder is permutation-equivariant" in view.panel.readout.text()
    combo = view.choice
    assert [combo.itemText(i) for i in range(combo.count())] == list(switch_names())
    for name in ABLATIONS[1:]:
        combo.setCurrentIndex(ABLATIONS.index(name))
        wait_ablation(qtbot, tab, name)
        assert tab.params()["ablation"] == name
        x2, curves2 = view.plot.curves(1)
        np.testing.assert_array_equal(x2, tab.trace.ablation.x2)
        np.testing.assert_array_equal(curves2[0].y, tab.trace.ablation.baseline2[0])
        assert view.data().meta["ablation"] == name
    assert "BatchNorm" in view.title()


def test_a_bad_ablation_is_refused_and_nothing_changes(tab):
    from models.errors import InvalidParameterError

    before = tab.params()
    with pytest.raises(InvalidParameterError, match="ablation must be one of"):
        tab.apply_state({"ablation": "no_attention"}, strict=True)
    assert tab.params() == before


def _cli(args, tmp_path, timeout=240):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               ARCHSCOPE_SETTINGS_DIR=str(tmp_path / "settings"))
    return subprocess.run([sys.executable, "-m", "app", "export", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_headless_export_of_an_ablation_and_a_bad_value(tmp_path):
    out = tmp_path / "scale.json"
    proc = _cli(["transformer.ablations", "--set", "ablation=no_scale", "--out", str(out)],
                tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["meta"]["ablation"] == "no_scale" and doc["meta"]["d_k"] == 16
    curves = np.asarray(doc["arrays"]["curves"])
    np.testing.assert_allclose(curves.sum(0), 1.0, atol=1e-5)     # two histograms
    png = tmp_path / "pe.png"
    proc = _cli(["transformer.ablations", "--set", "ablation=no_pe", "--out", str(png)],
                tmp_path)
    assert proc.returncode == 0 and png.stat().st_size > 1000, proc.stderr
    bad = tmp_path / "bad.png"
    proc = _cli(["transformer.ablations", "--set", "ablation=no_attention", "--out", str(bad)],
                tmp_path)
    assert proc.returncode != 0 and not bad.exists()
    assert "ablation must be one of no_pe, no_scale, no_residual, batchnorm" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_tour_step_on_the_ablations_turns_to_their_page(qtbot, tab):
    steps = tab.tour_steps()
    index = next(i for i, s in enumerate(steps) if s.state["ablation"] == "no_residual")
    tab.tour.go_to(index)
    wait_ablation(qtbot, tab, "no_residual")
    assert tab.bottom_tabs.currentIndex() == 1 and tab.ablation_view.panel.is_highlighted()
    tab.tour.go_to(0)
    assert tab.bottom_tabs.currentIndex() == 0      # the first step shows the heads again
