"""Line and bar plots that are created once and updated with new arrays."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter

from viz.legend import CORNERS, keep_clear, one_layout
from viz.theme import LEGEND_BORDER, MUTED, SERIES_COLOURS, series_pen


class _TickLevelsAxis(pg.AxisItem):
    """An axis whose log-mode ticks come in two levels: powers of ten (with 2·10ⁿ and
    5·10ⁿ when the range holds fewer than two of them), then the rest. pyqtgraph puts
    them all in one level over short ranges, so 2·10², 3·10², … 9·10² all got a label
    and printed over each other; a second level is labelled only where it fits."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's API
        levels = super().tickValues(minVal, maxVal, size)
        if not self.logMode or len(levels) != 1:
            return levels
        values = sorted(levels[0][1])
        major = [v for v in values if abs(v - round(v)) < 1e-6]
        if sum(minVal <= v <= maxVal for v in major) < 2:
            major += [v for v in values if v not in major
                      and round(10 ** (v - np.floor(v))) in (2, 5)]
        minor = [v for v in values if v not in major]
        return [(None, sorted(major)), (None, minor)]


class _CategoryAxis(pg.AxisItem):
    """A bottom axis naming groups of bars. When neighbouring names would run into each
    other (the graph tab's "GCN", "GraphSAGE", "GAT" read "GCNGraphSAGEGAT" in a window
    of 1280×800), every second name drops one line (a third when need be); the axis
    keeps the room for those lines from then on (giving it back would resize the plot on
    every paint). A name pyqtgraph would leave out for reaching past an end of the axis
    is moved inward instead (``_culled``)."""

    GAP = 6         # pixels kept between two names on one line

    def _updateHeight(self) -> None:  # noqa: N802 - pyqtgraph's API
        """pyqtgraph measures a name at 0.8 of its font's height and centres the text on
        that, so a tenth of the font hangs below the rect; with no axis label under the
        names, the axis ended there and the descenders were cut (the ODE tab's "memory",
        both languages). Keep that tenth, and a pixel."""
        super()._updateHeight()
        if (self.isVisible() and self.fixedHeight is None and self.style["showValues"]
                and not self.label.isVisible()):
            h = self.maximumHeight() + np.ceil(self.textHeight / 0.8 * 0.1) + 1
            self.setMaximumHeight(h)
            self.setMinimumHeight(h)

    def setTicks(self, ticks) -> None:  # noqa: N802 - pyqtgraph's API
        """pyqtgraph learns its names' height at the first paint that draws them: until
        then the axis was 3 px high and culled every name (the graph tab's comparison,
        built behind another tab, measured at 1280×800: "4 of 4 labels not drawn").
        The axis takes one line's height (pyqtgraph's measure) as soon as it has names."""
        super().setTicks(ticks)
        if self.orientation == "bottom" and ticks and any(len(level) for level in ticks):
            metrics = QFontMetricsF(self.style["tickFont"] or self.font())
            self._updateMaxTextSize(int(np.ceil(0.8 * metrics.height())))
            self._measure()

    def resizeEvent(self, ev=None):  # noqa: N802 - Qt's API
        super().resizeEvent(ev)
        self._measure()

    def _measure(self) -> None:
        """Lay the names out now (one line or two), so the axis takes their height
        before it is first painted, not after."""
        if self.orientation != "bottom" or not getattr(self, "_tickLevels", None) \
                or self.linkedView() is None or self.width() < 4:
            return
        image = QImage(8, 8, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        try:
            if self.style.get("tickFont") is not None:
                painter.setFont(self.style["tickFont"])
            self.generateDrawSpecs(painter)
        finally:
            painter.end()

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph's API
        specs = super().generateDrawSpecs(p)
        if specs is None or self.orientation != "bottom":
            return specs
        axis, ticks, texts = specs
        texts = sorted(list(texts) + self._culled(p, texts), key=lambda t: t[0].center().x())
        if len(texts) < 2:
            return axis, ticks, texts
        if all(a[0].right() + self.GAP <= b[0].left()
               for a, b in zip(texts[:-1], texts[1:], strict=True)):
            return axis, ticks, texts
        # each name on the first line where it clears the one before it there (every
        # second name one line down, or a third line when a name moved in from an end
        # still runs into its neighbour's)
        line = max(rect.height() for rect, _, _ in texts)
        ends: list[float] = []
        placed = []
        for rect, flags, text in texts:
            k = next((i for i, end in enumerate(ends) if end + self.GAP <= rect.left()),
                     len(ends))
            if k == len(ends):
                ends.append(rect.right())
            ends[k] = rect.right()
            placed.append((rect.translated(0, k * line), flags, text))
        self._updateMaxTextSize(int(np.ceil(max(2, len(ends)) * line)))
        return axis, ticks, placed


    def _culled(self, p, texts) -> list:
        """The names pyqtgraph left out because they reach past an end of the axis (a
        name wider than the room between its bar and the edge: the graph tab's
        "baseline" at 1280×800), moved inward until they fit; every group is named."""
        vb = self.linkedView()
        levels = getattr(self, "_tickLevels", None)
        if vb is None or not levels:
            return []
        drawn = Counter(text for _, _, text in texts)
        lo, hi = sorted(float(v) for v in self.range)
        br = self.boundingRect()
        if texts:
            top, flags = texts[0][0].top(), texts[0][1]
        else:                               # every name left out: pyqtgraph's own place
            top = (self.mapRectFromParent(self.geometry()).top()
                   + max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1])
            flags = (Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                     | Qt.TextFlag.TextDontClip)
        out = []
        for value, name in levels[0]:
            if not lo <= float(value) <= hi or not str(name).strip():
                continue
            if drawn[name] > 0:
                drawn[name] -= 1
                continue
            rect = p.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, name)
            width, height = rect.width(), rect.height() * 0.8    # pyqtgraph's measure
            if width > br.width():
                continue
            x = self.mapFromItem(vb, vb.mapFromView(QPointF(float(value), 0.0))).x()
            left = min(max(x - width / 2, br.left()), br.right() - width)
            out.append((QRectF(left, top, width, height), flags, name))
        return out


