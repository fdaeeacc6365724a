"""File → Export data… as a background job: the window stays responsive.

The arrays behind a view are frozen (``models.traces``), so a worker of the window's
export ``JobRunner`` can write them while the GUI goes on: as JSON, the positional tab's
largest encodings took 3.3 s on the GUI thread (the 2,000-action monkey). Progress and
Cancel are in the export bar of the status bar, shared with the PNG export; one export
runs at a time. The write is atomic (``app.export.atomic_write``): Cancel or a failure
leaves the previous file as it was.

File → Save session… runs through the same job (``start_write``, from ``app.sessions``),
with the work given to it instead of a view's data.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QThreadPool, Signal

from app import export

if TYPE_CHECKING:
    from app.jobs import Failure, JobRunner
    from app.png_export import ExportBar

translate = QCoreApplication.translate


class DataExportJob(QObject):
    """One data export of the view data ``data`` (a ``ViewData``) to ``path``.

    Signals: ``finished(str)`` the path written; ``failed(object)`` the error;
    ``cancelled()``. Exactly one of them ends the job."""

    finished = Signal(str)
    failed = Signal(object)
    cancelled = Signal()

    def __init__(self, data, path: str, runner: JobRunner, bar: ExportBar,
                 parent: QObject | None = None, work=None, exporting: bool = False) -> None:
        super().__init__(parent)
        # the bar's words: "Exporting" (data, a figure's file) or "Saving" (a session)
        self.saving = work is not None and not exporting
        self.data, self.path, self.runner, self.bar = data, path, runner, bar
        self.name = Path(path).name
        self.ended = False
        # work(report, cancelled, committing) -> the path written, when this is not a
        # data export (a session being saved; data is then None). Its Cancel is a
        # request that the worker answers: ExportCancelled before ``committing()``,
        # nothing after it (the file is being put in place), so what the bar says
        # is what happened to the file
        self.work = work
        self.done = threading.Event()            # the worker has returned or raised
        self._requested = threading.Event()
        self._gate = threading.Lock()
        self._committing = False
        if work is None:
            export.format_of(path, export.DATA_FORMATS)   # refused before anything starts

    def start(self) -> None:
        data, path = self.data, self.path

        def write_data(report, cancelled) -> str:
            return str(export.write_data(path, data.primary, data.arrays, data.meta,
                                         data.row_labels, data.col_labels,
                                         progress=report, cancelled=cancelled))

        def write_other(report, cancelled) -> str:
            return self.work(report, lambda: cancelled() or self._requested.is_set(),
                             self._commit_gate)

        chosen = write_other if self.work is not None else write_data

        def work(report, cancelled) -> str:
            try:
                return chosen(report, cancelled)
            finally:
                self.done.set()

        self.bar.setVisible(True)
        self._progress(0.0)
        self.runner.start_call(work)
        # connected after the start: the ``stopped`` of whatever the runner ran before
        # is not this job's (what this job's worker sends arrives in a later turn)
        self.runner.progressed.connect(self._progress)
        self.runner.returned.connect(self._returned)
        self.runner.failed.connect(self._failed)
        self.runner.stopped.connect(self._stopped)

    def cancel(self) -> None:
        if self.work is None:
            self.runner.stop()
            return
        with self._gate:
            if not self._committing:
                self._requested.set()

    def _commit_gate(self) -> None:
        """Called by the worker just before the rename (see ``work``)."""
        with self._gate:
            if self._requested.is_set():
                raise export.ExportCancelled()
            self._committing = True

    def _progress(self, fraction) -> None:
        text = (translate("MainWindow", "Saving {0}: {1} %") if self.saving
                else translate("MainWindow", "Exporting {0}: {1} %"))
        self.bar.show_progress(float(fraction), text.format(self.name, int(100 * fraction)))

    def _returned(self, written) -> None:
        self._end()
        self.finished.emit(str(written))

    def _failed(self, failure: Failure) -> None:
        self._end()
        if isinstance(failure.error, export.ExportCancelled):
            self.cancelled.emit()          # the worker answered a Cancel
        else:
            self.failed.emit(failure.error)

    def _stopped(self, completed: bool) -> None:
        if not self.ended:                       # Cancel: stopped before it returned
            self._end()
            self.cancelled.emit()

    def _end(self) -> None:
        self.ended = True
        for signal, slot in ((self.runner.progressed, self._progress),
                             (self.runner.returned, self._returned),
                             (self.runner.failed, self._failed),
                             (self.runner.stopped, self._stopped)):
            signal.disconnect(slot)
        self.bar.setVisible(False)


def dialog(window) -> None:
    """File → Export data…: ask for a file, then ``start`` (errors are shown)."""
    from PySide6.QtWidgets import QFileDialog

    tab = window.current_tab()
    key = tab.active_view or tab.views[0].key
    path, _ = QFileDialog.getSaveFileName(
        window, translate("MainWindow", "Export data of “{0}”").format(tab.view(key).title()),
        f"{window.settings.last_dir('export')}/{tab.key}-{key}.csv",
        "CSV (*.csv);;NumPy (*.npy);;JSON (*.json)")
    if path:
        try:
            start(window, tab, key, path)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            window.report_error(exc, None)


def refuse_if_exporting(window) -> None:
    """One export at a time (a PNG or data: they share the export bar and its runner)."""
    if window.png_job is not None or window.data_job is not None:
        raise export.ExportError(translate(
            "MainWindow", "An export is running; wait for it or cancel it first."))


def start(window, tab, key: str, path: str) -> DataExportJob:
    """Write the data of ``tab``'s view ``key`` to ``path`` in the background; raises
    (nothing started) if there is no data, the format is unknown or an export runs."""
    data = tab.view(key).data()
    if data is None:
        raise export.ExportError(translate("MainWindow", "This view has no data yet."))
    refuse_if_exporting(window)
    return _launch(window, DataExportJob(data, path, window.export_runner, window.export_bar,
                                         window), window._saved)


def start_write(window, path: str, work, saved, exporting: bool = False) -> DataExportJob:
    """Run ``work(report, cancelled, committing) -> path written`` in the background as
    the export bar's job (a session being saved, or with ``exporting`` a figure's SVG
    being finished; see ``DataExportJob``); ``saved(path)`` when it is done. Raises
    (nothing started) while an export runs."""
    refuse_if_exporting(window)
    return _launch(window, DataExportJob(None, path, window.export_runner, window.export_bar,
                                         window, work=work, exporting=exporting), saved)


def start_svg(window, tab, view_key: str, path: str) -> DataExportJob:
    """Export a view ('' = the whole tab) of ``tab`` to the SVG ``path``: painted here,
    then made portable and written by the export bar's job, with progress and Cancel
    (the positional encodings' 13,000 cells held the window 0.7-1.3 s, most of it in
    ``viz.svg_post``). Raises (nothing written) while another export runs."""
    from viz import figure

    refuse_if_exporting(window)
    widget = tab.view(view_key).panel if view_key else tab
    text, families = figure.svg_parts(widget, f"ArchScope — {tab.key}.{view_key or 'tab'}")

    def work(report, cancelled, committing) -> str:
        def write(tmp: str) -> None:
            report(0.1)
            svg = figure.finish_svg(text, families)
            if cancelled():
                raise export.ExportCancelled()
            report(0.9)
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(svg)
            committing()
        return str(export.atomic_write(path, write))

    return start_write(window, path, work, window._saved, exporting=True)


def _launch(window, job: DataExportJob, saved) -> DataExportJob:
    path = job.path
    window.data_job = job
    # the job brings its own thread: trainings can fill the pool (one thread each), and
    # the export would wait at 0 % until one of them stopped
    pool = QThreadPool.globalInstance()
    pool.setMaxThreadCount(pool.maxThreadCount() + 1)

    def ended(*_args) -> None:
        window.data_job = None
        pool.setMaxThreadCount(pool.maxThreadCount() - 1)
        job.deleteLater()

    for signal in (job.finished, job.failed, job.cancelled):
        signal.connect(ended)
    job.finished.connect(saved)
    job.failed.connect(lambda exc: window.report_error(exc, None))
    message = (translate("MainWindow", "Saving cancelled: {0} was not changed.")
               if job.saving else
               translate("MainWindow", "Export cancelled: {0} was not changed."))
    job.cancelled.connect(lambda: window.statusBar().showMessage(message.format(path), 8000))
    job.start()
    return job
