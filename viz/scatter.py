"""A ``pg.ScatterPlotItem`` that finds its symbols once per style, not once per point.

pyqtgraph draws pixel-mode scatter points from an atlas of rendered symbols, one per
style (symbol, size, pen, brush). When points are set it looks each point's style up in
that atlas in Python: a tuple and four attribute reads per point, then a list of tuples
written into the points' records. For the graph canvas's 10,000 nodes that was 110 of
the 194 ms of drawing a graph's first trace on the GUI thread, and 0.6 s of the 0.9 s
for an 86,000-node graph.

Our items give all their points one pen, one brush and one symbol, and few sizes. So
``Scatter.updateSpots`` groups the new points by style first (numpy, on the objects'
identities and the sizes' bits), asks the atlas once per style, and writes the symbol
rectangles with one indexed assignment. Anything else (more than ``MAX_STYLES`` styles,
no atlas: ``pxMode`` off or the cache off) goes through pyqtgraph's own code, and so does
everything after the lookup (the atlas rebuild, the spot sizes, the invalidation).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

__all__ = ["Scatter", "MAX_STYLES"]

#: with more distinct styles than this among the new points, pyqtgraph looks them up
MAX_STYLES = 64


def _identities(column: np.ndarray) -> np.ndarray:
    return np.fromiter(map(id, column), dtype=np.int64, count=len(column))


class Scatter(pg.ScatterPlotItem):
    """``pg.ScatterPlotItem`` with the lookup above; the same API and the same picture."""

    def updateSpots(self, dataSet=None):  # noqa: N802, N803 - pyqtgraph's names
        data = self.data if dataSet is None else dataSet
        found = bool(self.opts["pxMode"] and self.opts["useCache"] and len(data)
                     and self._find_symbols(data))
        super().updateSpots(data)
        if found:
            # pyqtgraph repaints only when it looked symbols up itself; here it found
            # none left to look up (a restyle, a hover, points shown or hidden)
            self.invalidate()

    def _find_symbols(self, data: np.ndarray) -> bool:
        """Fill ``sourceRect`` of the points that have none yet (``w == 0``), as
        pyqtgraph's own ``updateSpots`` would (it then finds nothing left to look up);
        True if it did."""
        rect = data["sourceRect"]
        todo = np.flatnonzero(rect["w"] == 0)
        if len(todo) < 2:
            return False
        symbol, size, pen, brush = self._style(["symbol", "size", "pen", "brush"],
                                               data=data, idx=todo)
        # one symbol name throughout (the usual case) is one style, whatever the objects;
        # otherwise equal names held as distinct objects just make more groups
        name = symbol[0]
        if isinstance(name, str) and all(s == name for s in symbol):
            symbol_key = np.zeros(len(todo), np.int64)
        else:
            symbol_key = _identities(symbol)
        code = np.zeros(len(todo), np.int64)
        for column in (symbol_key, np.asarray(size, np.float64).view(np.int64),
                       _identities(pen), _identities(brush)):
            # column by column (1-D uniques are hashed; a 4-column ``unique(axis=0)``
            # sorts rows, 130 ms for 86,000 points)
            values, index = np.unique(column, return_inverse=True)
            if len(values) > MAX_STYLES:
                return False
            code = code * len(values) + index.ravel()
        styles, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        if len(styles) > MAX_STYLES:
            return False
        coords = self.fragmentAtlas[[(symbol[i], size[i], pen[i], brush[i]) for i in first]]
        rect[todo] = np.array([tuple(c) for c in coords], dtype=rect.dtype)[inverse.ravel()]
        return True
