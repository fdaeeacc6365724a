"""Drawing the graph tab's views from what it holds (its ``GraphResult``, the training
histories and the comparisons): the graph with its node colours and edge values, the
messages into a node, the hidden embedding, the training curves, the comparison, the
batch, the pooled embeddings and the ROC; and the hover texts. Each function takes the tab
and only draws (no model is run).

Texts are translated in the tab's context ("GraphTab"), as when these were its methods.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt

from app.tabs.base import View
from app.tabs.graph import communities, data, explaining, messages
from app.tabs.graph.data import node_name
from viz.graph_view import GraphCanvas
from viz.heatmap import HeatmapPlot
from viz.panel import MIN_WIDTH, ViewPanel
from viz.plots import CurvesPlot, GroupedBarsPlot
from viz.theme import MUTED

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab


def build_views(tab: GraphTab) -> None:
    """The eight views in their grid, with their titles and Export-data hooks."""
    tab.canvas = GraphCanvas()
    tab.canvas.nodeClicked.connect(tab._node_clicked)
    tab.canvas.set_hover_info(partial(node_info, tab))
    # the colour bar under the matrix: at the right it took 60 of a ~210 px view and left
    # the 32 features ~30 px at 1280 × 800
    tab.message_plot = HeatmapPlot("CET-D1", bar="bottom")
    # the rows are spaced for the view's height: laid out again when it changes
    tab.message_plot.plotItem.vb.sigResized.connect(partial(messages.resized, tab))
    tab.message_layout = None
    tab.curves_plot = CurvesPlot(legend="bottom-right")
    tab.curves_plot.legend.setColumnCount(2)         # short: the curves end up there
    tab.embedding_view = GraphCanvas(legend=False)   # the graph view has the legend
    tab.embedding_view.nodeClicked.connect(tab._node_clicked)
    tab.embedding_view.set_hover_info(partial(node_info, tab))
    tab.compare_plot = GroupedBarsPlot()
    tab.batch_plot = HeatmapPlot("viridis")
    tab.pooled_view = GraphCanvas()                  # its legend names the motifs
    tab.pooled_view.set_hover_info(partial(graph_info, tab))
    tab.roc_plot = CurvesPlot(legend="bottom-right")
    # chance, the diagonal: drawn once, dashed, without a legend entry (the legend, one
    # entry, then fits under the diagonal instead of pushing the small plot up)
    tab.roc_chance = pg.PlotCurveItem([0.0, 1.0], [0.0, 1.0],
                                      pen=pg.mkPen(MUTED, width=1.2, style=Qt.PenStyle.DashLine))
    tab.roc_plot.plotItem.addItem(tab.roc_chance)
    views = (
        ("graph", tab.canvas, data.graph_data),
        ("messages", tab.message_plot, data.messages_data),
        ("embedding", tab.embedding_view, data.embedding_data),
        ("training", tab.curves_plot, data.training_data),
        ("compare", tab.compare_plot, data.compare_data),
        ("batch", tab.batch_plot, data.batch_data),
        ("pooled", tab.pooled_view, data.pooled_data),
        ("links", tab.roc_plot, data.links_data),
    )
    for key, widget, export in views:
        row, col, rows, cols = NARROW[key]
        tab.add_view(View(key, partial(title, tab, key), ViewPanel(widget),
                          partial(export, tab)), row, col, rows, cols)
    communities.build_view(tab, *NARROW["communities"][:2])
    tab._grid_wide = None
    tab.grid_scroll.viewport().installEventFilter(_Arranger(tab))


#: where each view goes (row, column, rows, columns) where four columns fit: three rows,
#: all in sight at 1600 × 1000 (a fourth row, the mini-batch alone, was below the fold),
#: the graph and the messages over two rows (the messages ask the height that names every
#: neighbour); and where only three fit (1280 × 800: four would scroll sideways)
WIDE = {"graph": (0, 0, 2, 1), "messages": (0, 1, 2, 1), "embedding": (0, 2, 1, 1),
        "training": (1, 2, 1, 1), "compare": (0, 3, 1, 1), "links": (1, 3, 1, 1),
        "communities": (2, 0, 1, 1), "batch": (2, 1, 1, 1), "pooled": (2, 2, 1, 2)}
NARROW = {"graph": (0, 0, 2, 1), "messages": (0, 1, 1, 1), "embedding": (0, 2, 1, 1),
          "training": (1, 1, 1, 1), "compare": (1, 2, 1, 1), "communities": (2, 0, 1, 1),
          "pooled": (2, 1, 1, 1), "links": (2, 2, 1, 1), "batch": (3, 0, 1, 1)}
STRETCH = {True: ((5, 3, 3, 3), (3, 3, 3, 0)), False: ((5, 3, 3, 0), (3, 3, 3, 3))}


def arrange(tab: GraphTab, width: int) -> None:
    """Four columns where ``width`` (the grid's visible width) holds four views at their
    least width, else three; the views move only when that changes (``_grid_wide``)."""
    grid = tab.grid
    m = grid.contentsMargins()
    wide = width >= 4 * MIN_WIDTH + 3 * grid.horizontalSpacing() + m.left() + m.right()
    if wide == tab._grid_wide:
        return
    tab._grid_wide = wide
    places = WIDE if wide else NARROW
    for view in tab.views:
        grid.removeWidget(view.panel)
    for view in tab.views:
        grid.addWidget(view.panel, *places[view.key])
    columns, rows = STRETCH[wide]
    for c, stretch in enumerate(columns):
        grid.setColumnStretch(c, stretch)
    for r, stretch in enumerate(rows):
        grid.setRowStretch(r, stretch)


class _Arranger(QObject):
    """Arranges the graph tab's views for the width of the grid's viewport."""

    def __init__(self, tab: GraphTab) -> None:
        super().__init__(tab)
        self.tab = tab
        arrange(tab, 0)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's API
        if event.type() == QEvent.Type.Resize:
            arrange(self.tab, event.size().width())
        return False


def title(tab: GraphTab, key: str) -> str:
    r = tab.result
    if key == "graph" and r is not None:
        return QCoreApplication.translate("GraphTab", "{0}: {1} nodes, {2} edges").format(
            r.name, r.doc.data.num_nodes, len(r.doc.edges))
    if key == "messages" and r is not None and r.message is not None:
        m = r.message
        return QCoreApplication.translate("GraphTab", "Messages into node {0}, layer {1}"
                                          ).format(node_name(tab, m.node), m.layer + 1)
    return {"graph": QCoreApplication.translate("GraphTab", "Graph"),
            "messages": QCoreApplication.translate(
                "GraphTab", "Message passing into the selected node"),
            "embedding": QCoreApplication.translate(
                "GraphTab", "Hidden embedding of every node (PCA)"),
            "training": QCoreApplication.translate(
                "GraphTab", "Node classification: loss and accuracy"),
            "compare": QCoreApplication.translate(
                "GraphTab", "GCN, GraphSAGE, GAT and a baseline on one split"),
            "batch": QCoreApplication.translate(
                "GraphTab", "A mini-batch: graphs collated into one block-diagonal graph"),
            "pooled": QCoreApplication.translate(
                "GraphTab", "Graph classification: pooled embedding per graph"),
            "links": QCoreApplication.translate(
                "GraphTab", "Link prediction: ROC on held-out edges")}[key]


def draw_all(tab: GraphTab) -> None:
    """Every view from the tab's result, and the titles."""
    with tab.canvas.batch():            # one redraw for all the canvas setters
        draw_nodes(tab)
        draw_edges(tab)
    messages.draw_messages(tab)
    draw_embedding(tab)
    draw_training(tab)
    draw_compare(tab)
    draw_batch(tab)
    draw_pooled(tab)
    draw_links(tab)
    communities.redraw(tab, canvas=False)
    tab.explain_readout.setText(explaining.readout(tab))
    for v in tab.views:
        v.panel.set_title(v.title())


# -- the graph ---------------------------------------------------------------------------------
def label_names(tab: GraphTab) -> list[str]:
    return list(tab.result.doc.label_names)


def node_colours(tab: GraphTab) -> dict:
    """The colouring of the nodes as chosen: keyword arguments of set_node_colors."""
    r, p = tab.result, tab.params()
    doc, node = r.doc, r.node
    if p["colour"] == "prediction":
        return {"values": node.predictions, "categorical": True,
                "names": label_names(tab),
                "title": QCoreApplication.translate("GraphTab", "prediction")}
    if p["colour"] == "correct":
        codes = np.where(doc.labels < 0, -1, (node.predictions == doc.labels).astype(int))
        return {"values": codes, "categorical": True,
                "names": [QCoreApplication.translate("GraphTab", "wrong"),
                          QCoreApplication.translate("GraphTab", "right")],
                "title": QCoreApplication.translate("GraphTab", "prediction against label")}
    if p["colour"] == "community":
        return communities.node_colours(tab)
    if p["colour"] == "degree":
        return {"values": doc.degree.astype(np.float32), "categorical": False,
                "title": QCoreApplication.translate("GraphTab", "degree")}
    if p["colour"] == "attribute" and tab.colour_combo.currentData():
        name = tab.colour_combo.currentData()
        column = doc.node_attributes.get(name)
        title = QCoreApplication.translate("GraphTab", "attribute “{0}”").format(name)
        if column is not None and column.dtype.kind == "f":
            return {"values": column, "categorical": False, "title": title}
        if column is not None:
            codes, names = doc.categorical(name)
            if len(names) <= 40:
                return {"values": codes, "categorical": True, "names": list(names),
                        "title": title}
    # the attribute's name is data: quoted, under a translated heading
    return {"values": doc.labels, "categorical": True, "names": label_names(tab),
            "title": QCoreApplication.translate("GraphTab", "label “{0}”").format(
                doc.label_attr) if doc.label_attr else
            QCoreApplication.translate("GraphTab", "label")}


def draw_nodes(tab: GraphTab) -> None:
    r, p = tab.result, tab.params()
    colours = node_colours(tab)
    values = colours.pop("values")
    if colours.get("categorical") and not (np.asarray(values) >= 0).any():
        values = None                                  # no labels at all: one colour
    tab.canvas.set_node_colors(values, **colours)
    tab.canvas.set_node_opacity(communities.opacity(tab))
    sizes = None
    if p["size"] == "degree":
        sizes = r.doc.degree.astype(np.float32)
    elif p["size"] == "attribute":
        column = r.doc.node_attributes.get(tab.colour_combo.currentData() or "")
        if column is not None and column.dtype.kind == "f":
            sizes = np.nan_to_num(column, nan=np.nanmin(column, initial=0.0))
    tab.canvas.set_node_sizes(sizes)
    message = r.message
    # communities are about the whole graph: no receptive field faded around the node
    # (its fading would read as DMoN's low confidence)
    hops = message.hops if message is not None and p["colour"] != "community" else None
    tab.canvas.set_highlight(hops, message.node if message is not None else -1)
    if message is None:
        tab.canvas.select(-1)


def draw_edges(tab: GraphTab) -> None:  # one branch per thing the edges can show
    r, p = tab.result, tab.params()
    doc = r.doc
    readout = ""
    tab.canvas.set_overlay_edges(None)
    if explaining.draw_edges(tab):     # an explanation of the node shown: its edge mask
        return
    if p["edges"] == "weight" and doc.edge_weight is not None:
        tab.canvas.set_edge_values(doc.edge_weight, cmap="viridis",
                                   title=QCoreApplication.translate("GraphTab", "edge weight"))
    elif p["edges"] == "gcn" and r.gcn is not None:
        e = r.gcn
        tab.canvas.set_edge_values(e.values, edges=e.edge_index.T, cmap="viridis",
                                   title=QCoreApplication.translate(
                                       "GraphTab", "GCN coefficient 1/√(d̂ᵢ d̂ⱼ)"))
    elif p["edges"] == "gat" and r.gat is not None:
        values = head_values(r.gat.values, p["head"])
        heads = r.gat.values.shape[1] if r.gat.values.ndim == 2 else 1
        readout = QCoreApplication.translate("GraphTab", "GAT layer {0} has {1} head(s)"
                                             ).format(min(p["layer"], 2), heads)
        if p["head"] not in ("mean", "max") and int(p["head"]) > heads:
            readout += QCoreApplication.translate(
                "GraphTab", "; head {0} does not exist: head {1} is shown").format(
                    p["head"], heads)
        tab.canvas.set_edge_values(values, edges=r.gat.edge_index.T, half=True,
                                   levels=(0.0, float(max(values.max(), 1e-6))),
                                   title=QCoreApplication.translate(
                                       "GraphTab", "GAT attention αᵢⱼ (half edge at i)"))
    elif p["edges"] == "sage" and r.sample is not None:
        s = r.sample
        tab.canvas.set_edge_values(s.edge_hop.astype(np.float32), edges=s.edges.T,
                                   half=True, cmap="viridis",
                                   levels=(1.0, float(max(2, s.edge_hop.max(initial=1)))),
                                   title=QCoreApplication.translate("GraphTab",
                                                                    "sampled at hop"))
    else:
        tab.canvas.set_edge_values(None)
    link = r.link
    if link is not None and link.epoch > 0 and p["links"]:    # an untrained guess: not drawn
        k = min(p["links"], len(link.top_pairs))
        tab.canvas.set_overlay_edges(link.top_pairs[:k], link.top_scores[:k],
                                     title=QCoreApplication.translate(
                                         "GraphTab", "top-scoring non-edges"))
    tab.view("graph").panel.set_readout(readout)


# -- messages, embedding, training, comparison -------------------------------------------------
def draw_embedding(tab: GraphTab) -> None:
    node = tab.result.node
    emb = node.embedding
    colours = node_colours(tab)
    values = colours.pop("values")
    with tab.embedding_view.batch():
        if tab.embedding_view.node_count() != len(emb):
            tab.embedding_view.set_graph(emb, np.zeros((0, 2), np.int64))
        else:
            tab.embedding_view.set_positions(emb)
        tab.embedding_view.set_node_colors(values, **colours)
    var = np.asarray(node.explained_variance, np.float64)
    tab.embedding_view.set_axis_labels(*[QCoreApplication.translate(
        "GraphTab", "PC {0} ({1:.0%} of the variance)").format(i + 1, v)
        for i, v in enumerate(var[:2])])
    tab.view("embedding").panel.set_readout(QCoreApplication.translate(
        "GraphTab", "epoch {0}: test accuracy {1:.2f}").format(node.epoch, node.test_acc)
        if (tab.result.doc.labels >= 0).any() else
        QCoreApplication.translate("GraphTab", "No labels: choose a label attribute to train."))


def draw_training(tab: GraphTab) -> None:
    history = tab.histories.get(tab._session_key())
    node = tab.result.node
    untrained = not history
    labelled = bool((tab.result.doc.labels >= 0).any())
    if untrained:             # the model as initialised: one point per curve at its epoch
        history = [{"epoch": node.epoch, "loss": node.loss, "train_acc": node.train_acc,
                    "val_acc": node.val_acc, "test_acc": node.test_acc}] if labelled else []
    h = {k: np.asarray([row[k] for row in history], np.float32).reshape(-1)
         for k in ("epoch", "loss", "train_acc", "val_acc", "test_acc")}
    names = [QCoreApplication.translate("GraphTab", "loss"),
             QCoreApplication.translate("GraphTab", "train accuracy"),
             QCoreApplication.translate("GraphTab", "validation accuracy"),
             QCoreApplication.translate("GraphTab", "test accuracy")]
    tab.curves_plot.set_curves(
        [h["epoch"]] * 4 if history else [],
        [h["loss"], h["train_acc"], h["val_acc"], h["test_acc"]] if history else [],
        names if history else [], symbols=["o"] * 4 if untrained else (),
        right=[False, True, True, True])         # two quantities: two axes
    tab.curves_plot.set_axis_labels(QCoreApplication.translate("GraphTab", "epoch"),
                                    QCoreApplication.translate("GraphTab", "loss"),
                                    QCoreApplication.translate("GraphTab", "accuracy"))
    tab.curves_plot.set_hint("")
    panel = tab.view("training").panel
    if untrained:             # what to press under the plot, the plot keeps to the data
        panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Untrained (epoch {0}): press “Train”.").format(node.epoch)
            if labelled else
            QCoreApplication.translate("GraphTab", "No labels: choose a label attribute "
                                                   "to train."))
        top = max(1.0, float(np.nanmax([node.loss, 1.0])) * 1.1)
        tab.curves_plot.plotItem.setXRange(node.epoch, node.epoch + tab.params()["epochs"],
                                           padding=0.02)
        tab.curves_plot.plotItem.setYRange(0.0, top, padding=0.02)
    else:
        last = history[-1]
        panel.set_readout(QCoreApplication.translate(
            "GraphTab", "epoch {0}: loss {1:.3f} · test accuracy {2:.2f}").format(
                int(last["epoch"]), last["loss"], last["test_acc"]))


