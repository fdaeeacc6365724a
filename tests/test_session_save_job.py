"""File → Save session… writes in the background (app/sessions.py ``start_session_save``):
a large graph's session took 4 s to deflate on the GUI thread. The window stays
responsive, Cancel keeps the previous file, and closing the window while it saves
finishes the file first. The file is read back by the format's own reader."""

from __future__ import annotations

import numpy as np

from models.sessionfile import read_session
from tests.heartbeat import Heartbeat
from tests.windows import open_tab

#: about a second of deflating on this machine: 400,000 edges of a 100,000-node graph
EDGES = np.random.default_rng(0).integers(0, 100_000, (400_000, 2)).astype(np.int64)


def _with_big_inputs(monkeypatch, tab):
    """The tab's inputs with a large array in them (as a big graph file gives)."""
    own = tab.session_inputs

    def inputs():
        data, arrays = own()
        return data, {**arrays, "big_edges": EDGES}

    monkeypatch.setattr(tab, "session_inputs", inputs)


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_file())


def _ended(job) -> list:
    ended: list = []
    job.finished.connect(lambda path: ended.append(("finished", path)))
    job.failed.connect(lambda exc: ended.append(("failed", exc)))
    job.cancelled.connect(lambda: ended.append(("cancelled",)))
    return ended


def test_a_big_session_is_saved_in_the_background(qtbot, window, tmp_path, monkeypatch):
    tab = open_tab(qtbot, window, "positional")
    _with_big_inputs(monkeypatch, tab)
    target = tmp_path / "big"
    seen_bar: list[bool] = []
    with Heartbeat() as beat:
        job = window.start_session_save(str(target))
        ended = _ended(job)
        job.runner.progressed.connect(lambda *_: seen_bar.append(window.export_bar.isVisible()))
        assert window.export_bar.isVisible()          # progress and Cancel at once
        qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    assert ended == [("finished", str(target) + ".archscope")], ended
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert all(seen_bar)
    assert not window.export_bar.isVisible() and window.data_job is None
    assert "Saved the session" in window.statusBar().currentMessage()
    doc = read_session(str(target) + ".archscope", ("positional",))
    np.testing.assert_array_equal(doc.tabs["positional"].arrays["big_edges"], EDGES)
    assert doc.tabs["positional"].params == dict(tab.params())


def test_cancel_keeps_the_previous_file(qtbot, window, tmp_path, monkeypatch):
    tab = open_tab(qtbot, window, "positional")
    target = tmp_path / "keep.archscope"
    window.save_session(str(target))                  # a small one first
    before = target.read_bytes()
    _with_big_inputs(monkeypatch, tab)
    job = window.start_session_save(str(target))
    ended = _ended(job)
    window.cancel_png_export()                        # the export bar's Cancel
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    assert ended == [("cancelled",)], ended
    # the worker gives up at its next member and removes its temporary file
    qtbot.waitUntil(lambda: _files(tmp_path) == ["keep.archscope"], timeout=60_000)
    assert target.read_bytes() == before
    assert "was not changed" in window.statusBar().currentMessage()


def test_closing_the_window_while_saving_finishes_the_file(qtbot, window, tmp_path,
                                                           monkeypatch):
    tab = open_tab(qtbot, window, "positional")
    _with_big_inputs(monkeypatch, tab)
    target = tmp_path / "closing.archscope"
    window.start_session_save(str(target))
    window.close()
    doc = read_session(str(target), ("positional",))
    np.testing.assert_array_equal(doc.tabs["positional"].arrays["big_edges"], EDGES)
    assert _files(tmp_path) == ["closing.archscope"]


def test_a_cancel_during_the_rename_changes_nothing_and_says_saved(qtbot, window, tmp_path,
                                                                   monkeypatch):
    """After the last check the file is being put in place: a Cancel then is too late,
    and the bar must not say "not changed" over a file that was replaced."""
    from app import export

    open_tab(qtbot, window, "positional")
    target = tmp_path / "late.archscope"
    window.save_session(str(target))
    before = target.stat().st_ino
    commit = export.AtomicFile.commit

    def cancel_then_commit(self):
        window.data_job.cancel()          # from the worker, as a click could land now
        return commit(self)

    monkeypatch.setattr(export.AtomicFile, "commit", cancel_then_commit)
    job = window.start_session_save(str(target))
    ended = _ended(job)
    qtbot.waitUntil(lambda: bool(ended), timeout=60_000)
    assert ended == [("finished", str(target))], ended
    assert target.stat().st_ino != before             # replaced by the new file
    assert _files(tmp_path) == ["late.archscope"]
    assert "Saved the session" in window.statusBar().currentMessage()


def test_a_value_that_cannot_be_saved_is_named_by_the_users_file(qtbot, window, tmp_path,
                                                                 monkeypatch):
    tab = open_tab(qtbot, window, "positional")
    own = tab.session_inputs
    monkeypatch.setattr(tab, "session_inputs",
                        lambda: ({**own()[0], "bad": float("nan")}, own()[1]))
    errors: list = []
    monkeypatch.setattr(window, "report_error", lambda exc, _details: errors.append(exc))
    job = window.start_session_save(str(tmp_path / "nan.archscope"))
    ended = _ended(job)
    qtbot.waitUntil(lambda: bool(ended), timeout=60_000)
    assert ended[0][0] == "failed"
    text = str(errors[0])
    assert "nan.archscope" in text and ".part" not in text, text
    assert _files(tmp_path) == []


def test_the_transformer_tabs_own_button_saves_in_the_background(qtbot, window, tmp_path,
                                                                 monkeypatch):
    """The Transformer tab's "Save session…" button goes through the window's job, as
    File → Save session… does, even when another tab is in front."""
    from PySide6.QtWidgets import QFileDialog

    tab = open_tab(qtbot, window, "transformer")
    _with_big_inputs(monkeypatch, tab)
    target = tmp_path / "button.archscope"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    open_tab(qtbot, window, "positional")             # the window's current tab differs
    tab.save_button.click()
    job = window.data_job
    assert job is not None and window.export_bar.isVisible()
    ended = _ended(job)
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    assert ended == [("finished", str(target))], ended
    doc = read_session(str(target), ("transformer",))
    assert set(doc.tabs) == {"transformer"} and doc.current == "transformer"
    np.testing.assert_array_equal(doc.tabs["transformer"].arrays["big_edges"], EDGES)