class SpacedAxis(pg.AxisItem):
    """A value axis whose major tick labels never run into each other. pyqtgraph spaces
    ticks by the axis's length alone (about ln(length) of them), whatever the labels'
    width: the graph tab's messages heatmap, 30 px wide in a 1280×800 window, printed
    features "0 5 10 15" as "0510". Here the major spacing grows along 1, 2, 5, 10, …
    until neighbouring labels keep ``GAP`` pixels apart (lines a line's height apart on
    a vertical axis), as long as two ticks are left; the finer levels that still divide
    it are kept."""

    GAP = 6

    def tickSpacing(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's API
        levels = super().tickSpacing(minVal, maxVal, size)
        span = maxVal - minVal
        if not levels or self.logMode or not (np.isfinite(span) and span > 0 and size > 0):
            return levels
        metrics = QFontMetricsF(self.style["tickFont"] or self.font())

        def ticks(spacing: float) -> np.ndarray:
            return np.arange(np.ceil(minVal / spacing), np.floor(maxVal / spacing) + 1) * spacing

        major = levels[0][0]
        for _ in range(12):
            if self.orientation in ("top", "bottom"):
                widths = [metrics.horizontalAdvance(t) for t in self.tickStrings(
                    list(ticks(major)), self.autoSIPrefixScale * self.scale, major)]
                need = max((a + b for a, b in zip(widths[:-1], widths[1:], strict=True)),
                           default=0.0) / 2          # two neighbours' half widths
            else:
                need = metrics.height()
            if major / span * size >= need + self.GAP:
                break
            exponent = np.floor(np.log10(major))
            mantissa = major / 10 ** exponent
            wider = next(m for m in (2, 5, 10, 20) if m > mantissa + 1e-9) * 10 ** exponent
            if len(ticks(wider)) < 2:         # two ticks at least: still a scale
                break
            major = wider
        if major == levels[0][0]:
            return levels
        return [(major, 0)] + [(s, offset) for s, offset in levels[1:]
                               if abs(major / s - round(major / s)) < 1e-6]


def _positive(a: np.ndarray) -> np.ndarray:
    """``a`` with values ≤ 0 raised to its smallest positive value (for a log axis)."""
    pos = a[np.isfinite(a) & (a > 0)]
    return np.maximum(a, pos.min()) if pos.size else np.ones_like(a)


def hint_item(plot: pg.PlotItem) -> pg.TextItem:
    """A centred grey note over a plot's view box (what to press while it is empty),
    wrapped to the box's width (a narrow plot cut a one-line hint at both sides) and
    re-placed when the box changes size; ``set_hint_text`` writes it."""
    hint = pg.TextItem(anchor=(0.5, 0.5), color=MUTED)
    hint.setParentItem(plot.vb)

    def place(*_) -> None:
        r = plot.vb.boundingRect()
        width = max(60.0, r.width() - 16)
        if abs(hint.textItem.textWidth() - width) > 0.5:
            hint.setTextWidth(width)
        hint.setPos(r.center())

    plot.vb.sigResized.connect(place)
    hint.place = place
    return hint


def set_hint_text(hint: pg.TextItem, text: str) -> None:
    """Show ``text`` in a ``hint_item`` (hidden when empty); a newline breaks the line."""
    hint.setHtml(f"<div style='text-align:center; color:{MUTED}'>"
                 + html.escape(text).replace("\n", "<br>") + "</div>")
    hint.setVisible(bool(text))
    hint.place()


class LabelledPlot(pg.PlotWidget):
    """A plot without pyqtgraph's context menu and "A" button, with axis labels."""

    def __init__(self, parent=None, **kwargs) -> None:
        # no context menus (built and thrown away, they were a fifth of a plot's making)
        super().__init__(parent, **{"enableMenu": False, **kwargs})
        self.plotItem.setMenuEnabled(False)
        self.plotItem.hideButtons()

    def set_axis_labels(self, x: str, y: str, right: str | None = None) -> None:
        """The axes' labels; ``right``: the right-hand axis's, where a plot has one."""
        self.plotItem.setLabel("bottom", x)
        self.plotItem.setLabel("left", y)
        if right is not None:
            self.plotItem.setLabel("right", right)      # (which shows the axis)
            self.plotItem.showAxis("right", getattr(self, "right_used", False))


class CurvesPlot(LabelledPlot):
    """Several named curves over a shared x axis, with a legend.

    ``set_curves(x, ys, names)``: x float[n], ys float[c, n]. Items are reused
    across updates; surplus ones are removed.
    """

    #: the corners the legend may take, in order of preference (``legend`` goes first)
    LEGEND_OFFSETS = {"top-right": (-10, 10), "top-left": (10, 10), "bottom-right": (-10, -10),
                      "bottom-left": (10, -10)}

    def __init__(self, parent=None, log_y: bool = False, log_x: bool = False,
                 legend: str = "top-right") -> None:
        super().__init__(parent, axisItems={"bottom": _TickLevelsAxis("bottom"),
                                            "left": _TickLevelsAxis("left")})
        self.plotItem.showGrid(x=True, y=True, alpha=0.25)
        self.legend = self.plotItem.addLegend(offset=self.LEGEND_OFFSETS[legend],
                                              labelTextSize="8pt",
                                              brush=pg.mkBrush(255, 255, 255, 210),
                                              pen=pg.mkPen(LEGEND_BORDER))
        # wherever the curves leave room, or below the plot when they leave none
        self.legend_placer = keep_clear(self.plotItem, self.legend, prefer=(
            legend, *(c for c in CORNERS if c != legend)))
        self.plotItem.setLogMode(x=log_x, y=log_y)
        self._log = (log_x, log_y)
        for axis, log in (("bottom", log_x), ("left", log_y)):
            if log:       # 10⁻⁶ … 1 "(x1e+12)" reads worse than the plain powers of ten
                self.plotItem.getAxis(axis).enableAutoSIPrefix(False)
                # label the 2·10ⁿ … 9·10ⁿ ticks only where they do not crowd
                self.plotItem.getAxis(axis).setStyle(textFillLimits=[(0, 0.35)])
        # thousands of points in a few hundred pixels: draw the per-pixel min/max only
        # (antialiased paths of 4096 oscillating points took 2.6 s a frame otherwise)
        self.plotItem.setDownsampling(auto=True, mode="peak")
        self.plotItem.setClipToView(True)
        self.hint = hint_item(self.plotItem)
        self._items: list[pg.PlotDataItem] = []
        self._bands: list[pg.FillBetweenItem] = []
        self._data: tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros((0, 0)))
        # values of exactly 0 on a log axis: marks on the bottom edge, never a made-up value
        self._zero_label = ""
        self._zero_points: tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0, int))
        self.zero_marks = pg.ScatterPlotItem(symbol="t", size=9, pen=pg.mkPen("w", width=0.8))
        self.zero_marks.setZValue(5)
        # in the view box only: not one of the plot's data items (listDataItems)
        self.plotItem.vb.addItem(self.zero_marks, ignoreBounds=True)
        self.plotItem.vb.sigRangeChanged.connect(self._place_zero_marks)
        self.plotItem.vb.sigResized.connect(self._place_zero_marks)
        self._zero_sample = pg.ScatterPlotItem(symbol="t", size=9, pen=pg.mkPen("w", width=0.8),
                                               brush=pg.mkBrush(MUTED))

    def set_hint(self, text: str) -> None:
        """A centred note shown while the plot has no curves (e.g. what to press); a
        newline in ``text`` breaks the line."""
        set_hint_text(self.hint, text)

    def set_zero_label(self, text: str) -> None:
        """The legend's name for the marks of values that are exactly 0 on a log-y plot
        (e.g. "0 errors"); they are drawn as triangles on the bottom edge, in their
        curve's colour, instead of a made-up small value."""
        if text != self._zero_label:
            self._zero_label = text
            self._zero_legend()

    def _zero_legend(self) -> None:
        shown = bool(self._zero_label) and len(self._zero_points[0]) > 0
        label = next((lab for sample, lab in self.legend.items
                      if sample.item is self._zero_sample), None)
        if label is not None and (not shown or label.text != self._zero_label):
            self.legend.removeItem(self._zero_sample)
            label = None
        if shown and label is None:
            self.legend.addItem(self._zero_sample, self._zero_label)

    def _place_zero_marks(self, *_) -> None:
        """The zero marks on the bottom edge of the view (half a mark above it)."""
        x, colours = self._zero_points
        if not len(x):
            self.zero_marks.setData(x=[], y=[])
            return
        vb = self.plotItem.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        per_px = (y1 - y0) / max(1.0, vb.height())
        y = np.full(len(x), y0 + 6 * per_px)
        xv = np.log10(_positive(x)) if self._log[0] else x
        self.zero_marks.setData(x=xv, y=y, brush=[pg.mkBrush(SERIES_COLOURS[c % len(
            SERIES_COLOURS)]) for c in colours])

    def zero_points(self) -> tuple[np.ndarray, np.ndarray]:
        """(x, curve colour index) of the values drawn as zero marks."""
        return self._zero_points

    def _right_box(self) -> pg.ViewBox:
        """The view box of the right-hand axis: over the main one, x linked to it, its
        own y range (made on first use)."""
        box = getattr(self, "_right", None)
        if box is None:
            item = self.plotItem
            box = self._right = pg.ViewBox(enableMenu=False)
            box.setMouseEnabled(x=False, y=False)
            item.scene().addItem(box)
            box.setXLink(item.vb)
            item.showAxis("right")
            axis = item.getAxis("right")
            axis.linkToView(box)
            axis.setGrid(False)
            # pyqtgraph lets a vertical axis's tick values run 15 px past its ends; on
            # the right, without a grid to bound it, the top value ran past the view's
            # edge (chunked attention's l at 1280x800): a value that does not fit is
            # left out, as on the horizontal axes
            axis.setStyle(hideOverlappingLabels=True)
            item.archscope_boxes = (box,)

            def follow(*_) -> None:
                box.setGeometry(QRectF(item.vb.scenePos(), item.vb.size()))
                box.linkedViewChanged(item.vb, box.XAxis)
            item.vb.sigResized.connect(follow)
            item.vb.geometryChanged.connect(follow)
            follow()
        return box

    def set_curves(self, x, ys, names: Sequence[str], symbols: Sequence[str | None] = (),
                   colours: Sequence[int] = (), right: Sequence[bool] = ()) -> None:
        """x: float[n] shared by all curves, or one array per curve; ys: float[c, n] or a
        list of arrays; ``symbols``: a pyqtgraph symbol per curve (None = line only);
        ``colours``: a series-colour index per curve (default: its position), so a curve
        keeps its colour when others are left out; ``right``: per curve, whether it is
        drawn against the right-hand axis (its own scale and label, ``set_axis_labels``'s
        ``right``) rather than the left one: a loss and an accuracy are two quantities,
        two axes, never one axis named "loss · accuracy"."""
        with one_layout(self.legend):       # laid out once, not once per new curve
            self._set_curves(x, ys, names, symbols, colours, right)

    def _set_curves(self, x, ys, names: Sequence[str], symbols: Sequence[str | None],
                    colours: Sequence[int], right: Sequence[bool]) -> None:
        if isinstance(ys, np.ndarray):
            ys = np.atleast_2d(np.asarray(ys, dtype=np.float32))
            ys = [] if ys.size == 0 else list(ys)
        xs = list(x) if isinstance(x, (list, tuple)) else [np.asarray(x)] * len(ys)
        given, zero_x, zero_c = ys, [], []
        if self._log[1]:            # log10(0) is no place: a mark on the edge instead
            shown = []
            for i, (xi, y) in enumerate(zip(xs, ys, strict=True)):
                y = np.asarray(y, dtype=np.float32)
                zero = y == 0
                if zero.any():
                    zero_x.append(np.broadcast_to(np.asarray(xi, np.float64), y.shape)[zero])
                    zero_c.append(np.full(int(zero.sum()), colours[i] if i < len(colours)
                                          else i))
                    y = np.where(zero, np.nan, y)
                shown.append(y)
            ys = shown
        self._zero_points = ((np.concatenate(zero_x), np.concatenate(zero_c)) if zero_x
                             else (np.zeros(0), np.zeros(0, int)))
        sides = [bool(right[i]) if i < len(right) else False for i in range(len(ys))]
        while len(self._items) > len(ys) or any(
                getattr(it, "archscope_right", False) != sides[i]
                for i, it in enumerate(self._items)):
            item = self._items.pop()           # (one that changes sides is made again)
            self.legend.removeItem(item)
            (self._right if getattr(item, "archscope_right", False)
             else self.plotItem).removeItem(item)
        if any(sides):
            self._right_box()
        self.right_used = any(sides)
        if getattr(self, "_right", None) is not None or self.plotItem.getAxis(
                "right").isVisible():
            self.plotItem.showAxis("right", self.right_used)
        for i, (xi, y, name) in enumerate(zip(xs, ys, names, strict=True)):
            symbol = symbols[i] if i < len(symbols) else None
            c = colours[i] if i < len(colours) else i
            style = {"symbol": symbol, "symbolSize": 5, "symbolPen": None,
                     "symbolBrush": series_pen(c).color()} if symbol else {"symbol": None}
            if i >= len(self._items) and sides[i]:
                item = pg.PlotDataItem(xi, y, pen=series_pen(c), name=name, **style)
                item.archscope_right = True
                self._right.addItem(item)
                self.legend.addItem(item, name)
                self._items.append(item)
                continue
            if i < len(self._items):
                item = self._items[i]
                # always: a reused item kept the colour an earlier call gave it (the flows
                # tab's "running mean" stayed the green of the untrained view's floor)
                if item.opts["pen"] is None or pg.mkPen(item.opts["pen"]).color() != \
                        series_pen(c).color():
                    item.setPen(series_pen(c))
                item.setData(xi, y, **style)
                label = self.legend.getLabel(item)
                if label is not None and label.text != name:   # setText measures it anew
                    label.setText(name)
            else:
                item = self.plotItem.plot(xi, y, pen=series_pen(c), name=name, **style)
                self._items.append(item)
        self._data = (xs, given)
        self._zero_legend()
        self.legend.setVisible(bool(self._items))
        self.plotItem.enableAutoRange()
        if getattr(self, "_right", None) is not None:
            self._right.enableAutoRange(axis=pg.ViewBox.YAxis)
        self._place_zero_marks()

    def curves(self) -> tuple[np.ndarray, np.ndarray]:
        return self._data

    def set_bands(self, x, lows: Sequence[np.ndarray], highs: Sequence[np.ndarray],
                  colours: Sequence[int] = ()) -> None:
        """A shaded band between ``lows[i]`` and ``highs[i]`` in curve i's colour (e.g. a
        95 % confidence interval); x: float[n] shared, or one array per band. Empty
        lists remove the bands. ``colours`` as in ``set_curves``. On a log axis the
        bounds are given in data units like the curves (values ≤ 0 are clipped)."""
        for band in self._bands:
            self.plotItem.removeItem(band)
        self._bands = []
        xs = list(x) if isinstance(x, (list, tuple)) else [np.asarray(x)] * len(lows)
        log_x, log_y = self._log
        for i, (xi, lo, hi) in enumerate(zip(xs, lows, highs, strict=True)):
            c = colours[i] if i < len(colours) else i
            colour = pg.mkColor(SERIES_COLOURS[c % len(SERIES_COLOURS)])
            colour.setAlpha(50)
            # a PlotCurveItem is not log-mapped by the plot (a PlotDataItem is): map here
            xi, lo, hi = (np.asarray(a, dtype=np.float64) for a in (xi, lo, hi))
            if log_x:
                xi = np.log10(_positive(xi))
            if log_y:
                both = _positive(np.concatenate([lo, hi]))
                lo, hi = np.log10(both[:len(lo)]), np.log10(both[len(lo):])
            lower, upper = pg.PlotCurveItem(xi, lo), pg.PlotCurveItem(xi, hi)
            band = pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(colour))
            band.setZValue(-1)
            self.plotItem.addItem(band)
            self._bands.append(band)


