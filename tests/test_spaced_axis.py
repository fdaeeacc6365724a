"""A heatmap's value axes (viz.plots.SpacedAxis) never print their labels into each other.

The graph tab's messages heatmap is ~30 px wide in a 1280×800 window; pyqtgraph spaced
its feature axis by length alone and printed "0 5 10 15" as "0510"."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from viz.heatmap import HeatmapPlot
from viz.plots import SpacedAxis


def labels(axis: pg.AxisItem) -> list[tuple[float, float, str]]:
    """The axis's tick labels as drawn: (left, right, text), left to right."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return sorted((r.left(), r.right(), t) for r, _, t in texts)


def heatmap(qtbot, width: int, columns: int, axis=None) -> HeatmapPlot:
    kwargs = {} if axis is None else {"axisItems": {"bottom": axis}}
    plot = HeatmapPlot("viridis", **kwargs)
    qtbot.addWidget(plot)
    plot.resize(width, 200)
    plot.set_matrix(np.random.default_rng(0).normal(size=(6, columns)).astype(np.float32))
    plot.show()
    qtbot.waitExposed(plot)
    widths = []                      # the layout settles over a few passes

    def settled() -> bool:
        widths.append(plot.plotItem.vb.width())
        return len(widths) > 3 and len(set(widths[-3:])) == 1
    qtbot.waitUntil(settled, timeout=5_000)
    return plot


@pytest.mark.parametrize("width", [90, 110, 140, 200])
def test_a_narrow_heatmaps_feature_labels_keep_apart(qtbot, width):
    plot = heatmap(qtbot, width, 16)
    drawn = labels(plot.plotItem.getAxis("bottom"))
    # a scale still (pyqtgraph leaves out a label that would stick out of the axis's
    # ends, so the narrowest keep one)
    assert len(drawn) >= (2 if width >= 200 else 1), (plot.plotItem.vb.width(), drawn)
    for (_, right, a), (left, _, b) in zip(drawn[:-1], drawn[1:], strict=True):
        assert right + SpacedAxis.GAP / 2 <= left, f"{a!r} runs into {b!r} in {drawn}"


def test_pyqtgraphs_own_axis_ran_them_together_and_a_wide_one_is_left_as_it_was(qtbot):
    own = heatmap(qtbot, 110, 16, pg.AxisItem("bottom"))
    drawn = labels(own.getPlotItem().getAxis("bottom"))
    assert any(right > left for (_, right, _), (left, _, _) in zip(drawn[:-1], drawn[1:],
                                                                  strict=False))
    # where the labels fit, the ticks are pyqtgraph's
    wide, plain = heatmap(qtbot, 700, 16), heatmap(qtbot, 700, 16, pg.AxisItem("bottom"))
    ours = wide.plotItem.getAxis("bottom")
    theirs = plain.plotItem.getAxis("bottom")
    assert ours.tickSpacing(-0.5, 15.5, 600) == theirs.tickSpacing(-0.5, 15.5, 600)
    assert [t for _, _, t in labels(ours)] == [t for _, _, t in labels(theirs)]
