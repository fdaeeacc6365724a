"""The views of chunked attention with an online softmax (a ``ChunkedTrace``): that its
output equals exact attention for every chunk size, how the running max and sum of one
query row evolve chunk by chunk; and the peak memory of exact and chunked attention
measured against N (a ``ChunkMemoryTrace``)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.traces.efficient import ChunkedTrace, ChunkMemoryTrace
from viz.plots import CurvesPlot

translate = QCoreApplication.translate


def mask_name(kind: str) -> str:
    return {"none": translate("EfficientTab", "no mask"),
            "causal": translate("EfficientTab", "causal"),
            "padding": translate("EfficientTab", "padding")}.get(kind, kind)


class ChunkEqualView(TabView):
    key = "chunk_equal"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_x=True, log_y=True, legend="top-left")

    def title(self) -> str:
        c = self.trace
        if c is None:
            return translate("EfficientTab", "Chunked = exact attention")
        return translate("EfficientTab", "Chunked (c = {0}) = exact attention, N = {1}, {2}: "
                         "max |Δ| {3:.1e}").format(c.chunk, c.n, mask_name(c.mask_kind),
                                                   max(c.diff_exact, c.diff_sdpa))

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "chunk size c"),
                                  translate("EfficientTab", "max |chunked − exact|"))

    def draw(self, c: ChunkedTrace, request) -> None:
        x = c.sweep_chunks.astype(np.float32)
        self.plot.set_curves([x, x, x], [*c.sweep_diff, np.full(x.shape, 1e-6, np.float32)],
                             [translate("EfficientTab", "against the app's exact attention"),
                              translate("EfficientTab", "against F.scaled_dot_product_attention"),
                              translate("EfficientTab", "tolerance 1e-6")],
                             symbols=["o", "t", None])
        self.plot.set_zero_label(translate("EfficientTab", "exactly 0"))
        self.set_readout(translate(
            "EfficientTab", "c = {0}: max |Δ| = {1:.1e} (app's exact), {2:.1e} (SDPA); "
            "float32 rounding, for every c tried, dividing N or not").format(
                c.chunk, c.diff_exact, c.diff_sdpa))

    def data(self) -> ViewData | None:
        c = self.trace
        return None if c is None else ViewData(
            "max_abs_diff", {"max_abs_diff": c.sweep_diff, "chunk": c.sweep_chunks},
            {"n": c.n, "d": c.d, "mask": c.mask_kind, "seed": c.seed},
            row_labels=["exact_attention", "F.scaled_dot_product_attention"],
            col_labels=c.sweep_chunks.tolist())


class OnlineView(TabView):
    key = "online"

    def build(self) -> CurvesPlot:
        return CurvesPlot(legend="bottom-right")

    def title(self) -> str:
        c = self.trace
        if c is None:
            return translate("EfficientTab", "Online softmax, chunk by chunk")
        return translate("EfficientTab", "Online softmax of query {0}, chunk by chunk "
                         "(c = {1})").format(c.row, c.chunk)

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "keys seen"),
                                  translate("EfficientTab", "score · max m · factor α"),
                                  translate("EfficientTab", "running sum l"))

    def draw(self, c: ChunkedTrace, request) -> None:
        x = c.step_end
        own = np.where(np.isfinite(c.step_chunk_max), c.step_chunk_max, np.nan)
        self.plot.set_curves(
            [x] * 4, [c.step_m, own, c.step_alpha, c.step_l],
            [translate("EfficientTab", "max m so far"),
             translate("EfficientTab", "chunk's own max"),
             translate("EfficientTab", "α = e^(m − m_new)"),
             translate("EfficientTab", "sum l (right)")],
            symbols=["o", "x", "t", "s"], right=[False, False, False, True])
        self.set_readout(translate(
            "EfficientTab", "After the last chunk: m = {0:.4f}, l = {1:.4f}; from the whole "
            "row: max = {2:.4f}, Σ e^(s − max) = {3:.4f}").format(
                float(c.step_m[-1]), float(c.step_l[-1]), c.row_max, c.row_sum))

    def data(self) -> ViewData | None:
        c = self.trace
        if c is None:
            return None
        table = np.stack([c.step_end, c.step_m, c.step_l, c.step_chunk_max, c.step_alpha],
                         axis=1)
        return ViewData("steps", {"steps": table},
                        {"row": c.row, "chunk": c.chunk, "n": c.n, "row_max": c.row_max,
                         "row_sum": c.row_sum},
                        row_labels=list(range(1, len(c.step_end) + 1)),
                        col_labels=["keys_seen", "m", "l", "chunk_max", "alpha"])


class ChunkMemoryView(TabView):
    key = "chunk_memory"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_x=True, log_y=True, legend="top-left")

    def title(self) -> str:
        m = self.trace
        if m is None:
            return translate("EfficientTab", "Peak memory: exact against chunked")
        return translate("EfficientTab", "Peak memory measured: exact against chunked "
                         "(c = {0}, d = {1})").format(m.chunk, m.d)

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "sequence length N"),
                                  translate("EfficientTab", "peak bytes"))

    def draw(self, m: ChunkMemoryTrace, request) -> None:
        x = m.n.astype(np.float32)
        self.plot.set_curves(
            [x] * 4, [m.exact_bytes, m.chunked_bytes, m.exact_scores_bytes,
                      m.chunk_scores_bytes],
            [translate("EfficientTab", "exact, measured"),
             translate("EfficientTab", "chunked, measured"),
             translate("EfficientTab", "N×N scores (4·N² bytes)"),
             translate("EfficientTab", "N×c scores (4·N·c bytes)")],
            symbols=["o", "o", None, None], colours=[0, 1, 0, 1])
        last = int(np.flatnonzero(np.isfinite(m.chunked_bytes))[-1]) \
            if np.isfinite(m.chunked_bytes).any() else -1
        self.set_readout(translate(
            "EfficientTab", "Measured with torch's profiler (allocations − frees). N = {0}: "
            "exact {1:.1f} MiB, chunked {2:.2f} MiB").format(
                int(m.n[last]), m.exact_bytes[last] / 2 ** 20,
                m.chunked_bytes[last] / 2 ** 20) if last >= 0 else translate(
            "EfficientTab", "Too many chunks to measure: pick a larger chunk."))

    def data(self) -> ViewData | None:
        m = self.trace
        if m is None:
            return None
        table = np.stack([m.n.astype(np.float64), m.exact_bytes, m.chunked_bytes,
                          m.exact_scores_bytes, m.chunk_scores_bytes], axis=1)
        return ViewData("peak_bytes", {"peak_bytes": table},
                        {"chunk": m.chunk, "d": m.d, "how": m.how},
                        row_labels=m.n.tolist(),
                        col_labels=["n", "exact", "chunked", "exact_scores", "chunk_scores"])
