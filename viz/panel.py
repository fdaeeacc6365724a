"""A titled frame around one exportable view, with a read-out line and a highlight."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from viz.text import FitLabel
from viz.theme import HIGHLIGHT


class ViewPanel(QFrame):
    """Frame = title + graphics view + read-out. ``graphics`` is what gets exported."""

    def __init__(self, graphics: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ViewPanel")
        self.graphics = graphics
        self.title = QLabel(self)
        self.title.setObjectName("ViewTitle")
        self.title.setStyleSheet("font-weight: 600;")
        # wraps over two lines, then elides with the whole text on hover
        self.readout = FitLabel(" ", max_lines=2, parent=self)
        self.readout.setObjectName("ViewReadout")
        self.readout.setStyleSheet("color: #444; font-family: monospace;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(graphics, 1)
        layout.addWidget(self.readout)
        self.set_highlighted(False)

    def set_title(self, text: str) -> None:
        self.title.setText(text)

    def set_readout(self, text: str) -> None:
        self.readout.set_text(text or " ")

    def set_highlighted(self, on: bool) -> None:
        colour = HIGHLIGHT if on else "#d0d0d0"
        width = 3 if on else 1
        self.setStyleSheet(f"QFrame#ViewPanel {{ border: {width}px solid {colour}; "
                           "border-radius: 4px; }")
        self._highlighted = on

    def is_highlighted(self) -> bool:
        return self._highlighted
