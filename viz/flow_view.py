"""Samples moving through the layers of a normalizing flow.

Three panels: the data space (the points before the first layer), the points part-way
through the flow at a position t ∈ [0, L] (between layer outputs they are interpolated
linearly, so the motion is smooth), and the latent space (after the last layer). A
deformed grid is pushed through the same layers. Points are coloured by where they
started, in a few colour groups (one scatter item each: one brush per item draws 10,000
points in about 14 ms, a brush per point took twice as long). The latent panel carries
the reference the flow aims at: the contours of N(0, I) at 1, 2 and 3 σ (circles of
radius 1, 2, 3), labelled.

``DensityView`` puts the target beside the learned density: the data's true density (or
its histogram) and exp log q(x) of the flow, on one colour scale with one labelled
colour bar, the two panels ranged on the same square (not linked: two aspect-locked
views of unequal widths, linked, widened each other's range step after step).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal

from models.traces import FlowTrace
from viz.scatter import Scatter
from viz.theme import colormap

#: points are coloured by their starting angle around the data's centre, in this many
#: groups (one ScatterPlotItem each)
COLOUR_GROUPS = 8
#: the radii of the N(0, I) contours in the latent panel (1, 2, 3 standard deviations)
SIGMAS = (1.0, 2.0, 3.0)
#: the latent panel always shows at least this square (the 3 σ contour and a margin)
LATENT_HALF = 3.3
REFERENCE_COLOUR = "#303030"
#: the points' diameter on screen, in pixels
SYMBOL_SIZE = 3


def sigma_circles(radii=SIGMAS, n: int = 180) -> np.ndarray:
    """Circles of the given radii around 0 as one NaN-separated polyline, float[k, 2]."""
    a = np.linspace(0, 2 * np.pi, n)
    rings = [np.concatenate([np.stack([r * np.cos(a), r * np.sin(a)], 1),
                             np.full((1, 2), np.nan)]) for r in radii]
    return np.concatenate(rings)


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

    def __init__(self, parent=None, *, in_steps: bool = False) -> None:
        """``in_steps``: the panels are made by ``build_steps()`` (a panel per step,
        ~0.1 s in all), to be run before the view is used."""
        super().__init__(parent)
        self.plots: list[pg.PlotItem] = []
        self.scatters: list[list[pg.ScatterPlotItem]] = []
        self.grids: list[pg.PlotCurveItem] = []
        self.references: list[pg.PlotCurveItem] = []
        self.reference_labels: list[list[pg.TextItem]] = []
        self.trace: FlowTrace | None = None
        self._grid: np.ndarray | None = None
        self._groups: list[np.ndarray] = []
        self.t = 0.0
        self.drawing = False
        self._titles = ("", "", "")
        self._building = self._build()
        if not in_steps:
            for _ in self._building:
                pass

    def build_steps(self) -> Iterator[None]:
        """What is left of making the view (all of it after ``FlowView(in_steps=True)``);
        closing these steps half way leaves the rest for the next call."""
        for _ in self._building:            # (``yield from`` would close _building too)
            yield

    def _build(self) -> Iterator[None]:
        lut = colormap("CET-C6").getLookupTable(nPts=COLOUR_GROUPS, alpha=False)
        self._brushes = [pg.mkBrush(int(r), int(g), int(b), 170) for r, g, b in lut]
        grid_pen = pg.mkPen(120, 120, 120, 110)
        # N(0, I) at 1, 2, 3 σ in whichever panel is the latent one (drawn under the points)
        pen = pg.mkPen(REFERENCE_COLOUR, width=1.4, style=Qt.PenStyle.DashLine)
        circles = sigma_circles()
        for c in range(3):
            p = self.addPlot(row=0, col=c, enableMenu=False)
            _square(p)
            self.plots.append(p)
            yield
            items = [Scatter(pxMode=True, size=SYMBOL_SIZE, pen=None, brush=b)
                     for b in self._brushes]
            for item in items:
                p.addItem(item)
            self.scatters.append(items)
            g = pg.PlotCurveItem(pen=grid_pen, connect="finite")
            p.addItem(g)
            g.setZValue(-1)
            self.grids.append(g)
            ref = pg.PlotCurveItem(circles[:, 0], circles[:, 1], pen=pen, connect="finite")
            ref.setZValue(5)
            ref.setVisible(False)
            p.addItem(ref, ignoreBounds=True)
            self.references.append(ref)
            labels = []
            for r in SIGMAS:
                text = pg.TextItem(f"{r:g}σ", anchor=(0, 1), color=REFERENCE_COLOUR,
                                   fill=pg.mkBrush(255, 255, 255, 190))
                text.setPos(r * np.cos(np.pi / 4), r * np.sin(np.pi / 4))
                text.setZValue(6)
                text.setVisible(False)
                text._archscope_data_label = True    # names its circle: part of the drawing
                p.addItem(text, ignoreBounds=True)
                labels.append(text)
            self.reference_labels.append(labels)
            yield
        # what the current layer does (e.g. "x kept · y moves ↕"): a caption under the
        # panels, not a box over the points it talks about
        self.note = self.ci.addLabel("", row=1, col=0, colspan=3, size="9pt", color="#333333")
        self.scene().sigMouseMoved.connect(self._on_move)
        self.scene().sigMouseClicked.connect(self._on_click)

    def copy_steps(self, copy: FlowView, symbol_scale: float = 1.0) -> Iterator[None]:
        """Steps that make ``copy`` (e.g. a ``FlowView(in_steps=True)``), kept off screen,
        show what this view shows now (size, trace, grid, titles, axis labels, zoom and
        note), its points ``symbol_scale`` times as large: a panel or a scatter item per
        step (20,000 points take ~0.5 s in all). An export paints its frames from the
        copy while this view goes on changing (the animation, the slider, a new trace
        from training). The copy is never repainted: call its ``scene().prepareForPaint()``
        before painting it by hand."""
        trace, grid, titles, labels = self.trace, self._grid, self._titles, self.axis_labels()
        ranges = [p.vb.viewRange() for p in self.plots]
        size, note = self.size(), self.note.text

        def steps() -> Iterator[None]:
            yield from copy.build_steps()
            copy.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            copy.setUpdatesEnabled(False)   # it is only painted by hand, never repainted
            copy.set_titles(*titles)
            copy.set_axis_labels(labels)
            copy.resize(size)
            copy.show()
            yield
            copy.ci.layout.activate()       # laid out now, not at the next event-loop turn
            for items in copy.scatters:
                for item in items:
                    item.clear()             # resized while empty: cheap
                    item.setSize(SYMBOL_SIZE * symbol_scale)
            yield
            if trace is not None:
                yield from copy.trace_steps(trace, grid)
            for plot, (x, y) in zip(copy.plots, ranges, strict=True):
                plot.setRange(xRange=x, yRange=y, padding=0)
            copy.set_note(note)

        return steps()

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
        self.note.setText(text or " ")      # the row keeps its height: no jump

    def set_titles(self, data: str, middle: str, latent: str) -> None:
        self._titles = (data, middle, latent)
        for p, text in zip(self.plots, self._titles, strict=True):
            p.setTitle(text, size="9pt")

    def set_axis_labels(self, labels: list[tuple[str, str]]) -> None:
        """(bottom, left) axis labels of the three panels, left to right."""
        for p, (x, y) in zip(self.plots, labels, strict=True):
            p.setLabel("bottom", x)
            p.setLabel("left", y)

    def axis_labels(self) -> list[tuple[str, str]]:
        return [(p.getAxis("bottom").labelText, p.getAxis("left").labelText)
                for p in self.plots]

    def latent_panel(self) -> int:
        """The panel of the latent z: the last going forward, the first going inverse."""
        return 0 if self.trace is not None and self.trace.direction == "inverse" else 2

    def reference(self) -> tuple[int, np.ndarray]:
        """The panel showing the N(0, I) contours and their polyline (float[k, 2])."""
        i = self.latent_panel()
        x, y = self.references[i].getData()
        return i, np.stack([x, y], 1)

    def set_trace(self, trace: FlowTrace, grid: np.ndarray | None = None) -> None:
        """``grid``: float[L+1, m, 2] polyline points (NaN rows break the lines)."""
        for _ in self.trace_steps(trace, grid):
            pass

    def trace_steps(self, trace: FlowTrace, grid: np.ndarray | None = None) -> Iterator[None]:
        """``set_trace``, a scatter item per step."""
        self.trace = trace
        self._grid = grid
        start = trace.points[0] if trace.direction == "forward" else trace.points[-1]
        centre = np.nanmean(start, axis=0)
        angle = np.arctan2(start[:, 1] - centre[1], start[:, 0] - centre[0])
        group = ((angle + np.pi) / (2 * np.pi) * COLOUR_GROUPS).astype(int) % COLOUR_GROUPS
        self._groups = [np.flatnonzero(group == g) for g in range(COLOUR_GROUPS)]
        yield from self._draw_steps(0, trace.points[0], grid[0] if grid is not None else None)
        yield from self._draw_steps(2, trace.points[-1], grid[-1] if grid is not None else None)
        latent = self.latent_panel()
        for i in (0, 2):
            self.references[i].setVisible(i == latent)
            for label in self.reference_labels[i]:
                label.setVisible(i == latent)
            self._fit(i, trace.points[0] if i == 0 else trace.points[-1],
                      at_least=LATENT_HALF if i == latent else 0.0)
        yield from self.position_steps(min(self.t, self.layers))

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
        for _ in self.position_steps(t):
            pass

    def position_steps(self, t: float) -> Iterator[None]:
        """``set_position``, a scatter item per step (an export paints frames of 20,000
        points, ~150 ms a position, between event-loop turns)."""
        if self.trace is None:
            return
        self.t = float(np.clip(t, 0, self.layers))
        grid = None
        if self._grid is not None:
            lo = min(int(np.floor(self.t)), self.layers - 1) if self.layers else 0
            f = self.t - lo
            grid = self._grid[lo] if self.layers == 0 else (
                (1 - f) * self._grid[lo] + f * self._grid[min(lo + 1, self.layers)])
        yield from self._draw_steps(1, self.points_at(self.t), grid)
        self.positionChanged.emit(self.t)

    def fit_middle(self) -> None:
        """Range the middle panel over every layer's points (it does not jump while
        the animation runs)."""
        if self.trace is not None:
            self._fit(1, self.trace.points.reshape(-1, 2))

    def _fit(self, panel: int, pts: np.ndarray, at_least: float = 0.0) -> None:
        """Range a panel on the points (not on the grid, whose outer lines a trained
        flow can throw far away); the extreme 0.5 % may fall outside. ``at_least``: the
        range holds the square [−a, a]² too (the latent panel's 3 σ contour)."""
        finite = pts[np.isfinite(pts).all(1)]
        if finite.size:
            lo, hi = np.percentile(finite, [0.5, 99.5], axis=0)
            pad = 0.08 * (hi - lo) + 1e-6
            lo, hi = lo - pad, hi + pad
            if at_least > 0:
                lo, hi = np.minimum(lo, -at_least), np.maximum(hi, at_least)
            self.plots[panel].setRange(xRange=(lo[0], hi[0]), yRange=(lo[1], hi[1]),
                                       padding=0)

    def _draw_steps(self, panel: int, pts: np.ndarray,
                    grid: np.ndarray | None) -> Iterator[None]:
        for item, idx in zip(self.scatters[panel], self._groups, strict=True):
            item.setData(pos=pts[idx])
            yield
        if grid is not None:
            self.grids[panel].setData(grid[:, 0], grid[:, 1])
        else:
            self.grids[panel].setData([], [])


class DensityView(pg.GraphicsLayoutWidget):
    """The target density beside the learned one, on one colour scale (one colour bar,
    labelled), both on the same square, samples of the flow over the learned density.

    ``set_densities(target, learned, extent, frame, samples)``: target float[h', w']
    and learned float[h, w] (row 0 at y_min) both over ``extent``; the view shows the
    square ``frame`` (the grids reach beyond it, so an aspect-locked panel that is not
    square shows computed values, not white bands, at its sides)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plots = [self.addPlot(row=0, col=c, enableMenu=False) for c in range(2)]
        self.images = []
        for p in self.plots:
            _square(p)
            p.showGrid(x=False, y=False)
            image = pg.ImageItem(axisOrder="row-major")
            image.setZValue(-10)
            p.addItem(image)
            self.images.append(image)
        self.colorbar = pg.ColorBarItem(colorMap=colormap("viridis"), width=12,
                                        interactive=False)
        self.colorbar.setImageItem(self.images)
        # room for the tick values and the label (pyqtgraph fixes 45 px: "0.15" and the
        # label were cut at the view's edge)
        self.colorbar.getAxis("right").setWidth(62)
        self.addItem(self.colorbar, row=0, col=2)
        # the two panels equally wide: aspect-locked, a wider one showed a wider range
        # (x −1.5 … 2.5 against −1.7 … 2.7), and the two densities did not compare
        for c, stretch in ((0, 1), (1, 1), (2, 0)):
            self.ci.layout.setColumnStretchFactor(c, stretch)
        for p in self.plots:
            p.setPreferredWidth(1)
        self.samples = Scatter(pxMode=True, size=3, pen=None,
                               brush=pg.mkBrush(255, 255, 255, 150))
        self.plots[1].addItem(self.samples)
        self._target = np.zeros((0, 0), np.float32)
        self._learned = np.zeros((0, 0), np.float32)
        self._shown: list[np.ndarray] = [self._target, self._learned]
        self.levels = (0.0, 1.0)

    def set_texts(self, target: str, learned: str, colorbar: str, x: str, y: str) -> None:
        """Panel titles, the colour bar's label and the axis labels of both panels."""
        for p, title in zip(self.plots, (target, learned), strict=True):
            p.setTitle(title, size="9pt")
            p.setLabel("bottom", x)
            p.setLabel("left", y)
        self.colorbar.getAxis("right").setLabel(colorbar)

    def set_densities(self, target: np.ndarray, learned: np.ndarray,
                      extent: tuple[float, float, float, float],
                      frame: tuple[float, float, float, float] | None = None,
                      samples: np.ndarray | None = None) -> None:
        x0, x1, y0, y1 = (float(v) for v in extent)
        self._target = np.ascontiguousarray(target, dtype=np.float32)
        self._learned = np.ascontiguousarray(learned, dtype=np.float32)
        finite = [a[np.isfinite(a)] for a in (self._target, self._learned)]
        top = max((float(np.percentile(f, 99.5)) for f in finite if f.size), default=1.0)
        top = top if top > 0 else 1.0
        self.levels = (0.0, top)
        self._shown = []
        for image, values in zip(self.images, (self._target, self._learned), strict=True):
            # exp of a log-density: +inf where it overflowed (drawn saturated), NaN where
            # the flow is undefined (drawn as 0); pyqtgraph leaves such pixels transparent,
            # white stripes through the image
            shown = np.nan_to_num(values, nan=0.0, posinf=top, neginf=0.0)
            image.setImage(shown, autoLevels=False, levels=self.levels)
            image.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
            self._shown.append(shown)
        self.colorbar.setLevels(self.levels)
        self.samples.setData(pos=samples if samples is not None else np.zeros((0, 2)))
        fx0, fx1, fy0, fy1 = frame if frame is not None else (x0, x1, y0, y1)
        for p in self.plots:
            # no auto range: the learned panel's samples (an untrained flow throws some
            # far out) would widen the panel past the grid
            p.vb.disableAutoRange()
            p.setRange(xRange=(fx0, fx1), yRange=(fy0, fy1), padding=0)

    def target(self) -> np.ndarray:
        return self._target

    def density(self) -> np.ndarray:
        return self._learned

    def shown(self) -> list[np.ndarray]:
        """The arrays the two images draw (non-finite values replaced)."""
        return self._shown

    def texts(self) -> dict[str, str]:
        return {"target": self.plots[0].titleLabel.text,
                "learned": self.plots[1].titleLabel.text,
                "colorbar": self.colorbar.getAxis("right").labelText,
                "x": self.plots[0].getAxis("bottom").labelText,
                "y": self.plots[0].getAxis("left").labelText}
