"""Make the SVG that Qt writes render the same in Qt, Chromium and librsvg.

``QSvgGenerator`` writes every painter state as a ``<g transform="matrix(...)">`` and
marks a cosmetic pen (pyqtgraph's default: 1 px whatever the zoom) with
``vector-effect="non-scaling-stroke"`` inside a group scaled to data units. librsvg
ignores that property, so a 1-px graph edge inside ``matrix(261, ...)`` became a 261-px
wide grey band and the edges of a graph merged into a filled polygon; Chromium honours
it, but keeps the stroke at one *screen* pixel however large the figure is shown.
:func:`fix_svg` bakes such a group's transform into the coordinates of its strokes (the
stroke width then means what it meant in the window: one pixel of the figure at its
natural size) and drops the property, so every renderer draws the same widths.

It also asks for nearest-neighbour scaling on every ``<image>`` (``image-rendering``,
as attribute and CSS), so a heatmap image stays crisp instead of being interpolated
into moiré, and turns Qt's generic family names into a list a browser or librsvg
resolves to the same font (the resolved family, then ``sans-serif``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG)
ET.register_namespace("xlink", XLINK)

_SHAPES = {f"{{{SVG}}}{name}" for name in
           ("path", "polyline", "polygon", "rect", "ellipse", "circle", "line")}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH_TOKEN = re.compile(r"[MLCQZmlcqzHVhvSsTtAa]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_MATRIX = re.compile(r"^\s*matrix\(([^)]*)\)\s*$")
#: the CSS that keeps an embedded image's pixels square when it is scaled
PIXELATED = "image-rendering:pixelated;image-rendering:crisp-edges"

Matrix = tuple[float, float, float, float, float, float]


def fix_svg(text: str, font_family: Callable[[str], str] | None = None) -> str:
    """Return ``text`` (an SVG written by ``QSvgGenerator``) with non-scaling strokes
    baked, images marked pixelated and font families made portable."""
    root = ET.fromstring(text)
    _bake_groups(root)
    for image in root.iter(f"{{{SVG}}}image"):
        image.set("image-rendering", "optimizeSpeed")
        style = image.get("style", "")
        image.set("style", f"{style};{PIXELATED}" if style else PIXELATED)
    if font_family is not None:
        cache: dict[str, str] = {}
        for el in root.iter():
            family = el.get("font-family")
            if family is not None:
                if family not in cache:
                    cache[family] = font_family(family)
                el.set("font-family", cache[family])
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n"


# -- baking ---------------------------------------------------------------------------------
def _bake_groups(parent: ET.Element) -> None:
    """Split every transformed group into runs: its non-scaling strokes lose the group's
    transform (baked into their points), everything else keeps it. Order is kept, so
    what was drawn over what still is."""
    for index in range(len(parent) - 1, -1, -1):
        group = parent[index]
        _bake_groups(group)
        if group.tag != f"{{{SVG}}}g":
            continue
        matrix = _matrix(group.get("transform"))
        if matrix is None or not any(_bakeable(c) for c in group):
            continue
        runs: list[tuple[bool, list[ET.Element]]] = []
        for child in list(group):
            flag = _bakeable(child)
            if runs and runs[-1][0] == flag:
                runs[-1][1].append(child)
            else:
                runs.append((flag, [child]))
        replacement = []
        for baked, children in runs:
            g = ET.Element(group.tag, dict(group.attrib))
            g.text, g.tail = "\n", "\n"
            if baked:
                del g.attrib["transform"]
                for child in children:
                    g.append(_baked(child, matrix))
            else:
                g.extend(children)
            replacement.append(g)
        replacement[-1].tail = group.tail
        parent.remove(group)
        for offset, g in enumerate(replacement):
            parent.insert(index + offset, g)


def _bakeable(el: ET.Element) -> bool:
    return el.tag in _SHAPES and el.get("vector-effect") == "non-scaling-stroke"


def _matrix(value: str | None) -> Matrix | None:
    """The six numbers of ``matrix(a,b,c,d,e,f)``; None for the identity or no transform."""
    if not value:
        return None
    match = _MATRIX.match(value)
    if not match:
        return None
    numbers = [float(x) for x in _NUMBER.findall(match.group(1))]
    if len(numbers) != 6 or numbers == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]:
        return None
    return tuple(numbers)   # type: ignore[return-value]


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _baked(el: ET.Element, m: Matrix) -> ET.Element:
    """A copy of shape ``el`` in the parent's coordinates, as a path or polyline."""
    tag = el.tag.split("}")[1]
    attrs = {k: v for k, v in el.attrib.items() if k != "vector-effect"}
    if tag in ("polyline", "polygon"):
        nums = [float(x) for x in _NUMBER.findall(el.get("points", ""))]
        pts = [_apply(m, nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2)]
        attrs["points"] = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts)
        out = ET.Element(el.tag, attrs)
    else:
        d = _shape_path(tag, el)
        for key in ("x", "y", "width", "height", "rx", "ry", "cx", "cy", "r",
                    "x1", "y1", "x2", "y2", "d"):
            attrs.pop(key, None)
        attrs["d"] = _transform_path(d, m)
        out = ET.Element(f"{{{SVG}}}path", attrs)
    out.tail = el.tail
    return out


