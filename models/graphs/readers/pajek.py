"""Pajek (``.net``): ``*Vertices``, then ``*Edges``/``*Arcs`` or their list forms."""

from __future__ import annotations

import re

from models.errors import GraphLoadError
from models.graphs.document import MAX_NODES, _RawGraph
from models.graphs.readers.text import _decode, _is_number
from models.reading import TICK_EVERY, LoadWatch, iter_lines

_PAJEK_TOKEN = re.compile(r'"([^"]*)"|(\S+)')


def _pajek_fields(line: str) -> list[str]:
    return [a if a or b == "" else b for a, b in _PAJEK_TOKEN.findall(line)]


# 65 lines: one pass over the file's sections; vertex and edge lines go to the helpers below
def _read_pajek(name: str, data: bytes, watch: LoadWatch | None = None) -> _RawGraph:
    """``*Vertices n``, vertex lines ``id "label" x y [z] [shape] [key value ...]``,
    then ``*Edges``/``*Arcs`` (``u v [weight] [key value ...]``) or ``*Edgeslist``/
    ``*Arcslist`` (``u v1 v2 ...``)."""
    watch = watch or LoadWatch(name)
    text = _decode(data)
    total = text.count("\n") + 1
    raw = _RawGraph(name)
    numbers: dict[str, int] = {}
    section = None
    vertex_rows: list[tuple[str, str | None, list[str], int]] = []
    edge_rows: list[tuple[str, list[str], int]] = []
    declared = 0
    for lineno, line in enumerate(iter_lines(text), start=1):
        if not lineno % TICK_EVERY:
            watch.tick(0.8 * lineno / total)
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        if s.startswith("*"):
            word = s.split()[0].lower()
            if word == "*vertices":
                parts = s.split()
                try:
                    declared = int(parts[1]) if len(parts) > 1 else 0
                except ValueError:
                    raise GraphLoadError(f"{name}, line {lineno}: '*Vertices' should be "
                                         "followed by the number of vertices.") from None
                if declared > MAX_NODES or declared < 0:
                    raise GraphLoadError(f"{name}, line {lineno}: {declared} vertices is "
                                         f"outside 0..{MAX_NODES:,}.")
                section = "vertices"
            elif word in ("*edges", "*arcs", "*edgeslist", "*arcslist"):
                section = word[1:]
            elif word == "*network":
                continue
            else:
                raise GraphLoadError(f"{name}, line {lineno}: the Pajek section {word!r} is "
                                     "not supported (use *Vertices with *Edges or *Arcs).")
            continue
        fields = _pajek_fields(s)
        if section == "vertices":
            vertex_rows.append((fields[0], fields[1] if len(fields) > 1 else None,
                                fields[2:], lineno))
        elif section is None:
            raise GraphLoadError(f"{name}, line {lineno}: data before '*Vertices'.")
        else:
            edge_rows.append((section, fields, lineno))
    if section is None:
        raise GraphLoadError(f"{name}: no '*Vertices' line; not a Pajek file.")
    labels = [label for _, label, _, _ in vertex_rows]
    use_labels = bool(labels) and all(lb is not None for lb in labels) and \
        len(set(labels)) == len(labels)
    for number, label, rest, lineno in vertex_rows:
        if number in numbers:
            raise GraphLoadError(f"{name}, line {lineno}: vertex {number} listed twice.")
        i = raw.node(label if use_labels else number)
        numbers[number] = i
        _pajek_vertex_extras(raw, i, rest)
    for k in range(len(vertex_rows) + 1, declared + 1):
        numbers[str(k)] = raw.node(str(k))
    raw.directed = any(sec.startswith("arcs") for sec, _, _ in edge_rows)
    if raw.directed and any(sec.startswith("edges") for sec, _, _ in edge_rows):
        raw.warnings.append("The file has both *Arcs and *Edges: all read as directed arcs.")
    for k, (sec, fields, lineno) in enumerate(edge_rows):
        if not k % TICK_EVERY:
            watch.tick(0.8 + 0.2 * k / len(edge_rows))
        _pajek_edge(raw, numbers, sec, fields, name, lineno)
    if len(raw.pos) == len(raw.node_ids) and len(set(raw.pos.values())) <= 1:
        raw.pos = {}
    return raw


def _pajek_vertex_extras(raw: _RawGraph, i: int, rest: list[str]) -> None:
    coords = []
    while rest and len(coords) < 3 and _is_number(rest[0]):
        coords.append(float(rest.pop(0)))
    if len(coords) >= 2:
        raw.pos[i] = (coords[0], coords[1])
    if len(rest) % 2 == 1:
        rest = rest[1:]  # the shape (ellipse, box, ...)
    for key, value in zip(rest[::2], rest[1::2], strict=True):
        raw.set_node(i, key, float(value) if _is_number(value) else value)


def _pajek_edge(raw, numbers, sec, fields, name, lineno) -> None:
    def vertex(token: str) -> int:
        if token not in numbers:
            raise GraphLoadError(f"{name}, line {lineno}: vertex {token!r} is not in "
                                 "*Vertices.")
        return numbers[token]

    if sec.endswith("list"):
        u = vertex(fields[0])
        for token in fields[1:]:
            raw.add_edge(raw.node_ids[u], raw.node_ids[vertex(token)])
        return
    if len(fields) < 2:
        raise GraphLoadError(f"{name}, line {lineno}: expected 'source target [weight]'.")
    attrs: dict[str, object] = {}
    rest = fields[2:]
    if rest and _is_number(rest[0]):
        attrs["weight"] = float(rest.pop(0))
    for key, value in zip(rest[::2], rest[1::2], strict=False):
        attrs[key] = float(value) if _is_number(value) else value
    raw.add_edge(raw.node_ids[vertex(fields[0])], raw.node_ids[vertex(fields[1])], attrs)
