"""A closed window is freed, with its tabs, their models and traces.

A class made inside a method, once per window, kept every window alive: Shiboken keeps
every class it has seen for the life of the process, and the class's closure held the
window (a test run making hundreds of windows grew to 26 GB)."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QCoreApplication, QEvent


def _close(win) -> None:
    win.close()
    win.deleteLater()


def _collect(qtbot) -> None:
    for _ in range(10):
        qtbot.wait(20)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    gc.collect()


def test_a_closed_window_is_freed_with_its_tabs(qtbot):
    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from tests.windows import first_traces_drawn

    def window():
        win = MainWindow(Settings(), Translations())
        win.resize(1200, 800)
        win.show()
        qtbot.waitUntil(lambda: win.torch_is_ready, timeout=60_000)
        return win

    # the process's first window is frozen out of collection when torch is ready
    # (app.memory.GuiCollector.freeze_startup, once per process): a second one is looked at
    _close(window())
    _collect(qtbot)
    win = window()
    tabs = [win.tab(key) for key in ("positional", "flows", "meta")]
    for tab in tabs:
        win.tabs_widget.setCurrentWidget(tab)
        qtbot.waitUntil(lambda tab=tab: first_traces_drawn([tab]), timeout=60_000)
    refs = [weakref.ref(win), *(weakref.ref(t) for t in tabs)]
    del win, tabs, tab
    _close(refs[0]())
    _collect(qtbot)
    alive = [type(r()).__name__ for r in refs if r() is not None]
    assert not alive, f"still alive after closing: {alive}"
