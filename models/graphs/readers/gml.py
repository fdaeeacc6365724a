"""GML (``.gml``): tokenised and parsed with a stack (no recursion, no ``eval``)."""

from __future__ import annotations

import html
import math
import re

from models.errors import GraphLoadError
from models.graphs.document import _RawGraph
from models.graphs.readers.text import _decode
from models.reading import TICK_EVERY, LoadWatch

_GML_TOKEN = re.compile(
    r'\s*(?:(?P<comment>#[^\n]*)|(?P<open>\[)|(?P<close>\])|"(?P<string>[^"]*)"'
    r"|(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:INF|NAN)\b)"
    r"|(?P<key>[A-Za-z_][A-Za-z0-9_]*))",
)


def _gml_tokens(text: str, name: str, watch: LoadWatch | None = None):
    """Tokens with line numbers; strings may hold any character and HTML entities.
    ``watch`` ticks every ``TICK_EVERY`` tokens."""
    watch = watch or LoadWatch(name)
    pos, line, end = 0, 1, len(text)
    count = 0
    while pos < end:
        count += 1
        if not count % TICK_EVERY:
            watch.tick(pos / end)
        m = _GML_TOKEN.match(text, pos)
        if m is None:
            rest = text[pos:].lstrip()
            if rest == "":
                return
            line = text.count("\n", 0, end - len(rest)) + 1
            raise GraphLoadError(f"{name}, line {line}: unexpected text "
                                 f"{text[pos:].strip()[:20]!r} in GML.")
        line += text.count("\n", pos, m.start(m.lastgroup))
        pos = m.end()
        kind = m.lastgroup
        value = m.group(kind)
        if kind != "comment":
            yield kind, value, line
        if kind == "string":
            line += value.count("\n")


def _parse_gml(text: str, name: str, watch: LoadWatch | None = None) -> list:
    """Nested ``[(key, value, line), ...]`` lists; parsed with a stack, not recursion."""
    top: list = []
    stack = [top]
    key = None
    key_line = 0
    for kind, value, line in _gml_tokens(text, name, watch):
        if key is None:
            if kind == "key":
                key, key_line = value, line
                continue
            if kind == "close" and len(stack) > 1:
                stack.pop()
                continue
            raise GraphLoadError(f"{name}, line {line}: expected a key, got {value!r}.")
        if kind == "open":
            child: list = []
            stack[-1].append((key, child, key_line))
            stack.append(child)
        elif kind == "string":
            stack[-1].append((key, html.unescape(value), key_line))
        elif kind == "number":
            stack[-1].append((key, _gml_number(value), key_line))
        elif kind == "key":
            stack[-1].append((key, value, key_line))
        else:
            raise GraphLoadError(f"{name}, line {line}: '{key}' has no value.")
        key = None
    if key is not None or len(stack) != 1:
        raise GraphLoadError(f"{name}: the GML ends early (a '[' is not closed).")
    return top


def _gml_number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _read_gml(name: str, data: bytes, watch: LoadWatch | None = None) -> _RawGraph:
    watch = watch or LoadWatch(name)
    items = _parse_gml(_decode(data), name, watch.span(0.0, 0.9))
    graph = next((v for k, v, _ in items if k == "graph" and isinstance(v, list)), None)
    if graph is None:
        raise GraphLoadError(f"{name}: no 'graph [ ... ]' block in the GML file.")
    directed = any(k == "directed" and v == 1 for k, v, _ in graph)
    nodes = [(v, line) for k, v, line in graph if k == "node" and isinstance(v, list)]
    edges = [(v, line) for k, v, line in graph if k == "edge" and isinstance(v, list)]
    keys = []
    labels = []
    for node, line in nodes:
        node_id = next((v for k, v, _ in node if k == "id"), None)
        if node_id is None or isinstance(node_id, list):
            raise GraphLoadError(f"{name}, line {line}: a node without an id.")
        keys.append(str(node_id))
        labels.append(next((v for k, v, _ in node if k == "label" and not isinstance(v, list)),
                           None))
    if len(set(keys)) != len(keys):
        raise GraphLoadError(f"{name}: two nodes have the same id.")
    use_labels = labels and all(lb is not None for lb in labels) and \
        len({str(lb) for lb in labels}) == len(labels)
    raw = _RawGraph(name, directed)
    lookup = {}
    for (node, _), key, label in zip(nodes, keys, labels, strict=True):
        i = raw.node(str(label) if use_labels else key)
        lookup[key] = i
        _gml_node_attrs(raw, i, node, use_labels)
    for edge, line in edges:
        attrs = {k: v for k, v, _ in edge if k not in ("source", "target")
                 and not isinstance(v, list)}
        ends = [next((v for k, v, _ in edge if k == end), None) for end in ("source", "target")]
        if any(x is None or str(x) not in lookup for x in ends):
            raise GraphLoadError(f"{name}, line {line}: an edge whose source or target is "
                                 "not a node id.")
        raw.check_edge_budget()
        e = len(raw.edges)
        raw.edges.append((lookup[str(ends[0])], lookup[str(ends[1])]))
        for k, v in attrs.items():
            raw.edge_attrs.setdefault(k, {})[e] = v
    if not use_labels and any(lb is not None for lb in labels):
        raw.warnings.append("Node labels are not unique: nodes are named by their GML id.")
    return raw


def _gml_node_attrs(raw: _RawGraph, i: int, node: list, use_labels: bool) -> None:
    for k, v, _ in node:
        if k == "id" or (k == "label" and use_labels):
            continue
        if k == "graphics" and isinstance(v, list):
            coords = {gk: gv for gk, gv, _ in v if gk in ("x", "y")}
            if isinstance(coords.get("x"), (int, float)) and isinstance(coords.get("y"),
                                                                         (int, float)):
                raw.pos[i] = (float(coords["x"]), float(coords["y"]))
            continue
        if isinstance(v, list):
            continue
        if isinstance(v, float) and math.isinf(v):
            raw.infinite.add(k)
        raw.set_node(i, k, v)
