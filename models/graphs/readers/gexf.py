"""GEXF 1.1-1.3 (``.gexf``, Gephi): attributes, viz positions/sizes/colours, and
dynamic (time-sliced) graphs flattened to their latest slice."""

from __future__ import annotations

import math
import re

from models.errors import GraphLoadError
from models.graphs.document import _RawGraph
from models.graphs.readers.xmlutil import _children, _local, _pos_from_xy, _typed
from models.reading import TICK_EVERY, LoadWatch

_GEXF_NUMERIC = {"integer": "int", "int": "int", "long": "int", "short": "int", "byte": "int",
                 "biginteger": "int", "double": "float", "float": "float",
                 "bigdecimal": "float", "boolean": "bool"}


def _gexf_from_root(name: str, root, watch: LoadWatch | None = None,
                    elements: int = 0) -> _RawGraph:
    """The first graph of ``root``; ``watch`` ticks every ``TICK_EVERY`` of its
    ``elements`` (as many as ``_parse_xml`` counted)."""
    watch = watch or LoadWatch(name)
    graphs = _children(root, "graph")
    if not graphs:
        raise GraphLoadError(f"{name}: a GEXF file without a <graph> element.")
    graph = graphs[0]
    default_type = (graph.get("defaultedgetype") or "undirected").lower()
    directed = default_type == "directed"
    raw = _RawGraph(name, directed)
    dynamic = (graph.get("mode") or "static").lower() in ("dynamic", "slice")
    specs: dict[str, dict[str, tuple[str, str, str | None]]] = {"node": {}, "edge": {}}
    for attributes in _children(graph, "attributes"):
        domain = (attributes.get("class") or "node").lower()
        if (attributes.get("mode") or attributes.get("type") or "").lower() == "dynamic":
            dynamic = True
        for attribute in _children(attributes, "attribute"):
            title = attribute.get("title") or attribute.get("id") or "attribute"
            kind = _GEXF_NUMERIC.get((attribute.get("type") or "string").lower(), "str")
            default = next((d.text for d in _children(attribute, "default")), None)
            spec = (title, kind, default)
            table = specs.setdefault(domain, {})
            table[attribute.get("id") or title] = spec
            table.setdefault(title, spec)
    state = {"dynamic": dynamic, "spells": False, "mixed": 0}
    for k, element in enumerate(graph.iter()):
        if not k % TICK_EVERY:
            watch.tick(k / max(1, elements))
        tag = _local(element.tag)
        if tag == "node" and element.get("id") is not None:
            _gexf_node(raw, element, specs["node"], state)
        elif tag == "edge":
            _gexf_edge(raw, element, specs["edge"], default_type, state)
    _gexf_defaults(raw, specs)
    weights = raw.edge_attrs.get("weight")
    if weights:  # GEXF: an edge without a weight has weight 1.0
        for e in range(len(raw.edges)):
            weights.setdefault(e, 1.0)
    if state["dynamic"]:
        raw.warnings.append(
            "Dynamic (time-sliced) attributes were flattened to a static view: each "
            "attribute takes its value in the latest time slice.")
    if state["spells"]:
        raw.warnings.append("Nodes and edges with time spells are all included, whatever "
                            "their time.")
    if state["mixed"]:
        raw.warnings.append(f"{state['mixed']} edges have a type different from the default "
                            f"({default_type}); all read as "
                            f"{'directed' if directed else 'undirected'}.")
    _pos_from_xy(raw)
    return raw


def _gexf_node(raw: _RawGraph, element, specs, state) -> None:
    i = raw.node(element.get("id"))
    label = element.get("label")
    if label is not None:
        raw.set_node(i, "label", label)
    if element.get("start") or element.get("end") or _children(element, "spells"):
        state["spells"] = True
    for key, value in _gexf_attvalues(raw, element, specs, state).items():
        raw.set_node(i, key, value)
    for child in element:
        tag = _local(child.tag)
        if tag == "position":
            x, y = child.get("x"), child.get("y")
            if x is not None and y is not None:
                px, py = raw.number(x, "viz position"), raw.number(y, "viz position")
                if px is not None and py is not None:
                    raw.pos[i] = (float(px), float(py))
        elif tag == "size" and child.get("value") is not None:
            size = raw.number(child.get("value"), "viz_size")
            if size is not None:
                raw.set_node(i, "viz_size", float(size))
        elif tag == "color":
            rgb = [child.get(c) for c in ("r", "g", "b")]
            if all(c is not None and c.strip().isdigit() for c in rgb):
                raw.set_node(i, "viz_color", "#" + "".join(f"{min(int(c), 255):02x}" for c in rgb))


def _gexf_edge(raw: _RawGraph, element, specs, default_type: str, state) -> None:
    source, target = element.get("source"), element.get("target")
    if source is None or target is None:
        raise GraphLoadError(f"{raw.name}: an <edge> without source or target.")
    attrs = _gexf_attvalues(raw, element, specs, state)
    weight = element.get("weight")
    if weight is not None:
        value = raw.number(weight, "weight")
        if value is not None:
            attrs["weight"] = float(value)
    label = element.get("label")
    if label is not None:
        attrs["label"] = label
    kind = (element.get("type") or default_type).lower()
    if (kind == "directed") != (default_type == "directed"):
        state["mixed"] += 1
    if element.get("start") or element.get("end") or _children(element, "spells"):
        state["spells"] = True
    raw.add_edge(source, target, attrs)


def _gexf_attvalues(raw: _RawGraph, element, specs, state) -> dict[str, object]:
    """Attribute values of a node or edge; of dynamic values, the latest slice's."""
    values: dict[str, tuple[float, object]] = {}
    holders = [element, *_children(element, "attvalues")]
    for holder in holders:
        for att in _children(holder, "attvalue"):
            key = att.get("for") or att.get("id")
            text = att.get("value")
            if key is None or text is None:
                continue
            title, kind, _ = specs.get(key, (key, "str", None))
            when = _gexf_time(att)
            if when is not None:
                state["dynamic"] = True
            value = _typed(raw, text, kind, title)
            if value is None:
                continue
            order = when if when is not None else -math.inf
            if title not in values or order >= values[title][0]:
                values[title] = (order, value)
    return {k: v for k, (_, v) in values.items()}


def _gexf_time(att) -> float | None:
    for key in ("start", "startopen", "timestamp", "end", "endopen"):
        text = att.get(key)
        if text is not None:
            try:
                return float(text)
            except ValueError:
                digits = re.sub(r"\D", "", text)
                return float(digits[:14]) if digits else 0.0
    return None


def _gexf_defaults(raw: _RawGraph, specs) -> None:
    for domain, table in specs.items():
        seen = set()
        for title, kind, default in table.values():
            if default is None or title in seen:
                continue
            seen.add(title)
            value = _typed(raw, default.strip(), kind, title)
            if value is None:
                continue
            count = len(raw.node_ids) if domain == "node" else len(raw.edges)
            target = raw.node_attrs if domain == "node" else raw.edge_attrs
            column = target.setdefault(title, {})
            for i in range(count):
                column.setdefault(i, value)
