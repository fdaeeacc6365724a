"""The graph document, and (for now) built-in graphs, layouts and export.

Readers (``models.graphs.readers``, one module per file format) fill a ``_RawGraph``;
``_build`` cleans it (merges parallel edges, keeps self-loops, reports isolated nodes)
and makes a :class:`GraphDocument` with numpy columns and a PyG ``Data``.

Message passing convention: ``data.edge_index`` is the graph messages flow on.
For an undirected graph it holds both directions of every edge (a self-loop once):
columns ``0..E-1`` are the rows of ``doc.edges`` as stored, the following columns
the reverses of the non-loop edges, in the same order. For a directed graph it is
``doc.edges.T`` (direction as read, messages flow source -> target), and
``data.edge_index_undirected`` holds the symmetrised graph.
"""

from __future__ import annotations

import io
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import networkx as nx
import numpy as np
import torch
from torch_geometric.data import Data

from models.errors import GraphLoadError, InvalidParameterError

MAX_NODES = 200_000
MAX_EDGES = 2_000_000
MAX_LABEL_CLASSES = 50
IDENTITY_FEATURES_UP_TO = 64
DEGREE_BUCKETS = 64
KAMADA_KAWAI_MAX_NODES = 2000

BUILTIN_GRAPHS: dict[str, str] = {
    "karate": "Zachary's karate club",
    "les_miserables": "Les Misérables co-appearances",
    "florentine": "Florentine families",
    "davis": "Davis southern women (bipartite)",
    "sbm": "Stochastic block model (4 blocks)",
    "ba_house": "Barabási–Albert graph with house motifs (BA-Shapes)",
    "grid": "2D grid",
    "geometric": "Random geometric graph",
}

LAYOUTS: tuple[str, ...] = ("spring", "kamada_kawai", "spectral", "circular", "shell", "data")

_PREFERRED_LABELS = (
    "y", "label_class", "class", "community", "club", "modularity_class", "modularity class",
    "partition", "block", "group", "role", "category", "bipartite", "type",
)


