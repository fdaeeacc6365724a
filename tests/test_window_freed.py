"""A closed window is freed, with its tabs, their models and traces.

A class made inside a method, once per window, kept every window alive: Shiboken keeps
every class it has seen for the life of the process, and the class's closure held the
window (a test run making hundreds of windows grew to 26 GB).

The check runs in a fresh interpreter: what earlier tests of a run leave behind (hooks,
windows of their own) is not the app's doing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r'''
import gc, sys, time, weakref
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

app = QApplication(["freed"])
from app.i18n import Translations
from app.mainwindow import MainWindow
from app.settings import Settings


def spin(until, seconds=120.0):
    end = time.monotonic() + seconds
    while not until():
        if time.monotonic() > end:
            sys.exit("timed out")
        app.processEvents()
        time.sleep(0.005)


def window():
    win = MainWindow(Settings(), Translations())
    win.resize(1200, 800)
    win.show()
    spin(lambda: win.torch_is_ready)
    return win


def close(win):
    win.close()
    win.deleteLater()


def collect():
    for _ in range(10):
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        time.sleep(0.02)
    gc.collect()


# the process's first window is frozen out of collection when torch is ready
# (app.memory.GuiCollector.freeze_startup, once per process): a second one is looked at
close(window())
collect()
win = window()
tabs = [win.tab(key) for key in ("positional", "flows", "meta")]
for tab in tabs:
    win.tabs_widget.setCurrentWidget(tab)
    spin(lambda: tab.trace is not None)
refs = [weakref.ref(win), *(weakref.ref(t) for t in tabs)]
del win, tabs, tab
close(refs[0]())
collect()
alive = [type(r()).__name__ for r in refs if r() is not None]
print("alive:", ",".join(alive) or "none")
'''


def test_a_closed_window_is_freed_with_its_tabs(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "ARCHSCOPE_SETTINGS_DIR": str(tmp_path / "settings")}
    env.pop("DISPLAY", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "alive: none" in done.stdout, done.stdout + done.stderr[-2000:]
