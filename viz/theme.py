"""One look for every view: light background (figures go on slides and into papers)."""

from __future__ import annotations

import pyqtgraph as pg

from viz import axis_grid, axis_label, fonts, legend

DIVERGING = "CET-D1"   # blue - white - red, for signed values such as PE entries
SEQUENTIAL = "viridis"
SERIES_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                  "#8c564b", "#e377c2")
HIGHLIGHT = "#e8a200"
#: categorical palette: Tableau 10 without its grey (grey means "no class") plus two
#: dark colours from Paul Tol's set; colour-blind friendly, cycles beyond 11 classes
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#332288", "#117733")
ERROR = "#a33"          # text of a note that says what went wrong (dark red)
MUTED = "#555"          # text of a secondary note or an empty plot's hint (dark grey)
LEGEND_BORDER = "#bbbbbb"


def apply() -> None:
    """Global pyqtgraph options; call once before any view is created."""
    pg.setConfigOptions(background="w", foreground="k", antialias=True,
                        imageAxisOrder="row-major")
    _no_auto_si_prefix()
    axis_grid.install()         # grids drawn as strips on screen: the same pixels, faster
    axis_label.install()        # an axis label longer than its axis wraps, never cut
    legend.install()            # legend entries in a grid as wide as its columns
    fonts.prefer_simplified_chinese()   # Chinese in its SC glyphs, not the JP ones


def _no_auto_si_prefix() -> None:
    """No axis rescales its ticks by an SI prefix. pyqtgraph turns 0.05 … 0.15 into
    50 … 150 and puts "(x0.001)" or "(m…)" into the axis label; a translated or
    replaced label lost that note and the axis read a thousand times too much. Our
    labels carry their own units, so every axis shows the plain values.

    Switching it off is not enough: pyqtgraph's ``enableAutoSIPrefix(False)`` works out
    the prefix once more for the range shown at that moment and keeps it, so an axis
    switched off while it showed 0 … 1e-4 read 0.05 as 50,000 from then on (the ODE
    tab's loss axis, switched off again at every language change, read 0.12 as 120).
    With auto prefixes off, the scale is 1."""
    init = pg.AxisItem.__init__
    if getattr(init, "_archscope_plain", False):
        return
    update = pg.AxisItem.updateAutoSIPrefix

    def plain_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.enableAutoSIPrefix(False)

    def plain_update(self):
        if self.autoSIPrefix:
            return update(self)
        self.autoSIPrefixScale, self.labelUnitPrefix = 1.0, ""
        self._updateLabel()
        return None

    plain_init._archscope_plain = True
    pg.AxisItem.__init__ = plain_init
    pg.AxisItem.updateAutoSIPrefix = plain_update


def colormap(name: str) -> pg.ColorMap:
    return pg.colormap.get(name)


def error_style() -> str:
    """Style sheet for a label that reports a problem."""
    return f"color: {ERROR};"


def muted_style() -> str:
    """Style sheet for a label that is a side note."""
    return f"color: {MUTED};"


def series_pen(i: int, width: float = 1.0):
    return pg.mkPen(SERIES_COLOURS[i % len(SERIES_COLOURS)], width=width)