class GroupedBarsPlot(LabelledPlot):
    """Grouped bars: one group per category (e.g. a token), one bar per series."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent, axisItems={"bottom": _CategoryAxis("bottom")})
        self.plotItem.showGrid(y=True, alpha=0.25)
        self.legend = self.plotItem.addLegend(offset=(-10, 10), labelTextSize="8pt",
                                              brush=pg.mkBrush(255, 255, 255, 210),
                                              pen=pg.mkPen(LEGEND_BORDER))
        self.legend_placer = keep_clear(self.plotItem, self.legend)
        self._bars: list[pg.BarGraphItem] = []
        self._values = np.zeros((0, 0), np.float32)

    def set_bars(self, categories: Sequence[str], values: np.ndarray,
                 series: Sequence[str]) -> None:
        """values: float[series, categories]."""
        values = np.asarray(values, dtype=np.float32)
        for bar in self._bars:
            self.legend.removeItem(bar)
            self.plotItem.removeItem(bar)
        self._bars = []
        n = max(1, len(series))
        width = 0.8 / n
        x = np.arange(len(categories), dtype=np.float64)
        for i, name in enumerate(series):
            colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
            bar = pg.BarGraphItem(x=x - 0.4 + width * (i + 0.5), height=values[i], width=width,
                                  brush=colour, pen=pg.mkPen(colour))
            self.plotItem.addItem(bar)
            self.legend.addItem(bar, name)
            self._bars.append(bar)
        self.legend.setVisible(bool(series))     # no series: no empty frame over the plot
        self.plotItem.getAxis("bottom").setTicks([list(enumerate(categories))])
        self._values = values
        self.plotItem.autoRange()

    def values(self) -> np.ndarray:
        return self._values
