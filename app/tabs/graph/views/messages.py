"""The "Messages into node i" view: the matrix of the messages a node receives (one row
per neighbour, every neighbour named), their aggregate and the layer's update, the rows'
names and the read-out. It sees the tab's ``GraphResult``; its rows are spaced for the
view's height and laid out again when that changes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontMetricsF

from app.tabs.graph.views.graph import node_name
from app.tabs.view import TabView, ViewData
from models.traces.graphs import GraphResult
from viz.heatmap import HeatmapPlot, ask_minimum

translate = QCoreApplication.translate

__all__ = ["MessagesView", "agg_name"]


def agg_name(how: str) -> str:
    return {"sum": translate("GraphTab", "sum"),
            "mean": translate("GraphTab", "mean"),
            "max": translate("GraphTab", "max"),
            "add": translate("GraphTab", "sum")}.get(how, how)


class MessagesView(TabView):
    key = "messages"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        #: (gaps, edge, step) of the rows drawn last
        self.message_layout: tuple[int, int, int] | None = None
        #: the two sums' names, drawn over their rows
        self.message_names: list[pg.TextItem] = []

    def build(self) -> HeatmapPlot:
        # the colour bar under the matrix: at the right it took 60 of a ~210 px view and
        # left the 32 features ~30 px at 1280 × 800
        plot = HeatmapPlot("CET-D1", bar="bottom")
        # the rows are spaced for the view's height: laid out again when it changes
        plot.plotItem.vb.sigResized.connect(self._resized)
        return plot

    def title(self) -> str:
        r: GraphResult | None = self.trace
        if r is not None and r.message is not None:
            m = r.message
            return translate("GraphTab", "Messages into node {0}, layer {1}").format(
                node_name(r, m.node), m.layer + 1)
        return translate("GraphTab", "Message passing into the selected node")

    def draw(self, r: GraphResult, request) -> None:  # the matrix, row names, read-out
        m, plot = r.message, self.plot
        if m is None:
            plot.set_matrix(np.zeros((1, 1), np.float32))
            self._name_rows([])
            self.set_readout(translate("GraphTab", "Click a node on the graph."))
            return
        n = len(m.neighbors)
        self.message_layout = gaps, edge, step = self._message_rows(n)
        axis = plot.plotItem.getAxis("left")
        empty = np.full(m.messages.shape[1], np.nan)
        rows = [*[empty] * edge, *m.messages, *[empty] * gaps, m.aggregate, *[empty] * gaps,
                m.update, *[empty] * edge]
        width = max(len(m.aggregate), len(m.update))
        matrix = np.full((len(rows), width), np.nan, np.float32)
        for i, row in enumerate(rows):
            matrix[i, :len(row)] = row
        bound = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 1.0
        plot.set_matrix(matrix, levels=(-bound, bound))
        labels = [(edge + i, f"{node_name(r, j)}  c={c:.2f}") for i, (j, c) in
                  enumerate(zip(m.neighbors, m.coefficients, strict=True)) if i % step == 0]
        axis.setTicks([labels])
        # the two sums are named over their rows, in the gap above each, not on the axis:
        # "aggregate (sum)" was its widest label, and the axis took that width from the
        # features' columns (32 features in ~30 px at 1280 × 800, issue 32 item 10)
        self._name_rows([(edge + n + gaps, translate("GraphTab", "aggregate ({0})").format(
                              agg_name(m.aggregation))),
                         (edge + n + 2 * gaps + 1, translate("GraphTab", "update hᵢ′"))])
        if self._message_rows(n) != self.message_layout:  # names taller than the gaps were
            self.draw(r, request)                         # spaced for (a new language)
            return
        plot.set_axis_labels(translate("GraphTab", "feature"), "")
        if m.aggregation == m.model_aggregation:
            text = translate(
                "GraphTab", "update = the layer's output (max |Δ| {0:.1e})").format(
                    m.max_abs_difference)
            tip = translate(
                "GraphTab", "{0} layer {1} aggregates with {2}; the update row is the real "
                            "layer's output at this node, computed by the layer itself.")
        else:
            text = translate("GraphTab", "what if: {0} instead of {1}").format(
                agg_name(m.aggregation), agg_name(m.model_aggregation))
            tip = translate(
                "GraphTab", "{0} layer {1} really aggregates with {2}; the rows below show "
                            "what the same weights would give with {3}, not the model's "
                            "output.")
        self.set_readout(text)
        self.panel.readout.setToolTip(tip.format(m.kind.upper(), m.layer + 1,
                                                 agg_name(m.model_aggregation),
                                                 agg_name(m.aggregation)))

    def _name_rows(self, names: list[tuple[int, str]]) -> None:
        """Each (row, name) written level over the matrix's row ``row``, left-aligned with
        its first column, in the empty row above it (``_message_rows`` makes that a line
        tall), in the row axis' type."""
        items = self.message_names
        if not items:
            for _ in range(2):
                item = pg.TextItem(anchor=(0, 1), color="#222222")
                item.textItem.document().setDocumentMargin(1)     # a line and a pixel
                item._archscope_data_label = True      # names its row: part of the drawing
                self.plot.plotItem.addItem(item, ignoreBounds=True)
                items.append(item)
        axis = self.plot.plotItem.getAxis("left")
        font = axis.style.get("tickFont") or axis.font()
        for i, item in enumerate(items):
            item.setVisible(i < len(names))
            if i < len(names):
                row, text = names[i]
                item.setFont(font)
                item.setText(text)
                item.setPos(-0.5, row - 0.5)

    def _message_rows(self, n: int) -> tuple[int, int, int]:
        """How the messages of ``n`` neighbours are laid out at the view's height: empty
        rows between the parts (a line tall: the sums' names) and at the edges (the first
        and last labels not cut by the view's edges), as many as that takes; every
        neighbour's row named, a line apart: where the view is too short for that, it asks
        for the height (its panel grows, the grid scrolls), never names every n-th.
        (gaps, edge, 1)."""
        plot = self.plot
        axis = plot.plotItem.getAxis("left")
        line = QFontMetricsF(axis.style.get("tickFont") or axis.font()).height()
        height = plot.plotItem.vb.height()          # 0 before the first layout
        laid_out = height >= 60
        # a gap as tall as the names drawn in it (``_name_rows``; Chinese is taller)
        name = max([line, *(it.boundingRect().height() for it in self.message_names
                            if it.toPlainText())])
        if laid_out:
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

    def _resized(self, *_) -> None:
        """The messages drawn again when the view's new height spaces their rows otherwise
        (a window made smaller, a panel resized, the first layout after the first draw)."""
        r = self.trace
        m = None if r is None else r.message
        if m is not None and self._message_rows(len(m.neighbors)) != self.message_layout:
            self.draw(r, self.request)

    def data(self) -> ViewData | None:
        r = self.trace
        m = r.message if r is not None else None
        if m is None:
            return None
        return ViewData("messages", {"messages": m.messages, "aggregate": m.aggregate,
                                     "update": m.update, "coefficients": m.coefficients},
                        {"node": int(m.node), "layer": int(m.layer) + 1,
                         "aggregation": m.aggregation},
                        row_labels=[node_name(r, int(j)) for j in m.neighbors])
