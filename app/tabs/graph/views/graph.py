"""The views of the graph itself: the canvas (node colours and sizes, what the edges
show, the explanation's edge mask, the predicted links) and the hidden embedding of every
node, coloured as the canvas. Both see a ``GraphShown``: the tab's result and what else
colours it (the colour attribute, the communities found, the explanation shown)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication, Signal

from app.tabs.view import TabView, ViewData
from models.graphs.options import GraphRequest
from models.traces.graphs import GraphResult
from viz.graph_view import GraphCanvas

translate = QCoreApplication.translate

__all__ = ["GraphShown", "GraphView", "EmbeddingView", "node_colours", "node_name",
           "head_values", "method_name", "threshold_rule"]


@dataclass(frozen=True)
class GraphShown:
    """The tab's result and what colours it besides the request: the attribute chosen in
    the attribute box, the communities found on the graph drawn and the explanation of
    the selected node (None where there is none)."""

    result: GraphResult
    colour_attribute: str | None = None
    community: Any = None              # a CommunityResult of this graph
    explanation: Any = None            # a NodeExplanation of the node shown


def node_name(result: GraphResult | None, i: int) -> str:
    """Node ``i``'s id in the drawn graph (its index when there is none)."""
    if result is None or not 0 <= i < len(result.doc.node_ids):
        return str(i)
    return result.doc.node_ids[i]


def community_method_name(method: str) -> str:
    return {"louvain": translate("GraphTab", "Louvain"),
            "label_propagation": translate("GraphTab", "label propagation"),
            "spectral": translate("GraphTab", "spectral clustering"),
            "dmon": translate("GraphTab", "DMoN (GCN)")}.get(method, method)


def method_name(method: str) -> str:
    """An explanation method's name."""
    return {"gnnexplainer": translate("GraphTab", "GNNExplainer"),
            "attention": translate("GraphTab", "GAT attention")}.get(method, method)


def threshold_rule(x) -> str:
    """How the explanation's edges were cut from the mask, said as the readout says it:
    the method's threshold (``options.THRESHOLDS``) when the marked edges are exactly
    those it gives, else "the top k" (attention; an older session file's top edges)."""
    from models.explain.options import THRESHOLDS

    kind, value = THRESHOLDS.get(x.method, ("", 0))
    if kind == "hard" and np.array_equal(x.explanation_edges, x.edge_mask > value):
        return translate("GraphTab", "mask > {0:g}").format(value)
    return translate("GraphTab", "the top {0} by importance").format(
        int(x.explanation_edges.sum()))


def _community_colours(shown: GraphShown) -> dict:
    """Keyword arguments of ``set_node_colors`` for "Colour nodes by: community"."""
    result = shown.community
    if result is None:          # no partition yet: one colour (a -1 per node)
        return {"values": np.full(shown.result.doc.num_nodes, -1, np.int64),
                "categorical": True,
                "title": translate("GraphTab", "community (none found yet)")}
    return {"values": result.labels, "categorical": True,
            "names": [str(c) for c in range(result.k)],
            "title": translate("GraphTab", "communities: {0}").format(
                community_method_name(result.method))}


def node_colours(shown: GraphShown, ask: GraphRequest) -> dict:
    """The colouring of the nodes as chosen: keyword arguments of set_node_colors."""
    r = shown.result
    doc, node = r.doc, r.node
    label_names = list(doc.label_names)
    if ask.colour == "prediction":
        return {"values": node.predictions, "categorical": True, "names": label_names,
                "title": translate("GraphTab", "prediction")}
    if ask.colour == "correct":
        codes = np.where(doc.labels < 0, -1, (node.predictions == doc.labels).astype(int))
        return {"values": codes, "categorical": True,
                "names": [translate("GraphTab", "wrong"), translate("GraphTab", "right")],
                "title": translate("GraphTab", "prediction against label")}
    if ask.colour == "community":
        return _community_colours(shown)
    if ask.colour == "degree":
        return {"values": doc.degree.astype(np.float32), "categorical": False,
                "title": translate("GraphTab", "degree")}
    if ask.colour == "attribute" and shown.colour_attribute:
        name = shown.colour_attribute
        column = doc.node_attributes.get(name)
        title = translate("GraphTab", "attribute “{0}”").format(name)
        if column is not None and column.dtype.kind == "f":
            return {"values": column, "categorical": False, "title": title}
        if column is not None:
            codes, names = doc.categorical(name)
            if len(names) <= 40:
                return {"values": codes, "categorical": True, "names": list(names),
                        "title": title}
    # the attribute's name is data: quoted, under a translated heading
    return {"values": doc.labels, "categorical": True, "names": label_names,
            "title": translate("GraphTab", "label “{0}”").format(doc.label_attr)
            if doc.label_attr else translate("GraphTab", "label")}


def head_values(values: np.ndarray, head: str) -> np.ndarray:
    """One value per edge from α of shape [E, heads]: the mean, the max or one head."""
    values = np.atleast_2d(values.T).T if values.ndim == 1 else values
    if head == "mean":
        return values.mean(axis=1)
    if head == "max":
        return values.max(axis=1)
    return values[:, min(int(head) - 1, values.shape[1] - 1)]


