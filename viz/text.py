"""A label whose text always fits: wrapped over at most a few lines, the last one
elided with "…", and the whole text in its tooltip when anything was cut.

Used for read-outs under views, whose length depends on the data and the language
(a plain QLabel with an Ignored size policy cut them at the panel's edge)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy


def fit_lines(text: str, fm: QFontMetrics, width: int, max_lines: int) -> tuple[list[str], bool]:
    """``text`` broken at spaces into lines of at most ``width`` pixels, at most
    ``max_lines`` of them; returns (lines, whether something was elided)."""
    width = max(8, width)
    lines: list[str] = []
    for para in text.split("\n"):
        words = para.split(" ")
        line = ""
        for word in words:
            trial = f"{line} {word}" if line else word
            if fm.horizontalAdvance(trial) <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    cut = len(lines) > max_lines
    if cut:
        rest = " ".join(lines[max_lines - 1:])
        lines = lines[:max_lines - 1] + [rest]
    last = fm.elidedText(lines[-1], Qt.TextElideMode.ElideRight, width)
    cut = cut or last != lines[-1]
    lines[-1] = last
    # a single word wider than the line: elide it too
    for i, line in enumerate(lines[:-1]):
        if fm.horizontalAdvance(line) > width:
            lines[i] = fm.elidedText(line, Qt.TextElideMode.ElideRight, width)
            cut = True
    return lines, cut


class FitLabel(QLabel):
    """Plain text over at most ``max_lines`` lines of its width; the rest on hover."""

    def __init__(self, text: str = "", max_lines: int = 2, parent=None) -> None:
        super().__init__(parent)
        self._full = ""
        self.max_lines = max_lines
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

    def _refit(self) -> None:
        fm = QFontMetrics(self.font())
        width = self.contentsRect().width() if self.width() > 20 else 10_000
        lines, cut = fit_lines(self._full, fm, width, self.max_lines)
        shown = "\n".join(lines)
        if shown != QLabel.text(self):
            QLabel.setText(self, shown)
        self.setToolTip(self._full if cut else "")
        self.setProperty("archscope_elided", cut)
        height = fm.lineSpacing() * max(1, len(lines)) + 2
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)
