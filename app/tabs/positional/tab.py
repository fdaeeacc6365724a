"""The positional-encoding explorer: the sinusoidal table, its wavelengths, the
similarity of positions, the relative-position map M_k (exact and learned) and the
encoding added to scaled token embeddings."""

from __future__ import annotations

from functools import partial

import numpy as np
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
)

from app.tabs.base import TabContext
from app.tabs.positional import state as session_state
from app.tabs.positional.params import DEFAULTS, FIT_STEPS, RANGES, RELATIVE_MODES
from app.tabs.positional.views import (
    CurvesView,
    EmbeddingsView,
    FitShown,
    FitView,
    PEView,
    RelativeView,
    SimilarityView,
)
from app.tabs.training import TrainingTab
from models.traces import OffsetFitTrace, PEGrid, Progress
from models.transformer.options import EMBEDDING_INITS, PositionalRequest, parse_dims
from viz.controls import SliderField
from viz.theme import error_style

__all__ = ["PositionalTab", "parse_dims"]


class PositionalTab(TrainingTab):
    """The explorer; its one job ("train", started by the Learn button, which is the
    training base's Train button) learns M_k by gradient descent."""

    key = "positional"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.trace: PEGrid | None = None
        self.fit: OffsetFitTrace | None = None
        self.fit_history = np.zeros(0, np.float32)
        self.fit_errors: list[tuple[int, float]] = []
        self._build_controls()
        self._build_views()
        self.retranslate()

    # -- construction ----------------------------------------------------------------
    # long: the four boxes of controls top to bottom, as they appear
    def _build_controls(self) -> None:
        lay = self.controls_layout
        self.box_encoding = QGroupBox()
        form = QVBoxLayout(self.box_encoding)
        self.d_model = SliderField(*_limits("d_model"), step=2)
        self.max_len = SliderField(*_limits("max_len"))
        self.base = SliderField(*_limits("base"), log=True)
        for w in (self.d_model, self.max_len, self.base):
            form.addWidget(w)
        lay.addWidget(self.box_encoding)

        self.box_curves = QGroupBox()
        form = QFormLayout(self.box_curves)
        self.dims = QLineEdit(DEFAULTS["dims"])
        self.dims.setObjectName("DimsEdit")
        self.dims_label = QLabel()
        self.dims_note = QLabel()
        self.dims_note.setWordWrap(True)
        self.dims_note.setStyleSheet(error_style())
        form.addRow(self.dims_label, self.dims)
        form.addRow(self.dims_note)
        lay.addWidget(self.box_curves)

        self.box_relative = QGroupBox()
        col = QVBoxLayout(self.box_relative)
        self.offset = SliderField(0, DEFAULTS["max_len"] - 1, DEFAULTS["offset"])
        self.relative_mode = QComboBox()
        self.relative_mode.addItems(["", "", ""])
        self.learn_button = self.train_button     # the base starts and stops the job
        self.learn_button.setObjectName("LearnButton")
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        col.addWidget(self.offset)
        col.addWidget(self.relative_mode)
        col.addWidget(self.error_label)
        col.addWidget(self.learn_button)
        col.addWidget(self.error_note)
        lay.addWidget(self.box_relative)

        self.box_embed = QGroupBox()
        form = QFormLayout(self.box_embed)
        self.sentence = QLineEdit(DEFAULTS["sentence"])
        self.sentence.setObjectName("SentenceEdit")
        self.init = QComboBox()
        self.init.addItems(["", ""])
        self.sentence_label = QLabel()
        self.init_label = QLabel()
        form.addRow(self.sentence_label, self.sentence)
        form.addRow(self.init_label, self.init)
        lay.addWidget(self.box_embed)
        lay.addStretch(1)
        for combo in (self.relative_mode, self.init):   # long items must not widen the panel
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(16)

        for w in (self.d_model, self.max_len, self.base, self.offset):
            w.valueChanged.connect(self._params_changed)
        self.max_len.valueChanged.connect(lambda v: self.offset.set_maximum(max(0, v - 1)))
        self.dims.editingFinished.connect(self.schedule_update)
        self.sentence.editingFinished.connect(self.schedule_update)
        self.init.currentIndexChanged.connect(self.schedule_update)
        self.relative_mode.currentIndexChanged.connect(self._show_relative)

    def _build_views(self) -> None:
        self.pe_view, self.curves_view = PEView(self), CurvesView(self)
        self.similarity_view, self.relative_view = SimilarityView(self), RelativeView(self)
        self.fit_view, self.embeddings_view = FitView(self), EmbeddingsView(self)
        self.tab_views = (self.pe_view, self.curves_view, self.similarity_view,
                          self.relative_view, self.fit_view, self.embeddings_view)
        for i, view in enumerate(self.tab_views):
            self.add_view(view, i // 3, i % 3)
            view.status.connect(self.ctx.status)
        for c in range(3):
            self.grid.setColumnStretch(c, 1)

    # -- translations --------------------------------------------------------------------
    def retranslate(self) -> None:
        self.box_encoding.setTitle(self.tr("Encoding"))
        self.d_model.set_label(self.tr("d_model"))
        self.max_len.set_label(self.tr("max_len"))
        self.base.set_label(self.tr("base"))
        self.box_curves.setTitle(self.tr("Curves"))
        self.dims_label.setText(self.tr("Dimensions"))
        self.dims.setToolTip(self.tr("Comma-separated dimensions or ranges, e.g. 0, 1, 8-11"))
        self.box_relative.setTitle(self.tr("Relative position"))
        self.offset.set_label(self.tr("offset k"))
        for i, text in enumerate((self.tr("Show the exact M_k"), self.tr("Show the learned W"),
                                  self.tr("Show W − M_k"))):
            self.relative_mode.setItemText(i, text)
        self.box_embed.setTitle(self.tr("Token embeddings"))
        self.sentence_label.setText(self.tr("Sentence"))
        self.init_label.setText(self.tr("Initialisation"))
        self.init.setItemText(0, self.tr("N(0, 1) (nn.Embedding default)"))
        self.init.setItemText(1, self.tr("N(0, 1/d_model) (typical when tied to the output layer)"))
        super().retranslate()
        for view in self.tab_views:
            view.label()
        if self.trace is not None:
            self.show_trace(self.trace)
        else:
            self._show_relative()
            self._redraw_fit()
            for view in (self.pe_view, self.curves_view, self.similarity_view,
                         self.embeddings_view):
                view.redraw()

    def update_buttons(self) -> None:
        """The Learn button says what it does (the base words it for training)."""
        super().update_buttons()
        self.learn_button.setText(self.tr("Stop learning") if self.running()
                                  else self.tr("Learn M_k by gradient descent"))

    # -- parameters --------------------------------------------------------------------
    def params(self) -> dict:
        return {"d_model": int(self.d_model.value()), "max_len": int(self.max_len.value()),
                "base": float(self.base.value()), "offset": int(self.offset.value()),
                "dims": self.dims.text(), "sentence": self.sentence.text(),
                "init": EMBEDDING_INITS[max(0, self.init.currentIndex())],
                "relative_mode": RELATIVE_MODES[max(0, self.relative_mode.currentIndex())]}

    def request(self) -> PositionalRequest:
        """The controls as the models' request (the offset below max_len, as the fit and
        the map use it)."""
        p = self.params()
        return PositionalRequest.from_values({**p, "offset": min(p["offset"], p["max_len"] - 1)})

    def apply_state(self, state: dict, strict: bool = False) -> None:
        """Set controls from a dict (tour steps, saved settings, ``--set``)."""
        if strict:
            self._check_state(state)
        if "d_model" in state:
            self.d_model.setValue(float(state["d_model"]))
        if "max_len" in state:
            self.max_len.setValue(float(state["max_len"]))
        if "base" in state:
            self.base.setValue(float(state["base"]))
        if "offset" in state:
            self.offset.setValue(float(state["offset"]))
        if "dims" in state:
            self.dims.setText(str(state["dims"]))
        if "sentence" in state:
            self.sentence.setText(str(state["sentence"]))
        if state.get("init") in EMBEDDING_INITS:
            self.init.setCurrentIndex(EMBEDDING_INITS.index(state["init"]))
        if state.get("learn") and not self.running():
            self.toggle_job("train")
        if state.get("relative_mode") in RELATIVE_MODES:
            self.relative_mode.setCurrentIndex(RELATIVE_MODES.index(state["relative_mode"]))
        self.schedule_update()

    def _check_state(self, state: dict) -> None:
        from models.errors import InvalidParameterError

        known = set(DEFAULTS) | {"learn"}
        unknown = sorted(set(state) - known)
        if unknown:
            raise InvalidParameterError(
                f"Unknown parameter {', '.join(unknown)}; known: {', '.join(sorted(known))}.")
        fields = {"d_model": self.d_model, "max_len": self.max_len, "base": self.base,
                  "offset": self.offset}
        for key, field in fields.items():
            if key in state:
                try:
                    value = float(state[key])
                except (TypeError, ValueError):
                    raise InvalidParameterError(f"{key} must be a number, got "
                                                f"'{state[key]}'.") from None
                if key == "offset":
                    limit = float(state.get("max_len", self.max_len.value())) - 1
                    problem = None if 0 <= value <= limit else f"must be between 0 and {limit:g}"
                else:
                    problem = field.problem(value)
                if problem:
                    raise InvalidParameterError(f"{key} = {state[key]} {problem}.")
        if "init" in state and state["init"] not in EMBEDDING_INITS:
            raise InvalidParameterError("init must be 'normal' or 'scaled'.")
        if "relative_mode" in state and state["relative_mode"] not in RELATIVE_MODES:
            raise InvalidParameterError(f"relative_mode must be one of {RELATIVE_MODES}.")

    def restore_state(self) -> None:
        """The saved controls, each checked as a ``--set`` value is (a number, finite, in
        its control's range and step; offset below the restored max_len; a known choice;
        text that parses). A value that fails keeps its default and is rejected, for the
        window's note (``Settings.reject``)."""
        from models.errors import InvalidParameterError

        saved = self.ctx.settings.tab_state(self.key)
        state: dict = {}
        for key, default in DEFAULTS.items():       # max_len before offset
            if key not in saved:
                continue
            value = saved[key]
            if isinstance(default, str) and isinstance(value, list):
                value = ", ".join(map(str, value))  # an INI value with an unquoted comma
            try:
                if isinstance(default, str):
                    if not isinstance(value, str) or not self._text_ok(key, value, state):
                        raise InvalidParameterError(key)
                else:
                    self._check_state({**state, key: value})
                    value = type(default)(float(value))
            except (InvalidParameterError, TypeError, ValueError, OverflowError):
                self.ctx.settings.reject(f"tabs/{self.key}/{key}")
                continue
            state[key] = value
        self.apply_state(state)

    def _text_ok(self, key: str, text: str, state: dict) -> bool:
        if key == "dims":
            d_model = int(state.get("d_model", DEFAULTS["d_model"]))
            return len(text) <= self.dims.maxLength() and not parse_dims(text, d_model)[1]
        if key == "sentence":
            return bool(text.strip()) and len(text) <= self.sentence.maxLength()
        return text in (EMBEDDING_INITS if key == "init" else RELATIVE_MODES)

    def save_state(self) -> None:
        self.ctx.settings.set_tab_state(self.key, self.params())

    # -- session files: the controls and the fit shown (``session_state``) ----------
    def session_inputs(self) -> tuple[dict, dict]:
        return session_state.inputs(self)

    def open_session_state(self, state, name: str) -> None:
        session_state.open_state(self, state, name)

    def _params_changed(self, *_):
        if self.stop_jobs():
            self.ctx.status(self.tr("Learning stopped: the encoding parameters changed."))
        if self.fit is not None and not self.fit.matches(*self._fit_key()):
            self._clear_fit()   # a W learned for other parameters would mislead
        self.schedule_update()

    def _fit_key(self) -> tuple[int, int, float, int]:
        ask = self.request()
        return ask.d_model, ask.max_len, ask.base, max(1, ask.offset)

    def _clear_fit(self) -> None:
        self.fit, self.fit_errors = None, []
        self.fit_history = np.zeros(0, np.float32)
        self._redraw_fit()

    def compute_fn(self):
        from models.transformer import pe_grid  # torch is loaded by now

        ask = self.request()
        problems = ask.ignored_dims
        self.dims_note.setText(self.tr("Ignored (not a dimension below d_model): {0}").format(
                ", ".join(problems)) if problems else "")
        return partial(pe_grid, ask, device=self.ctx.device())

    # -- drawing -----------------------------------------------------------------------
    def show_trace(self, t: PEGrid) -> None:
        self.trace = t
        ask = self.request()
        for view in (self.pe_view, self.curves_view, self.similarity_view,
                     self.embeddings_view):
            view.show(t, ask)
        self._show_relative()
        # the fit's start and floor follow the table; a fit opened from a session before
        # the table of its parameters arrived is drawn now (it stayed blank)
        self._redraw_fit()

    def _fit_shown(self) -> FitShown:
        return FitShown(self.trace, self.fit, self.fit_history, tuple(self.fit_errors),
                        FIT_STEPS, self.running())

    def _show_relative(self, *_):
        t = self.trace
        if t is None:
            self.relative_view.panel.set_title(self.relative_view.title())
            return
        self.relative_view.show(self._fit_shown(), self.request())
        self.error_label.setText(self.tr("max |M_k·PE[pos] − PE[pos+k]| over {0} positions: {1:.2e}").format(
                len(t.offset_error), t.offset_max_error))

    # -- the learning job (run by the TrainingTab base) -----------------------------------------
    def make_job(self, name: str):
        """Learn M_k from scratch for the shown parameters (None: nothing to learn)."""
        from models.transformer import offset_fit

        ask = self.request()
        if ask.offset < 1 or ask.max_len < 2:
            self.ctx.status(self.tr("Nothing to learn for k = 0: M_0 is the identity. Choose an offset k ≥ 1."))
            return None
        self._clear_fit()
        return partial(offset_fit, ask, FIT_STEPS, device=self.ctx.device())

    def job_text(self, name: str, progress: Progress) -> str:
        return self.tr("Learning M_k: step {0}/{1} · loss {2:.2e} · max error {3:.2e} · {4:.0f} steps/s"
        ).format(progress.step, progress.total, progress.loss,
                 progress.metrics["max_prediction_error"], progress.metrics["steps_per_s"])

    def job_fraction(self, name: str, progress: Progress) -> float:
        return progress.fraction

    def on_job_progress(self, name: str, progress: Progress) -> None:
        self.fit = progress.trace
        self.fit_history = progress.history
        self.fit_errors.append((progress.step, progress.metrics["max_prediction_error"]))
        self._redraw_fit()
        if self.request().relative_mode != "analytic":
            self._show_relative()

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        """Nothing to recompute: the fit is drawn as it arrives, the encoding is unchanged."""

    def _redraw_fit(self) -> None:
        self.fit_view.show(self._fit_shown(), None)


def _limits(key: str) -> tuple[float, float, float]:
    """A slider's (minimum, maximum, default) from the request's ranges."""
    r = RANGES[key]
    return r.minimum, r.maximum, r.default
