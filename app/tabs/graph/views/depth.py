"""The depth study's view, one grid cell showing either over-smoothing layer by layer
(Dirichlet energy and mean pairwise distance of the run and of the baseline, overlaid) or
test accuracy against depth (``GraphRequest.depth_show``). It sees a ``DepthShown``: the
study drawn (trained once "Depth study" ran, else as initialised) and why there is none."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.graphs.options import MAX_DEPTH, GraphRequest
from models.traces.graphs import DepthStudy
from viz.plots import CurvesPlot, _TickLevelsAxis

translate = QCoreApplication.translate

__all__ = ["DepthShown", "DepthView", "kind_name"]


@dataclass(frozen=True)
class DepthShown:
    """The study drawn (None: none could be made, ``error`` says why)."""

    study: DepthStudy | None
    error: str = ""


def kind_name(kind: str) -> str:
    return {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT"}.get(kind, kind)


def run_name(study: DepthStudy) -> str:
    """"GCN, 8 layers, unnormalised" and the like."""
    name = translate("GraphTab", "{0}, {1} layers").format(kind_name(study.kind), study.depth)
    if study.kind == "gcn" and not study.normalize:
        name += translate("GraphTab", ", not normalised")
    return name


def baseline_name(study: DepthStudy) -> str:
    return translate("GraphTab", "baseline of {0} layers").format(study.baseline_depth)


def state_text(study: DepthStudy) -> str:
    return (translate("GraphTab", "as initialised") if study.epoch == 0 else
            translate("GraphTab", "after {0} epochs").format(study.epoch))


def _log10(a: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > 0, np.log10(np.where(a > 0, a, 1.0)), np.nan).astype(np.float32)


def _set_log_y(plot: CurvesPlot, on: bool) -> None:
    """The plot's y axes (left and right) logarithmic or not."""
    if plot._log[1] != on:
        plot.set_curves([], [], [])          # no curve drawn in the other mode meanwhile
        plot.plotItem.setLogMode(x=False, y=on)
        plot._log = (False, on)
        plot.plotItem.getAxis("right").enableAutoSIPrefix(not on)


