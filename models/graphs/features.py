"""Labels and features of a graph document, and the PyG ``Data`` made from them.

Labels are a categorical node attribute (2..50 classes, -1 where missing); features are
numeric attributes (standardised) and categorical ones (one-hot), or, with none chosen,
identity features (up to 64 nodes) or one-hot degree. Structural features (scaled
log-degree and a Laplacian eigenmap) stand in for identity features where a model would
only memorise a free vector per node (link prediction).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch_geometric.data import Data

from models.errors import InvalidParameterError

if TYPE_CHECKING:
    from models.graphs.document import GraphDocument

MAX_LABEL_CLASSES = 50
IDENTITY_FEATURES_UP_TO = 64
DEGREE_BUCKETS = 64


_PREFERRED_LABELS = (
    "y", "label_class", "class", "community", "club", "modularity_class", "modularity class",
    "partition", "block", "group", "role", "category", "bipartite", "type",
)


def _categorical_or_none(column: np.ndarray):
    if column.dtype.kind == "f":
        finite = column[np.isfinite(column)]
        if finite.size == 0 or not np.all(finite == np.round(finite)):
            return None, ()
    return _categorical(column)


def _categorical(column: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    n = column.shape[0]
    codes = np.full(n, -1, dtype=np.int64)
    if column.dtype.kind == "f":
        present = np.isfinite(column)
        values = np.unique(column[present])
        codes[present] = np.searchsorted(values, column[present])
        names = tuple(_format_number(v) for v in values)
        return codes, names
    present = np.array([bool(v) for v in column], dtype=bool)
    values = sorted({str(v) for v in column[present]})
    lookup = {v: i for i, v in enumerate(values)}
    for i in np.flatnonzero(present):
        codes[i] = lookup[str(column[i])]
    return codes, tuple(values)


def _format_number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _default_label(doc: GraphDocument) -> str | None:
    candidates = doc.label_candidates()
    by_lower = {c.lower(): c for c in candidates}
    for name in _PREFERRED_LABELS:
        if name in by_lower:
            return by_lower[name]
    return None


def _labels_from(doc: GraphDocument, label_attr: str | None):
    n = doc.num_nodes
    if label_attr is None:
        return np.full(n, -1, dtype=np.int64), ()
    codes, names = doc.categorical(label_attr)
    if len(names) > MAX_LABEL_CLASSES:
        raise InvalidParameterError(
            f"Attribute {label_attr!r} has {len(names)} different values; a label needs "
            f"2 to {MAX_LABEL_CLASSES} classes.")
    return codes, names


def _features(doc: GraphDocument, feature_attrs: tuple[str, ...]) -> tuple[np.ndarray, str]:
    """Shapes: x float32[n, f]."""
    n = doc.num_nodes
    if not feature_attrs:
        if n <= IDENTITY_FEATURES_UP_TO:
            return np.eye(n, dtype=np.float32), (
                f"No feature attributes: identity features (one column per node, {n} columns).")
        degree = doc.degree
        capped = np.minimum(degree, DEGREE_BUCKETS - 1)
        width = int(capped.max()) + 1
        x = np.zeros((n, width), dtype=np.float32)
        x[np.arange(n), capped] = 1.0
        return x, (f"No feature attributes: one-hot degree features ({width} columns"
                   f"{', degree capped at 63' if degree.max() >= DEGREE_BUCKETS else ''}).")
    blocks, described = [], []
    for name in feature_attrs:
        column = doc.node_attributes[name]
        if column.dtype.kind == "f":
            blocks.append(_standardise(column)[:, None])
            described.append(name)
        else:
            codes, names = doc.categorical(name)
            if len(names) > 256:
                raise InvalidParameterError(
                    f"Attribute {name!r} has {len(names)} different values: too many to "
                    "one-hot encode as a feature.")
            onehot = np.zeros((n, len(names)), dtype=np.float32)
            present = codes >= 0
            onehot[np.flatnonzero(present), codes[present]] = 1.0
            blocks.append(onehot)
            described.append(f"{name} (one-hot, {len(names)})")
    x = np.ascontiguousarray(np.concatenate(blocks, axis=1), dtype=np.float32)
    shown = ", ".join(described[:6]) + (", ..." if len(described) > 6 else "")
    return x, f"Features from {len(feature_attrs)} attributes ({x.shape[1]} columns): {shown}."


def _standardise(column: np.ndarray) -> np.ndarray:
    values = np.where(np.isfinite(column), column, np.nan).astype(np.float64)
    finite = values[np.isfinite(values)]
    if finite.size and np.all(np.isin(finite, (0.0, 1.0))):
        return np.nan_to_num(values, nan=0.0).astype(np.float32)
    if finite.size == 0:
        return np.zeros(column.shape[0], dtype=np.float32)
    std = finite.std()
    out = (values - finite.mean()) / (std if std > 0 else 1.0)
    return np.nan_to_num(out, nan=0.0).astype(np.float32)


def _make_data(doc: GraphDocument, x: np.ndarray, labels: np.ndarray) -> Data:
    edges = doc.edges
    cols = np.where(doc.edge_index_reverse[:, None], edges[doc.edge_index_edge][:, ::-1],
                    edges[doc.edge_index_edge]) if len(edges) else np.zeros((0, 2), np.int64)
    data = Data(
        x=torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)),
        edge_index=torch.from_numpy(np.ascontiguousarray(cols.T, dtype=np.int64)),
        y=torch.from_numpy(labels.astype(np.int64)),
        num_nodes=doc.num_nodes,
    )
    if doc.edge_weight is not None and not (doc.edge_weight < 0).any():
        # negative weights are shown, not trained with (document.NEGATIVE_WEIGHT_NOTE)
        data.edge_weight = torch.from_numpy(doc.edge_weight[doc.edge_index_edge].copy())
    if doc.pos is not None:
        data.pos = torch.from_numpy(doc.pos.copy())
    if doc.directed:
        both = np.concatenate([edges, edges[:, ::-1]]) if len(edges) else edges
        unique = np.unique(both, axis=0) if len(both) else both
        data.edge_index_undirected = torch.from_numpy(
            np.ascontiguousarray(unique.T, dtype=np.int64).reshape(2, -1))
    return data


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
