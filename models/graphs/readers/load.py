"""load_graph: read a graph file, with the reader chosen by extension and content.

Every file the student opens is only read, and stays data: XML goes through
``defusedxml`` (no entity expansion, no external entities), ``.pt`` files through
``torch.load(weights_only=True)`` with an explicit allow-list of PyG classes,
GML/Pajek/edge lists through small hand-written parsers (no ``eval``). Every
reader (one module per format in this package) turns what it finds into the same
intermediate ``_RawGraph``; one builder (``models.graphs.document._build``) then cleans
it (merges parallel edges, keeps self-loops, reports isolated nodes) and makes a
:class:`GraphDocument` with numpy columns and a PyG ``Data``.

Formats: edge lists (``.csv .tsv .txt .edges .edgelist .el``), GraphML, GEXF
1.1-1.3, GML, Pajek ``.net``, node-link JSON, PyG ``Data`` saved with ``torch.save``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from models import gcpause
from models.errors import GraphLoadError
from models.graphs import document
from models.graphs.document import GraphDocument, _build, _let_go, _RawGraph
from models.graphs.readers.edgelist import _read_edge_list
from models.graphs.readers.gexf import _gexf_from_root
from models.graphs.readers.gml import _read_gml
from models.graphs.readers.graphml import _graphml_from_root
from models.graphs.readers.nodelink import _read_json
from models.graphs.readers.pajek import _read_pajek
from models.graphs.readers.torchfile import _read_torch
from models.graphs.readers.xmlutil import _dismantle, _local, _parse_xml
from models.reading import LoadWatch, data_lines_at_least, not_a_file, read_bytes

MAX_FILE_BYTES = 200 * 1024 * 1024

SUPPORTED_FORMATS = (
    "edge lists (.csv, .tsv, .txt, .edges, .edgelist, .el), GraphML (.graphml), "
    "GEXF (.gexf), GML (.gml), Pajek (.net), node-link JSON (.json) "
    "and PyTorch Geometric Data saved with torch.save (.pt, .pth)"
)

_EDGE_LIST_EXT = {".csv", ".tsv", ".txt", ".edges", ".edgelist", ".el"}


def load_graph(path: str | os.PathLike, progress: Callable[[float], None] | None = None,
               cancelled: Callable[[], bool] | None = None) -> GraphDocument:
    """Read a graph file (only read; nothing in it is executed).

    The format is chosen by extension and checked against the content (an XML file
    named ``.txt`` is read as XML). Raises :class:`GraphLoadError` with a sentence
    naming the file (and line, where known) for anything that cannot be read. A graph
    over ``MAX_NODES`` or ``MAX_EDGES`` is refused as soon as that is known: an edge list
    with more lines of data than ``MAX_EDGES`` before a line is parsed, GraphML and GEXF
    while the parser passes the limit.

    ``progress(fraction)`` is called now and then from 0 to 1 (the file read, parsed,
    then the document built); once ``cancelled()`` is True, ``LoadCancelled`` is raised
    at the next check (see ``models.reading``).
    """
    path = Path(path)
    name = path.name
    watch = LoadWatch(name, progress, cancelled)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise GraphLoadError(f"{name}: cannot open the file ({e.strerror or e}).") from e
    why = not_a_file(path)
    if why:
        raise GraphLoadError(f"{name}: {why}.")
    if size == 0:
        raise GraphLoadError(f"{name}: the file is empty.")
    if size > MAX_FILE_BYTES:
        raise GraphLoadError(
            f"{name}: the file is {size / 2**20:.0f} MB; ArchScope opens graph files up to "
            f"{MAX_FILE_BYTES // 2**20} MB.")
    try:
        raw_bytes = read_bytes(path, MAX_FILE_BYTES, watch.span(0.0, 0.1))
    except OSError as e:
        raise GraphLoadError(f"{name}: cannot read the file ({e.strerror or e}).") from e
    raw_bytes = _to_utf8(name, raw_bytes)
    kind = _sniff(path.suffix.lower(), raw_bytes)
    if kind is None:
        wide = _utf16_without_bom(raw_bytes)
        if wide:
            raise GraphLoadError(
                f"{name}: the text looks like {wide} without a byte-order mark, which "
                "ArchScope cannot tell from binary data. Save it as UTF-8 (or as UTF-16 "
                "with a byte-order mark).")
        raise GraphLoadError(
            f"{name}: not a graph file ArchScope can read. Supported formats: "
            f"{SUPPORTED_FORMATS}.")
    if kind == "edgelist":
        _check_edge_lines(name, raw_bytes)
    # parsing makes millions of small objects, none in a cycle: an automatic collection
    # would walk them all, holding the interpreter (and the window) for seconds
    with gcpause.paused():
        raw = _read(kind, name, raw_bytes, watch.span(0.1, 0.9))
        watch.tick(0.9)
        doc = _build(raw, source=str(path), watch=watch.span(0.9, 1.0))
        _let_go(raw)
    watch.tick(1.0)
    return doc


def _check_edge_lines(name: str, data: bytes) -> None:
    """Refuse an edge list with more lines of data than ``MAX_EDGES`` (and a header):
    each becomes an edge (or an error), so parsing millions of them only to refuse the
    file after ``MAX_EDGES`` of them would keep the student waiting for nothing."""
    lines = data_lines_at_least(data, comments=b"#%")
    if lines > document.MAX_EDGES + 1:
        raise GraphLoadError(
            f"{name}: more than {document.MAX_EDGES:,} edges ({lines:,} lines of edges); "
            "take a smaller sample of the graph.")


#: byte-order marks of the wide Unicode encodings (UTF-32 first: its LE mark starts
#: with UTF-16 LE's)
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32", "UTF-32 LE"),
         (b"\x00\x00\xfe\xff", "utf-32", "UTF-32 BE"),
         (b"\xff\xfe", "utf-16", "UTF-16 LE"), (b"\xfe\xff", "utf-16", "UTF-16 BE"))
_XML_ENCODING = re.compile(rb"^(\s*<\?xml[^>]*?encoding\s*=\s*)([\"'])[^\"']*\2")


def _to_utf8(name: str, data: bytes) -> bytes:
    """A text file in UTF-16 or UTF-32 with a byte-order mark (as Windows' Notepad and
    Excel's "Unicode text" save it), re-encoded as UTF-8, which every reader expects; an
    XML declaration's encoding is changed to match. Other files are returned as they are."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as e:
                raise GraphLoadError(f"{name}: starts with a {label} byte-order mark but is "
                                     f"not valid {label} text (at byte {e.start}).") from e
            out = text.encode("utf-8")
            return _XML_ENCODING.sub(rb"\1\2UTF-8\2", out, count=1)
    return data


def _utf16_without_bom(data: bytes) -> str | None:
    """"UTF-16 LE" or "UTF-16 BE" when most odd (even) bytes of the start are zero, as
    in ASCII text written in UTF-16 without a byte-order mark."""
    head = data[:4096]
    if len(head) < 8:
        return None
    even, odd = head[0::2], head[1::2]
    if odd.count(0) > 0.7 * len(odd) and even.count(0) < 0.1 * len(even):
        return "UTF-16 LE"
    if even.count(0) > 0.7 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "UTF-16 BE"
    return None


def _sniff(ext: str, data: bytes) -> str | None:
    """The reader for this extension and content, or None."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if data[:2] == b"PK" or data[:2] == b"\x80\x02" or ext in (".pt", ".pth"):
        if data[:2] == b"PK" or data[:1] == b"\x80":
            return "torch"
        return None if ext in (".pt", ".pth") else _sniff_text(ext, head)
    return _sniff_text(ext, head)


def _sniff_text(ext: str, head: bytes) -> str | None:
    if b"\x00" in head:
        return None
    lowered = head.lower()
    if head.startswith(b"<"):
        if b"<gexf" in lowered:
            return "gexf"
        if b"<graphml" in lowered:
            return "graphml"
        return "xml" if ext in (".graphml", ".gexf", ".xml") else None
    if head.startswith((b"{", b"[")) and ext in (".json", *_EDGE_LIST_EXT):
        return "json"
    if ext == ".json":
        return "json"
    if ext == ".gml" or re.match(rb"^(\s*(#[^\n]*|creator\s+\"[^\"]*\"|version\s+\S+)\s*)*graph\s*\[",
                                 lowered):
        return "gml"
    if ext in (".net", ".paj") or lowered.lstrip().startswith(b"*vertices"):
        return "pajek"
    if ext in _EDGE_LIST_EXT:
        return "edgelist"
    if ext in (".graphml", ".gexf"):
        return "xml"
    return None


_READER_ERRORS = (ValueError, KeyError, IndexError, TypeError, LookupError, UnicodeError,
                  OverflowError, RecursionError, AttributeError)


def _read(kind: str, name: str, data: bytes, watch: LoadWatch) -> _RawGraph:
    readers = {
        "graphml": _read_graphml, "gexf": _read_gexf, "xml": _read_xml, "gml": _read_gml,
        "pajek": _read_pajek, "json": _read_json, "torch": _read_torch,
        "edgelist": _read_edge_list,
    }
    try:
        return readers[kind](name, data, watch)
    except GraphLoadError:
        raise
    except _READER_ERRORS as e:
        raise GraphLoadError(f"{name}: the file is damaged or not valid {kind} "
                             f"({type(e).__name__}: {e}).") from e


def _read_xml(name: str, data: bytes, watch: LoadWatch) -> _RawGraph:
    """GraphML or GEXF by the root element: parsed (most of the time, 3/4 of the bar),
    then walked."""
    root, elements = _parse_xml(name, data, watch.span(0.0, 0.75))
    tag = _local(root.tag)
    try:
        if tag == "gexf":
            return _gexf_from_root(name, root, watch.span(0.75, 1.0), elements)
        if tag == "graphml":
            return _graphml_from_root(name, root, watch.span(0.75, 1.0), elements)
    finally:
        _dismantle(root)
    raise GraphLoadError(f"{name}: an XML file but neither GraphML nor GEXF (its root "
                         f"element is <{tag}>). Supported formats: {SUPPORTED_FORMATS}.")


def _read_graphml(name: str, data: bytes, watch: LoadWatch) -> _RawGraph:
    return _read_xml(name, data, watch)


def _read_gexf(name: str, data: bytes, watch: LoadWatch) -> _RawGraph:
    return _read_xml(name, data, watch)
