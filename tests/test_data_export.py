"""File → Export data… in the background: the window keeps beating while a large view's
data is written (a heartbeat on the event loop), the export bar shows how far with
Cancel, Cancel leaves the previous file as it was, one export runs at a time; and
``write_data``'s progress and cancel hooks on their own."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from heartbeat import Heartbeat
from PySide6.QtCore import Qt

from app import data_export
from app.export import ExportCancelled, ExportError, write_data
from tests.windows import open_tab


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_write_data_reports_progress_and_cancels_leaving_the_old_file(tmp_path, fmt):
    values = np.random.default_rng(0).normal(size=(400, 300)).astype(np.float32)
    seen: list[float] = []
    path = tmp_path / f"big.{fmt}"
    write_data(path, "v", {"v": values}, progress=seen.append, cancelled=lambda: False)
    assert len(seen) > 5 and seen == sorted(seen) and seen[0] >= 0 and seen[-1] <= 0.99
    before = path.read_bytes()
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 3                 # a few writes in, the user cancels

    with pytest.raises(ExportCancelled):
        write_data(path, "v", {"v": values * 2}, cancelled=cancelled)
    assert path.read_bytes() == before and not list(tmp_path.glob("*.part"))


def _positional_at_its_largest(qtbot, window):
    tab = open_tab(qtbot, window, "positional")
    window.tabs_widget.setCurrentWidget(tab)
    tab.apply_state({"d_model": 512, "max_len": 2048})
    qtbot.waitUntil(lambda: tab.trace is not None and tab.trace.pe.shape == (2048, 512)
                    and not tab.compute.is_busy(), timeout=60_000)
    qtbot.wait(300)
    return tab


def test_a_large_export_runs_in_the_background_then_a_cancel_keeps_the_old_file(
        qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    tab = _positional_at_its_largest(qtbot, window)
    path = tmp_path / "pe.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    errors = []
    monkeypatch.setattr(window, "report_error", lambda e, d: errors.append(e))
    with Heartbeat() as beat:            # 1M numbers as JSON: seconds, on a worker
        window.act_export_data.trigger()
        assert window.data_job is not None and window.export_bar.isVisible()
        with pytest.raises(ExportError, match="An export is running"):
            window.start_data_export(tab, "pe", str(tmp_path / "again.csv"))
        qtbot.waitUntil(lambda: window.data_job is None, timeout=120_000)
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert not errors and "Saved" in window.statusBar().currentMessage()
    assert not window.export_bar.isVisible()
    doc = json.loads(path.read_text())
    np.testing.assert_allclose(np.array(doc["arrays"]["pe"]), tab.trace.pe, atol=1e-6)
    # again, and Cancel at once: the file stays as the first export wrote it
    before = path.read_bytes()
    window.act_export_data.trigger()
    qtbot.mouseClick(window.export_bar.stop_button, Qt.MouseButton.LeftButton)
    assert window.data_job is None and not window.export_bar.isVisible()
    assert "cancelled" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not window.export_runner.is_running() and
                    not list(tmp_path.glob("*.part")), timeout=60_000)
    qtbot.wait(200)
    assert path.read_bytes() == before and not errors
    # an unknown format is refused before anything starts
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "pe.xlsx"), "")))
    window.act_export_data.trigger()
    assert window.data_job is None and "pe.xlsx" in str(errors[-1])
    assert not Path(tmp_path / "pe.xlsx").exists()


def test_an_svg_export_is_finished_in_the_background_as_the_cli_writes_it(
        qtbot, window, tmp_path, monkeypatch):
    """File → Export figure… to SVG: the positional encodings' 13,000 cells held the
    window 0.7-1.3 s, most of it making the SVG portable (``viz.svg_post``). Now the
    painting alone is on the GUI thread and the export bar's job does the rest, with
    Cancel; the file is the one ``viz.figure.render`` writes."""
    from viz import figure

    tab = open_tab(qtbot, window, "positional")
    qtbot.waitUntil(lambda: not tab.compute.is_busy(), timeout=30_000)
    qtbot.wait(300)
    errors = []
    monkeypatch.setattr(window, "report_error", lambda e, d: errors.append(e))
    path = tmp_path / "pe.svg"
    dialog = window.export_figure_dialog()
    dialog.view.setCurrentIndex(dialog.view.findData("pe"))
    dialog.path.setText(str(path))
    dialog.accept()             # paints the view here (0.2-0.3 s), then the job starts
    assert window.data_job is not None and window.export_bar.isVisible()
    with Heartbeat() as beat:   # the rest, 0.5-1 s, is the job's
        with pytest.raises(ExportError, match="An export is running"):
            data_export.start_svg(window, tab, "pe", str(tmp_path / "again.svg"))
        qtbot.waitUntil(lambda: window.data_job is None, timeout=60_000)
    assert beat.longest_ms < beat.limit_ms, beat.report()
    assert not errors and "Saved" in window.statusBar().currentMessage()
    reference = tmp_path / "reference.svg"
    figure.render(tab.view("pe").panel, str(reference), "svg",
                  title="ArchScope — positional.pe")
    assert path.read_text(encoding="utf-8") == reference.read_text(encoding="utf-8")
    assert "font-family" in path.read_text(encoding="utf-8")
    assert "sans-serif" in path.read_text(encoding="utf-8")     # the families made portable
    # again, and Cancel at once: the file stays as the first export wrote it
    before = path.read_bytes()
    data_export.start_svg(window, tab, "", str(path))           # the whole tab this time
    assert "Exporting" in window.export_bar.label.text()
    qtbot.mouseClick(window.export_bar.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.data_job is None, timeout=60_000)
    assert "cancelled" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not window.export_runner.is_running(), timeout=60_000)
    assert path.read_bytes() == before and not list(tmp_path.glob("*.part")) and not errors


def test_closing_the_window_cancels_an_svg_export_at_once(qtbot, window, tmp_path):
    """An SVG export is an export, not a session being saved: closing the window cancels
    it (no file) instead of waiting up to 120 s for it to be written."""
    import time

    tab = open_tab(qtbot, window, "positional")
    qtbot.waitUntil(lambda: not tab.compute.is_busy(), timeout=30_000)
    path = tmp_path / "tab.svg"
    data_export.start_svg(window, tab, "", str(path))
    assert window.data_job is not None and not window.data_job.saving
    t0 = time.perf_counter()
    window.close()
    assert time.perf_counter() - t0 < 10
    qtbot.waitUntil(lambda: not window.export_runner.is_running(), timeout=30_000)
    assert not path.exists() and not list(tmp_path.glob("*.part"))


def test_a_job_started_as_the_last_one_ends_is_not_told_the_old_one_stopped(qtbot):
    """A ``JobRunner`` job has ended once its return value is delivered. Its thread's own
    ``returned`` comes a turn later; a job started in between (here from the very
    ``returned`` signal) used to stop the finished one and hear ``stopped(False)``: the
    export bar said "cancelled" while the new job's worker went on and wrote the file."""
    from app.jobs import JobRunner

    runner = JobRunner()
    heard: list = []
    runner.stopped.connect(lambda completed: heard.append(("stopped", completed)))
    runner.returned.connect(lambda value: heard.append(("returned", value)))

    def second(value):
        if value == 1:
            runner.start_call(lambda report, cancelled: 2)

    runner.returned.connect(second)
    runner.start_call(lambda report, cancelled: 1)
    qtbot.waitUntil(lambda: ("returned", 2) in heard, timeout=10_000)
    qtbot.waitUntil(lambda: not runner.is_running(), timeout=10_000)
    qtbot.wait(100)             # the first thread's own ``returned`` has arrived and gone
    assert heard == [("returned", 1), ("returned", 2), ("stopped", True)], heard


