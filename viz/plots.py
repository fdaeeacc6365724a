"""Line and bar plots that are created once and updated with new arrays."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF

from viz.legend import CORNERS, keep_clear
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
    of 1280×800), every second name drops one line; the axis keeps the room for two
    lines from then on (giving it back would resize the plot on every paint)."""

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

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph's API
        specs = super().generateDrawSpecs(p)
        if specs is None or self.orientation != "bottom" or len(specs[2]) < 2:
            return specs
        axis, ticks, texts = specs
        texts = sorted(texts, key=lambda t: t[0].center().x())
        if all(a[0].right() + self.GAP <= b[0].left()
               for a, b in zip(texts[:-1], texts[1:], strict=True)):
            return axis, ticks, texts
        line = max(rect.height() for rect, _, _ in texts)
        texts = [(rect.translated(0, line) if i % 2 else rect, flags, text)
                 for i, (rect, flags, text) in enumerate(texts)]
        self._updateMaxTextSize(int(np.ceil(2 * line)))
        return axis, ticks, texts


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

    def set_axis_labels(self, x: str, y: str) -> None:
        self.plotItem.setLabel("bottom", x)
        self.plotItem.setLabel("left", y)


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

    def set_hint(self, text: str) -> None:
        """A centred note shown while the plot has no curves (e.g. what to press); a
        newline in ``text`` breaks the line."""
        set_hint_text(self.hint, text)

    def set_curves(self, x, ys, names: Sequence[str], symbols: Sequence[str | None] = (),
                   colours: Sequence[int] = ()) -> None:
        """x: float[n] shared by all curves, or one array per curve; ys: float[c, n] or a
        list of arrays; ``symbols``: a pyqtgraph symbol per curve (None = line only);
        ``colours``: a series-colour index per curve (default: its position), so a curve
        keeps its colour when others are left out."""
        if isinstance(ys, np.ndarray):
            ys = np.atleast_2d(np.asarray(ys, dtype=np.float32))
            ys = [] if ys.size == 0 else list(ys)
        xs = list(x) if isinstance(x, (list, tuple)) else [np.asarray(x)] * len(ys)
        while len(self._items) > len(ys):
            item = self._items.pop()
            self.legend.removeItem(item)
            self.plotItem.removeItem(item)
        for i, (xi, y, name) in enumerate(zip(xs, ys, names, strict=True)):
            symbol = symbols[i] if i < len(symbols) else None
            c = colours[i] if i < len(colours) else i
            style = {"symbol": symbol, "symbolSize": 5, "symbolPen": None,
                     "symbolBrush": series_pen(c).color()} if symbol else {"symbol": None}
            if i < len(self._items):
                item = self._items[i]
                if colours:
                    item.setPen(series_pen(c))
                item.setData(xi, y, **style)
                if self.legend.getLabel(item) is not None:
                    self.legend.getLabel(item).setText(name)
            else:
                item = self.plotItem.plot(xi, y, pen=series_pen(c), name=name, **style)
                self._items.append(item)
        self._data = (xs, ys)
        self.legend.setVisible(bool(self._items))
        self.plotItem.enableAutoRange()

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
