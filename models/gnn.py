r"""Graph neural networks: GCN, GraphSAGE and GAT from PyG, with message passing made visible.

Every layer here is a *message-passing* layer: node i gathers messages from the nodes j
with an edge j → i, aggregates them, and updates its own vector:

.. math::
    \mathbf{h}_i^{(\ell+1)} = \text{update}\Big(\mathbf{h}_i^{(\ell)},
    \bigoplus_{j \in \mathcal{N}(i)} \text{message}(\mathbf{h}_j^{(\ell)}, \mathbf{h}_i^{(\ell)})\Big)

* **GCN** (``GCNConv``): messages ``c_ij Θ h_j`` with ``c_ij = 1/√(d̂_i d̂_j)`` over
  ``N(i) ∪ {i}``, summed: ``H' = D̂^{-1/2} (A + I) D̂^{-1/2} H Θ``.
* **GraphSAGE** (``SAGEConv``): ``h_i' = W_l · mean_{j∈N(i)} h_j + W_r h_i`` (or max).
* **GAT** (``GATConv``): ``h_i' = ‖_k Σ_j α^k_ij W^k h_j`` with
  ``α_ij = softmax_j(LeakyReLU(a_srcᵀ W h_j + a_dstᵀ W h_i))`` over ``N(i) ∪ {i}``.

Graphs are ``torch_geometric.data.Data`` with ``x`` float[n, f], ``edge_index``
int64[2, E] (undirected graphs carry both directions; messages flow
``edge_index[0] → edge_index[1]``), optional ``edge_weight`` float[E] (used by GCN only)
and ``y`` int64[n] with -1 for unlabelled nodes.

Everything handed to the GUI is a frozen trace of ``models.traces`` holding numpy arrays.
Sessions (node classification, graph classification, link prediction) follow
``FlowSession``: a ``lock`` held for every step, ``train()`` a generator yielding
``Progress``, the last good weights restored on divergence (``TrainingDivergedError``).

Shapes:
    x: [n, f]; edge_index: [2, E]; logits: [n, classes]; hidden (per layer): [n, d_ℓ]
"""

from __future__ import annotations

import copy
import math
import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch, Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import (
    GATConv,
    GCNConv,
    SAGEConv,
    global_add_pool,
    global_max_pool,
    global_mean_pool,
)
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import negative_sampling, to_dense_adj

from models import checkpoint
from models.devices import device_for
from models.errors import InvalidParameterError, TrainingDivergedError
from models.traces import (
    BatchTrace,
    EdgeValues,
    GraphClassTrace,
    LinkTrace,
    MessageTrace,
    NodeTrainTrace,
    Progress,
    SampleTrace,
)

__all__ = ["MODEL_KINDS", "AGGREGATIONS", "POOLINGS", "GCN", "GraphSAGE", "GAT", "build_model",
           "device_for", "karate_club", "sbm_graph", "gcn_coefficients", "gat_attention",
           "sage_sample", "message_passing", "receptive_field", "split_nodes",
           "NodeClassificationSession", "nearest_train_baseline", "compare_models",
           "motif_graphs", "batch_trace", "GraphClassifier", "GraphClassificationSession",
           "roc_auc", "roc_curve", "LinkPredictionSession"]

MODEL_KINDS = ("gcn", "sage", "gat")
AGGREGATIONS = ("model", "sum", "mean", "max")
POOLINGS = ("mean", "max", "sum")


# -- devices and small helpers -------------------------------------------------------------------
def _as_edge_index(edge_index) -> torch.Tensor:
    ei = torch.as_tensor(np.asarray(edge_index) if isinstance(edge_index, np.ndarray)
                         else edge_index).long()
    if ei.dim() != 2 or ei.shape[0] != 2:
        raise InvalidParameterError(f"edge_index must have shape [2, E], got {tuple(ei.shape)}.")
    return ei


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def _act(kind: str):
    return F.elu if kind == "gat" else F.relu


# -- the models ----------------------------------------------------------------------------------
class _GNN(nn.Module):
    """What GCN, GraphSAGE and GAT share: a stack of convolutions in ``convs``.

    ``forward`` runs, for every layer ℓ: dropout on its input, the convolution, and (for all
    but the last) the activation. ``return_hidden`` also returns every convolution's output
    *before* the activation (the last one is the logits), so the input of layer ℓ > 0 is
    ``act(hidden[ℓ-1])`` in eval mode.
    """

    kind = ""

    def __init__(self, dropout: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.convs = nn.ModuleList()

    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.relu(h)

    def conv_forward(self, layer: int, h: torch.Tensor, edge_index: torch.Tensor,
                     edge_weight: torch.Tensor | None = None) -> torch.Tensor:
        """Layer ``layer``'s convolution alone (no dropout, no activation)."""
        return self.convs[layer](h, edge_index)

    def reset_parameters(self) -> None:
        for conv in self.convs:
            conv.reset_parameters()

    @property
    def num_layers(self) -> int:
        return len(self.convs)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor,
                edge_weight: torch.Tensor | None = None, return_hidden: bool = False):
        hidden = []
        h = x
        for i in range(len(self.convs)):
            # 1. dropout on the layer's input (identity in eval mode)
            h = F.dropout(h, p=self.dropout, training=self.training)
            # 2. message passing: gather, aggregate, update
            h = self.conv_forward(i, h, edge_index, edge_weight)
            hidden.append(h)
            # 3. non-linearity between layers (none after the last: those are the logits)
            if i < len(self.convs) - 1:
                h = self.act(h)
        return (h, hidden) if return_hidden else h

    def __repr__(self) -> str:
        convs = ", ".join(repr(c) for c in self.convs)
        return f"{self.__class__.__name__}({convs}, dropout={self.dropout})"


def _check_dims(in_dim: int, hidden_dim: int, out_dim: int | None, num_layers: int) -> int:
    if out_dim is None:
        raise InvalidParameterError("out_dim (the number of classes or output size) is needed.")
    if min(in_dim, hidden_dim, out_dim, num_layers) < 1:
        raise InvalidParameterError("Dimensions and the number of layers must be at least 1.")
    return out_dim


class GCN(_GNN):
    r"""Graph convolutional network (Kipf & Welling 2017): ``num_layers`` ``GCNConv``.

    .. math::
        \mathbf{H}^{(\ell+1)} = \sigma\big(\hat{\mathbf{D}}^{-1/2}\hat{\mathbf{A}}
        \hat{\mathbf{D}}^{-1/2}\mathbf{H}^{(\ell)}\mathbf{\Theta}^{(\ell)}\big),
        \qquad \hat{\mathbf{A}} = \mathbf{A} + \mathbf{I},\ \hat{D}_{ii} = \textstyle\sum_j
        \hat{A}_{ij}

    node-wise ``h_i' = Θᵀ Σ_{j ∈ N(i) ∪ {i}} e_ji / √(d̂_j d̂_i) · h_j``, σ = ReLU.

    Args:
        in_dim: input features per node. hidden_dim: width of the hidden layers (16).
        out_dim: output size (classes). num_layers: convolutions (2).
        dropout: on every layer's input during training (0.5).

    Shapes:
        - **input:** x ``(n, in_dim)``, edge_index ``(2, E)``, edge_weight ``(E)`` optional
        - **output:** logits ``(n, out_dim)``; with ``return_hidden`` also a list of
          ``num_layers`` tensors ``(n, hidden_dim)`` … ``(n, out_dim)``
    """

    kind = "gcn"

    def __init__(self, in_dim: int, hidden_dim: int = 16, out_dim: int | None = None,
                 num_layers: int = 2, dropout: float = 0.5) -> None:
        super().__init__(dropout)
        out_dim = _check_dims(in_dim, hidden_dim, out_dim, num_layers)
        dims = [in_dim] + [hidden_dim] * (num_layers - 1) + [out_dim]
        for a, b in zip(dims[:-1], dims[1:], strict=True):
            self.convs.append(GCNConv(a, b))

    def conv_forward(self, layer, h, edge_index, edge_weight=None):
        return self.convs[layer](h, edge_index, edge_weight)


