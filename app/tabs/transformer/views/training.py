"""The training curves of the shown model: loss, token error and held-out sequence error
(``TrainingShown``, which the tab reads off its model: a view never sees a live one)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from viz.plots import CurvesPlot

translate = QCoreApplication.translate


def _empty() -> np.ndarray:
    return np.zeros(0, np.float32)


@dataclass(frozen=True)
class TrainingShown:
    """What the shown model has recorded: ``vocab_size`` of its outputs (None: no model
    made yet), its steps, every step's loss and token accuracy, and the held-out sequence
    accuracy at each evaluation (step, accuracy)."""

    vocab_size: int | None = None
    step: int = 0
    losses: np.ndarray = field(default_factory=_empty)
    token_accuracy: np.ndarray = field(default_factory=_empty)
    accuracy: tuple[tuple[int, float], ...] = ()

    @classmethod
    def of(cls, session) -> TrainingShown:
        """A copy of what ``session`` (a ``Seq2SeqSession`` or None) has recorded."""
        if session is None:
            return cls()
        return cls(session.task.vocab_size, session.step,
                   np.asarray(session.losses, np.float32),
                   np.asarray(session.token_accuracy, np.float32),
                   tuple(session.accuracy_history))


class TrainingView(TabView):
    key = "training"

    def build(self) -> CurvesPlot:
        return CurvesPlot(log_y=True)

    def title(self) -> str:
        return translate("TransformerTab", "Training")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("TransformerTab", "step"),
                                  translate("TransformerTab", "loss / error (log scale)"))

    def draw(self, shown: TrainingShown, ask) -> None:
        """The model's loss, token error and held-out sequence error."""
        plot = self.plot
        if not shown.step:
            # the untrained state as it is: no steps yet, and the loss a model starts near,
            # that of a uniform guess over the output tokens (cross-entropy ln V)
            if shown.vocab_size is not None:
                v = shown.vocab_size
                plot.set_curves(
                    [np.array([0.0, 100.0], np.float32)],
                    [np.full(2, np.log(v), np.float32)],
                    [translate("TransformerTab", "uniform guess: loss ln {0} = {1:.2f}").format(
                        v, np.log(v))])
            else:
                plot.set_curves([], [], [])
            # losses run from about ln V down to 10⁻³: the line at the top, the hint below it
            plot.plotItem.setYRange(-3.0, 1.0, padding=0)
            plot.set_hint(translate(
                "TransformerTab", "Untrained: no steps yet.\nPress “Train” to train this "
                "model live."))
            return
        plot.set_hint("")
        plot.plotItem.enableAutoRange(y=True)
        losses = shown.losses
        steps = np.arange(1, len(losses) + 1, dtype=np.float32)
        acc = shown.accuracy
        xs = np.array([s for s, _ in acc], np.float32)
        # an error of 0 stays 0: drawn as a mark on the log axis's bottom edge, not as 10⁻³
        err = np.array([max(0.0, 1.0 - a) for _, a in acc], np.float32)
        tok_err = np.maximum(1.0 - shown.token_accuracy, 0.0)
        tok_steps = np.arange(1, len(tok_err) + 1, dtype=np.float32)
        plot.set_zero_label(translate("TransformerTab", "0 errors (no place on a log scale)"))
        plot.set_curves(
            [steps, tok_steps, xs], [np.maximum(losses, 1e-6), tok_err, err],
            [translate("TransformerTab", "training loss"),
             translate("TransformerTab", "token error (training batch)"),
             translate("TransformerTab", "held-out sequence error")],
            symbols=[None, None, "o"])

    def data(self) -> ViewData | None:
        shown, ask = self.trace, self.request
        if shown is None or not len(shown.losses):
            return None
        acc = shown.accuracy
        return ViewData("loss", {"loss": shown.losses,
                                 "accuracy_steps": np.array([s for s, _ in acc], np.int64),
                                 "sequence_accuracy": np.array([a for _, a in acc],
                                                               np.float32)},
                        {"task": ask.task if ask is not None else None, "steps": shown.step},
                        row_labels=list(range(1, len(shown.losses) + 1)), col_labels=["loss"])
