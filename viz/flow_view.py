"""Samples moving through the layers of a normalizing flow.

Three panels: the data space (the points before the first layer), the points part-way
through the flow at a position t ∈ [0, L] (between layer outputs they are interpolated
linearly, so the motion is smooth), and the latent space (after the last layer). A
deformed grid is pushed through the same layers. Points are coloured by where they
started, in a few colour groups (one scatter item each: one brush per item draws 10,000
points in about 14 ms, a brush per point took twice as long).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from models.traces import FlowTrace
from viz.theme import colormap

#: points are coloured by their starting angle around the data's centre, in this many
#: groups (one ScatterPlotItem each)
COLOUR_GROUPS = 8


def _square(plot: pg.PlotItem) -> None:
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setAspectLocked(True)
    plot.showGrid(x=True, y=True, alpha=0.2)
    # a fixed tick-label width: with an aspect lock, labels that change width with the
    # range change the range again, and at some window sizes the view repainted without
    # end (958 paints in 3 idle seconds, starving the training thread)
    plot.getAxis("left").setWidth(38)


class FlowView(pg.GraphicsLayoutWidget):
    """Data | through the layers | latent. ``set_trace`` takes a ``FlowTrace`` (and
    optionally the grid's polylines through the same layers); ``set_position(t)``
    moves the middle panel to t ∈ [0, L].

    Signals:
        positionChanged(float)
    """

    positionChanged = Signal(float)
    #: the mouse drew at (x, y) in the data panel (only while drawing is on)
    drawn = Signal(float, float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plots = [self.addPlot(row=0, col=c) for c in range(3)]
        for p in self.plots:
            _square(p)
        lut = colormap("CET-C6").getLookupTable(nPts=COLOUR_GROUPS, alpha=False)
        self._brushes = [pg.mkBrush(int(r), int(g), int(b), 170) for r, g, b in lut]
        self.scatters: list[list[pg.ScatterPlotItem]] = []
        for p in self.plots:
            items = [pg.ScatterPlotItem(pxMode=True, size=3, pen=None, brush=b)
                     for b in self._brushes]
            for item in items:
                p.addItem(item)
            self.scatters.append(items)
        self.grids = [pg.PlotCurveItem(pen=pg.mkPen(120, 120, 120, 110), connect="finite")
                      for _ in self.plots]
        for p, g in zip(self.plots, self.grids, strict=True):
            p.addItem(g)
            g.setZValue(-1)
        # what the current layer does, on the canvas (e.g. "x kept · y moves ↕")
        self.note = pg.TextItem(anchor=(0, 0), color="#333333",
                                fill=pg.mkBrush(255, 255, 255, 200))
        self.note.setParentItem(self.plots[1].vb)
        self.note.setPos(4, 4)
        self.trace: FlowTrace | None = None
        self._grid: np.ndarray | None = None
        self._groups: list[np.ndarray] = []
        self.t = 0.0
        self.drawing = False
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)
        self._titles = ("", "", "")

    def set_drawing(self, on: bool) -> None:
        """While on, pressing or dragging the mouse in the data panel emits ``drawn``."""
        self.drawing = on
        self.plots[0].vb.setMouseEnabled(x=not on, y=not on)

    def show_data(self, pts: np.ndarray) -> None:
        """Points in the data panel alone (e.g. the ones being drawn), one colour."""
        for item in self.scatters[0][1:]:
            item.setData(pos=np.zeros((0, 2)))
        self.scatters[0][0].setData(pos=pts)

    def _data_point(self, scene_pos) -> tuple[float, float] | None:
        vb = self.plots[0].vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        return p.x(), p.y()

    def _on_move(self, scene_pos) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication

        if self.drawing and QApplication.mouseButtons() & Qt.MouseButton.LeftButton:
            p = self._data_point(scene_pos)
            if p is not None:
                self.drawn.emit(*p)

    def _on_click(self, event) -> None:
        if self.drawing:
            p = self._data_point(event.scenePos())
            if p is not None:
                self.drawn.emit(*p)

    def set_note(self, text: str) -> None:
        """A line on the middle panel saying what the current layer does."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def set_titles(self, data: str, middle: str, latent: str) -> None:
        self._titles = (data, middle, latent)
        for p, text in zip(self.plots, self._titles, strict=True):
            p.setTitle(text, size="9pt")

    def set_trace(self, trace: FlowTrace, grid: np.ndarray | None = None) -> None:
        """``grid``: float[L+1, m, 2] polyline points (NaN rows break the lines)."""
        self.trace = trace
        self._grid = grid
        start = trace.points[0] if trace.direction == "forward" else trace.points[-1]
        centre = np.nanmean(start, axis=0)
        angle = np.arctan2(start[:, 1] - centre[1], start[:, 0] - centre[0])
        group = ((angle + np.pi) / (2 * np.pi) * COLOUR_GROUPS).astype(int) % COLOUR_GROUPS
        self._groups = [np.flatnonzero(group == g) for g in range(COLOUR_GROUPS)]
        self._draw(0, trace.points[0], grid[0] if grid is not None else None)
        self._draw(2, trace.points[-1], grid[-1] if grid is not None else None)
        self._fit(0, trace.points[0])
        self._fit(2, trace.points[-1])
        self.set_position(min(self.t, self.layers))

    @property
    def layers(self) -> int:
        return 0 if self.trace is None else self.trace.points.shape[0] - 1

    def points_at(self, t: float) -> np.ndarray:
        """The points at position t: layer outputs interpolated linearly."""
        pts = self.trace.points
        t = float(np.clip(t, 0, self.layers))
        lo = int(np.floor(t))
        if lo >= self.layers:
            return pts[-1]
        f = t - lo
        return pts[lo] if f == 0 else (1 - f) * pts[lo] + f * pts[lo + 1]

    def set_position(self, t: float) -> None:
        if self.trace is None:
            return
        self.t = float(np.clip(t, 0, self.layers))
        grid = None
        if self._grid is not None:
            lo = min(int(np.floor(self.t)), self.layers - 1) if self.layers else 0
            f = self.t - lo
            grid = self._grid[lo] if self.layers == 0 else (
                (1 - f) * self._grid[lo] + f * self._grid[min(lo + 1, self.layers)])
        self._draw(1, self.points_at(self.t), grid)
        self.positionChanged.emit(self.t)

    def fit_middle(self) -> None:
        """Range the middle panel over every layer's points (it does not jump while
        the animation runs)."""
        if self.trace is not None:
            self._fit(1, self.trace.points.reshape(-1, 2))

    def _fit(self, panel: int, pts: np.ndarray) -> None:
        """Range a panel on the points (not on the grid, whose outer lines a trained
        flow can throw far away); the extreme 0.5 % may fall outside."""
        finite = pts[np.isfinite(pts).all(1)]
        if finite.size:
            lo, hi = np.percentile(finite, [0.5, 99.5], axis=0)
            pad = 0.08 * (hi - lo) + 1e-6
            self.plots[panel].setRange(xRange=(lo[0] - pad[0], hi[0] + pad[0]),
                                       yRange=(lo[1] - pad[1], hi[1] + pad[1]), padding=0)

    def _draw(self, panel: int, pts: np.ndarray, grid: np.ndarray | None) -> None:
        for item, idx in zip(self.scatters[panel], self._groups, strict=True):
            item.setData(pos=pts[idx])
        if grid is not None:
            self.grids[panel].setData(grid[:, 0], grid[:, 1])
        else:
            self.grids[panel].setData([], [])


class DensityPlot(pg.PlotWidget):
    """A 2D density as an image over its extent (y up), with points overlaid."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        _square(self.plotItem)
        self.plotItem.showGrid(x=False, y=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plotItem.addItem(self.image)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=12,
                                        interactive=False)
        self.colorbar.setImageItem(self.image, insert_in=self.plotItem)
        self.samples = pg.ScatterPlotItem(pxMode=True, size=3, pen=None,
                                          brush=pg.mkBrush(255, 255, 255, 150))
        self.plotItem.addItem(self.samples)
        self._density = np.zeros((1, 1), np.float32)

    def set_density(self, density: np.ndarray, extent: tuple[float, float, float, float],
                    samples: np.ndarray | None = None) -> None:
        """density: float[h, w], row 0 at y_min; extent (x0, x1, y0, y1)."""
        from PySide6.QtCore import QRectF

        d = np.ascontiguousarray(density, dtype=np.float32)
        finite = d[np.isfinite(d)]
        top = float(np.percentile(finite, 99.5)) if finite.size else 1.0
        self.image.setImage(d, autoLevels=False, levels=(0.0, top or 1.0))
        x0, x1, y0, y1 = extent
        self.image.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
        self.colorbar.setLevels((0.0, top or 1.0))
        self.samples.setData(pos=samples if samples is not None else np.zeros((0, 2)))
        self.plotItem.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self._density = d

    def density(self) -> np.ndarray:
        return self._density
