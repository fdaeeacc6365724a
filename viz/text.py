"""A label whose text always fits: wrapped over at most a few lines, the last one
elided with "…", and the whole text in its tooltip when anything was cut.

Used for read-outs under views, whose length depends on the data and the language
(a plain QLabel with an Ignored size policy cut them at the panel's edge)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QFontMetrics, QTextLayout, QTextOption
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QToolTip,
)


def _break(text: str, font: QFont, width: int) -> list[str]:
    """``text`` broken into lines of at most ``width`` pixels the way Qt breaks text:
    at spaces, and anywhere between CJK characters (Chinese has no spaces)."""
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    lines = []
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        lines.append(text[line.textStart(): line.textStart() + line.textLength()].rstrip())
    layout.endLayout()
    return lines or [""]


def fit_lines(text: str, font: QFont, width: int, max_lines: int) -> tuple[list[str], bool]:
    """``text`` broken into lines of at most ``width`` pixels, at most ``max_lines``
    of them, the last one elided; returns (lines, whether something was elided)."""
    width = max(8, width)
    fm = QFontMetrics(font)
    lines = [line for para in text.split("\n") for line in _break(para, font, width)]
    cut = len(lines) > max_lines
    if cut:
        lines = lines[:max_lines - 1] + [" ".join(lines[max_lines - 1:])]
    last = fm.elidedText(lines[-1], Qt.TextElideMode.ElideRight, width)
    cut = cut or last != lines[-1]
    lines[-1] = last
    return lines, cut


class FitLabel(QLabel):
    """Plain text over at most ``max_lines`` lines of its width; the rest on hover."""

    def __init__(self, text: str = "", max_lines: int = 2, parent=None,
                 min_lines: int = 1) -> None:
        super().__init__(parent)
        self._full = ""
        self.max_lines = max_lines
        #: lines of height kept even for a shorter text, so a row never jumps as it changes
        self.min_lines = min_lines
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setProperty("archscope_elided", False)
        self.set_text(text)

    def set_text(self, text: str) -> None:
        self._full = text or ""
        self._refit()

    def full_text(self) -> str:
        return self._full

    # the label's own API answers with the whole text; QLabel.text(label) is what shows
    def text(self) -> str:  # noqa: D102
        return self._full

    def setText(self, text: str) -> None:  # noqa: N802, D102
        self.set_text(text)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's API
        super().resizeEvent(event)
        self._refit()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's API
        super().changeEvent(event)
        # a style sheet's font arrives when the label is polished: measure that one
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._refit()

    def _refit(self) -> None:
        fm = QFontMetrics(self.font())
        width = self.contentsRect().width() if self.width() > 20 else 10_000
        lines, cut = fit_lines(self._full, self.font(), width, self.max_lines)
        shown = "\n".join(lines)
        if shown != QLabel.text(self):
            QLabel.setText(self, shown)
        self.setToolTip(self._full if cut else "")
        self.setProperty("archscope_elided", cut)
        # the lines' spacing plus the last line's descent room (underscores sit below it)
        height = fm.lineSpacing() * max(self.min_lines, len(lines)) + fm.descent() + 2
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)


class FitCombo(QComboBox):
    """A combo box whose shown choice is elided to its width ("…"), with the whole
    text on hover; the open list shows every choice whole. A long choice (a forward
    step's name, a method described in words) no longer runs past the arrow."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setProperty("archscope_elided", False)
        self.currentIndexChanged.connect(self._refit)

    def _field(self):
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        rect = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)
        return opt, rect

    def _shown(self) -> str:
        opt, rect = self._field()
        return self.fontMetrics().elidedText(opt.currentText, Qt.TextElideMode.ElideRight,
                                             max(8, rect.width()))

    def _refit(self, *_) -> None:
        self.setProperty("archscope_elided", self._shown() != self.currentText())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's API
        super().resizeEvent(event)
        self._refit()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's API
        painter = QStylePainter(self)
        opt, _rect = self._field()
        opt.currentText = self._shown()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.property("archscope_elided"):
            own = self.toolTip()
            QToolTip.showText(event.globalPos(), self.currentText() + (
                f"\n\n{own}" if own else ""), self)
            return True
        return super().event(event)

    def showPopup(self) -> None:  # noqa: N802 - Qt's API
        view = self.view()
        view.setMinimumWidth(max(self.width(), view.sizeHintForColumn(0) + 24))
        super().showPopup()
