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
from PySide6.QtCore import QCoreApplication

from app.tabs.base import View
from app.tabs.graph import data
from app.tabs.graph.data import node_name
from viz.graph_view import PALETTE, GraphCanvas
from viz.heatmap import HeatmapPlot
from viz.panel import ViewPanel
from viz.plots import CurvesPlot, GroupedBarsPlot

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab


def build_views(tab: GraphTab) -> None:
    """The eight views in their grid, with their titles and Export-data hooks."""
    tab.canvas = GraphCanvas()
    tab.canvas.nodeClicked.connect(tab._node_clicked)
    tab.canvas.set_hover_info(partial(node_info, tab))
    tab.message_plot = HeatmapPlot("CET-D1")
    tab.curves_plot = CurvesPlot(legend="bottom-right")
    tab.curves_plot.legend.setColumnCount(2)         # short: the curves end up there
    tab.embedding_view = GraphCanvas(legend=False)   # the graph view has the legend
    tab.embedding_view.nodeClicked.connect(tab._node_clicked)
    tab.embedding_view.set_hover_info(partial(node_info, tab))
    tab.compare_plot = GroupedBarsPlot()
    tab.batch_plot = HeatmapPlot("viridis")
    tab.pooled_view = GraphCanvas(legend=False)      # the read-out names the colours
    tab.pooled_view.set_hover_info(partial(graph_info, tab))
    tab.roc_plot = CurvesPlot(legend="bottom-right")
    views = (
        ("graph", tab.canvas, data.graph_data, 0, 0, 2, 1),
        ("messages", tab.message_plot, data.messages_data, 0, 1, 1, 1),
        ("embedding", tab.embedding_view, data.embedding_data, 0, 2, 1, 1),
        ("training", tab.curves_plot, data.training_data, 1, 1, 1, 1),
        ("compare", tab.compare_plot, data.compare_data, 1, 2, 1, 1),
        ("batch", tab.batch_plot, data.batch_data, 2, 0, 1, 1),
        ("pooled", tab.pooled_view, data.pooled_data, 2, 1, 1, 1),
        ("links", tab.roc_plot, data.links_data, 2, 2, 1, 1),
    )
    for key, widget, export, row, col, rows, cols in views:
        tab.add_view(View(key, partial(title, tab, key), ViewPanel(widget),
                          partial(export, tab)), row, col, rows, cols)
    tab.grid.setColumnStretch(0, 5)
    tab.grid.setColumnStretch(1, 3)
    tab.grid.setColumnStretch(2, 3)
    for r, stretch in enumerate((3, 3, 2)):
        tab.grid.setRowStretch(r, stretch)


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
    draw_messages(tab)
    draw_embedding(tab)
    draw_training(tab)
    draw_compare(tab)
    draw_batch(tab)
    draw_pooled(tab)
    draw_links(tab)
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
    if p["colour"] == "degree":
        return {"values": doc.degree.astype(np.float32), "categorical": False,
                "title": QCoreApplication.translate("GraphTab", "degree")}
    if p["colour"] == "attribute" and tab.colour_combo.currentData():
        name = tab.colour_combo.currentData()
        column = doc.node_attributes.get(name)
        if column is not None and column.dtype.kind == "f":
            return {"values": column, "categorical": False, "title": name}
        if column is not None:
            codes, names = doc.categorical(name)
            if len(names) <= 40:
                return {"values": codes, "categorical": True, "names": list(names),
                        "title": name}
    return {"values": doc.labels, "categorical": True, "names": label_names(tab),
            "title": doc.label_attr or QCoreApplication.translate("GraphTab", "label")}


def draw_nodes(tab: GraphTab) -> None:
    r, p = tab.result, tab.params()
    colours = node_colours(tab)
    values = colours.pop("values")
    if colours.get("categorical") and not (np.asarray(values) >= 0).any():
        values = None                                  # no labels at all: one colour
    tab.canvas.set_node_colors(values, **colours)
    sizes = None
    if p["size"] == "degree":
        sizes = r.doc.degree.astype(np.float32)
    elif p["size"] == "attribute":
        column = r.doc.node_attributes.get(tab.colour_combo.currentData() or "")
        if column is not None and column.dtype.kind == "f":
            sizes = np.nan_to_num(column, nan=np.nanmin(column, initial=0.0))
    tab.canvas.set_node_sizes(sizes)
    message = r.message
    tab.canvas.set_highlight(message.hops if message is not None else None,
                             message.node if message is not None else -1)
    if message is None:
        tab.canvas.select(-1)


def draw_edges(tab: GraphTab) -> None:  # one branch per thing the edges can show
    r, p = tab.result, tab.params()
    doc = r.doc
    readout = ""
    tab.canvas.set_overlay_edges(None)
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
    if link is not None and p["links"]:
        k = min(p["links"], len(link.top_pairs))
        tab.canvas.set_overlay_edges(link.top_pairs[:k], link.top_scores[:k],
                                     title=QCoreApplication.translate(
                                         "GraphTab", "top-scoring non-edges"))
    tab.view("graph").panel.set_readout(readout)


