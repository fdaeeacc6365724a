"""The monkey's actions (see ``tests.monkey``): each ``plan_<kind>`` picks a target and
its values with the seeded generator and returns ``(detail, do)``, or None when the
current tab has no such target; ``step`` logs the detail (flushed: a crash still leaves
it), does it, answers the dialogs and lets the event loop run a little."""

from __future__ import annotations

import random
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QInputMethodEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QScrollBar,
    QSlider,
    QTabBar,
    QWidget,
)

#: how often each kind of action is chosen (relative weights)
WEIGHTS = {"tab": 7, "button": 18, "train": 6, "combo": 12, "spin_edge": 7, "spin_type": 7,
           "slider": 5, "line_edit": 3, "view_mouse": 10, "open_file": 7, "export_figure": 3,
           "export_data": 3, "language": 2, "device": 2, "menu": 2, "resize": 1, "wait": 5,
           "save_session": 2, "open_session": 3}
#: what a clumsy user types into a number field
TYPED_NUMBERS = ("0", "-1", "-0", "1e308", "1e-320", "99999999999", "nan", "inf", "-inf",
                 "abc", "", " ", "1,5", "0x10", "½", "２５６")


def run_events(ms: int) -> None:
    """Let the event loop run ``ms`` milliseconds the way the app's own loop does.

    Not ``QTest.qWait``: PySide6 keeps the GIL through its sleeps, so every worker thread
    (the torch import, training) waits for it; the window came up with torch 27-57 s late
    instead of ~7 s (and not within 180 s on a loaded CI). ``QEventLoop.exec`` lets go."""
    loop = QEventLoop()
    QTimer.singleShot(max(0, int(ms)), loop.quit)
    loop.exec()
