"""The graph tab's background computations, each returning one frozen trace.

They run in a worker thread while training may run in another: the sessions' own methods
take their locks, and reading a session's model here holds its ``lock``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from torch_geometric.data import Data

from models.errors import ArchScopeError
from models.graphs import inspection
from models.graphs.baseline import compare_models, nearest_train_baseline
from models.graphs.depth import untrained_depth_study
from models.graphs.document import GraphDocument
from models.graphs.export import save_graph
from models.graphs.layouts import layout
from models.graphs.options import MODEL_KINDS, GraphRequest, session_kwargs
from models.graphs.sessions import (
    GraphClassificationSession,
    LinkPredictionSession,
    NodeClassificationSession,
)
from models.traces import BatchTrace, DepthStudy, GraphResult, ModelComparison, Progress

__all__ = ["graph_result", "model_comparison", "save_with_results", "untrained_comparison"]


def graph_result(doc: GraphDocument, ask: GraphRequest, session: NodeClassificationSession,
                 pos: np.ndarray | None, layout_key: tuple, motif: list,
                 batch: BatchTrace | None,
                 graph_session: GraphClassificationSession | None,
                 link_session: LinkPredictionSession | None, name: str = "",
                 untrained: ModelComparison | None = None,
                 device: str | None = None, depth: DepthStudy | None = None,
                 depth_key: tuple = ()) -> GraphResult:
    """Everything the tab draws for the request ``ask``, computed off the GUI thread: the
    layout (unless ``pos`` is given), the node classifier's state, the messages into the selected node, GAT
    attention, GCN coefficients and the GraphSAGE sample when shown, a batch of the motif
    graphs (``batch`` reused when given), the two other tasks' states and the compared
    models before training (``untrained`` reused when given, else computed on ``device``
    when one is given; None on a graph without labels) and the depth study as initialised
    (``depth`` reused when given, else computed on ``device`` or the CPU), passed on with
    ``depth_key``, the caller's name for the settings it belongs to."""
    layout_error = ""
    if pos is None:
        try:
            pos = layout(doc, ask.layout, seed=ask.seed)
        except ArchScopeError as exc:         # e.g. "data" on a graph without positions
            layout_error = str(exc)
            pos = layout(doc, "spring", seed=ask.seed)
    data = doc.data
    if not ask.edge_weights and getattr(data, "edge_weight", None) is not None:
        # the graph the classifier trains on (``options.session_kwargs``): without the weights
        data = Data(x=data.x, edge_index=data.edge_index, y=data.y)
    n = data.num_nodes
    node = ask.node if 0 <= ask.node < n else -1
    parts: dict = {"node": session.evaluate()}      # takes the session's lock itself
    with session.lock:
        model = session.model
        layers = len(model.convs)
        layer = min(ask.layer, layers) - 1
        if ask.model == "gat":
            parts["gat"] = inspection.gat_attention(model, data, layer)
        if node >= 0:
            parts["message"] = inspection.message_passing(model, data, node, layer,
                                                          ask.aggregation)
    if ask.edges == "gcn":                     # the weights play no part: no lock
        parts["gcn"] = inspection.gcn_coefficients(data.edge_index, n,
                                                   getattr(data, "edge_weight", None))
    if ask.edges == "sage" and node >= 0:
        parts["sample"] = inspection.sage_sample(data.edge_index, n, node,
                                                 [ask.sample] * layers, seed=ask.sample_seed)
    parts["batch"] = batch or inspection.batch_trace(motif, list(range(ask.batch_graphs)))
    if graph_session is not None:
        parts["graphs"] = graph_session.evaluate()
    if link_session is not None:
        parts["link"] = link_session.evaluate()
    untrained_error = ""
    if untrained is None and device is not None and (doc.labels >= 0).any():
        try:
            untrained = untrained_comparison(data, ask.seed, ask.train_per_class, device,
                                             **session_kwargs(ask))
        except ArchScopeError as exc:     # e.g. too few labelled nodes for a split
            untrained, untrained_error = None, str(exc)
    depth_error = ""
    if depth is None:
        try:
            depth = untrained_depth_study(data, ask.model, ask.depth, ask.gcn_norm, ask.seed,
                                          ask.train_per_class, device or "cpu",
                                          **session_kwargs(ask))
        except ArchScopeError as exc:
            depth_error = str(exc)
    return GraphResult(doc=doc, layout_key=layout_key, pos=pos, name=name,
                       layout_error=layout_error, untrained=untrained,
                       untrained_error=untrained_error, depth=depth, depth_error=depth_error,
                       depth_key=depth_key, **parts)