# ---------------------------------------------------------------------------------------
# The document
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphDocument:
    """A graph as the app shows and trains on it: columns of numpy arrays and a PyG Data.

    Node ``i`` of every array (and of ``data``) is ``node_ids[i]``, in the file's order.

    Shapes:
        edges: int64[E, 2], every edge of the graph once (an undirected edge once, in the
            direction the file gave it; self-loops included), in node index space.
        edge_weight: float32[E] or None.
        node_attributes: name -> float32[n] (numeric, NaN where missing) or object[n] of
            str ("" where missing).
        edge_attributes: name -> float32[E] or object[E], aligned with ``edges``.
        pos: float32[n, 2] or None, coordinates the file gave (viz:position, x/y,
            lat/long, Pajek coordinates, a ``pos`` attribute).
        labels: int64[n], class per node, -1 for no label.
        edge_index_edge: int64[E'], for each column of ``data.edge_index`` the row of
            ``edges`` it comes from; edge_index_reverse: bool[E'], whether the column is
            that edge reversed.
        data: torch_geometric Data with ``x`` float32[n, f], ``edge_index`` int64[2, E']
            (see the module docstring), ``edge_weight`` float32[E'] when weighted,
            ``y`` int64[n], ``pos`` float32[n, 2] when known, ``num_nodes``.
    """

    name: str
    source: str
    directed: bool
    multigraph_collapsed: int
    node_ids: tuple[str, ...]
    edges: np.ndarray
    edge_weight: np.ndarray | None
    node_attributes: dict[str, np.ndarray]
    edge_attributes: dict[str, np.ndarray]
    label_attr: str | None
    feature_attrs: tuple[str, ...]
    pos: np.ndarray | None
    labels: np.ndarray
    label_names: tuple[str, ...]
    features_note: str
    warnings: tuple[str, ...]
    data: Data
    edge_index_edge: np.ndarray = field(repr=False)
    edge_index_reverse: np.ndarray = field(repr=False)

    @property
    def num_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def num_edges(self) -> int:
        return int(self.edges.shape[0])

    @cached_property
    def graph(self) -> nx.Graph:
        """The document as a networkx graph (node ids, attributes), built on first use:
        nothing on the load path needs it, and it costs a Python loop over every node
        and attribute."""
        return _networkx(self)

    @cached_property
    def degree(self) -> np.ndarray:
        """int64[n]: the edges at each node (a self-loop counts twice), from ``edges``."""
        return np.bincount(self.edges.reshape(-1), minlength=self.num_nodes).astype(np.int64)

    def summary(self) -> str:
        """One line: ``77 nodes, 254 edges, undirected, weighted, 5 attributes``."""
        parts = [
            f"{self.num_nodes} node{'s' if self.num_nodes != 1 else ''}",
            f"{self.num_edges} edge{'s' if self.num_edges != 1 else ''}",
            "directed" if self.directed else "undirected",
        ]
        if self.edge_weight is not None:
            parts.append("weighted")
        k = len(self.node_attributes)
        parts.append(f"{k} attribute{'s' if k != 1 else ''}")
        return ", ".join(parts)

    def categorical(self, name: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """Codes of a node attribute as categories.

        Shapes:
            codes: int64[n], index into ``names``, -1 where the value is missing.
        Integer-valued numeric columns are sorted numerically, strings alphabetically.
        """
        column = self._node_column(name)
        return _categorical(column)

    def label_candidates(self) -> tuple[str, ...]:
        """Node attributes usable as class labels: categorical or integer, 2..50 values.

        Columns where every node has its own value (ids, names) are left out.
        """
        out = []
        for name, column in self.node_attributes.items():
            codes, names = _categorical_or_none(column)
            if codes is None or not 2 <= len(names) <= MAX_LABEL_CLASSES:
                continue
            present = int((codes >= 0).sum())
            if present > 2 and len(names) == present:
                continue
            out.append(name)
        return tuple(out)

    def feature_candidates(self) -> tuple[str, ...]:
        """Node attributes usable as features: numeric with some variation, or
        categorical with at most 50 values (one-hot)."""
        out = []
        for name, column in self.node_attributes.items():
            if column.dtype.kind == "f":
                finite = column[np.isfinite(column)]
                if finite.size and float(finite.max() - finite.min()) > 0:
                    out.append(name)
            else:
                _, names = _categorical(column)
                if 2 <= len(names) <= MAX_LABEL_CLASSES:
                    out.append(name)
        return tuple(out)

    def with_attributes(self, label_attr: str | None,
                        feature_attrs: Sequence[str]) -> GraphDocument:
        """A new document whose labels and features come from the given attributes.

        Numeric features are standardised (zero mean, unit variance; NaN/inf -> 0),
        except 0/1 columns which are kept; categorical ones are one-hot encoded. With no
        feature attributes: identity features when n <= 64, otherwise one-hot degree
        (degree capped at 63, so at most 64 columns). ``features_note`` says which.
        """
        feature_attrs = tuple(feature_attrs)
        for name in (label_attr, *feature_attrs):
            if name is not None:
                self._node_column(name)
        labels, label_names = _labels_from(self, label_attr)
        x, note = _features(self, feature_attrs)
        data = _make_data(self, x, labels)
        return replace(self, label_attr=label_attr, feature_attrs=feature_attrs,
                       labels=labels, label_names=label_names, features_note=note, data=data)

    def _node_column(self, name: str) -> np.ndarray:
        try:
            return self.node_attributes[name]
        except KeyError:
            raise InvalidParameterError(
                f"The graph has no node attribute {name!r}; it has: "
                f"{', '.join(self.node_attributes) or 'none'}.") from None


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


# ---------------------------------------------------------------------------------------
# Intermediate graph every reader fills
# ---------------------------------------------------------------------------------------


class _RawGraph:
    """What a reader found, before cleaning. Values are Python str/int/float/bool."""

    def __init__(self, name: str, directed: bool = False):
        self.name = name
        self.directed = directed
        self.node_ids: list[str] = []
        self.index: dict[str, int] = {}
        #: per attribute {node: value}, or a whole numpy column (tensors of a .pt file)
        self.node_attrs: dict[str, dict[int, object] | np.ndarray] = {}
        self.edges: list[tuple[int, int]] = []
        self.edge_attrs: dict[str, dict[int, object] | np.ndarray] = {}
        self.pos: dict[int, tuple[float, float]] = {}
        self.warnings: list[str] = []
        self.non_numeric: dict[str, int] = {}
        self.infinite: set[str] = set()
        self.default_features: tuple[str, ...] = ()

    def node(self, node_id: object) -> int:
        key = str(node_id)
        i = self.index.get(key)
        if i is None:
            if len(self.node_ids) >= MAX_NODES:
                raise GraphLoadError(
                    f"{self.name}: more than {MAX_NODES:,} nodes; ArchScope is for "
                    "graphs you can look at. Take a smaller sample of the graph.")
            i = len(self.node_ids)
            self.index[key] = i
            self.node_ids.append(key)
        return i

    def check_edge_budget(self) -> None:
        if len(self.edges) >= MAX_EDGES:
            raise GraphLoadError(
                f"{self.name}: more than {MAX_EDGES:,} edges; take a smaller sample "
                "of the graph.")

    def add_edge(self, u: object, v: object, attrs: dict[str, object] | None = None) -> int:
        self.check_edge_budget()
        e = len(self.edges)
        self.edges.append((self.node(u), self.node(v)))
        for key, value in (attrs or {}).items():
            self.edge_attrs.setdefault(key, {})[e] = value
        return e

    def set_node(self, i: int, key: str, value: object) -> None:
        self.node_attrs.setdefault(key, {})[i] = value

    def number(self, text: str, attr: str, integer: bool = False) -> float | int | None:
        """Parse a numeric value; non-numbers are counted (reported later) and skipped."""
        text = text.strip()
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                self.non_numeric[attr] = self.non_numeric.get(attr, 0) + 1
                return None
        if isinstance(value, float) and math.isinf(value):
            self.infinite.add(attr)
        return value

# ---------------------------------------------------------------------------------------
# Building the document from a raw graph
# ---------------------------------------------------------------------------------------


def _build(raw: _RawGraph, source: str, label_attr: str | None = "auto") -> GraphDocument:
    n = len(raw.node_ids)
    if n == 0:
        raise GraphLoadError(f"{raw.name}: the graph has no nodes.")
    warnings = list(raw.warnings)
    edges, keep_rows, group, collapsed = _merge_parallel(raw, warnings)
    edge_attributes = _merge_edge_columns(raw, keep_rows, group, warnings)
    node_attributes = {k: _column_from_dict(v, n) for k, v in raw.node_attrs.items()}
    _report_values(raw, warnings)
    weight = edge_attributes.get("weight")
    edge_weight = None
    if weight is not None and weight.dtype.kind == "f":
        edge_weight = np.where(np.isfinite(weight), weight, 1.0).astype(np.float32)
    pos = _pos_array(raw, n, warnings)
    loops = int(np.sum(edges[:, 0] == edges[:, 1])) if len(edges) else 0
    if loops:
        warnings.append(f"{loops} self-loop{'s' if loops > 1 else ''} kept.")
    isolated = n - len(np.unique(edges)) if len(edges) else n
    if isolated:
        warnings.append(f"{isolated} isolated node{'s' if isolated > 1 else ''} (no edges).")
    if not all(s.isdigit() for s in raw.node_ids[:1000]):
        warnings.append("Node ids are not integers: node i of the tensors is the i-th node "
                        "of the file (see node_ids).")
    if raw.directed:
        warnings.append("Directed graph: data.edge_index keeps the direction as read (messages "
                        "flow source -> target); data.edge_index_undirected is the symmetric "
                        "version.")
    ei_edge, ei_rev = _edge_index_map(edges, raw.directed)
    doc = GraphDocument(
        name=raw.name, source=source, directed=raw.directed,
        multigraph_collapsed=collapsed, node_ids=tuple(raw.node_ids), edges=edges,
        edge_weight=edge_weight, node_attributes=node_attributes,
        edge_attributes=edge_attributes, label_attr=None, feature_attrs=(), pos=pos,
        labels=np.full(n, -1, dtype=np.int64), label_names=(), features_note="",
        warnings=tuple(warnings), data=Data(), edge_index_edge=ei_edge,
        edge_index_reverse=ei_rev,
    )
    if label_attr == "auto":
        label_attr = _default_label(doc)
    return doc.with_attributes(label_attr, tuple(raw.default_features))


def _merge_parallel(raw: _RawGraph, warnings: list[str]):
    """Unique edges in first-seen order; for undirected graphs (u, v) == (v, u)."""
    if not raw.edges:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, 2), dtype=np.int64), empty, empty, 0
    arr = np.asarray(raw.edges, dtype=np.int64)
    key = arr if raw.directed else np.sort(arr, axis=1)
    n = len(raw.node_ids)
    flat = key[:, 0] * n + key[:, 1]
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    group = rank[inverse.reshape(-1)]
    collapsed = len(arr) - len(first)
    if collapsed:
        what = "summed weights" if "weight" in raw.edge_attrs else "no weights"
        warnings.append(f"{collapsed} parallel edge{'s' if collapsed > 1 else ''} merged "
                        f"({what}; other edge attributes from the first edge).")
    return arr[first[order]], first[order], group, collapsed


