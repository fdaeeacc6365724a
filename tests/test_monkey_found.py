"""Bugs the monkey (tests/monkey.py) found, each kept from coming back."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent

from app.i18n import Translations
from app.mainwindow import MainWindow
from app.settings import Settings
from tests.windows import open_tab


def test_a_language_switch_just_before_the_window_goes_leaves_no_late_callback(qtbot,
                                                                               tmp_path):
    """A switch of language asks the tab on screen to fit its controls column after the
    event loop's turn; closing and deleting the window in the same turn ran that call on
    a deleted widget ("Internal C++ object (QScrollArea) already deleted" from
    ``fit_controls``, an uncaught exception at quit). pytest-qt fails a test on an
    exception raised in a Qt callback."""
    translations = Translations()
    win = MainWindow(Settings(str(tmp_path / "s")), translations, start_loader=False)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.set_language("zh_CN")
        tab = win.current_tab()
        tab.when_shown(lambda: tab.fit_controls(), key="late")   # shown: runs now
        win.tabs_widget.setCurrentIndex(1)
        win.tabs[0].when_shown(win.tabs[0].fit_controls, key="late")
        win.tabs_widget.setCurrentIndex(0)     # shown again: queued after this turn
        win.close()
        win.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()
        qtbot.wait(50)
    finally:
        translations.set_language("en")


def test_an_answered_error_dialog_is_freed(qtbot):
    """Every error dialog stayed a hidden child of the window once answered, with its
    text and widgets: 0.2 MB each, hundreds over a long session of refused files
    (about 150 in the monkey's 2,000 actions)."""
    from PySide6.QtWidgets import QMessageBox, QWidget
    from shiboken6 import isValid

    from app.errors import ExceptHooks, show_error
    from models.errors import ModelFileError

    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    boxes = [show_error(parent, ModelFileError(f"model{i}.pt: refused")) for i in range(5)]
    assert all(b.isVisible() for b in boxes)
    for b in boxes:
        b.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not parent.findChildren(QMessageBox), timeout=3000)
    assert not any(isValid(b) for b in boxes)
    # the hooks' own list of open dialogs copes with dialogs already gone
    hooks = ExceptHooks(parent)
    hooks.dialogs = list(boxes)
    hooks._show(RuntimeError("late"), "details")
    assert len(hooks.dialogs) == 1 and hooks.dialogs[0].isVisible()
    hooks.dialogs[0].close()


def test_a_new_flow_model_is_made_off_the_gui_thread(qtbot, window):
    """Choosing a density not shown before, with 32 layers of 512 units, froze the window
    2-4 s (the monkey's stall): the model and the density's entropy were made on the GUI
    thread. They are made in the worker now; the model is kept once its trace is shown."""
    from tests.heartbeat import Heartbeat

    tab = open_tab(qtbot, window, "flows")
    window.tabs_widget.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.result is not None, timeout=30_000)
    tab.view_form.set_values({"points": 500, "grid": False})    # less to draw
    before = len(tab.sessions)
    with Heartbeat() as beat:
        tab.model_form.set_values({"density": "rings", "layers": 32, "hidden": 512})
        tab._model_changed()
        qtbot.waitUntil(lambda: tab._session_key() in tab.sessions
                        and tab.result.trace.points.shape[0] == 33, timeout=300_000)
    # the GUI thread's own part (less its wait for a CPU on this shared machine): drawing
    # 33 layers of points stays; the model (2 s) and the entropy (1.6 s) went
    assert beat.longest_own_ms < 1000, beat.report()
    assert len(tab.sessions) == before + 1 and not tab._made
    assert tab.sessions[tab._session_key()].step == 0


def test_cyclic_garbage_is_collected_on_the_gui_thread_only(qtbot, tmp_path):
    """The monkey's two crashes: a segmentation fault in ``paintEvent`` while a flows or
    ODE job trained. Automatic collection ran on whichever thread allocated, mostly the
    workers, and freed the GUI's cyclic garbage (pyqtgraph items and their Qt objects)
    there while the GUI thread painted. With a window open, collection happens on the GUI
    thread only; closing the window gives automatic collection back."""
    import gc
    import threading

    was = gc.isenabled()
    win = MainWindow(Settings(str(tmp_path / "s")), Translations(), start_loader=False)
    qtbot.addWidget(win)
    where: list[str] = []

    class Cycle:
        def __del__(self):
            where.append(threading.current_thread().name)

    kept: list = []

    def churn():                 # a worker allocating (and keeping) as a training step does
        kept.extend([] for _ in range(5000))

    gc.collect()
    a = Cycle()
    a.me = a                     # garbage only a collection frees
    del a
    worker = threading.Thread(target=churn, name="worker")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(where), timeout=5000)
    assert where == ["MainThread"]
    assert sum(win.collector.collections) >= 1
    win.close()
    assert gc.isenabled() == was