#: ... and into a text field
TYPED_TEXTS = ("", " ", "0", "-1", "1e308", "nan", "注意力 是 你 所 需要 的", "😀 emoji",
               "<b>bold</b> &amp;", "../../etc/passwd", "%s {0} {} %n", "a b c d e f g h i j",
               "x" * 400, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24")
#: devices a user may ask for; only some exist on a given machine
DEVICES = ("cpu", "cuda", "cuda:0", "cuda:3", "mps", "xpu")

Plan = tuple[str, Callable[[], object]] | None


def type_text(w: QWidget, text: str) -> None:
    """Type ``text`` into ``w`` as a person does: key presses for ASCII, the input
    method's commit (how Chinese and emoji arrive) for the rest."""
    run = ""
    for ch in text + "\0":
        if ch != "\0" and ch.isascii():
            run += ch
            continue
        if run:
            QTest.keyClicks(w, run)
            run = ""
        if ch != "\0":
            target = w.lineEdit() if isinstance(w, QAbstractSpinBox) else w
            event = QInputMethodEvent()
            event.setCommitString(ch)
            QApplication.sendEvent(target, event)


def _usable(w: QWidget) -> bool:
    return w.isVisible() and w.isEnabled()


def _internal(w: QWidget) -> bool:
    """A part of another control (a spin box's or combo's line edit, a tab bar's or
    scroll bar's arrows), not a control of its own."""
    parent = w.parentWidget()
    while parent is not None:
        if isinstance(parent, (QAbstractSpinBox, QComboBox, QTabBar, QScrollBar)):
            return True
        parent = parent.parentWidget() if not parent.isWindow() else None
    return False


def name_of(w: QWidget) -> str:
    """The control's object name, else the label a person reads beside it, else its text."""
    name = w.objectName()
    if name and not name.startswith("qt_"):
        return name
    parent = w.parentWidget()
    label = getattr(parent, "label", None)            # a SliderField's label
    if isinstance(label, QLabel) and label.text():
        return repr(label.text()[:40])
    layout = parent.layout() if parent is not None else None
    if isinstance(layout, QFormLayout):
        buddy = layout.labelForField(w)
        if isinstance(buddy, QLabel) and buddy.text():
            return repr(buddy.text()[:40])
    text = getattr(w, "text", None)
    if callable(text) and not isinstance(w, QAbstractSpinBox):
        text = text()
        if text:
            return repr(text[:40])
    return type(w).__name__


class Monkey:
    def __init__(self, window, watch, seed: int, out_dir, log=None) -> None:
        self.window, self.watch = window, watch
        self.out_dir = Path(out_dir)              # where exports go (never the user's home)
        self.seed = seed
        self.rng = random.Random(seed)
        self.log = log
        self.index = -1
        self.counts: Counter[str] = Counter()
        self.recent: list[str] = []
        watch.note = self.note
        self._kinds = list(WEIGHTS)
        self._weights = [WEIGHTS[k] for k in self._kinds]

    # -- the log -------------------------------------------------------------------------------------
    def note(self, text: str) -> None:
        line = f"{self.index}\t{text}"
        self.recent = (self.recent + [line])[-60:]
        if self.log is not None:
            self.log.write(line + "\n")
            self.log.flush()

    # -- one step ------------------------------------------------------------------------------------
    def step(self, index: int) -> None:
        self.index = index
        self.watch.action = index
        kind = self.rng.choices(self._kinds, self._weights)[0]
        plan = getattr(self, f"plan_{kind}")()
        if plan is None:
            kind, plan = "wait", self.plan_wait()
        detail, do = plan
        tab = self.window.current_tab().key
        self.watch.action_text = f"[{tab}] {kind} {detail}"
        self.note(f"[{tab}] {kind}\t{detail}")
        self.counts[kind] += 1
        try:
            do()
        except Exception:  # noqa: BLE001 - an exception out of a user action is a failure
            self.watch.add("action raised", traceback.format_exc())
        self.answer()
        run_events(self.rng.randint(5, 60))
        self.answer()

    def answer(self) -> None:
        self.watch.answer_dialogs()

    def settle(self, ms: int = 500) -> None:
        run_events(ms)
        self.answer()

    # -- targets -----------------------------------------------------------------------------------
    def _tab(self):
        return self.window.current_tab()

    def _controls(self, cls) -> list:
        return [w for w in self._tab().findChildren(cls) if _usable(w) and not _internal(w)]

    def _pick(self, items: list):
        return self.rng.choice(items) if items else None

    # -- the actions ---------------------------------------------------------------------------------
    def plan_tab(self) -> Plan:
        tabs = self.window.tabs_widget
        i = self.rng.randrange(tabs.count())

        def do() -> None:
            bar = tabs.tabBar()
            rect = bar.tabRect(i)
            if bar.rect().contains(rect.center()):
                QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=rect.center())
            tabs.setCurrentIndex(i)      # a tab scrolled out of the bar: through its arrows
        # the key from the tab list: ``window.tabs`` would build every tab and bring each
        # one behind up to the language, work of the harness counted as the app's stall
        return self.window.specs[i].key, do

    def plan_button(self) -> Plan:
        b = self._pick(self._controls(QAbstractButton))
        if b is None:
            return None
        if isinstance(b, (QCheckBox, QRadioButton)):
            return f"{name_of(b)} (was {'on' if b.isChecked() else 'off'})", b.click
        return name_of(b), lambda: QTest.mouseClick(b, Qt.MouseButton.LeftButton)

    def plan_train(self) -> Plan:
        b = getattr(self._tab(), "train_button", None)
        if b is None or not _usable(b):
            return None
        return repr(b.text()), lambda: QTest.mouseClick(b, Qt.MouseButton.LeftButton)

    def plan_combo(self) -> Plan:
        combos = self._controls(QComboBox)
        if self.window.device_combo.isEnabled():
            combos.append(self.window.device_combo)
        c = self._pick(combos)
        if c is None or c.count() == 0:
            return None
        i = self.rng.randrange(c.count())

        def do() -> None:
            c.setCurrentIndex(i)
            c.activated.emit(i)
        return f"{name_of(c)} = {c.itemText(i)!r}", do

    def plan_spin_edge(self) -> Plan:
        s = self._pick(self._controls(QAbstractSpinBox))
        if s is None or not hasattr(s, "minimum"):
            return None
        lo, hi = s.minimum(), s.maximum()
        roll = self.rng.random()
        if roll < 0.6:
            value = lo if self.rng.random() < 0.5 else hi
            return f"{name_of(s)} = {value} (an end)", lambda: s.setValue(value)
        if roll < 0.8:
            key = self.rng.choice([Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Up,
                                   Qt.Key.Key_Down])
            return f"{name_of(s)} key {key.name}", lambda: QTest.keyClick(s, key)
        if isinstance(s, QDoubleSpinBox):
            value = self.rng.uniform(lo, hi)
        else:
            value = self.rng.randint(int(lo), int(hi))
        return f"{name_of(s)} = {value}", lambda: s.setValue(value)

    def plan_spin_type(self) -> Plan:
        s = self._pick(self._controls(QAbstractSpinBox))
        if s is None or not hasattr(s, "maximum"):
            return None
        hi, lo = s.maximum(), s.minimum()
        text = self.rng.choice(TYPED_NUMBERS + (f"{hi * 10:g}", f"{lo - 1:g}", f"{hi + 1:g}"))

        def do() -> None:
            s.lineEdit().selectAll()
            type_text(s, text)
            QTest.keyClick(s, Qt.Key.Key_Return)
        return f"{name_of(s)} typed {text!r}", do

    def plan_slider(self) -> Plan:
        s = self._pick(self._controls(QSlider))
        if s is None:
            return None
        lo, hi = s.minimum(), s.maximum()
        if self.rng.random() < 0.5:
            key = self.rng.choice([Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_PageUp,
                                   Qt.Key.Key_PageDown])
            return f"{name_of(s.parentWidget())} slider key {key.name}", \
                lambda: QTest.keyClick(s, key)
        path = [self.rng.randint(lo, hi) for _ in range(self.rng.randint(1, 8))]
        path[-1] = self.rng.choice([lo, hi, path[-1]])

        def do() -> None:                         # a drag: pressed, moved, released
            s.setSliderDown(True)
            for v in path:
                s.setSliderPosition(v)
                QApplication.processEvents()
            s.setSliderDown(False)
        return f"{name_of(s.parentWidget())} slider dragged to {path}", do

    def plan_line_edit(self) -> Plan:
        e = self._pick([w for w in self._controls(QLineEdit) if not w.isReadOnly()])
        if e is None:
            return None
        text = self.rng.choice(TYPED_TEXTS)

        def do() -> None:
            e.selectAll()
            type_text(e, text)
            QTest.keyClick(e, Qt.Key.Key_Return)
        return f"{name_of(e)} typed {text[:40]!r}{'…' if len(text) > 40 else ''}", do

    def plan_view_mouse(self) -> Plan:
        views = [v for v in self._tab().views if v.panel.graphics.isVisible()]
        if not views:
            return None
        v = self.rng.choice(views)
        vp = v.panel.graphics.viewport()
        w, h = max(1, vp.width()), max(1, vp.height())

        def at() -> QPoint:
            return QPoint(self.rng.randrange(w), self.rng.randrange(h))

        p, q = at(), at()
        gesture = self.rng.choices(["click", "right", "double", "drag", "wheel", "hover"],
                                   [45, 8, 10, 22, 10, 5])[0]
        left, right = Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton
        mods = self.rng.choice([Qt.KeyboardModifier.NoModifier] * 4
                               + [Qt.KeyboardModifier.ShiftModifier,
                                  Qt.KeyboardModifier.ControlModifier])

        def do() -> None:
            if gesture == "click":
                QTest.mouseClick(vp, left, mods, p)
            elif gesture == "right":
                QTest.mouseClick(vp, right, mods, p)
            elif gesture == "double":
                QTest.mouseDClick(vp, left, mods, p)
            elif gesture == "hover":
                QTest.mouseMove(vp, p)
            elif gesture == "drag":
                QTest.mousePress(vp, left, mods, p)
                for k in range(1, 7):
                    QTest.mouseMove(vp, p + (q - p) * (k / 6))
                    QApplication.processEvents()
                QTest.mouseRelease(vp, left, mods, q)
            else:
                delta = self.rng.choice([120, -120, 960, -960])
                event = QWheelEvent(QPointF(p), QPointF(vp.mapToGlobal(p)), QPoint(0, 0),
                                    QPoint(0, delta), Qt.MouseButton.NoButton, mods,
                                    Qt.ScrollPhase.NoScrollPhase, False)
                QApplication.sendEvent(vp, event)
        return f"{v.key} {gesture} at ({p.x()}, {p.y()})" + (
            f" to ({q.x()}, {q.y()})" if gesture == "drag" else ""), do

    def plan_open_file(self) -> Plan:
        if not self.window.act_open.isEnabled():
            return None
        return "File → Open…", self.window.act_open.trigger

    def plan_export_figure(self) -> Plan:
        from PySide6.QtWidgets import QDialogButtonBox

        rng = self.rng
        by_width = rng.random() < 0.7
        width = rng.choice([16, 20000, rng.randint(16, 3000), rng.randint(16, 3000)])
        scale = rng.choice([0.25, 16.0, round(rng.uniform(0.25, 4.0), 2)])
        ext = rng.choice([".png", ".png", ".svg", ".pdf", ".bmp", ""])
        browse, accept = rng.random() < 0.3, rng.random() < 0.85
        pick = rng.random()

        def do() -> None:
            dialog = self.window.export_figure_dialog()
            dialog.view.setCurrentIndex(int(pick * dialog.view.count()))
            dialog.size_by.setCurrentIndex(0 if by_width else 1)
            dialog.width.setValue(width)
            dialog.scale.setValue(scale)
            if browse:
                next(b for b in dialog.findChildren(QAbstractButton)
                     if b.parent() is not dialog.findChild(QDialogButtonBox)).click()
            else:
                stem = Path(dialog.path.text()).stem
                dialog.path.setText(str(self.out_dir / (stem + ext)))
            self.note(f"  export figure: view {dialog.view.currentData()!r}, "
                      f"{'width ' + str(width) if by_width else 'scale ' + str(scale)}, "
                      f"{dialog.path.text()}, {'Save' if accept else 'Cancel'}")
            (dialog.accept if accept else dialog.reject)()
        return "File → Export figure…", do

    def plan_save_session(self) -> Plan:
        """File → Save session (this tab) or Save all tabs; the dialog answers with a
        path in the run's folder, so a later Open session may read it back."""
        w = self.window
        name, act = self.rng.choice([("File → Save session…", w.act_save_session),
                                     ("File → Save all tabs…", w.act_save_all)])
        return name, act.trigger

    def plan_open_session(self) -> Plan:
        """File → Open session, answered with a session saved in this run or a hostile
        one (tests/data/hostile_sessions.py), now and then any file."""
        return "File → Open session…", self.window.act_open_session.trigger

    def plan_export_data(self) -> Plan:
        return "File → Export data…", self.window.export_data_dialog

    def plan_language(self) -> Plan:
        code = self.rng.choice(list(self.window.lang_actions))
        return code, self.window.lang_actions[code].trigger

    def plan_device(self) -> Plan:
        name = self.rng.choice(DEVICES)
        return name, lambda: self.window.set_device(name)

    def plan_menu(self) -> Plan:
        w = self.window
        name, act = self.rng.choice([("Help → About", w.act_about),
                                     ("View → Guided tour panel", w.act_tour),
                                     ("View → Toolbar", w.act_toolbar),
                                     ("View → Reset zoom", w.act_autorange)])
        return name, act.trigger

    def plan_resize(self) -> Plan:
        size = (self.rng.randint(300, 1900), self.rng.randint(200, 1200))
        return f"{size[0]}×{size[1]}", lambda: self.window.resize(*size)

    def plan_wait(self) -> Plan:
        ms = self.rng.randint(100, 1500)
        return f"{ms} ms", lambda: run_events(ms)
