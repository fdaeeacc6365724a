"""Background work off the GUI thread: training jobs and latest-only computations.

Training loops in ``models/`` are generators of ``Progress``. ``JobRunner`` runs one
at a time per tab in a superqt worker, forwards at most ~25 updates a second (the
generator itself runs at full speed, the skipped items are dropped, the last one is
always delivered) and stops between two items when asked.

``JobRunner.start_call`` runs a plain function that reports progress through a callback
and checks a "cancelled" callable (the file loaders of ``models/``): the same throttled
``progressed``, the same Stop, and its return value in ``returned``.

``ComputeRunner`` runs plain functions (a trace for the current slider values): while
one runs, newer requests replace each other and only the newest runs next, so a
dragged slider never queues up stale work.

While a figure of a tab is painted strip by strip (a large PNG), its views must not
change between strips: ``JobRunner.pause`` holds the job between two items (the
worker waits; nothing is dropped) and ``ComputeRunner.hold`` keeps the newest result
until ``release``.

superqt's ``GeneratorWorker`` returns a ``RuntimeError`` raised inside the generator
instead of emitting ``errored`` (it assumes the worker was deleted) and the error
would be lost; the wrappers here catch every exception themselves and deliver it.
"""

from __future__ import annotations

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


def _failure(exc: BaseException) -> Failure:
    """``exc`` with its traceback as text, and its frames let go here, in the worker: their
    locals (a half-read file's element tree, millions of parsed rows) would otherwise
    travel with the exception and be freed on the GUI thread, freezing it for seconds."""
    details = traceback.format_exc()
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:     # the chain: raise ... from
        seen.add(id(error))
        traceback.clear_frames(error.__traceback__)
        error.__traceback__ = None
        error = error.__cause__ or error.__context__
    return Failure(exc, details)


@dataclass(frozen=True)
class _Returned:
    """The value a ``start_call`` function returned (the last item of its job)."""

    value: object


def _throttled(make_gen: Callable[[], Iterator], stop: threading.Event,
               min_interval: float, job: int,
               go: threading.Event | None = None) -> Iterator:
    """Yields ``(job, item)`` at most every ``min_interval`` s; returns ``job``. Before
    each next item it waits while ``go`` is clear (paused)."""
    for item in _throttled_items(make_gen, stop, min_interval, go):
        yield job, item
    return job


def _throttled_items(make_gen: Callable[[], Iterator], stop: threading.Event,
                     min_interval: float, go: threading.Event | None = None) -> Iterator:
    last = 0.0
    pending = None
    have_pending = False
    try:
        for item in make_gen():
            while go is not None and not go.wait(0.05):   # paused
                if stop.is_set():
                    return
            if stop.is_set():
                return
            now = time.perf_counter()
            # an item carrying a trace (a snapshot the views must show) is never dropped
            if now - last >= min_interval or getattr(item, "trace", None) is not None:
                last = now
                have_pending = False
                yield item
            else:
                pending, have_pending = item, True
        if have_pending and not stop.is_set():
            yield pending
    except Exception as exc:  # noqa: BLE001 - delivered to the GUI, never swallowed
        if have_pending and not stop.is_set():
            yield pending   # the last good report still counts
        yield _failure(exc)


