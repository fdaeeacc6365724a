"""The meta-learning views: a sinusoid being adapted to from K points, and the two
planes of a prototypical network (the input and the embedding).

``AdaptPlot`` draws the true function of a test task, its K support points (drag one
to move it, click on empty space to add one, right-click a point to remove it: the
owner re-adapts and redraws) and each method's prediction after a chosen number of
inner gradient steps, with the earlier steps as faint curves.

``ProtoPlane`` draws one plane of an episode: class regions (the class of the nearest
prototype), support points filled with their class colour, query points hollow in
their true class colour, a cross on each query classified wrong and, in the
embedding, the prototypes as large stars.

Shapes:
    x_grid: float[G]; truth: float[G]; predictions: float[M, S+1, G]; support: float[K, 2]
    regions: int[g, g]; support_xy: float[N*K, 2]; query_xy: float[Q, 2]; prototypes: float[N, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt, Signal

from viz.plane import PlanePlot, class_colour
from viz.theme import SERIES_COLOURS

TRUTH_COLOUR = "#333333"
SUPPORT_COLOUR = "#111111"
WRONG_COLOUR = "#d62728"


def method_colour(index: int, alpha: int | None = None) -> str:
    """The series colour of method ``index`` (as in the curve plots), with an alpha."""
    c = SERIES_COLOURS[index % len(SERIES_COLOURS)]
    return c if alpha is None else f"{c}{alpha:02x}"


class AdaptPlot(PlanePlot):
    """Few-shot regression: the task's curve, the support points, the adapted models."""

    #: a right-click near support point i
    removed = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent, square=False, legend=True)
        self.legend.setColumnCount(3)          # one short band along the top
        self.plotItem.getAxis("left").setWidth(38)
        self.scene().sigMouseClicked.connect(self._on_right_click)
        self._methods: tuple[str, ...] = ()

    def _on_right_click(self, event) -> None:
        if event.button() != Qt.MouseButton.RightButton:
            return
        i = self._point_at(event.scenePos())
        if i is not None:
            event.accept()
            self.removed.emit(i)

    def show_adaptation(self, x_grid: np.ndarray, truth: np.ndarray | None,
                        predictions: np.ndarray, methods: Sequence[str],
                        colours: Sequence[int], labels: Sequence[str], step: int,
                        trail: bool, support: np.ndarray, truth_label: str,
                        support_label: str) -> None:
        """Draw the predictions ``predictions[m, step]`` of the methods in ``methods``
        (layer names), coloured by ``colours`` (series indices), with steps
        0 … step−1 faint when ``trail``; the support points are the movable layer."""
        x = np.asarray(x_grid, dtype=np.float64)
        keep = ["support"]
        if truth is not None:
            self.set_lines("truth", np.stack([x, truth], 1), TRUTH_COLOUR, 2.0,
                           Qt.PenStyle.DashLine, legend=truth_label, z=1)
            keep.append("truth")
        for m, (name, c, label) in enumerate(zip(methods, colours, labels, strict=True)):
            curves = predictions[m]
            s = int(np.clip(step, 0, curves.shape[0] - 1))
            self.set_lines(f"pred_{name}", np.stack([x, curves[s]], 1), method_colour(c),
                           2.4, legend=label, z=3)
            keep.append(f"pred_{name}")
            if trail and s > 0:
                paths = [np.stack([x, curves[j]], 1) for j in range(s)]
                self.set_lines(f"trail_{name}", paths, method_colour(c, 70), 1.0, z=2)
                keep.append(f"trail_{name}")
        self.set_points("support", support, SUPPORT_COLOUR, size=11, outline="w",
                        legend=support_label, z=20)
        self.set_movable("support")
        self.keep_layers(keep)
        self._methods = tuple(methods)


class ProtoPlane(PlanePlot):
    """One plane of a prototypical-network episode (input space or embedding)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent, square=True, legend=False)

    def show_episode(self, regions: np.ndarray, extent: tuple[float, float, float, float],
                     support_xy: np.ndarray, support_y: np.ndarray, query_xy: np.ndarray,
                     query_y: np.ndarray, wrong: np.ndarray,
                     prototypes: np.ndarray | None = None) -> None:
        """``wrong``: bool[Q], the queries classified wrong (marked with a cross)."""
        self.set_image(regions, extent, classes=True)
        self.set_points("support", support_xy, classes=support_y, size=8, outline="#222222",
                        z=10)
        keep = ["support"]
        query_y = np.asarray(query_y).ravel()
        for c in np.unique(query_y):
            name = f"query_{int(c)}"
            self.set_points(name, query_xy[query_y == c], "#ffffff00", size=8,
                            outline=class_colour(int(c)), z=11)
            # a second, thicker ring reads better than a 1-px outline
            self.points[name].setPen(class_colour(int(c)), width=2)
            keep.append(name)
        wrong = np.asarray(wrong, dtype=bool).ravel()
        self.set_points("wrong", query_xy[wrong], WRONG_COLOUR, size=13, symbol="x",
                        outline=None, z=12)
        keep.append("wrong")
        if prototypes is not None:
            n = len(prototypes)
            self.set_points("prototypes", prototypes, classes=np.arange(n), size=24,
                            symbol="star", outline="#111111", z=13)
            keep.append("prototypes")
        self.keep_layers(keep)
        x0, x1, y0, y1 = extent
        # the points' box, not the raster's extent: the raster reaches beyond it, so the
        # aspect-locked plane shows regions to its edges whatever the panel's shape
        pts = [np.asarray(a, np.float64).reshape(-1, 2) for a in
               (support_xy, query_xy, prototypes if prototypes is not None else [])]
        pts = np.concatenate(pts)
        pts = pts[np.isfinite(pts).all(1)]
        if len(pts):
            lo, hi = pts.min(0), pts.max(0)
            pad = np.maximum(0.12 * (hi - lo), 0.3)
            self.set_extent((lo[0] - pad[0], hi[0] + pad[0], lo[1] - pad[1], hi[1] + pad[1]))
        else:
            self.set_extent(extent)
        self._extent = (float(x0), float(x1), float(y0), float(y1))
