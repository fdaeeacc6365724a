"""Every tab remembers its parameters between runs (the README says so), each value
checked by the tab's request when it comes back: a hostile or damaged settings file keeps
the defaults and names the keys, never an error dialog or a crash (issue 33)."""

from __future__ import annotations

import gc

import pytest

from app.tabs.catalog import tab_specs
from tests.settings_checks import write_ini
from tests.windows import open_tab

#: raw INI values no parameter of any tab takes (the positional tab's own test has more)
HOSTILE = ["nan", "1e999", "-1e308", "@ByteArray(\\x00\\x01)", "@Variant(\\0\\0\\0\\x7f)",
           "true false", ""]

pytestmark = [pytest.mark.slow]


def _window(qtbot, folder):
    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings

    gc.collect()
    win = MainWindow(Settings(folder), Translations())
    qtbot.addWidget(win)
    win.resize(1500, 940)
    win.show()
    qtbot.waitUntil(lambda: win.torch_is_ready, timeout=60_000)
    return win


def _remembered(tab) -> dict:
    return tab._remembered()[1]


@pytest.mark.parametrize("key", [s.key for s in tab_specs()])
def test_each_tab_brings_back_its_parameters_and_refuses_hostile_ones(qtbot, tmp_path, key):
    folder = tmp_path / "settings"
    win = _window(qtbot, folder)
    tab = open_tab(qtbot, win, key)
    defaults = _remembered(tab)
    assert defaults, f"the {key} tab remembers nothing"
    # the tour step that changes the most remembered parameters: a setting the course
    # itself makes, valid by design
    states = [{k: v for k, v in s.state.items() if k in defaults} for s in tab.tour_steps()]
    best = max(states, key=lambda st: sum(st[k] != defaults[k] for k in st), default={})
    tab.apply_state(best)
    qtbot.wait(50)
    chosen = _remembered(tab)
    if any(best[k] != defaults[k] for k in best):
        assert chosen != defaults, key
    win.close()
    qtbot.wait(50)

    again = _window(qtbot, folder)
    back = open_tab(qtbot, again, key)
    assert _remembered(back) == chosen
    assert not again.settings.take_problems()
    again.close()
    qtbot.wait(50)

    for raw in HOSTILE:
        write_ini(folder, {f"tabs/{key}/{name}": raw for name in defaults})
        hostile = _window(qtbot, folder)
        errors = []
        hostile.report_error = lambda error, details, errors=errors: errors.append(error)
        opened = open_tab(qtbot, hostile, key)
        # every number, switch and choice shows its default (a text may hold the words)
        for name, value in _remembered(opened).items():
            assert value == defaults[name] or isinstance(defaults[name], str), \
                (raw, name, value)
        assert not errors, (raw, errors)
        hostile.close()
        qtbot.wait(50)
