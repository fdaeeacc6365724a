"""Freed memory goes back to the system (issue 19: the resident size grew from ~0.9 to
~2 GB over the first few hundred random actions, then stayed there).

What grew was mostly not live data: after 200 of the monkey's actions (tests/monkey.py)
the process held 1,064 MB, of which 308 MB came back with one ``malloc_trim(0)``; the live
tensors were 11 MB. glibc's ``malloc`` keeps what is freed: each thread that allocates
(a job's worker, a computation's worker, torch's own threads) gets an arena of its own,
up to eight per core, and the free pages of an arena stay mapped, so the resident size
climbs to the high-water mark of every transient allocation (a trace, an export, a
training step) on every thread, and stays there.

* ``limit_arenas`` caps the arenas (``mallopt(M_ARENA_MAX)``), before the worker threads
  exist: a block freed by one worker is reused by the next instead of stranded;
* ``Releaser`` hands the free pages back (``malloc_trim(0)``), in a thread of its own, a
  few seconds after work ends (a job stopped, a computation shown), at most that often.

On anything but glibc (macOS, Windows, musl) both do nothing.

``GuiCollector`` is the other half: Python's cyclic garbage is collected on the GUI thread
only. Automatic collection runs on whichever thread allocates, and the training and
computing workers allocate most: a collection there freed the GUI's cyclic garbage
(pyqtgraph items, their Qt objects) on a worker while the GUI thread painted, and the
process died in ``paintEvent`` (the monkey, twice in 2,000 actions: a segmentation fault
with a flows or ODE job running). pyqtgraph's ``util.garbage_collector`` does the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import platform
import sys
import threading

from PySide6.QtCore import QObject, QTimer

from models import gcpause

#: glibc's mallopt parameter for the number of arenas
M_ARENA_MAX = -8
#: the arenas ArchScope allows: one for the GUI thread, the rest shared by the workers
ARENAS = 4
#: how soon a collection that a hold blocked is tried again (milliseconds)
RETRY_MS = 20

_libc = None
if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        _libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        _libc = None


def available() -> bool:
    return _libc is not None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Allow at most ``arenas`` malloc arenas from now on; True if it took effect."""
    return bool(_libc is not None and _libc.mallopt(M_ARENA_MAX, int(arenas)))


def release() -> bool:
    """Hand the free pages of every arena back to the system now (this thread); True if
    some memory was returned."""
    return bool(_libc is not None and _libc.malloc_trim(0))


class Releaser(QObject):
    """``poke()`` after work that may have freed memory; ``delay_ms`` later, ``release``
    runs in a short-lived thread of its own (the GUI thread never waits for it). Pokes
    meanwhile are folded into that one release."""

    def __init__(self, parent: QObject | None = None, delay_ms: int = 3000) -> None:
        super().__init__(parent)
        self.releases = 0               # how many ran (tests and the benchmark read it)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._release)
        self._backstop = QTimer(self)           # and every half minute whatever happened
        self._backstop.setInterval(30_000)
        self._backstop.timeout.connect(self.poke)
        self._backstop.start()

    def poke(self, *_args) -> None:
        if _libc is not None and not self._timer.isActive():
            self._timer.start()

    def _release(self) -> None:
        self.releases += 1
        threading.Thread(target=release, name="archscope-malloc-trim", daemon=True).start()


_frozen = False


class GuiCollector(QObject):
    """Automatic garbage collection off (a ``models.gcpause`` hold) while this lives; a
    timer on the GUI thread collects instead, by the same thresholds, every
    ``interval_ms``. No collection while another hold is on (a worker inside an ODE solve
    or the profiler asked for none). ``stop`` (the window closing) ends the hold."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = 500) -> None:
        super().__init__(parent)
        self.collections = [0, 0, 0]     # per generation (tests read them)
        gcpause.hold()
        self._held = True
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        self._timer.start()
        # a collection another hold blocked is tried again soon: a worker that holds
        # collection off step by step waits for it before its next step (gcpause.collect)
        self._retry = QTimer(self, singleShot=True, interval=RETRY_MS)
        self._retry.timeout.connect(self.collect)

    def collect(self) -> None:
        if not self._held:
            return
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for g in range(3):
            if counts[g] <= thresholds[g]:
                break
            generation = g
        if generation < 0:
            return
        # only while no other hold is on, checked atomically with the collection
        if gcpause.collect(generation):
            self.collections[generation] += 1
        elif not self._retry.isActive():
            self._retry.start()

    def freeze_startup(self) -> None:
        """Once per process, when torch and the window are up: what exists now (modules,
        classes, the widgets; 460,000 objects) is left out of every later collection
        (``gc.freeze``). A full collection went from 330 ms of the GUI thread to the
        objects made since."""
        global _frozen
        if not _frozen:
            _frozen = True
            gc.freeze()

    def stop(self) -> None:
        self._timer.stop()
        self._retry.stop()
        if self._held:
            self._held = False
            gcpause.withdraw()
            gcpause.release()
