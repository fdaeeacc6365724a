"""File → Export figure… to PNG as a background job: the window stays responsive.

A PNG at the 20,000-px maximum froze the window for 17 s and held a 1.6 GB image.
Here the figure is painted in strips of rows (``viz.figure_png.PngStrips``), one strip
per event-loop turn on the GUI thread (the scene may only be touched there), and each
strip is handed to the window's export ``JobRunner``, whose worker filters, deflates and
writes it (``viz.figure_png.encode``) into a temporary file beside the target. At most
:data:`WAITING` strips wait for the worker, so memory holds a few strips, never the
image. The temporary file replaces the target only once complete: Cancel (the export
bar's button) or a failure leaves no half file and the previous file as it was.

A figure painted over many turns must not change between its strips, or the PNG would
show two moments at once. While the strips are painted, the tab's training job is
paused and its new traces are held (``JobRunner.pause``, ``ComputeRunner.hold``), and
the mouse and keys do not reach the exported views. Anything else that changes them (an
animation playing, a resized window) is noticed through the scenes' ``changed`` signal,
and the export starts over, at most :data:`RESTARTS` times before it gives up and says
why.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Iterator

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QGraphicsView, QWidget

from app.export import AtomicFile, ExportError
from app.jobs import Failure, JobRunner
from app.tabs.base import BaseTab, JobBar
from viz.figure import FigureError
from viz.figure_png import PngStrips, encode

#: strips painted ahead of the worker (each at most ``viz.figure_png.STRIP_BYTES``)
WAITING = 2
#: seconds the first strip waits for a turn in which the views do not change
SETTLE_S = 2.0
#: times an export starts over because its view changed before it gives up
RESTARTS = 3
#: a strip's painting aims at this many milliseconds of the GUI thread: its rows follow
#: what the last strip took (within MIN_ROWS and the strip's size limit). Where even the
#: smallest strip takes long (a busy machine, thousands of scatter points, each painted
#: in Python), the aim rises to twice that, up to MAX_TURN_MS, so that the export still
#: ends: a strip of a few rows costs about as much as a larger one.
TURN_MS = 30.0
MAX_TURN_MS = 80.0
MIN_ROWS = 4
FIRST_ROWS = 16

translate = QCoreApplication.translate


class Cancelled(Exception):
    """The export was cancelled or started over; the worker stops writing."""


class ExportBar(JobBar):
    """The export's progress and its Cancel button, in the window's status bar."""

    def __init__(self, runner: JobRunner, parent=None) -> None:
        super().__init__(runner, parent)
        self.setObjectName("ExportBar")
        self.stop_button.setObjectName("CancelExportButton")
        self.stop_button.clicked.disconnect()      # the window cancels the export job
        self.label.setMinimumWidth(260)
        # no taller than the status bar's text: a taller bar would make the status bar,
        # and so the views, change size (the export would see its view change)
        height = self.label.sizeHint().height() + 2
        for widget in (self.stop_button, self.bar):
            widget.setMaximumHeight(height)
        self.layout().setContentsMargins(4, 0, 4, 0)
        self.setVisible(False)

    def retranslate(self) -> None:
        self.stop_button.setText(translate("ExportBar", "Cancel"))

    def _set_running(self, running: bool) -> None:
        # shown only while an export runs, whose writer may start and stop (start over)
        self.stop_button.setEnabled(True)

class _InputBlocker(QObject):
    """Swallows mouse, wheel, key and hover events of the exported views (a zoom, a
    hover highlight would change the figure between two strips)."""

    BLOCKED = {QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
               QEvent.Type.MouseButtonDblClick, QEvent.Type.MouseMove, QEvent.Type.Wheel,
               QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.HoverEnter,
               QEvent.Type.HoverMove, QEvent.Type.HoverLeave, QEvent.Type.Enter,
               QEvent.Type.Leave, QEvent.Type.ContextMenu, QEvent.Type.GraphicsSceneHoverMove}

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        return event.type() in self.BLOCKED


class PngExportJob(QObject):
    """One PNG export of ``widget`` (a view's panel or a whole tab) of ``tab``.

    Signals:
        progressed(float, bool): the fraction written, and whether the tab's training
            is paused meanwhile.
        finished(str): the PNG is in place (its path).
        failed(object): the exception that stopped it (the target is untouched).
        cancelled(): Cancel was pressed (the target is untouched).
    """

    progressed = Signal(float, bool)
    finished = Signal(str)
    failed = Signal(object)
    cancelled = Signal()

    def __init__(self, tab: BaseTab, widget: QWidget, path: str, width: int | None,
                 scale: float | None, runner: JobRunner, parent: QObject | None = None
                 ) -> None:
        super().__init__(parent)
        self.tab, self.widget, self.path = tab, widget, path
        self.width, self.scale = width, scale
        self.runner = runner
        self.restarts = 0
        self._strips: PngStrips | None = None
        self._top = 0                  # the first row not painted yet
        self._rows = 1                 # rows of the next strip
        self._file: AtomicFile | None = None
        self._waiting: queue.Queue = queue.Queue()
        self._abandon = threading.Event()
        self._changed = False
        self._quiet = False            # our own painting's scene updates: not a change
        self._holding = False
        self._scenes: list = []
        self._blocker = _InputBlocker(self)
        self._blocked: list[QWidget] = []
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._paint_next)
        self._ended = False
        self._restarting = False
        self._encoding = False
        self._settle_until = 0.0
        runner.progressed.connect(self._on_progress)
        runner.failed.connect(self._on_failed)
        runner.stopped.connect(self._on_stopped)

    # -- the life of an export ------------------------------------------------------------
    def start(self) -> None:
        """Begin (returns at once); raises ExportError for a size or a folder that
        cannot be written, before anything is written."""
        try:
            self._attempt()
        except BaseException:
            self._end()
            raise

    def _measure(self) -> None:
        """The PNG's size from the view's size now."""
        try:
            self._strips = PngStrips(self.widget, self.width, self.scale)
        except FigureError as exc:      # a size out of range: a sentence for the user
            raise ExportError(str(exc)) from exc

    def _attempt(self) -> None:
        self._measure()
        self._top = 0
        self._rows = min(self._strips.rows, FIRST_ROWS)
        self._fastest_ms = float("inf")
        self._changed = False
        self._encoding = False
        self._settle_until = time.perf_counter() + SETTLE_S
        self._file = AtomicFile(self.path)
        self._waiting = queue.Queue()
        self._abandon = threading.Event()
        if self._strips.rows < self._strips.size.height():    # more than one strip
            self._hold()
        self._timer.start()

    def _start_encoding(self) -> None:
        strips, file, waiting, abandon = self._strips, self._file, self._waiting, self._abandon
        self._encoding = True
        self.runner.start(lambda: _encode_job(file.tmp, strips, waiting, abandon))

    def cancel(self) -> None:
        """Stop now: no file is written, the target keeps what it had."""
        if self._ended:
            return
        if self.runner.is_running():
            self.runner.stop()          # -> _on_stopped(False)
            return
        self._stop_attempt()
        self._end()
        self.cancelled.emit()

    def is_running(self) -> bool:
        return not self._ended

    # -- painting, one strip per turn ---------------------------------------------------------
    def _paint_next(self) -> None:
        if self._ended or self._strips is None:
            return
        self._flush_scene_updates(quiet=False)      # changes made by others, before us
        if self._changed:
            self._changed = False
            if self._top > 0:
                self._start_over()                  # the strips so far show another moment
                return
            if time.perf_counter() < self._settle_until:
                # nothing painted yet: the last report before the pause is still being
                # laid out (an axis, a legend moving aside); paint once a turn is still
                try:
                    self._measure()
                except ExportError as exc:
                    self._fail(exc)
                return
        if not self._encoding:
            self._start_encoding()
        if self._waiting.qsize() >= WAITING:
            return                                  # the worker is behind: next turn
        height = self._strips.size.height()
        if self._strips.rows >= height:
            top, rows = 0, height                   # one strip: as one image always was
        else:
            top, rows = self._top, min(self._rows, height - self._top)
        started = time.perf_counter()
        try:
            image = self._strips.paint(top, rows)
        except Exception as exc:  # noqa: BLE001 - reported, the export ends
            self._fail(exc)
            return
        self._flush_scene_updates(quiet=True)       # what painting itself invalidated
        self._waiting.put(image)
        self._top = top + rows
        # the next strip as tall as paints in about the aim (at most STRIP_BYTES)
        taken_ms = max(1.0, 1000.0 * (time.perf_counter() - started))
        self._fastest_ms = min(self._fastest_ms, taken_ms)
        aim = min(MAX_TURN_MS, max(TURN_MS, 2.0 * self._fastest_ms))
        self._rows = int(min(self._strips.rows, 2 * rows,
                             max(MIN_ROWS, rows * aim / taken_ms)))
        if self._top >= height:
            self._timer.stop()
            self._waiting.put(None)
            self._release()

    def _flush_scene_updates(self, quiet: bool) -> None:
        """Let the scenes report their pending updates now (``changed`` is emitted from
        a queued call); with ``quiet``, they are our own."""
        self._quiet = quiet
        try:
            for _ in range(2):   # dirty items are processed in one call, reported in the next
                for scene in self._scenes:
                    QCoreApplication.sendPostedEvents(scene, QEvent.Type.MetaCall)
        finally:
            self._quiet = False

    def _on_scene_changed(self, rects) -> None:
        if not self._quiet and rects:
            self._changed = True

    def _start_over(self) -> None:
        self.restarts += 1
        self._stop_attempt()
        if self.restarts > RESTARTS:
            self._fail(ExportError(translate(
                "PngExportJob", "The view kept changing while the PNG was painted (an "
                "animation playing, or the window resized?). Stop it and export again.")))
            return
        try:
            self._attempt()
        except Exception as exc:  # noqa: BLE001 - reported, the export ends
            self._fail(exc)

    def _stop_attempt(self) -> None:
        """End this attempt's painting and writing; its file is removed."""
        self._timer.stop()
        self._abandon.set()
        self._release()
        self._restarting = True
        try:
            if self.runner.is_running():
                self.runner.stop()
        finally:
            self._restarting = False
        if self._file is not None:
            self._file.discard()

    # -- holding the views still ------------------------------------------------------------------
    def _hold(self) -> None:
        if self._holding:
            return
        self._holding = True
        self.tab.jobs.pause()
        self.tab.compute.hold()
        self._scenes = self._strips.scenes()
        for scene in self._scenes:
            scene.changed.connect(self._on_scene_changed)
        views = [self.widget] if isinstance(self.widget, QGraphicsView) else []
        views += self.widget.findChildren(QGraphicsView)
        for view in views:
            for target in (view, view.viewport()):
                target.installEventFilter(self._blocker)
                self._blocked.append(target)

    def _release(self) -> None:
        if not self._holding:
            return
        self._holding = False
        for scene in self._scenes:
            with contextlib.suppress(RuntimeError, TypeError):   # a scene already gone
                scene.changed.disconnect(self._on_scene_changed)
        self._scenes = []
        for target in self._blocked:
            with contextlib.suppress(RuntimeError):
                target.removeEventFilter(self._blocker)
        self._blocked = []
        self.tab.compute.release()
        self.tab.jobs.resume()

    # -- the worker's reports ----------------------------------------------------------------------
    def _on_progress(self, rows: int) -> None:
        if not self._ended and self._strips is not None:
            self.progressed.emit(rows / self._strips.size.height(), self._holding
                                 and self.tab.jobs.is_running())

    def _on_failed(self, failure: Failure) -> None:
        if not self._ended and not isinstance(failure.error, Cancelled):
            self._fail(failure.error)

    def _on_stopped(self, completed: bool) -> None:
        if self._ended or self._restarting:
            return
        if not completed:
            self._stop_attempt()
            self._end()
            self.cancelled.emit()
            return
        try:
            written = self._file.commit()
        except ExportError as exc:
            self._fail(exc)
            return
        self._end()
        self.finished.emit(str(written))

    def _fail(self, error: BaseException) -> None:
        if self._ended:
            return
        self._stop_attempt()
        self._end()
        self.failed.emit(error)

    def _end(self) -> None:
        self._ended = True
        self._timer.stop()
        self._release()
        for signal, slot in ((self.runner.progressed, self._on_progress),
                             (self.runner.failed, self._on_failed),
                             (self.runner.stopped, self._on_stopped)):
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)


def _encode_job(tmp: str, strips: PngStrips, waiting: queue.Queue,
                abandon: threading.Event) -> Iterator[int]:
    """The worker's part: write the strips that arrive to ``tmp``; yields the rows
    written so far. Raises ``Cancelled`` when the export is abandoned."""

    def arriving():
        while True:
            try:
                image = waiting.get(timeout=0.05)
            except queue.Empty:
                if abandon.is_set():
                    raise Cancelled from None
                continue
            if image is None:
                return
            if abandon.is_set():
                raise Cancelled
            yield image

    with open(tmp, "wb") as fh:
        yield from encode(fh, strips, arriving())

