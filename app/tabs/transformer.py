"""The Transformer tab: a small Transformer trained live on a synthetic task, every
head's attention for one input, mask toggles, and one head step by step."""

from __future__ import annotations

from functools import partial

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from app.tabs.base import BaseTab, TabContext, View, ViewData
from models.traces import Progress, TransformerTrace
from viz.attention import HeadGrid, PanelRow, StepView, TileMosaic
from viz.panel import ViewPanel
from viz.plots import CurvesPlot
from viz.theme import error_style, muted_style

TASKS = ("copy", "reverse", "sort", "shift")
ARCHITECTURES = ("encoder-decoder", "encoder-only", "decoder-only")
TOKENIZERS = ("digits", "characters", "words")
KINDS = ("encoder", "decoder", "cross")
DEFAULTS = {"architecture": "encoder-decoder", "tokenizer": "digits", "task": "reverse", "sequence": "3 1 4 1 5 9 2 6", "pad_to": 10, "kind": "cross",
            "layer": 1, "head": 0, "padding": True, "look_ahead": True, "generated": 0,
            "step": "self.softmax"}

#: the step-through's steps (``models.forward_steps`` keys, without the "self." /
#: "cross." block prefix)
STEP_TITLES = {
    "ids": QT_TRANSLATE_NOOP("TransformerSteps", "token ids"),
    "embedding": QT_TRANSLATE_NOOP("TransformerSteps", "embedding lookup"),
    "scaled": QT_TRANSLATE_NOOP("TransformerSteps", "× √d_model"),
    "pe": QT_TRANSLATE_NOOP("TransformerSteps", "+ positional encoding"),
    "layer_input": QT_TRANSLATE_NOOP("TransformerSteps", "through the layers before this one"),
    "q": QT_TRANSLATE_NOOP("TransformerSteps", "Q = x·W_q"),
    "k": QT_TRANSLATE_NOOP("TransformerSteps", "K = x·W_k"),
    "v": QT_TRANSLATE_NOOP("TransformerSteps", "V = x·W_v"),
    "cross.k": QT_TRANSLATE_NOOP("TransformerSteps", "K = memory·W_k"),
    "cross.v": QT_TRANSLATE_NOOP("TransformerSteps", "V = memory·W_v"),
    "q_heads": QT_TRANSLATE_NOOP("TransformerSteps", "split heads: Q of this head"),
    "k_heads": QT_TRANSLATE_NOOP("TransformerSteps", "split heads: K of this head"),
    "v_heads": QT_TRANSLATE_NOOP("TransformerSteps", "split heads: V of this head"),
    "scores": QT_TRANSLATE_NOOP("TransformerSteps", "scores Q·Kᵀ/√d_k"),
    "mask": QT_TRANSLATE_NOOP("TransformerSteps", "mask (green = may attend)"),
    "masked": QT_TRANSLATE_NOOP("TransformerSteps", "masked scores (blocked = −∞, blank)"),
    "softmax": QT_TRANSLATE_NOOP("TransformerSteps", "softmax → attention weights"),
    "weighted": QT_TRANSLATE_NOOP("TransformerSteps", "weighted sum of V"),
    "combined": QT_TRANSLATE_NOOP("TransformerSteps", "combine heads"),
    "out": QT_TRANSLATE_NOOP("TransformerSteps", "output projection W_o"),
    "add_norm": QT_TRANSLATE_NOOP("TransformerSteps", "Add & Norm"),
    "memory": QT_TRANSLATE_NOOP("TransformerSteps", "encoder output (memory)"),
    "ffn.hidden": QT_TRANSLATE_NOOP("TransformerSteps", "FFN: ReLU(x·W₁ + b₁)"),
    "ffn.out": QT_TRANSLATE_NOOP("TransformerSteps", "FFN: ·W₂ + b₂"),
    "ffn.add_norm": QT_TRANSLATE_NOOP("TransformerSteps", "Add & Norm = layer output"),
    "logits": QT_TRANSLATE_NOOP("TransformerSteps", "final linear → logits"),
}
STEP_BLOCKS = {"self": QT_TRANSLATE_NOOP("TransformerSteps", "self-attention"),
               "cross": QT_TRANSLATE_NOOP("TransformerSteps", "cross-attention")}
STEP_DECODER_SELF = QT_TRANSLATE_NOOP("TransformerSteps", "masked self-attention")


def step_title(key: str, stack: str = "encoder") -> str:
    """The translated name of a step-through step, e.g. "cross-attention: K = memory·W_k"."""
    def tr(text: str) -> str:
        return QCoreApplication.translate("TransformerSteps", text)

    block, dot, sub = key.partition(".")
    if dot and block in STEP_BLOCKS:
        name = STEP_TITLES.get(key if key in STEP_TITLES else sub, sub)
        block_name = (STEP_DECODER_SELF if block == "self" and stack == "decoder"
                      else STEP_BLOCKS[block])
        return f"{tr(block_name)}: {tr(name)}"
    return tr(STEP_TITLES.get(key, key))


