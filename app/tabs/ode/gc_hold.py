"""Pausing Python's automatic garbage collection while the neural-ODE tab's models run in
worker threads (``models.gcpause`` counts the pauses across their users)."""

from __future__ import annotations

import gc
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from models import gcpause


class GCHold(QObject):
    """Python's automatic garbage collection off while this tab's models run in worker
    threads; the GUI thread collects and switches it back on once the tab is idle
    (``busy()`` false, checked every half second).

    Automatic collection runs on whichever thread happens to allocate: a training
    thread could free the GUI's cyclic garbage (Qt objects, which must die on the GUI
    thread), and a collection on the GUI thread while a worker was inside an ODE solve
    aborted the test process now and then ("Fatal Python error" while
    "Garbage-collecting"; none in 9 full runs with this hold). Training and the
    redraws make no cyclic garbage (none in 30 s of spiral or CNF training with every
    view redrawing), so nothing piles up meanwhile."""

    def __init__(self, parent: QObject, busy: Callable[[], bool]) -> None:
        super().__init__(parent)
        self._busy = busy
        self.held = False
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self._tick)

    def hold(self) -> None:
        if not self.held:
            gcpause.hold()
            self.held = True
        if not self._timer.isActive():
            self._timer.start()

    def release(self) -> None:
        self._timer.stop()
        if self.held:
            self.held = False
            gc.collect(0)        # what piled up, here on the GUI thread (cheap: the young)
            gcpause.release()    # automatic collection back on unless another user holds it

    def _tick(self) -> None:
        if not self._busy():
            self.release()