# -- messages, embedding, training, comparison -------------------------------------------------
def draw_messages(tab: GraphTab) -> None:  # the matrix, its row names and the read-out
    m = tab.result.message
    if m is None:
        tab.message_plot.set_matrix(np.zeros((1, 1), np.float32))
        tab.view("messages").panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Click a node on the graph."))
        return
    rows = [*m.messages, np.full(m.messages.shape[1], np.nan), m.aggregate]
    width = max(len(m.aggregate), len(m.update))
    matrix = np.full((len(rows) + 1, width), np.nan, np.float32)
    for i, row in enumerate(rows):
        matrix[i, :len(row)] = row
    matrix[-1, :len(m.update)] = m.update
    bound = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 1.0
    tab.message_plot.set_matrix(matrix, levels=(-bound, bound))
    # every neighbour's row named where they fit (about 14 rows), else every k-th
    step = max(1, -(-len(m.neighbors) // 14))
    labels = [(i, f"{node_name(tab, j)}  c={c:.2f}") for i, (j, c) in
              enumerate(zip(m.neighbors, m.coefficients, strict=True)) if i % step == 0]
    labels += [(len(m.neighbors) + 1, QCoreApplication.translate(
                   "GraphTab", "aggregate ({0})").format(agg_name(m.aggregation))),
               (len(m.neighbors) + 2, QCoreApplication.translate("GraphTab", "update hᵢ′"))]
    tab.message_plot.plotItem.getAxis("left").setTicks([labels])
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
    tab.view("embedding").panel.set_readout(QCoreApplication.translate(
        "GraphTab", "epoch {0}: test accuracy {1:.2f}").format(node.epoch, node.test_acc)
        if (tab.result.doc.labels >= 0).any() else
        QCoreApplication.translate("GraphTab", "No labels: choose a label attribute to train."))


def draw_training(tab: GraphTab) -> None:
    history = tab.histories.get(tab._session_key())
    if not history:
        tab.curves_plot.set_curves([], [], [])
        tab.curves_plot.set_hint(QCoreApplication.translate(
            "GraphTab", "Press “Train” to fit the model on the\n"
                        "labelled nodes; the colours follow."))
        return
    tab.curves_plot.set_hint("")
    h = {k: np.asarray([row[k] for row in history], np.float32)
         for k in ("epoch", "loss", "train_acc", "val_acc", "test_acc")}
    tab.curves_plot.set_curves(
        h["epoch"], np.stack([h["loss"], h["train_acc"], h["val_acc"], h["test_acc"]]),
        [QCoreApplication.translate("GraphTab", "loss"),
         QCoreApplication.translate("GraphTab", "train accuracy"),
         QCoreApplication.translate("GraphTab", "validation accuracy"),
         QCoreApplication.translate("GraphTab", "test accuracy")])
    tab.curves_plot.set_axis_labels(QCoreApplication.translate("GraphTab", "epoch"), "")


def draw_compare(tab: GraphTab) -> None:
    comparison = tab.comparisons.get(tab._compare_key())
    if comparison is None:
        tab.compare_plot.set_bars([], np.zeros((1, 0)),
                                  [QCoreApplication.translate("GraphTab", "test accuracy")])
        tab.compare_plot.plotItem.setYRange(0, 1)
        tab.view("compare").panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Press “Compare” to train all three on this split."))
        return
    c = comparison.as_dict()
    names = {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT",
             "baseline": QCoreApplication.translate("GraphTab", "nearest labelled node")}
    keys = [k for k in ("gcn", "sage", "gat", "baseline") if k in c]
    tab.compare_plot.set_bars([names[k] for k in keys],
                              np.array([[c[k] for k in keys]], np.float32),
                              [QCoreApplication.translate("GraphTab", "test accuracy")])
    tab.view("compare").panel.set_readout("  ".join(f"{names[k]} {c[k]:.2f}" for k in keys))


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
    if g is None:
        tab.pooled_view.set_graph(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.int64))
        tab.view("pooled").panel.set_readout(QCoreApplication.translate(
            "GraphTab", "Press “Train graph classifier”: house vs cycle motifs."))
        return
    with tab.pooled_view.batch():
        if tab.pooled_view.node_count() != len(g.embedding):
            tab.pooled_view.set_graph(g.embedding, np.zeros((0, 2), np.int64))
        else:
            tab.pooled_view.set_positions(g.embedding)
        tab.pooled_view.set_node_colors(g.predictions, categorical=True, names=motif_names(),
                                        title=QCoreApplication.translate("GraphTab",
                                                                         "predicted motif"))
    keys = " ".join(f"<span style='color:{PALETTE[i]}'>●</span> {name}" for i, name in
                    enumerate(motif_names()))
    tab.view("pooled").panel.set_readout(keys + " · " + QCoreApplication.translate(
        "GraphTab", "{0} pooling · train accuracy {1:.2f} · test {2:.2f}").format(
            agg_name(g.pooling), g.train_acc, g.test_acc))


def draw_links(tab: GraphTab) -> None:
    link = tab.result.link
    if link is None:
        tab.roc_plot.set_curves([], [], [])
        tab.roc_plot.set_hint(QCoreApplication.translate("GraphTab",
                                                         "Press “Train link predictor”."))
        return
    tab.roc_plot.set_hint("")
    diag = np.array([0.0, 1.0], np.float32)
    tab.roc_plot.set_curves([link.roc[:, 0], diag], [link.roc[:, 1], diag],
                            [QCoreApplication.translate("GraphTab", "test edges, AUC {0:.3f}"
                                                        ).format(link.test_auc),
                             QCoreApplication.translate("GraphTab", "chance")])
    tab.roc_plot.set_axis_labels(QCoreApplication.translate("GraphTab", "false positive rate"),
                                 QCoreApplication.translate("GraphTab", "true positive rate"))


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


def agg_name(how: str) -> str:
    return {"sum": QCoreApplication.translate("GraphTab", "sum"),
            "mean": QCoreApplication.translate("GraphTab", "mean"),
            "max": QCoreApplication.translate("GraphTab", "max"),
            "add": QCoreApplication.translate("GraphTab", "sum")}.get(how, how)


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
