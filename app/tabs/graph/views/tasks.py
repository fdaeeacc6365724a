"""The views of PyG's batching and the two other tasks: a mini-batch of motif graphs as
one block-diagonal adjacency, graph classification's pooled embeddings, and link
prediction's ROC on held-out edges. Each sees the tab's ``GraphResult``."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt

from app.tabs.graph.views.messages import agg_name
from app.tabs.view import TabView, ViewData
from models.traces.graphs import GraphResult
from viz.graph_view import GraphCanvas
from viz.heatmap import HeatmapPlot
from viz.plots import CurvesPlot
from viz.theme import MUTED

translate = QCoreApplication.translate

__all__ = ["BatchView", "PooledView", "LinksView", "compress"]


def compress(batch: np.ndarray) -> str:
    """[0 0 0 1 1 2] → "[0×3, 1×2, 2×1]"."""
    values, counts = np.unique(batch, return_counts=True)
    return "[" + ", ".join(f"{v}×{c}" for v, c in zip(values, counts, strict=True)) + "]"


class BatchView(TabView):
    key = "batch"

    def build(self) -> HeatmapPlot:
        return HeatmapPlot("viridis")

    def title(self) -> str:
        return translate("GraphTab",
                         "A mini-batch: graphs collated into one block-diagonal graph")

    def draw(self, r: GraphResult, request) -> None:
        b = r.batch
        if b is None:
            return
        self.plot.set_matrix(b.adjacency, levels=(0.0, 1.0))
        self.plot.set_axis_labels(translate("GraphTab", "node of the batch"),
                                  translate("GraphTab", "node of the batch"))
        self.set_readout(translate("GraphTab", "batch = {0} · ptr = {1}").format(
            compress(b.batch), list(map(int, b.ptr))))

    def data(self) -> ViewData | None:
        b = self.trace.batch if self.trace is not None else None
        if b is None:
            return None
        return ViewData("adjacency", {"adjacency": b.adjacency, "batch": b.batch,
                                      "ptr": b.ptr}, {"graphs": int(len(b.ptr) - 1)})


def motif_names() -> list[str]:
    return [translate("GraphTab", "house"), translate("GraphTab", "cycle")]


class PooledView(TabView):
    key = "pooled"

    def build(self) -> GraphCanvas:
        canvas = GraphCanvas()                  # its legend names the motifs
        canvas.set_hover_info(self._hover)
        return canvas

    def title(self) -> str:
        return translate("GraphTab", "Graph classification: pooled embedding per graph")

    def draw(self, r: GraphResult, request) -> None:
        g, canvas = r.graphs, self.plot
        if g is None:        # no classifier could be set up (it is, untrained, normally)
            canvas.set_graph(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.int64))
            canvas.set_axis_labels(None, None)
            self.set_readout(translate(
                "GraphTab", "Press “Train graph classifier”: house vs cycle motifs."))
            return
        canvas.set_axis_labels(translate("GraphTab", "PC {0}").format(1),
                               translate("GraphTab", "PC {0}").format(2))
        with canvas.batch():
            if canvas.node_count() != len(g.embedding):
                canvas.set_graph(g.embedding, np.zeros((0, 2), np.int64))
            else:
                canvas.set_positions(g.embedding)
            canvas.set_node_colors(g.predictions, categorical=True, names=motif_names(),
                                   title=translate("GraphTab", "predicted motif"))
        state = translate("GraphTab", "untrained: press “Train graph classifier”") \
            if g.epoch == 0 else translate("GraphTab", "epoch {0}").format(g.epoch)
        self.set_readout(translate(
            "GraphTab", "{0} pooling · train accuracy {1:.2f} · test {2:.2f}").format(
                agg_name(g.pooling), g.train_acc, g.test_acc) + " · " + state)

    def _hover(self, i: int) -> str:
        g = self.trace.graphs if self.trace is not None else None
        if g is None or not 0 <= i < len(g.predictions):
            return ""
        motif = motif_names()
        return translate("GraphTab", "graph {0}: motif {1}, predicted {2} ({3})").format(
            i, motif[int(g.labels[i])], motif[int(g.predictions[i])],
            translate("GraphTab", "train") if g.train_mask[i]
            else translate("GraphTab", "test"))

    def data(self) -> ViewData | None:
        g = self.trace.graphs if self.trace is not None else None
        if g is None:
            return None
        return ViewData("pooled", {"pooled": g.embedding, "predictions": g.predictions,
                                   "labels": g.labels}, {"pooling": g.pooling},
                        col_labels=["pc1", "pc2"])


class LinksView(TabView):
    key = "links"

    def build(self) -> CurvesPlot:
        plot = CurvesPlot(legend="bottom-right")
        # chance, the diagonal: drawn once, dashed, without a legend entry (the legend, one
        # entry, then fits under the diagonal instead of pushing the small plot up)
        self.chance = pg.PlotCurveItem([0.0, 1.0], [0.0, 1.0], pen=pg.mkPen(
            MUTED, width=1.2, style=Qt.PenStyle.DashLine))
        plot.plotItem.addItem(self.chance)
        return plot

    def title(self) -> str:
        return translate("GraphTab", "Link prediction: ROC on held-out edges")

    def draw(self, r: GraphResult, request) -> None:
        link, plot = r.link, self.plot
        plot.set_axis_labels(translate("GraphTab", "false positive rate"),
                             translate("GraphTab", "true positive rate"))
        chance = translate("GraphTab", "Dashed: chance (AUC 0.5).")
        if link is None:     # no predictor could be set up (too few edges, a huge graph)
            plot.set_curves([], [], [])
            self.set_readout(translate("GraphTab", "Press “Train link predictor”.") + " "
                             + chance)
        else:
            curve = (translate("GraphTab", "untrained, AUC {0:.3f}") if link.epoch == 0 else
                     translate("GraphTab", "epoch {0}, AUC {1:.3f}"))
            plot.set_curves([link.roc[:, 0]], [link.roc[:, 1]],
                            [curve.format(link.test_auc) if link.epoch == 0 else
                             curve.format(link.epoch, link.test_auc)])
            self.set_readout((translate("GraphTab", "Press “Train link predictor”.")
                              if link.epoch == 0 else
                              translate("GraphTab", "Held-out test edges against as many "
                                                    "non-edges.")) + " " + chance)
        plot.plotItem.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.02)

    def data(self) -> ViewData | None:
        link = self.trace.link if self.trace is not None else None
        if link is None:
            return None
        return ViewData("roc", {"roc": link.roc, "top_pairs": link.top_pairs,
                                "top_scores": link.top_scores},
                        {"test_auc": link.test_auc, "val_auc": link.val_auc},
                        col_labels=["false_positive_rate", "true_positive_rate"])
