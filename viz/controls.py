"""Small control widgets: a slider bound to a spin box (optionally on a log scale), and a
form of parameter controls built from specs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QWidget,
)

from viz.text import FitCombo


class SliderField(QWidget):
    """A labelled slider and spin box that stay in step; emits ``valueChanged(float)``.

    ``step`` snaps values (d_model moves in steps of 2); ``log`` maps the slider
    logarithmically (for the base, 2 .. 10^6).
    """

    valueChanged = Signal(float)

    def __init__(self, minimum: float, maximum: float, value: float, step: float = 1.0,
                 decimals: int = 0, log: bool = False, parent=None) -> None:
        super().__init__(parent)
        self._min, self._max, self._step, self._log = minimum, maximum, step, log
        self.label = QLabel(self)
        self.label.setMinimumWidth(64)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, 1000 if log else int(round((maximum - minimum) / step)))
        self.spin = QDoubleSpinBox(self)
        self.spin.setDecimals(decimals)
        self.spin.setRange(minimum, maximum)
        self.spin.setSingleStep(step)
        self.spin.setKeyboardTracking(False)
        self.spin.setMinimumWidth(84)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)
        self._value = None
        self.setValue(value)

    def set_label(self, text: str) -> None:
        self.label.setText(text)

    def value(self) -> float:
        return self._value

    def set_maximum(self, maximum: float) -> None:
        self._max = maximum
        self.spin.setMaximum(maximum)
        if not self._log:
            self.slider.blockSignals(True)
            self.slider.setRange(0, int(round((maximum - self._min) / self._step)))
            self.slider.blockSignals(False)
        self.setValue(min(self._value, maximum))

    def setValue(self, value: float) -> None:  # noqa: N802 - Qt naming
        value = self._snap(value)
        if value == self._value:
            return
        self._value = value
        for w, v in ((self.slider, self._to_slider(value)), (self.spin, value)):
            w.blockSignals(True)
            w.setValue(v)
            w.blockSignals(False)
        self.valueChanged.emit(value)

    def problem(self, value: float) -> str | None:
        """Why ``value`` would not be taken as given (None if it would)."""
        if not self._min <= value <= self._max:
            return f"must be between {self._min:g} and {self._max:g}"
        if not self._log and abs(self._snap(value) - value) > 1e-9:
            return f"must be a multiple of {self._step:g} from {self._min:g}"
        return None

    def _snap(self, value: float) -> float:
        value = min(max(float(value), self._min), self._max)
        if self._log:
            return round(value, self.spin.decimals())
        return self._min + round((value - self._min) / self._step) * self._step

    def _to_slider(self, value: float) -> int:
        if self._log:
            lo, hi = math.log(self._min), math.log(self._max)
            return int(round(1000 * (math.log(value) - lo) / (hi - lo)))
        return int(round((value - self._min) / self._step))

    def _from_slider(self, pos: int) -> None:
        if self._log:
            lo, hi = math.log(self._min), math.log(self._max)
            self.setValue(math.exp(lo + (hi - lo) * pos / 1000))
        else:
            self.setValue(self._min + pos * self._step)

    def _from_spin(self, value: float) -> None:
        self.setValue(value)


@dataclass(frozen=True)
class Param:
    """One control of a ``ParamForm``: ``kind`` is "int", "float", "choice", "bool" or
    "text"; ``choices`` are the values of a choice (its shown texts are set by
    ``ParamForm.set_texts``)."""

    key: str
    kind: str
    default: object
    minimum: float = 0
    maximum: float = 1
    choices: tuple[str, ...] = ()
    step: float = 1.0
    decimals: int = 2


class ParamForm(QGroupBox):
    """A titled form of parameter controls built from ``Param`` specs.

    ``values()`` gives {key: value}; ``set_values(state)`` sets what it knows and
    returns the problems ("n must be between 8 and 1024") instead of clamping
    silently; ``changed`` fires on any edit.
    """

    changed = Signal()

    def __init__(self, params: Sequence[Param], parent=None) -> None:
        super().__init__(parent)
        self.params = {p.key: p for p in params}
        self.widgets: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        form = QFormLayout(self)
        for p in params:
            if p.kind == "int":
                w = QSpinBox()
                w.setRange(int(p.minimum), int(p.maximum))
                w.setSingleStep(int(p.step))
                w.setValue(int(p.default))
                w.setKeyboardTracking(False)
                w.valueChanged.connect(self.changed)
            elif p.kind == "float":
                w = QDoubleSpinBox()
                w.setDecimals(p.decimals)
                w.setRange(p.minimum, p.maximum)
                w.setSingleStep(p.step)
                w.setValue(float(p.default))
                w.setKeyboardTracking(False)
                w.valueChanged.connect(self.changed)
            elif p.kind == "choice":
                w = FitCombo()      # a long choice is elided, whole on hover
                w.addItems(list(p.choices))
                w.setCurrentIndex(p.choices.index(p.default))
                w.currentIndexChanged.connect(self.changed)
            elif p.kind == "bool":
                w = QCheckBox()
                w.setChecked(bool(p.default))
                w.toggled.connect(self.changed)
            else:
                w = QLineEdit(str(p.default))
                w.editingFinished.connect(self.changed)
            w.setObjectName(f"param_{p.key}")
            self.widgets[p.key] = w
            self.labels[p.key] = QLabel(p.key)
            form.addRow(self.labels[p.key], w)

    def values(self) -> dict:
        out = {}
        for key, p in self.params.items():
            w = self.widgets[key]
            if p.kind in ("int", "float"):
                out[key] = w.value()
            elif p.kind == "choice":
                out[key] = p.choices[max(0, w.currentIndex())]
            elif p.kind == "bool":
                out[key] = w.isChecked()
            else:
                out[key] = w.text()
        return out

    def set_values(self, state: dict) -> list[str]:
        """Set the controls named in ``state``; returns a sentence per value refused."""
        problems = []
        for key, value in state.items():
            p = self.params.get(key)
            if p is None:
                continue
            w = self.widgets[key]
            w.blockSignals(True)
            try:
                if p.kind in ("int", "float"):
                    number = float(value)
                    if not p.minimum <= number <= p.maximum:
                        problems.append(f"{key} must be between {p.minimum:g} and "
                                        f"{p.maximum:g}, got {value}.")
                        continue
                    w.setValue(int(number) if p.kind == "int" else number)
                elif p.kind == "choice":
                    if str(value) not in p.choices:
                        problems.append(f"{key} must be one of {', '.join(p.choices)}.")
                        continue
                    w.setCurrentIndex(p.choices.index(str(value)))
                elif p.kind == "bool":
                    w.setChecked(value if isinstance(value, bool)
                                 else str(value).lower() in ("1", "true", "yes", "on"))
                else:
                    w.setText(str(value))
            except (TypeError, ValueError):
                problems.append(f"{key}: '{value}' is not a valid value.")
            finally:
                w.blockSignals(False)
        return problems

    def set_texts(self, labels: dict[str, str], choices: dict[str, Sequence[str]]) -> None:
        """Translated row labels, and shown texts of the choices (in ``choices`` order)."""
        for key, text in labels.items():
            if key in self.labels:
                self.labels[key].setText(text)
        for key, texts in choices.items():
            combo = self.widgets.get(key)
            if isinstance(combo, QComboBox):
                for i, text in enumerate(texts):
                    combo.setItemText(i, text)

    def set_visible_rows(self, keys: set[str]) -> None:
        """Show only the rows in ``keys`` (the parameters that matter right now)."""
        for key in self.params:
            self.widgets[key].setVisible(key in keys)
            self.labels[key].setVisible(key in keys)
