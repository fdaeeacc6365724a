"""GraphRNN's loss curve (a ``LossShown``: the training session's losses so far) against
the loss of knowing only the density, with the step whose weights sample."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.generation.options import GenerationRequest
from viz.graph_gallery import LossPlot

translate = QCoreApplication.translate


@dataclass(frozen=True)
class LossShown:
    """The losses of GraphRNN's session so far (none: untrained, or no session), the step
    whose weights sample, how often its self-scoring looks, and the entropy H(p) of the
    family's edge density (None before the family is made)."""

    losses: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    best_step: int = 0
    select_every: int = 0
    entropy: float | None = None


class LossView(TabView):
    """GraphRNN's loss per step and the loss of knowing only the density, H(p); a dashed
    line marks the step whose weights sample (GraphRNN's self-scoring keeps the best)."""

    key = "loss"

    def build(self) -> LossPlot:
        return LossPlot(log_y=False)

    def title(self) -> str:
        return translate("GenerationTab", "GraphRNN training loss")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("GenerationTab", "step"),
                                  translate("GenerationTab", "BCE per entry"))

    def draw(self, shown: LossShown, request: GenerationRequest | None) -> None:
        plot = self.plot
        losses = shown.losses
        n = len(losses)
        reference = shown.entropy if shown.entropy is not None else float("nan")
        ref_name = translate("GenerationTab", "density only: H(p) = {0:.3f}").format(reference)
        plot.set_hint("")
        if n == 0:
            # before training, the level to get under is all there is: drawn as the curve,
            # over the steps a Train press runs
            plot.set_reference(float("nan"), "")
            steps = float((request if request is not None else GenerationRequest()).steps)
            plot.set_curves([np.asarray([0.0, steps], np.float32)],
                            [np.full(2, reference, np.float32)], [ref_name], colours=[7])
            plot.set_markers([], [])
            self.set_readout(translate(
                "GenerationTab", "{0}: a model that knows only the density. Untrained: press "
                "“Train” to train GraphRNN (loss: binary cross-entropy of each adjacency "
                "entry).").format(ref_name) if shown.entropy is not None else "")
            return
        plot.set_reference(reference, ref_name)
        steps = np.arange(1, n + 1, dtype=np.float32)
        plot.set_curves([steps], [losses], [translate("GenerationTab", "GraphRNN loss")],
                        colours=[0])
        best = shown.best_step
        plot.set_markers([best], [translate("GenerationTab", "weights used: step {0}").format(
            best)])
        self.set_readout(translate(
            "GenerationTab", "step {0} · loss {1:.4f} · the samples use the weights of step "
            "{2}, the best of GraphRNN's own scoring every {3} steps").format(
                n, float(losses[-1]), best, shown.select_every))

    def data(self) -> ViewData | None:
        shown = self.trace
        if shown is None or not len(shown.losses):
            return None
        return ViewData("loss", {"loss": shown.losses[:, None]},
                        {"best_step": shown.best_step, "density_entropy": shown.entropy,
                         "select_every": shown.select_every},
                        row_labels=list(range(1, len(shown.losses) + 1)), col_labels=["bce"])
