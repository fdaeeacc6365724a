"""The Sizes view: a variant of the model (layers, heads, d_model, d_ff, dropout,
activation, norm placement) trained beside the course's baseline from one seed. It sees a
``SizeShown``: the study of the current settings (None before "Train both") and the
variant's sizes as set."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.traces import SizeStudy
from models.transformer.options import SIZE_EVALUATIONS as EVALUATIONS
from viz.ablation_plot import Curve, PairedPlots

translate = QCoreApplication.translate

__all__ = ["SizeShown", "SizeView", "size_text"]


@dataclass(frozen=True)
class SizeShown:
    """The study of the settings shown: trained (as far as it went), or both models as
    initialised (step 0) before "Train both"; None until the first is worked out."""

    study: SizeStudy | None


def size_text(fields: dict, architecture: str, baseline: dict | None = None) -> str:
    """"2 + 2 layers, d_model 64, 4 heads, d_ff 128, ReLU, post-norm" and the like; with
    ``baseline``, only what differs from it ("6 + 6 layers, pre-norm")."""
    def differs(*keys: str) -> bool:
        return baseline is None or any(fields[k] != baseline[k] for k in keys)

    layers = fields["num_encoder_layers"]
    parts = []
    if differs("num_encoder_layers"):
        parts.append(translate("TransformerTab", "{0} + {0} layers").format(layers)
                     if architecture == "encoder-decoder" else
                     translate("TransformerTab", "{0} layers").format(2 * layers))
    if differs("d_model"):
        parts.append(f"d_model {fields['d_model']}")
    if differs("num_heads"):
        parts.append(translate("TransformerTab", "{0} heads").format(fields["num_heads"]))
    if differs("d_ff"):
        parts.append(f"d_ff {fields['d_ff']}")
    if fields["dropout"] and differs("dropout"):
        parts.append(translate("TransformerTab", "dropout {0:g}").format(fields["dropout"]))
    if differs("activation"):
        parts.append("GELU" if fields["activation"] == "gelu" else "ReLU")
    if differs("norm_first"):
        parts.append(translate("TransformerTab", "pre-norm") if fields["norm_first"] else
                     translate("TransformerTab", "post-norm"))
    return ", ".join(parts) or translate("TransformerTab", "the baseline's own sizes")


class SizeView(TabView):
    """Left: the training loss of the baseline (solid) and of the variant (dashed), per
    step, on a log scale. Right: the share of held-out sequences each decodes right,
    at the study's evaluations. The read-out gives both models' sizes, weights and
    time per step."""

    key = "sizes"

    def build(self) -> PairedPlots:
        return PairedPlots()

    def title(self) -> str:
        s = self.trace.study if self.trace is not None else None
        if s is None:
            return translate("TransformerTab", "Model sizes: a variant beside the baseline")
        variant = size_text(s.variant, s.architecture, s.baseline)
        if not s.step:
            return translate("TransformerTab", "Model sizes: {0} (dashed) beside the "
                                               "baseline (solid), as initialised").format(variant)
        return translate(
            "TransformerTab", "Model sizes: {0} (dashed) beside the baseline (solid), step "
            "{1} of {2}").format(variant, s.step, s.total)

    def draw(self, shown: SizeShown, ask) -> None:
        s, plot = shown.study, self.plot
        base = translate("TransformerTab", "baseline")
        variant = translate("TransformerTab", "variant")
        if s is None:
            for i in range(2):
                plot.set_plot(i, np.zeros(0), [], False, "", "")
            plot.set_hint(translate(
                "TransformerTab", "Building the variant and the baseline as initialised…"))
            plot.set_hint("", 1)
            self.set_readout("")
            return
        plot.set_hint("")
        plot.set_hint("" if len(s.evals) else translate(
            "TransformerTab", "Decoded every {0} steps while they train").format(
            max(1, s.total // EVALUATIONS)), 1)
        steps = np.arange(1, s.step + 1, dtype=np.float32) if s.step else np.zeros(1, np.float32)
        dot = None if s.step else "o"                     # as initialised: one point each
        plot.set_plot(0, steps, [Curve(s.losses[0], base, 0, False, dot),
                                 Curve(s.losses[1], variant, 1, True, dot)], True,
                      translate("TransformerTab", "step"),
                      translate("TransformerTab", "training loss (log scale)"),
                      translate("TransformerTab", "0 drawn at 10⁻⁹"))
        evals = s.evals
        plot.set_plot(1, evals[:, 0], [Curve(evals[:, 1], base, 0, False, "o"),
                                       Curve(evals[:, 2], variant, 1, True, "t")]
                      if len(evals) else [], False,
                      translate("TransformerTab", "step"),
                      translate("TransformerTab", "held-out sequences right"))
        if not s.step:        # as initialised: the axes the training will fill
            for box, (lo, hi) in zip(plot.plots, ((-3.0, 1.0), (0.0, 1.0)), strict=True):
                box.getAxis("bottom").setTicks(None)   # not one tick per point: 0 alone
                box.setXRange(0, s.total, padding=0.02)
                box.setYRange(lo, hi, padding=0.02)    # the loss's in log₁₀: 10⁻³ to 10
        self.set_readout(self._readout(s))

    @staticmethod
    def _readout(s: SizeStudy) -> str:
        """Baseline → variant: weights, time a step, the last loss and held-out score."""
        ms = s.ms_per_step
        if not s.step:
            return translate(
                "TransformerTab", "As initialised, baseline → variant: {0:,} → {1:,} weights "
                "· loss on the first batch {2:.3g} → {3:.3g}. Press “Train both” to train "
                "them {4} steps side by side.").format(
                s.params[0], s.params[1], s.losses[0, 0], s.losses[1, 0], s.total)
        text = translate(
            "TransformerTab", "Baseline → variant: {0:,} → {1:,} weights · {2:.1f} → {3:.1f} "
            "ms a step (CPU {4:.1f} → {5:.1f}) · loss at step {6}: {7:.3g} → {8:.3g}").format(
            s.params[0], s.params[1], ms[0], ms[1], ms[2], ms[3], s.step, s.losses[0, -1],
            s.losses[1, -1])
        if len(s.evals):
            text += " · " + translate(
                "TransformerTab", "held-out sequences right: {0:.0%} → {1:.0%}").format(
                s.evals[-1, 1], s.evals[-1, 2])
        return text + " · " + translate("TransformerTab", "baseline: {0}").format(
            size_text(s.baseline, s.architecture))

    def data(self) -> ViewData | None:
        s = self.trace.study if self.trace is not None else None
        if s is None:
            return None
        table = np.concatenate([s.losses, s.token_accuracy]).T
        meta = {"architecture": s.architecture, "task": s.task, "tokenizer": s.tokenizer,
                "baseline": s.baseline, "variant": s.variant,
                "weights": list(s.params), "steps": s.step, "total": s.total,
                "ms_per_step": [float(v) for v in s.ms_per_step], "seed": s.seed,
                "evals": s.evals.tolist()}
        return ViewData("curves", {"curves": table, "evals": s.evals}, meta,
                        row_labels=list(range(1, s.step + 1)) if s.step else [0],
                        col_labels=["baseline_loss", "variant_loss",
                                    "baseline_token_accuracy", "variant_token_accuracy"])
