"""pyqtgraph's plots without their hidden "Plot Options" widgets.

Every ``pg.PlotItem`` (and so every ``PlotWidget``, ``addPlot`` and ``ColorBarItem``)
builds a form of 44 Qt widgets (check boxes, radio buttons, spin boxes, sliders, a list)
for its right-click "Plot Options" menu, and keeps its settings (grid, log axes,
downsampling, alpha, ...) in those widgets' states. ArchScope turns that menu off on
every plot: the form is never shown, yet the 110 plots of a window with every tab open
held some 30 MB of it and spent 1.5-2 ms each building it.

``install()`` (called by ``viz/__init__``) gives ``PlotItem`` a form of the same names
whose controls hold only their state: a check box its checked flag, a spin box or
slider its value and range, the list its items, each with the signal PlotItem connects
to (``toggled``, ``valueChanged``, ``itemClicked``), emitted as Qt emits them (on a
change only; an auto-exclusive radio button unchecks its siblings first). The six
groups the menu holds stay (empty) widgets, as the menu needs widgets. So everything
PlotItem does with its settings (``showGrid``, ``setLogMode``, ``setDownsampling``,
``setClipToView``, alpha, FFT, averaging) behaves as before; only a plot whose menu a
user could open would show empty option groups, and no plot of ArchScope has one; and
``PlotItem.saveState``/``restoreState`` (which read the form's widgets through a
``WidgetGroup``) no longer carry these settings: ArchScope calls neither.

``tests/test_light_plot.py`` checks the form against pyqtgraph's (every control
PlotItem names, their defaults) and plots made with each, call for call and pixel for
pixel.
"""

from __future__ import annotations

import importlib
import inspect
import types

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

__all__ = ["LightForm", "install", "installed"]

#: the versions this patch of pyqtgraph's internals was written and checked against
#: (``tests/test_patches.py`` fails on another)
WRITTEN_FOR = {"pyqtgraph": "0.14.0"}

_PLOT_MODULE = "pyqtgraph.graphicsItems.PlotItem.PlotItem"


def _arity(slot) -> int | None:
    """How many positional arguments ``slot`` takes (None: any number)."""
    try:
        params = inspect.signature(slot).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class _Signal:
    """The ``connect``/``disconnect``/``emit`` of a Qt signal, for plain objects. As Qt
    does, a slot that takes fewer arguments than the signal carries gets the first ones
    (``toggled.connect(plot.updateLogMode)``, which takes none)."""

    __slots__ = ("_slots",)

    def __init__(self) -> None:
        self._slots: list = []

    def connect(self, slot) -> None:
        self._slots.append((slot, _arity(slot)))

    def disconnect(self, slot=None) -> None:
        if slot is None:
            self._slots.clear()
        else:
            self._slots.remove(next(s for s in self._slots if s[0] == slot))

    def emit(self, *args) -> None:
        for slot, n in tuple(self._slots):
            slot(*(args if n is None else args[:n]))


class _Check:
    """A check box, a radio button (``siblings``: the buttons it is exclusive with) or a
    checkable group's checked state."""

    def __init__(self, checked: bool = False, siblings: list | None = None) -> None:
        self._checked = bool(checked)
        self._siblings = siblings
        self._enabled = True
        self.toggled = _Signal()
        if siblings is not None:
            siblings.append(self)

    def isChecked(self) -> bool:  # noqa: N802 - Qt's names, as PlotItem calls them
        return self._checked

    def setChecked(self, checked: bool) -> None:  # noqa: N802
        checked = bool(checked)
        if checked == self._checked:
            return
        if not checked and self._siblings is not None:
            return                  # Qt: the checked radio button of a group stays checked
        self._checked = checked
        if checked and self._siblings is not None:
            for other in self._siblings:
                if other is not self and other._checked:
                    other._checked = False
                    other.toggled.emit(False)
        self.toggled.emit(checked)

    def setEnabled(self, enabled: bool) -> None:  # noqa: N802
        self._enabled = bool(enabled)

    def isEnabled(self) -> bool:  # noqa: N802
        return self._enabled