def _node_info(result: GraphResult | None, i: int) -> str:
    if result is None or not 0 <= i < result.doc.data.num_nodes:
        return ""
    doc, node = result.doc, result.node
    names = list(doc.label_names)
    lines = [translate("GraphTab", "node {0} (index {1}) · degree {2}").format(
        doc.node_ids[i], i, int(doc.degree[i]))]
    label = int(doc.labels[i])
    if label >= 0:
        lines.append(translate("GraphTab", "label: {0}").format(
            names[label] if label < len(names) else label))
    pred = int(node.predictions[i])
    lines.append(translate("GraphTab", "prediction: {0} (p = {1:.2f})").format(
        names[pred] if pred < len(names) else pred, float(node.probabilities[i].max())))
    for name, column in list(doc.node_attributes.items())[:6]:
        value = column[i]
        lines.append(f"{name}: {value:.4g}" if column.dtype.kind == "f" else
                     f"{name}: {str(value)[:40]}")
    return "\n".join(lines)


class GraphView(TabView):
    """The graph on its canvas. ``nodeClicked`` is a node's index (-1: the background).
    ``show_nodes`` and ``show_edges`` draw one part again (a new colouring, an
    explanation) without the other."""

    key = "graph"
    nodeClicked = Signal(int)  # noqa: N815 - Qt's naming

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._previous: GraphResult | None = None

    def build(self) -> GraphCanvas:
        canvas = GraphCanvas()
        canvas.nodeClicked.connect(self.nodeClicked)
        canvas.set_hover_info(self._hover)
        return canvas

    def _hover(self, i: int) -> str:
        return _node_info(self.trace.result if self.trace is not None else None, i)

    def title(self) -> str:
        r = self.trace.result if self.trace is not None else None
        if r is None:
            return translate("GraphTab", "Graph")
        return translate("GraphTab", "{0}: {1} nodes, {2} edges").format(
            r.name, r.doc.data.num_nodes, len(r.doc.edges))

    def show(self, shown: GraphShown, request=None) -> None:
        self._previous = self.trace.result if self.trace is not None else None
        super().show(shown, request)

    def draw(self, shown: GraphShown, ask: GraphRequest) -> None:
        r, previous, canvas = shown.result, self._previous, self.plot
        doc = r.doc
        if previous is None or previous.doc is not doc:
            canvas.set_graph(r.pos, doc.edges, directed=doc.directed)
            canvas.set_node_labels(list(doc.node_ids))
        elif previous.layout_key != r.layout_key:
            canvas.set_positions(r.pos, animate=True)
        with canvas.batch():            # one redraw for all the canvas setters
            self._draw_nodes(shown, ask)
            self._draw_edges(shown, ask)

    def show_nodes(self, shown: GraphShown, ask: GraphRequest) -> None:
        self.trace, self.request = shown, ask
        with self.plot.batch():
            self._draw_nodes(shown, ask)

    def show_edges(self, shown: GraphShown, ask: GraphRequest) -> None:
        self.trace, self.request = shown, ask
        with self.plot.batch():
            self._draw_edges(shown, ask)

    def _draw_nodes(self, shown: GraphShown, ask: GraphRequest) -> None:
        r, canvas = shown.result, self.plot
        colours = node_colours(shown, ask)
        values = colours.pop("values")
        if colours.get("categorical") and not (np.asarray(values) >= 0).any():
            values = None                                  # no labels at all: one colour
        canvas.set_node_colors(values, **colours)
        # DMoN's confidence per node when the nodes show its communities
        canvas.set_node_opacity(shown.community.confidence if shown.community is not None
                                and ask.colour == "community" else None)
        sizes = None
        if ask.size == "degree":
            sizes = r.doc.degree.astype(np.float32)
        elif ask.size == "attribute":
            column = r.doc.node_attributes.get(shown.colour_attribute or "")
            if column is not None and column.dtype.kind == "f":
                sizes = np.nan_to_num(column, nan=np.nanmin(column, initial=0.0))
        canvas.set_node_sizes(sizes)
        message = r.message
        # communities are about the whole graph: no receptive field faded around the node
        # (its fading would read as DMoN's low confidence)
        hops = message.hops if message is not None and ask.colour != "community" else None
        canvas.set_highlight(hops, message.node if message is not None else -1)
        if message is None:
            canvas.select(-1)

    def _draw_explanation(self, shown: GraphShown) -> bool:
        """The explanation's edge mask on the canvas; False when there is none for what
        is shown."""
        x, r = shown.explanation, shown.result
        if x is None or x.edge_index.shape[1] != r.doc.data.edge_index.shape[1]:
            return False
        peak = float(max(x.edge_mask.max(initial=0.0), 1e-6))
        self.plot.set_edge_values(x.edge_mask, edges=x.edge_index.T, half=True,
                                  levels=(0.0, peak), cmap="magma", width_range=(0.5, 5.0),
                                  title=translate("GraphTab", "importance"))
        top = x.explanation_edges
        rule = threshold_rule(x)
        self.plot.set_overlay_edges(x.edge_index.T[top], x.edge_mask[top],
                                    title=translate("GraphTab", "the explanation ({0})"
                                                    ).format(rule))
        self.set_readout(translate(   # the count first
            "GraphTab", "dashed: the explanation, {1} edges ({2}); width and colour of each "
            "edge: {0}'s importance").format(method_name(x.method), int(top.sum()), rule))
        return True

    def _draw_edges(self, shown: GraphShown, ask: GraphRequest) -> None:  # a branch each
        r, canvas = shown.result, self.plot
        doc = r.doc
        readout = ""
        canvas.set_overlay_edges(None)
        if self._draw_explanation(shown):  # an explanation of the node shown: its edge mask
            return
        if ask.edges == "weight" and doc.edge_weight is not None:
            canvas.set_edge_values(doc.edge_weight, cmap="viridis",
                                   title=translate("GraphTab", "edge weight"))
        elif ask.edges == "gcn" and r.gcn is not None:
            e = r.gcn
            canvas.set_edge_values(e.values, edges=e.edge_index.T, cmap="viridis",
                                   title=translate("GraphTab", "GCN coefficient 1/√(d̂ᵢ d̂ⱼ)"))
        elif ask.edges == "gat" and r.gat is not None:
            values = head_values(r.gat.values, ask.head)
            heads = r.gat.values.shape[1] if r.gat.values.ndim == 2 else 1
            readout = translate("GraphTab", "GAT layer {0} has {1} head(s)").format(
                min(ask.layer, 2), heads)
            if ask.head not in ("mean", "max") and int(ask.head) > heads:
                readout += translate(
                    "GraphTab", "; head {0} does not exist: head {1} is shown").format(
                        ask.head, heads)
            canvas.set_edge_values(values, edges=r.gat.edge_index.T, half=True,
                                   levels=(0.0, float(max(values.max(), 1e-6))),
                                   title=translate("GraphTab",
                                                   "GAT attention αᵢⱼ (half edge at i)"))
        elif ask.edges == "sage" and r.sample is not None:
            s = r.sample
            canvas.set_edge_values(s.edge_hop.astype(np.float32), edges=s.edges.T,
                                   half=True, cmap="viridis",
                                   levels=(1.0, float(max(2, s.edge_hop.max(initial=1)))),
                                   title=translate("GraphTab", "sampled at hop"))
        else:
            canvas.set_edge_values(None)
        link = r.link
        if link is not None and link.epoch > 0 and ask.links:  # an untrained guess: not drawn
            k = min(ask.links, len(link.top_pairs))
            canvas.set_overlay_edges(link.top_pairs[:k], link.top_scores[:k],
                                     title=translate("GraphTab", "top-scoring non-edges"))
        self.set_readout(readout)

    def data(self) -> ViewData | None:
        r = self.trace.result if self.trace is not None else None
        if r is None:
            return None
        doc, node = r.doc, r.node
        table = np.column_stack([r.pos, doc.labels, node.predictions, doc.degree]
                                ).astype(np.float32)
        return ViewData("nodes", {"nodes": table, "edges": doc.edges},
                        {"graph": r.name, "directed": doc.directed},
                        row_labels=list(doc.node_ids),
                        col_labels=["x", "y", "label", "prediction", "degree"])


