"""Where the graph tab's views go in its grid: four columns where four views fit at
their least width, else three; laid out again only when that changes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QGridLayout, QWidget

from app.tabs.view import View
from viz.panel import MIN_WIDTH

__all__ = ["Arranger", "WIDE", "NARROW"]

#: where each view goes (row, column, rows, columns) where four columns fit: three rows,
#: all in sight at 1600 × 1000 (a fourth row, the mini-batch alone, was below the fold),
#: the graph and the messages over two rows (the messages ask the height that names every
#: neighbour); and where only three fit (1280 × 800: four would scroll sideways)
#: (the depth study's view took the ROC's place, the ROC the second half of the pooled
#: embeddings' row: the depth view's legend is as tall as the training view's beside it)
WIDE = {"graph": (0, 0, 2, 1), "messages": (0, 1, 2, 1), "embedding": (0, 2, 1, 1),
        "training": (1, 2, 1, 1), "compare": (0, 3, 1, 1), "depth": (1, 3, 1, 1),
        "communities": (2, 0, 1, 1), "batch": (2, 1, 1, 1), "pooled": (2, 2, 1, 1),
        "links": (2, 3, 1, 1)}
NARROW = {"graph": (0, 0, 2, 1), "messages": (0, 1, 1, 1), "embedding": (0, 2, 1, 1),
          "training": (1, 1, 1, 1), "compare": (1, 2, 1, 1), "communities": (2, 0, 1, 1),
          "pooled": (2, 1, 1, 1), "links": (2, 2, 1, 1), "batch": (3, 0, 1, 1),
          "depth": (3, 1, 1, 1)}
STRETCH = {True: ((5, 3, 3, 3), (3, 3, 3, 0)), False: ((5, 3, 3, 0), (3, 3, 3, 3))}


class Arranger(QObject):
    """Arranges ``views`` in ``grid`` for the width of ``viewport`` (the grid's scroll
    area's), which it watches."""

    def __init__(self, grid: QGridLayout, views: list[View], viewport: QWidget,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.grid, self.views = grid, views
        self.wide: bool | None = None
        self.arrange(0)
        viewport.installEventFilter(self)

    def arrange(self, width: int) -> None:
        """Four columns where ``width`` (the grid's visible width) holds four views at
        their least width, else three; the views move only when that changes."""
        grid = self.grid
        m = grid.contentsMargins()
        wide = width >= 4 * MIN_WIDTH + 3 * grid.horizontalSpacing() + m.left() + m.right()
        if wide == self.wide:
            return
        self.wide = wide
        places = WIDE if wide else NARROW
        for view in self.views:
            grid.removeWidget(view.panel)
        for view in self.views:
            grid.addWidget(view.panel, *places[view.key])
        columns, rows = STRETCH[wide]
        for c, stretch in enumerate(columns):
            grid.setColumnStretch(c, stretch)
        for r, stretch in enumerate(rows):
            grid.setRowStretch(r, stretch)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's API
        if event.type() == QEvent.Type.Resize:
            self.arrange(event.size().width())
        return False
