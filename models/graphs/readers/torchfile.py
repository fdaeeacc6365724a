"""PyG ``Data`` (or a dict of tensors) saved with ``torch.save`` (``.pt``, ``.pth``),
read with ``torch.load(weights_only=True)`` and PyG's Data classes allowed, nothing else."""

from __future__ import annotations

import numpy as np
import torch
from torch_geometric.data import Data

from models.checkpoint import load_torch_file
from models.errors import GraphLoadError
from models.graphs.document import MAX_EDGES, MAX_NODES, _RawGraph
from models.reading import LoadWatch


def _torch_allow_list() -> list:
    """The classes a pickled PyG ``Data`` refers to, and nothing else."""
    from torch_geometric.data.data import DataEdgeAttr, DataTensorAttr
    from torch_geometric.data.storage import EdgeStorage, GlobalStorage, NodeStorage

    return [Data, DataEdgeAttr, DataTensorAttr, GlobalStorage, NodeStorage, EdgeStorage]


def _read_torch(name: str, data: bytes, watch: LoadWatch | None = None) -> _RawGraph:
    """``torch.load(weights_only=True)`` with PyG's Data classes allowed, nothing else,
    after ``models.checkpoint``'s checks (torch's zip format, no zip bomb). (``watch``:
    torch reads the archive in one call; the caller ticks before and after.)"""
    obj = load_torch_file(data, name, GraphLoadError, allowed=tuple(_torch_allow_list()))
    if isinstance(obj, Data):
        tensors = {k: obj[k] for k in obj.keys()}  # noqa: SIM118 (Data)
        num_nodes = obj.num_nodes if "num_nodes" in obj._store or "x" in obj._store else None
    elif isinstance(obj, dict):
        tensors = dict(obj)
        num_nodes = tensors.get("num_nodes")
    else:
        raise GraphLoadError(f"{name}: the file holds a {type(obj).__name__}, not a "
                             "torch_geometric Data or a dict of tensors with 'edge_index'.")
    return _raw_from_tensors(name, tensors, num_nodes)


def _raw_from_tensors(name: str, tensors: dict, num_nodes) -> _RawGraph:
    edge_index = tensors.get("edge_index")
    if not isinstance(edge_index, torch.Tensor) or edge_index.dim() != 2 or \
            edge_index.shape[0] != 2 or edge_index.dtype.is_floating_point:
        raise GraphLoadError(f"{name}: no 'edge_index' of shape [2, E] with integer node "
                             "indices.")
    if edge_index.shape[1] > 2 * MAX_EDGES:      # before a pass over the values
        raise GraphLoadError(f"{name}: the graph is too large ({edge_index.shape[1]:,} "
                             f"edges; at most {2 * MAX_EDGES:,} directed).")
    ei = edge_index.long().numpy()
    n = _tensor_num_nodes(tensors, ei, num_nodes)
    if n > MAX_NODES:
        raise GraphLoadError(f"{name}: the graph is too large ({n:,} nodes, "
                             f"{ei.shape[1]:,} edges).")
    if ei.size and ei.min() < 0:
        row, col = (int(a[0]) for a in np.nonzero(ei < 0))
        raise GraphLoadError(f"{name}: edge_index refers to node {int(ei[row, col])} (column "
                             f"{col}, {'source' if row == 0 else 'target'}); node indices "
                             f"must be 0 to {n - 1}.")
    if ei.size and ei.max() >= n:
        row, col = (int(a[0]) for a in np.nonzero(ei >= n))
        raise GraphLoadError(f"{name}: edge_index refers to node {int(ei[row, col])} (column "
                             f"{col}, {'source' if row == 0 else 'target'}), but the graph "
                             f"has {n} nodes (0 to {n - 1}).")
    if n > MAX_NODES or ei.shape[1] > 2 * MAX_EDGES:
        raise GraphLoadError(f"{name}: the graph is too large ({n:,} nodes, "
                             f"{ei.shape[1]:,} edges).")
    weight = tensors.get("edge_weight")
    edge_attr = tensors.get("edge_attr")
    keep, directed = _pyg_undirected_rows(ei)
    raw = _RawGraph(name, directed)
    for i in range(n):
        raw.node(i)
    raw.edges.extend((int(u), int(v)) for u, v in ei[:, keep].T.tolist())
    _tensor_edge_columns(raw, weight, edge_attr, keep, ei.shape[1])
    _tensor_node_columns(raw, tensors, n)
    return raw


def _tensor_num_nodes(tensors: dict, ei: np.ndarray, num_nodes) -> int:
    for key in ("x", "y", "pos"):
        t = tensors.get(key)
        if isinstance(t, torch.Tensor) and t.dim() >= 1:
            return int(t.shape[0])
    if isinstance(num_nodes, int):
        return num_nodes
    return int(ei.max()) + 1 if ei.size else 0


def _pyg_undirected_rows(ei: np.ndarray) -> tuple[np.ndarray, bool]:
    """If every edge has its reverse, keep one column per pair (u <= v)."""
    if ei.shape[1] == 0:
        return np.arange(0), False
    pairs = set(map(tuple, ei.T.tolist()))
    if all((v, u) in pairs for u, v in pairs):
        return np.flatnonzero(ei[0] <= ei[1]), False
    return np.arange(ei.shape[1]), True


def _tensor_edge_columns(raw, weight, edge_attr, keep, total) -> None:
    if isinstance(weight, torch.Tensor) and weight.shape == (total,):
        # float64: an edge weight beyond float32 is refused by name, not turned into inf
        raw.edge_attrs["weight"] = weight.double().numpy()[keep]
    if isinstance(edge_attr, torch.Tensor) and edge_attr.shape[0] == total:
        values = edge_attr.float().reshape(total, -1).numpy()[keep]
        for c in range(values.shape[1]):
            raw.edge_attrs[f"edge_attr[{c}]"] = values[:, c]


def _tensor_node_columns(raw: _RawGraph, tensors: dict, n: int) -> None:
    for key, t in tensors.items():
        if key in ("edge_index", "edge_weight", "edge_attr", "num_nodes") or \
                not isinstance(t, torch.Tensor) or t.dim() == 0 or t.shape[0] != n:
            continue
        values = t.detach().float().reshape(n, -1).numpy()
        if key == "pos" and values.shape[1] >= 2:
            raw.pos = {i: (float(values[i, 0]), float(values[i, 1])) for i in range(n)}
            continue
        if values.shape[1] == 1:
            names = [key]
            raw.node_attrs[key] = values[:, 0]
        else:
            names = [f"{key}[{c}]" for c in range(min(values.shape[1], 4096))]
            for c, column in enumerate(names):
                raw.node_attrs[column] = values[:, c]
        if key == "x":
            raw.default_features = tuple(names)