class _Value:
    """A spin box's or a slider's value in [minimum, maximum]."""

    def __init__(self, value: int, minimum: int, maximum: int) -> None:
        self._min, self._max = int(minimum), int(maximum)
        self._value = min(max(int(value), self._min), self._max)
        self._enabled = True
        self.valueChanged = _Signal()

    def value(self) -> int:
        return self._value

    def setValue(self, value) -> None:  # noqa: N802
        value = min(max(int(value), self._min), self._max)
        if value != self._value:
            self._value = value
            self.valueChanged.emit(value)

    def minimum(self) -> int:
        return self._min

    def maximum(self) -> int:
        return self._max

    def setEnabled(self, enabled: bool) -> None:  # noqa: N802
        self._enabled = bool(enabled)

    def isEnabled(self) -> bool:  # noqa: N802
        return self._enabled


class _List:
    """The averaging parameters' list: ``QListWidgetItem``s, no widget."""

    def __init__(self) -> None:
        self._items: list = []
        self.itemClicked = _Signal()

    def clear(self) -> None:
        self._items.clear()

    def addItem(self, item) -> None:  # noqa: N802
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def item(self, row: int):
        return self._items[row] if 0 <= row < len(self._items) else None

    def findItems(self, text: str, flags=Qt.MatchFlag.MatchExactly) -> list:  # noqa: N802
        if flags != Qt.MatchFlag.MatchExactly:
            raise NotImplementedError("only exact matches, as PlotItem asks")
        return [i for i in self._items if i.text() == text]


class _Group(QWidget):
    """One of the menu's six groups: an empty widget (the menu takes widgets), with the
    checked state of a checkable group box."""

    def __init__(self, checked: bool = True) -> None:
        super().__init__()
        self._check = _Check(checked)
        self.toggled = self._check.toggled

    def isChecked(self) -> bool:  # noqa: N802
        return self._check.isChecked()

    def setChecked(self, checked: bool) -> None:  # noqa: N802
        self._check.setChecked(checked)


class LightForm:
    """pyqtgraph's ``plotConfigTemplate`` ``Ui_Form``, state only, with its defaults."""

    def setupUi(self, form: QWidget) -> None:  # noqa: N802 - the generated form's name
        del form                                 # nothing is laid out
        self.averageGroup = _Group(checked=False)
        self.avgParamList = _List()
        self.decimateGroup = _Group()
        self.clipToViewCheck = _Check()
        self.maxTracesCheck = _Check()
        self.downsampleCheck = _Check()
        radios: list = []
        self.peakRadio = _Check(True, radios)
        self.meanRadio = _Check(False, radios)
        self.subsampleRadio = _Check(False, radios)
        self.maxTracesSpin = _Value(0, 0, 99)
        self.forgetTracesCheck = _Check()
        self.autoDownsampleCheck = _Check(True)
        self.downsampleSpin = _Value(1, 1, 100000)
        self.transformGroup = _Group()
        self.logXCheck = _Check()
        self.derivativeCheck = _Check()
        self.phasemapCheck = _Check()
        self.fftCheck = _Check()
        self.logYCheck = _Check()
        self.subtractMeanCheck = _Check()
        self.pointsGroup = _Group(checked=True)
        self.autoPointsCheck = _Check(True)
        self.gridGroup = _Group()
        self.xGridCheck = _Check()
        self.yGridCheck = _Check()
        self.gridAlphaSlider = _Value(128, 0, 255)
        self.alphaGroup = _Group(checked=True)
        self.autoAlphaCheck = _Check(False)
        self.alphaSlider = _Value(1000, 0, 1000)


def installed() -> bool:
    """Whether PlotItems are built with ``LightForm``."""
    module = importlib.import_module(_PLOT_MODULE)
    return getattr(module.ui_template, "Ui_Form", None) is LightForm


def install() -> bool:
    """PlotItems built from now on get ``LightForm``; True if this call installed it."""
    if installed():
        return False
    module = importlib.import_module(_PLOT_MODULE)
    module.ui_template = types.SimpleNamespace(Ui_Form=LightForm,
                                               original=module.ui_template)
    return True