class DepthView(TabView):
    """Per layer ℓ (0 = the input features): the Dirichlet energy (left) and the mean
    pairwise distance (right) of the run and of the baseline, both on log scales (the
    right box holds log₁₀ of the distance; its axis, in the plot's log mode, reads it as
    the distance itself). Or: test accuracy of a model of each depth 1…8 trained alike
    (the run's kind and normalisation), with the run and the baseline marked."""

    key = "depth"

    def build(self) -> CurvesPlot:
        plot = CurvesPlot(log_y=True, legend="bottom-left")
        plot.legend.setColumnCount(2)
        # the right axis in the plot's log mode ticked as the left one: powers of ten, the
        # 2·10ⁿ … 9·10ⁿ labelled only where they do not crowd
        plot.plotItem.setAxisItems({"right": _TickLevelsAxis("right")})
        plot._right_box()
        right = plot.plotItem.getAxis("right")
        right.setLogMode(False, True)
        right.enableAutoSIPrefix(False)
        right.setStyle(textFillLimits=[(0, 0.35)])
        return plot

    def title(self) -> str:
        if self.request is not None and self.request.depth_show == "accuracy":
            return translate("GraphTab", "Test accuracy against depth")
        return translate("GraphTab", "Over-smoothing: energy and distance per layer")

    def draw(self, shown: DepthShown, ask: GraphRequest) -> None:
        plot, s = self.plot, shown.study
        layers = ask.depth_show == "layers"
        _set_log_y(plot, layers)
        if s is None:
            plot.set_curves([], [], [])
            plot.set_hint(shown.error)
            self.set_readout(shown.error)
            return
        plot.set_hint("")
        if layers:
            self._draw_layers(s)
        else:
            self._draw_accuracy(s, ask)

    def _draw_layers(self, s: DepthStudy) -> None:
        plot = self.plot
        plot.set_zero_label(translate("GraphTab", "energy 0"))
        plot.set_axis_labels(translate("GraphTab", "layer (0 = input)"),
                             translate("GraphTab", "Dirichlet energy E"),
                             translate("GraphTab", "mean distance d"))
        run, base = np.arange(s.depth + 1), np.arange(s.baseline_depth + 1)
        # short: the legend shares a grid cell with the plot (L: the model's layers)
        energy = translate("GraphTab", "E, L = {0}")
        distance = translate("GraphTab", "d, L = {0}")
        plot.set_curves(
            [run, base, run, base],
            [s.energy, s.baseline_energy, _log10(s.distance), _log10(s.baseline_distance)],
            [energy.format(s.depth), energy.format(s.baseline_depth),
             distance.format(s.depth), distance.format(s.baseline_depth)],
            symbols=["o", "o", "t", "t"], colours=[0, 1, 2, 3],
            right=[False, False, True, True])
        plot.plotItem.setXRange(0, max(s.depth, s.baseline_depth), padding=0.05)
        self.set_readout(translate(
            "GraphTab", "{0} · last layer: E {1:.3g} (baseline {2:.3g}), d {3:.3g} "
                        "(baseline {4:.3g}) · E = ½ Σ_(i,j)∈E ‖xᵢ/√(1+dᵢ) − xⱼ/√(1+dⱼ)‖², "
                        "d = mean ‖xᵢ − xⱼ‖").format(
            state_text(s), s.energy[-1], s.baseline_energy[-1], s.distance[-1],
            s.baseline_distance[-1]))

    def _draw_accuracy(self, s: DepthStudy, ask: GraphRequest) -> None:
        plot = self.plot
        plot.set_zero_label("")
        plot.set_axis_labels(translate("GraphTab", "layers"),
                             translate("GraphTab", "test accuracy"))
        xs, ys, names, colours = [], [], [], []
        if len(s.depths):
            xs.append(s.depths.astype(np.float32))
            ys.append(s.depth_test_acc)
            names.append(translate("GraphTab", "{0}, {1} epochs each").format(
                kind_name(s.kind) + ("" if s.normalize or s.kind != "gcn" else
                                     translate("GraphTab", ", not normalised")), s.epoch))
            colours.append(2)
        xs += [np.array([s.depth], np.float32), np.array([s.baseline_depth], np.float32)]
        ys += [np.array([s.test_acc], np.float32), np.array([s.baseline_test_acc], np.float32)]
        names += [run_name(s) + " (" + state_text(s) + ")", baseline_name(s)]
        colours += [0, 1]
        plot.set_curves(xs, ys, names, symbols=["o"] * len(xs), colours=colours)
        plot.plotItem.setXRange(1, MAX_DEPTH, padding=0.05)
        plot.plotItem.setYRange(0, 1, padding=0.02)
        if not len(s.depths):
            self.set_readout(translate(
                "GraphTab", "Press “Depth study” to train a model of every depth 1–{0} "
                            "({1} epochs each).").format(MAX_DEPTH, ask.epochs))
        else:
            best = int(s.depths[int(np.nanargmax(s.depth_test_acc))]) \
                if np.isfinite(s.depth_test_acc).any() else 0
            self.set_readout(translate(
                "GraphTab", "{0} of {1} depths trained · best: {2} layers").format(
                len(s.depths), MAX_DEPTH, best) + (" · " + s.note if s.note else ""))

    def data(self) -> ViewData | None:
        s = self.trace.study if self.trace is not None else None
        if s is None:
            return None
        meta = {"model": s.kind, "depth": s.depth, "gcn_norm": s.normalize,
                "baseline_depth": s.baseline_depth, "epochs": s.epoch,
                "test_acc": s.test_acc, "baseline_test_acc": s.baseline_test_acc}
        if self.request.depth_show == "accuracy":
            return ViewData("accuracy", {"accuracy": s.depth_test_acc.reshape(-1, 1),
                                         "depths": s.depths}, meta,
                            row_labels=[int(d) for d in s.depths],
                            col_labels=["test_accuracy"])
        rows = max(s.depth, s.baseline_depth) + 1
        table = np.full((rows, 4), np.nan, np.float32)
        for c, values in enumerate((s.energy, s.distance, s.baseline_energy,
                                    s.baseline_distance)):
            table[:len(values), c] = values
        return ViewData("per_layer", {"per_layer": table}, meta,
                        row_labels=list(range(rows)),
                        col_labels=["energy", "distance", "baseline_energy",
                                    "baseline_distance"])
