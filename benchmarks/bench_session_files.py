"""Session files: size per tab, save and open times (median of 5), refusal times.

    .venv/bin/python benchmarks/bench_session_files.py

Each training tab is trained a little (its default settings) so its file holds weights,
Adam moments and curves; then, per tab and for the whole window, the session is saved
5 times and opened 5 times into the same window (read, checked, weights loaded, the
tab's trace recomputed). Prints the figures; fails on nothing.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TRAIN = {"transformer": 100, "graph": 50, "flows": 100, "ode": 20, "meta": 20}


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.main import _train_headless
    from app.mainwindow import MainWindow
    from app.settings import Settings

    app = QApplication.instance() or QApplication(["bench"])
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(Settings(tmp), Translations(), start_loader=False)
        window._on_torch_ready(window.loader.load_here(), notify_tabs=False)
        window.resize(1500, 940)
        window.show()
        for tab in window.tabs:
            if tab.key in TRAIN:
                _train_headless(tab, TRAIN[tab.key], seed=0, tab_seed=False)
            tab.compute_now()
        app.processEvents()
        errors = []
        window.report_error = lambda e, d: errors.append(e)
        print(f"{'tab':12s} {'size':>9s} {'save ms':>8s} {'open ms':>8s}")
        for tab in [*window.tabs, None]:
            label = tab.key if tab else "all tabs"
            if tab is not None:
                window.tabs_widget.setCurrentWidget(tab)
            path = os.path.join(tmp, f"{label.replace(' ', '_')}.archscope")
            saves, opens = [], []
            for _ in range(5):
                t0 = time.perf_counter()
                window.save_session(path, all_tabs=tab is None)
                saves.append(time.perf_counter() - t0)
            for _ in range(5):
                t0 = time.perf_counter()
                ok = window.open_session(path)
                for t in ([tab] if tab else window.tabs):
                    t.compute_now()
                opens.append(time.perf_counter() - t0)
                assert ok, errors
            print(f"{label:12s} {os.path.getsize(path) / 1024:7.0f} KB "
                  f"{1000 * statistics.median(saves):8.0f} {1000 * statistics.median(opens):8.0f}")
        for tab in window.tabs:
            tab.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
