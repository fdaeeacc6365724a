"""Regression test for PySide6 6.12.0 on Python < 3.12: every void Qt call took a
reference from None and every Signal.emit() one from True, until the process aborted
with "Fatal Python error: none_dealloc" / "bool_dealloc" after a few thousand calls.
The constraints pin 6.11.x; this test fails if a bad build sneaks back in.

The loops run in a subprocess, so a build with the bug fails this test (drift, or the
abort) instead of killing the whole test session. Checked by hand: on 6.12.0 the
in-process version of this test failed and the interpreter then aborted (exit 134).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CALLS = 5000
#: The bug moves these counts by exactly one per call; the interpreter only a little.
SLACK = 500

SCRIPT = r"""
import json, sys
from PySide6.QtCore import QCoreApplication, QObject, Signal

class Emitter(QObject):
    fired = Signal(bool)

app = QCoreApplication([])
obj, emitter, received = QObject(), Emitter(), []
emitter.fired.connect(received.append)
n = int(sys.argv[1])
none0 = sys.getrefcount(None)
for i in range(n):
    obj.setObjectName("n" if i % 2 else "m")      # a void C++ call
none1 = sys.getrefcount(None)
true0 = sys.getrefcount(True)
for _ in range(n):
    emitter.fired.emit(True)
true1, none2 = sys.getrefcount(True), sys.getrefcount(None)
assert len(received) == n
print(json.dumps({"none_after_calls": none1 - none0, "true_after_emits": true1 - true0,
                  "none_after_emits": none2 - none1}))
"""


def test_void_calls_and_emits_keep_references_to_none_and_true():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(CALLS)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        f"the Qt loop died (exit {proc.returncode}); a PySide6 build with the None/True "
        f"reference leak? {proc.stderr[-500:]}")
    drift = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, value in drift.items():
        assert value > -SLACK, f"{name}: lost {-value} references in {CALLS} calls"
