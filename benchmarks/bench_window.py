"""The main window as the tab benchmarks drive it: offscreen, 1500 × 940, in a throw-away
settings folder, with ``run_until(pred, limit_s)`` spinning the event loop until ``pred()``.

    with bench_window() as (app, window, run_until):
        run_until(lambda: window.torch_is_ready, 120)
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@contextmanager
def bench_window() -> Iterator[tuple[object, object, Callable]]:
    from PySide6.QtWidgets import QApplication

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    app = QApplication.instance() or QApplication(["bench"])
    theme.apply()

    def run_until(pred: Callable[[], bool], limit_s: float) -> None:
        end = time.perf_counter() + limit_s
        while time.perf_counter() < end and not pred():
            app.processEvents()
            time.sleep(0.0005)

    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(Settings(tmp), Translations())
        window.resize(1500, 940)
        window.show()
        try:
            yield app, window, run_until
        finally:
            window.close()
