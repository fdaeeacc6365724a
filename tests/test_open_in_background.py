"""File → Open of large files, as a person meets it: the window keeps beating while the
file is read (a heartbeat on the event loop), a bar below shows how far with Cancel,
Cancel or a refusal leaves the tab exactly as it was (its graph, its points, its
training) and says so, an accepted file takes the tab's place.

The large files are written into ``tmp_path`` by the corpus's generator
(tests/data/make_hostile.py, never committed).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from heartbeat import Heartbeat
from PySide6.QtCore import Qt, QThreadPool

from tests.data.make_hostile import edge_list, graphml, points_file
from tests.windows import open_tab

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"


@pytest.fixture
def opened(window, monkeypatch):
    """``open(path)``: File → Open… answered with ``path``; errors shown are collected
    in ``opened.shown`` instead of dialogs."""
    from PySide6.QtWidgets import QFileDialog

    class Opener:
        shown: list[BaseException] = []

        def __call__(self, path: Path) -> None:
            monkeypatch.setattr(QFileDialog, "getOpenFileName",
                                staticmethod(lambda *a, **k: (str(path), "")))
            window.act_open.trigger()

    opener = Opener()
    opener.shown = []
    monkeypatch.setattr(window, "report_error", lambda e, d: opener.shown.append(e))
    return opener


def settle(qtbot, tab) -> None:
    """Until the tab has computed and drawn what showing it asked for (the graph tab
    computes the untrained models when first shown, and draws their bars): the
    heartbeats below measure the file being read, not that."""
    for _ in range(2):
        qtbot.waitUntil(lambda: tab.trace is not None and not tab.compute.is_busy(),
                        timeout=60_000)
        qtbot.wait(500)


def graph_tab(qtbot, window):
    tab = open_tab(qtbot, window, "graph")
    window.tabs_widget.setCurrentWidget(tab)
    settle(qtbot, tab)
    return tab


def test_a_huge_edge_list_is_refused_soon_and_the_graph_stays(qtbot, window, opened,
                                                              tmp_path):
    tab = graph_tab(qtbot, window)
    before, doc = tab.graph_form.values(), tab.result.doc
    path = edge_list(tmp_path / "edges_3M.csv", 3_000_000, 100_000)
    with Heartbeat() as beat:
        opened(path)
        assert tab.is_opening() and tab.load_bar.isVisible()
        qtbot.waitUntil(lambda: bool(opened.shown) and not tab.is_opening(), timeout=60_000)
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert "edges_3M.csv" in str(opened.shown[0])
    assert "more than 2,000,000 edges (3,000,000 lines" in str(opened.shown[0])
    assert not tab.is_opening() and not tab.load_bar.isVisible()
    assert tab.graph_form.values() == before and tab.result.doc is doc   # karate, as it was
    assert tab.file_doc is None
    # a normal file still opens, through the same background path
    opened(GEPHI / "Les_Miserables.gexf")
    qtbot.waitUntil(lambda: tab.file_doc is not None, timeout=60_000)
    assert tab.graph_form.values()["dataset"] == "file" and tab.file_doc.num_nodes == 77
    assert len(opened.shown) == 1 and "Les_Miserables.gexf" in window.statusBar().currentMessage()
    assert window.settings.last_dir("open") == str(GEPHI)
    qtbot.waitUntil(lambda: tab.result.doc.num_nodes == 77, timeout=60_000)


def test_cancel_keeps_the_graph_and_the_window_beats_through_a_big_graphml(
        qtbot, window, opened, tmp_path):
    tab = graph_tab(qtbot, window)
    opened(GEPHI / "Les_Miserables.gexf")                       # the graph the user has
    qtbot.waitUntil(lambda: tab.file_doc is not None and not tab.is_opening(), timeout=60_000)
    qtbot.waitUntil(lambda: tab.result.doc.num_nodes == 77, timeout=60_000)
    settle(qtbot, tab)
    had, values = tab.file_doc, tab.graph_form.values()
    path = graphml(tmp_path / "nodes_300k.graphml", 300_000)
    with Heartbeat() as beat:
        opened(path)
        qtbot.waitUntil(lambda: tab.load_bar.bar.value() > 0, timeout=30_000)
        assert tab.load_bar.isVisible() and tab.load_bar.stop_button.text() == "Cancel"
        assert "nodes_300k.graphml" in tab.load_bar.label.text()
        qtbot.mouseClick(tab.load_bar.stop_button, Qt.MouseButton.LeftButton)
        assert not tab.is_opening() and not tab.load_bar.isVisible()
        # the reading itself gives up (its thread ends), long before it would have ended
        qtbot.waitUntil(lambda: QThreadPool.globalInstance().activeThreadCount() == 0,
                        timeout=30_000)
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert "cancelled" in window.statusBar().currentMessage()
    assert not opened.shown                                     # no error: a cancel
    assert tab.file_doc is had and tab.graph_form.values() == values
    assert tab.result.doc.num_nodes == 77


def test_a_refused_graphml_says_why_and_keeps_the_graph(qtbot, window, opened, tmp_path,
                                                        monkeypatch):
    import models.graphs.document as document

    monkeypatch.setattr(document, "MAX_NODES", 20_000)          # a smaller file will do
    tab = graph_tab(qtbot, window)
    doc = tab.result.doc
    with Heartbeat() as beat:
        opened(graphml(tmp_path / "nodes_30k.graphml", 30_000))
        qtbot.waitUntil(lambda: bool(opened.shown) and not tab.is_opening(), timeout=60_000)
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert "nodes_30k.graphml: more than 20,000 nodes" in str(opened.shown[0])
    assert tab.result.doc is doc and tab.file_doc is None and not tab.load_bar.isVisible()


def test_cancel_keeps_the_points_and_the_training_then_a_file_opens(qtbot, window, opened,
                                                                   tmp_path):
    tab = open_tab(qtbot, window, "flows")
    window.tabs_widget.setCurrentWidget(tab)
    settle(qtbot, tab)
    big = points_file(tmp_path / "points_1M.csv", 1_000_000)
    small = points_file(tmp_path / "points_5k.csv", 5_000)
    with Heartbeat() as beat:                # the window beats while a million points load
        opened(big)
        qtbot.waitUntil(lambda: tab.load_bar.bar.value() > 300, timeout=60_000)  # parsing
        qtbot.mouseClick(tab.load_bar.stop_button, Qt.MouseButton.LeftButton)
        assert not tab.is_opening() and not tab.load_bar.isVisible()
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert "points_1M.csv was cancelled" in window.statusBar().currentMessage()
    assert tab.custom_points is None and tab.params()["density"] == "two_moons"
    # while a model trains (its redraws are not measured here): Cancel leaves it training
    tab.toggle_training()
    key = tab._session_key()
    qtbot.waitUntil(lambda: tab.sessions[key].step >= 5, timeout=60_000)
    opened(big)
    qtbot.waitUntil(lambda: tab.load_bar.bar.value() > 0, timeout=60_000)
    qtbot.mouseClick(tab.load_bar.stop_button, Qt.MouseButton.LeftButton)
    steps = tab.sessions[key].step
    assert tab.jobs.is_running() and tab.custom_points is None and not opened.shown
    qtbot.waitUntil(lambda: tab.sessions[key].step > steps + 3, timeout=60_000)
    opened(small)                            # ... until a file is accepted
    qtbot.waitUntil(lambda: tab.custom_name == "points_5k.csv", timeout=60_000)
    assert not tab.jobs.is_running() and tab.custom_points.shape == (5_000, 2)
    assert tab.params()["density"] == "custom" and not opened.shown
    # the points were judged in the background, and the session took those figures
    problem, entropy = tab.points_statistics()
    session = tab.session()
    assert problem is None and session.data_problem is None
    assert np.isfinite(entropy) and session.entropy == entropy
    tab.stop_jobs()


def test_a_million_points_are_read_judged_and_drawn_with_the_window_beating(
        qtbot, window, opened, tmp_path):
    """The accepted case, timed to the end: reading, judging the points (their spread and
    entropy) and the first trace on them, with the window beating throughout."""
    tab = open_tab(qtbot, window, "flows")
    window.tabs_widget.setCurrentWidget(tab)
    settle(qtbot, tab)
    big = points_file(tmp_path / "points_1M.csv", 1_000_000)
    before = tab.result
    makers = []                               # the threads the new model was made on
    new_session = tab._new_session

    def recorded():
        make = new_session()
        return lambda: makers.append(threading.current_thread()) or make()
    tab._new_session = recorded
    with Heartbeat() as beat:
        opened(big)
        qtbot.waitUntil(lambda: tab.custom_name == "points_1M.csv", timeout=120_000)
        qtbot.waitUntil(lambda: tab.result is not before and not tab.compute.is_busy()
                        and not tab.is_opening(), timeout=120_000)
        qtbot.wait(500)                       # and painted
    assert beat.longest_own_ms < beat.limit_ms, beat.report()
    assert tab.custom_points.shape == (1_000_000, 2) and not opened.shown
    assert tab.params()["density"] == "custom"
    # the note on the points took the file's judgement: no model was made on the GUI
    # thread for it (it was, once, 50 ms of it for the scale of a million points)
    assert makers and threading.main_thread() not in makers
    assert tab.error_note.text() == "" and not tab.standardise_button.isVisible()
