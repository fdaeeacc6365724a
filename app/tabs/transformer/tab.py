"""The Transformer tab: a small Transformer trained live on a synthetic task, every
head's attention for one input, mask toggles, and one head step by step.

The controller: its models (one per architecture, tokenizer and task), the controls'
state (as a ``TransformerRequest``), training through the ``TrainingTab`` base, files,
translations. The controls are built in ``controls``; each view is a class in ``views``
that draws a trace and exports what it drew; what runs a model is in
``models.transformer.probe``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtWidgets import QSizePolicy

from app.tabs.base import TabContext
from app.tabs.training import TrainingTab
from app.tabs.transformer import sizes
from app.tabs.transformer import state as session_state
from app.tabs.transformer.controls import build_controls, page_bottom_row
from app.tabs.transformer.params import DEFAULTS
from app.tabs.transformer.steps import step_title
from app.tabs.transformer.views import (
    AblationView,
    ForwardView,
    HeadLinesView,
    HeadStepsView,
    HeadsView,
    OverviewView,
    TrainingShown,
    TrainingView,
    course_sdpa_readout,
    overview_columns,
    resolve_step,
)
from models.traces import Progress, TransformerTrace
from models.transformer.options import (
    ABLATIONS,
    ALPHABETS,
    ARCHITECTURES,
    KINDS,
    TASKS,
    TransformerRequest,
)


class TransformerTab(TrainingTab):
    key = "transformer"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.trace: TransformerTrace | None = None
        #: one model per (architecture, tokenizer, task), the 6 most recently used (issue
        #: 19); a change of them stops the training, so the shown one is the trained one
        self.sessions = self.keep_sessions(6, lambda: self.current_key())
        #: the controls as the training job reads them (a frozen request, swapped whole)
        self._job_request: TransformerRequest | None = None
        self._seed = 1
        #: the last sequence typed that the model could read: what the views show
        self._shown_sequence: str | None = None
        build_controls(self, DEFAULTS["step"])
        self._build_views()
        self.apply_state(dict(DEFAULTS))
        self.retranslate()

    def _build_views(self) -> None:
        """The grid, 3 × 2: every head of a layer, the head view beside it and the overview
        of all layers and heads on top; one head step by step, the forward pass step by step
        and the training curves below, on a page that turns to the ablations
        (``controls.page_bottom_row``). The heads take the widest column (four square
        maps, 2 × 2 or in a row, whichever is larger); the head view (two columns of
        tokens) and the overview (drawn transposed when that is larger) share the rest."""
        self.heads_view, self.head_lines_view = HeadsView(self), HeadLinesView(self)
        self.overview_view, self.head_steps_view = OverviewView(self), HeadStepsView(self)
        self.forward_view, self.training_view = ForwardView(self), TrainingView(self)
        self.ablation_view = AblationView(self)
        self.sizes = sizes.SizePanel(self, self)         # its form, its job, its view
        self.job_panels[sizes.JOB] = self.sizes
        self.tab_views = (self.heads_view, self.head_steps_view, self.overview_view,
                          self.forward_view, self.training_view, self.head_lines_view,
                          self.ablation_view, self.sizes.view)
        for view, (row, col) in zip(self.tab_views, ((0, 0), (1, 0), (0, 2), (1, 1), (1, 2),
                                                     (0, 1), (1, 0), (1, 0)), strict=True):
            self.add_view(view, row, col)
            view.status.connect(self.ctx.status)
            # the grid shares its room by the stretch factors below, not by size hints (a
            # long title breaks over lines in its panel: ViewPanel's FitLabel)
            view.panel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        page_bottom_row(self)
        self.grid.setRowStretch(0, 5)
        self.grid.setRowStretch(1, 4)
        self.grid.setColumnStretch(0, 4)
        self.grid.setColumnStretch(1, 3)
        self.grid.setColumnStretch(2, 3)
        self.overview_view.head_chosen.connect(self._head_chosen)
        self.ablation_view.choice.currentIndexChanged.connect(self.schedule_update)
        self.sizes.toggled.connect(self.toggle_job)
        self.sizes.form.changed.connect(self.schedule_update)    # its study as initialised
        self.heads_view.head_chosen.connect(self.head.setValue)

    def highlight(self, key: str | None) -> None:
        """Highlight a view and turn the lower row to the page it needs: the ablations and
        the sizes for themselves, the step views and training curves for any other view
        (the tour's other steps talk of the training curve and the step views)."""
        super().highlight(key)
        if key is not None:
            pages = (self.ablation_view.key, self.sizes.view.key)
            self.bottom_tabs.setCurrentIndex(1 + pages.index(key) if key in pages else 0)

    # -- the model -------------------------------------------------------------------------
    def current_task(self) -> str:
        return TASKS[max(0, self.task.currentIndex())]

    def current_key(self) -> tuple[str, str, str]:
        """(architecture, tokenizer, task): which of the tab's models is shown."""
        return (ARCHITECTURES[max(0, self.architecture.currentIndex())],
                ALPHABETS[max(0, self.tokenizer.currentIndex())], self.current_task())

    def current_session(self):
        """The current model if it exists already (None: never made, nothing trained)."""
        return self.sessions.get(self.current_key())

    def session(self):
        """The model of the current task (made on first use, on the chosen device)."""
        key = self.current_key()
        if key not in self.sessions:
            self.sessions[key] = self.new_session(key)
        return self.sessions[key]

    def remembered_problem(self, key: str, request) -> bool:
        """A remembered input its model's tokenizer cannot read is not brought back."""
        if key != "sequence":
            return False
        from models.errors import InvalidParameterError
        from models.transformer import TaskConfig, parse_sequence

        try:
            parse_sequence(request.sequence, TaskConfig.for_alphabet(request.task,
                                                                     request.tokenizer))
        except InvalidParameterError:
            return True
        return False

    def new_session(self, key: tuple[str, str, str]):
        """A fresh model for (architecture, tokenizer, task), on the chosen device."""
        from models.transformer import ModelConfig, Seq2SeqSession, TaskConfig

        arch, tokenizer, task = key
        return Seq2SeqSession(TaskConfig.for_alphabet(task, tokenizer),
                              ModelConfig(architecture=arch), device=self.ctx.device(),
                              lr=3e-3, decay_steps=1500)

    def _task_changed(self, *_):
        self.stop_jobs()
        self.update_buttons()
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
                "generated": self.generated.value(), "step": self._step_key,
                "course": self.course.isChecked(), "ablation": self.ablation_view.current(),
                **self.sizes.values()}

    def request(self) -> TransformerRequest:
        """The controls as the models' request."""
        return TransformerRequest.from_values(self.params())

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import InvalidParameterError

        known = set(DEFAULTS) | {"train"}
        before = self.params()
        if strict:
            if set(state) - known:
                raise InvalidParameterError(
                    f"Unknown parameter {', '.join(sorted(set(state) - known))}; known: "
                    f"{', '.join(sorted(known))}.")
            # every value checked as the request checks it, before anything changes
            TransformerRequest.from_values({**self.params(), **state})
        for key, combo, values in (("architecture", self.architecture, ARCHITECTURES),
                                   ("tokenizer", self.tokenizer, ALPHABETS),
                                   ("task", self.task, TASKS)):
            if state.get(key) in values:
                combo.setCurrentIndex(values.index(state[key]))
        if "sequence" in state:
            self.sequence.setText(str(state["sequence"]))
        if state.get("kind") in KINDS:
            self.kind.setCurrentIndex(KINDS.index(state["kind"]))
        if state.get("ablation") in ABLATIONS:
            self.ablation_view.choice.setCurrentIndex(ABLATIONS.index(state["ablation"]))
        self.sizes.apply_state(state)     # checked above when strict; else kept if valid
        if self.torch_ready:
            self._sync_ranges()     # the new model's layers, before a layer is chosen
        boxes = (("pad_to", self.pad_to), ("layer", self.layer), ("head", self.head),
                 ("generated", self.generated))
        if strict:      # the model's layers and heads: past them is refused, not clamped
            for key, box in boxes[1:3]:
                if key in state and not box.minimum() <= int(state[key]) <= box.maximum():
                    self.apply_state(before)
                    raise InvalidParameterError(
                        f"{key} must be between {box.minimum()} and {box.maximum()} for this "
                        f"model, not {state[key]}.")
        for key, box in boxes:
            if key in state:
                box.setValue(int(state[key]))
        for key, check in (("padding", self.padding), ("look_ahead", self.look_ahead),
                           ("course", self.course)):
            if key in state:
                check.setChecked(str(state[key]).lower() in ("1", "true", "yes", "on"))
        if "step" in state:
            self._step_key = str(state["step"])
            if self.trace is not None:
                self._draw_forward(self.trace)
        if state.get("train") and not self.running():
            self.toggle_job("train")
        self.schedule_update()

    def compute_fn(self):
        from models.transformer import parse_sequence, session_trace

        session = self._sync_ranges()
        ask = self.request()
        cfg = session.task          # a reopened model may have other lengths / symbols
        try:
            symbols = parse_sequence(ask.sequence, cfg)
            self.input_note.setText("")
            self._shown_sequence = ask.sequence
        except Exception as exc:  # noqa: BLE001 - a typed InvalidParameterError
            self.input_note.setText(str(exc))
            symbols = self._shown_symbols(cfg)     # the last input that could be read
        self.input_note.setVisible(bool(self.input_note.text()))
        self.pad_to.setMinimum(max(1, len(symbols) if symbols else 1))
        if symbols is None:
            return lambda: self.trace     # keep what is shown; the note says why
        return partial(session_trace, session, ask, symbols)

    def _shown_symbols(self, cfg):
        from models.transformer import parse_sequence

        try:
            return parse_sequence(self._shown_sequence or "", cfg)
        except Exception:  # noqa: BLE001 - none for this model: keep what is shown
            return None

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
            self._job_request = self.request()
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
        if self.running():
            return   # the training job draws the current input itself
        super().request_update()

    def schedule_update(self) -> None:
        # the training job reads the controls as a request (swapped atomically)
        self._job_request = self.request()
        super().schedule_update()

    # -- drawing (each view draws itself) ----------------------------------------------------
    def show_trace(self, t: TransformerTrace | None) -> None:
        """Every view from one trace: the heads of its layer, the head view, the overview,
        the chosen head's panels, the step-through, the output line and the training
        curves."""
        if t is None:
            return
        self.trace = t
        ask = self.request()
        for view in (self.heads_view, self.head_lines_view, self.overview_view,
                     self.head_steps_view):
            view.show(t, ask)
        self._draw_forward(t)
        if t.ablation is not None:
            self.ablation_view.show(t.ablation, ask)
        self.sizes.redraw()                     # the study of the model shown, if any
        ok = "✓" if t.correct else "✗"
        colour = "#2a7" if t.correct else "#c33"
        self.output_label.setText(self.tr("model output: {0}").format(
            f"<span style='font-family:monospace'>{' '.join(t.predicted)}</span> "
            f"<b style='color:{colour}'>{ok}</b>"))
        p = t.panels
        n_full = int(p.fully_masked.sum())
        if t.course is not None and n_full:
            note = self.tr(
                "{0} rows of this head have every key blocked: the course's "
                "masked_fill(mask == 0, -1e9) gives them 1/{1} per key (ours: 0).").format(
                    n_full, p.mask.shape[1])
        else:
            note = self.tr(
                "{0} rows of this head have every key blocked (their "
                "weights are set to 0).").format(n_full) if n_full else ""
        sdpa = course_sdpa_readout(t)       # also here: always in sight, beside the switch
        note = " ".join(x for x in (note, sdpa) if x)
        self.mask_note.setText(note)
        self.mask_note.setVisible(bool(note))
        self._redraw_training()

    def overview_columns(self, t: TransformerTrace):
        """Thumbnails of every layer and head (see ``views.overview_columns``)."""
        return overview_columns(t)

    def _redraw_training(self) -> None:
        """The shown model's curves, and the status line."""
        self.training_view.show(TrainingShown.of(self.current_session()), self.request())
        self.status.setText(self.status_text())

    def _head_chosen(self, layer: int, head: int) -> None:
        self.layer.setValue(layer)
        self.head.setValue(head)

    # -- the step-through ---------------------------------------------------------------------
    def _step_chosen(self, index: int) -> None:
        key = self.step_combo.itemData(index)
        if key:
            self._step_key = key
            self._job_request = self.request()
            if self.trace is not None:
                self._draw_forward(self.trace)

    def move_step(self, delta: int) -> None:
        index = self.step_combo.currentIndex() + delta
        if 0 <= index < self.step_combo.count():
            self.step_combo.setCurrentIndex(index)
            self._step_chosen(index)

    def _draw_forward(self, t: TransformerTrace) -> None:
        """The step-through at the chosen step (the same sub-step when the stack
        changes): the step list, its buttons and note, and the view."""
        steps = t.steps
        if steps is None:
            self.forward_view.show(t, self.request())
            return
        keys = steps.keys()
        self._step_key = resolve_step(steps, self._step_key)
        index = keys.index(self._step_key)
        combo = self.step_combo
        combo.blockSignals(True)
        if [combo.itemData(i) for i in range(combo.count())] != list(keys):
            combo.clear()
            for i, key in enumerate(keys):
                combo.addItem(f"{i + 1}. {step_title(key, steps.stack)}", key)
        else:
            for i, key in enumerate(keys):
                combo.setItemText(i, f"{i + 1}. {step_title(key, steps.stack)}")
        combo.setCurrentIndex(index)
        combo.blockSignals(False)
        self.prev_step.setEnabled(index > 0)
        self.next_step.setEnabled(index < len(keys) - 1)
        self.step_note.setText(self.tr(
            "Rows are the tokens of batch item 0; per-head steps show head "
            "{0}. Hover a cell for its value.").format(steps.head))
        self.forward_view.show(t, self.request())

    # -- training (the TrainingTab base runs the job) ----------------------------------------
    def make_job(self, name: str):
        """Train the shown model; the job draws the current input as it goes, from a
        snapshot of the controls."""
        from models.transformer import train_with_traces

        return partial(train_with_traces, self.session(), lambda: self._job_request)

    def job_text(self, name: str, progress: Progress) -> str:
        acc = progress.metrics.get("sequence_accuracy", float("nan"))
        return self.tr(
            "Training {0}: step {1} · loss {2:.3f} · token accuracy {3:.1%} · held-out "
            "sequences right {4} · {5:.0f} steps/s").format(
                self.task.currentText(), progress.step, progress.loss,
                progress.metrics["token_accuracy"],
                "–" if acc != acc else f"{acc:.1%}", progress.metrics["steps_per_s"])

    def job_fraction(self, name: str, progress: Progress) -> float:
        acc = progress.metrics.get("sequence_accuracy", float("nan"))
        return min(1.0, (acc if acc == acc else 0.0))

    def on_job_progress(self, name: str, progress: Progress) -> None:
        if progress.trace is not None:
            self.show_trace(progress.trace)
        elif self.current_session() is not None and progress.step % 25 == 0:
            self._redraw_training()   # (show_trace redraws the curves too)

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        self._redraw_training()
        self.request_update()   # draw the final weights for the current input

    def training_sessions(self):
        return self.sessions.values()   # model, optimiser state and held-out set together

    def status_text(self) -> str:
        session = self.current_session()
        if session is None or not session.step:
            return self.tr("untrained model")
        acc = session.accuracy_history
        last = f"{acc[-1][1]:.1%}" if acc else "–"
        return self.tr("{0} steps trained; held-out sequences right: {1}").format(
            session.step, last)

    def update_buttons(self) -> None:
        super().update_buttons()
        self.save_button.setEnabled(self.torch_ready)   # while training too (its lock)

    # -- session files (in ``state``) -----------------------------------------------------
    def saved_sessions(self) -> dict[str, object]:
        return session_state.saved_sessions(self)

    def session_named(self, name: str):
        return self.session() if name == "main" else \
            self.sessions[tuple(name.split("."))]

    def session_inputs(self) -> tuple[dict, dict]:
        return session_state.session_inputs(self)

    def open_session_state(self, state, name: str) -> None:
        session_state.open_session_state(self, state, name)

    def save_dialog(self) -> None:
        session_state.save_dialog(self)

    # -- model files (.pt, before sessions) ----------------------------------------------------
    def file_filter(self) -> str | None:
        return self.tr("ArchScope models saved as .pt; sessions open with File → Open "
                       "session… (*.pt)")

    def file_reader(self, path: str):
        """Open a saved model. The file is read and checked first (``Seq2SeqSession.load``
        raises ``ModelFileError`` before building anything): a refused file leaves the
        training that runs running; only an accepted model stops it and takes its place
        (``accept_file``). A session file is not a model file: it is pointed to File →
        Open session…."""
        from models.errors import ModelFileError
        from models.transformer import Seq2SeqSession

        if path.lower().endswith(".archscope"):
            raise ModelFileError(self.tr("{0} is a session: open it with File → Open "
                                         "session….").format(Path(path).name))
        return partial(Seq2SeqSession.load, path, self.ctx.device())

    def accept_file(self, path: str, session) -> None:
        from models.transformer import session_key

        key = session_key(session)
        self.stop_jobs()
        if str(session.device) != str(self.ctx.device()):   # changed while it was read
            session.to(self.ctx.device())
        self.sessions[key] = session
        for combo, values, value in zip((self.architecture, self.tokenizer, self.task),
                                        (ARCHITECTURES, ALPHABETS, TASKS), key, strict=True):
            combo.blockSignals(True)
            combo.setCurrentIndex(values.index(value))
            combo.blockSignals(False)
        self._tokenizer_changed()      # an input this model can read; buttons; redraw
        self._redraw_training()
        self.ctx.status(self.tr("Opened a {0} model trained for {1} steps. “Save "
                                "session…” keeps it as a session file (.archscope).").format(
            self.task.currentText(), session.step))

    def save_model(self, path: str) -> str:
        return session_state.save_model(self, path)

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
        for i, text in enumerate((self.tr("copy"), self.tr("reverse"), self.tr("sort"),
                                  self.tr("shift (rotate by one)"))):
            self.task.setItemText(i, text)
        self.save_button.setText(self.tr("Save session…"))
        self.save_button.setToolTip(self.tr(
            "Save this tab as a session file (.archscope): the model, its optimizer state, "
            "the curves and the input. Open it with File → Open session…; File → Open… "
            "still opens models saved as .pt."))
        self.box_input.setTitle(self.tr("Input"))
        self.sequence_label.setText(self.tr("Sequence"))
        self.generate_button.setText(self.tr("Generate"))
        self.pad_label.setText(self.tr("Pad to length"))
        self.generated_label.setText(self.tr("Decoding step"))
        self.generated.setSpecialValueText(self.tr("whole output"))
        self.generated.setToolTip(self.tr(
            "Show the decoder after it has produced this many tokens: one "
            "more query row per step"))
        self.next_token_button.setText(self.tr("Next token"))
        self.token_key.setText(self.tr("▸ start (<bos>)   ■ end (<eos>)   · padding (<pad>)"))
        self.box_attn.setTitle(self.tr("Attention"))
        self.box_steps.setTitle(self.tr("Step-through of one forward pass"))
        self.prev_step.setToolTip(self.tr("Previous step"))
        self.next_step.setToolTip(self.tr("Next step"))
        self.kind_label.setText(self.tr("Kind"))
        for i, text in enumerate((self.tr("encoder self-attention"),
                                  self.tr("decoder masked self-attention"),
                                  self.tr("cross-attention (decoder → encoder)"))):
            self.kind.setItemText(i, text)
        self.layer_label.setText(self.tr("Layer"))
        self.head_label.setText(self.tr("Head"))
        self.padding.setText(self.tr("padding mask"))
        self.look_ahead.setText(self.tr("look-ahead mask (decoder)"))
        self.course.setText(self.tr("as the course writes it"))
        self.course.setToolTip(self.tr(
            "Compute the attention as the chapter's code does, with this model's weights: "
            "masked_fill(mask == 0, -1e9), the decoder mask logical_and("
            "tgt_padding_mask.transpose(-2, -1), look_ahead_mask) and, for decoder "
            "self-attention, its F.scaled_dot_product_attention example. The read-out of "
            "the heads compares it with ours."))
        self.bottom_tabs.setTabText(0, self.tr("Steps and training"))
        self.bottom_tabs.setTabText(1, self.tr("Ablations"))
        self.bottom_tabs.setTabText(2, self.tr("Model sizes"))
        self.sizes.retranslate()
        for view in self.tab_views:
            view.label()
        super().retranslate()      # the tour, the job bar, Train/Stop and the status line
        if self.trace is not None:
            self.show_trace(self.trace)
            self.head_lines_view.hover(-1, -1)     # the head view's hint, in the new language
        else:
            ask = self.request()
            for view in self.tab_views:            # nothing drawn yet: the titles
                view.show(None, ask)
            self._redraw_training()
            self.sizes.redraw()

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
