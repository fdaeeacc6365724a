"""A settings file edited by hand or corrupted: every stored key with a hostile value.

Each value of ``BAD`` is written as raw INI text (what a user's editor or a broken disk
leaves), for every key anything stores through ``Settings``: the positional tab's
controls and the window's language, device, geometry, tool-bar state and last folders.
The window must open, each control must hold its default (or the value, where the value
is a valid one for that key), one status-bar note must name exactly the rejected keys,
the window must close cleanly, and the file must be repaired for the next start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.tabs.positional import DEFAULTS
from tests.settings_checks import write_ini
from tests.windows import open_tab

#: raw INI text of each hostile value ("1, 2" is read back by QSettings as a list)
BAD = ["nan", "inf", "-inf", "1e308", "-1", "0", "", "abc", "1, 2", "@ByteArray(\\x1\\x2)"]
TAB_KEYS = [f"tabs/positional/{k}" for k in DEFAULTS]
WINDOW_KEYS = ["language", "device", "window/geometry", "window/state", "dirs/open",
               "dirs/export", "dirs/session"]


def accepted(key: str, raw: str) -> bool:
    """Whether ``raw`` is a valid value of ``key`` (kept as given, not reported)."""
    name = key.rsplit("/", 1)[-1]
    if name == "offset":
        return raw == "0"                      # offset 0 is in range; nothing else here is
    if name == "dims":                         # "0" and "1, 2" are dimensions; "" is none
        return raw in ("0", "1, 2", "")
    if name == "sentence":
        return raw.strip() != "" and not raw.startswith("@")
    if key.startswith("dirs/"):
        return raw == ""                       # the default itself; others are not folders
    return False


def shown(key: str, raw: str):
    """What the control of a positional key shows for an accepted ``raw``."""
    name = key.rsplit("/", 1)[-1]
    if not accepted(key, raw):
        return DEFAULTS[name]
    return 0 if name == "offset" else raw


@pytest.fixture
def positional(qtbot, tmp_path):
    """A positional tab on its own, with settings in ``tmp_path / 'one'``."""
    from app.settings import Settings
    from app.tabs.base import TabContext
    from app.tabs.positional import PositionalTab

    settings = Settings(tmp_path / "one")
    notes: list[str] = []
    ctx = TabContext(settings=settings, device=lambda: "cpu", language=lambda: "en",
                     report_error=lambda e, d: notes.append(str(e)), status=notes.append)
    tab = PositionalTab(ctx)
    qtbot.addWidget(tab)
    tab.notes = notes
    return tab


@pytest.mark.parametrize("raw", BAD)
def test_each_positional_key_alone_falls_back_to_its_default(positional, tmp_path, raw):
    from app.settings import Settings

    tab = positional
    for i, key in enumerate(TAB_KEYS):
        tab.apply_state(DEFAULTS)
        write_ini(tmp_path / str(i), {key: raw})
        tab.ctx.settings = settings = Settings(tmp_path / str(i))
        tab.restore_state()
        name = key.rsplit("/", 1)[-1]
        assert tab.params()[name] == shown(key, raw), (key, raw)
        assert settings.take_problems() == ([] if accepted(key, raw) else [key]), (key, raw)
        # every other control untouched
        assert {k: v for k, v in tab.params().items() if k != name} == {
            k: v for k, v in DEFAULTS.items() if k != name}
    assert not tab.notes                          # no error dialog on the way


@pytest.mark.parametrize("raw", BAD)
def test_the_window_keys_alone_fall_back_to_their_defaults(tmp_path, raw):
    from app.settings import Settings

    folder = tmp_path / "s"
    write_ini(folder, dict.fromkeys(WINDOW_KEYS, raw))
    settings = Settings(folder)
    assert settings.language == "en" and settings.device == "cpu"
    if raw.startswith("@ByteArray"):   # bytes: only restoring them tells (the window test)
        assert settings.geometry() is not None
        settings.reject("window/geometry")
        settings.reject("window/state")
    else:
        assert settings.geometry() is None and settings.window_state() is None
    assert (settings.last_dir("open") == settings.last_dir("export")
            == settings.last_dir("session") == str(Path.home()))
    expected = [k for k in WINDOW_KEYS if not accepted(k, raw)]
    assert settings.take_problems() == expected
    settings.sync()
    again = Settings(folder)                      # the bad values are gone from the file
    assert (again.language, again.device, again.geometry()) == ("en", "cpu", None)
    assert again.take_problems() == []


def test_good_settings_are_kept_without_a_note(tmp_path):
    from app.settings import Settings

    folder = tmp_path / "s"
    write_ini(folder, {"language": "zh_CN", "device": "cuda:1", "dirs/open": str(tmp_path),
                       "tabs/positional/base": "500", "tabs/positional/max_len": "20",
                       "tabs/positional/offset": "19"})
    settings = Settings(folder)
    assert (settings.language, settings.device) == ("zh_CN", "cuda:1")
    assert settings.last_dir("open") == str(tmp_path)
    assert settings.take_problems() == []


@pytest.mark.parametrize("raw", BAD)
def test_window_opens_with_every_key_bad_at_once_and_closes_cleanly(qtbot, tmp_path, raw):
    from app.i18n import Translations
    from app.mainwindow import MainWindow
    from app.settings import Settings

    folder = tmp_path / "s"
    write_ini(folder, dict.fromkeys(TAB_KEYS + WINDOW_KEYS, raw))
    settings = Settings(folder)
    translations = Translations()
    translations.set_language(settings.language)     # as app.main does, before the window
    window = MainWindow(settings, translations, start_loader=False)
    qtbot.addWidget(window)
    window.show()
    window._on_torch_ready(window.loader.load_here(), notify_tabs=False)
    tab = open_tab(qtbot, window, "positional")
    for key in TAB_KEYS:
        assert tab.params()[key.rsplit("/", 1)[-1]] == shown(key, raw), (key, raw)
    assert translations.language == "en" and window.device_name == "cpu"
    assert window.width() >= 1000 and window.height() >= 600    # not a restored 0 x 0
    rejected = [k for k in TAB_KEYS + WINDOW_KEYS if not accepted(k, raw)]
    note = window.statusBar().currentMessage()
    assert note.count("reset to their defaults") == 1
    named = note.split(": ", 1)[1].rstrip(".").split(", ")
    assert sorted(named) == sorted(rejected)
    assert window.close() and not window.isVisible()
    # the file now holds usable values: the next start has nothing to say
    again = Settings(folder)
    assert (again.language, again.device) == ("en", "cpu")
    assert again.geometry() is not None and again.take_problems() == []


@pytest.mark.parametrize("raw", BAD)
def test_the_model_size_limit_falls_back_to_its_default(tmp_path, raw):
    """``pretrained/max_parameters``, the largest model folder the pretrained tab loads:
    a whole number from 1 M to 100 G, or the default with a note."""
    from app.settings import Settings

    folder = tmp_path / "s"
    write_ini(folder, {"pretrained/max_parameters": raw})
    settings = Settings(folder)
    assert settings.max_parameters(400_000_000) == 400_000_000
    assert settings.take_problems() == ["pretrained/max_parameters"]


def test_a_model_size_limit_in_the_settings_is_used(tmp_path):
    from app.settings import Settings

    folder = tmp_path / "s"
    write_ini(folder, {"pretrained/max_parameters": "2e9"})
    assert Settings(folder).max_parameters(400_000_000) == 2_000_000_000
