"""How ``GraphCanvas`` draws: its pyqtgraph items and the methods that refill them.

Every group (edges per colour bin, nodes per colour group, overlay, rings, labels,
legend, colour bars) is one item created once and updated in place from the canvas
state; ``viz.graph_view`` describes the groups, ``viz.graph_geometry`` computes the
segments and bins without Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from viz.edge_layer import heavy, on_screen
from viz.graph_geometry import blend_white, edge_geometry, stable_order
from viz.scatter import Scatter
from viz.theme import HIGHLIGHT, SERIES_COLOURS, colormap

NONE_COLOUR = "#c8c8c8"          # class −1 / NaN value
NODE_COLOUR = SERIES_COLOURS[0]  # no colouring
EDGE_COLOUR = "#9a9a9a"          # plain edges
OVERLAY_COLOUR = HIGHLIGHT
NODE_SIZE = 9.0                  # px, uniform size
FADED_ALPHA = 45                 # nodes outside the receptive field
#: the node legend's entries at most (8 rows × 4 columns); the rest become "… +N"
LEGEND_ENTRIES = 32
#: node opacity by ``set_node_opacity`` bin: (0.75, 1], (0.5, 0.75], (0.25, 0.5], [0, 0.25]
OPACITY_ALPHAS = (255, 185, 115, 60)
EDGE_FADE = 0.85                 # faded edges: colour blended this far towards white
HOP_PENS = (("#222222", 2.0), ("#5a5a5a", 1.5), ("#8c8c8c", 1.1))   # hop 1, 2, 3+


def to_rgb(colour) -> tuple[int, int, int]:
    c = QColor(colour)
    return c.red(), c.green(), c.blue()


def bin_colours(cmap: str, n: int, for_lines: bool) -> list[tuple[int, int, int]]:
    """n colours along ``cmap``. For lines on the white background the map's lightest
    end is cut off and, when the map runs dark → light (magma, viridis), reversed, so
    that the high values are the dark, salient ones."""
    cm = colormap(cmap)
    if for_lines:
        ends = cm.map(np.array([0.0, 1.0]), mode="byte")[:, :3].astype(float)
        lum = ends @ np.array([0.299, 0.587, 0.114])
        t = np.linspace(0.12, 0.82, n)
        t = 1.0 - t if lum[1] > lum[0] else t      # light (low) → dark (high)
    else:
        t = (np.arange(n) + 0.5) / n
    rgb = cm.map(t, mode="byte")[:, :3]
    return [tuple(int(c) for c in row) for row in rgb]


def stepped_map(colours: Sequence[tuple[int, int, int]]) -> pg.ColorMap:
    """A colour map with one flat step per bin, for the colour bar."""
    n = len(colours)
    pos, cols = [], []
    for i, c in enumerate(colours):
        pos += [i / n, (i + 1) / n - 1e-6 if i < n - 1 else 1.0]
        cols += [c, c]
    return pg.ColorMap(np.array(pos), np.array(cols, dtype=np.ubyte))


class ExportHidden:
    """Mixin: the item hides itself while the scene is being exported."""

    def setExportMode(self, export, opts=None):   # noqa: N802 - pyqtgraph's API
        if export:
            self._shown_before_export = self.isVisible()
            self.setVisible(False)
        elif getattr(self, "_shown_before_export", False):
            self.setVisible(True)
        return super().setExportMode(export, opts)


class ReadoutItem(ExportHidden, pg.TextItem):
    pass


class HoverRing(ExportHidden, pg.ScatterPlotItem):
    pass


class EdgeCurve(pg.PlotCurveItem):
    """``PlotCurveItem`` that keeps its data bounds across zooms: pyqtgraph drops them on
    every view change and recomputed nanmin/nanmax over all segments of every bin on
    each pan/zoom frame (~10 ms for 50k edges)."""

    #: the canvas's ``EdgeLayer`` draws this item (as part of one image) instead
    in_layer = False
    #: ... in an export too (a PNG at the size on screen: ``EdgeLayer.setExportMode``)
    in_layer_export = False
    _exporting = False

    def viewTransformChanged(self):   # noqa: N802 - pyqtgraph's API
        self._boundingRect = None
        self.prepareGeometryChange()

    def setExportMode(self, export, opts=None):   # noqa: N802 - pyqtgraph's API
        self._exporting = bool(export)
        if export and self.in_layer and isinstance(opts, dict):
            # dense edges stay aliased, as on screen: pyqtgraph smooths exported curves,
            # and 50k smoothed long lines took 7.6 s to paint into a PNG (aliased 0.2 s)
            opts = {**opts, "antialias": False}
        return super().setExportMode(export, opts)

    def paint(self, p, *args):
        if self.in_layer and (self.in_layer_export if self._exporting else on_screen(p)):
            return          # in the layer's image (other exports get the vector lines)
        super().paint(p, *args)

class GraphDrawing:
    """The drawing half of ``GraphCanvas`` (mixed into it, before ``pg.PlotWidget``):
    reads the state that ``GraphCanvas.__init__`` sets up (``_pos``, ``_edges``,
    ``_hops``, ``_edge_values`` ...) and refills the items it created."""

    # -- what the view shows, as data ------------------------------------------------------
    def export_arrays(self) -> dict[str, np.ndarray]:
        """The arrays behind the view (for CSV / NPY / JSON data export)."""
        out: dict[str, np.ndarray] = {"pos": self._pos.astype(np.float32),
                                      "edges": self._edges.copy()}
        if self._node_values is not None:
            out["node_values"] = np.asarray(self._node_values)
        if self._edge_values is not None:
            out["edge_values"] = self._edge_values.astype(np.float32)
            if self._value_edges is not None:
                out["value_edges"] = self._value_edges.copy()
        if self._hops is not None:
            out["hops"] = self._hops.copy()
        if self._overlay is not None:
            out["overlay_edges"] = self._overlay.copy()
            if self._overlay_values is not None:
                out["overlay_values"] = self._overlay_values.astype(np.float32)
        return out

    def overlay_edge_count(self) -> int:
        """How many overlay edges (e.g. predicted links) are drawn."""
        return 0 if self._overlay is None else len(self._overlay)

    def set_node_opacity(self, values: np.ndarray | None) -> None:
        """Node opacity from ``values`` in [0, 1] (a confidence, say), in the four steps
        of ``OPACITY_ALPHAS``; ``None``: every node opaque. One item per (colour, step)
        keeps the nodes a handful of items (a per-point brush is slow in pyqtgraph)."""
        if values is None:
            bins = None
        else:
            v = np.clip(np.nan_to_num(np.asarray(values, np.float64).reshape(-1), nan=1.0),
                        0.0, 1.0)
            if v.shape[0] != self._pos.shape[0]:
                raise ValueError(f"{v.shape[0]} opacities for {self._pos.shape[0]} nodes")
            bins = np.minimum(len(OPACITY_ALPHAS) - 1,
                              np.floor((1.0 - v) * len(OPACITY_ALPHAS))).astype(np.int64)
        old = getattr(self, "_opacity_bin", None)
        if (bins is None and old is None) or (bins is not None and old is not None
                                              and np.array_equal(bins, old)):
            return
        self._opacity_bin = bins
        self._request("nodes")

    def node_alpha(self, index: int) -> int:
        """The alpha (0-255) node ``index`` is drawn with now."""
        for item, nodes in zip(self.node_items, self.node_item_nodes, strict=False):
            if item.isVisible() and index in nodes:
                return int(item.opts["brush"].color().alpha())
        return -1

    def _size_array(self) -> np.ndarray:
        n = self._pos.shape[0]
        return self._sizes if self._sizes is not None else np.full(n, NODE_SIZE)

    def _radius_px(self) -> np.ndarray:
        return 0.5 * self._size_array()

    def _drawn_edges(self) -> np.ndarray:
        return self._value_edges if self._value_edges is not None else self._edges

    def _scaled_geometry(self) -> bool:
        """Whether the edge geometry depends on the zoom (arrowheads, self-loops)."""
        e = self._drawn_edges()
        return self._directed or bool(e.size and np.any(e[:, 0] == e[:, 1]))

    def _geometry(self) -> tuple[np.ndarray, np.ndarray]:
        if self._geom is None:
            px = self._pixel_size()
            self._geom = edge_geometry(self._pos, self._drawn_edges(), directed=self._directed,
                                       half=bool(self._edge_opts.get("half")), px=px,
                                       radius_px=self._radius_px())
            self._geom_px = px
        return self._geom

    def _pool(self, items: list, keys: list, count: int, make: Callable[[], object]) -> None:
        while len(items) < count:
            item = make()
            self.plotItem.addItem(item)
            items.append(item)
            keys.append((-1, False))

    def _update_edges(self) -> None:
        segs, owner = self._geometry()
        e = self._drawn_edges()
        valued = self._edge_values is not None
        if valued:
            nb = self._edge_opts["n_bins"]
            edge_bin = self._edge_bins
            colours = [*self._edge_opts["colours"], to_rgb(NONE_COLOUR)]
            widths = [*self._edge_opts["widths"], float(self._edge_opts["widths"][0])]
        else:
            nb = 1
            edge_bin = np.zeros(e.shape[0], np.int64)
            colours = [to_rgb(EDGE_COLOUR), to_rgb(NONE_COLOUR)]
            widths = [1.0, 1.0]
        n_keys = nb + 1
        if self._hops is not None and e.shape[0]:
            inside = (self._hops[e[:, 0]] >= 0) & (self._hops[e[:, 1]] >= 0)
            edge_key = edge_bin + n_keys * (~inside)
        else:
            edge_key = edge_bin
        seg_key = edge_key[owner] if owner.size else owner
        order = stable_order(seg_key)
        counts = np.bincount(seg_key, minlength=2 * n_keys) if seg_key.size else np.zeros(
            2 * n_keys, np.int64)
        present = [k for k in range(2 * n_keys) if counts[k]]
        self._pool(self.edge_items, self.edge_item_keys, len(present), self._make_edge_item)
        while len(self.edge_item_edges) < len(self.edge_items):
            self.edge_item_edges.append(np.zeros(0, np.int64))
        starts = np.concatenate([[0], np.cumsum(counts)])
        for item_i, item in enumerate(self.edge_items):
            if item_i >= len(present):
                if item.isVisible():
                    item.setData([], [])
                    item.setVisible(False)
                self.edge_item_keys[item_i] = (-1, False)
                self.edge_item_edges[item_i] = np.zeros(0, np.int64)
                continue
            k = present[item_i]
            b, faded = k % n_keys, k >= n_keys
            rgb = colours[b]
            width = float(widths[b])
            if faded:
                rgb = blend_white(rgb, EDGE_FADE)
                width = min(width, 1.0)
            item.setPen(pg.mkPen(rgb, width=width))
            # faded and thin first, the strongest bin last (on top)
            item.setZValue(-10 + (0 if faded else 1 + b / (n_keys + 1)))
            sel = order[starts[k]:starts[k + 1]]
            xy = segs[sel].reshape(-1, 2)
            item.setData(x=xy[:, 0], y=xy[:, 1])
            item.setVisible(True)
            self.edge_item_keys[item_i] = (int(b), bool(faded))
            self.edge_item_edges[item_i] = owner[sel]   # one entry per segment
        lengths = np.hypot(*(segs[:, 1] - segs[:, 0]).T) if len(segs) else np.zeros(0)
        self._edge_lengths = lengths[np.isfinite(lengths)]
        self.edge_layer.invalidate()
        self._choose_edge_layer()

    def _choose_edge_layer(self) -> None:
        """Edges long or many enough to cost more than a frame are drawn as one image
        (``viz.edge_layer``)."""
        self.edge_layer.set_active(heavy(self._edge_lengths, self._pixel_size(),
                                         self.vb.width(), self.vb.height()))

    def _make_edge_item(self) -> pg.PlotCurveItem:
        item = EdgeCurve(connect="pairs", antialias=False, skipFiniteCheck=True)
        # QPainter.drawLines for the whole bin: as fast as a path for thin pens and
        # faster for wide ones (pyqtgraph picks a path for width <= 1)
        item.opts["segmentedLineMode"] = "on"
        return item

    def _update_nodes(self) -> None:
        n = self._pos.shape[0]
        groups = self._node_group if self._node_group.shape[0] == n else np.zeros(n, np.int64)
        n_groups = len(self._group_colours)
        # level: an opacity step (0 opaque .. 3), or ``faded`` (outside the receptive field)
        faded_level = len(OPACITY_ALPHAS)
        levels = faded_level + 1
        opacity = getattr(self, "_opacity_bin", None)
        level = opacity if opacity is not None and opacity.shape[0] == n else \
            np.zeros(n, np.int64)
        if self._hops is not None:
            level = np.where(self._hops < 0, faded_level, level)
        key = groups + n_groups * level
        order = stable_order(key)
        counts = np.bincount(key, minlength=levels * n_groups) if n else \
            np.zeros(levels * n_groups, int)
        starts = np.concatenate([[0], np.cumsum(counts)])
        present = [k for k in range(levels * n_groups) if counts[k]]
        self._pool(self.node_items, self.node_item_keys, len(present),
                   lambda: Scatter(pxMode=True, symbol="o", antialias=True))
        while len(self.node_item_nodes) < len(self.node_items):
            self.node_item_nodes.append(np.zeros(0, np.int64))
        sizes = self._sizes
        for item_i, item in enumerate(self.node_items):
            if item_i >= len(present):
                if item.isVisible():
                    item.setData(pos=np.zeros((0, 2)))
                    item.setVisible(False)
                self.node_item_keys[item_i] = (-1, False)
                self.node_item_nodes[item_i] = np.zeros(0, np.int64)
                continue
            k = present[item_i]
            g, step = k % n_groups, k // n_groups
            faded = step == faded_level
            r, gg, b = self._group_colours[g]
            sel = order[starts[k]:starts[k + 1]]
            brush = pg.mkBrush(r, gg, b, FADED_ALPHA if faded else OPACITY_ALPHAS[step])
            pen = pg.mkPen(255, 255, 255, 60 if faded else 230, width=0.8)
            item.setData(pos=self._pos[sel], size=NODE_SIZE if sizes is None else sizes[sel],
                         brush=brush, pen=pen)
            self.node_item_nodes[item_i] = sel
            item.setZValue(5 if faded else 10 - step)
            item.setVisible(True)
            self.node_item_keys[item_i] = (int(g), bool(faded))

    def _update_overlay(self) -> None:
        e = self._overlay
        if e is None or e.shape[0] == 0 or self._pos.shape[0] == 0:
            self.overlay_item.setData([], [])
            self.overlay_item.setVisible(False)
            return
        xy = np.stack([self._pos[e[:, 0]], self._pos[e[:, 1]]], 1).reshape(-1, 2)
        width = 2.2
        if self._overlay_values is not None and self._overlay_values.size:
            # one pen: the mean score sets the width (1.5 … 4 px over [0, 1])
            v = np.nanmean(self._overlay_values)
            width = 1.5 + 2.5 * float(np.clip(v if np.isfinite(v) else 0.5, 0, 1))
        pen = pg.mkPen(OVERLAY_COLOUR, width=width, style=Qt.PenStyle.DashLine)
        self.overlay_item.setPen(pen)
        self.overlay_item.setData(x=xy[:, 0], y=xy[:, 1])
        self.overlay_item.setVisible(True)

    def _update_rings(self) -> None:
        size = self._size_array()
        empty = np.zeros((0, 2))
        for level, item in enumerate(self.hop_rings, start=1):
            if self._hops is None:
                item.setData(pos=empty)
                continue
            idx = np.flatnonzero(self._hops == level if level < len(self.hop_rings)
                                 else self._hops >= level)
            item.setData(pos=self._pos[idx], size=size[idx] + 4.0)
        self._update_one_ring(self.select_ring, self._selected, 9.0)
        self._update_one_ring(self.hover_ring, self._hovered, 5.0)

    def _update_one_ring(self, ring: pg.ScatterPlotItem, node: int, extra_px: float) -> None:
        """The selection or hover ring around ``node`` (−1: none); a hover moves only
        its own ring, not the receptive field's thousands."""
        if 0 <= node < self._pos.shape[0]:
            ring.setData(pos=self._pos[node:node + 1], size=[self._size_array()[node]
                                                             + extra_px])
        else:
            ring.setData(pos=np.zeros((0, 2)))

    def _update_labels(self) -> None:
        texts = self._labels
        n = self._pos.shape[0]
        wanted: list[int] = []
        if texts is not None:
            if n <= self._max_labels:
                wanted = list(range(n))
            elif 0 <= self._selected < n:
                wanted = [self._selected]
        while len(self.label_items) < len(wanted):
            item = pg.TextItem(anchor=(0.5, 1.15), color="#222222")
            item._archscope_data_label = True     # a node's name beside it, part of the data
            item.setZValue(30)
            self.plotItem.addItem(item)
            self.label_items.append(item)
        for j, item in enumerate(self.label_items):
            if j < len(wanted):
                i = wanted[j]
                item.setText(texts[i])
                item.setPos(float(self._pos[i, 0]), float(self._pos[i, 1]))
                faded = self._hops is not None and self._hops[i] < 0
                item.setColor(QColor(160, 160, 160) if faded else QColor(34, 34, 34))
                item.setVisible(True)
            else:
                item.setVisible(False)

    def _update_legend(self) -> None:
        key = (self._show_legend and (self._node_title, tuple(self._node_legend),
                                      self._overlay_title if self._overlay is not None
                                      else None))
        if key == self._legend_key:         # the same entries: not rebuilt
            return
        self._legend_key = key
        self.legend.clear()
        if self._node_legend:
            if self._node_title:
                self.legend.addItem(pg.PlotDataItem(pen=None), f"<b>{self._node_title}</b>")
            entries = self._node_legend
            if len(entries) > LEGEND_ENTRIES:   # hundreds of communities: each entry
                # re-lays the legend out (seconds of a frozen window), and past the palette
                # the colours repeat anyway
                entries = entries[:LEGEND_ENTRIES - 1]
            for rgb, name in entries:
                sample = Scatter(symbol="o", size=10, pen=pg.mkPen("w"),
                                 brush=pg.mkBrush(*rgb))
                self.legend.addItem(sample, name)
            if len(entries) < len(self._node_legend):
                self.legend.addItem(pg.PlotDataItem(pen=None),
                                    f"… +{len(self._node_legend) - len(entries)}")
            # at most 8 rows (4 columns): many classes or communities leave the graph seen
            self.legend.setColumnCount(min(4, max(1, -(-len(self._node_legend) // 8))))
        if self._overlay is not None and self._overlay_title:
            sample = pg.PlotDataItem(pen=pg.mkPen(OVERLAY_COLOUR, width=2.2,
                                                  style=Qt.PenStyle.DashLine))
            self.legend.addItem(sample, self._overlay_title)
        self.legend.setVisible(self._show_legend and bool(self.legend.items))

    def _make_bar(self) -> pg.ColorBarItem:
        bar = pg.ColorBarItem(values=(0.0, 1.0), width=12, colorMap=colormap("viridis"),
                              interactive=False, colorMapMenu=False, pen="#888888")
        bar.setVisible(False)
        return bar

    def _show_bar(self, bar: pg.ColorBarItem, on: bool) -> None:
        layout = self.plotItem.layout
        if on and bar not in self._bars_in_layout:
            self._bars_in_layout.append(bar)
        elif not on and bar in self._bars_in_layout:
            self._bars_in_layout.remove(bar)
        else:
            bar.setVisible(on)
            _fit_title(bar)
            return
        for b in (self.node_bar, self.edge_bar):
            if b.parentItem() is not None or b.scene() is not None:
                layout.removeItem(b)
                if b.scene() is not None:
                    b.scene().removeItem(b)
            b.setVisible(False)
        for col, b in enumerate(self._bars_in_layout):
            layout.addItem(b, 2, 5 + col)
            b.setVisible(True)
            _fit_title(b)


def _fit_title(bar: pg.ColorBarItem) -> None:
    """Give a shown colour bar's title its room. pyqtgraph sizes an axis for its label
    only while the label is visible, and a label is not while its bar is hidden: a
    title set before the bar was shown got an axis 0 px wide and was drawn over the
    bar's colours ("importance" over GNNExplainer's edge scale)."""
    if bar.isVisible():
        axis = bar.getAxis("left")
        axis.showLabel(bool(axis.labelText))
