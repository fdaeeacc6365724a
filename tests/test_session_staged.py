"""File → Open session as the menus do it (``start_open_session``): the file is read,
the tabs it holds are built one per turn of the event loop, and the session is applied
in one last turn, all or nothing. Issue 33's monkey saw an all-tab Open session hold the
GUI thread 1.3-2.2 s at once, half of it building and retranslating tabs."""

from __future__ import annotations

import pytest

from tests.session_checks import make_window, tab_of

pytestmark = pytest.mark.timeout(600)


def _saved(qtbot, tmp_path):
    """An all-tab session of three tabs with settings no fresh window has; the
    meta tab's front."""
    win = make_window(qtbot)
    tab_of(win, "flows").apply_state({"density": "circles", "layers": 6}, strict=True)
    meta = tab_of(win, "meta")
    meta.apply_state({"task_seed": 21, "episode_seed": 5}, strict=True)
    win.tabs_widget.setCurrentWidget(meta)
    path = win.save_session(str(tmp_path / "three.archscope"), all_tabs=True)
    win.close()
    return path, {"flows": {"density": "circles", "layers": 6},
                  "meta": {"task_seed": 21, "episode_seed": 5}}


def _shows(win, wanted: dict) -> bool:
    return all((tab := win.built_tab(key)) is not None
               and all(tab.params()[k] == v for k, v in values.items())
               for key, values in wanted.items())


def test_tabs_are_built_one_per_turn_before_the_session_is_applied(qtbot, tmp_path):
    path, wanted = _saved(qtbot, tmp_path)
    win = make_window(qtbot)
    errors, built = [], []
    win.report_error = lambda error, details: errors.append(error)
    build = win._build
    win._build = lambda index: built.append(win.specs[index].key) or build(index)
    ended = []
    win.sessionOpened.connect(lambda p, ok: ended.append((p, ok)))
    win.start_open_session(path)
    # this turn: the file read and one tab built, nothing of the session applied yet
    assert len(built) == 1 and not ended and not _shows(win, wanted)
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    assert ended == [(path, True)], errors
    assert sorted(built) == ["flows", "meta"]
    assert _shows(win, wanted) and win.current_tab() is win.built_tab("meta")


def _opening(qtbot, tmp_path):
    """A fresh window with the saved session on its way in: (path, wanted, window,
    errors shown, [(path, ok)] as sessionOpened said)."""
    path, wanted = _saved(qtbot, tmp_path)
    win = make_window(qtbot)
    errors, ended = [], []
    win.report_error = lambda error, details: errors.append(error)
    win.sessionOpened.connect(lambda p, ok: ended.append((p, ok)))
    win.start_open_session(path)
    return path, wanted, win, errors, ended


def test_a_later_open_session_replaces_one_on_its_way(qtbot, tmp_path):
    path, wanted, win, errors, ended = _opening(qtbot, tmp_path)
    refused = tmp_path / "not-a-session.archscope"
    refused.write_bytes(b"PK\x05\x06" + bytes(18))
    win.start_open_session(str(refused))    # the first ends unopened, the second refused
    assert ended == [(path, False), (str(refused), False)] and len(errors) == 1
    assert "not-a-session.archscope" in str(errors[0])
    qtbot.wait(500)
    assert len(ended) == 2 and not _shows(win, wanted)


def test_closing_the_window_drops_a_session_on_its_way(qtbot, tmp_path):
    path, wanted, win, errors, ended = _opening(qtbot, tmp_path)
    win.close()
    qtbot.wait(500)
    assert ended == [(path, False)] and not errors and not _shows(win, wanted)
