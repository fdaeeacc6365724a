"""The Transformer tab: a small Transformer trained live on a synthetic task, every
head's attention for one input, mask toggles, and one head step by step.

The controller: its models (one per architecture, tokenizer and task), the controls'
state, training through the ``TrainingTab`` base, files, translations. The widgets are
built in ``controls``, drawn in ``drawing``, exported in ``data``; what runs a model is
in ``models.transformer.probe``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from app.tabs.base import TabContext
from app.tabs.training import TrainingTab
from app.tabs.transformer import drawing
from app.tabs.transformer import state as session_state
from app.tabs.transformer.controls import build_controls, build_views
from app.tabs.transformer.params import DEFAULTS
from app.tabs.transformer.steps import step_title
from models.traces import Progress, TransformerTrace
from models.transformer.options import ALPHABETS, ARCHITECTURES, KINDS, TASKS


class TransformerTab(TrainingTab):
    key = "transformer"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.trace: TransformerTrace | None = None
        #: one model per (architecture, tokenizer, task), the 6 most recently used (issue
        #: 19); a change of them stops the training, so the shown one is the trained one
        self.sessions = self.keep_sessions(6, lambda: self.current_key())
        self._job_params: dict | None = None   # controls snapshot read by the training job
        self._seed = 1
        #: the last sequence typed that the model could read: what the views show
        self._shown_sequence: str | None = None
        build_controls(self, DEFAULTS["step"])
        build_views(self)
        self.apply_state(dict(DEFAULTS))
        self.retranslate()

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
                "course": self.course.isChecked()}

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import InvalidParameterError

        known = set(DEFAULTS) | {"train"}
        if strict and set(state) - known:
            raise InvalidParameterError(
                f"Unknown parameter {', '.join(sorted(set(state) - known))}; known: "
                f"{', '.join(sorted(known))}.")
        for key, combo, values in (("architecture", self.architecture, ARCHITECTURES),
                                   ("tokenizer", self.tokenizer, ALPHABETS)):
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
        for key, check in (("padding", self.padding), ("look_ahead", self.look_ahead),
                           ("course", self.course)):
            if key in state:
                check.setChecked(str(state[key]).lower() in ("1", "true", "yes", "on"))
        if "step" in state:
            self._step_key = str(state["step"])
            if self.trace is not None:
                drawing.draw_forward(self, self.trace)
        if state.get("train") and not self.running():
            self.toggle_job("train")
        self.schedule_update()

    def compute_fn(self):
        from models.transformer import parse_sequence, session_trace

        session = self._sync_ranges()
        p = self.params()
        cfg = session.task          # a reopened model may have other lengths / symbols
        try:
            symbols = parse_sequence(p["sequence"], cfg)
            self.input_note.setText("")
            self._shown_sequence = p["sequence"]
        except Exception as exc:  # noqa: BLE001 - a typed InvalidParameterError
            self.input_note.setText(str(exc))
            symbols = self._shown_symbols(cfg)     # the last input that could be read
        self.input_note.setVisible(bool(self.input_note.text()))
        self.pad_to.setMinimum(max(1, len(symbols) if symbols else 1))
        if symbols is None:
            return lambda: self.trace     # keep what is shown; the note says why
        return partial(session_trace, session, p, symbols)

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
        if self.running():
            return   # the training job draws the current input itself
        super().request_update()

    def schedule_update(self) -> None:
        # the training job reads a snapshot of the controls (a dict swapped atomically)
        self._job_params = self.params()
        super().schedule_update()

    # -- drawing (in ``drawing``) -----------------------------------------------------------
    def show_trace(self, t: TransformerTrace | None) -> None:
        if t is not None:
            drawing.show_trace(self, t)

    def overview_columns(self, t: TransformerTrace):
        """Thumbnails of every layer and head (see ``drawing.overview_columns``)."""
        return drawing.overview_columns(t)

    def _redraw_training(self) -> None:
        drawing.redraw_training(self)

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
            self.view("heads").panel.set_readout(drawing.course_readout(self, t))
            return
        self.view("heads").panel.set_readout(
            self.tr("head {0}: query {1} “{2}” → key {3} “{4}”: {5:.3f}").format(
                head, row, t.q_tokens[row], col, t.k_tokens[col], value))

    def _head_view_title(self) -> str:
        t = self.trace
        layer = t.layer if t else self.layer.value()
        return self.tr("Head view, layer {0}: line opacity = weight").format(layer)

    def _hover_head_view(self, side: int, index: int) -> None:
        """The hovered token in full, and where each shown head puts most weight."""
        t = self.trace
        panel = self.view("head_view").panel
        if t is None:
            return
        if side < 0:
            panel.set_readout(self.tr("Hover a token to keep only its lines; click a head "
                                      "above to hide it."))
            return
        w = t.weights[t.layer]
        shown = self.head_lines.shown_heads()
        tokens, others = (t.q_tokens, t.k_tokens) if side == 0 else (t.k_tokens, t.q_tokens)
        parts = []
        for h in np.flatnonzero(shown):
            row = w[h, index] if side == 0 else w[h, :, index]
            j = int(np.argmax(row))
            parts.append(f"h{h} → “{others[j]}” {row[j]:.2f}")
        what = self.tr("query {0} “{1}”") if side == 0 else self.tr("key {0} “{1}”")
        panel.set_readout(what.format(index, tokens[index]) + ": " + " · ".join(parts))

    def _hover_steps(self, panel: int, row: int, col: int, value: float) -> None:
        t = self.trace
        if panel < 0 or t is None:
            self.view("head_steps").panel.set_readout(drawing.course_sdpa_readout(t))
            return
        what = ((self.tr("keep") if value >= 0.5 else self.tr("blocked")) if panel == 0
                else f"{value:.3f}")
        self.view("head_steps").panel.set_readout(
            f"“{t.q_tokens[row]}” → “{t.k_tokens[col]}”: {what}")

    # -- the step-through ---------------------------------------------------------------------
    def _step_chosen(self, index: int) -> None:
        key = self.step_combo.itemData(index)
        if key:
            self._step_key = key
            self._job_params = self.params()
            if self.trace is not None:
                drawing.draw_forward(self, self.trace)

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
        title = self.tr("One forward pass, step by step: {0} layer {1}, head {2}").format(
                stack, t.steps.layer, t.steps.head)
        keys = t.steps.keys()
        if self._step_key in keys:      # the step shown, as the step list names it
            title += f" · {keys.index(self._step_key) + 1}. " + step_title(self._step_key,
                                                                         t.steps.stack)
        return title

    def _hover_forward(self, row: int, col: int, value: float) -> None:
        step = self.step_view.step
        if row < 0 or step is None:
            self.view("forward").panel.set_readout("")
            return
        where = step.col_labels[col] if step.col_labels else str(col)
        self.view("forward").panel.set_readout(f"[{step.row_labels[row]}, {where}]: {value:.4g}")

    # -- training (the TrainingTab base runs the job) ----------------------------------------
    def make_job(self, name: str):
        """Train the shown model; the job draws the current input as it goes, from a
        snapshot of the controls."""
        from models.transformer import train_with_traces

        return partial(train_with_traces, self.session(), lambda: self._job_params)

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
        """The model file of earlier versions (.pt), which File → Open… still reads."""
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
        self.train_plot.set_axis_labels(self.tr("step"), self.tr("loss / error (log scale)"))
        for v in self.views:
            v.panel.set_title(v.title())
        super().retranslate()      # the tour, the job bar, Train/Stop and the status line
        if self.trace is not None:
            self.show_trace(self.trace)
            self._hover_head_view(-1, -1)     # the head view's hint, in the new language
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
