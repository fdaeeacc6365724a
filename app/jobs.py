"""Background work off the GUI thread: training jobs and latest-only computations.

Training loops in ``models/`` are generators of ``Progress``. ``JobRunner`` runs one
at a time per tab in a superqt worker, forwards at most ~25 updates a second (the
generator itself runs at full speed, the skipped items are dropped, the last one is
always delivered) and stops between two items when asked.

``ComputeRunner`` runs plain functions (a trace for the current slider values): while
one runs, newer requests replace each other and only the newest runs next, so a
dragged slider never queues up stale work.

superqt's ``GeneratorWorker`` returns a ``RuntimeError`` raised inside the generator
instead of emitting ``errored`` (it assumes the worker was deleted) and the error
would be lost; the wrappers here catch every exception themselves and deliver it.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThreadPool, Signal

UPDATE_HZ = 25.0


@dataclass(frozen=True)
class Failure:
    """An exception raised in a worker, carried to the GUI thread with its traceback."""

    error: BaseException
    details: str


def _throttled(make_gen: Callable[[], Iterator], stop: threading.Event,
               min_interval: float) -> Iterator:
    last = 0.0
    pending = None
    have_pending = False
    try:
        for item in make_gen():
            if stop.is_set():
                return
            now = time.perf_counter()
            if now - last >= min_interval:
                last = now
                have_pending = False
                yield item
            else:
                pending, have_pending = item, True
        if have_pending and not stop.is_set():
            yield pending
    except Exception as exc:  # noqa: BLE001 - delivered to the GUI, never swallowed
        yield Failure(exc, traceback.format_exc())


class JobRunner(QObject):
    """Runs one generator job at a time for a tab.

    Signals:
        started(): a job began.
        progressed(object): a throttled item from the generator.
        failed(object): a ``Failure``; the job has ended.
        stopped(bool): the job ended; True if it ran to completion.
    """

    started = Signal()
    progressed = Signal(object)
    failed = Signal(object)
    stopped = Signal(bool)

    def __init__(self, parent: QObject | None = None, hz: float = UPDATE_HZ) -> None:
        super().__init__(parent)
        self._interval = 1.0 / hz
        self._worker = None
        self._stop: threading.Event | None = None
        self._failed = False

    def is_running(self) -> bool:
        return self._worker is not None

    def start(self, make_gen: Callable[[], Iterator]) -> None:
        """Start ``make_gen()`` in a worker thread; a running job is stopped first."""
        from superqt.utils import create_worker  # imported here: 0.3 s, not at start-up

        self.stop()
        stop = threading.Event()
        worker = create_worker(_throttled, make_gen, stop, self._interval, _start_thread=False)
        worker.yielded.connect(self._on_yielded)
        worker.finished.connect(lambda w=worker: self._on_finished(w))
        self._worker, self._stop, self._failed = worker, stop, False
        worker.start()
        self.started.emit()

    def stop(self) -> None:
        """Ask the job to stop after its current item (returns at once)."""
        if self._worker is not None:
            self._stop.set()
            self._worker.quit()
            self._detach(completed=False)

    def _detach(self, completed: bool) -> None:
        worker = self._worker
        self._worker = None
        if worker is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                worker.yielded.disconnect(self._on_yielded)
        self.stopped.emit(completed)

    def _on_yielded(self, item) -> None:
        if isinstance(item, Failure):
            self._failed = True
            self.failed.emit(item)
            return
        self.progressed.emit(item)

    def _on_finished(self, worker) -> None:
        if worker is self._worker:
            self._detach(completed=not self._failed and not self._stop.is_set())


class ComputeRunner(QObject):
    """Runs ``fn()`` in a worker; while busy, keeps only the newest pending request.

    Signals:
        done(object): the result of the newest finished request.
        failed(object): a ``Failure``.
        busy(bool): whether a computation is running.
    """

    done = Signal(object)
    failed = Signal(object)
    busy = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running = False
        self._pending: Callable | None = None
        self._closed = False
        self._worker = None
        self._generation = 0

    def request(self, fn: Callable[[], object]) -> None:
        if self._closed:
            return
        self._generation += 1
        if self._running:
            self._pending = fn
            return
        self._launch(fn)

    def invalidate(self) -> None:
        """Drop every result still to come (the caller computed a newer one itself)."""
        self._generation += 1
        self._pending = None

    def is_busy(self) -> bool:
        return self._running

    def close(self) -> None:
        self._closed = True
        self._pending = None

    def _launch(self, fn: Callable[[], object]) -> None:
        from superqt.utils import create_worker

        def guarded():
            try:
                return fn()
            except Exception as exc:  # noqa: BLE001 - delivered to the GUI
                return Failure(exc, traceback.format_exc())

        self._running = True
        self.busy.emit(True)
        generation = self._generation
        worker = create_worker(guarded, _start_thread=False)
        worker.returned.connect(lambda result: self._on_returned(result, generation))
        worker.finished.connect(self._on_finished)
        self._worker = worker
        worker.start()

    def _on_returned(self, result, generation: int) -> None:
        if self._closed or generation != self._generation:
            return  # stale: a newer request is waiting or was computed elsewhere
        if isinstance(result, Failure):
            self.failed.emit(result)
        else:
            self.done.emit(result)

    def _on_finished(self) -> None:
        self._running = False
        self._worker = None
        pending, self._pending = self._pending, None
        if pending is not None and not self._closed:
            self._launch(pending)
        else:
            self.busy.emit(False)


def wait_for_workers(timeout_s: float) -> bool:
    """Block until every worker thread has finished (or the timeout passes)."""
    return QThreadPool.globalInstance().waitForDone(int(timeout_s * 1000))
