"""Edge lists: ``u v [weight]`` per line, comma-, tab- or space-separated."""

from __future__ import annotations

import ast
import csv
from itertools import islice

from models.errors import GraphLoadError
from models.graphs.document import _RawGraph
from models.graphs.readers.text import _decode, _is_number
from models.reading import TICK_EVERY, LoadWatch, iter_lines

_HEADER_WORDS = {"source", "target", "from", "to", "src", "dst", "node1", "node2", "node_1",
                 "node_2", "id1", "id2", "source_id", "target_id", "head", "tail", "start",
                 "end", "sender", "receiver", "origin", "destination"}


def _read_edge_list(name: str, data: bytes, watch: LoadWatch | None = None) -> _RawGraph:
    """Two or three columns per line (``u v [weight]``), comma-, tab- or space-separated.

    ``#`` and ``%`` start comments; a first line of column names is recognised; a third
    column in networkx's ``{'weight': 4}`` form is read as a literal (never evaluated).
    ``watch`` ticks every ``TICK_EVERY`` lines.
    """
    watch = watch or LoadWatch(name)
    text = _decode(data)
    total = text.count("\n") + 1
    delimiter = _edge_list_delimiter(name, list(islice(iter_lines(text), 50)))
    raw = _RawGraph(name, directed=False)
    header_done = False
    for lineno, line in enumerate(iter_lines(text), start=1):
        if not lineno % TICK_EVERY:
            watch.tick(lineno / total)
        stripped = line.strip()
        if not stripped or stripped[0] in "#%":
            continue
        fields = _split_edge_line(stripped, delimiter, name, lineno)
        if not header_done:
            header_done = True
            if _looks_like_header(fields):
                if len(fields) == 3 and fields[2].strip().lower() != "weight":
                    raw.warnings.append(f"The third column {fields[2].strip()!r} is used as "
                                        "the edge weight.")
                continue
        _add_edge_line(raw, fields, name, lineno)
    if not raw.node_ids:
        raise GraphLoadError(f"{name}: no edges found (expected lines like 'u v' or "
                             "'u,v,weight').")
    raw.warnings.append("Edge lists do not say whether they are directed: read as undirected.")
    return raw


def _edge_list_delimiter(name: str, lines: list[str]) -> str | None:
    if name.lower().endswith(".csv"):
        return ","
    if name.lower().endswith(".tsv"):
        return "\t"
    for line in lines[:50]:
        s = line.strip()
        if not s or s[0] in "#%" or "{" in s:
            continue
        if "," in s:
            return ","
        if "\t" in s:
            return "\t"
        return None
    return None


def _split_edge_line(line: str, delimiter: str | None, name: str, lineno: int) -> list[str]:
    if delimiter is None:
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[2].lstrip().startswith("{"):
            return parts
        return line.split()
    if '"' not in line and "\0" not in line:   # as the csv module would split it
        return [c.strip() for c in line.split(delimiter)]
    try:
        row = next(csv.reader([line], delimiter=delimiter, strict=True))
    except csv.Error as e:
        raise GraphLoadError(f"{name}, line {lineno}: {e}.") from e
    if delimiter == "\t" or delimiter == ",":
        row = [c.strip() for c in row]
    return row


def _looks_like_header(fields: list[str]) -> bool:
    if len(fields) not in (2, 3):
        return False
    words = {f.strip().strip('"').lower() for f in fields[:2]}
    if words <= _HEADER_WORDS:
        return True
    return len(fields) == 3 and not _is_number(fields[2]) and not fields[2].startswith("{")


def _add_edge_line(raw: _RawGraph, fields: list[str], name: str, lineno: int) -> None:
    if len(fields) not in (2, 3):
        raise GraphLoadError(f"{name}, line {lineno}: expected 2 or 3 columns, got "
                             f"{len(fields)} (source, target and an optional weight).")
    u, v = fields[0], fields[1]
    if not u or not v:
        raise GraphLoadError(f"{name}, line {lineno}: a node name is empty.")
    attrs: dict[str, object] = {}
    if len(fields) == 3:
        third = fields[2].strip()
        if third.startswith("{"):
            attrs = _literal_dict(third, name, lineno)
        else:
            try:
                attrs["weight"] = float(third)
            except ValueError:
                raise GraphLoadError(
                    f"{name}, line {lineno}: the third column should be a numeric weight, "
                    f"got {third[:40]!r}.") from None
    raw.add_edge(u, v, attrs)


def _literal_dict(text: str, name: str, lineno: int) -> dict[str, object]:
    """networkx's edge data column ``{'weight': 4}``: a literal, never evaluated."""
    if len(text) > 2000:
        raise GraphLoadError(f"{name}, line {lineno}: the edge data is too long.")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as e:
        raise GraphLoadError(f"{name}, line {lineno}: cannot read the edge data "
                             f"{text[:40]!r}.") from e
    if not isinstance(value, dict):
        raise GraphLoadError(f"{name}, line {lineno}: the edge data should be a dictionary.")
    out = {}
    for key, item in value.items():
        if isinstance(item, (bool, int, float, str)):
            out[str(key)] = item
        else:
            out[str(key)] = str(item)
    return out
