"""Message passing made visible: receptive fields, GCN coefficients, GAT attention,
GraphSAGE's sampled neighbourhood, one layer's gather / aggregate / update at a node,
edge values aligned with ``data.edge_index``, a mini-batch as PyG collates it, and a
PCA whose axes stay aligned from one epoch to the next.

Everything handed to the GUI is a frozen trace of ``models.traces`` holding numpy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.data import Batch, Data
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import to_dense_adj

from models.errors import InvalidParameterError
from models.graphs.layers import _GNN, GAT, GCN, GraphSAGE, _as_edge_index, _np
from models.graphs.options import AGGREGATIONS
from models.traces import BatchTrace, EdgeValues, MessageTrace, SampleTrace


# -- graph search -------------------------------------------------------------------------------
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


# ~100 lines: gather / aggregate / update for GCN, GraphSAGE and GAT side by side, in the
# numbered steps of the text; split per kind, the three would no longer read together
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


# -- PCA with axes kept aligned ------------------------------------------------------------------
class _AlignedPCA:
    """Projects rows on their first two principal axes; each projection is rotated/reflected
    (orthogonal Procrustes) onto the previous one, so the picture does not flip between
    epochs. Rows must be the same items every call (otherwise alignment restarts). The
    same rows again (no epoch trained since) give the same picture, not one rotated by
    rounding; ``state``/``load_state`` carry that across a session file."""

    def __init__(self) -> None:
        self.prev: np.ndarray | None = None
        self.raw: np.ndarray | None = None      # ``prev`` before its alignment

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
        if self.prev is not None and self.raw is not None and np.array_equal(y, self.raw):
            return self.prev.astype(np.float32), var.astype(np.float32)
        raw = y
        if self.prev is not None and self.prev.shape == y.shape:
            u, _, wt = np.linalg.svd(y.T @ self.prev)
            y = y @ (u @ wt)
        self.prev, self.raw = y, raw
        return y.astype(np.float32), var.astype(np.float32)

    def state(self) -> dict[str, np.ndarray]:
        """The last projection, as drawn and as computed (float64[n, 2] each), or {}."""
        if self.prev is None or self.raw is None:
            return {}
        return {"prev": self.prev.copy(), "raw": self.raw.copy()}

    def load_state(self, state: dict[str, np.ndarray], rows: int) -> None:
        """Put back ``state()``; ``ValueError`` unless both are finite [rows, 2]."""
        if not state:
            self.prev = self.raw = None
            return
        arrays = [np.asarray(state.get(k), np.float64) for k in ("prev", "raw")]
        if any(a.shape != (rows, 2) or not np.isfinite(a).all() for a in arrays):
            raise ValueError(f"the embedding's alignment is not two finite columns of "
                             f"{rows} rows")
        self.prev, self.raw = arrays
