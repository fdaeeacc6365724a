"""The views of one ``PEGrid``: the table PE[pos, j], chosen dimensions over positions,
the similarity of positions and the scaled token embeddings with the encoding added."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.traces import PEGrid
from viz.heatmap import HeatmapPlot
from viz.plots import CurvesPlot, GroupedBarsPlot
from viz.theme import DIVERGING, SEQUENTIAL

translate = QCoreApplication.translate


def grid_meta(t: PEGrid) -> dict:
    return {"d_model": t.d_model, "max_len": t.max_len, "base": t.base, "offset": t.offset,
            "device": t.device}


class PEView(TabView):
    key = "pe"

    def build(self) -> HeatmapPlot:
        plot = HeatmapPlot(DIVERGING)
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("PositionalTab", "Encoding table PE[pos, j]")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("PositionalTab", "dimension j"),
                                  translate("PositionalTab", "position"))

    def draw(self, t: PEGrid, request) -> None:
        self.plot.set_matrix(t.pe, levels=(-1.0, 1.0))

    def _hover(self, row: int, col: int, value: float) -> None:
        self.set_readout(translate("PositionalTab", "pos {0}, dim {1}: {2:+.4f}").format(
            row, col, value) if row >= 0 else "")

    def data(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("pe", {"pe": t.pe}, grid_meta(t),
                              col_labels=[f"dim{i}" for i in range(t.d_model)])


class CurvesView(TabView):
    key = "curves"

    def build(self) -> CurvesPlot:
        plot = CurvesPlot()
        plot.scene().sigMouseMoved.connect(self._hover)
        return plot

    def title(self) -> str:
        return translate("PositionalTab", "Chosen dimensions over positions")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("PositionalTab", "position"),
                                  translate("PositionalTab", "PE value"))

    def draw(self, t: PEGrid, request) -> None:
        positions = np.arange(t.max_len, dtype=np.float32)
        self.plot.set_curves(positions, t.curves, [
            translate("PositionalTab", "dim {0}").format(d) for d in t.curve_dims])

    def _hover(self, scene_pos) -> None:
        t = self.trace
        if t is None or not len(t.curve_dims):
            return
        vb = self.plot.plotItem.vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return
        pos = int(round(vb.mapSceneToView(scene_pos).x()))
        if 0 <= pos < t.max_len:
            values = ", ".join(f"{d}: {v:+.3f}" for d, v in zip(t.curve_dims, t.curves[:, pos],
                                                                strict=True))
            self.set_readout(translate("PositionalTab", "pos {0} → {1}").format(pos, values))

    def data(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("curves_by_position", {
            "curves_by_position": t.curves.T, "curve_dims": t.curve_dims}, grid_meta(t),
            col_labels=[f"dim{d}" for d in t.curve_dims])


class SimilarityView(TabView):
    key = "similarity"

    def build(self) -> HeatmapPlot:
        plot = HeatmapPlot(SEQUENTIAL)
        plot.hovered.connect(self._hover)
        return plot

    def title(self) -> str:
        t = self.trace
        stride = int(t.sim_positions[1] - t.sim_positions[0]) \
            if t is not None and len(t.sim_positions) > 1 else 1
        if stride == 1:
            return translate("PositionalTab", "Position similarity PE·PEᵀ")
        return translate(
            "PositionalTab", "Position similarity PE·PEᵀ (positions sampled every {0})"
        ).format(stride)

    def label(self) -> None:
        self.plot.set_axis_labels(translate("PositionalTab", "position"),
                                  translate("PositionalTab", "position"))

    def draw(self, t: PEGrid, request) -> None:
        self.plot.set_matrix(t.similarity, x_values=t.sim_positions, y_values=t.sim_positions)

    def _hover(self, row: int, col: int, value: float) -> None:
        if row < 0 or self.trace is None:
            self.set_readout("")
            return
        p, q = self.trace.sim_positions[row], self.trace.sim_positions[col]
        self.set_readout(translate("PositionalTab", "PE[{0}]·PE[{1}] = {2:.3f}  (|Δ| = {3})"
                                   ).format(p, q, value, abs(int(p - q))))

    def data(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("similarity", {"similarity": t.similarity,
                                             "positions": t.sim_positions}, grid_meta(t),
                              row_labels=list(t.sim_positions),
                              col_labels=[f"pos{p}" for p in t.sim_positions])


class EmbeddingsView(TabView):
    key = "embeddings"

    def build(self) -> GroupedBarsPlot:
        return GroupedBarsPlot()

    def title(self) -> str:
        return translate("PositionalTab", "√d_model·embedding + PE, per token")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("PositionalTab", "token"),
                                  translate("PositionalTab", "RMS over dimensions"))

    def draw(self, t: PEGrid, request) -> None:
        rms = t.token_rms
        self.plot.set_bars(list(t.tokens), rms, [translate("PositionalTab", "√d·E"),
                                                 translate("PositionalTab", "PE"),
                                                 translate("PositionalTab", "√d·E + PE")])
        ratio = rms[0].mean() / max(1e-12, rms[1].mean())
        note = translate("PositionalTab", "embedding/PE size ratio ≈ {0:.1f}  (device {1})"
                         ).format(ratio, t.device)
        if t.tokens_dropped:
            note += translate("PositionalTab", "; {0} tokens beyond max_len left out").format(
                t.tokens_dropped)
        self.set_readout(note)

    def data(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("token_rms", {
            "token_rms": t.token_rms.T, "token_embedding": t.token_embedding,
            "token_pe": t.token_pe, "token_sum": t.token_sum},
            {**grid_meta(t), "init": t.embedding_init},
            row_labels=list(t.tokens), col_labels=["rms_sqrt_d_E", "rms_PE", "rms_sum"])
