"""Small control widgets: a slider bound to a spin box, optionally on a log scale."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QSlider, QWidget


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
