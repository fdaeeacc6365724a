"""No garbage collection while this tab's models run in a worker thread, step by step
(``models.gcpause`` counts the holds across their users).

A collection on the GUI thread while a worker was inside an ODE solve aborted the test
process now and then ("Fatal Python error" while "Garbage-collecting"). The tab used to
hold collection off for as long as any of its work ran: a training runs until stopped,
so for minutes nothing was collected anywhere in the app (every tab's cyclic garbage
piled up: the monkey's memory grew by hundreds of MB), and the collection when it ended
walked all of it on the GUI thread (1.2 s measured). Now each step holds it (a training
step, a trace, a comparison): between two steps the window's collector
(``app.memory.GuiCollector``) collects when it is due: a collection that a step blocked
is tried again within 20 ms, and the worker's next step waits for it
(``gcpause.hold(yield_to_collection=True)``, at most half a second).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from models import gcpause


def held(fn: Callable) -> Callable:
    """``fn`` with collection held off while it runs (a computation in a worker)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with gcpause.paused(yield_to_collection=True):
            return fn(*args, **kwargs)
    return call


def held_steps(make_gen: Callable[[], Iterator]) -> Iterator:
    """The items of ``make_gen()``, collection held off while each one is made (not
    while the job runner handles it)."""
    with gcpause.paused(yield_to_collection=True):
        items = iter(make_gen())
    try:
        while True:
            with gcpause.paused(yield_to_collection=True):
                try:
                    item = next(items)
                except StopIteration:
                    return
            yield item
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            with gcpause.paused():
                close()
