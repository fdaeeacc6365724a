"""viz.light_plot.LightForm against pyqtgraph's own "Plot Options" form: every control
PlotItem names, the same defaults, and plots that behave and draw alike."""

from __future__ import annotations

import importlib
import inspect
import re

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QGroupBox,
    QListWidget,
    QSpinBox,
    QWidget,
)

import viz  # noqa: F401 - installs the light form
from viz.light_plot import LightForm, installed

PLOT = importlib.import_module("pyqtgraph.graphicsItems.PlotItem.PlotItem")


def _real_form():
    form = PLOT.ui_template.original.Ui_Form()
    holder = QWidget()
    form.setupUi(holder)
    return form, holder


def _light_form():
    form = LightForm()
    form.setupUi(QWidget())
    return form


def _calls() -> set[tuple[str, str]]:
    """(control, method or signal) of every ``ctrl.X.y`` / ``c.X.y`` in PlotItem."""
    source = inspect.getsource(PLOT)
    return set(re.findall(r"\b(?:self\.ctrl|c)\.(\w+)\.(\w+)", source))


def test_plotitems_are_built_with_the_light_form(qapp):
    assert installed()
    plot = pg.PlotItem(enableMenu=False)
    assert isinstance(plot.ctrl, LightForm)


def test_every_control_plotitem_uses_is_there_with_what_it_calls(qapp):
    calls = _calls()
    assert len(calls) > 40                    # the pattern still finds PlotItem's uses
    light = _light_form()
    real, _holder = _real_form()
    for control, member in sorted(calls):
        assert hasattr(real, control), control       # the pattern reads real names
        assert hasattr(getattr(light, control), member), f"{control}.{member}"


def test_the_defaults_are_pyqtgraphs(qapp):
    light = _light_form()
    real, _holder = _real_form()
    checked = 0
    for name, widget in vars(real).items():
        if not isinstance(widget, QWidget) or not hasattr(light, name):
            continue
        mine = getattr(light, name)
        if isinstance(widget, QAbstractButton) or (isinstance(widget, QGroupBox)
                                                   and widget.isCheckable()):
            assert mine.isChecked() == widget.isChecked(), name
            checked += 1
        elif isinstance(widget, (QSpinBox, QAbstractSlider)):
            assert (mine.value(), mine.minimum(), mine.maximum()) == (
                widget.value(), widget.minimum(), widget.maximum()), name
            checked += 1
        elif isinstance(widget, QListWidget):
            assert mine.count() == widget.count() == 0
    assert checked >= 24
    # every control PlotItem uses exists in the light form
    used = {c for c, _ in _calls()}
    assert used <= set(vars(light))


def _drive(plot: pg.PlotItem) -> list:
    """The same calls on a plot; what it reports after each."""
    x = np.linspace(1, 50, 400)
    curve = plot.plot(x, np.sin(x) + 2, pen=pg.mkPen("b", width=2))
    states = []

    def state():
        states.append((plot.downsampleMode(), plot.clipToViewMode(), plot.alphaState(),
                       plot.getAxis("left").grid, plot.getAxis("bottom").grid,
                       dict((k, curve.opts[k]) for k in ("logMode", "fftMode", "downsample",
                                                         "autoDownsample", "clipToView",
                                                         "downsampleMethod", "alphaHint",
                                                         "alphaMode", "derivativeMode"))))

    state()
    plot.showGrid(x=True, y=True, alpha=0.3)
    state()
    plot.setLogMode(x=True, y=False)
    state()
    plot.setDownsampling(ds=4, auto=False, mode="mean")
    state()
    plot.setDownsampling(mode="subsample")
    state()
    plot.setDownsampling(ds=2, mode="peak")
    state()
    plot.setClipToView(True)
    state()
    plot.showGrid(x=False, alpha=0.8)
    state()
    plot.setLogMode(x=False, y=True)
    plot.ctrl.fftCheck.setChecked(True)
    state()
    plot.ctrl.fftCheck.setChecked(False)
    plot.ctrl.autoAlphaCheck.setChecked(True)
    plot.ctrl.alphaSlider.setValue(400)
    state()
    plot.ctrl.meanRadio.setChecked(False)     # a checked radio button cannot be unchecked
    plot.ctrl.peakRadio.setChecked(False)
    state()
    plot.plot(x, np.cos(x) + 3, pen="r")      # a second curve takes the plot's settings
    state()
    return states


def _image(plot: pg.PlotItem) -> np.ndarray:
    view = pg.GraphicsLayoutWidget()
    view.resize(320, 240)
    view.addItem(plot)
    plot.enableAutoRange()
    image = QImage(320, 240, QImage.Format.Format_ARGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    view.render(painter)
    painter.end()
    return np.frombuffer(image.constBits(), np.uint8).reshape(240, 320, 4).copy()


def test_a_plot_behaves_and_draws_as_with_pyqtgraphs_form(qapp, monkeypatch):
    light_plot = pg.PlotItem(enableMenu=False)
    light_states = _drive(light_plot)
    light_image = _image(light_plot)
    with monkeypatch.context() as patch:
        patch.setattr(PLOT, "ui_template", PLOT.ui_template.original)
        real_plot = pg.PlotItem(enableMenu=False)
    assert not isinstance(real_plot.ctrl, LightForm)
    real_states = _drive(real_plot)
    real_image = _image(real_plot)
    assert light_states == real_states
    assert light_states[0] != light_states[-1]          # the calls did change things
    assert np.array_equal(light_image, real_image)
    assert (light_image[..., :3] < 200).any()            # something was drawn


def test_signals_fire_on_changes_only_and_radio_buttons_are_exclusive():
    form = _light_form()
    seen = []
    form.xGridCheck.toggled.connect(lambda on: seen.append(("x", on)))
    form.peakRadio.toggled.connect(lambda on: seen.append(("peak", on)))
    form.meanRadio.toggled.connect(lambda on: seen.append(("mean", on)))
    form.downsampleSpin.valueChanged.connect(lambda v: seen.append(("ds", v)))
    form.xGridCheck.setChecked(False)            # no change: no signal
    form.xGridCheck.setChecked(True)
    form.meanRadio.setChecked(True)               # the sibling goes first, as in Qt
    form.downsampleSpin.setValue(0)               # clamped to the minimum (1): no change
    form.downsampleSpin.setValue(10 ** 7)         # clamped to the maximum
    assert seen == [("x", True), ("peak", False), ("mean", True), ("ds", 100000)]
    with pytest.raises(NotImplementedError):
        form.avgParamList.findItems("a", pg.QtCore.Qt.MatchFlag.MatchContains)
