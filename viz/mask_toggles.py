"""Toggles for masking a pretrained model: a layers × heads grid of checkable cells
(head masking, a whole layer from its row header) and a line of token chips (click a
token to mask it out of attention, as padding is).

Both are painted by one widget each (hundreds of heads stay one widget, not hundreds of
buttons) and emit ``changed`` after a click; the tab recomputes in the background.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from viz.heatmap import short_label

ON = QColor("#59a14f")        # a head or token that takes part
OFF = QColor("#5a5a5a")       # masked out
GRID_LINE = QColor("#ffffff")
TEXT = QColor("#222222")


class HeadMaskGrid(QWidget):
    """Every head of every layer as a cell: green = on, dark with a cross = masked.
    A click on a cell switches that head; on a row header ("L3") the whole layer (off
    if any of its heads is on, else on again); on the corner, every head back on.

    Signals:
        changed(): the mask was changed by a click.
    """

    changed = Signal()
    CELL = 18

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._mask = np.ones((0, 0), np.float32)
        self._font = QFont(self.font())
        self._font.setPointSizeF(8)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(False)

    # -- data ------------------------------------------------------------------------------
    def set_shape(self, layers: int, heads: int) -> None:
        """A model of ``layers`` × ``heads``: every head on (kept if the shape is the same)."""
        if self._mask.shape != (layers, heads):
            self._mask = np.ones((layers, heads), np.float32)
            self.updateGeometry()
            self.update()

    def shape(self) -> tuple[int, int]:
        return tuple(self._mask.shape)

    def mask(self) -> np.ndarray:
        """float32[layers, heads]: 1 = on, 0 = masked."""
        return self._mask.copy()

    def set_mask(self, mask) -> None:
        """Set every cell (no ``changed``); the shape must be the grid's."""
        mask = np.asarray(mask, np.float32)
        if mask.shape != self._mask.shape:
            raise ValueError(f"a head mask of shape {mask.shape} for a grid of "
                             f"{self._mask.shape}")
        self._mask = (mask > 0.5).astype(np.float32)
        self.update()

    # -- geometry ----------------------------------------------------------------------------
    def _header(self) -> tuple[float, float]:
        fm = QFontMetricsF(self._font)
        layers = self._mask.shape[0]
        return (fm.horizontalAdvance(f"L{max(layers - 1, 0)}") + 10, fm.height() + 4)

    def cell_rect(self, layer: int, head: int) -> QRectF:
        hw, hh = self._header()
        return QRectF(hw + head * self.CELL, hh + layer * self.CELL, self.CELL, self.CELL)

    def layer_rect(self, layer: int) -> QRectF:
        hw, hh = self._header()
        return QRectF(0, hh + layer * self.CELL, hw, self.CELL)

    def corner_rect(self) -> QRectF:
        hw, hh = self._header()
        return QRectF(0, 0, hw, hh)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        hw, hh = self._header()
        layers, heads = self._mask.shape
        return QSize(int(hw + heads * self.CELL) + 2, int(hh + layers * self.CELL) + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt name
        return self.sizeHint()

    # -- clicks ------------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt name
        if event.button() != Qt.MouseButton.LeftButton:
            return
        pos = QPointF(event.position())
        layers, heads = self._mask.shape
        if self.corner_rect().contains(pos):
            if not self._mask.all():
                self._mask[:] = 1
                self._changed()
            return
        for layer in range(layers):
            if self.layer_rect(layer).contains(pos):
                self._mask[layer] = 0 if self._mask[layer].any() else 1
                self._changed()
                return
            for head in range(heads):
                if self.cell_rect(layer, head).contains(pos):
                    self._mask[layer, head] = 1 - self._mask[layer, head]
                    self._changed()
                    return

    def _changed(self) -> None:
        self.update()
        self.changed.emit()

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setFont(self._font)
        layers, heads = self._mask.shape
        hw, hh = self._header()
        p.setPen(TEXT)
        centre = Qt.AlignmentFlag.AlignCenter
        p.drawText(self.corner_rect(), int(centre), "✓" if not self._mask.all() else "")
        for head in range(heads):
            r = self.cell_rect(0, head)
            p.drawText(QRectF(r.left(), 0, r.width(), hh), int(centre), str(head))
        for layer in range(layers):
            row = self._mask[layer]
            p.setPen(TEXT if row.any() else QColor("#999999"))
            p.drawText(self.layer_rect(layer), int(centre), f"L{layer}")
            for head in range(heads):
                r = self.cell_rect(layer, head)
                on = row[head] > 0.5
                p.fillRect(r, ON if on else OFF)
                p.setPen(QPen(GRID_LINE, 1))
                p.drawRect(r)
                if not on:
                    p.setPen(QPen(QColor("#dddddd"), 1.2))
                    inner = r.adjusted(5, 5, -5, -5)
                    p.drawLine(inner.topLeft(), inner.bottomRight())
                    p.drawLine(inner.topRight(), inner.bottomLeft())
        p.end()


class TokenToggles(QWidget):
    """The tokens of a text as chips, wrapped to the width. A click masks a token out
    of attention (no query may attend to it; grey, struck through) or lets it back in;
    the last token left is not masked (a query needs a key).

    Signals:
        changed(): a token was masked or let back in by a click.
    """

    changed = Signal()
    GAP = 4
    PAD = 5

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._tokens: tuple[str, ...] = ()
        self._keep = np.ones(0, bool)
        self._font = QFont(self.font())
        self._font.setPointSizeF(9)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def set_tokens(self, tokens: Sequence[str], keep=None) -> None:
        """New tokens; ``keep`` bool[n] (default: every token kept)."""
        self._tokens = tuple(map(str, tokens))
        self._keep = (np.ones(len(self._tokens), bool) if keep is None
                      else np.array(keep, bool).reshape(len(self._tokens)))
        self.updateGeometry()
        self.update()

    def tokens(self) -> tuple[str, ...]:
        return self._tokens

    def keep(self) -> np.ndarray:
        """bool[n]: False = masked out of attention."""
        return self._keep.copy()

    def set_keep(self, keep) -> None:
        self._keep = np.array(keep, bool).reshape(len(self._tokens))
        self.update()

    # -- geometry ----------------------------------------------------------------------------
    def _layout(self, width: float) -> list[QRectF]:
        fm = QFontMetricsF(self._font)
        h = fm.height() + 6
        x = y = 0.0
        rects = []
        for token in self._tokens:
            w = fm.horizontalAdvance(short_label(token)) + 2 * self.PAD
            if x > 0 and x + w > width:
                x, y = 0.0, y + h + self.GAP
            rects.append(QRectF(x, y, w, h))
            x += w + self.GAP
        return rects

    def chip_rect(self, index: int) -> QRectF:
        return self._layout(self.width())[index]

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt name
        rects = self._layout(width)
        return int(rects[-1].bottom()) + 2 if rects else 4

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        return QSize(300, self.heightForWidth(300))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt name
        return QSize(60, self.heightForWidth(max(60, self.width())))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if self.height() != self.heightForWidth(self.width()):
            self.updateGeometry()

    # -- clicks and painting -----------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt name
        if event.button() != Qt.MouseButton.LeftButton:
            return
        pos = QPointF(event.position())
        for i, rect in enumerate(self._layout(self.width())):
            if rect.contains(pos):
                if self._keep[i] and self._keep.sum() <= 1:
                    return          # the last token a query may attend to stays
                self._keep[i] = not self._keep[i]
                self.update()
                self.changed.emit()
                return

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setFont(self._font)
        for i, (token, rect) in enumerate(zip(self._tokens, self._layout(self.width()),
                                              strict=True)):
            kept = bool(self._keep[i])
            p.setPen(QPen(ON.darker(120) if kept else OFF, 1))
            p.setBrush(QColor("#e6f2e3") if kept else QColor("#d6d6d6"))
            p.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
            font = QFont(self._font)
            font.setStrikeOut(not kept)
            p.setFont(font)
            p.setPen(TEXT if kept else QColor("#666666"))
            p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), short_label(token))
        p.end()