class EmbeddingView(TabView):
    """Every node's hidden embedding (PCA), coloured as the graph's nodes."""

    key = "embedding"
    nodeClicked = Signal(int)  # noqa: N815 - Qt's naming

    def build(self) -> GraphCanvas:
        canvas = GraphCanvas(legend=False)   # the graph view has the legend
        canvas.nodeClicked.connect(self.nodeClicked)
        canvas.set_hover_info(lambda i: _node_info(
            self.trace.result if self.trace is not None else None, i))
        return canvas

    def title(self) -> str:
        return translate("GraphTab", "Hidden embedding of every node (PCA)")

    def draw(self, shown: GraphShown, ask: GraphRequest) -> None:
        result = shown.result
        node, canvas = result.node, self.plot
        emb = node.embedding
        colours = node_colours(shown, ask)
        values = colours.pop("values")
        with canvas.batch():
            if canvas.node_count() != len(emb):
                canvas.set_graph(emb, np.zeros((0, 2), np.int64))
            else:
                canvas.set_positions(emb)
            canvas.set_node_colors(values, **colours)
        var = np.asarray(node.explained_variance, np.float64)
        canvas.set_axis_labels(*[translate(
            "GraphTab", "PC {0} ({1:.0%} of the variance)").format(i + 1, v)
            for i, v in enumerate(var[:2])])
        self.set_readout(translate(
            "GraphTab", "epoch {0}: test accuracy {1:.2f}").format(node.epoch, node.test_acc)
            if (result.doc.labels >= 0).any() else
            translate("GraphTab", "No labels: choose a label attribute to train."))

    def data(self) -> ViewData | None:
        r = self.trace.result if self.trace is not None else None
        if r is None:
            return None
        return ViewData("embedding", {"embedding": r.node.embedding},
                        {"epoch": int(r.node.epoch)}, row_labels=list(r.doc.node_ids),
                        col_labels=["pc1", "pc2"])
