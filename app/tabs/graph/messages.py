"""The graph tab's "Messages into node i" view: the matrix of the messages a node
receives (one row per neighbour, every neighbour named), their aggregate and the layer's
update, the rows' names and the read-out. Split from :mod:`app.tabs.graph.drawing`,
which calls :func:`draw_messages`; texts are translated in the tab's context
("GraphTab").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontMetricsF

from app.tabs.graph.data import node_name
from viz.heatmap import ask_minimum

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab


def draw_messages(tab: GraphTab) -> None:  # the matrix, its row names and the read-out
    m = tab.result.message
    if m is None:
        tab.message_plot.set_matrix(np.zeros((1, 1), np.float32))
        _name_rows(tab, [])
        tab.view("messages").panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Click a node on the graph."))
        return
    n = len(m.neighbors)
    tab.message_layout = gaps, edge, step = _message_rows(tab, n)
    axis = tab.message_plot.plotItem.getAxis("left")
    empty = np.full(m.messages.shape[1], np.nan)
    rows = [*[empty] * edge, *m.messages, *[empty] * gaps, m.aggregate, *[empty] * gaps,
            m.update, *[empty] * edge]
    width = max(len(m.aggregate), len(m.update))
    matrix = np.full((len(rows), width), np.nan, np.float32)
    for i, row in enumerate(rows):
        matrix[i, :len(row)] = row
    bound = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 1.0
    tab.message_plot.set_matrix(matrix, levels=(-bound, bound))
    labels = [(edge + i, f"{node_name(tab, j)}  c={c:.2f}") for i, (j, c) in
              enumerate(zip(m.neighbors, m.coefficients, strict=True)) if i % step == 0]
    axis.setTicks([labels])
    # the two sums are named over their rows, in the gap above each, not on the axis:
    # "aggregate (sum)" was its widest label, and the axis took that width from the
    # features' columns (32 features in ~30 px at 1280 × 800, issue 32 item 10)
    _name_rows(tab, [(edge + n + gaps, QCoreApplication.translate(
                          "GraphTab", "aggregate ({0})").format(agg_name(m.aggregation))),
                     (edge + n + 2 * gaps + 1, QCoreApplication.translate("GraphTab",
                                                                          "update hᵢ′"))])
    if _message_rows(tab, n) != tab.message_layout:     # names taller than the gaps were
        draw_messages(tab)                              # spaced for (a new language)
        return
    tab.message_plot.set_axis_labels(QCoreApplication.translate("GraphTab", "feature"), "")
    if m.aggregation == m.model_aggregation:
        text = QCoreApplication.translate(
            "GraphTab", "update = the layer's output (max |Δ| {0:.1e})").format(
                m.max_abs_difference)
        tip = QCoreApplication.translate(
            "GraphTab", "{0} layer {1} aggregates with {2}; the update row is the real "
                        "layer's output at this node, computed by the layer itself.")
    else:
        text = QCoreApplication.translate("GraphTab", "what if: {0} instead of {1}").format(
            agg_name(m.aggregation), agg_name(m.model_aggregation))
        tip = QCoreApplication.translate(
            "GraphTab", "{0} layer {1} really aggregates with {2}; the rows below show what "
                        "the same weights would give with {3}, not the model's output.")
    panel = tab.view("messages").panel
    panel.set_readout(text)
    panel.readout.setToolTip(tip.format(m.kind.upper(), m.layer + 1,
                                        agg_name(m.model_aggregation),
                                        agg_name(m.aggregation)))


def _name_rows(tab: GraphTab, names: list[tuple[int, str]]) -> None:
    """Each (row, name) written level over the matrix's row ``row``, left-aligned with
    its first column, in the empty row above it (``_message_rows`` makes that a line
    tall), in the row axis' type."""
    items = getattr(tab, "message_names", None)
    if items is None:
        items = tab.message_names = []
        for _ in range(2):
            item = pg.TextItem(anchor=(0, 1), color="#222222")
            item.textItem.document().setDocumentMargin(1)     # a line and a pixel
            item._archscope_data_label = True      # names its row: part of the drawing
            tab.message_plot.plotItem.addItem(item, ignoreBounds=True)
            items.append(item)
    axis = tab.message_plot.plotItem.getAxis("left")
    font = axis.style.get("tickFont") or axis.font()
    for i, item in enumerate(items):
        item.setVisible(i < len(names))
        if i < len(names):
            row, text = names[i]
            item.setFont(font)
            item.setText(text)
            item.setPos(-0.5, row - 0.5)


def _message_rows(tab: GraphTab, n: int) -> tuple[int, int, int]:
    """How the messages of ``n`` neighbours are laid out at the view's height: empty rows
    between the parts (a line tall: the sums' names) and at the edges (the first and last
    labels not cut by the view's edges), as many as that takes; every neighbour's row
    named, a line apart: where the view is too short for that, it asks for the height
    (its panel grows, the grid scrolls), never names every n-th. (gaps, edge, 1)."""
    axis = tab.message_plot.plotItem.getAxis("left")
    line = QFontMetricsF(axis.style.get("tickFont") or axis.font()).height()
    height = tab.message_plot.plotItem.vb.height()          # 0 before the first layout
    laid_out = height >= 60
    # a gap as tall as the names drawn in it (``_name_rows``; Chinese is taller)
    name = max([line, *(it.boundingRect().height() for it in getattr(tab, "message_names", ())
                        if it.toPlainText())])
    if laid_out:
        plot = tab.message_plot
        # n + 4 rows a line apart (the sums, a row at each edge) and two gaps of g rows
        need = min((n + 4 + 2 * g) * max(line, name / g) for g in (1, 2, 3))
        ask_minimum(plot, 0, int(np.ceil(need + plot.height() - height)))
        if need > height + 0.5:
            return 1, 1, 1          # until the view has grown
    gaps = edge = 1
    for _ in range(16):
        pitch = height / (n + 2 * gaps + 2 * edge + 2)
        if not laid_out or (gaps * pitch >= name and (edge + 0.5) * pitch >= line / 2):
            break
        if gaps * pitch < name:
            gaps += 1
        else:
            edge += 1
    return gaps, edge, 1


def resized(tab: GraphTab, *_) -> None:
    """The messages drawn again when the view's new height spaces their rows otherwise
    (a window made smaller, a panel resized, the first layout after the first draw)."""
    result = getattr(tab, "result", None)
    m = None if result is None else result.message
    if m is not None and _message_rows(tab, len(m.neighbors)) != tab.message_layout:
        draw_messages(tab)


def agg_name(how: str) -> str:
    return {"sum": QCoreApplication.translate("GraphTab", "sum"),
            "mean": QCoreApplication.translate("GraphTab", "mean"),
            "max": QCoreApplication.translate("GraphTab", "max"),
            "add": QCoreApplication.translate("GraphTab", "sum")}.get(how, how)
