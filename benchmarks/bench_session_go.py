"""Session files of the graph and neural-ODE tabs: size, save and open times.

    .venv/bin/python benchmarks/bench_session_go.py [--repeats 5]

For each case the tab is set up and trained a little, then saved ``repeats`` times
(File → Save session of this tab, atomic) and opened ``repeats`` times into the same
window (File → Open session: read, check, rebuild a loaded graph, load every session), then
the redraw the tab asks for is computed, synchronously here (the app computes it in a
worker). Opening runs on the GUI thread, so its time is also the stall it causes. Medians; offscreen; 1 torch
thread, as the GUI's background work.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
GEPHI = ROOT / "tests" / "data" / "graphs" / "gephi"


def _window():
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()
    win = MainWindow(Settings(tempfile.mkdtemp()), Translations())
    win.resize(1500, 940)
    win.show()
    end = time.monotonic() + 180
    while time.monotonic() < end and not (win.torch_is_ready and all(
            getattr(t, "trace", None) is not None for t in win.tabs)):
        app.processEvents()
        time.sleep(0.01)
    return app, win


def _train(session, steps: int) -> None:
    it = session.train(steps)
    try:
        for _ in it:
            pass
    finally:
        it.close()


def _graph(tab, file: str | None, epochs: int) -> None:
    if file:
        tab.open_file(str(GEPHI / file))
    tab.apply_state({"epochs": epochs}, strict=True)
    if (tab.document().labels >= 0).any():       # the power grid has no labels
        _train(tab.session(), epochs)
    _train(tab.graph_session(), 10)
    _train(tab.link_session(), 30)


def _ode(tab, task: str) -> None:
    tab.apply_state({"task": task}, strict=True)
    _train(tab.session(), 20)
    tab.add_start(0.5, -0.5)


CASES = (
    ("graph", "karate, 3 sessions", lambda t: _graph(t, None, 50)),
    ("graph", "Les Misérables file", lambda t: _graph(t, "Les_Miserables.gexf", 50)),
    ("graph", "Power grid file (4941 nodes)", lambda t: _graph(t, "Power_Grid.gml", 20)),
    ("ode", "spiral", lambda t: _ode(t, "spiral")),
    ("ode", "classify", lambda t: _ode(t, "classify")),
    ("ode", "CNF", lambda t: _ode(t, "cnf")),
)


def main() -> int:
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    app, win = _window()
    win.report_error = lambda error, details: print("error:", error, file=sys.stderr)
    folder = Path(tempfile.mkdtemp())
    rows = []
    for key, name, prepare in CASES:
        tab = next(t for t in win.tabs if t.key == key)
        win.tabs_widget.setCurrentWidget(tab)
        prepare(tab)
        tab.compute_now()
        app.processEvents()
        path = folder / f"{key}.archscope"
        saves, opens, redraws = [], [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            win.save_session(str(path))
            saves.append(time.perf_counter() - t0)
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            assert win.open_session(str(path))
            t1 = time.perf_counter()
            tab.compute_now()
            opens.append(t1 - t0)
            redraws.append(time.perf_counter() - t1)
            app.processEvents()
        rows.append((f"{key}: {name}", path.stat().st_size, statistics.median(saves),
                     statistics.median(opens), statistics.median(redraws)))
        label, size, save, opened, redraw = rows[-1]
        print(f"{label:<38} {size / 1024:7.1f} KB  save {save * 1e3:5.0f} ms  open "
              f"{opened * 1e3:5.0f} ms  then redraw {redraw * 1e3:6.0f} ms", flush=True)
    win.close()
    print(f"\nmedians of {args.repeats}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
