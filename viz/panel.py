"""A titled frame around one exportable view, with a read-out line and a highlight."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget

from viz.text import FitLabel
from viz.theme import HIGHLIGHT

#: the smallest a view's panel gets before the grid of views scrolls instead: four across
#: fit beside the controls at 1280 × 800 (the neural ODE tab's bottom row)
MIN_WIDTH, MIN_HEIGHT = 214, 250


class ViewPanel(QFrame):
    """Frame = title + graphics view + read-out. ``graphics`` is what gets exported."""

    def __init__(self, graphics: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ViewPanel")
        self.graphics = graphics
        # a long title (or its translation) breaks over lines instead of widening the
        # panel's grid column or being cut; the font is set, not styled, so the
        # fitting measures the bold text that shows
        self.title = FitLabel("", max_lines=3, parent=self)
        self.title.setObjectName("ViewTitle")
        bold = self.title.font()
        bold.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(bold)
        # wraps over two lines, then elides with the whole text on hover
        self.readout = FitLabel(" ", max_lines=2, parent=self)
        self.readout.setObjectName("ViewReadout")
        self.readout.setStyleSheet("color: #444;")
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(self.readout.font().pointSizeF())
        self.readout.setFont(mono)      # set, not styled: the fitting measures this font
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(graphics, 1)
        layout.addWidget(self.readout)
        # below this a plot is no use (axes and labels eat it): the views' grid scrolls
        self.setMinimumSize(MIN_WIDTH, MIN_HEIGHT)
        self.set_highlighted(False)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit_minimum()
        return super().event(event)

    def _fit_minimum(self) -> None:
        """Never shorter than what title, plot and read-out need together: a plot that
        asks for more height (a legend moved below it) pushed the read-out under itself,
        since an explicit minimum size overrides the layout's."""
        need = max(MIN_HEIGHT, self.layout().minimumSize().height())
        if self.minimumHeight() != need:
            self.setMinimumHeight(need)

    def set_title(self, text: str) -> None:
        self.title.set_text(text)

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
