"""XML helpers GraphML and GEXF share: parsing through ``defusedxml`` (no entity
expansion, no external entities), tag names without namespaces, typed values and
positions from x/y attributes."""

from __future__ import annotations

from xml.etree.ElementTree import TreeBuilder

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from models.errors import GraphLoadError
from models.graphs import document
from models.graphs.document import _RawGraph
from models.reading import LoadWatch

#: bytes fed to the XML parser between two progress reports and Cancel checks
_FEED_BYTES = 256 << 10


class _CountingBuilder(TreeBuilder):
    """The element tree, built as usual, while the nodes and edges of the first
    ``<graph>`` (the one GraphML and GEXF readers read) are counted: a graph beyond
    ``MAX_NODES`` distinct node ids or ``MAX_EDGES`` edges is refused as soon as the
    parser passes the limit, not after the whole file is parsed and walked."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.depth = 0
        self.state = 0            # 0 before the first graph, 1 inside it, 2 after it
        self.ids: set[str] = set()
        self.edges = 0
        self.elements = 0         # inside the first graph (the readers walk them)
        self.root = None

    def start(self, tag, attrs):
        self.depth += 1
        local = _local(tag)
        if self.state == 0 and self.depth == 2 and local == "graph":
            self.state = 1
        elif self.state == 1:
            self.elements += 1
            if local == "node" and attrs.get("id") is not None:
                self.ids.add(attrs["id"])
                if len(self.ids) > document.MAX_NODES:
                    raise GraphLoadError(
                        f"{self.name}: more than {document.MAX_NODES:,} nodes; ArchScope is "
                        "for graphs you can look at. Take a smaller sample of the graph.")
            elif local == "edge":
                self.edges += 1
                if self.edges > document.MAX_EDGES:
                    raise GraphLoadError(
                        f"{self.name}: more than {document.MAX_EDGES:,} edges; take a "
                        "smaller sample of the graph.")
        element = super().start(tag, attrs)
        if self.depth == 1:
            self.root = element
        return element

    def end(self, tag):
        if self.state == 1 and self.depth == 2:
            self.state = 2
        self.depth -= 1
        return super().end(tag)


def _parse_xml(name: str, data: bytes, watch: LoadWatch | None = None):
    """``(root element, number of elements in its first <graph>)`` of ``data``, fed to
    ``defusedxml``'s parser a piece at a time (progress and Cancel between pieces; a graph
    over the node or edge limit refused as soon as the limit is passed)."""
    watch = watch or LoadWatch(name)
    builder = _CountingBuilder(name)
    parser = SafeET.XMLParser(target=builder)
    try:
        try:
            for start in range(0, len(data), _FEED_BYTES):
                parser.feed(data[start:start + _FEED_BYTES])
                watch.tick((start + _FEED_BYTES) / len(data))
            return parser.close(), builder.elements
        except BaseException:       # refused or cancelled half-way: free what was built
            _dismantle(builder.root)
            raise
    except DefusedXmlException as e:
        raise GraphLoadError(
            f"{name}: refused: the XML declares entities or refers to external files "
            f"({type(e).__name__}), which could exhaust memory or read other files. "
            "Save the graph again without a DOCTYPE.") from e
    except LookupError as e:
        raise GraphLoadError(f"{name}: the XML declares an unknown text encoding ({e}); "
                             "save it as UTF-8.") from e
    except SafeET.ParseError as e:
        line = getattr(e, "position", (None, None))[0]
        where = f", line {line}" if line else ""
        raise GraphLoadError(f"{name}{where}: not well-formed XML ({e}).") from e


def _dismantle(root) -> None:
    """Free a large element tree a few thousand elements at a time (a tree of a million
    elements dropped at once is freed in one call that holds the interpreter, and the
    window waiting for it, for a third of a second)."""
    if root is None:
        return
    for child in list(root):
        while len(child):
            del child[-2048:]
    del root[:]


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _children(element, tag: str):
    return [c for c in element if _local(c.tag) == tag]


def _typed(raw: _RawGraph, text: str, kind: str, attr: str):
    if kind == "str":
        return text
    if kind == "bool":
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raw.non_numeric[attr] = raw.non_numeric.get(attr, 0) + 1
        return None
    return raw.number(text, attr, integer=kind == "int")


def _pos_from_xy(raw: _RawGraph) -> None:
    """Positions from numeric x/y (or longitude/latitude) node attributes."""
    if raw.pos:
        return
    lowered = {k.lower(): k for k in raw.node_attrs}
    for xk, yk in (("x", "y"), ("longitude", "latitude"), ("long", "lat"), ("lon", "lat"),
                   ("lng", "lat")):
        if xk in lowered and yk in lowered:
            xs, ys = raw.node_attrs[lowered[xk]], raw.node_attrs[lowered[yk]]
            pos = {}
            for i in range(len(raw.node_ids)):
                x, y = xs.get(i), ys.get(i)
                if isinstance(x, (int, float)) and isinstance(y, (int, float)) \
                        and not isinstance(x, bool) and not isinstance(y, bool):
                    pos[i] = (float(x), float(y))
            if len(pos) == len(raw.node_ids):
                raw.pos = pos
                if xk != "x":
                    raw.warnings.append(
                        f"Positions taken from the {lowered[xk]}/{lowered[yk]} attributes.")
                return
