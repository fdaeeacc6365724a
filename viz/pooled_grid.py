"""``HeadGrid`` whose heatmaps are made ahead of time, one per event-loop turn, and kept
when the number of heads changes.

A pyqtgraph ``PlotItem`` takes 25-40 ms to make; a real model's dozen heads (and the five
maps of per-head statistics) made at once held the window still for half a second when
the first sentence arrived. ``warm(n)`` makes one more heatmap for a grid of ``n`` (call
it from a zero-interval timer while a model loads); ``set_heads`` then takes heatmaps
from the pool instead of making them, and a grid that shrinks puts its spare heatmaps
back in the pool for the next model.
"""

from __future__ import annotations

from viz.attention import HeadGrid, _square_plot


class PooledHeadGrid(HeadGrid):
    def __init__(self, parent=None) -> None:
        self._pool: list[tuple] = []          # (plot, image) not on the grid
        super().__init__(parent)

    def warm(self, n: int) -> bool:
        """Make one heatmap if fewer than ``n`` are ready; True while more are needed."""
        ready = len(self._pool) + len(getattr(self, "plots", ()))
        if ready < n:
            self._pool.append(_square_plot())
            ready += 1
        return ready < n

    def ready(self) -> int:
        return len(self._pool) + len(self.plots)

    def _make_plots(self, n: int) -> None:
        for item in [*getattr(self, "plots", ()), *(b for b, _ in getattr(self, "bars", ()))]:
            if item.scene() is not None:
                self.ci.removeItem(item)
        self._pool = list(zip(getattr(self, "plots", ()), getattr(self, "images", ()),
                              strict=True)) + self._pool
        while len(self._pool) < n:
            self._pool.append(_square_plot())
        taken, self._pool = self._pool[:n], self._pool[n:]
        self.plots = [plot for plot, _ in taken]
        self.images = [image for _, image in taken]
        for plot in self.plots:           # a reused heatmap lays out its title again
            plot._archscope_title = None
        self._placed = ()
