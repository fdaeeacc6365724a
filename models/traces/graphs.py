"""Traces of the graph-neural-network tab.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

import numpy as np

from models.traces.base import trace

__all__ = ["EdgeValues", "SampleTrace", "MessageTrace", "NodeTrainTrace", "BatchTrace",
           "GraphClassTrace", "LinkTrace", "ModelComparison", "DepthStudy", "GraphResult"]


@trace
class EdgeValues:
    """One value (or one per head) on every edge a message-passing layer uses.

    ``edge_index[0]`` is the source j, ``edge_index[1]`` the target i (messages flow
    j → i). The edges are the layer's own: the input edges plus the self-loops the layer
    adds, which come last; ``self_loops_added`` says how many (GCN adds one for every node
    that has none; GAT first removes existing self-loops, then adds one per node).

    Shapes:
        edge_index: int64[2, E']
        values: float32[E'] (e.g. GCN's 1/√(d̂_i d̂_j)) or float32[E', heads] (GAT's α_ij)
    """

    edge_index: np.ndarray
    values: np.ndarray
    name: str
    self_loops_added: int


@trace
class SampleTrace:
    """GraphSAGE neighbour sampling around one node, hop by hop (as NeighborLoader does).

    Hop 0 is ``node``. At hop h every node first reached at hop h-1 (the frontier) draws
    at most ``sizes[h-1]`` of its in-neighbours without replacement (all of them when the
    size is -1); neighbours not seen before form the next frontier. Sampled edges to
    already-seen nodes are kept.

    Shapes:
        hop: int64[n], the hop at which each node was first sampled, -1 if never.
        nodes: int64[m], the sampled nodes in the order they were reached (node first).
        node_hop: int64[m], the hop of each of ``nodes``.
        edges: int64[2, s], the sampled edges (source j, target i = a frontier node).
        edge_hop: int64[s], the hop (1-based) at which each edge was sampled.
        nodes_per_hop: int64[len(sizes)+1], how many new nodes each hop reached.
    """

    node: int
    sizes: tuple[int, ...]
    seed: int
    hop: np.ndarray
    nodes: np.ndarray
    node_hop: np.ndarray
    edges: np.ndarray
    edge_hop: np.ndarray
    nodes_per_hop: np.ndarray


@trace
class MessageTrace:
    """What one message-passing layer does at one node i, with its real weights (eval mode).

    ``layer`` is 0-based; the layer's input ``h`` is the real features (layer 0) or the
    activated output of the previous layer. ``kind`` is "gcn", "sage" or "gat".
    Messages (what each neighbour j sends):

    * GCN: ``c_ij · W h_j`` with ``c_ij = 1/√(d̂_i d̂_j)`` (``coefficients``), summed.
    * GraphSAGE: ``h_j`` itself (what the aggregator sees; ``W_l`` is applied after
      aggregating); ``root`` is ``W_r h_i``; coefficients are 1 (1/k shown by "mean").
    * GAT: ``α_ij · W h_j`` per head, concatenated or averaged over heads as the layer
      does; ``coefficients`` is α_ij averaged over heads, ``attention`` per head.

    ``update = combine(aggregate) + root + bias`` where combine is ``W_l`` for SAGE and
    the identity otherwise. With ``aggregation == model_aggregation`` the update equals
    ``layer_output`` (the real layer's output row i, before the activation); otherwise it
    is what the same weights would give with that aggregator, and ``note`` says so.

    Shapes:
        hops: int64[n], hop distance to ``node`` (≤ the model's number of layers), -1
            outside its receptive field.
        neighbors: int64[k], the sources j of the layer's edges into i (incl. self-loop).
        is_self_loop: bool[k]
        coefficients: float32[k]
        attention: float32[k, heads] (GAT; [k, 0] otherwise)
        h_node: float32[d_in], h_neighbors: float32[k, d_in]: the layer's input rows.
        messages: float32[k, d_msg]
        aggregate: float32[d_msg]
        root, bias: float32[d_out] (zeros where the layer has none)
        update, layer_output: float32[d_out]
    """

    kind: str
    node: int
    layer: int
    aggregation: str
    model_aggregation: str
    note: str
    hops: np.ndarray
    neighbors: np.ndarray
    is_self_loop: np.ndarray
    coefficients: np.ndarray
    attention: np.ndarray
    h_node: np.ndarray
    h_neighbors: np.ndarray
    messages: np.ndarray
    aggregate: np.ndarray
    root: np.ndarray
    bias: np.ndarray
    update: np.ndarray
    layer_output: np.ndarray

    @property
    def max_abs_difference(self) -> float:
        """|update − layer_output| (≈ 0 with the model's own aggregation)."""
        return float(np.abs(self.update - self.layer_output).max()) if self.update.size else 0.0


@trace
class NodeTrainTrace:
    """A node classifier's state after ``epoch`` epochs (evaluated in eval mode).

    ``embedding`` is the last hidden layer (activated) projected on its first two
    principal axes; the axes are kept aligned across epochs (orthogonal Procrustes onto the
    previous projection), so points move smoothly instead of flipping.

    Shapes:
        predictions: int64[n]; labels: int64[n] (-1 = unlabelled)
        probabilities: float32[n, c]
        embedding: float32[n, 2]; explained_variance: float32[2] (fractions)
        train_mask, val_mask, test_mask: bool[n]
    """

    epoch: int
    loss: float
    train_acc: float
    val_acc: float
    test_acc: float
    predictions: np.ndarray
    probabilities: np.ndarray
    embedding: np.ndarray
    explained_variance: np.ndarray
    labels: np.ndarray
    train_mask: np.ndarray
    val_mask: np.ndarray
    test_mask: np.ndarray
    kind: str = "gcn"


@trace
class BatchTrace:
    """Several graphs collated into one ``Batch`` (one big disconnected graph).

    Shapes:
        graph_indices: int64[g], which graphs of the list, in batch order.
        adjacency: float32[N, N], block-diagonal (N = total nodes; 1 per edge).
        batch: int64[N], the graph (0..g-1) of every node.
        ptr: int64[g+1], where each graph's nodes start (``ptr[-1] == N``).
        num_nodes: int64[g]; labels: int64[g]
        edge_index: int64[2, E], the Batch's edges (node ids shifted by ``ptr``).
    """

    graph_indices: np.ndarray
    adjacency: np.ndarray
    batch: np.ndarray
    ptr: np.ndarray
    num_nodes: np.ndarray
    labels: np.ndarray
    edge_index: np.ndarray


@trace
class GraphClassTrace:
    """A graph classifier's state after ``epoch`` epochs (evaluated in eval mode).

    ``embedding`` is the pooled graph embedding projected on two aligned principal axes.

    Shapes:
        predictions, labels: int64[g]; probabilities: float32[g, c]
        train_mask, test_mask: bool[g]
        embedding: float32[g, 2]
    """

    epoch: int
    loss: float
    train_acc: float
    test_acc: float
    pooling: str
    predictions: np.ndarray
    probabilities: np.ndarray
    labels: np.ndarray
    train_mask: np.ndarray
    test_mask: np.ndarray
    embedding: np.ndarray


@trace
class LinkTrace:
    """A link predictor's state: scores of held-out pairs, ROC, best-scoring non-edges.

    Scores are ``sigmoid(z_u · z_v)``. Labels are 1 for held-out edges, 0 for sampled
    non-edges. ROC points run from (0, 0) to (1, 1) over the test pairs.

    Shapes:
        roc: float32[k, 2] of (false positive rate, true positive rate)
        val_pairs: int64[v, 2]; val_labels: int64[v]; val_scores: float32[v]
        test_pairs: int64[t, 2]; test_labels: int64[t]; test_scores: float32[t]
        top_pairs: int64[k, 2] (u < v, not edges of the full graph); top_scores: float32[k]
    """

    epoch: int
    loss: float
    val_auc: float
    test_auc: float
    roc: np.ndarray
    val_pairs: np.ndarray
    val_labels: np.ndarray
    val_scores: np.ndarray
    test_pairs: np.ndarray
    test_labels: np.ndarray
    test_scores: np.ndarray
    top_pairs: np.ndarray
    top_scores: np.ndarray


@trace
class ModelComparison:
    """Test accuracy of each model trained on one split (and of the nearest-labelled-node
    baseline), as far as the comparison has come: ``kinds`` in the order they were added.

    Shapes:
        test_acc: float32[len(kinds)], the median over the seeds compared.
    """

    kinds: tuple[str, ...]
    test_acc: np.ndarray

    def as_dict(self) -> dict[str, float]:
        """{kind: test accuracy}, in ``kinds`` order."""
        return {k: float(a) for k, a in zip(self.kinds, self.test_acc, strict=True)}


@trace
class DepthStudy:
    """Over-smoothing against depth (``models.graphs.depth``): a run of ``depth`` layers
    (a GCN normalised or not, ``normalize``; the other kinds ignore it) beside a baseline
    of ``baseline_depth`` layers (normalised), both seeded alike and trained ``epoch``
    epochs (0: as initialised), and, once the sweep ran, test accuracy against depth.

    Per layer ℓ = 0 … L: the embedding is the input (ℓ = 0), a hidden layer's activated
    output, or the logits (ℓ = L); ``energy`` is its Dirichlet energy
    ``½ Σ_(i,j)∈E ‖x_i/√(1+d_i) − x_j/√(1+d_j)‖²``, ``distance`` the mean pairwise
    Euclidean distance of its rows.

    Shapes:
        energy, distance: float32[depth + 1]
        baseline_energy, baseline_distance: float32[baseline_depth + 1]
        depths: int64[k], depth_test_acc: float32[k] (the depths trained so far)
    """

    kind: str
    depth: int
    normalize: bool
    baseline_depth: int
    epoch: int
    energy: np.ndarray
    distance: np.ndarray
    test_acc: float
    baseline_energy: np.ndarray
    baseline_distance: np.ndarray
    baseline_test_acc: float
    depths: np.ndarray
    depth_test_acc: np.ndarray
    note: str = ""


@trace
class GraphResult:
    """Everything the graph tab draws, computed off the GUI thread at once: the graph and
    its layout, the node classifier's state, and what the views ask for (``None`` when a
    view does not need it now).

    ``doc`` is the graph document drawn (``models.graphs.GraphDocument``: node ids, labels,
    attributes, edges), passed through as it is; ``layout_key`` says which graph, layout
    and seed ``pos`` belongs to (the tab keeps positions per key); ``layout_error`` is set
    when the chosen layout was refused and the spring layout drawn instead; ``name`` is the
    graph's name as shown in the title.

    Shapes:
        pos: float32[n, 2], the node positions.
    """

    doc: object
    layout_key: tuple
    pos: np.ndarray
    node: NodeTrainTrace
    name: str = ""
    layout_error: str = ""
    message: MessageTrace | None = None      # messages into the selected node
    gat: EdgeValues | None = None            # GAT attention of the shown layer
    gcn: EdgeValues | None = None            # GCN coefficients, when the edges show them
    sample: SampleTrace | None = None        # GraphSAGE sampling around the selected node
    batch: BatchTrace | None = None          # a mini-batch of the motif graphs
    graphs: GraphClassTrace | None = None    # the graph classifier, once trained
    link: LinkTrace | None = None            # the link predictor, once trained
    untrained: ModelComparison | None = None  # the compared models before training
    untrained_error: str = ""                # why there is none (e.g. too few labels to split)
    depth: DepthStudy | None = None          # the depth study as initialised
    depth_error: str = ""                    # why there is none
    depth_key: tuple = ()                    # the settings it was computed for (the tab's)