def draw_compare(tab: GraphTab) -> None:
    """Test accuracy of the three models and the baseline: as initialised (computed with
    the graph) and, once "Compare" ran on this split, after training."""
    trained = tab.comparisons.get(tab._compare_key())
    untrained = tab.result.untrained
    names = {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT",
             "baseline": QCoreApplication.translate("GraphTab", "baseline")}
    keys = [k for k in ("gcn", "sage", "gat", "baseline")
            if any(c is not None and k in c.kinds for c in (untrained, trained))]
    series, rows = [], []
    for comparison, name in (
            (untrained, QCoreApplication.translate("GraphTab", "untrained")),
            (trained, QCoreApplication.translate("GraphTab", "after {0} epochs").format(
                tab.params()["epochs"]))):
        if comparison is not None:
            c = comparison.as_dict()
            series.append(name)
            rows.append([c.get(k, np.nan) for k in keys])
    # the model trained with Train, as it is now (the bars said "untrained" only after
    # 200 epochs of GCN): beside the untrained ones, its kind's bar only
    here = data.trained_here(tab)
    if here is not None and here[0] in keys:
        series.insert(1, QCoreApplication.translate("GraphTab", "{0} trained, epoch {1}")
                      .format(names[here[0]], here[1]))
        rows.insert(1, [here[2] if k == here[0] else np.nan for k in keys])
    panel = tab.view("compare").panel
    tab.compare_plot.set_bars([names[k] for k in keys],
                              np.array(rows, np.float32).reshape(len(rows), len(keys)),
                              series)
    tab.compare_plot.plotItem.setYRange(0, 1, padding=0.02)
    tab.compare_plot.set_axis_labels("", QCoreApplication.translate("GraphTab",
                                                                    "test accuracy"))
    baseline = QCoreApplication.translate("GraphTab", "baseline = nearest labelled node")
    if trained is None:
        if untrained is not None:
            text = QCoreApplication.translate(
                "GraphTab", "Press “Compare” to train all three on this split.") + " · " + baseline
            if here is not None:
                text = QCoreApplication.translate(
                    "GraphTab", "{0} after {1} epochs: test accuracy {2:.2f}.").format(
                    names[here[0]], here[1], here[2]) + " " + text
        elif tab.result.untrained_error:           # e.g. too few labels for a split
            text = tab.result.untrained_error
        elif (tab.result.doc.labels >= 0).any():   # worked out once the tab is seen
            text = QCoreApplication.translate(
                "GraphTab", "Working out the untrained models' accuracies…")
        else:
            text = QCoreApplication.translate(
                "GraphTab", "No labels: choose a label attribute to compare.")
        panel.set_readout(text)
        return
    c = trained.as_dict()
    panel.set_readout("  ".join(f"{names[k]} {c[k]:.2f}" for k in keys if k in c)
                      + " · " + baseline)


