"""Node-link JSON (``.json``), as networkx's ``node_link_data`` writes it."""

from __future__ import annotations

import json

from models.errors import GraphLoadError
from models.graphs.document import MAX_ATTRIBUTES, _RawGraph
from models.graphs.readers.text import _decode
from models.reading import TICK_EVERY, LoadWatch


def _read_json(name: str, data: bytes, watch: LoadWatch | None = None) -> _RawGraph:
    """networkx ``node_link_data``: ``nodes`` (with ``id``) and ``links`` or ``edges``."""
    watch = watch or LoadWatch(name)
    try:
        doc = json.loads(_decode(data))
    except json.JSONDecodeError as e:
        raise GraphLoadError(f"{name}, line {e.lineno}: not valid JSON ({e.msg}).") from e
    except RecursionError:
        raise GraphLoadError(f"{name}: not valid JSON (it is nested too deeply to be "
                             "read).") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise GraphLoadError(f"{name}: expected a node-link JSON object with a 'nodes' list "
                             "and a 'links' or 'edges' list.")
    links = doc.get("links", doc.get("edges", []))
    if not isinstance(links, list):
        raise GraphLoadError(f"{name}: 'links' should be a list.")
    raw = _RawGraph(name, directed=bool(doc.get("directed", False)))
    has_ids = all(isinstance(nd, dict) and "id" in nd for nd in doc["nodes"])
    total = max(1, len(doc["nodes"]) + len(links))
    for k, node in enumerate(doc["nodes"]):
        if not k % TICK_EVERY:
            watch.tick(k / total)
        if not isinstance(node, dict):
            raise GraphLoadError(f"{name}: node {k} is not an object.")
        if len(node) > MAX_ATTRIBUTES + 2:
            raise GraphLoadError(f"{name}: node {k} has {len(node):,} attributes; ArchScope "
                                 f"reads at most {MAX_ATTRIBUTES}.")
        i = raw.node(_json_id(name, node["id"], f"node {k}") if has_ids else k)
        for key, value in node.items():
            if key == "id" and has_ids:
                continue
            _json_node_attr(raw, i, key, value)
    for k, link in enumerate(links):
        if not k % TICK_EVERY:
            watch.tick((len(doc["nodes"]) + k) / total)
        if not isinstance(link, dict) or "source" not in link or "target" not in link:
            raise GraphLoadError(f"{name}: link {k} needs 'source' and 'target'.")
        if len(link) > MAX_ATTRIBUTES + 3:
            raise GraphLoadError(f"{name}: link {k} has {len(link):,} attributes; ArchScope "
                                 f"reads at most {MAX_ATTRIBUTES}.")
        ends = [_json_id(name, link[end], f"link {k}") for end in ("source", "target")]
        for end in ends:
            if end not in raw.index:
                raise GraphLoadError(f"{name}: link {k} refers to node {end!r}, which is "
                                     "not in 'nodes'.")
        attrs = {key: _json_value(v) for key, v in link.items() if key not in ("source",
                                                                               "target", "key")}
        raw.add_edge(ends[0], ends[1], attrs)
    return raw


def _json_id(name: str, value, where: str) -> str:
    if isinstance(value, (dict, list)):
        raise GraphLoadError(f"{name}: {where}: a node id is a list or an object, not a "
                             "number or a string.")
    return str(value)


def _json_value(value):
    if isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value)[:200]


def _json_node_attr(raw: _RawGraph, i: int, key: str, value) -> None:
    if key == "pos" and isinstance(value, list) and len(value) >= 2 and all(
            isinstance(c, (int, float)) and not isinstance(c, bool) for c in value[:2]):
        raw.pos[i] = (float(value[0]), float(value[1]))
        return
    raw.set_node(i, str(key), _json_value(value))
