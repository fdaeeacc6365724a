"""One step of a forward pass as a heatmap (``StepView``): the Transformer tab's
step-through, its layout worked out from its size alone."""

from __future__ import annotations

import numpy as np

from models.traces import ForwardStep
from viz.attention import MASK_COLOURS, _lines, _set_title, wrap_title
from viz.heatmap import HeatmapPlot, TokenAxis, ask_minimum, min_cell_px, short_label
from viz.theme import colormap


class StepView(HeatmapPlot):
    """One step of a forward pass (a ``ForwardStep``) as a heatmap, rows = tokens.

    Signed values are centred on 0 (blue-white-red), attention weights run 0..1
    (viridis), a mask is grey (blocked) / green (may attend). Blocked scores (-inf)
    are drawn blank. A query × key step has square cells and the plot shrinks to the
    image (no blank inside the axes); a token × feature step fills the panel.
    """

    def __init__(self, parent=None) -> None:
        super().__init__("CET-D1", parent, axisItems={"left": TokenAxis("left"),
                                                      "bottom": TokenAxis("bottom")})
        self._kind = "values"
        self.step: ForwardStep | None = None
        self._square = False
        self._margins = (0.0, 0.0, 0.0, 0.0)
        self._title = ""
        self.plotItem.vb.sigResized.connect(self._tighten)

    def set_step(self, step: ForwardStep, title: str, x_label: str) -> None:
        values = np.array(step.values, dtype=np.float32)
        values[~np.isfinite(values)] = np.nan
        if step.kind == "weights":
            cmap, levels = colormap("viridis"), (0.0, 1.0)
        elif step.kind == "mask":
            cmap, levels = MASK_COLOURS, (0.0, 1.0)
        elif step.kind == "ids":
            cmap, levels = colormap("viridis"), None
        else:
            lim = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
            cmap, levels = colormap("CET-D1"), (-(lim or 1.0), lim or 1.0)
        if step.kind != self._kind:
            self.colorbar.setColorMap(cmap)
            self._kind = step.kind
        shape_changed = values.shape != self._matrix.shape
        self.step = step
        square = bool(step.col_labels)
        if square != self._square:
            self._square = square
            self.plotItem.setAspectLocked(square)
            shape_changed = True
        self.set_matrix(values, levels, auto_range=shape_changed)
        plot = self.plotItem
        if getattr(plot, "_archscope_xlabel", None) != x_label:
            plot._archscope_xlabel = x_label
            plot.setLabel("bottom", x_label)
        self._title = title
        self._tighten()

    def _tighten(self, *_) -> None:
        """Label the axes for the cells' size on screen; for square cells, take the
        blank beside the image off the plot (as margins, the colour bar moves along).

        The layout is worked out from the viewport's size alone (``_plan``), never from
        the title row or axes as they are now: for square cells a narrower image wraps
        the title over more lines, which leaves less height, which narrows the image …
        Read back from the layout, that swung forever at 1280 × 800 (title 1-4 lines,
        the view's minimum 201-243 px, ten relayouts a second)."""
        if getattr(self, "step", None) is None:
            return
        plot = self.plotItem
        left_ax, bottom_ax = plot.getAxis("left"), plot.getAxis("bottom")
        plan = self._plan(self.viewport().width(), self.viewport().height())
        new, cw, ch, title = plan["margins"], plan["cw"], plan["ch"], plan["title"]
        left_ax.set_tokens(self.step.row_labels, ch)
        left_ax.setWidth(int(left_ax.extent()))
        # the title wrapped to the image's width (a narrow square plot clipped it)
        _set_title(plot, title, size="8pt")
        if self.step.col_labels:
            bottom_ax.set_tokens(self.step.col_labels, cw)
            bottom_ax.setHeight(int(bottom_ax.extent()) + 18)      # + the axis label
        else:
            bottom_ax.set_auto()
            bottom_ax.setHeight(None)
        self._ask_size()
        if max(abs(a - b) for a, b in zip(new, self._margins, strict=True)) > 0.5:
            self._margins = new
            plot.setContentsMargins(1 + new[0], 1 + new[1], 1 + new[2], 1 + new[3])
            plot.autoRange(padding=0)

    def _plan(self, vw: float, vh: float, cell: float | None = None) -> dict:
        """The layout of the step in a viewport ``vw`` × ``vh``: margins (left, top, right,
        bottom), the cells' width and height, the wrapped title and the height of all
        that is not the image (``extra_h``). A function of the size and the step alone:
        the axes' extents and the title's lines are taken to a fixed point from the
        largest type down, never read back from the layout. ``cell``: cells of that height
        (and width, when square) instead of what the size gives (the view's minimum)."""
        plot = self.plotItem
        left_ax, bottom_ax = plot.getAxis("left"), plot.getAxis("bottom")
        rows, cols = self._matrix.shape
        row_labels, col_labels = self.step.row_labels, self.step.col_labels
        bar = self.colorbar.geometry().width()
        big = 1e9                                   # the first guess: the largest type
        left_w = int(left_ax.extent_for(row_labels, big))
        auto_h = bottom_ax.height()                 # numbered: pyqtgraph's own height
        bottom_h = int(bottom_ax.extent_for(col_labels, big)) + 18 if col_labels else auto_h
        title_h = 20
        plan: dict = {}
        for _ in range(8):
            w = vw - left_w - bar - 5 - 2
            h = vh - title_h - bottom_h - 2
            new = (0.0, 0.0, 0.0, 0.0)
            if cell is not None:
                h = rows * cell
                if self._square:
                    w = max(w, 1.0)
                    ex = max(0.0, (w - cols * cell) / 2)
                    new = (ex, 0.0, ex, 0.0)
            elif self._square and w > 0 and h > 0:
                aspect = cols / rows
                if w / h > aspect:
                    ex = (w - h * aspect) / 2
                    new = (ex, 0.0, ex, 0.0)
                else:
                    ey = (h - w / aspect) / 2
                    new = (0.0, ey, 0.0, ey)
            cw = (w - new[0] - new[2]) / max(cols, 1)
            ch = (h - new[1] - new[3]) / max(rows, 1)
            title = wrap_title(self._title, w - new[0] - new[2], "8pt")
            plan = {"margins": new, "cw": cw, "ch": ch, "title": title,
                    "extra_h": title_h + bottom_h + 2, "extra_w": left_w + bar + 5 + 2}
            nxt = (int(left_ax.extent_for(row_labels, ch)),
                   int(bottom_ax.extent_for(col_labels, cw)) + 18 if col_labels else auto_h,
                   15 * _lines(title) + 5 if title else title_h)
            if nxt == (left_w, bottom_h, title_h):
                break
            left_w, bottom_h, title_h = nxt
        return plan

    def _ask_size(self) -> None:
        """Ask for the height (and, for square cells, the width) at which every row's
        and column's token label fits (``TokenAxis.min_cell_px``): the panel grows and
        the grid of views scrolls, rather than an axis skipping tokens. Worked out by
        ``_plan`` for cells of that size, so the answer is the same whatever size the
        view has now."""
        rows, cols = self._matrix.shape
        need_r = min_cell_px([short_label(t) for t in self.step.row_labels], True)
        need_c = min_cell_px([short_label(t) for t in self.step.col_labels], False) \
            if self.step.col_labels else 0.0
        if self._square:
            need_r = need_c = max(need_r, need_c)
        frame = 2 * self.frameWidth()
        min_h = min_w = 0
        if need_r:
            plan = self._plan(self.viewport().width(), self.viewport().height(), need_r)
            min_h = int(np.ceil(frame + plan["extra_h"] + rows * need_r))
            if need_c:
                min_w = int(np.ceil(frame + plan["extra_w"] + cols * need_c))
        ask_minimum(self, min_w if min_w > self.width() or self.minimumWidth() else 0, min_h)

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(ev)
        if getattr(self, "closed", False):      # pyqtgraph's close() cleared the scene
            return
        self._tighten()