# -- batch, pooled embeddings, links --------------------------------------------------------------
def draw_batch(tab: GraphTab) -> None:
    b = tab.result.batch
    if b is None:
        return
    tab.batch_plot.set_matrix(b.adjacency, levels=(0.0, 1.0))
    tab.batch_plot.set_axis_labels(QCoreApplication.translate("GraphTab", "node of the batch"),
                                   QCoreApplication.translate("GraphTab", "node of the batch"))
    tab.view("batch").panel.set_readout(QCoreApplication.translate(
        "GraphTab", "batch = {0} · ptr = {1}").format(compress(b.batch),
                                                      list(map(int, b.ptr))))


def motif_names() -> list[str]:
    return [QCoreApplication.translate("GraphTab", "house"),
            QCoreApplication.translate("GraphTab", "cycle")]


def draw_pooled(tab: GraphTab) -> None:
    g = tab.result.graphs
    if g is None:            # no classifier could be set up (it is, untrained, normally)
        tab.pooled_view.set_graph(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.int64))
        tab.pooled_view.set_axis_labels(None, None)
        tab.view("pooled").panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Press “Train graph classifier”: house vs cycle motifs."))
        return
    tab.pooled_view.set_axis_labels(
        QCoreApplication.translate("GraphTab", "PC {0}").format(1),
        QCoreApplication.translate("GraphTab", "PC {0}").format(2))
    with tab.pooled_view.batch():
        if tab.pooled_view.node_count() != len(g.embedding):
            tab.pooled_view.set_graph(g.embedding, np.zeros((0, 2), np.int64))
        else:
            tab.pooled_view.set_positions(g.embedding)
        tab.pooled_view.set_node_colors(g.predictions, categorical=True, names=motif_names(),
                                        title=QCoreApplication.translate("GraphTab",
                                                                         "predicted motif"))
    state = QCoreApplication.translate("GraphTab", "untrained: press “Train graph "
                                                   "classifier”") if g.epoch == 0 else \
        QCoreApplication.translate("GraphTab", "epoch {0}").format(g.epoch)
    tab.view("pooled").panel.set_readout(QCoreApplication.translate(
        "GraphTab", "{0} pooling · train accuracy {1:.2f} · test {2:.2f}").format(
            messages.agg_name(g.pooling), g.train_acc, g.test_acc) + " · " + state)


