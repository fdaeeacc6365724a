"""XML helpers GraphML and GEXF share: parsing through ``defusedxml`` (no entity
expansion, no external entities), tag names without namespaces, typed values and
positions from x/y attributes."""

from __future__ import annotations

import io

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from models.errors import GraphLoadError
from models.graphs.document import _RawGraph


def _parse_xml(name: str, data: bytes):
    try:
        return SafeET.parse(io.BytesIO(data))
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