class GraphSAGE(_GNN):
    r"""GraphSAGE (Hamilton et al. 2017): ``num_layers`` ``SAGEConv``.

    .. math::
        \mathbf{h}_i' = \mathbf{W}_l \cdot \operatorname{aggr}_{j \in \mathcal{N}(i)}
        \mathbf{h}_j + \mathbf{W}_r \mathbf{h}_i

    with aggr = mean (default) or max (or sum); no self-loops, no edge weights; σ = ReLU.

    Shapes:
        - **input:** x ``(n, in_dim)``, edge_index ``(2, E)``
        - **output:** logits ``(n, out_dim)`` (and the hidden list, as ``GCN``)
    """

    kind = "sage"

    def __init__(self, in_dim: int, hidden_dim: int = 16, out_dim: int | None = None,
                 num_layers: int = 2, dropout: float = 0.5, aggr: str = "mean") -> None:
        super().__init__(dropout)
        out_dim = _check_dims(in_dim, hidden_dim, out_dim, num_layers)
        if aggr not in ("mean", "max", "sum"):
            raise InvalidParameterError(f"GraphSAGE aggregates with mean, max or sum, not {aggr!r}.")
        self.aggr = aggr
        dims = [in_dim] + [hidden_dim] * (num_layers - 1) + [out_dim]
        for a, b in zip(dims[:-1], dims[1:], strict=True):
            self.convs.append(SAGEConv(a, b, aggr=aggr))


class GAT(_GNN):
    r"""Graph attention network (Veličković et al. 2018): ``num_layers`` ``GATConv``.

    .. math::
        \mathbf{h}_i' = \big\Vert_{k=1}^{K} \sum_{j \in \mathcal{N}(i) \cup \{i\}}
        \alpha_{ij}^{k} \mathbf{W}^{k}\mathbf{h}_j,\qquad
        \alpha_{ij}^{k} = \operatorname{softmax}_j\big(\operatorname{LeakyReLU}
        (\mathbf{a}_{src}^{k\top}\mathbf{W}^k\mathbf{h}_j + \mathbf{a}_{dst}^{k\top}
        \mathbf{W}^k\mathbf{h}_i)\big)

    Hidden layers have ``heads`` heads of ``hidden_dim`` each, concatenated
    (``heads · hidden_dim`` wide); the last layer has one head (``concat=False``). σ = ELU,
    as in PyG's GAT example. ``dropout`` applies to every layer's input and, inside
    ``GATConv``, to the attention coefficients (training only).

    Shapes:
        - **input:** x ``(n, in_dim)``, edge_index ``(2, E)``
        - **output:** logits ``(n, out_dim)``; hidden ``(n, heads · hidden_dim)``
    """

    kind = "gat"

    def __init__(self, in_dim: int, hidden_dim: int = 8, out_dim: int | None = None,
                 num_layers: int = 2, heads: int = 4, dropout: float = 0.6) -> None:
        super().__init__(dropout)
        out_dim = _check_dims(in_dim, hidden_dim, out_dim, num_layers)
        if heads < 1:
            raise InvalidParameterError("GAT needs at least one head.")
        self.heads = heads
        d = in_dim
        for i in range(num_layers):
            if i < num_layers - 1:
                self.convs.append(GATConv(d, hidden_dim, heads=heads, dropout=dropout))
                d = hidden_dim * heads
            else:
                self.convs.append(GATConv(d, out_dim, heads=1, concat=False, dropout=dropout))

    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.elu(h)


def build_model(kind: str, in_dim: int, out_dim: int, **kw) -> _GNN:
    """``GCN``, ``GraphSAGE`` or ``GAT`` by name ("gcn", "sage", "gat"); ``kw`` go to the
    class (``hidden_dim``, ``num_layers``, ``dropout``, ``aggr`` for sage, ``heads`` for gat;
    keywords another kind does not take are dropped)."""
    classes = {"gcn": GCN, "sage": GraphSAGE, "gat": GAT}
    if kind not in classes:
        raise InvalidParameterError(f"Unknown model {kind!r}; choose one of {MODEL_KINDS}.")
    allowed = {"hidden_dim", "num_layers", "dropout"} | {"sage": {"aggr"}, "gat": {"heads"},
                                                        "gcn": set()}[kind]
    kw = {k: v for k, v in kw.items() if k in allowed and v is not None}
    return classes[kind](in_dim, out_dim=out_dim, **kw)


# -- sample graphs -------------------------------------------------------------------------------
def karate_club() -> Data:
    """Zachary's karate club as PyG ships it (in-code data, nothing downloaded): 34 nodes,
    identity features, 4 communities as labels."""
    from torch_geometric.datasets import KarateClub

    d = KarateClub()[0]
    return Data(x=d.x.float(), edge_index=d.edge_index, y=d.y.long())


