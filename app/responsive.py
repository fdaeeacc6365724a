"""How often a busy worker thread hands the interpreter to the GUI thread.

CPython lets one thread run Python at a time. A thread that wants the interpreter while
another computes in Python waits up to ``sys.getswitchinterval()`` (5 ms by default)
before the other is asked to let go. The GUI thread wants it many times per frame: Qt
runs in C++ with the interpreter released and takes it back for every Python slot,
every ``paint``/``boundingRect`` of a pyqtgraph item, every overridden event handler.
With a worker parsing a file in Python (or running the Python parts of a training
loop), each of those waits a full interval: a frame of twenty such calls took
50–150 ms, and a 10 ms heartbeat on the window beat at a median of 50–65 ms while a
million points were read (``tests/test_open_in_background.py``; 320 ms at worst in a
long test process).

With a 1 ms interval the same measurement gives a median under 2 ms and a longest
stall of 22–33 ms; the workers lose almost nothing, since a hand-over costs
microseconds and happens only when the GUI thread is waiting (figures in
``benchmarks/bench_open.py --switch``).
"""

from __future__ import annotations

import sys

#: seconds a thread computing in Python may keep the interpreter from a waiting one
SWITCH_INTERVAL_S = 0.001


def share_the_interpreter(interval_s: float = SWITCH_INTERVAL_S) -> None:
    """Set the interpreter's switch interval for a window that must stay responsive
    while its workers compute (process-wide; call before the workers start)."""
    sys.setswitchinterval(interval_s)