def _merge_edge_columns(raw: _RawGraph, keep_rows, group, warnings) -> dict[str, np.ndarray]:
    """Edge attribute columns of the merged edges (``group``: the merged edge of each
    edge read); weights of parallel edges are summed."""
    out = {}
    total = len(raw.edges)
    for key, values in raw.edge_attrs.items():
        column = _column_from_dict(values, total)
        if key == "weight" and column.dtype.kind == "f" and len(keep_rows) != total:
            filled = np.where(np.isnan(column), 1.0, column)
            summed = np.zeros(len(keep_rows), dtype=np.float64)
            np.add.at(summed, group, filled)
            out[key] = summed.astype(np.float32)
        else:
            out[key] = column[keep_rows]
    if "weight" in out and out["weight"].dtype.kind == "f":
        missing = np.isnan(out["weight"])
        if missing.any():
            out["weight"] = np.where(missing, 1.0, out["weight"]).astype(np.float32)
            if not missing.all():
                warnings.append(f"{int(missing.sum())} edges without a weight get weight 1.")
    return out


def _column_from_dict(values: dict[int, object] | np.ndarray, length: int) -> np.ndarray:
    """float32 when every present value is a number (bools as 0/1), else str ("" missing).
    A numpy column (from a saved tensor) is already complete and numeric."""
    if isinstance(values, np.ndarray):
        return values.astype(np.float32)
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) for v in values.values())
    if numeric:
        column = np.full(length, np.nan, dtype=np.float32)
        if values:
            idx = np.fromiter(values.keys(), dtype=np.int64, count=len(values))
            column[idx] = np.asarray([float(v) for v in values.values()], dtype=np.float64)
        return column
    column = np.full(length, "", dtype=object)
    for i, v in values.items():
        column[i] = _text(v)
    return column


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _report_values(raw: _RawGraph, warnings: list[str]) -> None:
    for attr, count in raw.non_numeric.items():
        warnings.append(f"{count} value{'s' if count > 1 else ''} of {attr!r} "
                        "were not numbers and were left empty.")
    for attr in sorted(raw.infinite):
        warnings.append(f"Attribute {attr!r} has infinite values (INF/-INF), read as float "
                        "infinity.")


def _pos_array(raw: _RawGraph, n: int, warnings: list[str]) -> np.ndarray | None:
    if not raw.pos:
        return None
    if len(raw.pos) < n:
        warnings.append(f"Only {len(raw.pos)} of {n} nodes have positions: the file's "
                        "positions are not used.")
        return None
    pos = np.asarray([raw.pos[i] for i in range(n)], dtype=np.float64)
    if not np.all(np.isfinite(pos)):
        warnings.append("Some node positions are not finite: the file's positions are not "
                        "used.")
        return None
    return pos.astype(np.float32)


def _networkx(doc: GraphDocument) -> nx.Graph:
    graph = nx.DiGraph() if doc.directed else nx.Graph()
    graph.graph["name"] = doc.name
    for i, node_id in enumerate(doc.node_ids):
        graph.add_node(node_id, **{k: _py(col[i]) for k, col in doc.node_attributes.items()
                                   if _present(col[i])})
    for e, (u, v) in enumerate(doc.edges):
        graph.add_edge(doc.node_ids[u], doc.node_ids[v],
                       **{k: _py(col[e]) for k, col in doc.edge_attributes.items()
                          if _present(col[e])})
    return graph


