"""Interface state, on screen and never in a figure, and the part of a view a figure shows.

Split from :mod:`viz.figure`, which paints with it: the selected head's orange bold
title, the frame round the selected tile, a hovered token's highlight and the greyed
legend entries of hidden series stay on screen and are left out of every PNG, SVG and
PDF; a view that centres a smaller block of plots is trimmed to that block. ``settle``
does before an export what the window does before it paints.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRectF
from PySide6.QtGui import QColor, QPainter, QPicture
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsTextItem,
    QGraphicsView,
    QStyleOptionGraphicsItem,
)

from viz.legend import place_waiting

#: White kept round what a view paints when its figure is trimmed to it (pixels).
TRIM_MARGIN = 4


# -- interface state: on screen, never in a figure -----------------------------------------------
# A figure is the view's content, not the state of the widget it was exported from: the
# selected head's orange bold title, the frame round the selected tile, a hovered
# token's highlight, the greyed legend entries of hidden series (there to be clicked)
# stay on screen and are left out of every PNG, SVG and PDF. Three ways to say so, none
# of which touches the scene while a figure is painted (a PNG is painted over several
# event-loop turns and starts over if its scene changes):
#
# * ``interface_only(item)``: the item (and its children) is not painted at all;
# * ``figure_style(label, **style)``: a pyqtgraph ``LabelItem`` (a plot's title) is
#   painted with ``style`` over its own (``color``, ``bold``, ... as ``setText`` takes);
# * ``painting_figure()``: True while an item paints into a figure, for an item that
#   paints such state itself.
_INTERFACE_ONLY = "_archscope_interface_only"
_FIGURE_STYLE = "_archscope_figure_style"
_painting = [0]           # items painting into a figure now (nested: a stand-in's paint)


def interface_only(item: QGraphicsItem, only: bool = True) -> QGraphicsItem:
    """Mark ``item`` as interface state (a selection frame, a hover box): it stays on
    screen and is left out, with its children, of every figure. Returns ``item``."""
    setattr(item, _INTERFACE_ONLY, bool(only))
    return item


def figure_style(label: pg.LabelItem, **style) -> None:
    """Paint ``label`` in figures with ``style`` (``LabelItem.setText``'s arguments:
    ``color``, ``bold``, ``size``, ``italic``) over the style it has on screen, e.g. the
    selected head's title, orange and bold on screen, as the other titles in a figure.
    No arguments: as on screen."""
    setattr(label, _FIGURE_STYLE, dict(style) or None)


def painting_figure() -> bool:
    """True while a scene item is painted into a figure (PNG, SVG, PDF): an item that
    paints interface state itself (a hovered token, the greyed entries of hidden heads)
    leaves it out then."""
    return _painting[0] > 0


@contextmanager
def _in_figure() -> Iterator[None]:
    _painting[0] += 1
    try:
        yield
    finally:
        _painting[0] -= 1


class _LeftOut(QGraphicsItem):
    """Paints nothing: the stand-in of an interface-only item."""

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return QRectF()

    def paint(self, *args) -> None:
        pass


class _StyledText(QGraphicsItem):
    """A ``LabelItem``'s text in its figure style, painted in place of the label's text
    item: the same font and place, centred (or aligned) as the label aligns its text."""

    def __init__(self, label: pg.LabelItem, style: dict) -> None:
        super().__init__()
        original = label.item
        self.text = QGraphicsTextItem()
        self.text.setFont(original.font())
        self.text.setTextWidth(original.textWidth())
        self.text.setHtml(_label_html(label.text, {**label.opts, **style}))
        spare = original.boundingRect().width() - self.text.boundingRect().width()
        self.dx = {"left": 0.0, "right": spare}.get(label.opts.get("justify"), spare / 2)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self.text.boundingRect().translated(self.dx, 0)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.translate(self.dx, 0)
        self.text.paint(painter, option, widget)


def _label_html(text: str, opts: dict) -> str:
    """The HTML ``pg.LabelItem.setText`` makes of ``text`` with the style ``opts``."""
    colour = pg.mkColor(opts.get("color") or pg.getConfigOption("foreground"))
    css = ["color: " + colour.name(QColor.NameFormat.HexArgb)]
    if "family" in opts:
        css.append("font-family: " + opts["family"])
    if "size" in opts:
        css.append("font-size: " + opts["size"])
    if opts.get("bold") in (True, False):
        css.append("font-weight: " + ("bold" if opts["bold"] else "normal"))
    if opts.get("italic") in (True, False):
        css.append("font-style: " + ("italic" if opts["italic"] else "normal"))
    return f"<span style='{'; '.join(css)}'>{text}</span>"


def content_rect(scene, source: QRectF, margin: float = TRIM_MARGIN) -> QRectF:
    """The part of ``source`` (scene coordinates) that a figure shows: what the items
    paint there, with ``margin`` around it, in whole pixels. A view that centres a
    fixed-size block of plots in a larger panel (the layers × heads mosaic, a grid of
    heads) left its figure up to 60 % white; a plot that fills its view gives
    ``source``."""
    union = QRectF()
    no_contents = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
    for item in scene.items():
        if (not item.isVisible() or item.effectiveOpacity() <= 0.0
                or item.flags() & no_contents or isinstance(item, pg.GraphicsLayout)
                or _interface_only(item)):
            continue
        rect = item.sceneBoundingRect().intersected(source)
        if not rect.isEmpty():
            union = union.united(rect)
    if union.isEmpty():
        return QRectF(source)
    out = union.adjusted(-margin, -margin, margin, margin).intersected(source)
    left, top = np.floor(out.left()), np.floor(out.top())
    right, bottom = np.ceil(out.right()), np.ceil(out.bottom())
    out = QRectF(left, top, right - left, bottom - top).intersected(source)
    return QRectF(source) if out.width() < 2 or out.height() < 2 else out


def _interface_only(item: QGraphicsItem) -> bool:
    while item is not None:
        if getattr(item, _INTERFACE_ONLY, False):
            return True
        item = item.parentItem()
    return False


def interface_swaps(scene) -> dict[QGraphicsItem, QGraphicsItem]:
    """What a figure paints instead of the interface state of ``scene`` (see above):
    nothing for an interface-only item, a label's text in its figure style."""
    swaps: dict[QGraphicsItem, QGraphicsItem] = {}
    for item in scene.items():
        if _interface_only(item):
            swaps[item] = _LeftOut()
            continue
        label = item.parentItem()
        style = getattr(label, _FIGURE_STYLE, None) if label is not None else None
        if style and isinstance(label, pg.LabelItem) and item is label.item:
            swaps[item] = _StyledText(label, style)
    return swaps