class TransformerTab(BaseTab):
    key = "transformer"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.trace: TransformerTrace | None = None
        #: one model per (architecture, tokenizer, task): switching loses nothing
        self.sessions: dict[tuple[str, str, str], object] = {}
        self._job_params: dict | None = None   # controls snapshot read by the training job
        self._seed = 1
        self._build_controls()
        self._build_views()
        self.jobs.progressed.connect(self._on_progress)
        self.jobs.stopped.connect(self._on_job_stopped)
        self.apply_state(dict(DEFAULTS))
        self.retranslate()

    # -- construction -------------------------------------------------------------------
    def _build_controls(self) -> None:
        lay = self.controls_layout
        self.box_model = QGroupBox()
        col = QVBoxLayout(self.box_model)
        self.architecture = QComboBox()
        self.architecture.setObjectName("ArchitectureCombo")
        self.architecture.addItems([""] * len(ARCHITECTURES))
        self.tokenizer = QComboBox()
        self.tokenizer.setObjectName("TokenizerCombo")
        self.tokenizer.addItems([""] * len(TOKENIZERS))
        self.task = QComboBox()
        self.task.addItems(["", "", "", ""])
        self.architecture_label, self.tokenizer_label, self.task_label = (QLabel(), QLabel(),
                                                                         QLabel())
        model_form = QFormLayout()
        model_form.addRow(self.architecture_label, self.architecture)
        model_form.addRow(self.tokenizer_label, self.tokenizer)
        model_form.addRow(self.task_label, self.task)
        col.addLayout(model_form)
        self.train_button = QPushButton()
        self.train_button.setObjectName("TrainButton")
        self.train_button.clicked.connect(self.toggle_training)
        self.save_button = QPushButton()
        self.save_button.clicked.connect(self.save_dialog)
        buttons = QHBoxLayout()
        buttons.addWidget(self.train_button, 1)
        buttons.addWidget(self.save_button)
        col.addLayout(buttons)
        self.model_status = QLabel()
        self.model_status.setWordWrap(True)
        col.addWidget(self.model_status)
        lay.addWidget(self.box_model)

        self.box_input = QGroupBox()
        form = QFormLayout(self.box_input)
        self.sequence = QLineEdit()
        self.sequence.setObjectName("SequenceEdit")
        self.generate_button = QPushButton()
        self.generate_button.clicked.connect(self.generate)
        seq_row = QHBoxLayout()
        seq_row.addWidget(self.sequence, 1)
        seq_row.addWidget(self.generate_button)
        self.pad_to = QSpinBox()
        self.pad_to.setRange(1, 12)
        self.sequence_label, self.pad_label = QLabel(), QLabel()
        form.addRow(self.sequence_label, seq_row)
        form.addRow(self.pad_label, self.pad_to)
        self.generated = QSpinBox()          # 0 = the whole output at once
        self.generated.setObjectName("GeneratedSpin")
        self.generated.setRange(0, 13)
        self.next_token_button = QPushButton()
        self.next_token_button.setObjectName("NextTokenButton")
        self.next_token_button.clicked.connect(self.next_token)
        gen_row = QHBoxLayout()
        gen_row.addWidget(self.generated, 1)
        gen_row.addWidget(self.next_token_button)
        self.generated_label = QLabel()
        form.addRow(self.generated_label, gen_row)
        self.output_label = QLabel()
        self.output_label.setWordWrap(True)
        self.output_label.setTextFormat(Qt.TextFormat.RichText)
        form.addRow(self.output_label)
        self.token_key = QLabel()
        self.token_key.setStyleSheet(muted_style())
        form.addRow(self.token_key)
        self.input_note = QLabel()
        self.input_note.setWordWrap(True)
        self.input_note.setStyleSheet(error_style())
        form.addRow(self.input_note)
        lay.addWidget(self.box_input)

        self.box_attn = QGroupBox()
        form = QFormLayout(self.box_attn)
        self.kind = QComboBox()
        self.kind.addItems(["", "", ""])
        self.layer = QSpinBox()
        self.head = QSpinBox()
        self.padding = QCheckBox()
        self.look_ahead = QCheckBox()
        self.kind_label, self.layer_label, self.head_label = QLabel(), QLabel(), QLabel()
        form.addRow(self.kind_label, self.kind)
        form.addRow(self.layer_label, self.layer)
        form.addRow(self.head_label, self.head)
        form.addRow(self.padding)
        form.addRow(self.look_ahead)
        self.mask_note = QLabel()
        self.mask_note.setWordWrap(True)
        form.addRow(self.mask_note)
        lay.addWidget(self.box_attn)

        self.box_steps = QGroupBox()
        col = QVBoxLayout(self.box_steps)
        self.step_combo = QComboBox()
        self.step_combo.setObjectName("StepCombo")
        self.step_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.step_combo.setMinimumContentsLength(16)
        self.step_combo.setMaxVisibleItems(40)
        self.prev_step, self.next_step = QPushButton("◀"), QPushButton("▶")
        for button, delta in ((self.prev_step, -1), (self.next_step, 1)):
            button.setFixedWidth(34)
            button.clicked.connect(partial(self.move_step, delta))
        row = QHBoxLayout()
        row.addWidget(self.prev_step)
        row.addWidget(self.step_combo, 1)
        row.addWidget(self.next_step)
        col.addLayout(row)
        self.step_note = QLabel()
        self.step_note.setWordWrap(True)
        self.step_note.setStyleSheet(muted_style())
        col.addWidget(self.step_note)
        lay.addWidget(self.box_steps)
        self._step_key = DEFAULTS["step"]
        self.step_combo.activated.connect(self._step_chosen)
        lay.addStretch(1)
        for combo in (self.task, self.kind, self.architecture, self.tokenizer):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)

        self.task.currentIndexChanged.connect(self._task_changed)
        self.architecture.currentIndexChanged.connect(self._task_changed)
        self.tokenizer.currentIndexChanged.connect(self._tokenizer_changed)
        self.sequence.editingFinished.connect(self.schedule_update)
        for w in (self.pad_to, self.layer, self.head, self.generated):
            w.valueChanged.connect(self.schedule_update)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.padding.toggled.connect(self.schedule_update)
        self.look_ahead.toggled.connect(self.schedule_update)

    def _build_views(self) -> None:
        self.heads_view = HeadGrid()
        self.overview_view = TileMosaic()
        self.panels_view = PanelRow()
        self.train_plot = CurvesPlot(log_y=True)
        self.step_view = StepView()
        self.add_view(View("heads", self._heads_title, ViewPanel(self.heads_view),
                           self._data_heads), 0, 0, 1, 2)   # overview goes at (0, 2)
        self.add_view(View("head_steps", self._steps_title, ViewPanel(self.panels_view),
                           self._data_steps), 1, 0)
        self.add_view(View("overview", lambda: self.tr("All layers × heads, head average, rollout"),
            ViewPanel(self.overview_view), self._data_overview), 0, 2)
        self.add_view(View("forward", self._forward_title, ViewPanel(self.step_view),
                           self._data_forward), 1, 1)
        self.add_view(View("training", lambda: self.tr("Training"),
                           ViewPanel(self.train_plot), self._data_training), 1, 2)
        self.grid.setRowStretch(0, 1)
        self.grid.setRowStretch(1, 1)
        self.grid.setColumnStretch(0, 3)
        self.grid.setColumnStretch(1, 3)
        self.grid.setColumnStretch(2, 2)
        self.overview_view.headClicked.connect(self._overview_clicked)
        self.overview_view.hovered.connect(self._hover_overview)
        self.heads_view.hovered.connect(self._hover_heads)
        self.heads_view.headClicked.connect(self.head.setValue)
        self.panels_view.hovered.connect(self._hover_steps)
        self.step_view.hovered.connect(self._hover_forward)

    # -- the model -------------------------------------------------------------------------
    def current_task(self) -> str:
        return TASKS[max(0, self.task.currentIndex())]

    def current_key(self) -> tuple[str, str, str]:
        """(architecture, tokenizer, task): which of the tab's models is shown."""
        return (ARCHITECTURES[max(0, self.architecture.currentIndex())],
                TOKENIZERS[max(0, self.tokenizer.currentIndex())], self.current_task())

    def current_session(self):
        """The current model if it exists already (None: never made, nothing trained)."""
        return self.sessions.get(self.current_key())

    def session(self):
        """The model of the current task (made on first use, on the chosen device)."""
        from models.transformer import ModelConfig, Seq2SeqSession, TaskConfig

        key = self.current_key()
        if key not in self.sessions:
            arch, tokenizer, task = key
            self.sessions[key] = Seq2SeqSession(
                TaskConfig.for_alphabet(task, tokenizer), ModelConfig(architecture=arch),
                device=self.ctx.device(), lr=3e-3, decay_steps=1500)
        return self.sessions[key]

    def on_device_changed(self, name: str) -> None:
        if self.jobs.is_running():
            self.jobs.stop()
        for session in self.sessions.values():
            session.to(name)     # model, optimiser state and held-out set together
        super().on_device_changed(name)

    def _task_changed(self, *_):
        if self.jobs.is_running():
            self.jobs.stop()
        self._update_buttons()
        self.schedule_update()

    def _tokenizer_changed(self, *_):
        """Another tokenizer: an example input it can read replaces one it cannot."""
        from models.transformer import format_sequence, parse_sequence, random_sequence

        task = self.session().task
        try:
            parse_sequence(self.sequence.text(), task)
        except Exception:  # noqa: BLE001 - any refusal: show an example instead
            self.sequence.setText(format_sequence(random_sequence(task, self._seed), task))
        self._task_changed()

    def _kind_changed(self, *_):
        self.schedule_update()

    # -- parameters ---------------------------------------------------------------------------
    def params(self) -> dict:
        arch, tokenizer, task = self.current_key()
        return {"architecture": arch, "tokenizer": tokenizer, "task": task,
                "sequence": self.sequence.text(),
                "pad_to": self.pad_to.value(), "kind": KINDS[max(0, self.kind.currentIndex())],
                "layer": self.layer.value(), "head": self.head.value(),
                "padding": self.padding.isChecked(), "look_ahead": self.look_ahead.isChecked(),
                "generated": self.generated.value(), "step": self._step_key}

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import InvalidParameterError

        known = set(DEFAULTS) | {"train"}
        if strict and set(state) - known:
            raise InvalidParameterError(
                f"Unknown parameter {', '.join(sorted(set(state) - known))}; known: "
                f"{', '.join(sorted(known))}.")
        for key, combo, values in (("architecture", self.architecture, ARCHITECTURES),
                                   ("tokenizer", self.tokenizer, TOKENIZERS)):
            if state.get(key) in values:
                combo.setCurrentIndex(values.index(state[key]))
            elif strict and key in state:
                raise InvalidParameterError(f"{key} must be one of {', '.join(values)}.")
        if state.get("task") in TASKS:
            self.task.setCurrentIndex(TASKS.index(state["task"]))
        elif strict and "task" in state:
            raise InvalidParameterError(f"task must be one of {', '.join(TASKS)}.")
        if "sequence" in state:
            self.sequence.setText(str(state["sequence"]))
        if state.get("kind") in KINDS:
            self.kind.setCurrentIndex(KINDS.index(state["kind"]))
        elif strict and "kind" in state:
            raise InvalidParameterError(f"kind must be one of {', '.join(KINDS)}.")
        if self.torch_ready:
            self._sync_ranges()     # the new model's layers, before a layer is chosen
        for key, box in (("pad_to", self.pad_to), ("layer", self.layer), ("head", self.head),
                         ("generated", self.generated)):
            if key in state:
                box.setValue(int(state[key]))
        for key, check in (("padding", self.padding), ("look_ahead", self.look_ahead)):
            if key in state:
                check.setChecked(str(state[key]).lower() in ("1", "true", "yes", "on"))
        if "step" in state:
            self._step_key = str(state["step"])
            if self.trace is not None:
                self._draw_forward(self.trace)
        if state.get("train") and not self.jobs.is_running():
            self.toggle_training()
        self.schedule_update()

    def compute_fn(self):
        from models.transformer import parse_sequence

        session = self._sync_ranges()
        p = self.params()
        cfg = session.task          # a reopened model may have other lengths / symbols
        try:
            symbols = parse_sequence(p["sequence"], cfg)
            self.input_note.setText("")
        except Exception as exc:  # noqa: BLE001 - a typed InvalidParameterError
            self.input_note.setText(str(exc))
            symbols = None
        self.pad_to.setMinimum(max(1, len(symbols) if symbols else 1))
        if symbols is None:
            return lambda: self.trace     # keep what is shown; the note says why
        return partial(_trace_for, session, p, symbols)

    def _sync_ranges(self):
        """Fit the controls to the current model: the attention kinds it has (an
        encoder-only model has no decoder), its layers and heads, its lengths.
        Returns the model's session."""
        from models.transformer import kinds_of, layers_and_heads

        session = self.session()
        cfg = session.task
        kinds = kinds_of(session.model)
        for i, kind in enumerate(KINDS):
            self.kind.model().item(i).setEnabled(kind in kinds)
        if KINDS[max(0, self.kind.currentIndex())] not in kinds:
            self.kind.blockSignals(True)
            self.kind.setCurrentIndex(KINDS.index(kinds[0]))
            self.kind.blockSignals(False)
            self._job_params = self.params()
        one_shot = session.model_config.architecture == "encoder-only"
        self.generated.setEnabled(not one_shot)       # it labels every position at once
        self.next_token_button.setEnabled(not one_shot)
        n_layers, heads = layers_and_heads(session.model, KINDS[self.kind.currentIndex()])
        self.layer.setRange(0, n_layers - 1)
        self.head.setRange(0, heads - 1)
        self.pad_to.setMaximum(cfg.max_len)
        self.generated.setMaximum(cfg.tgt_len)
        if cfg.alphabet == "characters":
            tip = self.tr("Text of at most {0} characters: a–z, space and . , ! ? ' -").format(
                cfg.max_len)
        elif cfg.alphabet == "words":
            tip = self.tr("At most {0} words of the model's vocabulary: {1}").format(
                cfg.max_len, " ".join(cfg.symbols()))
        else:
            tip = self.tr("Symbols 0 to {0}, at most {1} of them, e.g. 3 1 4 1 5").format(
                cfg.vocab - 1, cfg.max_len)
        self.sequence.setToolTip(tip)
        return session

    def request_update(self) -> None:
        if self.jobs.is_running():
            return   # the training job draws the current input itself
        super().request_update()

    # -- drawing ----------------------------------------------------------------------------------
    def show_trace(self, t: TransformerTrace | None) -> None:
        if t is None:
            return
        self.trace = t
        titles = [self.tr("head {0}").format(h) for h in range(t.weights.shape[1])]
        self.heads_view.set_heads(t.weights[t.layer], t.q_tokens, t.k_tokens, titles,
                                  selected=t.head)
        self._draw_overview(t)
        p = t.panels
        self.panels_view.set_panels(p.mask, p.raw, p.masked, p.softmax, t.q_tokens, t.k_tokens,
                                    [self.tr("mask (grey = blocked)"), self.tr("raw scores QKᵀ/√d_k"),
                                     self.tr("masked scores"), self.tr("softmax")])
        self._draw_forward(t)
        for key in ("heads", "head_steps", "forward"):
            self.view(key).panel.set_title(self.view(key).title())
        ok = "✓" if t.correct else "✗"
        colour = "#2a7" if t.correct else "#c33"
        self.output_label.setText(
            self.tr("model output: {0}").format(
                f"<span style='font-family:monospace'>{' '.join(t.predicted)}</span> "
                f"<b style='color:{colour}'>{ok}</b>"))
        n_full = int(p.fully_masked.sum())
        self.mask_note.setText(self.tr("{0} rows of this head have every key blocked (their "
                                   "weights are set to 0).").format(n_full) if n_full else "")
        self._redraw_training()

    def overview_columns(self, t: TransformerTrace) -> tuple[np.ndarray, list[str], int]:
        """Thumbnails: each layer's heads, its head average and, for self-attention, the
        rollout up to that layer. Returns (float[layers·cols, q, k], titles, cols)."""
        from models.transformer import attention_rollout, head_average

        w = t.weights
        layers, heads = w.shape[:2]
        extra = [head_average(w)]
        names = [self.tr("avg")]
        if t.kind != "cross":
            extra.append(attention_rollout(w))
            names.append(self.tr("rollout"))
        cols = heads + len(extra)
        tiles, titles = [], []
        for layer in range(layers):
            for h in range(heads):
                tiles.append(w[layer, h])
                titles.append(f"L{layer} H{h}")
            for arr, name in zip(extra, names, strict=True):
                tiles.append(arr[layer])
                titles.append(f"L{layer} {name}")
        return np.stack(tiles), titles, cols

    def _draw_overview(self, t: TransformerTrace) -> None:
        tiles, titles, cols = self.overview_columns(t)
        heads = t.weights.shape[1]
        selected = t.layer * cols + t.head
        headers = [title.split(" ", 1)[1] for title in titles[:cols]]
        if t.kind != "cross":     # a short header: thumbnails are narrow
            headers[-1] = self.tr("roll.")
        self.overview_view.set_tiles(tiles, cols, headers,
                                     [f"L{i}" for i in range(len(tiles) // cols)], selected)
        self._overview_cols, self._overview_heads = cols, heads
        self._overview_titles = titles

    def _overview_clicked(self, index: int) -> None:
        layer, col = divmod(index, self._overview_cols)
        if col < self._overview_heads:     # a head, not an average / rollout tile
            self.layer.setValue(layer)
            self.head.setValue(col)

    def _hover_overview(self, index: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if index < 0 or t is None:
            self.view("overview").panel.set_readout("")
            return
        self.view("overview").panel.set_readout(
            f"{self._overview_titles[index]}: “{t.q_tokens[row]}” → “{t.k_tokens[col]}”: "
            f"{value:.3f}")

    def _data_overview(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        tiles, titles, _ = self.overview_columns(t)
        rows = [f"{name}:{q}" for name in titles for q in t.q_tokens]
        return ViewData("tiles", {"tiles": tiles.reshape(-1, tiles.shape[2])}, self._meta(),
                        row_labels=rows, col_labels=list(t.k_tokens))

    def _heads_title(self) -> str:
        t = self.trace
        kind = self.kind.currentText()
        layer = t.layer if t else self.layer.value()
        return self.tr("{0}, layer {1}: every head (rows = queries, columns = keys)").format(
            kind, layer)

    def _steps_title(self) -> str:
        return self.tr("Head {0} step by step").format(self.trace.head if self.trace
                                                   else self.head.value())

    def _hover_heads(self, head: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if head < 0 or t is None:
            self.view("heads").panel.set_readout("")
            return
        self.view("heads").panel.set_readout(
            self.tr("head {0}: query {1} “{2}” → key {3} “{4}”: {5:.3f}").format(
                head, row, t.q_tokens[row], col, t.k_tokens[col], value))

    def _hover_steps(self, panel: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if panel < 0 or t is None:
            self.view("head_steps").panel.set_readout("")
            return
        what = (self.tr("keep") if value >= 0.5 else self.tr("blocked")) if panel == 0 else f"{value:.3f}"
        self.view("head_steps").panel.set_readout(
            f"“{t.q_tokens[row]}” → “{t.k_tokens[col]}”: {what}")

    # -- the step-through ---------------------------------------------------------------------
    def _draw_forward(self, t: TransformerTrace) -> None:
        steps = t.steps
        if steps is None:
            return
        keys = steps.keys()
        if self._step_key not in keys:      # e.g. a cross-attention step, now on the encoder
            sub = self._step_key.partition(".")[2]
            self._step_key = next((k for k in keys if k.partition(".")[2] == sub), keys[0])
        index = keys.index(self._step_key)
        self.step_combo.blockSignals(True)
        if [self.step_combo.itemData(i) for i in range(self.step_combo.count())] != list(keys):
            self.step_combo.clear()
            for i, key in enumerate(keys):
                self.step_combo.addItem(f"{i + 1}. {step_title(key, steps.stack)}", key)
        else:
            for i, key in enumerate(keys):
                self.step_combo.setItemText(i, f"{i + 1}. {step_title(key, steps.stack)}")
        self.step_combo.setCurrentIndex(index)
        self.step_combo.blockSignals(False)
        step = steps.steps[index]
        shape = " × ".join(map(str, step.shape))
        self.step_view.set_step(step, f"{index + 1}. {step_title(step.key, steps.stack)}<br>"
                                      f"{step.dims}<br>= ({shape})",
                                self._step_axis_label(step))
        self.prev_step.setEnabled(index > 0)
        self.next_step.setEnabled(index < len(keys) - 1)
        self.step_note.setText(self.tr("Rows are the tokens of batch item 0; per-head steps show head "
            "{0}. Hover a cell for its value.").format(steps.head))
        self.view("forward").panel.set_title(self._forward_title())

    def _step_axis_label(self, step) -> str:
        if step.kind == "ids":
            return self.tr("position")
        if step.col_labels:
            return self.tr("key")
        return self.tr("feature")

    def _step_chosen(self, index: int) -> None:
        key = self.step_combo.itemData(index)
        if key:
            self._step_key = key
            self._job_params = self.params()
            if self.trace is not None:
                self._draw_forward(self.trace)

    def move_step(self, delta: int) -> None:
        index = self.step_combo.currentIndex() + delta
        if 0 <= index < self.step_combo.count():
            self.step_combo.setCurrentIndex(index)
            self._step_chosen(index)

    def _forward_title(self) -> str:
        t = self.trace
        if t is None or t.steps is None:
            return self.tr("One forward pass, step by step")
        stack = (self.tr("encoder") if t.steps.stack == "encoder"
                 else self.tr("decoder"))
        return self.tr("One forward pass, step by step: {0} layer {1}, head {2}").format(
                stack, t.steps.layer, t.steps.head)

    def _hover_forward(self, row: int, col: int, value: float) -> None:
        step = self.step_view.step
        if row < 0 or step is None:
            self.view("forward").panel.set_readout("")
            return
        where = step.col_labels[col] if step.col_labels else str(col)
        self.view("forward").panel.set_readout(f"[{step.row_labels[row]}, {where}]: {value:.4g}")

    def _data_forward(self) -> ViewData | None:
        t = self.trace
        if t is None or t.steps is None:
            return None
        steps = t.steps
        step = steps.get(self._step_key) or steps.steps[0]
        meta = self._meta() | {"stack": steps.stack, "step": step.key,
                               "step_title": step_title(step.key, steps.stack),
                               "dims": step.dims, "shape": list(step.shape)}
        return ViewData("values", {"values": step.values}, meta,
                        row_labels=list(step.row_labels),
                        col_labels=list(step.col_labels) or list(range(step.values.shape[1])))

    # -- training -------------------------------------------------------------------------------
    def toggle_training(self) -> None:
        if self.jobs.is_running():
            self.jobs.stop()
            return
        if not self.torch_ready:
            return
        session = self.session()
        self.jobs.start(partial(self._train_gen, session))
        self._update_buttons()

    def _train_gen(self, session):
        """Train and, about three times a second, draw the current input with the current
        weights. A trace that cannot be made (bad input typed meanwhile) is skipped; it
        never stops the training."""
        import time
        from dataclasses import replace

        next_trace = 0.0
        for p in session.train(100_000, eval_every=100, eval_from_token_accuracy=0.9):
            if time.perf_counter() >= next_trace:
                t0 = time.perf_counter()
                trace = self._job_trace(session)
                next_trace = time.perf_counter() + max(0.3, 4 * (time.perf_counter() - t0))
                if trace is not None:
                    p = replace(p, trace=trace)
            yield p

    def _job_trace(self, session) -> TransformerTrace | None:
        """Runs in the job's thread: reads only the snapshot of the controls."""
        from models.transformer import parse_sequence

        p = self._job_params
        if p is None or (p["architecture"], p["tokenizer"], p["task"]) != session_key(session):
            return None
        try:
            return _trace_for(session, p, parse_sequence(p["sequence"], session.task))
        except Exception:  # noqa: BLE001 - the panel shows input problems; skip this frame
            return None

    def schedule_update(self) -> None:
        # the training job reads a snapshot of the controls (a dict swapped atomically)
        self._job_params = self.params()
        super().schedule_update()

    def _on_progress(self, progress: Progress) -> None:
        if progress.trace is not None:
            self.show_trace(progress.trace)
        session = self.current_session()
        acc = progress.metrics.get("sequence_accuracy", float("nan"))
        self.job_bar.show_progress(
            min(1.0, (acc if acc == acc else 0.0)),
            self.tr("Training {0}: step {1} · loss {2:.3f} · token accuracy {3:.1%} · held-out "
                "sequences right {4} · {5:.0f} steps/s").format(
                    self.task.currentText(), progress.step, progress.loss,
                    progress.metrics["token_accuracy"],
                    "–" if acc != acc else f"{acc:.1%}", progress.metrics["steps_per_s"]))
        if session is not None and progress.trace is None and progress.step % 25 == 0:
            self._redraw_training()   # (show_trace redraws the curves too)

    def _on_job_stopped(self, _completed: bool) -> None:
        self._update_buttons()
        self._redraw_training()
        self.request_update()   # draw the final weights for the current input

    def _redraw_training(self) -> None:
        session = self.current_session()
        if session is None or not session.step:
            self.train_plot.set_curves([], [], [])
            self.train_plot.set_hint(self.tr("Press “Train” to train this model live."))
            self.model_status.setText(self.tr("untrained model"))
            return
        self.train_plot.set_hint("")
        losses = np.asarray(session.losses, np.float32)
        steps = np.arange(1, len(losses) + 1, dtype=np.float32)
        acc = session.accuracy_history
        xs = np.array([s for s, _ in acc], np.float32)
        err = np.array([max(1e-3, 1.0 - a) for _, a in acc], np.float32)
        tok_err = np.maximum(1.0 - np.asarray(session.token_accuracy, np.float32), 1e-3)
        tok_steps = np.arange(1, len(tok_err) + 1, dtype=np.float32)
        self.train_plot.set_curves(
            [steps, tok_steps, xs], [np.maximum(losses, 1e-6), tok_err, err],
            [self.tr("training loss"),
             self.tr("token error (training batch)"),
             self.tr("held-out sequence error")],
            symbols=[None, None, "o"])
        last = f"{acc[-1][1]:.1%}" if acc else "–"
        self.model_status.setText(self.tr("{0} steps trained; held-out sequences right: {1}")
                                  .format(session.step, last))

    def _update_buttons(self) -> None:
        running = self.jobs.is_running()
        self.train_button.setText(self.tr("Stop") if running else (
            self.tr("Resume training")
            if self.current_session() is not None and self.current_session().step else self.tr("Train")))
        self.train_button.setEnabled(self.torch_ready)
        self.save_button.setEnabled(self.torch_ready and not running)

    def on_torch_ready(self) -> None:
        super().on_torch_ready()
        self._update_buttons()

    # -- files ---------------------------------------------------------------------------------
    def file_filter(self) -> str | None:
        return self.tr("ArchScope models (*.pt)")

    def open_file(self, path: str) -> None:
        from models.transformer import Seq2SeqSession

        self.jobs.stop()
        session = Seq2SeqSession.load(path, device=self.ctx.device())
        key = session_key(session)
        self.sessions[key] = session
        for combo, values, value in zip((self.architecture, self.tokenizer, self.task),
                                        (ARCHITECTURES, TOKENIZERS, TASKS), key, strict=True):
            combo.blockSignals(True)
            combo.setCurrentIndex(values.index(value))
            combo.blockSignals(False)
        self._tokenizer_changed()      # an input this model can read; buttons; redraw
        self._redraw_training()
        self.ctx.status(self.tr("Opened a {0} model trained for {1} steps.").format(
            self.task.currentText(), session.step))

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save model"),
            f"{self.ctx.settings.last_dir('export')}/transformer-{'-'.join(self.current_key())}.pt",
            self.file_filter())
        if path:
            self.save_model(path)

    def save_model(self, path: str) -> str:
        from app.export import atomic_write

        session = self.session()
        with session.lock:
            written = atomic_write(path, session.save)
        self.ctx.status(self.tr("Saved {0}").format(written))
        return str(written)

    # -- translations --------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.box_model.setTitle(self.tr("Model and training"))
        self.task_label.setText(self.tr("Task"))
        self.architecture_label.setText(self.tr("Architecture"))
        self.tokenizer_label.setText(self.tr("Tokens"))
        for i, text in enumerate((
                self.tr("encoder–decoder (Transformer)"),
                self.tr("encoder-only (BERT-style)"),
                self.tr("decoder-only (GPT-style)"))):
            self.architecture.setItemText(i, text)
        for i, text in enumerate((
                self.tr("digits"),
                self.tr("characters (free text)"),
                self.tr("words (free text)"))):
            self.tokenizer.setItemText(i, text)
        for i, text in enumerate((self.tr("copy"), self.tr("reverse"), self.tr("sort"), self.tr("shift (rotate by one)"))):
            self.task.setItemText(i, text)
        self.save_button.setText(self.tr("Save model…"))
        self.box_input.setTitle(self.tr("Input"))
        self.sequence_label.setText(self.tr("Sequence"))
        self.generate_button.setText(self.tr("Generate"))
        self.pad_label.setText(self.tr("Pad to length"))
        self.generated_label.setText(self.tr("Decoding step"))
        self.generated.setSpecialValueText(self.tr("whole output"))
        self.generated.setToolTip(self.tr("Show the decoder after it has produced this many tokens: one "
            "more query row per step"))
        self.next_token_button.setText(self.tr("Next token"))
        self.token_key.setText(self.tr("▸ start (<bos>)   ■ end (<eos>)   · padding (<pad>)"))
        self.box_attn.setTitle(self.tr("Attention"))
        self.box_steps.setTitle(self.tr("Step-through of one forward pass"))
        self.prev_step.setToolTip(self.tr("Previous step"))
        self.next_step.setToolTip(self.tr("Next step"))
        self.kind_label.setText(self.tr("Kind"))
        for i, text in enumerate((self.tr("encoder self-attention"), self.tr("decoder masked self-attention"),
                                  self.tr("cross-attention (decoder → encoder)"))):
            self.kind.setItemText(i, text)
        self.layer_label.setText(self.tr("Layer"))
        self.head_label.setText(self.tr("Head"))
        self.padding.setText(self.tr("padding mask"))
        self.look_ahead.setText(self.tr("look-ahead mask (decoder)"))
        self.train_plot.set_axis_labels(self.tr("step"), self.tr("loss / error (log scale)"))
        self._update_buttons()
        for v in self.views:
            v.panel.set_title(v.title())
        super().retranslate()
        if self.trace is not None:
            self.show_trace(self.trace)
        else:
            self._redraw_training()

    def next_token(self) -> None:
        """Show one more decoding step (from the whole output back to the first)."""
        t = self.trace
        total = len(t.predicted) if t is not None else self.generated.maximum()
        value = self.generated.value()
        self.generated.setValue(1 if value == 0 or value >= total else value + 1)

    def generate(self) -> None:
        from models.transformer import format_sequence, random_sequence

        self._seed += 1
        task = self.session().task
        self.sequence.setText(format_sequence(random_sequence(task, self._seed), task))
        self.schedule_update()

    # -- export data -------------------------------------------------------------------------------
    def _meta(self) -> dict:
        t = self.trace
        return {} if t is None else {
            "architecture": self.current_key()[0], "tokenizer": self.current_key()[1],
            "task": self.current_task(), "kind": t.kind, "layer": t.layer, "head": t.head,
            "padding_mask": t.use_padding_mask, "look_ahead_mask": t.use_look_ahead_mask,
            "input": " ".join(t.src_tokens), "output": " ".join(t.predicted)}

    def _data_heads(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        w = t.weights[t.layer]
        rows = [f"h{h}:{q}" for h in range(w.shape[0]) for q in t.q_tokens]
        return ViewData("weights", {"weights": w.reshape(-1, w.shape[2]), "all_layers":
                                    t.weights}, self._meta(), row_labels=rows,
                        col_labels=list(t.k_tokens))

    def _data_steps(self) -> ViewData | None:
        t = self.trace
        if t is None:
            return None
        p = t.panels
        return ViewData("softmax", {"softmax": p.softmax, "raw": p.raw, "masked": p.masked,
                                    "mask": p.mask.astype(np.int8)}, self._meta(),
                        row_labels=list(t.q_tokens), col_labels=list(t.k_tokens))

    def _data_training(self) -> ViewData | None:
        session = self.current_session()
        if session is None or not session.losses:
            return None
        acc = session.accuracy_history
        return ViewData("loss", {"loss": np.asarray(session.losses, np.float32),
                                 "accuracy_steps": np.array([s for s, _ in acc], np.int64),
                                 "sequence_accuracy": np.array([a for _, a in acc], np.float32)},
                        {"task": self.current_task(), "steps": session.step},
                        row_labels=list(range(1, len(session.losses) + 1)), col_labels=["loss"])


def session_key(session) -> tuple[str, str, str]:
    """(architecture, tokenizer, task) of a model: where the tab keeps it."""
    return session.model_config.architecture, session.task.alphabet, session.task.task


def _trace_for(session, p: dict, symbols: list[int]) -> TransformerTrace:
    """The trace of ``symbols`` with the controls ``p`` (layer / head / padding clamped to
    the session's model and task), under the session's lock. Any thread."""
    from models.transformer import compute_transformer_trace, layers_and_heads

    n_layers, heads = layers_and_heads(session.model, p["kind"])
    with session.lock:
        return compute_transformer_trace(
            session.model, session.task, symbols,
            min(max(p["pad_to"], len(symbols)), session.task.max_len), p["kind"],
            min(p["layer"], n_layers - 1), min(p["head"], heads - 1),
            p["padding"], p["look_ahead"], p["generated"] or None,
            output_cache=session.output_cache)
