"""Closing a view must not crash the process.

pyqtgraph's ``GraphicsView.close`` clears the scene (deleting every item in C++) and then
replaces the viewport, which sends a resize event. Our views re-lay out their items on
resize; touching a deleted ``QGraphicsRectItem`` there was a segmentation fault (found
when ``benchmarks/bench_attention.py`` closed its mosaic). A segfault would take the test
run with it, so the views are closed in a child process and its exit status is checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import numpy as np
from PySide6.QtWidgets import QApplication
app = QApplication(["close"])
from viz.attention import HeadGrid, PanelRow
from viz.step_view import StepView
from viz.mosaic import TileMosaic
from viz.neuron_view import NeuronPlot
from viz.token_bars import TokenBars

rng = np.random.default_rng(0)
tokens = [f"t{i}" for i in range(6)]
maps = rng.random((4, 6, 6)).astype(np.float32)
feed = {
    "HeadGrid": lambda v: v.set_heads(maps, tokens, tokens, [f"head {h}" for h in range(4)]),
    "PanelRow": lambda v: v.set_panels(np.ones((6, 6), bool), maps[0], maps[1], maps[2],
                                       tokens, tokens, ["a", "b", "c", "d"]),
    "TileMosaic": lambda v: v.set_tiles(maps, 2, ["H0", "H1"], ["L0", "L1"], 1),
    "NeuronPlot": lambda v: None,
    "TokenBars": lambda v: v.set_bars(tokens, np.full(6, 1 / 6, np.float32),
                                      np.ones(6, bool), np.full(6, 1 / 6, np.float32),
                                      ("p", "kept")),
    "StepView": lambda v: None,
}
for name, give in feed.items():
    view = globals()[name]()
    view.resize(420, 300)
    view.show()
    give(view)
    app.processEvents()
    view.close()
    app.processEvents()
    print("closed", name, flush=True)
"""


@pytest.mark.timeout(120)
def test_every_view_closes_without_crashing():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=110)
    closed = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("closed")]
    assert run.returncode == 0, (f"exit {run.returncode} after closing {closed}:\n"
                                 f"{run.stderr[-2000:]}")
    assert closed == ["HeadGrid", "PanelRow", "TileMosaic", "NeuronPlot", "TokenBars",
                      "StepView"]