def _present(value) -> bool:
    return not (isinstance(value, (float, np.floating)) and math.isnan(value)) and value != ""


def _py(value):
    if isinstance(value, np.floating):
        f = float(value)
        return int(f) if f.is_integer() and abs(f) < 2**53 else f
    return value


def _edge_index_map(edges: np.ndarray, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    rows = np.arange(len(edges), dtype=np.int64)
    if directed:
        return rows, np.zeros(len(edges), dtype=bool)
    loops = edges[:, 0] == edges[:, 1] if len(edges) else np.zeros(0, dtype=bool)
    reverse_rows = rows[~loops]
    return (np.concatenate([rows, reverse_rows]),
            np.concatenate([np.zeros(len(rows), bool), np.ones(len(reverse_rows), bool)]))


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
    if doc.edge_weight is not None:
        data.edge_weight = torch.from_numpy(doc.edge_weight[doc.edge_index_edge].copy())
    if doc.pos is not None:
        data.pos = torch.from_numpy(doc.pos.copy())
    if doc.directed:
        both = np.concatenate([edges, edges[:, ::-1]]) if len(edges) else edges
        unique = np.unique(both, axis=0) if len(both) else both
        data.edge_index_undirected = torch.from_numpy(
            np.ascontiguousarray(unique.T, dtype=np.int64).reshape(2, -1))
    return data


# ---------------------------------------------------------------------------------------
# Built-in graphs
# ---------------------------------------------------------------------------------------


def builtin_graph(key: str, seed: int = 0, **params) -> GraphDocument:
    """One of :data:`BUILTIN_GRAPHS`, built in code (nothing downloaded).

    Parameters by key: ``sbm``: ``sizes`` (4 x 25), ``p_in`` (0.3), ``p_out`` (0.02);
    ``ba_house``: ``base_nodes`` (60), ``houses`` (10), ``m`` (2); ``grid``: ``rows``,
    ``cols`` (10); ``geometric``: ``n`` (150), ``radius`` (0.15). Random graphs are
    reproducible for a given ``seed``.
    """
    builders = {
        "karate": _karate, "les_miserables": _les_miserables, "florentine": _florentine,
        "davis": _davis, "sbm": _sbm, "ba_house": _ba_house, "grid": _grid,
        "geometric": _geometric,
    }
    if key not in builders:
        raise InvalidParameterError(f"Unknown built-in graph {key!r}; choose one of "
                                    f"{', '.join(BUILTIN_GRAPHS)}.")
    try:
        raw, label = builders[key](seed, **params)
    except TypeError as e:
        raise InvalidParameterError(f"Built-in graph {key!r}: {e}.") from e
    raw.name = BUILTIN_GRAPHS[key]
    doc = _build(raw, source="built-in", label_attr=label)
    return doc


def _raw_from_nx(graph: nx.Graph, name: str) -> _RawGraph:
    raw = _RawGraph(name, graph.is_directed())
    for node, attrs in graph.nodes(data=True):
        i = raw.node(node)
        for k, v in attrs.items():
            if k == "pos":
                raw.pos[i] = (float(v[0]), float(v[1]))
            elif isinstance(v, (bool, int, float, str)):
                raw.set_node(i, k, v)
    for u, v, attrs in graph.edges(data=True):
        raw.add_edge(u, v, {k: a for k, a in attrs.items() if isinstance(a, (int, float, str))})
    return raw


def _community(raw: _RawGraph, graph: nx.Graph, seed: int) -> None:
    parts = nx.community.louvain_communities(graph, weight="weight", seed=seed)
    parts = sorted(parts, key=lambda p: (-len(p), min(raw.index[str(x)] for x in p)))
    for c, members in enumerate(parts):
        for node in members:
            raw.set_node(raw.index[str(node)], "community", c)
    raw.warnings.append(f"Labels ('community') are Louvain communities found by networkx "
                        f"(weighted, seed={seed}); they are not part of the data set.")


def _karate(seed: int) -> tuple[_RawGraph, str]:
    from torch_geometric.datasets import KarateClub

    data = KarateClub()[0]
    club = nx.karate_club_graph()
    raw = _RawGraph("karate")
    for i in range(data.num_nodes):
        raw.node(i)
        raw.set_node(i, "community", int(data.y[i]))
        raw.set_node(i, "club", club.nodes[i]["club"])
    for u, v in data.edge_index.T.tolist():
        if u < v:
            raw.add_edge(u, v, {"weight": float(club.edges[u, v].get("weight", 1))})
    raw.warnings.append("Labels ('community'): the 4 communities of PyG's KarateClub; "
                        "'club' is the split after the conflict (2 classes).")
    return raw, "community"


def _les_miserables(seed: int) -> tuple[_RawGraph, str]:
    graph = nx.les_miserables_graph()
    raw = _raw_from_nx(graph, "les_miserables")
    _community(raw, graph, seed)
    return raw, "community"


def _florentine(seed: int) -> tuple[_RawGraph, str]:
    graph = nx.florentine_families_graph()
    raw = _raw_from_nx(graph, "florentine")
    _community(raw, graph, seed)
    return raw, "community"


def _davis(seed: int) -> tuple[_RawGraph, str]:
    graph = nx.davis_southern_women_graph()
    raw = _raw_from_nx(graph, "davis")
    for i, node in enumerate(graph.nodes):
        raw.set_node(i, "bipartite", "woman" if graph.nodes[node]["bipartite"] == 0
                     else "event")
    raw.warnings.append("Labels ('bipartite'): the side of the bipartite graph "
                        "(woman or event).")
    return raw, "bipartite"


def _sbm(seed: int, sizes: Sequence[int] = (25, 25, 25, 25), p_in: float = 0.3,
         p_out: float = 0.02) -> tuple[_RawGraph, str]:
    sizes = [int(s) for s in sizes]
    if not sizes or min(sizes) < 1 or sum(sizes) > 5000:
        raise InvalidParameterError("SBM block sizes must be positive, 5000 nodes at most.")
    if not (0 <= p_out <= 1 and 0 <= p_in <= 1):
        raise InvalidParameterError("SBM probabilities must lie in [0, 1].")
    probs = [[p_in if a == b else p_out for b in range(len(sizes))] for a in range(len(sizes))]
    graph = nx.stochastic_block_model(sizes, probs, seed=seed)
    raw = _RawGraph("sbm")
    for node in graph.nodes:
        i = raw.node(node)
        raw.set_node(i, "block", int(graph.nodes[node]["block"]))
    for u, v in graph.edges:
        raw.add_edge(u, v)
    return raw, "block"


_HOUSE_ROLES = {0: 1, 1: 2, 2: 2, 3: 3, 4: 3}  # top, middle, middle, bottom, bottom
_HOUSE_EDGES = ((0, 1), (0, 2), (1, 2), (1, 3), (2, 4), (3, 4))


def _ba_house(seed: int, base_nodes: int = 60, houses: int = 10,
              m: int = 2) -> tuple[_RawGraph, str]:
    if not (m + 1 <= base_nodes <= 5000 and 0 <= houses <= 1000 and m >= 1):
        raise InvalidParameterError("ba_house needs 1 <= m < base_nodes <= 5000 and "
                                    "0 <= houses <= 1000.")
    rng = np.random.default_rng(seed)
    base = nx.barabasi_albert_graph(base_nodes, m, seed=seed)
    raw = _RawGraph("ba_house")
    for node in range(base_nodes):
        raw.set_node(raw.node(node), "role", 0)
    for u, v in base.edges:
        raw.add_edge(u, v)
    for h in range(houses):
        first = base_nodes + 5 * h
        for k in range(5):
            raw.set_node(raw.node(first + k), "role", _HOUSE_ROLES[k])
        for a, b in _HOUSE_EDGES:
            raw.add_edge(first + a, first + b)
        raw.add_edge(first + 3, int(rng.integers(base_nodes)))
    raw.warnings.append("Labels ('role'): 0 base graph, 1 house top, 2 house middle, "
                        "3 house bottom, as in GNNExplainer's BA-Shapes.")
    return raw, "role"


def _grid(seed: int, rows: int = 10, cols: int = 10) -> tuple[_RawGraph, str]:
    if not (1 <= rows <= 300 and 1 <= cols <= 300):
        raise InvalidParameterError("grid rows and cols must lie in 1..300.")
    raw = _RawGraph("grid")
    for r in range(rows):
        for c in range(cols):
            i = raw.node(f"{r},{c}")
            raw.pos[i] = (float(c), float(-r))
            quadrant = (2 if r >= rows / 2 else 0) + (1 if c >= cols / 2 else 0)
            raw.set_node(i, "quadrant", quadrant)
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                raw.add_edge(f"{r},{c}", f"{r},{c + 1}")
            if r + 1 < rows:
                raw.add_edge(f"{r},{c}", f"{r + 1},{c}")
    return raw, "quadrant"


def _geometric(seed: int, n: int = 150, radius: float = 0.15) -> tuple[_RawGraph, str]:
    if not (1 <= n <= 5000 and 0 < radius <= 1.5):
        raise InvalidParameterError("geometric needs 1 <= n <= 5000 and 0 < radius <= 1.5.")
    graph = nx.random_geometric_graph(n, radius, seed=seed)
    raw = _RawGraph("geometric")
    for node in graph.nodes:
        i = raw.node(node)
        x, y = graph.nodes[node]["pos"]
        raw.pos[i] = (float(x), float(y))
        raw.set_node(i, "region", min(int(x * 4), 3))
    for u, v in graph.edges:
        raw.add_edge(u, v)
    raw.warnings.append("Labels ('region'): which quarter of the unit square's width the "
                        "node lies in (x-coordinate bucket, 4 classes).")
    return raw, "region"


# ---------------------------------------------------------------------------------------
# Layouts (numpy/torch only: no scipy)
# ---------------------------------------------------------------------------------------


def layout(doc: GraphDocument, kind: str, seed: int = 0) -> np.ndarray:
    """Node positions for drawing, normalised so the largest coordinate is about 1.

    Kinds: ``spring`` (Fruchterman-Reingold; fewer iterations and sampled repulsion on
    large graphs), ``kamada_kawai`` (stress majorisation of the Kamada-Kawai energy, up
    to 2000 nodes), ``spectral`` (Laplacian eigenvectors), ``circular``, ``shell`` (rings
    by label, or by degree), ``data`` (the file's positions). Disconnected graphs are
    laid out per component (kamada_kawai, spectral) and packed side by side.

    Shapes:
        returns float32[n, 2], finite.
    """
    if kind not in LAYOUTS:
        raise InvalidParameterError(f"Unknown layout {kind!r}; choose one of "
                                    f"{', '.join(LAYOUTS)}.")
    n = doc.num_nodes
    if kind == "data":
        if doc.pos is None:
            raise InvalidParameterError(f"{doc.name} has no node positions; choose another "
                                        "layout.")
        return _normalise(doc.pos.astype(np.float64))
    if n == 1:
        return np.zeros((1, 2), dtype=np.float32)
    edges = doc.edges[doc.edges[:, 0] != doc.edges[:, 1]] if len(doc.edges) else doc.edges
    if kind == "kamada_kawai" and n > KAMADA_KAWAI_MAX_NODES:
        raise InvalidParameterError(
            f"Kamada-Kawai is too slow for {n} nodes (at most {KAMADA_KAWAI_MAX_NODES}); "
            "use the spring layout.")
    if kind == "circular":
        pos = _circle(n)
    elif kind == "shell":
        pos = _shell(doc)
    elif kind == "spring":
        pos = _spring(n, edges, seed)
    else:
        method = _stress if kind == "kamada_kawai" else _spectral
        pos = _per_component(n, edges, method, seed)
    return _normalise(pos)


def _normalise(pos: np.ndarray) -> np.ndarray:
    pos = np.nan_to_num(np.asarray(pos, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    if len(pos) == 0:
        return np.zeros((0, 2), dtype=np.float32)
    pos = pos - (pos.max(axis=0) + pos.min(axis=0)) / 2
    scale = np.abs(pos).max()
    if scale > 0:
        pos = pos / scale
    return np.ascontiguousarray(pos, dtype=np.float32)


def _circle(n: int) -> np.ndarray:
    theta = 2 * np.pi * np.arange(n) / max(n, 1)
    return np.stack([np.cos(theta), np.sin(theta)], axis=1)


def _shell(doc: GraphDocument) -> np.ndarray:
    n = doc.num_nodes
    if doc.labels.max() >= 0 and len(doc.label_names) <= 12:
        ring = np.where(doc.labels >= 0, doc.labels, len(doc.label_names))
    else:
        order = np.argsort(-doc.degree, kind="stable")
        ring = np.empty(n, dtype=np.int64)
        bounds = np.cumsum([max(1, n // 10), max(1, n * 3 // 10), n])
        ring[order] = np.searchsorted(bounds, np.arange(n), side="right")
    rings = np.unique(ring)
    pos = np.zeros((n, 2))
    for r, value in enumerate(rings):
        members = np.flatnonzero(ring == value)
        radius = 0.0 if (r == 0 and len(members) == 1) else (r + 1) / len(rings)
        pos[members] = radius * _circle(len(members))
    return pos


def _spring(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    """Fruchterman-Reingold with a weak pull to the centre (keeps components together)."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1, 1, size=(n, 2))
    k = 1.0 / math.sqrt(n)
    iterations = 50 if n <= 1000 else max(10, int(50 * 1000 / n))
    sample = None if n <= 2000 else 1000
    temperature = 0.1
    for step in range(iterations):
        disp = _repulsion(pos, k, rng, sample)
        if len(edges):
            delta = pos[edges[:, 0]] - pos[edges[:, 1]]
            dist = np.maximum(np.linalg.norm(delta, axis=1, keepdims=True), 1e-4)
            pull = delta * dist / k
            np.add.at(disp, edges[:, 0], -pull)
            np.add.at(disp, edges[:, 1], pull)
        disp -= 0.05 * pos * np.linalg.norm(pos, axis=1, keepdims=True) / k
        length = np.maximum(np.linalg.norm(disp, axis=1, keepdims=True), 1e-9)
        pos += disp / length * np.minimum(length, temperature)
        temperature = 0.1 * (1 - (step + 1) / (iterations + 1))
    return pos


def _repulsion(pos: np.ndarray, k: float, rng, sample: int | None) -> np.ndarray:
    """sum_j k^2 (x_i - x_j) / |x_i - x_j|^2, over all j or a random sample (rescaled).

    Written as ``k^2 (x_i sum_j c_ij - sum_j c_ij x_j)`` with ``c_ij = 1 / d_ij^2``, so
    only [n, m] matrices are formed.
    """
    n = len(pos)
    others = pos if sample is None else pos[rng.choice(n, size=sample, replace=False)]
    scale = 1.0 if sample is None else n / sample
    disp = np.empty_like(pos)
    rows = max(1, 4_000_000 // len(others))
    for start in range(0, n, rows):
        block = pos[start:start + rows]
        inv = 1.0 / np.maximum(_squared_distances(block, others), 1e-6)
        if sample is None:
            inv[np.arange(len(block)), np.arange(start, start + len(block))] = 0.0
        disp[start:start + rows] = block * inv.sum(1, keepdims=True) - inv @ others
    return scale * k * k * disp


def _squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Shapes: a float64[n, 2], b float64[m, 2] -> float64[n, m]."""
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.maximum(d2, 0.0)


def _components(n: int, edges: np.ndarray) -> list[np.ndarray]:
    parent = np.arange(n)

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for u, v in edges.tolist():
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
    roots = np.array([find(i) for i in range(n)])
    order = np.argsort(roots, kind="stable")
    split = np.flatnonzero(np.diff(roots[order])) + 1
    parts = np.split(order, split)
    return sorted(parts, key=len, reverse=True)


def _per_component(n: int, edges: np.ndarray, method, seed: int) -> np.ndarray:
    """Lay out each connected component on its own, then pack them in rows."""
    parts = _components(n, edges)
    local = np.full(n, -1, dtype=np.int64)
    placed = []
    for members in parts:
        if len(members) <= 2:
            sub = np.array([[0.0, 0.0], [1.0, 0.0]])[:len(members)]
        else:
            local[members] = np.arange(len(members))
            mask = np.isin(edges[:, 0], members)
            sub_edges = local[edges[mask]]
            sub = method(len(members), sub_edges, seed)
        sub = sub - sub.mean(axis=0)
        extent = np.abs(sub).max()
        size = math.sqrt(len(members))
        placed.append(sub / extent * size / 2 if extent > 0 else sub)
    return _pack(parts, placed, n)


def _pack(parts, placed, n: int) -> np.ndarray:
    width = max(math.sqrt(sum(len(p) for p in parts)) * 1.5, math.sqrt(len(parts[0])) + 1)
    pos = np.zeros((n, 2))
    x = y = row_height = 0.0
    for members, sub in zip(parts, placed, strict=True):
        size = math.sqrt(len(members)) + 1
        if x > 0 and x + size > width:
            x, y, row_height = 0.0, y - row_height, 0.0
        pos[members] = sub + np.array([x + size / 2, y - size / 2])
        x += size
        row_height = max(row_height, size)
    return pos


#: frontier expansion costs n² per hop; past this many hops (a long chain) one BFS per
#: source is cheaper (measured at n = 2000: 11 ms a hop against 1.3-1.7 s for all BFS)
FRONTIER_MAX_HOPS = 128


def _hop_distances(n: int, edges: np.ndarray) -> np.ndarray:
    """All-pairs hop counts of a connected graph by frontier expansion (sparse matmul),
    or by networkx's BFS from every node when the graph is a long chain.

    Shapes: returns float64[n, n].
    """
    both = np.concatenate([edges, edges[:, ::-1]])
    adj = torch.sparse_coo_tensor(torch.from_numpy(both.T.copy()), torch.ones(len(both)),
                                  (n, n), check_invariants=True).coalesce()
    dist = torch.full((n, n), float("inf"))
    reached = torch.eye(n, dtype=torch.bool)
    frontier = torch.eye(n)
    dist[reached] = 0
    for hop in range(1, n):
        if hop > FRONTIER_MAX_HOPS:
            return _hop_distances_bfs(n, edges)
        frontier = (torch.sparse.mm(adj, frontier) > 0) & ~reached
        if not frontier.any():
            break
        dist[frontier] = hop
        reached |= frontier
        frontier = frontier.float()
    return dist.double().numpy()


def _hop_distances_bfs(n: int, edges: np.ndarray) -> np.ndarray:
    """The same hop counts by one BFS per node. Shapes: returns float64[n, n]."""
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges.tolist())
    dist = np.full((n, n), np.inf)
    for source, lengths in nx.all_pairs_shortest_path_length(graph):
        dist[source, np.fromiter(lengths.keys(), np.int64)] = np.fromiter(lengths.values(),
                                                                          np.float64)
    return dist


def _stress(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    """Kamada-Kawai energy sum_ij (|x_i - x_j| - d_ij)^2 / d_ij^2, minimised by stress
    majorisation (Gansner, Koren & North 2004), started from classical MDS."""
    d = _hop_distances(n, edges)
    pos = _classical_mds(d, seed)
    w = np.zeros_like(d)
    off = d > 0
    w[off] = d[off] ** -2
    wsum = w.sum(axis=1, keepdims=True)
    for _ in range(100 if n <= 500 else 50):
        norm = np.maximum(np.sqrt(_squared_distances(pos, pos)), 1e-9)
        coef = w * d / norm
        pos = (w @ pos + coef.sum(1, keepdims=True) * pos - coef @ pos) / wsum
    return pos


def _classical_mds(d: np.ndarray, seed: int) -> np.ndarray:
    n = len(d)
    d2 = d ** 2
    b = -0.5 * (d2 - d2.mean(0) - d2.mean(1)[:, None] + d2.mean())
    return _top_eigenvectors(lambda v: b @ v, n, seed, iterations=100) * math.sqrt(max(d.max(), 1.0))


def _top_eigenvectors(matvec, n: int, seed: int, deflate: np.ndarray | None = None,
                      iterations: int = 200) -> np.ndarray:
    """Two dominant eigenvectors by orthogonal (subspace) iteration.

    Shapes: returns float64[n, 2].
    """
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 2))
    for _ in range(iterations):
        if deflate is not None:
            v -= deflate[:, None] * (deflate @ v)[None, :]
        v, _ = np.linalg.qr(matvec(v))
    return v


def _spectral(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    """Eigenvectors 2 and 3 of the normalised Laplacian (dense up to 1500 nodes)."""
    degree = np.bincount(edges.reshape(-1), minlength=n).astype(np.float64)
    inv_sqrt = 1.0 / np.sqrt(np.maximum(degree, 1.0))
    if n <= 1500:
        a = np.zeros((n, n))
        np.add.at(a, (edges[:, 0], edges[:, 1]), 1.0)
        np.add.at(a, (edges[:, 1], edges[:, 0]), 1.0)
        lap = np.eye(n) - inv_sqrt[:, None] * a * inv_sqrt[None, :]
        _, vectors = np.linalg.eigh(lap)
        return vectors[:, 1:3] * inv_sqrt[:, None]
    trivial = np.sqrt(degree) / np.linalg.norm(np.sqrt(degree))

    def matvec(v):  # (I + D^-1/2 A D^-1/2) / 2
        scaled = v * inv_sqrt[:, None]
        out = np.zeros_like(v)
        np.add.at(out, edges[:, 0], scaled[edges[:, 1]])
        np.add.at(out, edges[:, 1], scaled[edges[:, 0]])
        return (v + out * inv_sqrt[:, None]) / 2

    return _top_eigenvectors(matvec, n, seed, deflate=trivial, iterations=300) * \
        inv_sqrt[:, None]


# ---------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------


def save_graph(doc: GraphDocument, path: str | os.PathLike,
               node_values: dict[str, np.ndarray] | None = None,
               edge_values: dict[str, np.ndarray] | None = None) -> None:
    """Write the graph with its attributes and extra values as GraphML or GEXF 1.2.

    ``node_values``: arrays of length n (numbers or str); a float ``pos`` array of shape
    [n, 2] becomes the node positions. ``edge_values``: arrays aligned with ``doc.edges``
    (length E) or with ``doc.data.edge_index`` columns (length E'); for an undirected graph
    the latter are written as ``<name>`` (the direction stored in ``doc.edges``) and
    ``<name>_reverse`` (the other direction; a self-loop's own value). Every edge is
    written with the source and target of ``doc.edges`` (edges are ordered by source
    node, as networkx writes them). Written to a temporary file in the same folder and
    renamed, so a failed export leaves no half file.
    """
    path = Path(path)
    ext = path.suffix.lower()
    if ext not in (".graphml", ".gexf"):
        raise InvalidParameterError(f"{path.name}: export writes .graphml or .gexf files.")
    graph, pos = _export_graph(doc, dict(node_values or {}), dict(edge_values or {}))
    if ext == ".gexf" and pos is not None:
        for i, node_id in enumerate(doc.node_ids):
            graph.nodes[node_id]["viz"] = {"position": {"x": float(pos[i, 0]),
                                                        "y": float(pos[i, 1]), "z": 0.0}}
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=ext + ".tmp",
                               dir=path.parent if str(path.parent) else ".")
    try:
        buffer = io.BytesIO()
        if ext == ".graphml":
            nx.write_graphml(graph, buffer)
            text = _mark_undirected(buffer.getvalue(), doc, b'edgedefault="directed"')
        else:
            nx.write_gexf(graph, buffer, version="1.2draft")
            text = _mark_undirected(buffer.getvalue(), doc, b'defaultedgetype="directed"')
        with os.fdopen(fd, "wb") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _export_graph(doc: GraphDocument, node_values: dict, edge_values: dict):
    n, e_count = doc.num_nodes, doc.num_edges
    pos = doc.pos
    extra_pos = node_values.pop("pos", None)
    if extra_pos is not None:
        extra_pos = np.asarray(extra_pos, dtype=np.float64)
        if extra_pos.shape != (n, 2):
            raise InvalidParameterError(f"node value 'pos' must have shape ({n}, 2).")
        pos = extra_pos
    node_columns = dict(doc.node_attributes)
    for name, values in node_values.items():
        node_columns[name] = _export_column(name, values, n, "node")
    if pos is not None and "x" not in node_columns and "y" not in node_columns:
        node_columns["x"] = np.asarray(pos[:, 0], dtype=np.float64)
        node_columns["y"] = np.asarray(pos[:, 1], dtype=np.float64)
    edge_columns = dict(doc.edge_attributes)
    if doc.edge_weight is not None:
        edge_columns["weight"] = doc.edge_weight
    e_prime = len(doc.edge_index_edge)
    for name, values in edge_values.items():
        values = np.asarray(values)
        if len(values) == e_count:
            edge_columns[name] = _export_column(name, values, e_count, "edge")
        elif len(values) == e_prime:
            forward = np.empty(e_count, dtype=values.dtype)
            backward = np.empty(e_count, dtype=values.dtype)
            forward[doc.edge_index_edge[~doc.edge_index_reverse]] = \
                values[~doc.edge_index_reverse]
            backward[:] = forward
            backward[doc.edge_index_edge[doc.edge_index_reverse]] = \
                values[doc.edge_index_reverse]
            edge_columns[name] = _export_column(name, forward, e_count, "edge")
            edge_columns[f"{name}_reverse"] = _export_column(name, backward, e_count, "edge")
        else:
            raise InvalidParameterError(
                f"edge value {name!r} has {len(values)} entries; expected {e_count} (one per "
                f"edge) or {e_prime} (one per column of edge_index).")
    graph = nx.DiGraph()  # keeps each edge's direction as in doc.edges; see save_graph
    for i, node_id in enumerate(doc.node_ids):
        graph.add_node(node_id, **_row(node_columns, i))
    for e, (u, v) in enumerate(doc.edges.tolist()):
        graph.add_edge(doc.node_ids[u], doc.node_ids[v], **_row(edge_columns, e))
    return graph, pos


def _mark_undirected(text: bytes, doc: GraphDocument, directed_flag: bytes) -> bytes:
    """networkx writes the graph as directed (so each edge keeps the direction of
    ``doc.edges``); an undirected document gets its graph element's flag flipped."""
    if doc.directed:
        return text
    if text.count(directed_flag) != 1:
        raise RuntimeError("unexpected networkx output: cannot mark the graph undirected")
    return text.replace(directed_flag, directed_flag.replace(b'"directed"', b'"undirected"'))


def _export_column(name: str, values, length: int, what: str) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 1 or len(values) != length:
        raise InvalidParameterError(f"{what} value {name!r} must be 1-D of length {length}.")
    if values.dtype.kind in "biuf":
        return values
    return np.asarray([str(v) for v in values], dtype=object)


_RESERVED_GEXF = {"id", "pid", "start", "end", "spells", "viz"}


def _row(columns: dict[str, np.ndarray], i: int) -> dict[str, object]:
    out = {}
    for name, column in columns.items():
        if name in _RESERVED_GEXF:
            continue
        value = column[i]
        if column.dtype.kind == "b":
            out[name] = bool(value)
        elif column.dtype.kind in "iu":
            out[name] = int(value)
        elif column.dtype.kind == "f":
            if not math.isnan(float(value)):
                out[name] = float(value)
        elif value != "":
            out[name] = str(value)
    return out
