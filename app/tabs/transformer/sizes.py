"""The Transformer tab's size study as a panel: the "Variant" form (layers, heads,
d_model, d_ff, dropout, activation, norm placement, steps), its "Train both" button, the
"sizes" job and its view (``views.sizes``).

"Train both" trains the variant and the course's baseline side by side from one seed
(``models.transformer.sizes.size_study``), on the shown architecture and task; the curves
are redrawn as they grow. Studies are kept per setting (the last 4): a study belongs to
the settings it was run with, and comes back with them. The form's values are part of the
tab's request (``size_*`` fields), so ``--set size_layers=4`` works headless, where
``--train N`` on the ``transformer.sizes`` view runs the study.
"""

from __future__ import annotations

import math
from functools import partial

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QPushButton

from app.tabs.kept import Kept
from app.tabs.transformer.views.sizes import SizeShown, SizeView
from models.transformer.options import SIZE_ACTIVATIONS, SIZE_NORMS, SIZE_RANGES
from viz.controls import Param, ParamForm

__all__ = ["JOB", "SizePanel"]

JOB = "sizes"

translate = QCoreApplication.translate


def _number(key: str, kind: str = "int", step: float = 1.0) -> Param:
    r = SIZE_RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, step=step)


SIZE_PARAMS = (
    _number("size_layers"), _number("size_heads"), _number("size_d_model", step=8),
    _number("size_d_ff", step=32), _number("size_dropout", "float", step=0.05),
    Param("size_activation", "choice", "relu", choices=SIZE_ACTIVATIONS),
    Param("size_norm", "choice", "post", choices=SIZE_NORMS),
    _number("size_steps", step=50),
)


def _job(task, architecture: str, variant: dict, steps: int, device: str):
    """``size_study`` imported in the worker."""
    from models.transformer.sizes import size_study

    yield from size_study(task, architecture, variant, steps, device)


class SizePanel(QObject):
    toggled = Signal(str)      # start or stop the job (``JOB``)

    def __init__(self, host, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.studies = Kept(4, pinned=lambda: {self.key(), self._running_key})
        self._running_key: tuple | None = None
        self.form = form = ParamForm(SIZE_PARAMS)
        form.setObjectName("SizeForm")
        self.button = QPushButton()
        self.button.setObjectName("SizeButton")
        self.button.clicked.connect(lambda: self.toggled.emit(JOB))
        form.layout().addRow(self.button)
        self.view = SizeView(self)
        form.changed.connect(self.redraw)         # at once: what was shown is another's
        # heads and d_model change together: d_model stays even and a multiple of the
        # heads (snapped before anyone hears of the change: a request of 64 over 3 heads
        # is refused, and the tab builds one on every change)
        for key in ("size_heads", "size_d_model"):
            self.form.widgets[key].valueChanged.disconnect(form.changed)
            self.form.widgets[key].valueChanged.connect(self._snap)
        self._snap(emit=False)

    def _snap(self, *_, emit: bool = True) -> None:
        """d_model to the nearest multiple of lcm(2, heads) inside its range; its spin box
        steps by that multiple."""
        heads, d_model = self.form.widgets["size_heads"], self.form.widgets["size_d_model"]
        step = math.lcm(2, heads.value())
        lo, hi = d_model.minimum(), d_model.maximum()
        snapped = min(max(step * round(d_model.value() / step), step * math.ceil(lo / step)),
                      step * (hi // step))
        d_model.blockSignals(True)
        d_model.setSingleStep(step)
        d_model.setValue(snapped)
        d_model.blockSignals(False)
        if emit:
            self.form.changed.emit()

    def key(self) -> tuple:
        """What a study depends on: the model shown (architecture, tokens, task) and the
        variant's settings."""
        return (*self.host.current_key(), *self.form.values().values())

    def values(self) -> dict:
        return self.form.values()

    def apply_state(self, state: dict) -> list[str]:
        problems = self.form.set_values(state)
        self._snap()            # (set_values is silent) snapped as typed, and the study of it
        return problems

    # -- the job ---------------------------------------------------------------------------
    def make_job(self, device: str):
        ask = self.host.request()           # checked: d_model even, a multiple of heads
        self._running_key = self.key()
        return partial(_job, self.host.session().task, ask.architecture, ask.size_values,
                       ask.size_steps, device)

    def on_progress(self, progress) -> None:
        if progress.trace is not None and self._running_key is not None:
            self.studies[self._running_key] = progress.trace
            self.redraw()

    @staticmethod
    def job_text(progress) -> str:
        return translate("TransformerTab", "Size study: step {0}/{1} · loss {2:.3f} "
                                           "(baseline {3:.3f})").format(
            progress.step, progress.total, progress.loss,
            progress.metrics.get("baseline_loss", float("nan")))

    def shown(self):
        """The trained study of the settings shown, else the trace's as initialised if it
        is of these settings (a trace computed before a change may still be shown)."""
        study = self.studies.get(self.key())
        initial = getattr(self.host.trace, "sizes", None)
        if study is None and initial is not None:
            ask = self.host.request()
            same = ((initial.architecture, initial.tokenizer, initial.task, initial.total)
                    == (ask.architecture, ask.tokenizer, ask.task, ask.size_steps)
                    and all(initial.variant[k] == v for k, v in ask.size_values.items()))
            study = initial if same else None
        return study

    def redraw(self) -> None:
        self.view.show(SizeShown(self.shown()), self.host.request())

    def retranslate(self) -> None:
        self.form.setTitle(translate("TransformerTab", "Variant"))
        self.form.set_texts(
            {"size_layers": translate("TransformerTab", "Layers per stack"),
             "size_heads": translate("TransformerTab", "Heads"),
             "size_d_model": "d_model", "size_d_ff": "d_ff",
             "size_dropout": translate("TransformerTab", "Dropout"),
             "size_activation": translate("TransformerTab", "Activation"),
             "size_norm": translate("TransformerTab", "LayerNorm"),
             "size_steps": translate("TransformerTab", "Steps")},
            {"size_activation": ["ReLU", "GELU"],
             "size_norm": [translate("TransformerTab", "post-norm (the paper's)"),
                           translate("TransformerTab", "pre-norm (GPT-2's)")]})
        self.form.widgets["size_layers"].setToolTip(translate(
            "TransformerTab", "Encoder and decoder layers each; a one-stack model gets "
                              "twice as many, as the tab's models do"))
        self.form.widgets["size_norm"].setToolTip(translate(
            "TransformerTab", "Post-norm: LayerNorm(x + F(x)). Pre-norm: x + F(LayerNorm(x)), "
                              "with a last LayerNorm after each stack"))
        self.button.setToolTip(translate(
            "TransformerTab", "Train this variant and the course's baseline (2 + 2 layers, "
                              "d_model 64, 4 heads, d_ff 128, ReLU, post-norm) side by "
                              "side from one seed"))

    def update_button(self, torch_ready: bool) -> None:
        self.button.setText(self.host.job_button_text(JOB, translate("TransformerTab",
                                                                     "Train both")))
        self.button.setEnabled(torch_ready)
