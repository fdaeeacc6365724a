"""A fast, interactive canvas for a graph given as numpy arrays (nodes + edges).

``GraphCanvas`` draws up to ~10k nodes / 50k edges and stays interactive. Everything it
draws comes in a few groups, one pyqtgraph item each, never one item per node or edge:

* edges: one ``PlotCurveItem(connect="pairs")`` per (colour bin, faded) pair, one pen
  each, antialiasing off. A per-edge value is binned into ``n_bins`` pens (colour and
  width); arrowheads (directed graphs) and self-loop circles are extra segments in
  the same per-bin arrays, so a bin is still one item;
* nodes: one ``ScatterPlotItem`` per (colour group, faded) pair with a single brush
  (per-point brushes are slow in pyqtgraph 0.14, issue #2960): categories are a fixed
  colour-blind friendly palette, continuous values fall into 16 colour bins;
* rings (selected node, hop 1/2/3+ of the receptive field, hovered node): one scatter
  item per kind.

Arrowheads and self-loops are sized in screen pixels; their geometry is recomputed
(debounced) when a zoom changes the scale by more than a quarter. Hover and click find
the nearest node with numpy in data coordinates with a tolerance in pixels.

The widget is a ``pg.PlotWidget`` (a ``QGraphicsView``), so ``viz.figure.render``
exports it to PNG / SVG / PDF like the other views; the hover read-out and hover ring
hide themselves while exporting. ``export_arrays()`` returns the arrays behind it.

The items and the methods that refill them are in ``viz.graph_drawing`` (mixed into the
canvas), the numpy-only bins and edge segments in ``viz.graph_geometry``.

Shapes:
    pos: float[n, 2]; edges: int[E, 2] (source, target), PyG's ``edge_index.T``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEasingCurve, QPointF, Qt, QTimer, QVariantAnimation, Signal

from viz.edge_layer import EdgeLayer
from viz.graph_drawing import (
    HOP_PENS,
    NODE_COLOUR,
    NONE_COLOUR,
    EdgeCurve,
    GraphDrawing,
    HoverRing,
    ReadoutItem,
    bin_colours,
    stepped_map,
    to_rgb,
)
from viz.graph_geometry import bin_values, same_values, value_levels
from viz.legend import keep_clear
from viz.scatter import Scatter
from viz.theme import HIGHLIGHT, LEGEND_BORDER, PALETTE

NODE_BINS = 16                   # colour bins for continuous node values
HOVER_TOLERANCE_PX = 4.0
ANIMATION_MS = 300



class GraphCanvas(GraphDrawing, pg.PlotWidget):
    """Nodes and edges from numpy arrays, with pan/zoom, hover read-out and click.

    Signals:
        nodeClicked(int): the node clicked, or −1 for a click on the background.
        nodeHovered(int): the node under the mouse, or −1 (emitted on change).

    Main calls: ``set_graph(pos, edges, directed)``, ``set_positions``,
    ``set_node_colors``, ``set_node_sizes``, ``set_edge_values``, ``set_highlight``,
    ``set_overlay_edges``, ``set_node_labels``, ``set_hover_info``, ``select``.
    """

    nodeClicked = Signal(int)
    nodeHovered = Signal(int)

    def __init__(self, parent=None, legend: bool = True) -> None:
        super().__init__(parent, enableMenu=False)
        self._show_legend = legend      # off where a neighbouring view has the legend
        pi = self.plotItem
        pi.setMenuEnabled(False)
        pi.hideButtons()
        pi.hideAxis("left")
        pi.hideAxis("bottom")
        pi.setAspectLocked(True)
        pi.layout.setContentsMargins(2, 10, 2, 10)   # room for the colour bars' end labels
        self.vb: pg.ViewBox = pi.vb
        self.vb.setDefaultPadding(0.04)
        # state
        self._pos = np.zeros((0, 2))
        self._edges = np.zeros((0, 2), np.int64)
        self._directed = False
        self._node_group = np.zeros(0, np.int64)
        self._group_colours: list[tuple[int, int, int]] = [to_rgb(NODE_COLOUR)]
        self._node_values: np.ndarray | None = None
        self._node_legend: list[tuple[tuple[int, int, int], str]] = []
        self._node_title = ""
        self._sizes: np.ndarray | None = None
        self._edge_values: np.ndarray | None = None
        self._value_edges: np.ndarray | None = None
        self._edge_opts: dict = {}
        self._edge_bins = np.zeros(0, np.int64)
        self._hops: np.ndarray | None = None
        self._selected = -1
        self._hovered = -1
        self._overlay: np.ndarray | None = None
        self._overlay_values: np.ndarray | None = None
        self._overlay_title = ""
        self._labels: list[str] | None = None
        self._max_labels = 60
        self._hover_fn: Callable[[int], str] | None = None
        self._geom: tuple[np.ndarray, np.ndarray] | None = None
        self._dirty: set[str] = set()    # parts to redraw when the outermost batch ends
        self._batch_depth = 0
        self._legend_key: tuple | None = None
        self._geom_px = 0.0
        self._animation: QVariantAnimation | None = None
        # items (created once, updated in place)
        self.edge_items: list[pg.PlotCurveItem] = []
        #: (bin, faded) of each edge item; bin == n_bins holds NaN values, (-1, False) unused
        self.edge_item_keys: list[tuple[int, bool]] = []
        self.edge_item_edges: list[np.ndarray] = []     # drawn-edge index of each segment
        self.node_items: list[pg.ScatterPlotItem] = []
        self.node_item_keys: list[tuple[int, bool]] = []
        self.node_item_nodes: list[np.ndarray] = []     # the node indices in each item
        self._edge_lengths = np.zeros(0)     # each drawn segment's length, data units
        self.edge_layer = EdgeLayer(lambda: self.edge_items)
        self.edge_layer.setZValue(-10.5)
        pi.addItem(self.edge_layer, ignoreBounds=True)
        self.overlay_item = EdgeCurve(connect="pairs", antialias=False,
                                             skipFiniteCheck=True)
        self.overlay_item.setZValue(8)
        pi.addItem(self.overlay_item)
        self.hop_rings = [Scatter(pxMode=True, symbol="o", brush=None,
                                  pen=pg.mkPen(c, width=w)) for c, w in HOP_PENS]
        self.select_ring = Scatter(pxMode=True, symbol="o", brush=None,
                                   pen=pg.mkPen(HIGHLIGHT, width=3.0))
        self.hover_ring = HoverRing(pxMode=True, symbol="o", brush=None,
                                     pen=pg.mkPen("#000000", width=1.5))
        for z, item in enumerate([*self.hop_rings, self.select_ring, self.hover_ring]):
            item.setZValue(20 + z)
            pi.addItem(item)
        self.label_items: list[pg.TextItem] = []
        # legend (classes, overlay) top right; colour bars right of the view
        self.legend = pg.LegendItem(offset=(-8, 8), labelTextSize="8pt",
                                    brush=pg.mkBrush(255, 255, 255, 215),
                                    pen=pg.mkPen(LEGEND_BORDER))
        self.legend.setParentItem(self.vb)
        self.legend.setZValue(100)
        self.legend.setVisible(False)
        self.legend_placer = keep_clear(pi, self.legend, prefer=("top-right", "top-left",
                                                                 "bottom-right", "bottom-left"))
        self.node_bar = self._make_bar()
        self.edge_bar = self._make_bar()
        self._edge_bar_shows: tuple | None = None      # (cmap, bins, levels, title) set
        self._bars_in_layout: list[pg.ColorBarItem] = []
        # hover read-out, bottom left
        self.readout = ReadoutItem(anchor=(0, 1), color="#222222",
                                    fill=pg.mkBrush(255, 255, 255, 225),
                                    border=pg.mkPen(LEGEND_BORDER))
        self.readout.setParentItem(self.vb)
        self.readout.setZValue(101)
        self.readout.setVisible(False)
        self.vb.sigResized.connect(self._place_readout)
        # interaction
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._geom_timer = QTimer(self, singleShot=True, interval=60)
        self._geom_timer.timeout.connect(self._refresh_scaled_geometry)
        self.vb.sigRangeChanged.connect(self._on_range_changed)
        self.set_graph(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.int64))

    # -- public API -----------------------------------------------------------------------
    def set_graph(self, pos: np.ndarray, edges: np.ndarray, directed: bool = False) -> None:
        """A new graph: ``pos`` float[n, 2], ``edges`` int[E, 2] (source, target).

        Resets colours, sizes, edge values, highlight, overlay, labels and selection,
        and fits the view to the nodes.
        """
        pos = np.asarray(pos, dtype=np.float64).reshape(-1, 2)
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        n = pos.shape[0]
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise ValueError(f"edges refer to nodes outside 0 … {n - 1}")
        self._stop_animation()
        self._pos = pos
        self._edges = edges
        self._directed = bool(directed)
        self._node_group = np.zeros(n, np.int64)
        self._group_colours = [to_rgb(NODE_COLOUR)]
        self._node_values = None
        self._node_legend = []
        self._node_title = ""
        self._sizes = None
        self._edge_values = None
        self._value_edges = None
        self._edge_opts = {}
        self._hops = None
        self._selected = -1
        self._hovered = -1
        self._overlay = None
        self._overlay_values = None
        self._overlay_title = ""
        self._labels = None
        self._geom = None
        self._opacity_bin = None
        self._show_bar(self.node_bar, False)
        self._show_bar(self.edge_bar, False)
        self.readout.setVisible(False)
        self.auto_range()
        self._redraw_all()

    def set_positions(self, pos: np.ndarray, animate: bool = False) -> None:
        """A new layout of the same graph; ``animate`` moves the nodes there in ~300 ms."""
        new = np.asarray(pos, dtype=np.float64).reshape(-1, 2)
        if new.shape != self._pos.shape:
            raise ValueError(f"positions for {new.shape[0]} nodes, the graph has "
                             f"{self._pos.shape[0]}")
        if self._animation is None and same_values(new, self._pos):
            return          # where they are (a redraw for another reason): nothing moves
        self._stop_animation()
        if not animate or new.shape[0] == 0:
            self._apply_positions(new)
            self.auto_range()
            return
        old = self._pos.copy()
        self._fit(np.concatenate([old, new]))
        anim = QVariantAnimation(self)
        anim.setDuration(ANIMATION_MS)
        anim.setStartValue(0.0)
        anim.setEndValue(1.0)
        anim.setEasingCurve(QEasingCurve.Type.InOutQuad)
        anim.valueChanged.connect(lambda f: self._apply_positions(old + (new - old) * float(f)))
        anim.finished.connect(lambda: (self._apply_positions(new), self.auto_range(),
                                       self._stop_animation()))
        self._animation = anim
        anim.start()

    def set_node_colors(self, values: np.ndarray | None, *, categorical: bool,
                        names: Sequence[str] | None = None, title: str = "",
                        levels: tuple[float, float] | None = None,
                        cmap: str = "viridis") -> None:
        """Colour the nodes by class (``categorical``: int codes, −1 → grey, legend with
        ``names``) or by a float value (NaN → grey) through ``cmap`` in 16 bins, with a
        colour bar titled ``title`` over ``levels``. ``None``: one colour, no legend."""
        n = self._pos.shape[0]
        drawn = (self._node_group, self._group_colours)
        self._node_title = title
        self._node_legend = []
        self._show_bar(self.node_bar, False)
        if values is None:
            self._node_values = None
            self._node_group = np.zeros(n, np.int64)
            self._group_colours = [to_rgb(NODE_COLOUR)]
        else:
            v = np.asarray(values).reshape(-1)
            if v.shape[0] != n:
                raise ValueError(f"{v.shape[0]} node values for {n} nodes")
            self._node_values = v
            if categorical:
                codes = v.astype(np.int64)
                k = int(codes.max()) + 1 if codes.size else 0
                k = max(k, len(names) if names is not None else 0)
                self._group_colours = [to_rgb(PALETTE[c % len(PALETTE)]) for c in range(k)]
                self._group_colours.append(to_rgb(NONE_COLOUR))
                self._node_group = np.where(codes >= 0, codes, k)
                present = np.bincount(codes[codes >= 0], minlength=k) if k else []
                for c in range(k):
                    if names is not None and c < len(names):
                        label = str(names[c])
                    elif present[c]:
                        label = str(c)
                    else:
                        continue
                    self._node_legend.append((self._group_colours[c], label))
            else:
                lv = value_levels(v.astype(np.float64), levels)
                colours = bin_colours(cmap, NODE_BINS, for_lines=False)
                self._group_colours = [*colours, to_rgb(NONE_COLOUR)]
                self._node_group = bin_values(v, lv, NODE_BINS)
                self.node_bar.setColorMap(stepped_map(colours))
                self.node_bar.setLevels(lv)
                self.node_bar.setLabel("left", title)
                self._show_bar(self.node_bar, True)
        # the same colours (a language switch, a redraw for another view): the legend
        # alone; repainting 10,000 nodes took most of a graph tab's retranslation
        same = same_values(drawn[0], self._node_group) and same_values(drawn[1], self._group_colours)
        self._request(*(("legend",) if same else ("legend", "nodes")))

    def set_node_sizes(self, values: np.ndarray | None, min_px: float = 6,
                       max_px: float = 22) -> None:
        """Node diameters: ``None`` → uniform; else sqrt-scaled into [min_px, max_px]."""
        sizes = None
        if values is not None:
            v = np.asarray(values, dtype=np.float64).reshape(-1)
            if v.shape[0] != self._pos.shape[0]:
                raise ValueError(f"{v.shape[0]} sizes for {self._pos.shape[0]} nodes")
            r = np.sqrt(np.clip(np.nan_to_num(v, nan=0.0), 0, None))
            span = r.max() - r.min() if r.size else 0.0
            f = (r - r.min()) / span if span > 0 else np.full_like(r, 0.5)
            sizes = min_px + f * (max_px - min_px)
        if (sizes is None and self._sizes is None) or (
                sizes is not None and self._sizes is not None
                and np.array_equal(sizes, self._sizes)):
            return                          # the same sizes: nothing to redraw
        self._sizes = sizes
        if self._scaled_geometry():         # arrowheads and loops sit at the node's rim
            self._geom = None
            self._request("nodes", "rings", "edges")
        else:
            self._request("nodes", "rings")

    def set_edge_values(self, values: np.ndarray | None, *, edges: np.ndarray | None = None,
                        levels: tuple[float, float] | None = None, title: str = "",
                        half: bool = False, cmap: str = "magma", n_bins: int = 8,
                        width_range: tuple[float, float] = (0.6, 3.5)) -> None:
        """Colour and width of each edge from a value, in ``n_bins`` pens (one item per
        bin). ``edges`` int[k, 2]: the values belong to these edges (e.g. with the
        self-loops GCN/GAT add), drawn instead of the graph's until
        ``set_edge_values(None)``. ``half``: draw each s→t only from its midpoint to t,
        so α_ij and α_ji show side by side. ``None`` → plain grey edges."""
        if values is None:
            changed = self._value_edges is not None or self._edge_opts.get("half")
            plain = self._edge_values is None and not changed     # drawn plain already
            self._edge_values = None
            self._value_edges = None
            self._edge_opts = {}
            self._show_bar(self.edge_bar, False)
            if changed:
                self._geom = None
            if not plain:
                self._request("edges")
            return
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        e = self._edges if edges is None else np.asarray(edges, np.int64).reshape(-1, 2)
        if v.shape[0] != e.shape[0]:
            raise ValueError(f"{v.shape[0]} edge values for {e.shape[0]} edges")
        if e.size and (e.min() < 0 or e.max() >= self._pos.shape[0]):
            raise ValueError("edge values refer to nodes outside the graph")
        same_edges = (edges is None and self._value_edges is None) or (
            edges is not None and self._value_edges is not None
            and self._value_edges.shape == e.shape and np.array_equal(self._value_edges, e))
        if not same_edges or bool(half) != bool(self._edge_opts.get("half")):
            self._geom = None
        n_bins = max(1, int(n_bins))
        lv = value_levels(v, levels)
        colours = bin_colours(cmap, n_bins, for_lines=True)
        drawn = (self._edge_values, self._edge_opts, self._geom is not None)
        self._edge_values = v
        self._value_edges = None if edges is None else e
        self._edge_opts = {"half": bool(half), "levels": lv, "n_bins": n_bins,
                           "colours": colours, "widths": np.linspace(*width_range, n_bins),
                           "title": title}
        self._edge_bins = bin_values(v, lv, n_bins)
        bar = (cmap, n_bins, tuple(map(float, lv)), title)
        if bar != self._edge_bar_shows:     # the same bar: its axis is not laid out again
            self.edge_bar.setColorMap(stepped_map(colours))
            self.edge_bar.setLevels(lv)
            self.edge_bar.setLabel("left", title)
            self._edge_bar_shows = bar
        self._show_bar(self.edge_bar, True)
        old_values, old_opts, kept_geometry = drawn
        if not (kept_geometry and self._geom is not None and same_values(old_values, v)
                and old_opts.keys() == self._edge_opts.keys()
                and all(same_values(old_opts[k], self._edge_opts[k])
                        for k in self._edge_opts if k != "title")):
            self._request("edges")          # the same values and pens: nothing to redraw

    def set_highlight(self, hops: np.ndarray | None, selected: int | None = None) -> None:
        """``hops`` int[n]: hop distance from ``selected`` (−1 = outside its receptive
        field). Outside nodes and edges fade; hop 1, 2, 3+ get outlines and the
        selected node a ring. ``None`` → no highlight. ``selected`` (−1: none) is set
        with or without hops; ``None`` keeps it. (It was kept whenever hops were None,
        so the ring depended on what had been drawn before: a session opened straight
        into the community colouring showed no selected node.)"""
        n = self._pos.shape[0]
        drawn = (self._hops, self._selected)
        if hops is None:
            self._hops = None
        else:
            h = np.asarray(hops, dtype=np.int64).reshape(-1)
            if h.shape[0] != n:
                raise ValueError(f"{h.shape[0]} hop distances for {n} nodes")
            self._hops = h
        if selected is not None:
            self._selected = int(selected) if 0 <= selected < n else -1
        if not (same_values(drawn[0], self._hops) and drawn[1] == self._selected):
            self._request("nodes", "edges", "rings", "labels")

    def set_overlay_edges(self, edges: np.ndarray | None, values: np.ndarray | None = None,
                          title: str = "") -> None:
        """Extra edges (e.g. the top predicted links) drawn dashed in the accent colour
        on top of the others; ``values`` (e.g. scores) set their width; ``title`` names
        them in the legend. ``None`` removes them."""
        if edges is None:
            self._overlay = None
            self._overlay_values = None
            self._overlay_title = ""
        else:
            e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
            if e.size and (e.min() < 0 or e.max() >= self._pos.shape[0]):
                raise ValueError("overlay edges refer to nodes outside the graph")
            self._overlay = e
            self._overlay_values = (None if values is None
                                    else np.asarray(values, np.float64).reshape(-1))
            self._overlay_title = title
        self._request("overlay", "legend")

    def set_node_labels(self, texts: Sequence[str] | None, max_labels: int = 60) -> None:
        """Text beside the nodes, drawn only when n ≤ ``max_labels`` (the selected
        node's label is drawn always)."""
        if texts is not None and len(texts) != self._pos.shape[0]:
            raise ValueError(f"{len(texts)} labels for {self._pos.shape[0]} nodes")
        self._labels = None if texts is None else [str(t) for t in texts]
        self._max_labels = int(max_labels)
        self._request("labels")

    def set_axis_labels(self, x: str | None, y: str | None) -> None:
        """Show the bottom and left axes titled ``x`` and ``y``, for a plane whose
        coordinates mean something (principal components); None hides them (a layout's
        coordinates mean nothing)."""
        for name, text in (("bottom", x), ("left", y)):
            if text is None:
                self.plotItem.hideAxis(name)
            else:
                self.plotItem.showAxis(name)
                self.plotItem.setLabel(name, text)

    def set_hover_info(self, fn: Callable[[int], str] | None) -> None:
        """``fn(node) -> text`` shown in the read-out box while the node is hovered."""
        self._hover_fn = fn
        self._update_readout()

    def select(self, index: int) -> None:
        """Select a node (ring + label); −1 clears. Emits nothing."""
        n = self._pos.shape[0]
        self._selected = int(index) if 0 <= index < n else -1
        self._update_one_ring(self.select_ring, self._selected, 9.0)
        self._update_labels()

    def selected(self) -> int:
        return self._selected

    def hovered(self) -> int:
        return self._hovered

    def readout_text(self) -> str:
        """What the hover read-out box shows ('' when hidden)."""
        return self.readout.textItem.toPlainText() if self.readout.isVisible() else ""

    def node_count(self) -> int:
        return self._pos.shape[0]

    def positions(self) -> np.ndarray:
        return self._pos

    def auto_range(self) -> None:
        """Fit the view to the nodes."""
        self._fit(self._pos)

    def node_at(self, x: float, y: float, tolerance_px: float = HOVER_TOLERANCE_PX) -> int:
        """The node nearest to data point (x, y) within its radius + ``tolerance_px``
        pixels, or −1."""
        n = self._pos.shape[0]
        if n == 0:
            return -1
        px = self._pixel_size()
        dx = (self._pos[:, 0] - x) / px
        dy = (self._pos[:, 1] - y) / px
        d2 = dx * dx + dy * dy
        reach = self._radius_px() + tolerance_px
        d2 = np.where(d2 <= reach * reach, d2, np.inf)
        i = int(np.argmin(d2))
        return i if np.isfinite(d2[i]) else -1

    # -- drawing --------------------------------------------------------------------------
    @contextmanager
    def batch(self):
        """Several setters in a row redraw once, when the outermost ``batch`` ends (one
        tab update sets colours, sizes, highlight, edge values and overlay)."""
        self._batch_depth += 1
        try:
            yield self
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0:
                self._flush()

    def _request(self, *parts: str) -> None:
        """Redraw ``parts`` now, or at the end of the current ``batch``."""
        self._dirty.update(parts)
        if self._batch_depth == 0:
            self._flush()

    def _flush(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for part, update in (("nodes", self._update_nodes), ("edges", self._update_edges),
                             ("overlay", self._update_overlay), ("rings", self._update_rings),
                             ("labels", self._update_labels), ("legend", self._update_legend)):
            if part in dirty:
                update()

    def _redraw_all(self) -> None:
        self._request("nodes", "edges", "overlay", "rings", "labels", "legend")

    def _apply_positions(self, pos: np.ndarray) -> None:
        self._pos = pos
        self._geom = None
        self._request("nodes", "edges", "overlay", "rings", "labels")

    def _stop_animation(self) -> None:
        if self._animation is not None:
            self._animation.stop()
            self._animation.deleteLater()
            self._animation = None

    def _fit(self, pts: np.ndarray) -> None:
        finite = pts[np.isfinite(pts).all(1)] if pts.size else pts
        if finite.shape[0] == 0:
            self.vb.setRange(xRange=(-1, 1), yRange=(-1, 1), padding=0)
            return
        lo, hi = finite.min(0), finite.max(0)
        span = np.maximum(hi - lo, 1e-9)
        pad = 0.06 * span.max() if span.max() > 1e-9 else 1.0
        self.vb.setRange(xRange=(lo[0] - pad, hi[0] + pad), yRange=(lo[1] - pad, hi[1] + pad),
                         padding=0)

    def _pixel_size(self) -> float:
        """Data units per screen pixel (the aspect is locked, so x and y agree)."""
        try:
            sx, sy = self.vb.viewPixelSize()
        except Exception:   # noqa: BLE001 - a view without a size yet
            sx = sy = 0.0
        px = 0.5 * (abs(sx) + abs(sy))
        if not np.isfinite(px) or px <= 0 or self.vb.width() < 4:
            (x0, x1), (y0, y1) = self.vb.viewRange()
            px = max(x1 - x0, y1 - y0) / 600.0
        return float(px) if px > 0 else 1.0


    # -- interaction ----------------------------------------------------------------------
    def _on_range_changed(self, *_) -> None:
        self.edge_layer.view_moved()
        self._choose_edge_layer()
        if self._geom is None or self._geom_px <= 0 or not self._scaled_geometry():
            return
        ratio = self._pixel_size() / self._geom_px
        if ratio > 1.25 or ratio < 0.8:
            self._geom_timer.start()

    def _refresh_scaled_geometry(self) -> None:
        self._geom = None
        self._update_edges()

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        idx = -1
        if self.vb.sceneBoundingRect().contains(scene_pos) and not self._over_overlay_ui(
                scene_pos):
            p = self.vb.mapSceneToView(scene_pos)
            idx = self.node_at(p.x(), p.y())
        self._set_hovered(idx)

    def _over_overlay_ui(self, scene_pos: QPointF) -> bool:
        return self.legend.isVisible() and self.legend.sceneBoundingRect().contains(scene_pos)

    def leaveEvent(self, event) -> None:   # noqa: N802 - Qt's API
        self._set_hovered(-1)
        super().leaveEvent(event)

    def _set_hovered(self, idx: int) -> None:
        if idx == self._hovered:
            return
        self._hovered = idx
        self._update_one_ring(self.hover_ring, idx, 5.0)
        self._update_readout()
        self.nodeHovered.emit(idx)

    def _update_readout(self) -> None:
        idx = self._hovered
        if idx < 0 or idx >= self._pos.shape[0]:
            self.readout.setVisible(False)
            return
        text = self._hover_fn(idx) if self._hover_fn is not None else f"node {idx}"
        self.readout.setText(text)
        self.readout.setVisible(bool(text))
        self._place_readout()

    def _place_readout(self, *_) -> None:
        self.readout.setPos(6, self.vb.height() - 6)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        pos = event.scenePos()
        if not self.vb.sceneBoundingRect().contains(pos) or self._over_overlay_ui(pos):
            return
        p = self.vb.mapSceneToView(pos)
        idx = self.node_at(p.x(), p.y())
        self.select(idx)
        self.nodeClicked.emit(idx)