def sbm_graph(num_nodes: int = 2000, num_blocks: int = 4, p_in: float = 0.02,
              p_out: float = 0.002, num_features: int = 16, feature_noise: float = 2.0,
              seed: int = 0) -> Data:
    """A stochastic block model graph (blocks = labels) with noisy block-indicator
    features (one-hot of the block plus N(0, feature_noise²) noise), seeded."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(num_blocks), int(math.ceil(num_nodes / num_blocks)))[:num_nodes]
    rng.shuffle(y)
    iu, ju = np.triu_indices(num_nodes, 1)
    prob = np.where(y[iu] == y[ju], p_in, p_out)
    keep = rng.random(len(iu)) < prob
    src, dst = iu[keep], ju[keep]
    ei = torch.as_tensor(np.stack([np.r_[src, dst], np.r_[dst, src]]), dtype=torch.long)
    x = np.zeros((num_nodes, num_features), np.float32)
    x[np.arange(num_nodes), y % num_features] = 1.0
    x += rng.normal(0, feature_noise, x.shape).astype(np.float32)
    return Data(x=torch.as_tensor(x), edge_index=ei, y=torch.as_tensor(y, dtype=torch.long))


# -- graph search --------------------------------------------------------------------------------
def _csr(edge_index: torch.Tensor, num_nodes: int, by: int) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, neighbours): for node v the ``edge_index[1-by]`` of edges with
    ``edge_index[by] == v`` (by=1: in-neighbours, the sources of messages into v)."""
    ei = edge_index.cpu().numpy()
    order = np.argsort(ei[by], kind="stable")
    counts = np.bincount(ei[by], minlength=num_nodes)
    indptr = np.zeros(num_nodes + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, ei[1 - by][order]


def _bfs(indptr: np.ndarray, nbrs: np.ndarray, sources, max_hops: int | None = None
         ) -> np.ndarray:
    """Hop distance from the nearest source (int64[n], -1 unreachable or beyond max_hops)."""
    n = len(indptr) - 1
    dist = np.full(n, -1, np.int64)
    frontier = np.unique(np.asarray(sources, np.int64))
    dist[frontier] = 0
    hop = 0
    while len(frontier) and (max_hops is None or hop < max_hops):
        hop += 1
        starts, ends = indptr[frontier], indptr[frontier + 1]
        reached = np.concatenate([nbrs[s:e] for s, e in zip(starts, ends, strict=True)]) if len(
            frontier) else np.zeros(0, np.int64)
        reached = np.unique(reached)
        frontier = reached[dist[reached] < 0]
        dist[frontier] = hop
    return dist


def receptive_field(edge_index, num_nodes: int, node: int, num_hops: int) -> np.ndarray:
    """Hop distance (int64[n]) from every node whose messages reach ``node`` within
    ``num_hops`` layers (following edges j → i backwards), -1 outside."""
    indptr, nbrs = _csr(_as_edge_index(edge_index), num_nodes, by=1)
    return _bfs(indptr, nbrs, [node], num_hops)


# -- message passing made visible ---------------------------------------------------------------
def gcn_coefficients(edge_index, num_nodes: int, edge_weight=None) -> EdgeValues:
    """GCN's normalisation ``c_ij = e_ji / √(d̂_i d̂_j)`` on every edge the layer uses,
    from PyG's own ``gcn_norm`` (self-loops added where missing, weight 1, appended)."""
    ei = _as_edge_index(edge_index)
    ew = None if edge_weight is None else torch.as_tensor(edge_weight, dtype=torch.float32)
    ei2, w = gcn_norm(ei, ew, num_nodes, add_self_loops=True, dtype=torch.float32)
    return EdgeValues(edge_index=_np(ei2), values=_np(w), name="gcn_norm",
                      self_loops_added=int(ei2.shape[1] - ei.shape[1]))


@torch.no_grad()
def _layer_inputs(model: _GNN, data: Data) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """(inputs, outputs) of every layer in eval mode on the data's real features."""
    dev = next(model.parameters()).device
    x, ei = data.x.to(dev).float(), data.edge_index.to(dev)
    ew = getattr(data, "edge_weight", None)
    ew = ew.to(dev).float() if ew is not None else None
    was_training = model.training
    model.eval()
    try:
        _, hidden = model(x, ei, ew, return_hidden=True)
    finally:
        model.train(was_training)
    inputs = [x] + [model.act(h) for h in hidden[:-1]]
    return inputs, hidden


def _check_layer(model: _GNN, layer: int) -> None:
    if not 0 <= layer < model.num_layers:
        raise InvalidParameterError(f"layer must be 0..{model.num_layers - 1}, got {layer}.")


@torch.no_grad()
def gat_attention(model: GAT, data: Data, layer: int) -> EdgeValues:
    """The attention α_ij of one GAT layer (eval mode, on the layer's real input), per head,
    on the layer's edges: the input edges without self-loops, then one self-loop per node.
    For every target i and head, the α of its incoming edges sum to 1."""
    if not isinstance(model, GAT):
        raise InvalidParameterError("Attention weights exist only for a GAT model.")
    _check_layer(model, layer)
    inputs, _ = _layer_inputs(model, data)
    conv = model.convs[layer]
    was_training = conv.training
    conv.eval()
    try:
        _, (ei2, alpha) = conv(inputs[layer], data.edge_index.to(inputs[layer].device),
                               return_attention_weights=True)
    finally:
        conv.train(was_training)
    loops = int((ei2[0] == ei2[1]).sum())
    return EdgeValues(edge_index=_np(ei2), values=_np(alpha), name=f"gat_alpha_layer{layer}",
                      self_loops_added=loops)


def sage_sample(edge_index, num_nodes: int, node: int, sizes: Sequence[int], seed: int = 0
                ) -> SampleTrace:
    """GraphSAGE's sampled neighbourhood of ``node``: at hop h each frontier node keeps at
    most ``sizes[h-1]`` in-neighbours (all if -1), drawn without replacement with a seeded
    generator, as ``NeighborLoader`` does (see ``SampleTrace``)."""
    ei = _as_edge_index(edge_index)
    if not 0 <= node < num_nodes:
        raise InvalidParameterError(f"node must be 0..{num_nodes - 1}, got {node}.")
    indptr, nbrs = _csr(ei, num_nodes, by=1)
    gen = torch.Generator().manual_seed(int(seed))
    hop = np.full(num_nodes, -1, np.int64)
    hop[node] = 0
    nodes, node_hop = [node], [0]
    edges, edge_hop = [], []
    frontier = [node]
    per_hop = [1]
    for h, size in enumerate(sizes, start=1):
        nxt = []
        for i in frontier:
            cand = nbrs[indptr[i]:indptr[i + 1]]
            if size >= 0 and len(cand) > size:
                cand = cand[torch.randperm(len(cand), generator=gen)[:size].numpy()]
            for j in cand:
                edges.append((j, i))
                edge_hop.append(h)
                if hop[j] < 0:
                    hop[j] = h
                    nodes.append(int(j))
                    node_hop.append(h)
                    nxt.append(int(j))
        per_hop.append(len(nxt))
        frontier = nxt
    e = np.asarray(edges, np.int64).reshape(-1, 2).T
    return SampleTrace(node=int(node), sizes=tuple(int(s) for s in sizes), seed=int(seed),
                       hop=hop, nodes=np.asarray(nodes, np.int64),
                       node_hop=np.asarray(node_hop, np.int64), edges=e,
                       edge_hop=np.asarray(edge_hop, np.int64),
                       nodes_per_hop=np.asarray(per_hop, np.int64))


def _aggregate(m: torch.Tensor, how: str) -> torch.Tensor:
    """Aggregate messages over dim 0 (empty → zeros, as PyG's scatter does)."""
    if m.shape[0] == 0:
        return m.new_zeros(m.shape[1:])
    if how == "sum":
        return m.sum(0)
    if how == "mean":
        return m.mean(0)
    return m.amax(0)


@torch.no_grad()
def message_passing(model: _GNN, data: Data, node: int, layer: int,
                    aggregation: str = "model") -> MessageTrace:
    """Gather, aggregate and update of layer ``layer`` (0-based) at ``node``, computed step by
    step with the layer's real weights and real input (eval mode). See ``MessageTrace``.

    The model is switched to eval mode for the call and back: while a session trains it,
    hold ``session.lock``."""
    _check_layer(model, layer)
    n = int(data.num_nodes)
    if not 0 <= node < n:
        raise InvalidParameterError(f"node must be 0..{n - 1}, got {node}.")
    if aggregation not in AGGREGATIONS:
        raise InvalidParameterError(f"aggregation must be one of {AGGREGATIONS}.")
    inputs, hidden = _layer_inputs(model, data)
    h = inputs[layer]
    dev = h.device
    ei = data.edge_index.to(dev)
    conv = model.convs[layer]
    hops = receptive_field(ei, n, node, model.num_layers)
    heads = 0
    attention = None
    root = None
    if isinstance(model, GCN):
        model_aggr = "sum"
        # 1. the edges the layer uses and their coefficients 1/√(d̂_i d̂_j)
        ew = getattr(data, "edge_weight", None)
        ew = ew.to(dev).float() if ew is not None else None
        if conv.normalize:
            ei2, w = gcn_norm(ei, ew, n, conv.improved, conv.add_self_loops, conv.flow,
                              dtype=h.dtype)
        else:
            ei2, w = ei, ew if ew is not None else torch.ones(ei.shape[1], device=dev)
        sel = ei2[1] == node
        nbrs, coef = ei2[0, sel], w[sel]
        # 2. messages c_ij · W h_j
        wh = conv.lin(h)
        messages = coef[:, None] * wh[nbrs]
        per_head = messages[:, None, :]
        bias = conv.bias
    elif isinstance(model, GraphSAGE):
        model_aggr = conv.aggr if isinstance(conv.aggr, str) else model.aggr
        model_aggr = {"add": "sum"}.get(model_aggr, model_aggr)
        # 1. the edges into i (GraphSAGE adds no self-loop)
        sel = ei[1] == node
        nbrs = ei[0, sel]
        coef = torch.ones(len(nbrs), device=dev)
        # 2. messages: the neighbours' vectors themselves; W_l comes after aggregating
        messages = h[nbrs]
        per_head = messages[:, None, :]
        root = conv.lin_r(h[node]) if conv.root_weight else None
        bias = conv.lin_l.bias
    elif isinstance(model, GAT):
        model_aggr = "sum"
        # 1. attention α_ij on the layer's edges (self-loops included)
        was_training = conv.training
        conv.eval()
        try:
            _, (ei2, alpha) = conv(h, ei, return_attention_weights=True)
        finally:
            conv.train(was_training)
        sel = ei2[1] == node
        nbrs, attention = ei2[0, sel], alpha[sel]
        heads, c = conv.heads, conv.out_channels
        # 2. messages α_ij · W h_j per head
        wh = conv.lin(h).view(-1, heads, c)
        per_head = attention[:, :, None] * wh[nbrs]
        messages = (per_head.reshape(len(nbrs), heads * c) if conv.concat
                    else per_head.mean(1))
        coef = attention.mean(1)
        root = conv.res(h[node]) if conv.res is not None else None
        bias = conv.bias
    else:
        raise InvalidParameterError(f"Unknown model class {type(model).__name__}.")
    # 3. aggregate (per head, then combine the heads as the layer does)
    how = model_aggr if aggregation == "model" else aggregation
    agg_heads = _aggregate(per_head, how)                       # [heads, d]
    if isinstance(model, GAT):
        aggregate = agg_heads.reshape(-1) if conv.concat else agg_heads.mean(0)
        combined = aggregate
    elif isinstance(model, GraphSAGE):
        aggregate = agg_heads[0]
        combined = F.linear(aggregate, conv.lin_l.weight)
    else:
        aggregate = combined = agg_heads[0]
    # 4. update: combined aggregate + root term + bias
    d_out = hidden[layer].shape[1]
    root = root if root is not None else h.new_zeros(d_out)
    bias = bias if bias is not None else h.new_zeros(d_out)
    update = combined + root + bias
    if how == model_aggr:
        note = (f"{model.kind.upper()} layer {layer + 1} aggregates with {model_aggr}: the "
                "update is the layer's real output at this node.")
    else:
        note = (f"{model.kind.upper()} layer {layer + 1} really aggregates with {model_aggr}; "
                f"this shows what the same weights would give with {how} (not the model's "
                "output).")
    is_loop = nbrs == node
    return MessageTrace(
        kind=model.kind, node=int(node), layer=int(layer), aggregation=how,
        model_aggregation=model_aggr, note=note, hops=hops, neighbors=_np(nbrs),
        is_self_loop=_np(is_loop), coefficients=_np(coef),
        attention=_np(attention) if attention is not None else np.zeros((len(nbrs), 0),
                                                                        np.float32),
        h_node=_np(h[node]), h_neighbors=_np(h[nbrs]), messages=_np(messages),
        aggregate=_np(aggregate), root=_np(root), bias=_np(bias), update=_np(update),
        layer_output=_np(hidden[layer][node]))


# -- PCA with axes kept aligned ------------------------------------------------------------------
class _AlignedPCA:
    """Projects rows on their first two principal axes; each projection is rotated/reflected
    (orthogonal Procrustes) onto the previous one, so the picture does not flip between
    epochs. Rows must be the same items every call (otherwise alignment restarts)."""

    def __init__(self) -> None:
        self.prev: np.ndarray | None = None

    def __call__(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.asarray(h, np.float64)
        if h.ndim != 2 or h.shape[0] == 0:
            return np.zeros((len(h), 2), np.float32), np.zeros(2, np.float32)
        hc = h - h.mean(0)
        _, s, vt = np.linalg.svd(hc, full_matrices=False)
        k = min(2, vt.shape[0])
        y = np.zeros((len(h), 2))
        y[:, :k] = hc @ vt[:k].T
        var = np.zeros(2)
        total = float((s ** 2).sum())
        if total > 0:
            var[:k] = s[:k] ** 2 / total
        if self.prev is not None and self.prev.shape == y.shape:
            u, _, wt = np.linalg.svd(y.T @ self.prev)
            y = y @ (u @ wt)
        self.prev = y
        return y.astype(np.float32), var.astype(np.float32)


# -- training sessions: what they share ----------------------------------------------------------
class _Session:
    """Model, Adam optimiser, lock, epoch counter and last-good-weights snapshot."""

    model: nn.Module
    optimizer: torch.optim.Optimizer

    def _init_common(self, device, seed: int, lr: float) -> None:
        self.device = device_for(device)
        self.seed, self.lr, self.epoch = seed, lr, 0
        self.losses: list[float] = []
        self.lock = threading.Lock()
        self.good_epoch = 0
        self.good_state = self._snapshot()
        #: the metrics of the last evaluation (NaN before the first), repeated in every
        #: ``Progress.metrics`` between evaluations
        self._last_acc: dict[str, float] = {}

    def _snapshot(self) -> dict:
        return checkpoint.snapshot(self.model, self.optimizer)

    def _restore(self) -> None:
        checkpoint.restore(self.model, self.optimizer, self.good_state)
        self.epoch = self.good_epoch
        del self.losses[self.good_epoch:]

    def _move_data(self, dev: torch.device) -> None:
        raise NotImplementedError

    def to(self, device: str | torch.device):
        dev = device_for(device)
        with self.lock:
            self.model.to(dev)
            checkpoint.move_optimizer_state(self.optimizer, dev)
            self._move_data(dev)
            self.device = dev
        return self

    def _hint(self) -> str:
        return ""

    def _diverged(self, what: str) -> TrainingDivergedError:
        epoch = self.epoch + 1
        self._restore()
        return TrainingDivergedError(
            f"Training diverged: {what} at epoch {epoch}. The weights of epoch "
            f"{self.good_epoch} were restored. {self._hint()}Try a smaller learning rate "
            f"(now {self.lr:g}).")

    def _checked_step(self, loss: torch.Tensor) -> float:
        """Backward and optimiser step, unless the loss or a gradient is non-finite (then
        restore the last good weights and raise). Call with ``self.lock`` held."""
        value = loss.detach().item()
        if not math.isfinite(value):
            raise self._diverged(f"the loss became {value}")
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(list(self.model.parameters()), math.inf)
        if not torch.isfinite(norm):
            raise self._diverged("a gradient became non-finite")
        self.good_state, self.good_epoch = self._snapshot(), self.epoch
        self.optimizer.step()
        self.epoch += 1
        self.losses.append(value)
        return value


def _accuracy(pred: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> float:
    m = int(mask.sum())
    return float((pred[mask] == y[mask]).sum()) / m if m else math.nan


# -- node classification -------------------------------------------------------------------------
def split_nodes(y, num_classes: int, train_per_class: int = 1, val_fraction: float = 0.2,
                seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Seeded split of the labelled nodes (y ≥ 0): ``train_per_class`` random nodes of each
    class train; of the rest, ``val_fraction`` validate and the others test. Unlabelled
    nodes (y = -1) are in no mask. Returns three bool tensors [n]."""
    y = np.asarray(y.cpu() if torch.is_tensor(y) else y, np.int64)
    rng = np.random.default_rng(seed)
    n = len(y)
    train = np.zeros(n, bool)
    for c in range(num_classes):
        idx = np.flatnonzero(y == c)
        if len(idx):
            train[rng.choice(idx, min(train_per_class, len(idx)), replace=False)] = True
    rest = np.flatnonzero((y >= 0) & ~train)
    rest = rest[rng.permutation(len(rest))]
    n_val = int(round(val_fraction * len(rest)))
    val = np.zeros(n, bool)
    val[rest[:n_val]] = True
    test = np.zeros(n, bool)
    test[rest[n_val:]] = True
    return torch.as_tensor(train), torch.as_tensor(val), torch.as_tensor(test)


def _masks(split, n: int) -> tuple[torch.Tensor, ...]:
    if len(split) != 3:
        raise InvalidParameterError("split must be (train_mask, val_mask, test_mask).")
    out = tuple(torch.as_tensor(np.asarray(m.cpu() if torch.is_tensor(m) else m), dtype=torch.bool)
                for m in split)
    if any(m.shape != (n,) for m in out):
        raise InvalidParameterError(f"Every mask must have one entry per node ({n}).")
    return out


class NodeClassificationSession(_Session):
    """Semi-supervised node classification with a GCN, GraphSAGE or GAT (full batch, Adam,
    cross-entropy on the training nodes only).

    ``model``, ``data`` (on ``device``), ``train_mask``/``val_mask``/``test_mask`` and
    ``num_classes`` are attributes; hold ``lock`` while using ``model`` from another thread
    (``gcn_coefficients``/``gat_attention``/``message_passing`` on ``session.model``).
    ``split`` = (train, val, test) masks, or None for ``split_nodes(..., seed=seed)``.
    ``hidden_dim=None`` takes the model's default (16; GAT 8 per head × ``heads``);
    ``dropout=None`` likewise (0.5; GAT 0.6). ``seed`` fixes the split, the initial weights
    and the dropout masks.

    Divergence: before every step the weights that gave a finite loss and finite gradients
    are copied; on a non-finite loss or gradient they are restored and
    ``TrainingDivergedError`` names the epoch and what to change.
    """

    def __init__(self, data: Data, kind: str = "gcn", device: str | torch.device = "cpu",
                 seed: int = 0, hidden_dim: int | None = None, lr: float = 0.01,
                 weight_decay: float = 5e-4, train_per_class: int = 1, heads: int = 4,
                 aggr: str = "mean", split=None, val_fraction: float = 0.2,
                 num_layers: int = 2, dropout: float | None = None) -> None:
        self.kind = kind
        dev = device_for(device)
        y = data.y.long()
        self.num_classes = int(y.max()) + 1 if (y >= 0).any() else 1
        n = int(data.num_nodes)
        if split is None:
            split = split_nodes(y, self.num_classes, train_per_class, val_fraction, seed)
        self.train_mask, self.val_mask, self.test_mask = (m.to(dev) for m in _masks(split, n))
        # copies: the session never writes into the caller's tensors, nor they into its
        self.data = Data(x=data.x.float().clone(), edge_index=data.edge_index.long().clone(),
                         y=y.clone())
        if getattr(data, "edge_weight", None) is not None:
            self.data.edge_weight = data.edge_weight.float().clone()
        self.data = self.data.to(dev)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = build_model(kind, self.data.num_features, self.num_classes,
                                     hidden_dim=hidden_dim, num_layers=num_layers,
                                     dropout=dropout, heads=heads, aggr=aggr).to(dev)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr,
                                          weight_decay=weight_decay)
        self.gen = torch.Generator().manual_seed(seed)
        self._pca = _AlignedPCA()
        self._init_common(dev, seed, lr)
        self._last_acc = dict.fromkeys(("train_acc", "val_acc", "test_acc"), math.nan)

    def _move_data(self, dev: torch.device) -> None:
        self.data = self.data.to(dev)
        self.train_mask, self.val_mask, self.test_mask = (
            m.to(dev) for m in (self.train_mask, self.val_mask, self.test_mask))

    def _hint(self) -> str:
        if not bool(torch.isfinite(self.data.x).all()):
            bad = int((~torch.isfinite(self.data.x)).any(1).sum())
            return f"The node features contain NaN or infinity ({bad} nodes): fix the data. "
        return ""

    def _forward(self):
        return self.model(self.data.x, self.data.edge_index,
                          getattr(self.data, "edge_weight", None), return_hidden=True)

    def _dropout_seed(self) -> None:
        torch.manual_seed(int(torch.randint(0, 2 ** 31 - 1, (1,), generator=self.gen)))

    def train(self, epochs: int, report_every: int = 1) -> Iterator[Progress]:
        """Train ``epochs`` more epochs; yield ``Progress`` after each, with a
        ``NodeTrainTrace`` every ``report_every`` epochs and at the last."""
        if not bool(self.train_mask.any()):
            raise InvalidParameterError(
                "This graph has no labelled node to train on: choose a label attribute "
                "(Attributes → Label) or a graph with labels.")
        t0, start = time.perf_counter(), self.epoch
        for k in range(1, epochs + 1):
            with self.lock:
                self.model.train()
                with torch.random.fork_rng(devices=[]):
                    self._dropout_seed()
                    # 1. forward on the whole graph, loss on the training nodes only
                    logits = self._forward()[0]
                    loss = F.cross_entropy(logits[self.train_mask],
                                           self.data.y[self.train_mask])
                    # 2. checked step (restores and raises on divergence)
                    value = self._checked_step(loss)
                trace = self._trace(value) if (k % report_every == 0 or k == epochs) else None
            elapsed = time.perf_counter() - t0
            if trace is not None:
                self._last_acc = {"train_acc": trace.train_acc, "val_acc": trace.val_acc,
                                  "test_acc": trace.test_acc}
            metrics = {"loss": value, **self._last_acc,
                       "epochs_per_s": k / max(elapsed, 1e-9)}
            yield Progress(step=self.epoch, total=start + epochs, loss=value, metrics=metrics,
                           history=np.asarray(self.losses, np.float32), trace=trace)

    @torch.no_grad()
    def _trace(self, loss: float) -> NodeTrainTrace:
        self.model.eval()
        logits, hidden = self._forward()
        prob = logits.softmax(-1)
        pred = prob.argmax(-1)
        y = self.data.y
        emb = self.model.act(hidden[-2]) if len(hidden) > 1 else logits
        pos, var = self._pca(_np(emb))
        return NodeTrainTrace(
            epoch=self.epoch, loss=float(loss), kind=self.kind,
            train_acc=_accuracy(pred, y, self.train_mask),
            val_acc=_accuracy(pred, y, self.val_mask),
            test_acc=_accuracy(pred, y, self.test_mask),
            predictions=_np(pred), probabilities=_np(prob), embedding=pos,
            explained_variance=var, labels=_np(y), train_mask=_np(self.train_mask),
            val_mask=_np(self.val_mask), test_mask=_np(self.test_mask))

    def evaluate(self) -> NodeTrainTrace:
        """The current state (eval mode, no training); ``loss`` is the training loss."""
        with self.lock:
            with torch.no_grad():
                self.model.eval()
                logits = self._forward()[0]
                loss = F.cross_entropy(logits[self.train_mask], self.data.y[self.train_mask])
            return self._trace(float(loss))


def align_edge_values(data: Data, values: EdgeValues) -> tuple[np.ndarray, np.ndarray]:
    """``values`` (on the layer's own edges, self-loops added last) on the columns of
    ``data.edge_index`` instead, and per node the value of its self-loop.

    Shapes:
        returns float32[E] (one per column of ``data.edge_index``; NaN where the layer
        dropped the edge) and float32[n] (NaN where a node has no self-loop); the mean
        over heads for GAT.
    """
    v = values.values.mean(axis=1) if values.values.ndim == 2 else values.values
    n = int(data.num_nodes)
    src, dst = values.edge_index
    key = src.astype(np.int64) * n + dst
    order = np.argsort(key, kind="stable")
    ei = _np(data.edge_index.long())
    query = ei[0] * n + ei[1]
    pos = np.clip(np.searchsorted(key[order], query), 0, max(len(key) - 1, 0))
    per_edge = np.full(len(query), np.nan, np.float32)
    if len(key):
        found = key[order][pos] == query
        per_edge[found] = v[order][pos][found]
    per_node = np.full(n, np.nan, np.float32)
    loops = src == dst
    per_node[src[loops]] = v[loops]
    return per_edge, per_node


def nearest_train_baseline(data: Data, train_mask) -> np.ndarray:
    """Label every node like its nearest training node (shortest path in hops, edges taken
    as undirected). Ties: the smallest hop count, then the majority label among the training
    nodes at that distance, then the lowest label. Unreachable nodes get the majority
    training label. Returns int64[n] predictions."""
    n = int(data.num_nodes)
    mask = np.asarray(train_mask.cpu() if torch.is_tensor(train_mask) else train_mask, bool)
    y = np.asarray(data.y.cpu(), np.int64)
    train = np.flatnonzero(mask)
    if len(train) == 0:
        raise InvalidParameterError("The baseline needs at least one training node.")
    ei = data.edge_index.cpu()
    und = torch.cat([ei, ei.flip(0)], 1)
    indptr, nbrs = _csr(und, n, by=0)
    k = int(y[train].max()) + 1
    majority = int(np.argmax(np.bincount(y[train], minlength=k)))
    dist = np.stack([_bfs(indptr, nbrs, [t]) for t in train])      # [t, n]
    dist = np.where(dist < 0, np.iinfo(np.int64).max, dist)
    best = dist.min(0)
    pred = np.full(n, majority, np.int64)
    for v in np.flatnonzero(best < np.iinfo(np.int64).max):
        votes = np.bincount(y[train][dist[:, v] == best[v]], minlength=k)
        pred[v] = int(np.argmax(votes))          # argmax takes the lowest label on ties
    return pred


def compare_models(data: Data, kinds: Sequence[str] = MODEL_KINDS, epochs: int = 200,
                   seeds: Sequence[int] = range(5), device: str | torch.device = "cpu",
                   **session_kw) -> dict[str, np.ndarray]:
    """Test accuracy (float64[len(seeds)]) per model kind and for "baseline"
    (``nearest_train_baseline``) after ``epochs`` epochs, one seed = one split and init."""
    out: dict[str, list[float]] = {k: [] for k in (*kinds, "baseline")}
    for seed in seeds:
        sess = None
        for kind in kinds:
            sess = NodeClassificationSession(data, kind, device=device, seed=seed, **session_kw)
            for _ in sess.train(epochs, report_every=epochs):
                pass
            out[kind].append(sess.evaluate().test_acc)
        if sess is None:
            y = data.y
            sess_masks = split_nodes(y, int(y.max()) + 1,
                                     session_kw.get("train_per_class", 1),
                                     session_kw.get("val_fraction", 0.2), seed)
            train_mask, test_mask = sess_masks[0], sess_masks[2]
        else:
            train_mask, test_mask = sess.train_mask.cpu(), sess.test_mask.cpu()
        pred = nearest_train_baseline(data, train_mask)
        tm = test_mask.numpy()
        y = data.y.cpu().numpy()
        out["baseline"].append(float((pred[tm] == y[tm]).mean()) if tm.any() else math.nan)
    return {k: np.asarray(v, np.float64) for k, v in out.items()}


# -- graph classification ------------------------------------------------------------------------
_MAX_DEGREE = 8


def _ba_edges(n: int, m: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Barabási–Albert: start from a star on m+1 nodes; each new node links to m distinct
    existing nodes chosen with probability ∝ degree."""
    edges = [(0, i) for i in range(1, m + 1)]
    targets = [0] * m + list(range(1, m + 1))          # node repeated once per degree
    for v in range(m + 1, n):
        chosen: set[int] = set()
        while len(chosen) < m:
            chosen.add(int(targets[rng.integers(len(targets))]))
        for u in chosen:
            edges.append((u, v))
            targets += [u, v]
    return edges


def motif_graphs(num_graphs: int = 200, seed: int = 0) -> list[Data]:
    """Synthetic graph classification (as in the GNNExplainer BA-shapes family): a
    Barabási–Albert base graph (15–25 nodes, m = 1 or 2) with a 5-node motif attached by one
    edge to a random base node: a *house* (square + roof, label 0) or a *5-cycle* (label 1).
    Classes alternate, so they are balanced.

    Features ``x``: one-hot of the node degree (0 … 8, larger degrees in the last slot),
    float32[n, 9]. With constant features a GCN with mean pooling barely separates the two
    motifs (its normalised sums see little structure); degree features let it see the
    house's degree-3 corners and its triangle within 2–3 hops.
    """
    rng = np.random.default_rng(seed)
    house = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)]
    cycle = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    out = []
    for g in range(num_graphs):
        label = g % 2
        nb = int(rng.integers(15, 26))
        edges = _ba_edges(nb, int(rng.integers(1, 3)), rng)
        motif = house if label == 0 else cycle
        edges += [(nb + a, nb + b) for a, b in motif]
        edges.append((int(rng.integers(nb)), nb + int(rng.integers(5))))
        n = nb + 5
        e = np.asarray(edges, np.int64).T
        ei = torch.as_tensor(np.concatenate([e, e[::-1]], 1))
        deg = np.bincount(ei[0].numpy(), minlength=n)
        x = np.zeros((n, _MAX_DEGREE + 1), np.float32)
        x[np.arange(n), np.minimum(deg, _MAX_DEGREE)] = 1.0
        out.append(Data(x=torch.as_tensor(x), edge_index=ei,
                        y=torch.tensor([label], dtype=torch.long)))
    return out


def batch_trace(graphs: Sequence[Data], indices: Sequence[int]) -> BatchTrace:
    """Collate ``graphs[indices]`` with PyG's ``Batch.from_data_list`` (what ``DataLoader``
    does) and show the result: one block-diagonal adjacency, ``batch`` and ``ptr``."""
    idx = [int(i) for i in indices]
    if not idx:
        raise InvalidParameterError("Choose at least one graph to batch.")
    b = Batch.from_data_list([graphs[i] for i in idx])
    n = int(b.num_nodes)
    adj = to_dense_adj(b.edge_index, max_num_nodes=n)[0] if b.edge_index.numel() else \
        torch.zeros(n, n)
    ys = [int(graphs[i].y.reshape(-1)[0]) if getattr(graphs[i], "y", None) is not None else -1
          for i in idx]
    return BatchTrace(graph_indices=np.asarray(idx, np.int64), adjacency=_np(adj),
                      batch=_np(b.batch), ptr=_np(b.ptr),
                      num_nodes=np.diff(_np(b.ptr)).astype(np.int64),
                      labels=np.asarray(ys, np.int64), edge_index=_np(b.edge_index))


class GraphClassifier(nn.Module):
    """Node encoder (``GCN``/``GraphSAGE``/``GAT``), activation, a global pooling (readout)
    over each graph's nodes, and a linear classifier:

    ``ŷ_G = W · pool({act(h_v) : v ∈ G}) + b``

    Shapes:
        - **input:** x ``(N, f)``, edge_index ``(2, E)``, batch ``(N)`` (graph of each node)
        - **output:** logits ``(g, classes)``; with ``return_embedding`` also the pooled
          ``(g, hidden_dim)``
    """

    def __init__(self, in_dim: int, hidden_dim: int, out_dim: int, pooling: str = "mean",
                 kind: str = "gcn", num_layers: int = 3, dropout: float = 0.0) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise InvalidParameterError(f"pooling must be one of {POOLINGS}, not {pooling!r}.")
        self.pooling = pooling
        self.encoder = build_model(kind, in_dim, hidden_dim, hidden_dim=hidden_dim,
                                   num_layers=num_layers, dropout=dropout, heads=1)
        self.lin = nn.Linear(hidden_dim, out_dim)

    def forward(self, x, edge_index, batch, return_embedding: bool = False):
        # 1. node embeddings
        h = self.encoder.act(self.encoder(x, edge_index))
        # 2. readout: one vector per graph
        pool = {"mean": global_mean_pool, "max": global_max_pool, "sum": global_add_pool}
        g = pool[self.pooling](h, batch)
        # 3. classify the graph
        out = self.lin(g)
        return (out, g) if return_embedding else out


class GraphClassificationSession(_Session):
    """Graph classification on a list of ``Data`` (each ``y`` one label): a seeded 80/20
    train/test split, mini-batches of ``batch_size`` graphs collated by PyG's
    ``DataLoader``, a ``GraphClassifier`` trained with Adam. Same ``lock``/divergence
    behaviour as ``NodeClassificationSession``."""

    def __init__(self, graphs: Sequence[Data], pooling: str = "mean",
                 device: str | torch.device = "cpu", seed: int = 0, hidden_dim: int = 32,
                 lr: float = 0.01, kind: str = "gcn", num_layers: int = 3,
                 batch_size: int = 32, test_fraction: float = 0.2) -> None:
        if len(graphs) < 2:
            raise InvalidParameterError("Graph classification needs at least two graphs.")
        dev = device_for(device)
        self.graphs = list(graphs)
        self.pooling, self.kind, self.batch_size = pooling, kind, batch_size
        self.labels = torch.as_tensor([int(g.y.reshape(-1)[0]) for g in self.graphs])
        self.num_classes = int(self.labels.max()) + 1
        rng = np.random.default_rng(seed)
        perm = rng.permutation(len(self.graphs))
        n_test = max(1, int(round(test_fraction * len(perm))))
        self.test_mask = torch.zeros(len(perm), dtype=torch.bool)
        self.test_mask[torch.as_tensor(perm[:n_test])] = True
        self.train_mask = ~self.test_mask
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = GraphClassifier(self.graphs[0].num_features, hidden_dim,
                                         self.num_classes, pooling, kind, num_layers).to(dev)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.gen = torch.Generator().manual_seed(seed)
        self._all = Batch.from_data_list(self.graphs).to(dev)
        self._pca = _AlignedPCA()
        self._init_common(dev, seed, lr)
        self._last_acc = dict.fromkeys(("train_acc", "test_acc"), math.nan)

    def _move_data(self, dev: torch.device) -> None:
        self._all = self._all.to(dev)

    def train(self, epochs: int, report_every: int = 1) -> Iterator[Progress]:
        """Train ``epochs`` more epochs (each one pass over the training graphs), yielding
        ``Progress`` with a ``GraphClassTrace`` every ``report_every`` epochs and at the last."""
        train_graphs = [g for g, m in zip(self.graphs, self.train_mask.tolist(), strict=True) if m]
        t0, start = time.perf_counter(), self.epoch
        for k in range(1, epochs + 1):
            loader = DataLoader(train_graphs, batch_size=self.batch_size, shuffle=True,
                                generator=self.gen)
            with self.lock:
                self.model.train()
                total, count = 0.0, 0
                for b in loader:
                    b = b.to(self.device)
                    loss = F.cross_entropy(self.model(b.x, b.edge_index, b.batch), b.y)
                    value = loss.detach().item()
                    if not math.isfinite(value):
                        raise self._diverged(f"the loss became {value}")
                    self.optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    norm = torch.nn.utils.clip_grad_norm_(list(self.model.parameters()),
                                                          math.inf)
                    if not torch.isfinite(norm):
                        raise self._diverged("a gradient became non-finite")
                    self.optimizer.step()
                    total, count = total + value * b.num_graphs, count + b.num_graphs
                value = total / max(count, 1)
                self.good_state, self.good_epoch = self._snapshot(), self.epoch + 1
                self.epoch += 1
                self.losses.append(value)
                trace = self._trace(value) if (k % report_every == 0 or k == epochs) else None
            elapsed = time.perf_counter() - t0
            if trace is not None:
                self._last_acc = {"train_acc": trace.train_acc, "test_acc": trace.test_acc}
            metrics = {"loss": value, **self._last_acc,
                       "epochs_per_s": k / max(elapsed, 1e-9)}
            yield Progress(step=self.epoch, total=start + epochs, loss=value, metrics=metrics,
                           history=np.asarray(self.losses, np.float32), trace=trace)

    @torch.no_grad()
    def _trace(self, loss: float) -> GraphClassTrace:
        self.model.eval()
        a = self._all
        logits, g = self.model(a.x, a.edge_index, a.batch, return_embedding=True)
        prob = logits.softmax(-1)
        pred = prob.argmax(-1).cpu()
        pos, _ = self._pca(_np(g))
        return GraphClassTrace(
            epoch=self.epoch, loss=float(loss), pooling=self.pooling,
            train_acc=_accuracy(pred, self.labels, self.train_mask),
            test_acc=_accuracy(pred, self.labels, self.test_mask),
            predictions=_np(pred), probabilities=_np(prob), labels=_np(self.labels),
            train_mask=_np(self.train_mask), test_mask=_np(self.test_mask), embedding=pos)

    def evaluate(self) -> GraphClassTrace:
        with self.lock:
            return self._trace(self.losses[-1] if self.losses else math.nan)


# -- link prediction -----------------------------------------------------------------------------
def roc_auc(scores, labels) -> float:
    """Area under the ROC curve = P(score of a random positive > a random negative), ties
    counting ½: the Mann–Whitney U from ranks (tied scores get their average rank)."""
    s = np.asarray(scores, np.float64).reshape(-1)
    lab = np.asarray(labels).reshape(-1).astype(bool)
    p, q = int(lab.sum()), int((~lab).sum())
    if p == 0 or q == 0:
        return math.nan
    order = np.argsort(s, kind="mergesort")
    ss = s[order]
    ranks = np.empty(len(s), np.float64)
    i = 0
    while i < len(ss):                     # average rank over each run of equal scores
        j = i
        while j + 1 < len(ss) and ss[j + 1] == ss[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[lab].sum() - p * (p + 1) / 2) / (p * q))


def roc_curve(scores, labels) -> np.ndarray:
    """ROC points float32[k, 2] of (FPR, TPR), one per distinct threshold, from (0, 0)."""
    s = np.asarray(scores, np.float64).reshape(-1)
    lab = np.asarray(labels).reshape(-1).astype(bool)
    order = np.argsort(-s, kind="mergesort")
    s, lab = s[order], lab[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1] if len(s) else np.zeros(0, int)
    tps, fps = np.cumsum(lab)[last], np.cumsum(~lab)[last]
    p, q = max(int(lab.sum()), 1), max(int((~lab).sum()), 1)
    pts = np.vstack([[0.0, 0.0], np.stack([fps / q, tps / p], 1)]) if len(s) else \
        np.zeros((1, 2))
    return pts.astype(np.float32)


_LINK_FEATURES = ("auto", "x", "structural", "both")


def _is_identity(x: torch.Tensor) -> bool:
    return x.dim() == 2 and x.shape[0] == x.shape[1] and bool(
        torch.equal(x.cpu(), torch.eye(x.shape[0], dtype=x.dtype)))


def _structural_features(edge_index: torch.Tensor, n: int, k: int) -> torch.Tensor:
    """Per node: log-degree scaled to [0, 1], then the ``k`` leading eigenvectors of the
    normalised adjacency ``D^-1/2 A D^-1/2`` (= the Laplacian eigenmap, smallest eigenvalues
    of the normalised Laplacian), each scaled by √n and sign-fixed (largest |entry| > 0).

    Shapes: edge_index int64[2, E] (both directions); returns float32[n, 1 + k'] with
    k' = min(k, n - 1).
    """
    ei = edge_index.cpu()
    deg = torch.bincount(ei[0], minlength=n).double()
    logd = torch.log1p(deg)
    cols = [(logd / logd.max().clamp_min(1e-12))[:, None]]
    k = min(k, n - 1)
    if k > 0 and ei.shape[1]:
        inv = torch.where(deg > 0, deg.clamp_min(1).rsqrt(), torch.zeros_like(deg))
        w = inv[ei[0]] * inv[ei[1]]
        if n <= 4096:
            s = torch.zeros(n, n, dtype=torch.float64)
            s.index_put_((ei[0], ei[1]), w, accumulate=True)
            _, vecs = torch.linalg.eigh(s)                 # ascending eigenvalues
            vecs = vecs[:, -k:].flip(1)
        else:                                               # sparse, largest k
            s = torch.sparse_coo_tensor(ei, w, (n, n)).coalesce()
            gen = torch.Generator().manual_seed(0)
            x0 = torch.randn(n, k, dtype=torch.float64, generator=gen)
            _, vecs = torch.lobpcg(s, k=k, X=x0, largest=True)
        big = vecs.abs().argmax(0)
        vecs = vecs * torch.sign(vecs[big, torch.arange(vecs.shape[1])])[None, :]
        cols.append(vecs * math.sqrt(n))
    return torch.cat(cols, 1).float()


class LinkPredictionSession(_Session):
    """Link prediction: a seeded split of the undirected edges into train / val / test
    (both directions of a pair stay together), a ``GCN`` encoder on the training edges only,
    and a dot-product decoder ``score(u, v) = sigmoid(z_u · z_v)``.

    Each epoch draws fresh negatives from the training graph with PyG's
    ``negative_sampling`` (seeded); val/test negatives are non-edges of the full graph drawn
    once, as many as the positives. Same ``lock``/divergence behaviour as the other sessions.

    Set up so that small graphs do not simply overfit:

    * **held-out sets**: ``val_fraction`` / ``test_fraction`` of the edges, but at least
      ``min_held_out`` each when the training graph still keeps half the edges (so karate's
      AUC is not computed over 4 or 8 positives);
    * **regularised encoder**: dropout and weight decay (L2 via Adam), a small embedding;
    * **input features** (``features``): "x" uses ``data.x``; "structural" replaces it with
      structural features of the *training* graph (scaled log-degree and the ``num_spectral``
      leading eigenvectors of ``D^-1/2 A D^-1/2``, i.e. a Laplacian eigenmap — held-out
      edges never enter them); "both" concatenates the two; "auto" (default) is
      "structural" when ``data.x`` is the identity (one column per node: such an encoder
      only memorises a free vector per node) and "x" otherwise;
    * **early stopping / model selection**: after every epoch the validation AUC is
      computed; the weights with the best one (earliest on ties) are kept in
      ``best_state`` and ``evaluate()`` and every ``LinkTrace`` report *those* weights —
      the trace's ``epoch`` and ``loss`` are those of the best-validation epoch, not the
      last one (``Progress.message`` says which). Training itself continues for all the
      epochs asked, unless ``patience`` epochs pass without a better validation AUC.
      The test set is never used for any choice.
    """

    def __init__(self, data: Data, device: str | torch.device = "cpu", seed: int = 0,
                 val_fraction: float = 0.05, test_fraction: float = 0.1,
                 hidden_dim: int = 32, out_dim: int = 16, lr: float = 0.01,
                 top_k: int = 20, dropout: float = 0.5, weight_decay: float = 5e-4,
                 min_held_out: int = 10, features: str = "auto", num_spectral: int = 8,
                 patience: int | None = None) -> None:
        if features not in _LINK_FEATURES:
            raise InvalidParameterError(
                f"features must be one of {', '.join(_LINK_FEATURES)}, not {features!r}.")
        dev = device_for(device)
        n = int(data.num_nodes)
        self.num_nodes, self.top_k, self.patience = n, top_k, patience
        ei = data.edge_index.cpu()
        u, v = ei[0], ei[1]
        keep = u < v
        pairs = torch.unique(torch.stack([u[keep], v[keep]], 1), dim=0)
        rng = np.random.default_rng(seed)
        pairs = pairs[torch.as_tensor(rng.permutation(len(pairs)))]
        m = len(pairs)
        n_val = max(1, int(round(val_fraction * m)))
        n_test = max(1, int(round(test_fraction * m)))
        floor_val, floor_test = max(n_val, min_held_out), max(n_test, min_held_out)
        if m - floor_val - floor_test >= m / 2:           # the graph allows larger sets
            n_val, n_test = floor_val, floor_test
        if n_val + n_test >= m:
            raise InvalidParameterError("The graph has too few edges to hold some out.")
        self.val_pos, self.test_pos = pairs[:n_val], pairs[n_val:n_val + n_test]
        self.train_pos = pairs[n_val + n_test:]
        self.full_pairs = pairs
        existing = set(map(tuple, pairs.tolist()))
        self.val_neg = self._non_edges(n_val, existing, rng)
        self.test_neg = self._non_edges(n_test, existing | set(map(tuple,
                                                                   self.val_neg.tolist())), rng)
        tp = self.train_pos.T
        train_ei = torch.cat([tp, tp.flip(0)], 1)
        self.train_edge_index = train_ei.to(dev)
        x = data.x.float().clone()
        if features == "auto":
            features = "structural" if _is_identity(x) else "x"
        self.features = features
        if features != "x":
            sf = _structural_features(train_ei, n, num_spectral)
            x = sf if features == "structural" else torch.cat([x, sf], 1)
        self.x = x.to(dev)
        self._full = {int(a) * n + int(b) for a, b in pairs.tolist()}
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = GCN(self.x.shape[1], hidden_dim, out_dim, num_layers=2,
                             dropout=dropout).to(dev)
        self.weight_decay = weight_decay
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr,
                                          weight_decay=weight_decay)
        self.gen = torch.Generator().manual_seed(seed)
        self._init_common(dev, seed, lr)
        self._last_acc = dict.fromkeys(("val_auc", "test_auc"), math.nan)
        #: the best validation AUC so far, its epoch, that epoch's training loss and the
        #: model weights then (None before the first epoch)
        self.best_val_auc, self.best_epoch, self.best_loss = -math.inf, 0, math.nan
        self.best_state: dict | None = None
        self._eval_model = copy.deepcopy(self.model)

    def _non_edges(self, k: int, existing: set, rng: np.random.Generator) -> torch.Tensor:
        n, out, seen = self.num_nodes, [], set()
        tries = 0
        while len(out) < k and tries < 100 * k + 1000:
            tries += 1
            a, b = sorted(int(t) for t in rng.integers(n, size=2))
            if a != b and (a, b) not in existing and (a, b) not in seen:
                seen.add((a, b))
                out.append((a, b))
        return torch.as_tensor(out, dtype=torch.long).reshape(-1, 2)

    def _move_data(self, dev: torch.device) -> None:
        self.train_edge_index, self.x = self.train_edge_index.to(dev), self.x.to(dev)
        self._eval_model.to(dev)
        if self.best_state is not None:
            self.best_state = {k: t.to(dev) for k, t in self.best_state.items()}

    def encode(self, model: nn.Module | None = None) -> torch.Tensor:
        return (model or self.model)(self.x, self.train_edge_index)

    @staticmethod
    def decode(z: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """Logits z_u · z_v for pairs [k, 2]."""
        return (z[pairs[:, 0]] * z[pairs[:, 1]]).sum(-1)

    @torch.no_grad()
    def _val_auc(self) -> float:
        """Validation AUC of the current weights (eval mode). Call with the lock held."""
        self.model.eval()
        z = self.encode()
        pairs = torch.cat([self.val_pos, self.val_neg]).to(z.device)
        labels = np.r_[np.ones(len(self.val_pos)), np.zeros(len(self.val_neg))]
        # the same float32 sigmoid scores as the trace's, so its val_auc matches exactly
        return roc_auc(_np(torch.sigmoid(self.decode(z, pairs))), labels)

    def _message(self) -> str:
        if self.best_state is None:
            return "Link predictor: untrained weights."
        return (f"Reporting the weights of epoch {self.best_epoch}, the best validation AUC "
                f"({self.best_val_auc:.3f}) of {self.epoch} epochs.")

    def train(self, epochs: int, report_every: int = 1) -> Iterator[Progress]:
        """Train ``epochs`` more epochs (fewer if ``patience`` epochs pass without a better
        validation AUC), yielding ``Progress`` with a ``LinkTrace`` every ``report_every``
        epochs and at the last. The trace, ``metrics["val_auc"]`` / ``["test_auc"]`` are
        those of the best-validation weights (``metrics["best_epoch"]``); ``loss`` is the
        current training loss."""
        t0, start = time.perf_counter(), self.epoch
        pos = self.train_pos.to(self.device)
        for k in range(1, epochs + 1):
            with self.lock:
                self.model.train()
                with torch.random.fork_rng(devices=[]):
                    torch.manual_seed(int(torch.randint(0, 2 ** 31 - 1, (1,),
                                                        generator=self.gen)))
                    # 1. fresh negatives: pairs that are not training edges
                    neg = negative_sampling(self.train_edge_index, self.num_nodes,
                                            num_neg_samples=len(pos)).T
                    # 2. encode on the training graph (dropout on), score both kinds
                    z = self.encode()
                    logits = torch.cat([self.decode(z, pos), self.decode(z, neg)])
                    target = torch.cat([torch.ones(len(pos)), torch.zeros(len(neg))]
                                       ).to(logits.device)
                    # 3. binary cross-entropy, checked step
                    loss = F.binary_cross_entropy_with_logits(logits, target)
                    value = self._checked_step(loss)
                # 4. model selection on the validation AUC: keep the best weights
                val = self._val_auc()
                if val > self.best_val_auc:
                    self.best_val_auc, self.best_epoch, self.best_loss = val, self.epoch, value
                    self.best_state = {n: t.detach().clone()
                                       for n, t in self.model.state_dict().items()}
                stop = (self.patience is not None
                        and self.epoch - self.best_epoch >= self.patience)
                last = k == epochs or stop
                trace = self._trace(value) if (k % report_every == 0 or last) else None
            elapsed = time.perf_counter() - t0
            if trace is not None:
                self._last_acc = {"val_auc": trace.val_auc, "test_auc": trace.test_auc}
            metrics = {"loss": value, **self._last_acc, "best_epoch": float(self.best_epoch),
                       "epochs_per_s": k / max(elapsed, 1e-9)}
            yield Progress(step=self.epoch, total=start + epochs, loss=value, metrics=metrics,
                           history=np.asarray(self.losses, np.float32), trace=trace,
                           message=self._message())
            if stop:
                return

    @torch.no_grad()
    def _top_non_edges(self, z: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        n, k = self.num_nodes, self.top_k
        best_s, best_p = torch.zeros(0), torch.zeros(0, 2, dtype=torch.long)
        full = torch.as_tensor(sorted(self._full), dtype=torch.long)
        for r0 in range(0, n, 1024):
            rows = torch.arange(r0, min(n, r0 + 1024))
            s = (z[rows] @ z.T).cpu()
            cols = torch.arange(n)
            s[cols[None, :] <= rows[:, None]] = -math.inf          # u < v only
            flat = rows[:, None] * n + cols[None, :]
            s[torch.isin(flat, full)] = -math.inf                  # not an edge
            top = torch.topk(s.reshape(-1), min(k, s.numel()))
            ok = torch.isfinite(top.values)
            idx = top.indices[ok]
            p = torch.stack([rows[idx // n], idx % n], 1)
            best_s = torch.cat([best_s, top.values[ok]])
            best_p = torch.cat([best_p, p])
            keep = torch.argsort(best_s, descending=True, stable=True)[:k]
            best_s, best_p = best_s[keep], best_p[keep]
        return _np(best_p), _np(torch.sigmoid(best_s))

    @torch.no_grad()
    def _trace(self, loss: float) -> LinkTrace:
        """The trace of the best-validation weights (the current ones before any epoch)."""
        model, epoch = self.model, self.epoch
        if self.best_state is not None:
            self._eval_model.load_state_dict(self.best_state)
            model, epoch, loss = self._eval_model, self.best_epoch, self.best_loss
        model.eval()
        z = self.encode(model)

        def scored(pos, neg):
            pairs = torch.cat([pos, neg]).to(z.device)
            labels = np.r_[np.ones(len(pos), np.int64), np.zeros(len(neg), np.int64)]
            return _np(pairs), labels, _np(torch.sigmoid(self.decode(z, pairs)))

        vp, vl, vs = scored(self.val_pos, self.val_neg)
        tp, tl, ts = scored(self.test_pos, self.test_neg)
        top_p, top_s = self._top_non_edges(z)
        return LinkTrace(epoch=epoch, loss=float(loss), val_auc=roc_auc(vs, vl),
                         test_auc=roc_auc(ts, tl), roc=roc_curve(ts, tl), val_pairs=vp,
                         val_labels=vl, val_scores=vs, test_pairs=tp, test_labels=tl,
                         test_scores=ts, top_pairs=top_p, top_scores=top_s)

    def evaluate(self) -> LinkTrace:
        """The ``LinkTrace`` of the best-validation weights (see the class docstring)."""
        with self.lock:
            return self._trace(self.losses[-1] if self.losses else math.nan)
