"""A BertViz-style head view: the queries in a column on the left, the keys on the
right, and a line from each query to each key whose opacity is the attention weight.

Every head of a layer is drawn over the others in its own colour (``head_colour``, the
colour the heads grid puts before each head's title); the legend along the top names
the heads, and clicking a head there hides or shows its lines. Hovering a token keeps
only its lines: a query's row of weights, or the column of weights into a key.

Everything is painted by one ``QGraphicsWidget``, so an export (PNG, SVG, PDF) draws
the lines as stroked paths and the tokens as text, exactly as on screen.

On screen (a raster painter at one device pixel per unit) a smoothed line of width w ≥
1.5 is drawn as round(w) parallel one-pixel lines: the raster engine smooths translucent
one-pixel lines on a fast path and wider ones through its stroker, 79 ms against 8 for
the 484 lines of four heads at length 11. The picture differs by a few levels at the
lines' edges (``tests/test_head_view.py``). SVG, PDF and scaled PNG exports get the
lines at their true width. On screen the lines are drawn once into an image that the
next paints of the same lines blit (``_Lines._lines_image``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, QSizeF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPaintEngine, QPainter, QPen
from PySide6.QtWidgets import QGraphicsWidget

from viz.attention import head_colour
from viz.figure import painting_figure
from viz.heatmap import ROW, ask_minimum, fit_token_font, min_cell_px, short_label, token_font

PAD = 8           # around the drawing
LINE_GAP = 10     # between a token's text and the ends of its lines
MAX_ROW = 24      # the most pixels a token row takes
MIN_ALPHA = 0.01  # lines fainter than this are not drawn
ALPHA_LEVELS = 64  # a line's opacity is drawn rounded to 1/64 (invisible steps)
SMOOTH_LINES = 1500  # up to this many lines are antialiased
#: above SMOOTH_LINES, the least time between two pictures of new lines (``_lines_image``)
RENDER_SPACING_S = 0.1
QUERY, KEY = 0, 1


def _strands(p: QPainter, width: float) -> int:
    """How many parallel one-pixel lines draw a smoothed line of ``width`` on ``p``: 0
    (draw it at its width) unless ``p`` is the raster engine at one device pixel per
    unit and the width is 1.5 or more (see the module's docstring)."""
    engine = p.paintEngine()
    if width < 1.5 or engine is None or engine.type() != QPaintEngine.Type.Raster:
        return 0
    t = p.deviceTransform()
    if abs(t.m11() - 1) > 1e-6 or abs(t.m22() - 1) > 1e-6 or t.m12() or t.m21():
        return 0
    return int(round(width))


def _lines(x0: float, y0: np.ndarray, x1: float, y1: np.ndarray,
           strands: int) -> list[QLineF]:
    """Lines (x0, y0[i]) → (x1, y1[i]); with ``strands`` > 0, that many copies of each,
    one pixel apart across the line, centred on it."""
    if not strands:
        return [QLineF(x0, a, x1, b) for a, b in zip(y0.tolist(), y1.tolist(), strict=True)]
    dy = y1 - y0
    length = np.maximum(np.hypot(x1 - x0, dy), 1e-9)
    nx, ny = -dy / length, (x1 - x0) / length          # unit normals
    out = []
    for k in range(strands):
        off = k - (strands - 1) / 2
        ox, oy = off * nx, off * ny
        out += [QLineF(x0 + a, b, x1 + a, c) for a, b, c in
                zip(ox.tolist(), (y0 + oy).tolist(), (y1 + oy).tolist(), strict=True)]
    return out


def _covered(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray,
             thick: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(major, minor, line) of every pixel that lines from (a0, b0) to (a1, b1) cover
    when aliased, as the raster engine fills a pen's outline: the pixels whose centres
    lie inside it. ``a`` is each line's major axis (|a1 − a0| ≥ |b1 − b0|), ``thick``
    its pen's extent along the minor axis. (32-bit throughout: half the memory traffic
    of numpy's defaults, which was most of the time.)"""
    lo = np.ceil(np.minimum(a0, a1) - 0.5).astype(np.int32)
    hi = np.floor(np.maximum(a0, a1) - 0.5).astype(np.int32)
    n = np.maximum(hi - lo + 1, 0)
    line = np.repeat(np.arange(len(n), dtype=np.int32), n)
    starts = np.cumsum(n, dtype=np.int32) - n
    major = lo[line] + (np.arange(len(line), dtype=np.int32) - starts[line])
    span = (a1 - a0).astype(np.float32)
    slope = ((b1 - b0) / np.where(span == 0, 1, span)).astype(np.float32)
    centre = (b0.astype(np.float32)[line]
              + (major + np.float32(0.5) - a0.astype(np.float32)[line]) * slope[line])
    half = (thick.astype(np.float32) / 2)[line]
    first = np.ceil(centre - half - 0.5).astype(np.int32)
    count = np.maximum(np.floor(centre + half - 0.5).astype(np.int32) - first + 1, 0)
    pick = np.repeat(np.arange(len(first), dtype=np.int32), count)
    offsets = np.arange(len(pick), dtype=np.int32) - (np.cumsum(count, dtype=np.int32)
                                                      - count)[pick]
    return major[pick], first[pick] + offsets, line[pick]


def raster_lines(alpha: np.ndarray, x0: float, x1: float, ys_q: np.ndarray,
                 ys_k: np.ndarray, width: float, shape: tuple[int, int]) -> QImage:
    """The aliased lines of ``_Lines._paint_lines`` (more than SMOOTH_LINES of them)
    drawn with numpy into a transparent image of ``shape`` (height, width): the raster
    engine blends translucent pixels slowly on this machine's CPU (1,645 lines of
    GPT-2's four heads at 29 tokens: 80-130 ms, against 11 ms opaque). Lines of one
    colour laid over each other with opacities a₁, a₂, … cover a pixel with 1 − ∏(1 − aᵢ)
    of that colour, in any order; the heads are laid over each other in order, as the
    painter does (``tests/test_head_view.py`` compares the two)."""
    height, wide = shape
    size = height * wide
    opacity = np.maximum(np.rint(alpha * ALPHA_LEVELS), 1.0) / ALPHA_LEVELS  # as the pens
    rgb = np.zeros((3, size), np.float32)               # premultiplied, one plane a colour
    clear = np.ones(size, np.float32)                   # ∏(1 − a) over the heads so far
    for h in range(alpha.shape[0]):
        rows, cols = np.nonzero(alpha[h] >= MIN_ALPHA)
        ya, yb = ys_q[rows].astype(np.float64), ys_k[cols].astype(np.float64)
        xa, xb = np.full(len(rows), float(x0)), np.full(len(rows), float(x1))
        dx, dy = xb - xa, yb - ya
        length = np.hypot(dx, dy)
        steep = np.abs(dy) > np.abs(dx)
        # a pen of ``width`` spans width·length/|major| pixels along the minor axis
        thick = np.maximum(width * length / np.maximum(np.maximum(abs(dx), abs(dy)), 1e-9),
                           1.0)
        log_clear = np.log1p(-np.minimum(opacity[h][rows, cols], 0.999))
        total = np.zeros(size)
        for pick, along_y in ((~steep, False), (steep, True)):
            if not pick.any():
                continue
            if along_y:
                major, minor, line = _covered(ya[pick], yb[pick], xa[pick], xb[pick],
                                              thick[pick])
                px, py = minor, major
            else:
                major, minor, line = _covered(xa[pick], xb[pick], ya[pick], yb[pick],
                                              thick[pick])
                px, py = major, minor
            inside = (px >= 0) & (px < wide) & (py >= 0) & (py < height)
            total += np.bincount(py[inside] * wide + px[inside],
                                 log_clear[pick][line[inside]], minlength=size)
        keep = np.exp(total.astype(np.float32))          # 1 − a: what shows through
        colour = QColor(head_colour(h))
        for plane, c in zip(rgb, (colour.redF(), colour.greenF(), colour.blueF()),
                            strict=True):
            plane *= keep
            plane += np.float32(c) * (1 - keep)
        clear *= keep
    bgra = np.empty((height, wide, 4), np.uint8)
    for i, plane in enumerate(rgb[::-1]):                # B, G, R
        bgra[..., i] = np.rint(plane * 255).reshape(height, wide)
    bgra[..., 3] = np.rint((1 - clear) * 255).reshape(height, wide)
    image = QImage(bgra.data, wide, height, 4 * wide, QImage.Format.Format_ARGB32_Premultiplied)
    return image.copy()          # (owns its pixels: the array goes)


class _Lines(QGraphicsWidget):
    """The painted part of ``HeadView`` (geometry in its own pixels)."""

    def __init__(self) -> None:
        super().__init__()
        self.weights = np.zeros((0, 0, 0), np.float32)
        self.q_labels: tuple[str, ...] = ()
        self.k_labels: tuple[str, ...] = ()
        self.names: tuple[str, ...] = ()
        self.titles = ("", "")
        self.shown = np.zeros(0, bool)
        self.selected = -1
        self.hover = (-1, -1)            # (QUERY or KEY, token index)
        self.legend_rects: list[QRectF] = []
        self._font = token_font()
        self._font.setPointSizeF(9)
        self._bold = QFont(self._font)
        self._bold.setBold(True)

    def drawn_lines(self) -> int:
        """How many query-key lines of the shown heads are drawn (weight above zero):
        what a check for an empty view counts, as a plot's points are counted."""
        if not self.weights.size or not self.shown.any():
            return 0
        return int((self.weights[self.shown] > 0).sum())

    # -- geometry ----------------------------------------------------------------------------
    def _legend_layout(self, names: Sequence[str] | None = None) -> tuple[list[QRectF], float]:
        """The legend's entries (swatch + name) wrapped to the width; and its height."""
        fm = QFontMetricsF(self._bold)
        x, y, h = PAD, PAD, fm.height() + 4
        rects = []
        for name in self.names if names is None else names:
            w = 14 + fm.horizontalAdvance(name) + 6
            if x + w > self.size().width() - PAD and x > PAD:
                x, y = PAD, y + h
            rects.append(QRectF(x, y, w, h))
            x += w + 8
        return rects, (y + h - PAD if rects else 0.0)

    def layout_rows(self) -> dict:
        """Where everything goes: column x positions, the top of the token rows and the
        height of one row."""
        fm = QFontMetricsF(self._font)
        rects, legend_h = self._legend_layout()
        top = PAD + legend_h + 6 + fm.height() + 4          # legend, then column titles
        n = max(len(self.q_labels), len(self.k_labels), 1)
        row = min(MAX_ROW, max(1.0, (self.size().height() - top - PAD) / n))
        # every token named: smaller type where the rows are close (never every n-th;
        # the view asks for the height the smallest type needs, ``min_height``)
        font, tbold = self.token_fonts(row)
        bold = QFontMetricsF(tbold)
        lw = max([bold.horizontalAdvance(short_label(t)) for t in self.q_labels]
                 + [fm.horizontalAdvance(self.titles[0])])
        rw = max([bold.horizontalAdvance(short_label(t)) for t in self.k_labels]
                 + [fm.horizontalAdvance(self.titles[1])])
        width = self.size().width()
        # the two columns close together on a wide panel: lines of about 3 × the height
        span = min(width - 2 * PAD - lw - rw, max(160.0, 0.9 * n * row))
        x_l = (width - span - lw - rw) / 2 + lw
        return {"legend": rects, "top": top, "row": row, "x_l": x_l, "x_r": x_l + span,
                "title_y": PAD + legend_h + 6, "fm": fm, "font": font, "bold": tbold}

    def _texts(self) -> list[str]:
        return [short_label(t) for t in (*self.q_labels, *self.k_labels)]

    def token_fonts(self, row: float) -> tuple[QFont, QFont]:
        """(regular, bold) font of the tokens for rows ``row`` pixels apart: the
        title's size where it fits, else the largest of ``fit_token_font``."""
        if QFontMetricsF(self._font).height() * ROW <= row:
            return self._font, self._bold
        point = fit_token_font(self._texts(), row, True)[0]
        font = token_font(point)
        bold = QFont(font)
        bold.setBold(True)
        return font, bold

    def min_height(self) -> float:
        """The height at which every token is named at the smallest type."""
        fm = QFontMetricsF(self._font)
        _, legend_h = self._legend_layout()
        n = max(len(self.q_labels), len(self.k_labels), 1)
        need = min_cell_px(self._texts(), True) if n > 1 else 0.0
        return PAD + legend_h + 6 + fm.height() + 4 + n * need + PAD

    def token_rects(self) -> list[tuple[QRectF, str]]:
        """Where each token's text is drawn (its ink's box, in this item's
        coordinates), queries then keys, hovered or not: for the check that none is
        skipped, cut or overlapping (tests/figure_checks.py)."""
        g = self.layout_rows()
        out = []
        fm = QFontMetricsF(g["font"])
        for side, labels in ((QUERY, self.q_labels), (KEY, self.k_labels)):
            for i, label in enumerate(labels):
                text = short_label(label)
                y = g["top"] + (i + 0.5) * g["row"]
                w = fm.horizontalAdvance(text)
                x = g["x_l"] - w if side == QUERY else g["x_r"]
                out.append((QRectF(x, y - fm.height() * ROW / 2, w, fm.height() * ROW), text))
        return out

    def token_pos(self, side: int, index: int) -> QPointF:
        g = self.layout_rows()
        y = g["top"] + (index + 0.5) * g["row"]
        return QPointF(g["x_l"] - 2 if side == QUERY else g["x_r"] + 2, y)

    def token_at(self, pos: QPointF) -> tuple[int, int]:
        g = self.layout_rows()
        index = int(np.floor((pos.y() - g["top"]) / g["row"]))
        if pos.x() <= g["x_l"] + LINE_GAP / 2 and 0 <= index < len(self.q_labels):
            return QUERY, index
        if pos.x() >= g["x_r"] - LINE_GAP / 2 and 0 <= index < len(self.k_labels):
            return KEY, index
        return -1, -1

    def line_alpha(self) -> np.ndarray:
        """float[heads, q, k]: the opacity of each line as drawn (0: not drawn)."""
        alpha = np.clip(self.weights, 0.0, 1.0) * self.shown[:, None, None]
        side, index = (-1, -1) if painting_figure() else self.hover   # hover: not in a figure
        if side == QUERY:
            keep = np.zeros(alpha.shape[1], bool)
            keep[index] = True
            alpha = alpha * keep[None, :, None]
        elif side == KEY:
            keep = np.zeros(alpha.shape[2], bool)
            keep[index] = True
            alpha = alpha * keep[None, None, :]
        return alpha.astype(np.float32)

    # -- painting ------------------------------------------------------------------------------
    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt name
        return QRectF(0, 0, self.size().width(), self.size().height())

    def paint(self, p, *args) -> None:
        if not len(self.weights):
            return
        g = self.layout_rows()
        self.legend_rects = g["legend"]
        fm, row, top = g["fm"], g["row"], g["top"]
        x_l, x_r = g["x_l"], g["x_r"]
        alpha = self.line_alpha()
        heads, q, k = alpha.shape
        ys_q = top + (np.arange(q) + 0.5) * row
        ys_k = top + (np.arange(k) + 0.5) * row
        lines = (alpha, x_l + LINE_GAP, x_r - LINE_GAP, ys_q, ys_k, 2.0 if row >= 12 else 1.2)
        t = p.deviceTransform()
        if (p.paintEngine().type() == QPaintEngine.Type.Raster and not painting_figure()
                and (t.m11(), t.m22(), t.m12(), t.m21()) == (1, 1, 0, 0)
                and float(t.dx()).is_integer() and float(t.dy()).is_integer()):
            p.drawImage(QPointF(0, 0), self._lines_image(lines))
        else:       # an export, or a scaled view: the lines as vectors at their width
            self._paint_lines(p, *lines)
        p.setRenderHint(p.RenderHint.Antialiasing, True)
        self._paint_tokens(p, fm, row, ys_q, ys_k, x_l, x_r, g["font"], g["bold"])
        self._paint_legend(p)

    def _lines_image(self, lines: tuple) -> QImage:
        """The lines drawn once into an image that later paints of the same lines blit:
        a paint is 50-150 ms for the 1,740 lines of GPT-2's four heads at 29 tokens, and
        the view was painted two or three times in a row with nothing changed (two
        exposed regions, a resize to and fro), a 0.47 s freeze while it generated."""
        alpha, x0, x1, ys_q, ys_k, width = lines
        key = (alpha.tobytes(), alpha.shape, x0, x1, ys_q.tobytes(), ys_k.tobytes(), width)
        if getattr(self, "_image_key", None) != key:
            many = int((alpha >= MIN_ALPHA).sum()) > SMOOTH_LINES
            since = time.monotonic() - getattr(self, "_drawn_at", -1e9)
            if many and since < RENDER_SPACING_S and getattr(self, "_image", None) is not None:
                # a layout settling (the view grows, then a scroll bar narrows it) asked
                # for two or three pictures of 40-60 ms in one turn of the event loop:
                # the last picture stays up to RENDER_SPACING_S, then the new one comes
                if not getattr(self, "_redraw_due", False):
                    self._redraw_due = True
                    QTimer.singleShot(int((RENDER_SPACING_S - since) * 1000) + 1, self,
                                      self._draw_due)
                return self._image
            # as large as the lines, not the view: a taller view (its grid row grew)
            # draws the same lines, and blits the same image
            bottom = max(float(ys_q.max(initial=0.0)), float(ys_k.max(initial=0.0)))
            image = QImage(int(np.ceil(x1 + width)) + 2, int(np.ceil(bottom + width)) + 2,
                           QImage.Format.Format_ARGB32_Premultiplied)
            if many:
                image = raster_lines(*lines, (image.height(), image.width()))
                self._drawn_at = time.monotonic()
            else:
                image.fill(Qt.GlobalColor.transparent)
                painter = QPainter(image)      # "over" is associative: the same picture
                self._paint_lines(painter, *lines)
                painter.end()
            self._image, self._image_key = image, key
        return self._image

    def _draw_due(self) -> None:
        self._redraw_due = False
        self.update()

    def _paint_lines(self, p, alpha, x0, x1, ys_q, ys_k, width) -> None:
        heads = alpha.shape[0]
        # one pen and one drawLines call per head and opacity level (ALPHA_LEVELS steps):
        # 8 heads × 32² lines drawn one by one took 1.3 s a paint, batched ~25 ms
        levels = np.rint(alpha * ALPHA_LEVELS).astype(np.int32)
        # smooth lines while they can be followed one by one; above SMOOTH_LINES the
        # picture is a texture and aliased lines draw it ~12× faster (8,192 lines: 1.1 s
        # a paint smooth, 94 ms aliased, offscreen on this machine)
        count = int((alpha >= MIN_ALPHA).sum())
        p.setRenderHint(p.RenderHint.Antialiasing, count <= SMOOTH_LINES)
        strands = _strands(p, width) if count <= SMOOTH_LINES else 0
        if strands:
            width = 1.0
        for h in range(heads):
            base = QColor(head_colour(h))
            drawn = alpha[h] >= MIN_ALPHA
            for level in np.unique(levels[h][drawn]):
                colour = QColor(base)
                colour.setAlphaF(max(float(level), 1.0) / ALPHA_LEVELS)
                pen = QPen(colour, width)
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                p.setPen(pen)
                rows, cols = np.nonzero(drawn & (levels[h] == level))
                p.drawLines(_lines(x0, ys_q[rows], x1, ys_k[cols], strands))

    def _paint_tokens(self, p, fm, row, ys_q, ys_k, x_l, x_r, font, bold) -> None:
        side, index = (-1, -1) if painting_figure() else self.hover
        p.setPen(QColor("#555"))
        p.setFont(self._font)
        ty = ys_q[0] - row / 2 - fm.height() - 4 if len(ys_q) else 0
        p.drawText(QRectF(x_l - 200, ty, 200, fm.height()),
                   int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                   self.titles[0])
        p.drawText(QRectF(x_r, ty, 200, fm.height()),
                   int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                   self.titles[1])
        for this_side, labels, ys in ((QUERY, self.q_labels, ys_q), (KEY, self.k_labels, ys_k)):
            for i, (label, y) in enumerate(zip(labels, ys, strict=False)):
                hovered = this_side == side and i == index
                text = short_label(label)
                th = QFontMetricsF(font).height()
                rect = (QRectF(x_l - 200, y - th / 2, 200, th)
                        if this_side == QUERY else QRectF(x_r, y - th / 2, 200, th))
                align = (Qt.AlignmentFlag.AlignRight if this_side == QUERY
                         else Qt.AlignmentFlag.AlignLeft) | Qt.AlignmentFlag.AlignVCenter
                if hovered:
                    w = QFontMetricsF(bold).horizontalAdvance(text) + 6
                    box = QRectF(x_l - w + 3 if this_side == QUERY else x_r - 3,
                                 y - th / 2, w, th)
                    p.fillRect(box, QColor(232, 162, 0, 70))
                p.setFont(bold if hovered else font)
                p.setPen(QColor("#111"))
                p.drawText(rect, int(align), text)

    def _paint_legend(self, p) -> None:
        p.setFont(self._bold)
        entries = list(enumerate(zip(self.names, self.legend_rects, strict=False)))
        if painting_figure():      # a figure names the heads it draws, none selected
            heads = [h for h in range(len(self.names)) if self.shown[h]]
            rects, _ = self._legend_layout([self.names[h] for h in heads])
            entries = [(h, (self.names[h], r)) for h, r in zip(heads, rects, strict=True)]
        for h, (name, rect) in entries:
            colour = QColor(head_colour(h))
            swatch = QRectF(rect.left(), rect.center().y() - 5, 10, 10)
            p.setPen(QPen(colour, 1.5))
            if self.shown[h]:
                p.fillRect(swatch, colour)
            p.drawRect(swatch)
            p.setPen(QColor("#222") if self.shown[h] else QColor("#999"))
            p.drawText(QRectF(rect.left() + 14, rect.top(), rect.width() - 14, rect.height()),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), name)
            if h == self.selected and not painting_figure():
                p.setPen(QPen(QColor("#e8a200"), 1.5))
                p.drawLine(QPointF(rect.left() + 14, rect.bottom() - 1),
                           QPointF(rect.right() - 6, rect.bottom() - 1))


class HeadView(pg.GraphicsView):
    """Queries left, keys right, one line per (query, key) and head; opacity = weight.

    Signals:
        hovered(side, index): the token under the mouse (side 0 = query, 1 = key;
            -1, -1 when none).
        headsToggled(): a head was hidden or shown from the legend.
    """

    hovered = Signal(int, int)
    headsToggled = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent, background="w")
        self.lines = _Lines()
        self.setCentralItem(self.lines)
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)
        self._next_shown: np.ndarray | None = None    # see set_shown_heads

    def set_heads(self, weights: np.ndarray, q_labels: Sequence[str], k_labels: Sequence[str],
                  names: Sequence[str], selected: int = -1,
                  titles: tuple[str, str] = ("queries", "keys")) -> None:
        """weights: float[heads, q, k] in [0, 1]; ``names`` label the heads in the
        legend, ``titles`` the two columns. Heads hidden from the legend stay hidden
        while the number of heads is the same."""
        w = np.ascontiguousarray(weights, dtype=np.float32)
        lines = self.lines
        if len(lines.shown) != w.shape[0]:
            nxt = self._next_shown
            lines.shown = nxt if nxt is not None and len(nxt) == w.shape[0] else \
                np.ones(w.shape[0], bool)
        self._next_shown = None
        if (w.shape[1], w.shape[2]) != lines.weights.shape[1:]:
            lines.hover = (-1, -1)
        lines.weights = w
        lines.q_labels, lines.k_labels = tuple(map(str, q_labels)), tuple(map(str, k_labels))
        lines.names, lines.titles, lines.selected = tuple(names), tuple(titles), selected
        lines.update()
        self._ask_height()

    def _ask_height(self) -> None:
        """Ask for the height at which every token is named (the panel grows, the grid
        of views scrolls) rather than naming every n-th."""
        if not len(self.lines.weights):
            return
        need = int(np.ceil(self.lines.min_height())) + 2 * self.frameWidth()
        ask_minimum(self, 0, need)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(ev)
        if getattr(self, "lines", None) is not None and not getattr(self, "closed", False):
            self._ask_height()

    def weights(self) -> np.ndarray:
        return self.lines.weights

    def line_alpha(self) -> np.ndarray:
        """float[heads, q, k]: each line's opacity as drawn (the weight, or 0 where
        the head is hidden or another token is hovered)."""
        return self.lines.line_alpha()

    def shown_heads(self) -> np.ndarray:
        return self.lines.shown.copy()

    def set_head_shown(self, head: int, shown: bool) -> None:
        self.lines.shown[head] = shown
        self.lines.update()
        self.headsToggled.emit()

    def set_shown_heads(self, shown) -> None:
        """Show the heads where ``shown`` is true, hide the others (a reopened session);
        for another number of heads than drawn now, from the next ``set_heads``."""
        shown = np.array(shown, bool)
        if len(shown) == len(self.lines.shown):
            self.lines.shown = shown
            self.lines.update()
            self.headsToggled.emit()
        else:
            self._next_shown = shown

    def set_hover(self, side: int, index: int) -> None:
        """Keep only the lines of one token (side QUERY or KEY), or all (-1, -1)."""
        if (side, index) != self.lines.hover:
            self.lines.hover = (side, index)
            self.lines.update()
        self.hovered.emit(side, index)

    def token_scene_pos(self, side: int, index: int) -> QPointF:
        """Scene position of a token's text (for tests and tours)."""
        return self.lines.mapToScene(self.lines.token_pos(side, index))

    def legend_scene_rect(self, head: int) -> QRectF:
        rects, _ = self.lines._legend_layout()
        return self.lines.mapRectToScene(rects[head])

    def _on_move(self, scene_pos: QPointF) -> None:
        side, index = self.lines.token_at(self.lines.mapFromScene(scene_pos))
        self.set_hover(side, index)

    def _on_click(self, event) -> None:
        pos = self.lines.mapFromScene(event.scenePos())
        rects, _ = self.lines._legend_layout()
        for h, rect in enumerate(rects):
            if rect.contains(pos):
                self.set_head_shown(h, not self.lines.shown[h])
                return

    def sizeHint(self):  # noqa: N802 - Qt name
        return QSizeF(300, 400).toSize()
