"""One look for every view: light background (figures go on slides and into papers)."""

from __future__ import annotations

import pyqtgraph as pg

DIVERGING = "CET-D1"   # blue - white - red, for signed values such as PE entries
SEQUENTIAL = "viridis"
SERIES_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                  "#8c564b", "#e377c2")
HIGHLIGHT = "#e8a200"


def apply() -> None:
    """Global pyqtgraph options; call once before any view is created."""
    pg.setConfigOptions(background="w", foreground="k", antialias=True,
                        imageAxisOrder="row-major")


def colormap(name: str) -> pg.ColorMap:
    return pg.colormap.get(name)


def series_pen(i: int, width: float = 1.0):
    return pg.mkPen(SERIES_COLOURS[i % len(SERIES_COLOURS)], width=width)
