"""A graph the user opened, kept in a session file, and rebuilt from it as File → Open…
would build it.

``document_state(doc)`` writes a ``GraphDocument`` as small JSON (its name, direction,
the names and kinds of its attributes, the label and feature choice, the notes shown about
it) and numpy arrays: the node ids, the edges (int64[E, 2]), every attribute column
(float32, or text), the positions the file gave. Text is kept as UTF-8 bytes and offsets
(uint8[...] + int64[k + 1]), so nothing needs pickle and nothing is larger than its text.

``document_from_state(meta, arrays, file)`` checks all of it (types, shapes, sizes,
indices in range, unique node ids, finite positions) and rebuilds the document through
the readers' own builder (``models.graphs.document._build``), so a session file passes
the checks a graph file passes (node and edge budgets, finite edge weights within
float32, the label and features the graph has) and cannot carry what File → Open…
refuses. Anything refused raises ``SessionFileError`` naming ``file``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from models.errors import ArchScopeError, SessionFileError
from models.graphs.document import MAX_EDGES, MAX_NODES, GraphDocument, _build, _RawGraph

__all__ = ["document_state", "document_from_state", "pack_strings", "unpack_strings"]

#: notes about a graph kept with it (what the readers said when it was opened)
MAX_NOTES = 200
MAX_NOTE_CHARS = 4000
MAX_ATTRIBUTES = 500


def pack_strings(values) -> tuple[np.ndarray, np.ndarray]:
    """Strings as (uint8 UTF-8 bytes, int64 offsets[k + 1])."""
    encoded = [str(v).encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    if encoded:
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), np.uint8).copy(), offsets


def unpack_strings(blob, offsets, count: int, what: str, where: str) -> list[str]:
    """The ``count`` strings ``pack_strings`` wrote, checked."""
    blob, offsets = np.asarray(blob), np.asarray(offsets)
    if blob.dtype != np.uint8 or blob.ndim != 1 or offsets.dtype != np.int64 \
            or offsets.shape != (count + 1,):
        raise SessionFileError(f"{where}{what}: malformed (uint8 text and {count + 1} "
                               "int64 offsets expected).")
    if offsets[0] != 0 or offsets[-1] != len(blob) or (np.diff(offsets) < 0).any():
        raise SessionFileError(f"{where}{what}: the offsets do not fit the text.")
    data = blob.tobytes()
    try:
        return [data[a:b].decode("utf-8") for a, b in zip(offsets[:-1].tolist(),
                                                          offsets[1:].tolist(), strict=True)]
    except UnicodeDecodeError as exc:
        raise SessionFileError(f"{where}{what}: not UTF-8 text ({exc}).") from exc


def _columns(columns: dict[str, np.ndarray], prefix: str, arrays: dict) -> list[dict]:
    out = []
    for i, (name, column) in enumerate(columns.items()):
        key = f"{prefix}{i}"
        if column.dtype.kind == "f":
            arrays[key] = np.ascontiguousarray(column, np.float32)
            out.append({"name": name, "kind": "number"})
        else:
            arrays[key], arrays[f"{key}_at"] = pack_strings(column)
            out.append({"name": name, "kind": "text"})
    return out


def document_state(doc: GraphDocument, prefix: str = "graph") -> tuple[dict, dict]:
    """``doc`` as (JSON-able meta, arrays named ``<prefix>.…``)."""
    arrays: dict[str, np.ndarray] = {}
    arrays[f"{prefix}.ids"], arrays[f"{prefix}.ids_at"] = pack_strings(doc.node_ids)
    arrays[f"{prefix}.edges"] = np.ascontiguousarray(doc.edges, np.int64).reshape(-1, 2)
    if doc.pos is not None:
        arrays[f"{prefix}.pos"] = np.ascontiguousarray(doc.pos, np.float32)
    meta = {
        "name": doc.name, "source": doc.source, "directed": bool(doc.directed),
        "nodes": doc.num_nodes, "edges": doc.num_edges,
        "multigraph_collapsed": int(doc.multigraph_collapsed),
        "node_attributes": _columns(doc.node_attributes, f"{prefix}.node", arrays),
        "edge_attributes": _columns(doc.edge_attributes, f"{prefix}.edge", arrays),
        "label": doc.label_attr, "features": list(doc.feature_attrs),
        "notes": list(doc.warnings),
    }
    return meta, arrays


# -- reading ------------------------------------------------------------------------------------
def _int(meta: dict, key: str, low: int, high: int, where: str) -> int:
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SessionFileError(f"{where}the graph's {key} ({value!r}) is not a whole number "
                               f"from {low:,} to {high:,}.")
    return value


def _text(value, what: str, where: str, limit: int = MAX_NOTE_CHARS) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise SessionFileError(f"{where}the graph's {what} is not a text of at most "
                               f"{limit:,} characters.")
    return value


def _array(arrays: dict, key: str, where: str) -> np.ndarray:
    if key not in arrays:
        raise SessionFileError(f"{where}the graph's array {key} is missing.")
    return np.asarray(arrays[key])


def _read_columns(meta: dict, kind: str, prefix: str, rows: int, arrays: dict,
                  where: str) -> dict[str, np.ndarray | dict[int, str]]:
    entries = meta.get(f"{kind}_attributes", [])
    if not isinstance(entries, list) or len(entries) > MAX_ATTRIBUTES:
        raise SessionFileError(f"{where}the graph's {kind} attributes are malformed.")
    out: dict[str, np.ndarray | dict[int, str]] = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("kind") not in ("number", "text"):
            raise SessionFileError(f"{where}the graph's {kind} attribute {i} is malformed.")
        name = _text(entry.get("name"), f"{kind} attribute name", where, 1000)
        if name in out:
            raise SessionFileError(f"{where}the graph has two {kind} attributes {name!r}.")
        key = f"{prefix}{i}"
        if entry["kind"] == "number":
            column = _array(arrays, key, where)
            if column.dtype != np.float32 or column.shape != (rows,):
                raise SessionFileError(
                    f"{where}the {kind} attribute {name!r} should be {rows:,} float32 "
                    f"values; the file has {column.dtype} {column.shape}.")
            out[name] = column
        else:
            values = unpack_strings(_array(arrays, key, where), _array(arrays, f"{key}_at",
                                                                       where),
                                    rows, f"the values of the {kind} attribute {name!r}", where)
            out[name] = dict(enumerate(values))
    return out


def document_from_state(meta: dict, arrays: dict, file: str,
                        prefix: str = "graph") -> GraphDocument:
    """The document ``document_state`` saved, rebuilt and checked like a graph file
    (``SessionFileError`` naming ``file`` if anything does not fit)."""
    where = f"{file}: "
    if not isinstance(meta, dict):
        raise SessionFileError(f"{where}the graph's description is malformed.")
    n = _int(meta, "nodes", 1, MAX_NODES, where)
    e = _int(meta, "edges", 0, MAX_EDGES, where)
    name = _text(meta.get("name", "graph"), "name", where, 1000)
    source = _text(meta.get("source", ""), "source", where)
    directed = meta.get("directed", False)
    if not isinstance(directed, bool):
        raise SessionFileError(f"{where}the graph's direction ({directed!r}) is not true or "
                               "false.")
    collapsed = _int(meta, "multigraph_collapsed", 0, MAX_EDGES, where)
    notes = meta.get("notes", [])
    if not isinstance(notes, list) or len(notes) > MAX_NOTES:
        raise SessionFileError(f"{where}the graph's notes are malformed.")
    notes = [_text(note, "note", where) for note in notes]
    label = meta.get("label")
    if label is not None:
        label = _text(label, "label attribute", where, 1000)
    features = meta.get("features", [])
    if not isinstance(features, list):
        raise SessionFileError(f"{where}the graph's feature attributes are malformed.")
    features = tuple(_text(f, "feature attribute", where, 1000) for f in features)
    # the arrays: ids, edges in range, positions finite
    ids = unpack_strings(_array(arrays, f"{prefix}.ids", where),
                         _array(arrays, f"{prefix}.ids_at", where), n, "the graph's node ids",
                         where)
    edges = _array(arrays, f"{prefix}.edges", where)
    if edges.dtype != np.int64 or edges.shape != (e, 2):
        raise SessionFileError(f"{where}the graph's edges should be int64 [{e:,}, 2]; the "
                               f"file has {edges.dtype} {list(edges.shape)}.")
    if e and (int(edges.min()) < 0 or int(edges.max()) >= n):
        bad = int(np.flatnonzero(((edges < 0) | (edges >= n)).any(1))[0])
        raise SessionFileError(f"{where}the graph's edge {bad} joins nodes "
                               f"{edges[bad, 0]} and {edges[bad, 1]}; the graph has nodes "
                               f"0 to {n - 1}.")
    pos = None
    if f"{prefix}.pos" in arrays:
        pos = np.asarray(arrays[f"{prefix}.pos"])
        if pos.dtype != np.float32 or pos.shape != (n, 2) or not np.isfinite(pos).all():
            raise SessionFileError(f"{where}the graph's positions should be finite float32 "
                                   f"[{n:,}, 2].")
    node_columns = _read_columns(meta, "node", f"{prefix}.node", n, arrays, where)
    edge_columns = _read_columns(meta, "edge", f"{prefix}.edge", e, arrays, where)
    # rebuilt by the readers' builder: the same checks and the same document
    raw = _RawGraph(name, directed=directed)
    try:
        for node_id in ids:
            raw.node(node_id)
        if len(raw.node_ids) != n:
            raise SessionFileError(f"{where}the graph's node ids are not unique "
                                   f"({n - len(raw.node_ids):,} repeated).")
        raw.edges = edges.tolist()
        raw.node_attrs = node_columns
        raw.edge_attrs = edge_columns
        if pos is not None:
            raw.pos = {i: (float(x), float(y)) for i, (x, y) in enumerate(pos.tolist())}
        raw.default_features = features
        doc = _build(raw, source=source, label_attr=label)
    except SessionFileError:
        raise
    except ArchScopeError as exc:      # GraphLoadError, InvalidParameterError
        raise SessionFileError(f"{where}its graph cannot be used: {exc}") from exc
    if doc.num_edges != e:
        raise SessionFileError(f"{where}the graph's edges are not unique ({e - doc.num_edges:,} "
                               "repeated).")
    return replace(doc, warnings=tuple(notes), multigraph_collapsed=collapsed)