def draw_links(tab: GraphTab) -> None:
    link = tab.result.link
    tab.roc_plot.set_axis_labels(QCoreApplication.translate("GraphTab", "false positive rate"),
                                 QCoreApplication.translate("GraphTab", "true positive rate"))
    panel = tab.view("links").panel
    chance = QCoreApplication.translate("GraphTab", "Dashed: chance (AUC 0.5).")
    if link is None:         # no predictor could be set up (too few edges, a huge graph)
        tab.roc_plot.set_curves([], [], [])
        panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Press “Train link predictor”.") + " " + chance)
    else:
        curve = (QCoreApplication.translate("GraphTab", "untrained, AUC {0:.3f}")
                 if link.epoch == 0 else
                 QCoreApplication.translate("GraphTab", "epoch {0}, AUC {1:.3f}"))
        tab.roc_plot.set_curves([link.roc[:, 0]], [link.roc[:, 1]],
                                [curve.format(link.test_auc) if link.epoch == 0 else
                                 curve.format(link.epoch, link.test_auc)])
        panel.set_readout((QCoreApplication.translate(
            "GraphTab", "Press “Train link predictor”.") if link.epoch == 0 else
            QCoreApplication.translate("GraphTab", "Held-out test edges against as many "
                                                   "non-edges.")) + " " + chance)
    tab.roc_plot.plotItem.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.02)


