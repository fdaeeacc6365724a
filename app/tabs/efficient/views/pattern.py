"""The views of the sparse pattern (a ``MaskTrace``): the mask and what it reaches, the
receptive field over layers; and of the same mask through three APIs (a
``ConventionTrace``)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.efficient.views.names import api_short, conversions, pattern_name
from app.tabs.view import TabView, ViewData
from models.traces import ConventionTrace, MaskTrace
from viz.attention import HeadGrid
from viz.plots import CurvesPlot

translate = QCoreApplication.translate


class PatternView(TabView):
    key = "pattern"

    def build(self) -> HeadGrid:
        plot = HeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        m = self.trace
        if m is None:
            return translate("EfficientTab", "Sparse pattern")
        return translate("EfficientTab", "Sparse pattern: {0}, N = {1}, density {2:.1%}"
                         ).format(pattern_name(m.kind), m.n, m.density)

    def draw(self, m: MaskTrace, request) -> None:
        labels = [str(i) for i in range(m.n)]
        self.plot.set_heads(
            np.stack([m.mask, m.reach]).astype(np.float32), labels, labels,
            [translate("EfficientTab", "mask (yellow = may attend)"),
             translate("EfficientTab", "reachable after {0} layers").format(m.layers)],
            cols=2)

    def _hover(self, tile: int, row: int, col: int, value: float) -> None:
        text = "" if tile < 0 else translate("EfficientTab", "query {0} → key {1}: {2}").format(
            row, col, translate("EfficientTab", "yes") if value >= 0.5
            else translate("EfficientTab", "no"))
        self.set_readout(text)

    def data(self) -> ViewData | None:
        m = self.trace
        return None if m is None else ViewData(
            "mask", {"mask": m.mask.astype(np.int8), "reach": m.reach.astype(np.int8)},
            {"pattern": m.kind, "n": m.n, "density": m.density, **m.params},
            row_labels=list(range(m.n)), col_labels=list(range(m.n)))


class FieldView(TabView):
    key = "field"

    def build(self) -> CurvesPlot:
        return CurvesPlot(legend="bottom-right")

    def title(self) -> str:
        return translate("EfficientTab", "Receptive field over layers")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "layers ℓ"),
                                  translate("EfficientTab", "keys"))

    def draw(self, m: MaskTrace, request) -> None:
        layers = np.arange(1, len(m.field) + 1, dtype=np.float32)
        xs, ys = [layers], [m.field]
        names = [translate("EfficientTab", "keys reached by the middle query")]
        if np.isfinite(m.field_theory).any():
            xs.append(layers)
            ys.append(m.field_theory)
            names.append(translate("EfficientTab", "span ℓ·w + 1 (dilated: ℓ·d·w + 1)"))
        xs.append(layers)
        ys.append(m.reach_fraction * m.n)
        names.append(translate("EfficientTab", "pairs connected / N"))
        self.plot.set_curves(xs, ys, names, symbols=["o", None, None])

    def data(self) -> ViewData | None:
        m = self.trace
        return None if m is None else ViewData(
            "field", {"field": m.field, "field_theory": m.field_theory,
                      "reach_fraction": m.reach_fraction}, {"pattern": m.kind, "n": m.n},
            row_labels=list(range(1, len(m.field) + 1)), col_labels=["keys reached"])


class ConventionsView(TabView):
    key = "conventions"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.note = ""        # how each API is handed the mask: the readout off the tiles

    def build(self) -> HeadGrid:
        plot = HeadGrid()
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("EfficientTab", "One mask, three APIs")

    def draw(self, c: ConventionTrace, request) -> None:
        n = c.weights.shape[1]
        labels = [str(i) for i in range(n)]
        names = api_short()
        if c.as_written:
            names[0] = translate("EfficientTab", "course, −1e9")
        titles = [f"{name}<br>" + translate("EfficientTab", "Δ {0:.0e}<br>NaN: {1}").format(
            diff, nan) for name, diff, nan in zip(names, c.max_diff, c.nan_rows, strict=True)]
        self.plot.set_heads(c.weights, labels, labels, titles, cols=3, ticks=False)
        sep = translate("EfficientTab", "; ")
        self.note = sep.join(
            translate("EfficientTab", "{0}: {1}").format(name, conv) for name, conv in
            zip(api_short(), conversions(c), strict=True)
        ) + sep + translate("EfficientTab", "opposite polarity: Δ {0}").format(
            " / ".join(f"{x:.2g}" for x in c.flipped_diff))
        if c.as_written:      # the chapter's -1e9 against our -inf and zeros
            self.note = translate(
                "EfficientTab",
                "Course's −1e9: rows {1} get 1/{2} per key (ours 0), max |Δweight| {0:.3f}"
            ).format(c.course_delta, ", ".join(map(str, c.course_rows)) or "–",
                     c.mask.shape[1]) + sep + self.note
        self.set_readout(self.note)

    def _hover(self, tile: int, row: int, col: int, value: float) -> None:
        c = self.trace
        if tile < 0 or c is None:
            self.set_readout(self.note)
            return
        self.set_readout(translate("EfficientTab", "{0} ({1}): [{2}, {3}] = {4:.4f}").format(
            api_short()[tile], conversions(c)[tile], row, col, value))

    def data(self) -> ViewData | None:
        c = self.trace
        return None if c is None else ViewData(
            "weights", {"weights": c.weights.reshape(-1, c.weights.shape[-1]),
                        "max_diff": c.max_diff, "flipped_diff": c.flipped_diff},
            {"apis": list(c.api_names), "conversions": list(c.conversions),
             "nan_rows": c.nan_rows.tolist()},
            row_labels=[f"{a}:{i}" for a in c.api_names for i in range(c.weights.shape[1])],
            col_labels=list(range(c.weights.shape[2])))