def _shape_path(tag: str, el: ET.Element) -> str:
    """The path data of a basic shape (absolute M / L / C / Z only)."""
    num = lambda key: float(el.get(key, "0"))   # noqa: E731
    if tag == "path":
        return el.get("d", "")
    if tag == "line":
        return f"M{num('x1')},{num('y1')} L{num('x2')},{num('y2')}"
    if tag == "rect":
        x, y, w, h = num("x"), num("y"), num("width"), num("height")
        return f"M{x},{y} L{x + w},{y} L{x + w},{y + h} L{x},{y + h} Z"
    if tag == "circle":
        cx, cy, rx = num("cx"), num("cy"), num("r")
        ry = rx
    else:
        cx, cy, rx, ry = num("cx"), num("cy"), num("rx"), num("ry")
    k = 0.5522847498   # four cubic Béziers approximate an ellipse
    return (f"M{cx + rx},{cy} C{cx + rx},{cy + k * ry} {cx + k * rx},{cy + ry} {cx},{cy + ry} "
            f"C{cx - k * rx},{cy + ry} {cx - rx},{cy + k * ry} {cx - rx},{cy} "
            f"C{cx - rx},{cy - k * ry} {cx - k * rx},{cy - ry} {cx},{cy - ry} "
            f"C{cx + k * rx},{cy - ry} {cx + rx},{cy - k * ry} {cx + rx},{cy} Z")


def _transform_path(d: str, m: Matrix) -> str:
    """Path data with every point mapped by ``m``. Qt writes absolute M / L / C / Z;
    relative and H / V commands are made absolute on the way."""
    tokens = _PATH_TOKEN.findall(d)
    out: list[str] = []
    cmd = "M"
    x = y = 0.0
    start = (0.0, 0.0)
    i = 0
    arity = {"M": 2, "L": 2, "C": 6, "Q": 4, "S": 4, "T": 2, "H": 1, "V": 1, "A": 7}
    while i < len(tokens):
        tok = tokens[i]
        if tok.isalpha():
            cmd = tok
            i += 1
            if cmd in "Zz":
                out.append("Z")
                x, y = start
                continue
            if i >= len(tokens) or tokens[i].isalpha():
                continue
        upper = cmd.upper()
        n = arity[upper]
        args = [float(t) for t in tokens[i:i + n]]
        i += n
        if len(args) < n:
            break
        rel = cmd.islower()
        if upper == "H":
            args, upper = [args[0] + (x if rel else 0.0), y], "L"
        elif upper == "V":
            args, upper = [x, args[0] + (y if rel else 0.0)], "L"
        elif upper == "A":   # Qt never writes arcs; keep the end point, as a line
            args, upper = [args[5] + (x if rel else 0.0), args[6] + (y if rel else 0.0)], "L"
        elif rel:
            args = [v + (x if k % 2 == 0 else y) for k, v in enumerate(args)]
        pts = [_apply(m, args[k], args[k + 1]) for k in range(0, len(args), 2)]
        out.append(upper + " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in pts))
        x, y = args[-2], args[-1]
        if upper == "M":
            start = (x, y)
            cmd = "l" if rel else "L"   # further pairs after a moveto are linetos
    return " ".join(out)

