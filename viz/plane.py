"""A 2D plane drawn in layers: the view behind the neural-ODE and meta-learning tabs.

``PlanePlot`` holds, bottom to top:

* an **image** over an extent: a continuous field with a colour bar (a density, a class
  probability) or integer class regions tinted with the categorical palette (decision
  regions, the Voronoi cells of prototypes);
* a **vector field**: one arrow per grid point, all arrows one ``connect="pairs"`` curve
  (shaft and two barbs per arrow), lengths scaled so the longest fills 90 % of a cell;
* named **line layers**: any number of polylines (trajectories, curves) in one curve
  item per layer (NaN-separated), one pen each;
* named **point layers**: a scatter per layer, one colour or a class per point.

Layers are created on first use and reused (``set_lines``/``set_points`` with the same
name update in place; an empty array hides a layer). A layer given a ``legend`` name
appears in the legend.

Mouse: a left click in the plot emits ``clicked(x, y)`` in data coordinates; pressing
on a point of the layer made ``movable`` and dragging it emits ``moved(i, x, y)`` as it
moves (the plot does not move the point itself: the owner redraws it); elsewhere a
drag pans as usual.

Shapes:
    image: float[h, w] or int[h, w], row 0 at y_min; extent (x0, x1, y0, y1)
    field: x, y, u, v float[m]; lines: float[n, T, 2] or a list of float[T_i, 2]
    points: float[n, 2], classes int[n]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor

from viz.legend import keep_clear
from viz.plots import LabelledPlot
from viz.scatter import Scatter
from viz.theme import LEGEND_BORDER, PALETTE, SERIES_COLOURS, colormap

REGION_ALPHA = 70          # class regions: the palette colour this opaque over white
GRAB_PX = 10.0             # a press this close to a movable point grabs it
ARROW_BARB = 0.3           # barb length as a fraction of the arrow
ARROW_ANGLE = np.deg2rad(25.0)


def class_colour(i: int) -> str:
    return PALETTE[int(i) % len(PALETTE)]


class _PlaneViewBox(pg.ViewBox):
    """A view box that lets its plot take a drag that starts on a movable point."""

    def __init__(self, owner: PlanePlot, **kw) -> None:
        super().__init__(**kw)
        self._owner = owner
        self._grabbed: int | None = None

    def mouseDragEvent(self, ev, axis=None):  # noqa: N802 - pyqtgraph's API
        if ev.button() != Qt.MouseButton.LeftButton:
            return super().mouseDragEvent(ev, axis)
        if ev.isStart():
            self._grabbed = self._owner._point_at(ev.buttonDownScenePos())
        if self._grabbed is None:
            return super().mouseDragEvent(ev, axis)
        ev.accept()
        p = self.mapSceneToView(ev.scenePos())
        self._owner.moved.emit(self._grabbed, float(p.x()), float(p.y()))
        if ev.isFinish():
            self._grabbed = None
        return None


class PlanePlot(LabelledPlot):
    """Image, vector field, line layers and point layers on one plane (see the module)."""

    clicked = Signal(float, float)
    moved = Signal(int, float, float)

    def __init__(self, parent=None, square: bool = True, legend: bool = True) -> None:
        super().__init__(parent, viewBox=_PlaneViewBox(self))
        item = self.plotItem
        item.showGrid(x=True, y=True, alpha=0.2)
        if square:
            item.setAspectLocked(True)
        # a fixed tick-label width: with an aspect lock, labels that change width with the
        # range change the range again (see viz.flow_view._square)
        item.getAxis("left").setWidth(38)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(-10)
        item.addItem(self.image)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=12,
                                        interactive=False)
        self.colorbar.setImageItem(self.image, insert_in=item)
        self.colorbar.setVisible(False)
        self._colorbar_label = ""
        self.field = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen("#4a4a4a", width=1))
        self.field.setZValue(-5)
        item.addItem(self.field)
        self.legend = (item.addLegend(offset=(10, 10), labelTextSize="8pt",
                                      brush=pg.mkBrush(255, 255, 255, 210),
                                      pen=pg.mkPen(LEGEND_BORDER)) if legend else None)
        if self.legend is not None:       # over no point, line or image: else below
            keep_clear(item, self.legend)
        self.lines: dict[str, pg.PlotCurveItem] = {}
        self.points: dict[str, pg.ScatterPlotItem] = {}
        self._legend_names: dict[str, str] = {}
        self._legend_items: dict[str, object] = {}
        self.movable: str | None = None
        self._image = np.zeros((0, 0), np.float32)
        self._extent: tuple[float, float, float, float] | None = None
        self.scene().sigMouseClicked.connect(self._on_click)

    # -- the image ------------------------------------------------------------------------
    def set_colorbar_label(self, text: str) -> None:
        """What the colour bar measures (e.g. "density p_t(x)"), beside its values."""
        if text == self._colorbar_label:
            return                  # a new label lays the plot out again: not every frame
        self._colorbar_label = text
        axis = self.colorbar.getAxis("right")
        axis.setLabel(text)
        # room for the values and the label (pyqtgraph fixes 45 px, labels were cut)
        axis.setWidth(62 if text else 45)

    def colorbar_label(self) -> str:
        return self._colorbar_label

    def set_axis_labels(self, x: str, y: str) -> None:
        if (x, y) != self.axis_labels():     # a new label lays the plot out again
            super().set_axis_labels(x, y)

    def axis_labels(self) -> tuple[str, str]:
        """The (bottom, left) axis labels."""
        return (self.plotItem.getAxis("bottom").labelText,
                self.plotItem.getAxis("left").labelText)

    def set_image(self, values: np.ndarray, extent: tuple[float, float, float, float],
                  cmap: str = "viridis", levels: tuple[float, float] | None = None,
                  classes: bool = False) -> None:
        """A continuous image (with a colour bar; ``levels`` default: 0 … 99.5th
        percentile; NaN and ±inf drawn as the low and high ends, where pyqtgraph would
        leave them transparent) or, with ``classes``, integer regions tinted by class
        (−1: none)."""
        x0, x1, y0, y1 = (float(v) for v in extent)
        if classes:
            ids = np.asarray(values, dtype=np.int64)
            lut = np.zeros((len(PALETTE) + 1, 4), np.uint8)
            lut[0] = (255, 255, 255, 0)
            for i, c in enumerate(PALETTE):
                q = QColor(c)
                lut[i + 1] = (q.red(), q.green(), q.blue(), REGION_ALPHA)
            rgba = lut[np.where(ids < 0, 0, ids % len(PALETTE) + 1)]
            self.image.setImage(rgba, autoLevels=False, levels=(0, 255))
            # again: pyqtgraph 0.14 keeps the previous levels (the colour bar's 0 … 1) on
            # the first RGBA image, and every tinted pixel saturated to opaque white
            self.image.setLevels((0, 255))
            self.colorbar.setVisible(False)
            self._image = ids.astype(np.float32)
        else:
            d = np.ascontiguousarray(values, dtype=np.float32)
            if levels is None:
                finite = d[np.isfinite(d)]
                top = float(np.percentile(finite, 99.5)) if finite.size else 1.0
                low = float(min(0.0, finite.min())) if finite.size else 0.0
                levels = (low, top if top > low else low + 1.0)
            self.colorbar.setColorMap(colormap(cmap))
            shown = np.nan_to_num(d, nan=levels[0], posinf=levels[1], neginf=levels[0])
            self.image.setImage(shown, autoLevels=False, levels=levels)
            self.colorbar.setLevels(levels)
            self.colorbar.setVisible(True)
            self._image = d
        self.image.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
        self.image.setVisible(True)
        self._extent = (x0, x1, y0, y1)

    def clear_image(self) -> None:
        self.image.setVisible(False)
        self.colorbar.setVisible(False)
        self._image = np.zeros((0, 0), np.float32)

    def image_values(self) -> np.ndarray:
        return self._image

    # -- the vector field --------------------------------------------------------------------
    def set_field(self, x: np.ndarray, y: np.ndarray, u: np.ndarray, v: np.ndarray,
                  colour: str = "#4a4a4a") -> None:
        """Arrows from (x, y) along (u, v), scaled together: the longest is 90 % of the
        grid spacing, so relative speeds read directly. Empty arrays hide the field."""
        x, y, u, v = (np.asarray(a, dtype=np.float64).ravel() for a in (x, y, u, v))
        if x.size == 0:
            self.field.setData([], [])
            return
        ux, uy = np.unique(x), np.unique(y)
        cell = min(np.diff(ux).min() if ux.size > 1 else 1.0,
                   np.diff(uy).min() if uy.size > 1 else 1.0)
        speed = np.hypot(u, v)
        top = float(np.nanmax(speed)) if np.isfinite(speed).any() else 0.0
        scale = 0.9 * cell / top if top > 0 else 0.0
        dx, dy = np.nan_to_num(u * scale), np.nan_to_num(v * scale)
        tx, ty = x + dx, y + dy
        segs = [np.stack([x, y, tx, ty], 1)]
        angle = np.arctan2(dy, dx)
        length = ARROW_BARB * np.hypot(dx, dy)
        for sign in (1, -1):
            a = angle + np.pi - sign * ARROW_ANGLE
            segs.append(np.stack([tx, ty, tx + length * np.cos(a), ty + length * np.sin(a)], 1))
        pts = np.concatenate(segs).reshape(-1, 2)
        self.field.setPen(pg.mkPen(colour, width=1))
        self.field.setData(pts[:, 0], pts[:, 1])

    def field_arrows(self) -> int:
        xs = self.field.getData()[0]
        return 0 if xs is None else len(xs) // 6

    # -- lines and points -------------------------------------------------------------------
    def _register(self, name: str, item, legend: str | None) -> None:
        if self.legend is None:
            return
        if self._legend_names.get(name) != legend:
            if legend:
                self._legend_names[name] = legend
                self._legend_items[name] = item
            else:
                self._legend_names.pop(name, None)
                self._legend_items.pop(name, None)
            # rebuilt from scratch: a removed entry otherwise leaves its width and height
            # behind (the legend's grid layout keeps the sizes of its emptied cells)
            self.legend.clear()
            for key, text in self._legend_names.items():
                self.legend.addItem(self._legend_items[key], text)
        self.legend.setVisible(bool(self._legend_names))     # no empty box

    def set_lines(self, name: str, paths, colour: str = SERIES_COLOURS[0], width: float = 1.5,
                  style: Qt.PenStyle = Qt.PenStyle.SolidLine, legend: str | None = None,
                  z: float = 0.0) -> None:
        """Polylines of layer ``name``: float[n, T, 2], float[T, 2] or a list of
        float[T_i, 2]; drawn as one item, NaN-separated."""
        if isinstance(paths, np.ndarray) and paths.ndim == 2:
            paths = [paths]
        chunks = []
        for p in paths:
            p = np.asarray(p, dtype=np.float64).reshape(-1, 2)
            if len(p):
                chunks += [p, np.full((1, 2), np.nan)]
        xy = np.concatenate(chunks) if chunks else np.zeros((0, 2))
        item = self.lines.get(name)
        pen = pg.mkPen(colour, width=width, style=style)
        if item is None:
            item = pg.PlotCurveItem(connect="finite", pen=pen)
            item.setZValue(z)
            self.plotItem.addItem(item)
            self.lines[name] = item
        item.setPen(pen)
        item.setData(xy[:, 0], xy[:, 1])
        item.setVisible(len(xy) > 0)
        self._register(name, item, legend if len(xy) else None)

    def set_points(self, name: str, xy: np.ndarray, colour: str = SERIES_COLOURS[0],
                   classes: np.ndarray | None = None, size: float = 6.0,
                   symbol: str = "o", outline: str | None = "w", legend: str | None = None,
                   z: float = 10.0) -> None:
        """Points of layer ``name`` in one colour, or coloured by ``classes`` (int[n])."""
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        item = self.points.get(name)
        pen = pg.mkPen(outline, width=1) if outline else pg.mkPen(None)
        if item is None:
            item = Scatter(pxMode=True)
            item.setZValue(z)
            self.plotItem.addItem(item)
            self.points[name] = item
        if classes is not None:
            brushes = [pg.mkBrush(c) for c in PALETTE]
            brush = [brushes[int(c) % len(PALETTE)] for c in np.asarray(classes).ravel()]
        else:
            brush = pg.mkBrush(colour)
        item.setData(pos=xy, size=size, symbol=symbol, pen=pen, brush=brush)
        item.setVisible(len(xy) > 0)
        self._register(name, item, legend if len(xy) else None)

    def layer_points(self, name: str) -> np.ndarray:
        item = self.points.get(name)
        if item is None or not item.isVisible():
            return np.zeros((0, 2))
        x, y = item.getData()
        return np.stack([x, y], 1)

    def keep_layers(self, names: Sequence[str]) -> None:
        """Hide every line and point layer not named in ``names`` (and its legend entry)."""
        for name, item in {**self.lines, **self.points}.items():
            if name not in names:
                item.setVisible(False)
                self._register(name, item, None)

    def set_movable(self, name: str | None) -> None:
        """Points of layer ``name`` can be dragged (``moved`` signal); None: none."""
        self.movable = name

    def set_extent(self, extent: tuple[float, float, float, float], padding: float = 0.0) -> None:
        x0, x1, y0, y1 = extent
        self._box = (x1 - x0) / (y1 - y0) if self.fit_box and y1 > y0 and x1 > x0 else None
        self._fit_box()
        self.plotItem.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=padding)

    #: a square plane shrinks its whole plot (axes with it) to the extent's shape, as
    #: matplotlib's ``set_aspect("equal", adjustable="box")``, instead of widening the
    #: range: a vector field computed over its extent then fills its axes (it covered the
    #: middle of a wide panel, the axes running on past it)
    fit_box = False

    def _fit_box(self) -> None:
        item, vb = self.plotItem, self.plotItem.vb
        if not getattr(self, "_box_watched", False):
            # the view box also changes shape inside the same plot (a legend taking
            # room below it): fitted again then, once the event loop turns
            self._box_watched = True
            vb.sigResized.connect(self._box_drifted)
        self._box_fitting = True
        try:
            self._fit_box_now(item, vb)
        finally:
            self._box_fitting = False

    def _fit_box_now(self, item, vb) -> None:
        full = self.viewport().rect()
        aspect = getattr(self, "_box", None)
        if not aspect or full.width() < 20 or full.height() < 20:
            if item.geometry() != QRectF(full):
                item.setGeometry(QRectF(full))
            return
        item.setGeometry(QRectF(full))
        item.layout.activate()
        other_w, other_h = item.width() - vb.width(), item.height() - vb.height()
        w, h = full.width() - other_w, full.height() - other_h
        if w > aspect * h:
            w = aspect * h
        else:
            h = w / aspect
        size = (w + other_w, h + other_h)
        item.setGeometry(QRectF((full.width() - size[0]) / 2, (full.height() - size[1]) / 2,
                                *size))

    def _box_drifted(self, *_) -> None:
        aspect = getattr(self, "_box", None)
        item = getattr(self, "plotItem", None)
        if (not aspect or item is None or getattr(self, "_box_pending", False)
                or getattr(self, "_box_fitting", False)):
            return
        vb = item.vb
        if abs(vb.width() - aspect * vb.height()) > 1.0:
            self._box_pending = True

            def refit() -> None:
                self._box_pending = False
                if getattr(self, "plotItem", None) is not None and not getattr(
                        self, "closed", False):
                    self._fit_box()
            # (the plot as the timer's context: a plot deleted meanwhile is not refitted;
            # without it, CI saw "Internal C++ object (PlanePlot) already deleted")
            QTimer.singleShot(0, self, refit)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt's API
        super().resizeEvent(ev)
        if getattr(self, "_box", None) and getattr(self, "plotItem", None) is not None:
            self._fit_box()

    # -- the mouse ------------------------------------------------------------------------
    def _point_at(self, scene_pos) -> int | None:
        """The movable point within ``GRAB_PX`` pixels of a scene position."""
        if self.movable is None:
            return None
        pts = self.layer_points(self.movable)
        if not len(pts):
            return None
        vb = self.plotItem.vb
        px = vb.viewPixelSize()
        p = vb.mapSceneToView(scene_pos)
        d = np.hypot((pts[:, 0] - p.x()) / px[0], (pts[:, 1] - p.y()) / px[1])
        i = int(np.argmin(d))
        return i if d[i] <= GRAB_PX else None

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        vb = self.plotItem.vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        if self._point_at(event.scenePos()) is not None:
            return                              # a click on a movable point: not a new one
        p = vb.mapSceneToView(event.scenePos())
        self.clicked.emit(float(p.x()), float(p.y()))

    def export_arrays(self) -> dict[str, np.ndarray]:
        """Every drawn layer's data (for Export data)."""
        out: dict[str, np.ndarray] = {}
        for name, item in self.lines.items():
            x, y = item.getData()
            if item.isVisible() and x is not None:
                out[f"lines_{name}"] = np.stack([x, y], 1)
        for name in self.points:
            if self.points[name].isVisible():
                out[f"points_{name}"] = self.layer_points(name)
        if self._image.size:
            out["image"] = self._image
        return out