class JobRunner(QObject):
    """Runs one generator job at a time for a tab.

    Signals:
        started(): a job began.
        progressed(object): a throttled item from the generator (for ``start_call``:
            what the function passed to ``report``).
        returned(object): what a ``start_call`` function returned, just before
            ``stopped(True)``.
        failed(object): a ``Failure``; the job has ended.
        stopped(bool): the job ended; True if it ran to completion.
    """

    started = Signal()
    progressed = Signal(object)
    returned = Signal(object)
    failed = Signal(object)
    stopped = Signal(bool)
    #: ``(job, item)`` reported from a ``start_call`` function's thread (queued here)
    _reported = Signal(object)

    def __init__(self, parent: QObject | None = None, hz: float = UPDATE_HZ) -> None:
        super().__init__(parent)
        self._interval = 1.0 / hz
        self._worker = None
        self._job = 0
        self._stop: threading.Event | None = None
        self._failed = False
        self._go = threading.Event()
        self._go.set()
        self._kept: list = []      # items that arrived while paused (the one in flight)
        self._reported.connect(self._on_yielded)

    def is_running(self) -> bool:
        return self._worker is not None

    def pause(self) -> None:
        """Hold the job before its next item; the item in flight is kept, not shown. A
        job started while paused waits too. ``resume`` delivers what was kept and lets
        the job go on; ``stop`` still stops."""
        self._go.clear()

    def resume(self) -> None:
        self._go.set()
        self._deliver_kept()

    def _deliver_kept(self) -> None:
        kept, self._kept = self._kept, []
        for tagged in kept:
            self._deliver(tagged)

    def is_paused(self) -> bool:
        return not self._go.is_set()

    def start(self, make_gen: Callable[[], Iterator]) -> None:
        """Start ``make_gen()`` in a worker thread; a running job is stopped first."""
        self._launch(lambda stop, job: make_gen)

    def start_call(self, fn: Callable[[Callable[[object], None], Callable[[], bool]],
                                      object]) -> None:
        """Start ``fn(report, cancelled)`` in a worker thread (a running job is stopped
        first). ``report(item)`` from inside it reaches ``progressed`` at most ~25 times a
        second; ``cancelled()`` turns True on Stop, and ``fn`` should then give up (raise)
        soon: whatever it raises after Stop goes nowhere. Its return value arrives in
        ``returned``, then ``stopped(True)``; an exception in ``failed``."""
        def make(stop: threading.Event, job: int) -> Callable[[], Iterator]:
            last = [0.0]

            def report(item: object) -> None:
                now = time.perf_counter()
                if now - last[0] >= self._interval and not stop.is_set():
                    last[0] = now
                    self._reported.emit((job, item))   # queued to the GUI thread

            def gen() -> Iterator:
                yield _Returned(fn(report, stop.is_set))

            return gen

        self._launch(make)

    def _launch(self, make: Callable[[threading.Event, int], Callable[[], Iterator]]) -> None:
        from superqt.utils import create_worker  # imported here: 0.3 s, not at start-up

        self.stop()
        stop = threading.Event()
        self._job += 1
        worker = create_worker(_throttled, make(stop, self._job), stop, self._interval,
                               self._job, self._go, _start_thread=False)
        # Bound methods, not lambdas: Qt then disconnects them when this runner is
        # deleted, so items still queued at shutdown go nowhere. The job number drops
        # items that an old worker queued before Stop.
        worker.yielded.connect(self._on_yielded)
        worker.returned.connect(self._on_returned)
        self._worker, self._stop, self._failed = worker, stop, False
        worker.start()
        self.started.emit()

    def stop(self) -> None:
        """Ask the job to stop after its current item (returns at once)."""
        if self._worker is not None:
            self._kept.clear()
            self._stop.set()
            self._worker.quit()
            self._detach(completed=False)

    def _detach(self, completed: bool) -> None:
        self._worker = None
        self.stopped.emit(completed)

    def _on_yielded(self, tagged) -> None:
        job, item = tagged
        if self._worker is None or job != self._job:
            return   # from a job that was stopped or replaced
        if not self._go.is_set():
            self._kept.append(tagged)
            return
        self._deliver(tagged)

    def _deliver(self, tagged) -> None:
        job, item = tagged
        if self._worker is None or job != self._job:
            return
        if isinstance(item, Failure):
            self._failed = True
            self._last(job, self.failed, item)
            return
        if isinstance(item, _Returned):
            self._last(job, self.returned, item.value)
            return
        self.progressed.emit(item)

    def _last(self, job: int, signal, value) -> None:
        """Deliver the job's last item (its return value or its failure): the job has
        ended now, not when its thread's own ``returned`` arrives a turn later. A job
        started in between (from this very signal, or a turn later) stopped the old one
        and told its own listeners ``stopped(False)``: an SVG export begun just after
        another was reported cancelled at once while its worker replaced the file."""
        completed = not self._failed and not self._stop.is_set()
        self._worker = None
        signal.emit(value)
        if job == self._job:         # no other job was started from ``signal``
            self.stopped.emit(completed)

    def _on_returned(self, job) -> None:
        if self._worker is not None and job == self._job:
            self._deliver_kept()       # the job ended while paused: its last report counts
        if self._worker is not None and job == self._job:   # a generator: no last item
            self._detach(completed=not self._failed and not self._stop.is_set())


class ComputeRunner(QObject):
    """Runs ``fn()`` in a worker; while busy, keeps only the newest pending request.

    Results arrive in the order of the requests, so the one still running when a newer
    request comes is shown too (a dragged slider keeps drawing); ``invalidate`` drops
    everything still to come.

    Signals:
        done(object): a result.
        failed(object): a ``Failure``.
    """

    done = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running = False
        self._pending: Callable | None = None
        self._closed = False
        self._generation = 0
        self._held = False
        self._kept: tuple[int, object] | None = None

    def hold(self) -> None:
        """Keep results instead of delivering them (the newest only) until ``release``."""
        self._held = True

    def release(self) -> None:
        """Deliver the newest result kept while held, if it is still wanted."""
        self._held = False
        kept, self._kept = self._kept, None
        if kept is not None:
            self._on_returned(kept)

    def request(self, fn: Callable[[], object]) -> None:
        if self._closed:
            return
        if self._running:
            self._pending = fn
            return
        self._launch(fn)

    def invalidate(self) -> None:
        """Drop every result still to come (the caller computed a newer one itself)."""
        self._generation += 1
        self._pending = None
        self._kept = None

    def is_busy(self) -> bool:
        return self._running

    def close(self) -> None:
        self._closed = True
        self._pending = None

    def _launch(self, fn: Callable[[], object]) -> None:
        from superqt.utils import create_worker

        generation = self._generation

        def guarded():
            try:
                return generation, fn()
            except Exception as exc:  # noqa: BLE001 - delivered to the GUI
                return generation, _failure(exc)

        self._running = True
        worker = create_worker(guarded, _start_thread=False)
        worker.returned.connect(self._on_returned)   # bound: gone with this runner
        worker.finished.connect(self._on_finished)
        worker.start()

    def _on_returned(self, tagged) -> None:
        generation, result = tagged
        if self._closed or generation != self._generation:
            return  # invalidated: the caller computed a newer result itself
        if self._held:
            self._kept = tagged
            return
        if isinstance(result, Failure):
            self.failed.emit(result)
        else:
            self.done.emit(result)

    def _on_finished(self) -> None:
        self._running = False
        pending, self._pending = self._pending, None
        if pending is not None and not self._closed:
            self._launch(pending)


def wait_for_workers(timeout_s: float) -> bool:
    """Block until every worker thread has finished (or the timeout passes)."""
    return QThreadPool.globalInstance().waitForDone(int(timeout_s * 1000))
