"""Export a graph document, with extra node and edge values, as GraphML or GEXF 1.2."""

from __future__ import annotations

import io
import math
import os
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError
from models.graphs.document import GraphDocument


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
