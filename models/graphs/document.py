"""The graph document: what every reader and built-in graph becomes.

Readers (``models.graphs.readers``, one module per file format) and the built-in graphs
fill a ``_RawGraph``; ``_build`` cleans it (merges parallel edges, keeps self-loops,
reports isolated nodes) and makes a :class:`GraphDocument` with numpy columns and a PyG
``Data``, whose labels and features come from ``models.graphs.features``.

Message passing convention: ``data.edge_index`` is the graph messages flow on.
For an undirected graph it holds both directions of every edge (a self-loop once):
columns ``0..E-1`` are the rows of ``doc.edges`` as stored, the following columns
the reverses of the non-loop edges, in the same order. For a directed graph it is
``doc.edges.T`` (direction as read, messages flow source -> target), and
``data.edge_index_undirected`` holds the symmetrised graph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import networkx as nx
import numpy as np
from torch_geometric.data import Data

from models.errors import GraphLoadError, InvalidParameterError
from models.graphs.features import (
    MAX_LABEL_CLASSES,
    _categorical,
    _categorical_or_none,
    _default_label,
    _features,
    _labels_from,
    _make_data,
)
from models.reading import LoadWatch

MAX_NODES = 200_000
MAX_EDGES = 2_000_000
#: the most attribute names the nodes (and, apart, the edges) of one graph may have: each
#: is a column, a choice in the colour-by menus and a row of the export (a node-link file
#: with 200,000 attributes per node took 24 s to read and held the window 15 s)
MAX_ATTRIBUTES = 256
#: the largest float32 (models compute in float32: an edge weight beyond it is refused)
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: what happens to a graph with negative edge weights (said in its warnings)
NEGATIVE_WEIGHT_NOTE = (
    "GCN normalises messages by 1/sqrt(deg(u) deg(v)) with deg the sum of a node's edge "
    "weights (plus 1 for its self-loop): a negative weight can make a degree zero or "
    "negative, whose inverse square root is infinite or not a number, and the training "
    "fails. So the weights are kept and shown, but the models train on the graph without "
    "them (every edge weight 1); GraphSAGE and GAT ignore edge weights anyway.")


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
            column = self.edge_attrs.get(key)
            if column is None:
                column = self.edge_attrs[key] = self._new_column(self.edge_attrs, "edges")
            column[e] = value
        return e

    def set_node(self, i: int, key: str, value: object) -> None:
        column = self.node_attrs.get(key)
        if column is None:
            column = self.node_attrs[key] = self._new_column(self.node_attrs, "nodes")
        column[i] = value

    def _new_column(self, columns: dict, what: str) -> dict:
        if len(columns) >= MAX_ATTRIBUTES:
            raise GraphLoadError(
                f"{self.name}: the {what} have more than {MAX_ATTRIBUTES} attributes; "
                f"ArchScope reads at most {MAX_ATTRIBUTES} (drop the columns you do not need).")
        return {}

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


def _build(raw: _RawGraph, source: str, label_attr: str | None = "auto",
           watch: LoadWatch | None = None) -> GraphDocument:
    """The document of what a reader found; ``watch`` (a file being opened) is ticked
    between the steps, each under a second for the largest graph allowed."""
    watch = watch or LoadWatch(raw.name)
    n = len(raw.node_ids)
    if n == 0:
        raise GraphLoadError(f"{raw.name}: the graph has no nodes.")
    warnings = list(raw.warnings)
    _check_weights(raw)
    watch.tick(0.1)
    edges, keep_rows, group, collapsed = _merge_parallel(raw, warnings)
    watch.tick(0.4)
    edge_attributes = _merge_edge_columns(raw, keep_rows, group, warnings)
    node_attributes = {k: _column_from_dict(v, n) for k, v in raw.node_attrs.items()}
    watch.tick(0.6)
    _report_values(raw, warnings)
    weight = edge_attributes.get("weight")
    edge_weight = None
    if weight is not None and weight.dtype.kind == "f":
        _check_merged_weights(raw, edges, weight)
        edge_weight = weight.astype(np.float32)
        _warn_negative_weights(raw, edges, edge_weight, warnings)
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
    watch.tick(0.8)
    return doc.with_attributes(label_attr, tuple(raw.default_features))


def _merge_parallel(raw: _RawGraph, warnings: list[str]):
    """Unique edges in first-seen order; for undirected graphs (u, v) == (v, u)."""
    if not raw.edges:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, 2), dtype=np.int64), empty, empty, 0
    arr = _edge_array(raw.edges)
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


#: rows converted (or let go) at a time: each piece holds the interpreter ~10 ms, and a
#: window waiting for it with it, where two million at once would hold it a second
_PIECE = 1 << 15


def _edge_array(edges: list[tuple[int, int]]) -> np.ndarray:
    """int64[E, 2] of a list of (u, v) pairs, converted a piece at a time."""
    out = np.empty((len(edges), 2), dtype=np.int64)
    for start in range(0, len(edges), _PIECE):
        out[start:start + _PIECE] = edges[start:start + _PIECE]
    return out


def _let_go(raw: _RawGraph) -> None:
    """Free a read graph's lists of edges and nodes a piece at a time (once built into a
    document): dropped at once, millions of pairs are freed in one call that holds the
    interpreter a fifth of a second."""
    for items in (raw.edges, raw.node_ids):
        while items:
            del items[-_PIECE:]


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
            with np.errstate(over="ignore"):     # a sum beyond float32: refused in _build
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


def _edge_names(raw: _RawGraph, edges, rows: np.ndarray, values: np.ndarray) -> str:
    """``(a, b): 1e+308, (c, d): inf, ... and 7 more`` for the first few ``rows``."""
    shown = [f"({raw.node_ids[edges[r][0]]}, {raw.node_ids[edges[r][1]]}): {values[r]:g}"
             for r in rows[:5]]
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return ", ".join(shown) + more


def _check_weights(raw: _RawGraph) -> None:
    """Refuse edge weights that are not finite, or too large for float32 (what models
    train in: 1e308 would become inf), naming the edges. Weights are what GCN multiplies
    messages by; reading inf as 1.0, as ArchScope once did, changes the graph silently."""
    values = raw.edge_attrs.get("weight")
    if values is None:
        return
    if isinstance(values, np.ndarray):
        rows, vals = np.arange(len(values)), values.astype(np.float64)
    else:
        if not values or not all(isinstance(v, (int, float, np.integer, np.floating))
                                 and not isinstance(v, bool) for v in values.values()):
            return
        rows = np.fromiter(values.keys(), dtype=np.int64, count=len(values))
        vals = np.asarray([float(v) for v in values.values()], dtype=np.float64)
    full = np.zeros(len(raw.edges), dtype=np.float64)
    full[rows] = vals
    bad = rows[~np.isfinite(vals)]
    if len(bad):
        raise GraphLoadError(
            f"{raw.name}: {len(bad)} edge weight{'s are' if len(bad) > 1 else ' is'} not a "
            f"finite number: {_edge_names(raw, raw.edges, bad, full)}. Give every edge a "
            "finite weight (or none).")
    big = rows[np.abs(vals) > FLOAT32_MAX]
    if len(big):
        raise GraphLoadError(
            f"{raw.name}: {len(big)} edge weight{'s are' if len(big) > 1 else ' is'} too "
            f"large: {_edge_names(raw, raw.edges, big, full)}. Models compute in float32, "
            f"where the largest number is {FLOAT32_MAX:.3g}: these would become infinite. "
            "Rescale the weights.")


def _check_merged_weights(raw: _RawGraph, edges: np.ndarray, weight: np.ndarray) -> None:
    """Parallel edges' weights are summed: refuse a sum beyond float32."""
    over = np.flatnonzero(~np.isfinite(weight))
    if len(over):
        raise GraphLoadError(
            f"{raw.name}: merging parallel edges sums their weights beyond float32's largest "
            f"number ({FLOAT32_MAX:.3g}) for {len(over)} edge{'s' if len(over) > 1 else ''}: "
            + ", ".join(f"({raw.node_ids[edges[r][0]]}, {raw.node_ids[edges[r][1]]})"
                        for r in over[:5]) + ". Rescale the weights.")


def _warn_negative_weights(raw: _RawGraph, edges: np.ndarray, weight: np.ndarray,
                           warnings: list[str]) -> None:
    """Negative weights are kept (a signed graph is data worth looking at) but not
    trained with: see ``NEGATIVE_WEIGHT_NOTE``."""
    negative = np.flatnonzero(weight < 0)
    if len(negative):
        warnings.append(
            f"{len(negative)} edge{'s have' if len(negative) > 1 else ' has'} a negative "
            f"weight: {_edge_names(raw, edges, negative, weight)}. {NEGATIVE_WEIGHT_NOTE}")


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
