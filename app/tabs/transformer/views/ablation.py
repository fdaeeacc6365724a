"""The Ablations view: one idea of the Transformer switched off, measured beside the
baseline (same seed, same input). It sees a trace's ``AblationTrace`` and owns the
switch's combo box (``choice``), which the tab reads and connects."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.tabs.view import TabView, ViewData
from models.traces import AblationTrace
from models.transformer.options import ABLATIONS
from viz.ablation_plot import Curve, PairedPlots
from viz.panel import ViewPanel

translate = QCoreApplication.translate


def switch_names() -> tuple[str, ...]:
    """The switches as the combo box names them, in ``ABLATIONS`` order."""
    return (translate("TransformerTab", "positional encoding off"),
            translate("TransformerTab", "no 1/√d_k scaling"),
            translate("TransformerTab", "no residual connections"),
            translate("TransformerTab", "BatchNorm instead of LayerNorm"))


class AblationView(TabView):
    key = "ablations"

    def build(self) -> PairedPlots:
        return PairedPlots()

    def make_panel(self, plot: PairedPlots) -> ViewPanel:
        """The two plots under a row with the switch's combo box (the panel exports the
        plots, not the combo box)."""
        host = QWidget()
        col = QVBoxLayout(host)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.choice_label = QLabel()
        self.choice = QComboBox()
        self.choice.setObjectName("AblationCombo")
        self.choice.addItems([""] * len(ABLATIONS))
        self.choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(10)
        row.addWidget(self.choice_label)
        row.addWidget(self.choice, 1)
        col.addLayout(row)
        panel = ViewPanel(plot)
        panel.layout().replaceWidget(plot, host)
        col.addWidget(plot, 1)
        return panel

    def current(self) -> str:
        return ABLATIONS[max(0, self.choice.currentIndex())]

    def label(self) -> None:
        self.choice_label.setText(translate("TransformerTab", "Switch off"))
        for i, text in enumerate(switch_names()):
            self.choice.setItemText(i, text)
        self.choice.setToolTip(translate(
            "TransformerTab",
            "Two encoder stacks with the shown model's sizes and the same seeded weights "
            "read the same input; the second has this idea switched off. Solid: baseline; "
            "dashed: ablated."))

    def title(self) -> str:
        a = self.trace
        if a is None:
            return translate("TransformerTab",
                             "Ablations: one idea switched off, beside the baseline")
        name = switch_names()[ABLATIONS.index(a.ablation)]
        return translate(
            "TransformerTab", "Ablations: {0} (dashed) beside the baseline (solid), {1} "
            "layers, d_model {2}, d_k {3}").format(name, a.layers, a.d_model, a.d_k)

    def _plot(self, index: int, x, curves: list[Curve], log_y: bool, x_label: str,
              y_label: str) -> None:
        self.plot.set_plot(index, x, curves, log_y, x_label, y_label,
                           translate("TransformerTab", "0 drawn at 10⁻⁹"))

    def draw(self, a: AblationTrace, ask) -> None:
        getattr(self, f"_draw_{a.ablation}")(a)
        self.plot.set_hint("")

    # -- one drawing per switch ---------------------------------------------------------
    def _two(self, a: AblationTrace, base: str, ablated: str, index: int, row: int = 0,
             symbol: str = "o") -> list[Curve]:
        """The baseline's curve (solid) and the ablated one's (dashed) of plot ``index``."""
        if index == 0:
            yb, ya = a.baseline, a.ablated
        else:
            yb, ya = a.baseline2[row], a.ablated2[row]
        colour = 2 * row
        return [Curve(yb, base, colour, False, symbol), Curve(ya, ablated, colour + 1, True,
                                                               symbol)]

    def _draw_no_pe(self, a: AblationTrace) -> None:
        on = translate("TransformerTab", "with PE")
        off = translate("TransformerTab", "without PE")
        self._plot(0, a.x, self._two(a, on, off, 0), True,
                   translate("TransformerTab", "depth (0 = embeddings, n = after layer n)"),
                   translate("TransformerTab", "max |f(Px) − P f(x)|"))
        self._plot(1, a.x2, self._two(a, on, off, 1), True,
                   translate("TransformerTab", "position (output of the last layer)"),
                   translate("TransformerTab", "|f(Px) − P f(x)| per position"))
        self.set_readout(translate(
            "TransformerTab",
            "Input permuted: max |f(Px) − P f(x)| = {0:.3g} with PE, {1:.2g} without "
            "(float32 rounding): without PE the encoder is permutation-equivariant.").format(
                *a.summary[:2]))

    def _draw_no_scale(self, a: AblationTrace) -> None:
        self._plot(0, a.x, self._two(a, translate("TransformerTab", "÷√d_k"),
                                     translate("TransformerTab", "not scaled"), 0, symbol="s"),
                   False, translate("TransformerTab", "largest softmax weight of a query row"),
                   translate("TransformerTab", "fraction of rows"))
        curves = (self._two(a, translate("TransformerTab", "‖∂L/∂S‖ ÷√d_k"),
                            translate("TransformerTab", "‖∂L/∂S‖ not scaled"), 1, 0)
                  + self._two(a, translate("TransformerTab", "‖∂L/∂W_q‖ ÷√d_k"),
                              translate("TransformerTab", "‖∂L/∂W_q‖ not scaled"), 1, 1, "t"))
        self._plot(1, a.x2, curves, True, translate("TransformerTab", "layer"),
                   translate("TransformerTab", "gradient norm (S: scores)"))
        self.set_readout(translate(
            "TransformerTab",
            "d_k = {0}: mean largest weight {1:.2f} → {2:.2f}; rows above 0.9: {3:.0%} → "
            "{4:.0%}; mean ‖∂L/∂S‖ {5:.3g} → {6:.3g}; mean ‖∂L/∂W_q‖ {7:.3g} → {8:.3g} "
            "(scaled → not scaled).").format(a.d_k, *a.summary[:8]))

    def _draw_no_residual(self, a: AblationTrace) -> None:
        on = translate("TransformerTab", "with residuals")
        off = translate("TransformerTab", "without residuals")
        self._plot(0, a.x, self._two(a, on, off, 0), True, translate("TransformerTab", "layer"),
                   translate("TransformerTab", "‖∂L/∂(layer input)‖"))
        self._plot(1, a.x2, self._two(a, on, off, 1), True,
                   translate("TransformerTab", "layer"),
                   translate("TransformerTab", "‖∂L/∂(layer's parameters)‖"))
        self.set_readout(translate(
            "TransformerTab",
            "Parameter-gradient norm of layer 1 / layer {0}: {1:.2f} with residuals, {2:.2f} "
            "without; ‖∂L/∂(input of layer 1)‖: {3:.3g} → {4:.3g}.").format(
                a.layers, *a.summary[:4]))

    def _draw_batchnorm(self, a: AblationTrace) -> None:
        self._plot(0, a.x, self._two(a, translate("TransformerTab", "LayerNorm"),
                                     translate("TransformerTab", "BatchNorm"), 0), True,
                   translate("TransformerTab", "padding columns added to the batch"),
                   translate("TransformerTab", "max |change| of the real tokens' outputs"))
        curves = (self._two(a, translate("TransformerTab", "mean, LayerNorm"),
                            translate("TransformerTab", "mean, BatchNorm"), 1, 0)
                  + self._two(a, translate("TransformerTab", "std, LayerNorm"),
                              translate("TransformerTab", "std, BatchNorm"), 1, 1, "t"))
        self._plot(1, a.x2, curves, False,
                   translate("TransformerTab", "position in the typed sequence, padded"),
                   translate("TransformerTab", "first Add & Norm: over features"))
        self.set_readout(translate(
            "TransformerTab",
            "With more padding in the batch the real tokens' outputs change by at most "
            "{0:.2g} with LayerNorm (rounding), {1:.3g} with BatchNorm (batch statistics "
            "include the padding).").format(*a.summary[:2]))

    def data(self) -> ViewData | None:
        a = self.trace
        if a is None:
            return None
        arrays = {"curves": np.stack([a.baseline, a.ablated], axis=1), "x": a.x,
                  "x2": a.x2, "baseline2": a.baseline2, "ablated2": a.ablated2,
                  "summary": a.summary}
        meta = {"ablation": a.ablation, "layers": a.layers, "d_model": a.d_model,
                "d_k": a.d_k, "seed": a.seed, "tokens": list(a.tokens)}
        return ViewData("curves", arrays, meta, row_labels=[float(v) for v in a.x],
                        col_labels=["baseline", "ablated"])
