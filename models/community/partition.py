"""Partitions of a graph document and how good they are: the undirected weighted edge
list the methods work on, labels renumbered by community size, Newman's modularity and
the normalised mutual information against a node attribute of the file.

Numpy only (no torch, no networkx): the tab may call ``categorical_attributes`` on the
GUI thread, and the tests check these against networkx's ``modularity`` and an NMI
written from its definition.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from models.errors import InvalidParameterError

if TYPE_CHECKING:
    from models.graphs.document import GraphDocument

__all__ = ["undirected_edges", "renumber_by_size", "modularity", "modularity_of_edges",
           "nmi", "categorical_attributes", "attribute_codes", "MAX_CATEGORIES"]

#: an attribute with more distinct values than this is not offered for NMI
MAX_CATEGORIES = 500


def undirected_edges(doc: GraphDocument) -> tuple[np.ndarray, np.ndarray]:
    """The graph as every method sees it: undirected, each pair of nodes once, self-loops
    kept, with a positive weight per edge.

    The file's edge weights are used when there are weights and all are positive (a
    signed graph has no modularity in Newman's sense: its weights are then left out,
    every edge weight 1). A directed graph's u→v and v→u become one edge whose weight is
    their sum.

    Shapes:
        edges: int64[E, 2] (u <= v); weight: float64[E].
    """
    edges = np.asarray(doc.edges, np.int64).reshape(-1, 2)
    weight = np.ones(len(edges), np.float64)
    if doc.edge_weight is not None and len(edges) and bool((doc.edge_weight > 0).all()):
        weight = doc.edge_weight.astype(np.float64)
    if not doc.directed or not len(edges):
        return edges, weight
    key = np.sort(edges, axis=1)
    n = max(doc.num_nodes, 1)
    flat = key[:, 0] * n + key[:, 1]
    unique, inverse = np.unique(flat, return_inverse=True)
    summed = np.zeros(len(unique), np.float64)
    np.add.at(summed, inverse.reshape(-1), weight)
    return np.stack([unique // n, unique % n], axis=1).astype(np.int64), summed


def renumber_by_size(labels: np.ndarray) -> np.ndarray:
    """int64[n]: the same partition with communities numbered 0..k-1 by size, largest
    first (ties: the community whose first node comes first)."""
    labels = np.asarray(labels).reshape(-1)
    if not len(labels):
        return np.zeros(0, np.int64)
    values, first, inverse, counts = np.unique(labels, return_index=True,
                                               return_inverse=True, return_counts=True)
    order = np.lexsort((first, -counts))
    rank = np.empty(len(values), np.int64)
    rank[order] = np.arange(len(values))
    return rank[inverse.reshape(-1)]


def modularity_of_edges(edges: np.ndarray, weight: np.ndarray, labels: np.ndarray,
                        resolution: float = 1.0) -> float:
    """Newman's modularity Q = Σ_c [L_c / m − γ (d_c / 2m)²] of a partition of an
    undirected graph given as an edge list (each edge once; a self-loop adds twice its
    weight to its node's degree and once to L_c, as in networkx)."""
    labels = np.asarray(labels, np.int64).reshape(-1)
    m = float(weight.sum())
    if m <= 0:
        return math.nan
    n = len(labels)
    deg = np.bincount(edges[:, 0], weight, minlength=n) + \
        np.bincount(edges[:, 1], weight, minlength=n)
    k = int(labels.max()) + 1 if n else 0
    d_c = np.bincount(labels, deg, minlength=k)
    same = labels[edges[:, 0]] == labels[edges[:, 1]]
    l_c = np.bincount(labels[edges[same, 0]], weight[same], minlength=k)
    return float(np.sum(l_c / m - resolution * (d_c / (2.0 * m)) ** 2))


def modularity(doc: GraphDocument, labels: np.ndarray, resolution: float = 1.0) -> float:
    """Newman's modularity of ``labels`` (int[n], one community per node) on ``doc``,
    on the graph ``undirected_edges`` gives; NaN for a graph without edges."""
    labels = np.asarray(labels).reshape(-1)
    if len(labels) != doc.num_nodes:
        raise InvalidParameterError(f"{len(labels)} labels for a graph of "
                                    f"{doc.num_nodes} nodes.")
    edges, weight = undirected_edges(doc)
    return modularity_of_edges(edges, weight, renumber_by_size(labels), resolution)


def attribute_codes(values: np.ndarray) -> np.ndarray:
    """int64[n] category codes of a column: NaN (numbers) or "" (text) is missing (−1)."""
    values = np.asarray(values).reshape(-1)
    if values.dtype.kind == "f":
        present = np.isfinite(values)
    elif values.dtype.kind in "OUS":
        present = np.asarray([v != "" and v is not None for v in values], bool)
    else:
        present = np.ones(len(values), bool)
    codes = np.full(len(values), -1, np.int64)
    if present.any():
        kept = values[present]
        if kept.dtype.kind == "O":
            kept = kept.astype(str)
        _, inverse = np.unique(kept, return_inverse=True)
        codes[present] = inverse.reshape(-1)
    return codes


def nmi(labels: np.ndarray, attribute_values: np.ndarray) -> float:
    """Normalised mutual information between a partition and a categorical attribute:
    I(X; Y) / ((H(X) + H(Y)) / 2), natural logarithms, over the nodes where the attribute
    has a value (NaN or "" is missing). 1 when both are a single category; NaN when no
    node has a value."""
    x = np.asarray(labels).reshape(-1)
    y = attribute_codes(attribute_values)
    if len(x) != len(y):
        raise InvalidParameterError(f"{len(x)} labels against {len(y)} attribute values.")
    keep = y >= 0
    if not keep.any():
        return math.nan
    _, x = np.unique(x[keep], return_inverse=True)
    _, y = np.unique(y[keep], return_inverse=True)
    n = len(x)
    joint = np.zeros((int(x.max()) + 1, int(y.max()) + 1), np.float64)
    np.add.at(joint, (x.reshape(-1), y.reshape(-1)), 1.0)
    p = joint / n
    px, py = p.sum(axis=1), p.sum(axis=0)
    hx = -float(np.sum(px * np.log(px)))
    hy = -float(np.sum(py * np.log(py)))
    if hx == 0.0 and hy == 0.0:
        return 1.0
    nz = p > 0
    mi = float(np.sum(p[nz] * np.log(p[nz] / np.outer(px, py)[nz])))
    return max(0.0, mi / ((hx + hy) / 2.0))


def categorical_attributes(doc: GraphDocument) -> tuple[str, ...]:
    """The node attributes NMI can be measured against: text, or numbers that are all
    whole, with 2 to ``MAX_CATEGORIES`` distinct values and not one value per node
    (ids, names)."""
    out = []
    for name, column in doc.node_attributes.items():
        if column.dtype.kind == "f":
            finite = column[np.isfinite(column)]
            if not len(finite) or not np.all(finite == np.round(finite)):
                continue
        codes = attribute_codes(column)
        present = int((codes >= 0).sum())
        distinct = int(codes.max()) + 1 if present else 0
        if 2 <= distinct <= MAX_CATEGORIES and distinct < present:
            out.append(name)
    return tuple(out)