def untrained_comparison(data, seed: int, train_per_class: int,
                         device: str, **session_kw) -> ModelComparison:
    """Test accuracy of GCN, GraphSAGE and GAT as initialised (no epoch trained) on the
    split ``model_comparison`` uses, and of the nearest-labelled-node baseline, which
    needs no training: what the comparison starts from."""
    acc: dict[str, float] = {}
    session = None
    for kind in MODEL_KINDS:
        session = NodeClassificationSession(data, kind, device=device, seed=seed,
                                            train_per_class=train_per_class, **session_kw)
        acc[kind] = float(session.evaluate().test_acc)
    pred = nearest_train_baseline(data, session.train_mask.cpu())
    test = session.test_mask.cpu().numpy()
    y = data.y.cpu().numpy()
    acc["baseline"] = float((pred[test] == y[test]).mean()) if test.any() else float("nan")
    return ModelComparison(kinds=tuple(acc), test_acc=np.array(list(acc.values()), np.float32))


def model_comparison(data, epochs: int, seed: int, train_per_class: int,
                     device: str, **session_kw) -> Iterator[Progress]:
    """Run the comparison, reporting each model's result as it comes: a ``Progress`` per
    model whose trace is the ``ModelComparison`` so far (with the baseline). Each model
    is trained with ``session_kw`` (``options.session_kwargs``: the tab's settings), so the bar
    of the model chosen is what Train gives."""
    results: dict[str, float] = {}
    for i, kind in enumerate(MODEL_KINDS):
        out = compare_models(data, kinds=(kind,), epochs=epochs, seeds=(seed,),
                             device=device, train_per_class=train_per_class, **session_kw)
        results[kind] = float(np.median(out[kind]))
        results["baseline"] = float(np.median(out["baseline"]))
        trace = ModelComparison(kinds=tuple(results), test_acc=np.array(list(results.values()),
                                                                        np.float32))
        yield Progress(step=i + 1, total=len(MODEL_KINDS), loss=0.0, trace=trace,
                       message=", ".join(f"{k} {v:.2f}" for k, v in results.items()))


def save_with_results(result: GraphResult, path: str, community=None,
                      explanation=None) -> str:
    """Save the drawn graph with the predictions, GCN coefficients and (for a GAT)
    attention as attributes, as GraphML or GEXF (by the extension); Gephi and Cytoscape
    open it. ``community`` (a ``CommunityResult`` of this graph) adds each node's
    community as ``community_<method>`` (``community_louvain``: apart from a
    ``community`` the file may have) and, for DMoN, ``community_dmon_p``, its largest
    soft assignment. ``explanation`` (a ``NodeExplanation`` of this graph) adds its edge
    mask as the edge attribute ``explanation_<node>``. Returns ``path``."""
    doc, node = result.doc, result.node
    node_values = {"prediction": node.predictions.astype(np.int64),
                   "prediction_p": node.probabilities.max(axis=1),
                   "embedding_x": node.embedding[:, 0], "embedding_y": node.embedding[:, 1],
                   "layout_x": result.pos[:, 0], "layout_y": result.pos[:, 1]}
    if community is not None and community.num_nodes == doc.num_nodes:
        name = f"community_{community.method}"
        node_values[name] = community.labels.astype(np.int64)
        if community.confidence is not None:
            node_values[f"{name}_p"] = community.confidence
    edge_values = {}
    gcn = result.gcn or inspection.gcn_coefficients(doc.data.edge_index, doc.num_nodes,
                                                    getattr(doc.data, "edge_weight", None))
    for name, ev in (("gcn_coefficient", gcn), ("gat_alpha", result.gat)):
        if ev is None:
            continue
        per_edge, per_node = inspection.align_edge_values(doc.data, ev)
        edge_values[name] = per_edge
        node_values[f"{name}_self"] = per_node
    if explanation is not None and explanation.edge_mask.shape[0] == \
            doc.data.edge_index.shape[1]:
        edge_values[f"explanation_{explanation.node}"] = explanation.edge_mask
    save_graph(doc, path, node_values=node_values, edge_values=edge_values)
    return path

