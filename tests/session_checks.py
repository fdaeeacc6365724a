"""Round trips through session files: save a tab, open it in a fresh window, compare.

    a, b = round_trip(qtbot, "flows", tmp_path, prepare=train_some)
    assert_same_views(a, b)

"The same picture" is checked on the arrays behind every view (``View.data()``, what
File → Export data… writes): after opening, each view of the new window holds the same
arrays as the saved one. Traces are computed synchronously (``compute_now``) on both
sides, so nothing depends on timers.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import numpy as np


def make_window(qtbot):
    """A main window with torch loaded (as conftest's ``window`` fixture; several per
    test). Its tabs are built when ``tab_of`` or ``win.tabs`` asks for them."""
    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings

    gc.collect()
    win = MainWindow(Settings(), Translations())
    qtbot.addWidget(win)
    win.resize(1500, 940)
    win.show()
    qtbot.waitUntil(lambda: win.torch_is_ready, timeout=60_000)
    return win


def tab_of(win, key: str, timeout_s: float = 60.0):
    """The tab ``key`` of ``win``, built if need be, with its first trace drawn."""
    from tests.windows import first_traces_drawn, wait_for

    tab = win.tab(key)
    wait_for(lambda: first_traces_drawn([tab]), timeout_s, f"the {key} tab's first trace")
    return tab


def settle(qtbot, tab) -> None:
    """The tab's trace for its state now, drawn; background extras finished."""
    qtbot.wait(50)
    tab.compute_now()
    qtbot.wait(50)


def view_arrays(tab) -> dict[str, dict[str, np.ndarray]]:
    """The arrays behind every view that has data."""
    out = {}
    for view in tab.views:
        data = view.data()
        if data is not None:
            out[view.key] = {k: np.asarray(v) for k, v in data.arrays.items()}
    return out


def assert_same_views(a: dict, b: dict, rtol: float = 0.0, atol: float = 0.0) -> None:
    assert a, "no view had data to compare"
    assert a.keys() == b.keys(), f"views with data: {sorted(a)} saved, {sorted(b)} opened"
    for view, arrays in a.items():
        assert arrays.keys() == b[view].keys(), f"{view}: {sorted(arrays)} vs {sorted(b[view])}"
        for name, x in arrays.items():
            y = b[view][name]
            assert x.shape == y.shape, f"{view}.{name}: shape {x.shape} vs {y.shape}"
            if x.dtype.kind in "fc":
                np.testing.assert_allclose(y, x, rtol=rtol, atol=atol, equal_nan=True,
                                           err_msg=f"{view}.{name}")
            else:
                np.testing.assert_array_equal(y, x, err_msg=f"{view}.{name}")


def round_trip(qtbot, key: str, tmp_path, prepare: Callable[[object], None] | None = None,
               all_tabs: bool = False):
    """Window A: ``prepare(tab)`` (set controls, train), save the tab's session. Window B
    (fresh): open it. Returns (tab A, tab B, path), both settled."""
    win_a = make_window(qtbot)
    tab_a = tab_of(win_a, key)
    win_a.tabs_widget.setCurrentWidget(tab_a)
    if prepare is not None:
        prepare(tab_a)
    settle(qtbot, tab_a)
    path = win_a.save_session(str(tmp_path / f"{key}.archscope"), all_tabs=all_tabs)
    win_b = make_window(qtbot)
    errors = []
    win_b.report_error = lambda error, details: errors.append(error)
    assert win_b.open_session(path), errors
    tab_b = tab_of(win_b, key)
    assert win_b.current_tab() is tab_b
    settle(qtbot, tab_b)
    return tab_a, tab_b, path


def train_steps(tab, steps: int, name: str = "main") -> list[float]:
    """Train the tab's session ``name`` for ``steps`` steps synchronously (as the job
    would, without the thread); returns the losses."""
    session = tab.saved_sessions()[name] if name in tab.saved_sessions() else \
        tab.session_named(name)
    return [p.loss for p in _steps(session, steps)]


def _steps(session, steps: int):
    it = session.train(steps)
    try:
        yield from it
    finally:
        it.close()
