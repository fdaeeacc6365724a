"""GraphML (``.graphml``): keys with types and defaults, nodes, edges, positions."""

from __future__ import annotations

from models.errors import GraphLoadError
from models.graphs.document import _RawGraph
from models.graphs.readers.xmlutil import _children, _local, _pos_from_xy, _typed
from models.reading import TICK_EVERY, LoadWatch

_GRAPHML_TYPES = {"int": "int", "long": "int", "integer": "int", "short": "int",
                  "float": "float", "double": "float", "boolean": "bool",
                  "string": "str"}


def _graphml_from_root(name: str, root, watch: LoadWatch | None = None,
                       elements: int = 0) -> _RawGraph:
    """The first graph of ``root``; ``watch`` ticks every ``TICK_EVERY`` of its
    ``elements`` (as many as ``_parse_xml`` counted)."""
    watch = watch or LoadWatch(name)
    keys: dict[tuple[str, str], tuple[str, str, str | None]] = {}
    for key in (k for k in root.iter() if _local(k.tag) == "key"):  # some files nest them
        kid = key.get("id")
        if kid is None:
            continue
        domain = key.get("for", "all")
        attr_name = key.get("attr.name") or kid
        kind = _GRAPHML_TYPES.get((key.get("attr.type") or "string").lower(), "str")
        default = next((d.text for d in _children(key, "default")), None)
        keys[(domain, kid)] = (attr_name, kind, default)
    graphs = _children(root, "graph")
    if not graphs:
        raise GraphLoadError(f"{name}: a GraphML file without a <graph> element.")
    graph = graphs[0]
    directed = (graph.get("edgedefault") or "directed").lower() == "directed"
    raw = _RawGraph(name, directed)
    ignored_hyperedges = 0
    mixed = 0
    for k, element in enumerate(graph.iter()):
        if not k % TICK_EVERY:
            watch.tick(k / max(1, elements))
        tag = _local(element.tag)
        if tag == "node" and element.get("id") is not None:
            i = raw.node(element.get("id"))
            _graphml_data(raw, element, keys, "node", lambda k, v, i=i: raw.set_node(i, k, v))
        elif tag == "edge":
            source, target = element.get("source"), element.get("target")
            if source is None or target is None:
                raise GraphLoadError(f"{name}: an <edge> without source or target.")
            e = raw.add_edge(source, target)
            flag = element.get("directed")
            if flag is not None and (flag.lower() == "true") != directed:
                mixed += 1
            _graphml_data(raw, element, keys, "edge",
                          lambda k, v, e=e: raw.edge_attrs.setdefault(k, {}).__setitem__(e, v))
        elif tag == "hyperedge":
            ignored_hyperedges += 1
    _graphml_defaults(raw, keys)
    if ignored_hyperedges:
        raw.warnings.append(f"{ignored_hyperedges} hyperedges ignored (not supported).")
    if mixed:
        raw.warnings.append(f"{mixed} edges declare a different direction from the graph's "
                            f"default; all edges read as {'directed' if directed else 'undirected'}.")
    _pos_from_xy(raw)
    return raw


def _graphml_data(raw: _RawGraph, element, keys, domain: str, store) -> None:
    for d in _children(element, "data"):
        kid = d.get("key")
        spec = keys.get((domain, kid)) or keys.get(("all", kid))
        if spec is None:
            spec = (kid or "data", "str", None)
        attr_name, kind, _ = spec
        text = "".join(d.itertext()).strip()
        if text == "":
            continue
        value = _typed(raw, text, kind, attr_name)
        if value is not None:
            store(attr_name, value)
    if domain == "node":
        desc = next((c for c in _children(element, "desc")), None)
        if desc is not None:
            store("description", "".join(desc.itertext()).strip())


def _graphml_defaults(raw: _RawGraph, keys) -> None:
    for (domain, _kid), (attr_name, kind, default) in keys.items():
        if default is None or domain not in ("node", "edge", "all"):
            continue
        value = _typed(raw, default.strip(), kind, attr_name)
        if value is None:
            continue
        if domain in ("node", "all"):
            column = raw.node_attrs.setdefault(attr_name, {})
            for i in range(len(raw.node_ids)):
                column.setdefault(i, value)
        if domain in ("edge", "all"):
            column = raw.edge_attrs.setdefault(attr_name, {})
            for e in range(len(raw.edges)):
                column.setdefault(e, value)
