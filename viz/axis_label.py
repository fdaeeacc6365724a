"""Axis labels that fit their axis: wrapped over as many lines as it takes.

pyqtgraph writes an axis's label on one line centred on the axis, however long it is;
a label longer than its axis ran past the plot into the view's edge and was cut there
(the graph tab's "PC 1 (32% of the variance)" lost its ")" in a 1280×800 window, the
spectrum's "eigenvalue of the normalised Laplacian" read "…normalised Lap", the zh
"损失 / 错误率（对数刻度）" lost its end). Here a label wider than its axis is wrapped to
the axis's length (between words, or between Chinese characters), its lines centred,
and the axis made thicker by the lines it took (pyqtgraph sizes an axis by its label's
height); a single word longer than the axis is set in a smaller type, down to
``MIN_POINT_SIZE``. The label is fitted again when the axis is resized or its text
changes, and centred again after a change of text (pyqtgraph centred it on resizes
only, so a new language's label sat where the old one started).

Log axes write their tick values in one notation: pyqtgraph formats each value with
"%0.1g", so one axis read "0.001", "0.0001", "10⁻⁵", "10⁻⁶" (the positional tab's
"Learning M_k"). Here an axis whose view reaches below 10⁻³ or above 10⁴ writes every
tick as a power of ten (2·10⁻⁵ for the in-between ones), and one inside that span writes
plain numbers, whatever level a tick belongs to (``log_tick_strings``).

``install()`` (called by ``viz.theme.apply``) patches ``pg.AxisItem`` once per process.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextDocument, QTextOption

__all__ = ["fit", "install", "log_tick_strings", "MIN_POINT_SIZE"]

#: pixels kept free at each end of the axis
PAD = 2
#: the smallest type a label is set in to fit an axis (points)
MIN_POINT_SIZE = 6.0
#: pixels an axis grows by before its wrapped label is fitted again (see ``fit``)
GROWTH = 12


def _length(axis: pg.AxisItem) -> float:
    size = axis.size()
    return size.height() if axis.orientation in ("left", "right") else size.width()


def _natural_width(label) -> float:
    """The label's width on one line, measured on a copy of its document made here and
    freed with it. (``document().clone()`` made a copy that its source kept: 17 KB each,
    71,000 of them, 1.1 GB after the 1,000-action monkey.)"""
    source = label.document()
    doc = QTextDocument()
    doc.setDefaultFont(source.defaultFont())
    doc.setDocumentMargin(source.documentMargin())
    doc.setHtml(source.toHtml())
    return doc.idealWidth()


def fit(axis: pg.AxisItem) -> bool:
    """Fit ``axis``'s label to its length; True when the label's thickness changed (the
    axis then needs sizing again)."""
    label = axis.label
    if label is None:
        return False
    room = _length(axis) - 2 * PAD
    if room <= 0:
        return False
    # a wrapped label kept while its axis grows by less than GROWTH: the lines it has
    # still fit. Unwrapping a line at once made a tiny plot swing for ever: the bottom
    # label took 3 lines at 59 px, 2 at 64, the height it freed changed the left axis's
    # ticks, whose width took the 5 px back (the graph tab's depth view at 1280 × 800)
    text = label.toHtml()
    fitted = getattr(axis, "_archscope_fitted", None)
    if fitted is not None and fitted[1] == text and label.textWidth() > 0 and \
            fitted[0] <= room < fitted[0] + GROWTH:
        return False
    axis._archscope_fitted = (room, text)
    before = label.boundingRect().height()
    doc = label.document()
    option = doc.defaultTextOption()
    if option.alignment() != Qt.AlignmentFlag.AlignHCenter:
        option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        doc.setDefaultTextOption(option)
    base = getattr(axis, "_archscope_label_points", None)
    if base is None:                    # the type the label was given, kept once
        base = axis._archscope_label_points = label.font().pointSizeF()
    points = base
    font = QFont(label.font())
    while True:
        if font.pointSizeF() != points:
            font.setPointSizeF(points)
            label.setFont(font)
        # one line where it fits: pyqtgraph's own look
        width = -1.0 if _natural_width(label) <= room else room
        if label.textWidth() != width:
            label.setTextWidth(width)
        # a word longer than the axis still overflows a wrapped line: smaller type
        if doc.idealWidth() <= room + 0.5 or points <= MIN_POINT_SIZE:
            break
        points = max(MIN_POINT_SIZE, points - 0.5)
    return abs(label.boundingRect().height() - before) > 0.5


#: plain numbers on a log axis whose view lies inside [10^PLAIN[0], 10^PLAIN[1]]
PLAIN = (-3.0, 4.0)
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_of_ten(x: float) -> str:
    """``x`` (one significant digit) as m·10ⁿ, or 10ⁿ when m is 1."""
    mantissa, exponent = f"{x:.0e}".split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    return power if mantissa in ("1", "-1") and x > 0 else f"{mantissa}·{power}"


def log_tick_strings(axis: pg.AxisItem, values, scale: float) -> list[str]:
    """Tick texts of a log axis (``values``: log10 of the values), in the notation its
    whole view range asks for, so every level of ticks reads alike."""
    lo, hi = sorted(float(v) for v in axis.range)
    powers = not (PLAIN[0] - 1e-9 <= lo and hi <= PLAIN[1] + 1e-9)
    out = []
    for v in 10 ** np.asarray(values, dtype=np.float64) * float(scale):
        if not np.isfinite(v):
            out.append("")
        elif powers:
            out.append(power_of_ten(float(v)))
        else:
            out.append(np.format_float_positional(float(f"{v:.1g}"), trim="-"))
    return out


def install() -> None:
    """Every axis fits its label on resize and on a new text (once per process)."""
    resize, update = pg.AxisItem.resizeEvent, pg.AxisItem._updateLabel
    if getattr(resize, "_archscope_fit", False):
        return

    def resize_event(self, ev=None):
        if self.label is not None and fit(self):
            self._adjustSize()          # thicker or thinner: the layout resizes it again
        return resize(self, ev)

    def update_label(self):
        update(self)
        if self.label is not None:
            if fit(self):
                self._adjustSize()
            resize(self)                # centred again on the axis

    width, height = pg.AxisItem._updateWidth, pg.AxisItem._updateHeight

    def _room(self, grown) -> None:
        # pyqtgraph counts 0.8 of the label's height (its margins are the rest): a label
        # of two or three lines then came over the tick values (the meta tab's "MSE on
        # the whole / curve" over its "2"); the label reaches h − 9 px in (5 px nudged
        # out, 4 px of margin), so that much at least
        if self.label is None or not self.label.isVisible() or not self.isVisible():
            return
        if (self.fixedWidth if grown is width else self.fixedHeight) is not None:
            return
        h = self.label.boundingRect().height()
        extra = np.ceil(max(0.0, h - 7 - 0.8 * h))
        if extra > 0:
            if grown is width:
                w = self.maximumWidth() + extra
                self.setMaximumWidth(w)
                self.setMinimumWidth(w)
            else:
                w = self.maximumHeight() + extra
                self.setMaximumHeight(w)
                self.setMinimumHeight(w)

    def update_width(self):
        width(self)
        _room(self, width)

    def update_height(self):
        height(self)
        _room(self, height)

    update_width.__wrapped__, update_height.__wrapped__ = width, height
    pg.AxisItem._updateWidth, pg.AxisItem._updateHeight = update_width, update_height

    def log_ticks(self, values, scale, spacing):
        return log_tick_strings(self, values, scale)

    log_ticks.__wrapped__ = pg.AxisItem.logTickStrings
    pg.AxisItem.logTickStrings = log_ticks
    resize_event._archscope_fit = True
    resize_event.__wrapped__, update_label.__wrapped__ = resize, update
    pg.AxisItem.resizeEvent, pg.AxisItem._updateLabel = resize_event, update_label
