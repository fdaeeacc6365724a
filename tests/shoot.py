"""Open the real window on an X display, then save a screenshot of every tab in every
language. Run by tests/test_screenshots.py under Xvfb; also usable by hand:

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python tests/shoot.py OUTDIR
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main(out: Path) -> int:
    """``ARCHSCOPE_SHOOT_TABS=positional,graph`` shoots only those tabs;
    ``ARCHSCOPE_SHOOT_TOUR_STEP=3`` (or ``last``) shoots each at that step of its tour;
    ``ARCHSCOPE_SHOOT_JOB=sizes`` runs that job of each tab shot to its end first (once)."""
    import os
    import tempfile

    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QApplication, QScrollArea

    from app.i18n import LANGUAGES, Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from viz import theme

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.windows import tab_settled

    app = QApplication.instance() or QApplication(["archscope"])
    theme.apply()
    cjk = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    print(f"cjk_families: {len(cjk)}", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    only = {k for k in os.environ.get("ARCHSCOPE_SHOOT_TABS", "").split(",") if k}
    step = os.environ.get("ARCHSCOPE_SHOOT_TOUR_STEP", "")
    job, jobs_run = os.environ.get("ARCHSCOPE_SHOOT_JOB", ""), set()
    with tempfile.TemporaryDirectory() as tmp:
        translations = Translations()
        window = MainWindow(Settings(tmp), translations)
        window.resize(1500, 940)
        window.show()

        def pump(seconds: float, until=lambda: False) -> None:
            end = time.monotonic() + seconds
            while time.monotonic() < end and not until():
                app.processEvents()
                time.sleep(0.01)

        pump(90, lambda: window.torch_is_ready and all(
            getattr(t, "trace", None) is not None for t in window.tabs))
        if not window.torch_is_ready:
            print("torch did not load", file=sys.stderr)
            return 1
        # the size the tests use, then a small laptop's: <tab>_<lang>[_1280x800].png
        for size, suffix in (((1500, 940), ""), ((1280, 800), "_1280x800")):
            window.resize(*size)
            for code in LANGUAGES:
                window.set_language(code)
                for i, spec in enumerate(window.specs):
                    if only and spec.key not in only:
                        continue
                    window.tabs_widget.setCurrentIndex(i)
                    if step:             # ARCHSCOPE_SHOOT_TOUR_STEP: 1-based, or "last"
                        tour = window.tabs_widget.currentWidget().tour
                        tour.go_to(tour.count() - 1 if step == "last" else int(step) - 1)
                    tab = window.tabs_widget.currentWidget()
                    if job and spec.key not in jobs_run:
                        jobs_run.add(spec.key)
                        tab.toggle_job(job)
                        pump(900, lambda t=tab: not t.running())
                    # what a user sees once the tab is done: its first trace, the
                    # computations it starts and the legends' placement all landed
                    tab_settled(lambda ms: pump(ms / 1000), window.tabs_widget.currentWidget())
                    shot = window.screen().grabWindow(window.winId())
                    path = out / f"{spec.key}_{code}{suffix}.png"
                    shot.save(str(path))
                    print(path)
                    # the grid of views: scrolled sideways means cut views at this size
                    tab = window.tabs_widget.currentWidget()
                    for area in tab.findChildren(QScrollArea):
                        bar = area.horizontalScrollBar()
                        if area.widget() is not None and area.widget().isAncestorOf(
                                tab.views[0].panel) and bar.isVisible() and bar.maximum():
                            print(f"sideways: {path.name} by {bar.maximum()} px")
        window.close()
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots")))
