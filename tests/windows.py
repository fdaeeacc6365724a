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


def tab_settled(wait, tab, timeout_s: float = 90.0) -> None:
    """Run the event loop (``wait(ms)``: ``qtbot.wait``, or a script's own pump) until
    ``tab`` has its first trace and has been done for a legend placement's throttle and
    more in a row: no background job or computation, no legend placement to come. A
    computation started when the tab is first shown (the ODE tab's adjoint comparison,
    0.2-0.7 s) redraws a view when it lands; on a loaded machine it could start after a
    first quiet look and land after a fixed wait, before its legend was placed (seen on
    CI, twice)."""
    import pyqtgraph as pg

    from app.jobs import ComputeRunner
    from viz.legend import THROTTLE_MS, KeepClear

    def placing() -> bool:
        # a legend placement still to come (its timer runs late on a loaded machine)
        for view in tab.views:
            for item in view.panel.graphics.scene().items():
                if isinstance(item, pg.PlotItem) and any(
                        k._timer.isActive() for k in item.findChildren(KeepClear)):
                    return True
        return False

    def quiet() -> bool:
        # a tab that draws a result one view per turn (the pretrained tab's
        # ``is_drawing``) is not done before its last view: a turn longer than the quiet
        # time needed once let a screenshot catch half the views of the language before
        return first_traces_drawn([tab]) and not tab.jobs.is_running() and not any(
            r.is_busy() for r in tab.findChildren(ComputeRunner)) and not placing() and \
            not getattr(tab, "is_drawing", lambda: False)()

    need = (THROTTLE_MS + 300) / 1000.0
    end = time.monotonic() + timeout_s
    since = None
    with ViewResizes(tab) as resized:
        while time.monotonic() < end:
            done = quiet()
            if done and resized.swinging():
                raise AssertionError(f"the {tab.key} tab's views are laid out again and "
                                     f"again: {resized.names()}")
            if not done or resized.since(since):
                since = None
            elif since is None:
                since = time.monotonic()
            elif time.monotonic() - since >= need:
                return
            wait(20)
    raise AssertionError(f"the {tab.key} tab's background work did not end in "
                         f"{timeout_s:.0f} s")


class ViewResizes:
    """Counts the resizes of ``tab``'s views while in a ``with`` block: a tab is not
    settled while a view is still being laid out (on a loaded machine the last resize of
    a cascade came 0.1 s before a check, whose axis had not yet taken its new width), and
    one resized for ``SWING_S`` in a row while nothing else happens swings."""

    SWING_S = 10.0

    def __init__(self, tab) -> None:
        from PySide6.QtCore import QEvent, QObject

        self.views = {v.panel.graphics: v.key for v in getattr(tab, "views", ())}
        self.last: dict[str, float] = {}
        self.first: dict[str, float] = {}
        outer = self

        class Filter(QObject):
            def eventFilter(self, watched, event):  # noqa: N802 - Qt's API
                if event.type() == QEvent.Type.Resize and watched in outer.views:
                    now, key = time.monotonic(), outer.views[watched]
                    if now - outer.last.get(key, -1e9) > 1.0:     # a new run of resizes
                        outer.first[key] = now
                    outer.last[key] = now
                return False

        self.filter = Filter()

    def __enter__(self) -> ViewResizes:
        for graphics in self.views:
            graphics.installEventFilter(self.filter)
        return self

    def __exit__(self, *exc) -> None:
        for graphics in self.views:
            try:
                graphics.removeEventFilter(self.filter)
            except RuntimeError:        # deleted meanwhile
                pass

    def since(self, t: float | None) -> bool:
        """A view resized at or after ``t`` (None: never asked)."""
        return t is not None and any(last >= t for last in self.last.values())

    def swinging(self) -> bool:
        now = time.monotonic()
        return any(now - self.last[k] < 1.0 and now - self.first[k] > self.SWING_S
                   for k in self.last)

    def names(self) -> str:
        now = time.monotonic()
        return ", ".join(sorted(k for k in self.last if now - self.last[k] < 1.0))
