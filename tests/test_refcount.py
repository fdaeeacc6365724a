"""Regression test for PySide6 6.12.0 on Python < 3.12: every void Qt call took a
reference from None and every Signal.emit() one from True, until the process aborted
with "Fatal Python error: none_dealloc" / "bool_dealloc" after a few thousand calls.
The constraints pin 6.11.x; this test fails if a bad build sneaks back in."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

CALLS = 5000
#: Other threads (and the interpreter) move these counts a little; the bug moves them
#: by exactly one per call.
SLACK = 500


class _Emitter(QObject):
    fired = Signal(bool)


def test_void_calls_do_not_steal_references_from_none(qapp):
    obj = QObject()
    before = sys.getrefcount(None)
    for i in range(CALLS):
        obj.setObjectName("n" if i % 2 else "m")   # a void C++ call
    after = sys.getrefcount(None)
    assert after - before > -SLACK, f"None lost {before - after} references in {CALLS} calls"


def test_signal_emits_do_not_steal_references_from_true(qapp):
    emitter = _Emitter()
    received = []
    emitter.fired.connect(received.append)
    before_true = sys.getrefcount(True)
    before_none = sys.getrefcount(None)
    for _ in range(CALLS):
        emitter.fired.emit(True)
    assert len(received) == CALLS
    received.clear()
    assert sys.getrefcount(True) - before_true > -SLACK
    assert sys.getrefcount(None) - before_none > -SLACK
