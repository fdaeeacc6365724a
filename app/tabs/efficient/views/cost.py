"""The views of the cost: in theory (a ``CostTheory``), and the time and peak memory
measured on the device (a ``Measured``: the measurement, or None before one)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.efficient.params import QUICK_BUDGET_S, QUICK_NS
from app.tabs.efficient.views.names import method_name
from app.tabs.view import TabView, ViewData
from models.efficient_attention.options import EfficientRequest
from models.traces import CostTrace
from models.traces.efficient import CostTheory
from viz.plots import CurvesPlot

translate = QCoreApplication.translate


@dataclass(frozen=True)
class Measured:
    """What the measured views show: the measurement (None: nothing measured yet), whether
    it is the quick first one, and the note of one opened from a session (None: measured
    here)."""

    cost: CostTrace | None
    quick: bool = False
    session_note: str | None = None


class TheoryView(TabView):
    key = "theory"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_x=True, log_y=True, legend="top-left")

    def title(self) -> str:
        return translate("EfficientTab", "Cost in theory (one head)")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "sequence length N"),
                                  translate("EfficientTab", "FLOPs"))

    def draw(self, th: CostTheory, request: EfficientRequest | None) -> None:
        from models.efficient_attention import theory_crossover

        ask = request if request is not None else EfficientRequest()
        names = [method_name(m) for m in th.methods]
        self.plot.set_curves([th.n] * len(th.methods), list(th.flops), names)
        self.plot.set_hint("")
        self.set_readout(translate(
            "EfficientTab", "Performer is cheaper than exact attention from N = 2m = {0:g} (FLOPs)"
        ).format(theory_crossover(ask.cost_m)))

    def data(self) -> ViewData | None:
        th = self.trace
        if th is None:
            return None
        return ViewData("flops", {"flops": th.flops, "memory_floats": th.memory, "n": th.n},
                        {"methods": list(th.methods)}, row_labels=list(th.methods),
                        col_labels=th.n.tolist())


class MeasuredView(TabView):
    """Time or peak memory (``which``) against N, one curve per method measured."""

    which = "seconds"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_x=True, log_y=True, legend="top-left")

    def draw(self, shown: Measured, request) -> None:
        t = shown.cost
        if t is None:
            self.plot.set_curves([], [], [])
            self.plot.set_hint(translate(
                "EfficientTab", "Press “Measure time and memory”\nto time each method\non this device."))
            self.set_readout("")
            return
        note = translate(
            "EfficientTab", "A quick first measurement (N ≤ {0}, {1:g} s budget); press “Measure "
            "time and memory” for more.").format(max(QUICK_NS), QUICK_BUDGET_S) \
            if shown.quick else translate("EfficientTab", "Measured on {0}.").format(t.device)
        self.set_readout(shown.session_note or note)    # one opened from a session
        xs, ys, labels = [], [], []
        for i, name in enumerate(t.methods):
            rows = (t.measured_method == i) & np.isfinite(t.seconds)
            if rows.any():
                xs.append(t.measured_n[rows].astype(np.float32))
                ys.append(t.seconds[rows] if self.which == "seconds"
                          else np.maximum(t.peak_bytes[rows], 1.0))
                labels.append(method_name(name))
        self.plot.set_hint("")
        self.plot.set_curves(xs, ys, labels, symbols=["o"] * len(xs))

    def data(self) -> ViewData | None:
        t = self.trace.cost if self.trace is not None else None
        if t is None:
            return None
        table = np.stack([t.measured_n.astype(np.float64), t.measured_method,
                          t.seconds, t.peak_bytes], axis=1)
        return ViewData("measurements", {"measurements": table},
                        {"device": t.device, "d": t.d, "methods": list(t.methods),
                         "status": list(t.status), **t.params},
                        row_labels=[t.methods[i] for i in t.measured_method],
                        col_labels=["n", "method", "seconds", "peak_bytes"])


class TimeView(MeasuredView):
    key = "time"
    which = "seconds"

    def title(self) -> str:
        return translate("EfficientTab", "Measured time")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "sequence length N"),
                                  translate("EfficientTab", "s per call"))


class MemoryView(MeasuredView):
    key = "memory"
    which = "peak_bytes"

    def title(self) -> str:
        return translate("EfficientTab", "Measured peak memory")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("EfficientTab", "sequence length N"),
                                  translate("EfficientTab", "peak bytes"))