class _LayoutRequests(QObject):
    """Counts the layout requests delivered while it filters the application's events."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def flush_layouts(passes: int = 8) -> None:
    """Carry out every pending layout request, and those that they post in turn: Qt
    leaves a request posted while it sends the pending ones for the next call, so one
    call laid out the graph tab's panel but not the scroll area around it (the graphics
    went 370x484 -> 365x508 only at the next export: its PNG and SVG differed)."""
    app = QCoreApplication.instance()
    counter = _LayoutRequests()
    app.installEventFilter(counter)
    try:
        for _ in range(passes):
            counter.count = 0
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            if not counter.count:
                break
    finally:
        app.removeEventFilter(counter)


def settle(view: QGraphicsView | None) -> None:
    """Do now what the window does before it paints ``view`` next: the layouts asked
    for, the view boxes' ranges (pyqtgraph's ``prepareForPaint``: an auto range follows
    new data only then), the legends' placements and the axes' widths (an axis fits its
    tick labels when it paints). A view drawn in this turn of the event loop (new data,
    not yet painted) was exported with its old x range and a left axis 11 px too wide,
    and that painting settled it, so the SVG and the PDF written after the PNG differed
    from it (the graph tab's comparison, CI: mean |PNG - SVG| 0.11). Without a view
    (a whole widget), the widgets' layouts alone."""
    if view is None:
        flush_layouts()
        return
    scene = view.scene()
    prepare = getattr(scene, "prepareForPaint", None)
    for _ in range(4):    # a placement or an axis may change the layout, the layout a range
        flush_layouts()
        if prepare is not None:
            prepare()
        placed = place_waiting(scene)
        if not _measure_axes(scene) and not _orient_texts(scene) and not placed:
            break


def _orient_texts(scene) -> bool:
    """Give each shown ``pg.TextItem`` the transform its first paint would: one made in
    this turn (node labels after a language switch) still had none, so it spanned its
    font size in data units and the figure's trimmed rectangle (``content_rect``) was
    taken 14 px too wide for the PNG, then right for the SVG painted after it. True if
    one changed."""
    changed = False
    for item in scene.items():
        if isinstance(item, pg.TextItem) and item.isVisible():
            before = item.transform()
            item.updateTransform(force=True)
            changed |= item.transform() != before
    return changed


def _measure_axes(scene) -> bool:
    """Let each shown axis whose ticks changed since it was painted measure its labels
    (painting into a throwaway picture, as its ``paint`` does); True if one changed
    its size."""
    changed = False
    for item in scene.items():
        if not (isinstance(item, pg.AxisItem) and item.picture is None
                and item.isVisible()):
            continue
        limits = _limits(item)
        picture = QPicture()
        painter = QPainter(picture)
        try:
            item.paint(painter, QStyleOptionGraphicsItem(), None)
        finally:
            painter.end()
        changed |= _limits(item) != limits
    return changed


def _limits(item) -> tuple[float, ...]:
    low, high = item.minimumSize(), item.maximumSize()
    return low.width(), low.height(), high.width(), high.height()
