"""A whole-window session: every tab saved in one file, opened in a fresh window, every
view of every tab the same (the arrays behind the views compared exactly), the tab in
front brought back to the front."""

from __future__ import annotations

import time

import pytest

from tests.session_checks import (
    assert_same_views,
    make_window,
    settle,
    tab_of,
    train_steps,
    view_arrays,
)

#: tab -> steps trained before saving (the others are saved as first opened)
TRAINED = {"transformer": 12, "flows": 20, "ode": 5, "graph": 10}


def _train(tab, steps: int) -> None:
    names = list(tab.saved_sessions()) or ["main"]
    if tab.key == "graph":
        names = ["node"]
    losses = train_steps(tab, steps, names[0])
    assert len(losses) >= 1


def _every_view(qtbot, win) -> dict:
    out = {}
    for tab in win.tabs:
        win.tabs_widget.setCurrentWidget(tab)          # extras a tab computes when shown
        if tab.key == "efficient":
            qtbot.waitUntil(lambda tab=tab: tab.cost is not None and not tab.jobs.is_running(),
                            timeout=120_000)
        settle(qtbot, tab)
        out[tab.key] = view_arrays(tab)
    return out


@pytest.mark.timeout(900)
@pytest.mark.slow
def test_a_whole_window_session_brings_every_tab_back(qtbot, tmp_path):
    win_a = make_window(qtbot)
    for key, steps in TRAINED.items():
        tab = tab_of(win_a, key)
        win_a.tabs_widget.setCurrentWidget(tab)
        _train(tab, steps)
    before = _every_view(qtbot, win_a)
    front = tab_of(win_a, "ode")
    win_a.tabs_widget.setCurrentWidget(front)
    path = win_a.save_session(str(tmp_path / "everything.archscope"), all_tabs=True)

    win_b = make_window(qtbot)
    errors = []
    win_b.report_error = lambda error, details: errors.append(error)
    # as File → Open session does it: the tabs built one per turn, then the session
    with qtbot.waitSignal(win_b.sessionOpened, timeout=300_000) as opened:
        win_b.start_open_session(path)
    assert opened.args == [path, True], errors
    assert win_b.current_tab() is tab_of(win_b, "ode")
    for key, steps in TRAINED.items():
        session = tab_of(win_b, key).current_session()
        assert session is not None and session.step == steps, key
    after = _every_view(qtbot, win_b)
    assert sorted(after) == sorted(before) == sorted(t.key for t in win_a.tabs)
    for key in before:
        try:
            assert_same_views(before[key], after[key])
        except AssertionError as e:
            raise AssertionError(f"tab {key}: {e}") from None


def test_save_all_on_a_fresh_window_saves_the_opened_tabs_without_building_the_rest(
        qtbot, tmp_path):
    """Issue 33 F9: Save session of all tabs on a fresh window built the nine tabs on the
    GUI thread first (6-8 s); a tab never opened holds nothing to keep."""
    from models.sessionfile import read_manifest

    win = make_window(qtbot)
    built = [t.key for t in win.built_tabs()]
    t0 = time.perf_counter()
    path = win.save_session(str(tmp_path / "fresh.archscope"), all_tabs=True)
    assert time.perf_counter() - t0 < 2.0
    assert [t.key for t in win.built_tabs()] == built
    assert sorted(read_manifest(path)["tabs"]) == sorted(built)
    assert "tabs opened so far" in win.statusBar().currentMessage()
