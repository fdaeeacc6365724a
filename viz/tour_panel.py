"""The guided-tour panel: one step at a time, Back / Next, "step k of n"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from viz.theme import muted_style


@dataclass(frozen=True)
class TourStepText:
    title: str
    body: str


class TourPanel(QWidget):
    """Shows the text of a step; the controller applies the step's view state.

    Signals:
        stepChanged(int): the index of the step now shown.
    """

    stepChanged = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("TourPanel")
        self.heading = QLabel(self)
        self.heading.setStyleSheet("font-weight: 600; font-size: 11pt;")
        self.counter = QLabel(self)
        self.counter.setStyleSheet(muted_style())
        self.step_title = QLabel(self)
        self.step_title.setWordWrap(True)
        self.step_title.setStyleSheet("font-weight: 600;")
        self.body = QTextBrowser(self)
        self.body.setOpenExternalLinks(False)
        self.body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.back_button = QPushButton(self)
        self.next_button = QPushButton(self)
        self.back_button.clicked.connect(self.back)
        self.next_button.clicked.connect(self.next)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.counter)
        buttons = QHBoxLayout()
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.step_title)
        layout.addWidget(self.body, 1)
        layout.addLayout(buttons)
        self._steps: list[TourStepText] = []
        self._index = 0
        self._counter_format = "{k} / {n}"
        self.set_labels("Guided tour", "Back", "Next", "Step {k} of {n}")

    def set_labels(self, heading: str, back: str, next_: str, counter_format: str) -> None:
        self.heading.setText(heading)
        self.back_button.setText(back)
        self.next_button.setText(next_)
        self._counter_format = counter_format
        self._refresh()

    def set_steps(self, steps: Sequence[TourStepText], keep_index: bool = True) -> None:
        self._steps = list(steps)
        if not keep_index or self._index >= len(self._steps):
            self._index = 0
        self._refresh()

    def index(self) -> int:
        return self._index

    def count(self) -> int:
        return len(self._steps)

    def go_to(self, index: int) -> None:
        if not self._steps:
            return
        self._index = max(0, min(index, len(self._steps) - 1))
        self._refresh()
        self.stepChanged.emit(self._index)

    def next(self) -> None:
        self.go_to(self._index + 1)

    def back(self) -> None:
        self.go_to(self._index - 1)

    def _refresh(self) -> None:
        n = len(self._steps)
        self.back_button.setEnabled(self._index > 0)
        self.next_button.setEnabled(self._index < n - 1)
        if not n:
            self.counter.setText("")
            self.step_title.setText("")
            self.body.setPlainText("")
            return
        step = self._steps[self._index]
        self.counter.setText(self._counter_format.format(k=self._index + 1, n=n))
        self.step_title.setText(step.title)
        self.body.setHtml(step.body)
