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

from app.tabs.base import TabContext, View, ViewData
from app.tabs.positional import state as session_state
from app.tabs.positional.params import DEFAULTS, FIT_STEPS, RELATIVE_MODES
from app.tabs.training import TrainingTab
from models.traces import OffsetFitTrace, PEGrid, Progress
from models.transformer.options import EMBEDDING_INITS
from viz.controls import SliderField
from viz.heatmap import HeatmapPlot
from viz.panel import ViewPanel
from viz.plots import CurvesPlot, GroupedBarsPlot
from viz.theme import DIVERGING, SEQUENTIAL, error_style


def parse_dims(text: str, d_model: int, limit: int = 12) -> tuple[list[int], list[str]]:
    """Dimensions typed as "0, 1, 8-11"; returns (valid dims, problems).

    Ranges are clipped to [0, d_model) without being walked, so "0-999999999" costs
    nothing; at most ``limit`` dimensions are kept.
    """
    dims: list[int] = []
    problems: list[str] = []
    for part in text.replace(";", ",").replace("，", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part[1:]:
                a, b = (int(x) for x in part.split("-", 1))
            else:
                a = b = int(part)
        except ValueError:
            problems.append(part)
            continue
        if a > b:
            problems.append(part)
            continue
        lo, hi = max(a, 0), min(b, d_model - 1)
        if lo > hi or (a, b) != (lo, hi):
            problems.append(part)
        for d in range(lo, min(hi, lo + limit) + 1):
            if d not in dims:
                dims.append(d)
    if len(dims) > limit:
        problems.append(f"(more than {limit})")
    return dims[:limit], problems


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
        self.restore_state()
        self.retranslate()

    # -- construction ----------------------------------------------------------------
    # long: the four boxes of controls top to bottom, as they appear
    def _build_controls(self) -> None:
        lay = self.controls_layout
        self.box_encoding = QGroupBox()
        form = QVBoxLayout(self.box_encoding)
        self.d_model = SliderField(2, 1024, DEFAULTS["d_model"], step=2)
        self.max_len = SliderField(1, 4096, DEFAULTS["max_len"])
        self.base = SliderField(2, 1_000_000, DEFAULTS["base"], log=True)
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
        self.pe_plot = HeatmapPlot(DIVERGING)
        self.curve_plot = CurvesPlot()
        self.sim_plot = HeatmapPlot(SEQUENTIAL)
        self.rel_plot = HeatmapPlot(DIVERGING)
        self.fit_plot = CurvesPlot(log_y=True)
        self.emb_plot = GroupedBarsPlot()
        specs = [
            ("pe", lambda: self.tr("Encoding table PE[pos, j]"), self.pe_plot,
             self._data_pe, 0, 0),
            ("curves", lambda: self.tr("Chosen dimensions over positions"),
             self.curve_plot, self._data_curves, 0, 1),
            ("similarity", lambda: self.tr("Position similarity PE·PEᵀ"),
             self.sim_plot, self._data_similarity, 0, 2),
            ("relative", self._relative_title, self.rel_plot, self._data_relative, 1, 0),
            ("fit", lambda: self.tr("Learning M_k by gradient descent"),
             self.fit_plot, self._data_fit, 1, 1),
            ("embeddings", lambda: self.tr("√d_model·embedding + PE, per token"),
             self.emb_plot, self._data_embeddings, 1, 2),
        ]
        for key, title, plot, data, r, c in specs:
            self.add_view(View(key, title, ViewPanel(plot), data), r, c)
        self.pe_plot.hovered.connect(self._hover_pe)
        self.sim_plot.hovered.connect(self._hover_sim)
        self.rel_plot.hovered.connect(self._hover_rel)
        self.curve_plot.scene().sigMouseMoved.connect(self._hover_curves)
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
        self.pe_plot.set_axis_labels(self.tr("dimension j"), self.tr("position"))
        self.curve_plot.set_axis_labels(self.tr("position"), self.tr("PE value"))
        self.sim_plot.set_axis_labels(self.tr("position"), self.tr("position"))
        self.rel_plot.set_axis_labels(self.tr("input dimension"), self.tr("output dimension"))
        self.fit_plot.set_axis_labels(self.tr("step"), self.tr("loss / max error (log scale)"))
        self.emb_plot.set_axis_labels(self.tr("token"), self.tr("RMS over dimensions"))
        for v in self.views:
            v.panel.set_title(v.title())
        super().retranslate()
        if self.trace is not None:
            self.show_trace(self.trace)
        self._redraw_fit()

    def _relative_title(self) -> str:
        mode = RELATIVE_MODES[self.relative_mode.currentIndex()]
        k = int(self.offset.value())
        if mode == "learned":
            return self.tr("Learned W (k = {0})").format(self.fit.offset if self.fit else k)
        if mode == "difference":
            return self.tr("W − M_k (k = {0})").format(self.fit.offset if self.fit else k)
        return self.tr("Relative-position map M_k, k = {0}").format(k)

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
        p = self.params()
        return p["d_model"], p["max_len"], p["base"], max(1, min(p["offset"], p["max_len"] - 1))

    def _clear_fit(self) -> None:
        self.fit, self.fit_errors = None, []
        self.fit_history = np.zeros(0, np.float32)
        self._redraw_fit()

    def compute_fn(self):
        from models.transformer import compute_pe_grid  # torch is loaded by now

        p = self.params()
        dims, problems = parse_dims(p["dims"], p["d_model"])
        self.dims_note.setText(self.tr("Ignored (not a dimension below d_model): {0}").format(
                ", ".join(problems)) if problems else "")
        return partial(compute_pe_grid, d_model=p["d_model"], max_len=p["max_len"],
                       base=p["base"], offset=min(p["offset"], p["max_len"] - 1),
                       curve_dims=dims, sentence=p["sentence"], embedding_init=p["init"],
                       device=self.ctx.device(), truncate=True)

    # -- drawing -----------------------------------------------------------------------
    def show_trace(self, t: PEGrid) -> None:
        self.trace = t
        self.pe_plot.set_matrix(t.pe, levels=(-1.0, 1.0))
        positions = np.arange(t.max_len, dtype=np.float32)
        self.curve_plot.set_curves(positions, t.curves,
                                   [self.tr("dim {0}").format(d) for d in t.curve_dims])
        self.sim_plot.set_matrix(t.similarity, x_values=t.sim_positions,
                                 y_values=t.sim_positions)
        stride = int(t.sim_positions[1] - t.sim_positions[0]) if len(t.sim_positions) > 1 else 1
        self.view("similarity").panel.set_title(
            self.view("similarity").title() if stride == 1 else
            self.tr("Position similarity PE·PEᵀ (positions sampled every {0})").format(stride))
        self._show_relative()
        rms = t.token_rms
        self.emb_plot.set_bars(list(t.tokens), rms,
                               [self.tr("√d·E"), self.tr("PE"), self.tr("√d·E + PE")])
        ratio = rms[0].mean() / max(1e-12, rms[1].mean())
        note = self.tr("embedding/PE size ratio ≈ {0:.1f}  (device {1})").format(ratio, t.device)
        if t.tokens_dropped:
            note += self.tr("; {0} tokens beyond max_len left out").format(t.tokens_dropped)
        self.view("embeddings").panel.set_readout(note)
        # the fit's start and floor follow the table; a fit opened from a session before
        # the table of its parameters arrived is drawn now (it stayed blank)
        self._redraw_fit()

    def _show_relative(self, *_):
        t = self.trace
        if t is None:
            return
        mode = RELATIVE_MODES[max(0, self.relative_mode.currentIndex())]
        fit_ok = self.fit is not None and self.fit.matches(t.d_model, t.max_len, t.base, t.offset)
        if mode == "learned" and fit_ok:
            self.rel_plot.set_matrix(self.fit.learned, levels=(-1.0, 1.0))
        elif mode == "difference" and fit_ok:
            diff = self.fit.learned - self.fit.analytic
            lim = float(max(1e-6, np.abs(diff).max()))
            self.rel_plot.set_matrix(diff, levels=(-lim, lim))
        else:
            self.rel_plot.set_matrix(t.offset_matrix, levels=(-1.0, 1.0))
            if mode != "analytic" and not self.running():
                self.ctx.status(self.tr("Nothing learned yet for these parameters: press "
                                   "“Learn M_k by gradient descent”."))
        self.view("relative").panel.set_title(self._relative_title())
        self.error_label.setText(self.tr("max |M_k·PE[pos] − PE[pos+k]| over {0} positions: {1:.2e}").format(
                len(t.offset_error), t.offset_max_error))

    # -- hover read-outs -------------------------------------------------------------------
    def _hover_pe(self, row: int, col: int, value: float) -> None:
        self.view("pe").panel.set_readout(
            self.tr("pos {0}, dim {1}: {2:+.4f}").format(row, col, value) if row >= 0 else "")

    def _hover_sim(self, row: int, col: int, value: float) -> None:
        if row < 0 or self.trace is None:
            self.view("similarity").panel.set_readout("")
            return
        p, q = self.trace.sim_positions[row], self.trace.sim_positions[col]
        self.view("similarity").panel.set_readout(
            self.tr("PE[{0}]·PE[{1}] = {2:.3f}  (|Δ| = {3})").format(p, q, value, abs(int(p - q))))

    def _hover_rel(self, row: int, col: int, value: float) -> None:
        self.view("relative").panel.set_readout(
            f"[{row}, {col}] = {value:+.5f}" if row >= 0 else "")

    def _hover_curves(self, scene_pos) -> None:
        t = self.trace
        if t is None or not len(t.curve_dims):
            return
        vb = self.curve_plot.plotItem.vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return
        pos = int(round(vb.mapSceneToView(scene_pos).x()))
        if 0 <= pos < t.max_len:
            values = ", ".join(f"{d}: {v:+.3f}" for d, v in zip(t.curve_dims, t.curves[:, pos],
                                                                strict=True))
            self.view("curves").panel.set_readout(
                self.tr("pos {0} → {1}").format(pos, values))

    # -- the learning job (run by the TrainingTab base) -----------------------------------------
    def make_job(self, name: str):
        """Learn M_k from scratch for the shown parameters (None: nothing to learn)."""
        from models.transformer import fit_offset_map

        p = self.params()
        if p["offset"] < 1 or p["max_len"] < 2:
            self.ctx.status(self.tr("Nothing to learn for k = 0: M_0 is the identity. Choose an offset k ≥ 1."))
            return None
        offset = min(p["offset"], p["max_len"] - 1)
        self._clear_fit()
        return partial(fit_offset_map, d_model=p["d_model"], max_len=p["max_len"],
                       base=p["base"], offset=offset, steps=FIT_STEPS, lr=3e-2,
                       device=self.ctx.device(), max_report_share=0.2)

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
        if RELATIVE_MODES[self.relative_mode.currentIndex()] != "analytic":
            self._show_relative()

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        """Nothing to recompute: the fit is drawn as it arrives, the encoding is unchanged."""

    def _redraw_fit(self) -> None:
        """The fit's loss and error curves, from step 0 (W = 0, where ``fit_offset_map``
        starts, worked out from the table) with the exact M_k's error as the floor."""
        h, t = self.fit_history, self.trace
        names = [self.tr("training loss (MSE)"), self.tr("max error, all positions")]
        if t is None or not 0 < t.offset < t.max_len:
            self.fit_plot.set_curves([], [], [])
            self.view("fit").panel.set_readout("")
            return
        target = t.pe[t.offset:]                   # what W·PE[pos] should reach
        start = (float(np.mean(target ** 2)), float(np.abs(target).max()))
        floor = float(max(t.offset_error.max(initial=0.0), 1e-12))
        last = float(max(FIT_STEPS, len(h)))
        names.append(self.tr("exact M_k: max error {0:.1e}").format(floor))
        steps = np.arange(0, len(h) + 1, dtype=np.float32)
        err_steps = np.array([0, *(s for s, _ in self.fit_errors)], np.float32)
        errors = np.array([start[1], *(e for _, e in self.fit_errors)], np.float32)
        self.fit_plot.set_curves(
            [steps, err_steps, np.array([0.0, last], np.float32)],
            [np.maximum(np.array([start[0], *h], np.float32), 1e-12),
             np.maximum(errors, 1e-12), np.array([floor, floor], np.float32)],
            names, symbols=["o" if not len(h) else None, "o", None])
        self.fit_plot.set_hint("")
        if not len(h):              # nothing learned: the start, the floor, what to press
            self.fit_plot.plotItem.setXRange(0, last, padding=0.02)
            self.view("fit").panel.set_readout(self.tr(
                "Step 0: W = 0. Press “Learn M_k by gradient descent” to fit "
                "W·PE[pos] ≈ PE[pos+k] with Adam."))
            return
        if self.fit is not None:
            self.view("fit").panel.set_readout(
                self.tr("step {0}: loss {1:.2e}, max |W − M_k| = {2:.2f}").format(
                    len(h), float(h[-1]), self.fit.max_abs_difference))

    # -- export data -----------------------------------------------------------------------
    def _meta(self) -> dict:
        t = self.trace
        return {} if t is None else {"d_model": t.d_model, "max_len": t.max_len,
                                     "base": t.base, "offset": t.offset, "device": t.device}

    def _data_pe(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("pe", {"pe": t.pe}, self._meta(),
                              col_labels=[f"dim{i}" for i in range(t.d_model)])

    def _data_curves(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("curves_by_position", {
            "curves_by_position": t.curves.T, "curve_dims": t.curve_dims}, self._meta(),
            col_labels=[f"dim{d}" for d in t.curve_dims])

    def _data_similarity(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("similarity", {"similarity": t.similarity,
                                             "positions": t.sim_positions}, self._meta(),
                              row_labels=list(t.sim_positions),
                              col_labels=[f"pos{p}" for p in t.sim_positions])

    def _data_relative(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        arrays = {"offset_matrix": t.offset_matrix, "offset_error": t.offset_error}
        primary = "offset_matrix"
        if self.fit is not None and self.fit.matches(t.d_model, t.max_len, t.base, t.offset):
            arrays["learned"] = self.fit.learned
            arrays["difference"] = self.fit.learned - self.fit.analytic
            mode = RELATIVE_MODES[max(0, self.relative_mode.currentIndex())]
            primary = {"learned": "learned", "difference": "difference"}.get(mode, primary)
        return ViewData(primary, arrays, self._meta())

    def _data_fit(self) -> ViewData | None:
        if not len(self.fit_history):
            return None
        arrays = {"loss": self.fit_history,
                  "max_error_steps": np.array([s for s, _ in self.fit_errors], np.int64),
                  "max_error": np.array([e for _, e in self.fit_errors], np.float32)}
        meta = {}
        if self.fit is not None:
            arrays["learned"] = self.fit.learned
            arrays["analytic"] = self.fit.analytic
            meta = {"d_model": self.fit.d_model, "max_len": self.fit.max_len,
                    "base": self.fit.base, "offset": self.fit.offset}
        return ViewData("loss", arrays, meta, col_labels=["loss"],
                        row_labels=list(range(1, len(self.fit_history) + 1)))

    def _data_embeddings(self) -> ViewData | None:
        t = self.trace
        return t and ViewData("token_rms", {
            "token_rms": t.token_rms.T, "token_embedding": t.token_embedding,
            "token_pe": t.token_pe, "token_sum": t.token_sum},
            {**self._meta(), "init": t.embedding_init},
            row_labels=list(t.tokens), col_labels=["rms_sqrt_d_E", "rms_PE", "rms_sum"])
