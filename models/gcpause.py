"""Pausing Python's automatic garbage collection, counted across its users.

Automatic collection runs on whichever thread happens to allocate. Two places pause it
while worker threads run native code that must not be interrupted by a collection on
another thread (the CPU profiler's parser in ``models.efficient_attention.cost``; ODE solves in the
neural-ODE tab). The file loaders (``load_graph``, ``load_points_csv``) pause it while they
parse: millions of new objects, none in a cycle, that a collection would walk while holding
the interpreter (and the window) for seconds. Each pauses with ``hold()`` and ends with ``release()``; collection comes
back when the last holder releases, and only if it was on before the first hold, so one
user's release never switches it on under another's feet.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holds = 0
_was_enabled = False


def hold() -> None:
    global _holds, _was_enabled
    with _lock:
        if _holds == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holds += 1


def release() -> None:
    """End one hold (a release without a hold does nothing)."""
    global _holds
    with _lock:
        if _holds == 0:
            return
        _holds -= 1
        if _holds == 0 and _was_enabled:
            gc.enable()


def holds() -> int:
    return _holds


@contextmanager
def paused() -> Iterator[None]:
    hold()
    try:
        yield
    finally:
        release()
