"""Tabs of the test window, built when a test asks for them.

The ``window`` fixture (conftest.py) builds no tab up front: a full window, every tab
built and its first trace computed, took 6-9 s on a loaded 2-core machine against
about 1 s for one tab, and most tests look at one tab. ``open_tab`` builds the tab a
test asks for, brings it to the front and waits for its first trace; ``window.tabs``
(every tab) builds the others and waits for all their traces, as the fixture did."""

from __future__ import annotations

import time


def first_traces_drawn(tabs) -> bool:
    return all(getattr(t, "trace", None) is not None for t in tabs)


def open_tab(qtbot, window, key: str, timeout: int = 60_000):
    """The tab ``key`` of ``window``, in front, with its first trace."""
    tab = window.tab(key)
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: first_traces_drawn([tab]), timeout=timeout)
    return tab


def wait_for(predicate, timeout_s: float, what: str) -> None:
    """Run the event loop until ``predicate()`` (for helpers without a ``qtbot``)."""
    from PySide6.QtCore import QCoreApplication

    end = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError(f"waited {timeout_s:.0f} s for {what}")
        QCoreApplication.processEvents()
        time.sleep(0.005)


def window_of(qtbot, keys: tuple[str, ...], front: str):
    """A window with only the tabs ``keys`` (errors kept in ``window.errors``, not shown),
    PyTorch loaded and the tab ``front`` in front with its first trace: (window, tab)."""
    import gc

    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings
    from app.tabs.catalog import tab_specs

    gc.collect()
    win = MainWindow(Settings(), Translations(),
                     specs=[s for s in tab_specs() if s.key in keys])
    win.errors = []
    win.report_error = lambda error, details: win.errors.append(error)
    qtbot.addWidget(win)
    win.resize(1500, 940)
    win.show()
    qtbot.waitUntil(lambda: win.torch_is_ready, timeout=60_000)
    return win, open_tab(qtbot, win, front)
