"""What a person checks on a plotted view, for the plane tabs' tests (flows, ODE, meta):
which data items draw something, whether the visible range stays inside an image's
rectangle (else white bands beside it), and the images' pixels being finite."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


def plot_items(widget) -> list[pg.PlotItem]:
    """The plot items of a PlotWidget or of a GraphicsLayoutWidget (colour bars left out)."""
    if isinstance(widget, pg.PlotWidget):
        return [widget.plotItem]
    return [item for item in widget.ci.items if isinstance(item, pg.PlotItem)
            and not isinstance(item, pg.ColorBarItem)]


def drawn(item) -> bool:
    """Whether a visible data item draws at least one point, bar or pixel."""
    if not item.isVisible():
        return False
    if isinstance(item, pg.ImageItem):
        return item.image is not None and np.asarray(item.image).size > 0
    if isinstance(item, pg.ScatterPlotItem):
        return len(item.data) > 0
    if isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)):
        x = item.getData()[0]
        return x is not None and len(x) > 0 and np.isfinite(np.asarray(x, float)).any()
    if isinstance(item, pg.BarGraphItem):
        return len(np.atleast_1d(item.opts.get("height", []))) > 0
    return False


def drawn_items(widget) -> list:
    """Every data item of the widget's plots that draws something."""
    out = []
    for plot in plot_items(widget):
        for item in plot.vb.addedItems:
            if drawn(item):
                out.append(item)
    return out


def uncovered(plot: pg.PlotItem, image: pg.ImageItem, tol: float = 1e-6) -> float:
    """How far (as a fraction of the visible span) the visible range of ``plot`` reaches
    past ``image``'s rectangle: 0 when the image fills the view box (no white band)."""
    (x0, x1), (y0, y1) = plot.vb.viewRange()
    r = image.mapRectToParent(image.boundingRect())
    past = max(r.left() - x0, x1 - r.right(), 0.0) / (x1 - x0)
    past_y = max(r.top() - y0, y1 - r.bottom(), 0.0) / (y1 - y0)
    out = max(past, past_y)
    return 0.0 if out < tol else out