# -- hover texts and names -------------------------------------------------------------------------
def node_info(tab: GraphTab, i: int) -> str:
    r = tab.result
    if r is None or not 0 <= i < r.doc.data.num_nodes:
        return ""
    doc, node = r.doc, r.node
    names = label_names(tab)
    lines = [QCoreApplication.translate("GraphTab", "node {0} (index {1}) · degree {2}").format(
        doc.node_ids[i], i, int(doc.degree[i]))]
    label = int(doc.labels[i])
    if label >= 0:
        lines.append(QCoreApplication.translate("GraphTab", "label: {0}").format(
            names[label] if label < len(names) else label))
    pred = int(node.predictions[i])
    lines.append(QCoreApplication.translate("GraphTab", "prediction: {0} (p = {1:.2f})").format(
        names[pred] if pred < len(names) else pred, float(node.probabilities[i].max())))
    for name, column in list(doc.node_attributes.items())[:6]:
        value = column[i]
        lines.append(f"{name}: {value:.4g}" if column.dtype.kind == "f" else
                     f"{name}: {str(value)[:40]}")
    return "\n".join(lines)


def graph_info(tab: GraphTab, i: int) -> str:
    g = tab.result.graphs if tab.result is not None else None
    if g is None or not 0 <= i < len(g.predictions):
        return ""
    motif = motif_names()
    return QCoreApplication.translate("GraphTab", "graph {0}: motif {1}, predicted {2} ({3})"
                                      ).format(
        i, motif[int(g.labels[i])], motif[int(g.predictions[i])],
        QCoreApplication.translate("GraphTab", "train") if g.train_mask[i]
        else QCoreApplication.translate("GraphTab", "test"))


def head_values(values: np.ndarray, head: str) -> np.ndarray:
    """One value per edge from α of shape [E, heads]: the mean, the max or one head."""
    values = np.atleast_2d(values.T).T if values.ndim == 1 else values
    if head == "mean":
        return values.mean(axis=1)
    if head == "max":
        return values.max(axis=1)
    return values[:, min(int(head) - 1, values.shape[1] - 1)]


def compress(batch: np.ndarray) -> str:
    """[0 0 0 1 1 2] → "[0×3, 1×2, 2×1]"."""
    values, counts = np.unique(batch, return_counts=True)
    return "[" + ", ".join(f"{v}×{c}" for v, c in zip(values, counts, strict=True)) + "]"
