"""The communities view: the normalised Laplacian's smallest eigenvalues (the eigengap
that chooses k) before anything was found, DMoN's loss live while it trains, and its
loss with the modularity of its hard assignment once done. It sees a
``CommunitiesShown``: what the communities panel holds for the graph shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.graph.views.graph import community_method_name
from app.tabs.view import TabView, ViewData
from viz.plots import CurvesPlot

translate = QCoreApplication.translate

__all__ = ["CommunitiesShown", "CommunitiesView", "community_readout"]


@dataclass(frozen=True)
class CommunitiesShown:
    """For the graph shown: DMoN's loss so far while it trains (or as it stopped; None
    otherwise), the result found (a ``CommunityResult``), the Laplacian's spectrum (once
    computed), whether the job runs, and the nodes' ids (the export's rows)."""

    live: np.ndarray | None = None
    result: Any = None
    spectrum: Any = None
    running: bool = False
    node_ids: tuple = ()

    @property
    def shows_loss(self) -> bool:
        return self.live is not None or (self.result is not None and self.result.loss.size > 0)


def community_readout(result) -> str:
    """What was found (``CommunityResult``), in a line: the panel's and the view's."""
    if result is None:
        return translate("GraphTab", "No communities yet: choose a method and press "
                                     "“Find communities”.")
    text = translate("GraphTab", "{0}: {1} communities · modularity {2:.3f}").format(
        community_method_name(result.method), result.k, result.modularity)
    if result.nmi_attribute:
        text += " · " + translate("GraphTab", "NMI against “{0}” {1:.3f}").format(
            result.nmi_attribute, result.nmi)
    if result.k_rule == "eigengap":
        text += " · " + translate("GraphTab", "k by the eigengap")
    if result.confidence is not None:
        text += " · " + translate("GraphTab", "opacity: DMoN's confidence (largest soft "
                                              "assignment)")
    return text


class CommunitiesView(TabView):
    key = "communities"

    def build(self) -> CurvesPlot:
        return CurvesPlot(legend="top-right")

    def title(self) -> str:
        if self.trace is not None and self.trace.shows_loss:
            return translate("GraphTab",
                             "Communities: DMoN's loss and modularity while it trains")
        return translate("GraphTab",
                         "Communities: the normalised Laplacian's smallest eigenvalues")

    def draw(self, shown: CommunitiesShown, request) -> None:
        """The loss curve (live while DMoN trains; with the modularity of its hard
        assignment once done) and the readout."""
        plot, result = self.plot, shown.result
        plot.set_axis_labels(translate("GraphTab", "epoch"), translate("GraphTab", "loss"),
                             translate("GraphTab", "modularity"))
        if shown.live is not None:
            loss = shown.live
            plot.set_curves([np.arange(1, len(loss) + 1, dtype=np.float32)], [loss],
                            [translate("GraphTab", "loss (spectral + collapse)")])
            plot.set_hint("")
            self.set_readout((translate("GraphTab", "Training: epoch {0}") if shown.running
                              else translate("GraphTab", "Stopped at epoch {0}: no "
                                                         "partition kept.")
                              ).format(len(loss)))
            return
        spectrum = shown.spectrum
        if result is not None and result.loss.size:
            x = np.arange(1, len(result.loss) + 1, dtype=np.float32)
            plot.set_curves([x, x], [result.loss, result.loss_modularity],
                            [translate("GraphTab", "loss (spectral + collapse)"),
                             translate("GraphTab", "modularity of the hard assignment")],
                            right=[False, True])           # two quantities: two axes
            plot.set_hint("")
        elif spectrum is not None:
            lam = spectrum.eigenvalues
            x = np.arange(1, len(lam) + 1, dtype=np.float32)
            k = spectrum.eigengap_k
            plot.set_curves([x, x[k - 1:k + 1]], [lam, lam[k - 1:k + 1]],
                            [translate("GraphTab", "eigenvalue λᵢ"),
                             translate("GraphTab", "largest gap: k = {0}").format(k)],
                            symbols=["o", "o"])
            plot.set_axis_labels("i", translate("GraphTab",
                                                "eigenvalue of the normalised Laplacian"))
            plot.set_hint("")
        else:
            plot.set_curves([], [], [])
            plot.plotItem.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.02)  # no old axes
            plot.set_hint(translate("GraphTab", "DMoN trains a GCN to maximise modularity: "
                                                "its loss is drawn here while it trains."))
        self.set_readout(community_readout(result))

    def data(self) -> ViewData | None:
        shown = self.trace
        result = shown.result if shown is not None else None
        if result is None:
            return None
        return ViewData("labels", {"labels": result.labels, "soft": result.soft,
                                   "loss": result.loss,
                                   "loss_modularity": result.loss_modularity},
                        {"method": result.method, "seed": result.seed, "k": result.k,
                         "modularity": result.modularity, "nmi": result.nmi,
                         "nmi_attribute": result.nmi_attribute, "k_rule": result.k_rule},
                        row_labels=list(shown.node_ids))