def test_an_svg_export_started_as_the_last_one_is_saved_is_not_cancelled(
        qtbot, window, tmp_path, monkeypatch):
    """An SVG export begun the moment another is saved (its ``finished``, before the old
    worker's thread has said it returned) runs to its end and says "Saved": a clean
    clone's run showed "Export cancelled: … was not changed." over a replaced file."""
    tab = open_tab(qtbot, window, "positional")
    qtbot.waitUntil(lambda: not tab.compute.is_busy(), timeout=30_000)
    errors, started = [], []
    monkeypatch.setattr(window, "report_error", lambda e, d: errors.append(e))
    first, second = tmp_path / "first.svg", tmp_path / "second.svg"
    job = data_export.start_svg(window, tab, "pe", str(first))
    job.finished.connect(        # after the window's own slots: data_job is None here
        lambda _path: started.append(data_export.start_svg(window, tab, "", str(second))))
    qtbot.waitUntil(lambda: bool(started) and window.data_job is None, timeout=60_000)
    qtbot.waitUntil(lambda: not window.export_runner.is_running(), timeout=60_000)
    assert not errors and "Saved" in window.statusBar().currentMessage(), \
        window.statusBar().currentMessage()
    assert first.exists() and second.exists() and second.read_bytes() != first.read_bytes()
