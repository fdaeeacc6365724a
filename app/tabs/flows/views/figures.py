"""The figures beside the samples: the data's density beside the learned one, training's
NLL against the entropy floor, and the mean log|det J| of each layer."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.traces import FlowResult
from viz.flow_view import DensityView
from viz.ode_view import TimelinePlot
from viz.plots import GroupedBarsPlot

translate = QCoreApplication.translate


class LearnedDensityView(TabView):
    key = "density"

    def build(self) -> DensityView:
        return DensityView()

    def title(self) -> str:
        return translate("FlowsTab", "The data's density beside the learned exp log p_θ(x) "
                         "with samples")

    def draw(self, result: FlowResult, request) -> None:
        d = result.density if result.course is None else result.course.density
        self.plot.set_densities(result.target, d.density, d.extent, result.frame,
                                d.samples[:1000])
        exact = result.target_kind == "density"
        self.plot.set_texts(
            # short: a panel's title sets its least width (a long one cut the view off)
            translate("FlowsTab", "data p(x)") if exact
            else translate("FlowsTab", "data histogram"),
            translate("FlowsTab", "model p_θ(x)") if result.course is None
            else translate("FlowsTab", "course's p(x)"), translate("FlowsTab", "density"),
            "x₁", "x₂")
        self.set_readout(translate(
            "FlowsTab", "learned mass on the grid: {0:.3f} (1 if it holds all of it)").format(
                d.mass) if result.course is None else self.course_text(result.course))

    @staticmethod
    def course_text(c) -> str:
        """The chapter's TransformedDistribution(base, layers) against the trained flow."""
        return translate(
            "FlowsTab",
            "Course's TransformedDistribution(base, layers): log p {0:.2f} vs ours {1:.2f}, "
            "Δ {2:.1f} nats/point; layers inverted, reversed: Δ {3:.0e}").format(
                c.log_p_course, c.log_p_ours, c.mean_abs_delta, c.inverted_delta)

    def data(self) -> ViewData | None:
        r = self.trace
        if r is None:
            return None
        d = r.density if r.course is None else r.course.density     # the one shown
        return ViewData("density", {"density": d.density, "target": r.target,
                                    "samples": d.samples},
                        {"extent": list(d.extent), "frame": list(r.frame), "mass": d.mass,
                         "target": r.target_kind, "as_the_course_writes_it": r.course
                         is not None},
                        row_labels=None, col_labels=None)


@dataclass(frozen=True)
class NllShown:
    """What the NLL view draws: the shown model's ``session`` (its losses so far; None
    before there is one), the data's ``entropy`` (the floor) and the untrained flow's
    NLL of the shown points (``nll0``, NaN if unknown)."""

    session: object | None
    entropy: float
    nll0: float = math.nan


class NllView(TabView):
    key = "nll"

    def build(self) -> TimelinePlot:
        return TimelinePlot()

    def title(self) -> str:
        return translate("FlowsTab", "Training: NLL against the entropy floor")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("FlowsTab", "step"),
                                  translate("FlowsTab", "nats per point"))

    def draw(self, shown: NllShown, request) -> None:
        session, entropy = shown.session, shown.entropy
        # one copy, then only the copy: a worker's divergence rollback can shorten the
        # session's list meanwhile (seen empty between the check and the read)
        losses = np.asarray(list(session.losses) if session is not None else [], np.float32)
        if not len(losses):
            self._draw_untrained(shown.nll0, entropy)
            return
        self.plot.set_hint("")
        steps = np.arange(1, len(losses) + 1, dtype=np.float32)
        window = min(50, len(losses))
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        xs, ys = [steps, steps[window - 1:]], [losses, smooth.astype(np.float32)]
        names = [translate("FlowsTab", "NLL of each batch (nats)"),
                 translate("FlowsTab", "running mean")]
        if np.isfinite(entropy):
            xs.append(np.array([1, len(losses)], np.float32))
            ys.append(np.array([entropy, entropy], np.float32))
            names.append(translate("FlowsTab", "entropy floor (the lowest NLL)"))
        self.plot.set_curves(xs, ys, names)
        below = np.isfinite(entropy) and len(smooth) and smooth[-1] < entropy - 0.05
        self.set_readout(
            translate("FlowsTab", "NLL below the entropy floor: a bug or overfitting to a "
                      "small data set")
            if below else translate("FlowsTab", "step {0}: NLL {1:.3f} nats; floor {2:.3f}"
                                    ).format(len(losses), float(smooth[-1]), entropy))

    def _draw_untrained(self, nll0: float, entropy: float) -> None:
        """Before training: the untrained flow's NLL of the shown points at step 0 and the
        floor it can reach, so the plot says where training starts and where it ends."""
        xs, ys, names, symbols, colours = [], [], [], [], []
        if math.isfinite(nll0):
            xs.append(np.zeros(1, np.float32))
            ys.append(np.array([nll0], np.float32))
            names.append(translate("FlowsTab", "untrained flow (step 0)"))
            symbols.append("o")
            colours.append(1)
        if math.isfinite(entropy):
            xs.append(np.array([0, 100], np.float32))
            ys.append(np.array([entropy, entropy], np.float32))
            names.append(translate("FlowsTab", "entropy floor (the lowest NLL)"))
            symbols.append(None)
            colours.append(2)
        self.plot.set_curves(xs, ys, names, symbols=symbols, colours=colours)
        if not xs:
            self.plot.set_hint(translate("FlowsTab", "Press “Train” to fit this flow\nby "
                                         "maximum likelihood."))
            self.set_readout("")
            return
        self.plot.set_hint("")
        self.set_readout(translate(
            "FlowsTab", "untrained: NLL {0:.4g} nats at step 0, floor {1:.4g}; press “Train” "
            "to fit the flow by maximum likelihood").format(nll0, entropy))

    def data(self) -> ViewData | None:
        """The shown model's losses as they are now (training goes on between draws)."""
        session = self.trace.session if self.trace is not None else None
        if session is None or not session.losses:
            return None
        return ViewData("nll", {"nll": np.asarray(session.losses, np.float32)},
                        {"entropy": session.entropy, "model": session.kind,
                         "data": session.data},
                        row_labels=list(range(1, len(session.losses) + 1)), col_labels=["nll"])


class LogDetView(TabView):
    key = "logdet"

    def build(self) -> GroupedBarsPlot:
        return GroupedBarsPlot()

    def title(self) -> str:
        return translate("FlowsTab", "log|det J| of each layer (mean)")

    def draw(self, result: FlowResult, request) -> None:
        trace = result.trace
        layers = trace.points.shape[0] - 1
        self.plot.set_bars([str(i + 1) for i in range(layers)], trace.logdet[None],
                           [translate("FlowsTab", "mean log|det J|")])

    def data(self) -> ViewData | None:
        r = self.trace
        if r is None:
            return None
        t = r.trace
        return ViewData("logdet", {"logdet": t.logdet, "logdet_points": t.logdet_points},
                        {"layers": list(t.layer_names), "direction": t.direction},
                        row_labels=list(t.layer_names), col_labels=["mean log|det J|"])
