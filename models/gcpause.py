"""Pausing Python's automatic garbage collection, counted across its users.

Automatic collection runs on whichever thread happens to allocate. Two places pause it
while worker threads run native code that must not be interrupted by a collection on
another thread (the CPU profiler's parser in ``models.efficient_attention.cost``; ODE solves in the
neural-ODE tab). The file loaders (``load_graph``, ``load_points_csv``) pause it while they
parse: millions of new objects, none in a cycle, that a collection would walk while holding
the interpreter (and the window) for seconds. Each pauses with ``hold()`` and ends with ``release()``; collection comes
back when the last holder releases, and only if it was on before the first hold, so one
user's release never switches it on under another's feet. The window's collector collects
through ``collect``, never while another hold is on; the ODE tab's workers hold step by
step and let a waiting collection run between two steps (``hold(yield_to_collection)``).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# reentrant: a collection (``collect``) runs finalizers on the collecting thread, and one
# of them may hold or release
_lock = threading.RLock()
_collected = threading.Condition(_lock)
_holds = 0
_yielding = 0            # of them, holds that let a waiting collection go first
_was_enabled = False
_wanted = False          # a collection waits for the holds to end (``collect``)
#: the longest a hold that yields to a collection waits for it
YIELD_WAIT_S = 0.5


def hold(yield_to_collection: bool = False) -> None:
    """Hold automatic collection off. With ``yield_to_collection`` (a worker starting its
    next step) a collection that ``collect`` found blocked by such holds runs first: the
    hold waits for it (at most ``YIELD_WAIT_S``). On the main thread, which is the one
    that collects, it never waits."""
    global _holds, _was_enabled, _yielding
    yielding = bool(yield_to_collection) and \
        threading.current_thread() is not threading.main_thread()
    with _lock:
        if yielding and _wanted:
            _collected.wait_for(lambda: not _wanted, timeout=YIELD_WAIT_S)
        if yielding:
            _yielding += 1
        if _holds == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holds += 1


def release(yield_to_collection: bool = False) -> None:
    """End one hold (a release without a hold does nothing); ``yield_to_collection`` as
    the hold was asked for."""
    global _holds, _yielding
    with _lock:
        if _holds == 0:
            return
        _holds -= 1
        if yield_to_collection and _yielding > 0 and \
                threading.current_thread() is not threading.main_thread():
            _yielding -= 1
        if _holds == 0 and _was_enabled:
            gc.enable()


def holds() -> int:
    return _holds


def collect(generation: int, holders: int = 1) -> bool:
    """``gc.collect(generation)`` unless more than ``holders`` holds are on (the caller's
    own counted); False if it did not collect, and then the next hold that yields waits
    for the caller to try again. Atomic with ``hold``: a thread that asks for a hold
    meanwhile waits until the collection has ended, so a worker never starts a held
    section (an ODE step) while another thread collects."""
    global _wanted
    with _lock:
        if _holds > holders:
            # waited for only if every other hold yields (steps, which end soon); a hold
            # that does not (a file being parsed, an export) would keep them all waiting
            _wanted = _holds - _yielding <= holders
            if not _wanted:
                _collected.notify_all()
            return False
        _wanted = False
        try:
            gc.collect(generation)
        finally:
            _collected.notify_all()
        return True


def withdraw() -> None:
    """No collection is waited for any more (its caller stops collecting)."""
    global _wanted
    with _lock:
        _wanted = False
        _collected.notify_all()


@contextmanager
def paused(yield_to_collection: bool = False) -> Iterator[None]:
    hold(yield_to_collection)
    try:
        yield
    finally:
        release(yield_to_collection)
