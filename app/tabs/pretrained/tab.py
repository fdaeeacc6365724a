"""The pretrained-model tab: a real model (the bundled all-MiniLM-L6-v2, or a Hugging
Face folder the user opens) run through the course's own attention. Type a sentence and
see every head; switch heads, layers and tokens off; compare sentence embeddings; for a
GPT-2 decoder, the next-token choice and token-by-token generation.

The controller: the model (loaded once in the background, with progress and Cancel),
the controls' state, the requests it computes in the background, translations. Widgets
are built in ``controls``; the views (``views``) draw what the tab hands them, a
``Picked`` (the result with the layer, head and query shown), and export it; what runs the model
is ``models.pretrained.probe`` (called from ``compute``, off the GUI thread).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QFileDialog

from app.tabs.base import BaseTab, TabContext
from app.tabs.pretrained import state, texts
from app.tabs.pretrained.compute import (
    Refused,
    Shown,
    compute,
    generation,
    model_reader,
    split_sentences,
)
from app.tabs.pretrained.controls import arrange_views, build_controls, build_views
from app.tabs.pretrained.params import DEFAULTS
from app.tabs.pretrained.views import Generated, Picked
from models.pretrained.options import (
    BUNDLED_NAME,
    DEFAULT_MAX_PARAMETERS,
    INSTALL_COMMAND,
    PretrainedRequest,
    bundled_model_path,
)

#: how long the tab is out of sight before its model's weights are released: long
#: enough for a glance at another tab and back, and reading them again takes 45-55 ms
#: for the bundled model
RELEASE_AFTER_MS = 20_000


class PretrainedTab(BaseTab):
    key = "pretrained"
    #: the head mask and the tokens kept belong to the text and model of the moment
    not_remembered = ("head_mask", "keep", "sentences")

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.trace: Shown | None = None
        self.model = None              # a models.pretrained.PretrainedModel, once loaded
        self.model_path = ""           # its folder ("" = the bundled model)
        self._serial = 0               # counts the models loaded (which one a trace is of)
        # the settings file's pretrained/max_parameters (checked), else 400 M
        self.max_parameters = ctx.settings.max_parameters(DEFAULT_MAX_PARAMETERS)
        self._loading: tuple[str, int] | None = None     # (name, parameters) being read
        self.generated: tuple = ()     # GenerationStep, one per generated token
        self._pending_mask: np.ndarray | None = None     # for a model still to be loaded
        self._pending_keep: list[bool] | None = None
        self._keep_for: tuple[str, str | None] | None = None
        self._missing = False          # the bundled model's package is not installed
        build_controls(self)
        build_views(self)
        # drawing a result one view per event-loop turn (``show_trace``)
        self.picked = Picked(None)     # what the views draw: the result, layer, head, query
        self._draws: list = []
        self._draw_now = False        # compute_now: draw at once
        self._draw_timer = QTimer(self)
        self._draw_timer.setSingleShot(True)
        self._draw_timer.setInterval(0)
        self._draw_timer.timeout.connect(self._draw_next)
        # the heatmaps the bundled model needs, made one per turn while it loads
        self._warm_timer = QTimer(self)
        self._warm_timer.setInterval(0)
        self._warm_timer.timeout.connect(self._warm)
        # the model's weights go back while the tab is out of sight (``_release_weights``)
        self._release_timer = QTimer(self)
        self._release_timer.setSingleShot(True)
        self._release_timer.setInterval(RELEASE_AFTER_MS)
        self._release_timer.timeout.connect(self._release_weights)
        for finished in (self.compute.done, self.compute.failed, self.jobs.stopped):
            finished.connect(self._release_later)
        self.jobs.progressed.connect(self._on_generated)
        self.jobs.stopped.connect(self._generation_stopped)
        self.apply_state(dict(DEFAULTS))
        self.retranslate()

    # -- the model -------------------------------------------------------------------------
    def showEvent(self, event) -> None:  # noqa: N802 - Qt's API
        self._release_timer.stop()
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's API
        super().hideEvent(event)
        self._release_timer.start()

    def _release_later(self, *_args) -> None:
        """Work done while out of sight (a device switch recomputes, a model opened,
        an export) read the weights again: release them as long after."""
        if not self.isVisible():
            self._release_timer.start()

    def _release_weights(self) -> None:
        """The tab has been out of sight ``RELEASE_AFTER_MS``: the model's weights go
        back, unless a computation or a generation is using them (then try again as long
        later). The next computation reads them again from the folder
        (``PretrainedModel.network``); the views keep what they show.

        What that frees: weights read from safetensors are mapped from the file, so the
        bundled model's cost the process the pages its runs touched (41 MB resident
        after a sentence, measured), which stay in the system's file cache; a pickled
        folder's are memory of the process's own, and on a GPU, the GPU's memory."""
        model = self.model
        if model is None or self.isVisible() or not model.weights_loaded:
            return
        if model.release_weights():
            self.memory_freed.emit()
        else:
            self._release_timer.start()

    #: heatmaps made ahead for each grid: the bundled model's 12 heads, 5 statistics,
    #: 2 similarity matrices, 1 generation
    WARM = (("heads_view", 12), ("stats_view", 5), ("similarity_view", 2),
            ("approx_view", 3), ("approx_similarity_view", 3), ("generation_view", 1))

    def _warm(self) -> None:
        for name, n in self.WARM:
            if getattr(self, name).warm(n):
                return
        self._warm_timer.stop()

    def on_torch_ready(self) -> None:
        self._warm_timer.start()
        super().on_torch_ready()
        if self.model is None and not self.is_opening():
            self.load_bundled()

    def load_bundled(self) -> None:
        """Load the bundled all-MiniLM-L6-v2 in the background; if its package is not
        installed, say so with the command that installs it (the tab goes on working
        with a folder opened with File → Open…)."""
        if bundled_model_path() is None:
            self._missing = True
            texts.describe_model(self)
            return
        self._missing = False
        self.open_model("")

    def open_model(self, path: str) -> None:
        """Open a model folder ("" = the bundled model) in the background, reporting a
        refusal (files missing, an unsupported architecture, too large) in a dialog; the
        model and views shown stay until the new model is accepted."""
        try:
            self.start_open(path)
        except Exception as exc:  # noqa: BLE001 - refused before reading: shown to the user
            self.ctx.report_error(exc, None)

    def opens_folders(self) -> bool:
        return True

    def open_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self, self.tr("Open a model folder"), self.ctx.settings.last_dir("open"))
        if path:
            self.open_model(path)

    def file_filter(self) -> str | None:
        return self.tr("Hugging Face model folders (config.json, model.safetensors, "
                       "tokenizer.json)")

    def file_reader(self, path: str):
        """Check the folder's config (``inspect_pretrained``: the files, the architecture,
        the size) and the memory the weights need, on this thread and before anything
        is read; then ``read(progress, cancelled)`` loads it in the background."""
        from models.errors import PretrainedModelError
        from models.pretrained import inspect_pretrained

        folder = Path(path) if path else None
        cfg = inspect_pretrained(folder)
        name = folder.name if folder is not None else BUNDLED_NAME
        if cfg.parameters > self.max_parameters:
            raise PretrainedModelError(self.tr(
                "{0} has about {1} parameters and needs about {2} of memory as float32; "
                "ArchScope loads models of at most {3} parameters ({4}). The model shown "
                "stays.").format(name, texts.count(cfg.parameters),
                                 texts.size(cfg.parameters * 4),
                                 texts.count(self.max_parameters),
                                 texts.size(self.max_parameters * 4)))
        self._checked = (name, cfg.parameters)
        return model_reader(folder, self.max_parameters)

    def start_open(self, path: str) -> None:
        """``BaseTab.start_open``, naming the model (and its size) on the bar."""
        read = self.file_reader(path)
        self.loads.stop()          # a model still being read is cancelled (and says so)
        self._loading = self._checked
        self._opening, self._open_failed = path, False
        self.loads.start_call(read)
        self._open_progressed(0.0)

    def _open_progressed(self, fraction: float) -> None:
        name, parameters = self._loading or (Path(self._opening).name, 0)
        self.load_bar.show_progress(fraction, self.tr("Loading {0} ({1} as float32): {2} %")
                                    .format(name, texts.size(parameters * 4),
                                            int(100 * fraction)))

    def _open_returned(self, loaded) -> None:
        path = self._opening
        try:
            self.accept_file(path, loaded)
        except Exception as exc:  # noqa: BLE001 - shown, as a refused folder would be
            self._open_failed = True
            self.ctx.report_error(exc, None)
            return
        if path:
            self.file_opened.emit(path)

    def _open_stopped(self, completed: bool) -> None:
        if not completed and not self._open_failed:       # Cancel (or another folder)
            name = self._loading[0] if self._loading else Path(self._opening).name
            self.ctx.status(QCoreApplication.translate(
                "BaseTab", "Opening {0} was cancelled; nothing was changed.").format(name))

    def accept_file(self, path: str, model) -> None:
        """The model read from ``path`` replaces the one shown (GUI thread)."""
        self.stop_generation()
        self.model, self.model_path = model, path
        self._release_later()
        self._serial += 1
        self._loading = None
        cfg = model.config
        self.layer.setRange(0, cfg.layers - 1)
        self.head.setRange(0, cfg.heads - 1)
        self.mask_grid.set_shape(cfg.layers, cfg.heads)
        if self._pending_mask is not None and self._pending_mask.shape == (cfg.layers,
                                                                          cfg.heads):
            self.mask_grid.set_mask(self._pending_mask)
        self._pending_mask = None
        self.generated = ()
        texts.describe_model(self)
        texts.enable_for_model(self)
        arrange_views(self, model.kind)
        self._draw_generation()
        self.ctx.status(self.tr("Loaded {0}: {1} layers × {2} heads, {3} parameters.").format(
            model.name, cfg.layers, cfg.heads, texts.count(model.num_parameters)))
        self.request_update()

    def compute_now(self) -> None:
        """Compute on this thread (headless export, tests), loading the model first if
        it is not loaded (or another is being loaded) yet."""
        if self.model is None or self.is_opening():
            path = self._opening if self.is_opening() else self.model_path
            self.loads.stop()
            self.accept_file(path, self.file_reader(path)(None, None))
        self._draw_now = True
        try:
            super().compute_now()
        finally:
            self._draw_now = False
        self._draw_all()

    # -- computing -------------------------------------------------------------------------
    def request(self) -> PretrainedRequest:
        """The controls as the models' request (the tokens kept only for the text they
        were toggled in)."""
        sentence = self.sentence.text()
        pair = (self.pair.text().strip() or None) if self.pair.isEnabled() else None
        keep = None
        if self._pending_keep:
            keep = tuple(self._pending_keep)
        elif self._keep_for == (sentence, pair):
            kept = self.token_toggles.keep()
            keep = None if kept.all() else tuple(bool(k) for k in kept)
        mask = self.mask_grid.mask()
        head_mask = None if mask.all() or mask.size == 0 else tuple(map(tuple, mask.tolist()))
        return PretrainedRequest(sentence, pair, keep, head_mask, self.layer.value(),
                                 self.head.value(),
                                 split_sentences(self.sentences.toPlainText()),
                                 self.temperature.value(), self.top_k.value(),
                                 self.top_p.value(), self.steps.value(), self.seed.value(),
                                 **self._approx_params())

    def _approx_params(self) -> dict:
        """The approximation box as the request's fields."""
        return {"attention": self.approx_combo.currentData(),
                **{key: getattr(self, f"approx_{key}").value()
                   for key in ("features", "projected", "window")}}

    def compute_fn(self):
        if self.model is None:
            return lambda: self.trace
        return partial(compute, self.model, self._serial, self.request(), self.trace,
                       self.ctx.device())

    def run(self) -> None:
        """Enter or Run: compute the text now."""
        self.request_update()

    def show_trace(self, result) -> None:
        if not isinstance(result, (Shown, Refused)):
            return
        r = result.request
        if self._pending_keep is not None and r.keep == tuple(self._pending_keep):
            self._pending_keep = None          # asked for: shown or refused
        if isinstance(result, Refused):
            self.input_note.setText(result.message)
            self.input_note.setVisible(True)
            return
        self.input_note.setVisible(False)
        self.trace = result
        a = result.attention
        # the tokens as computed (a click still in flight is in the next result)
        if self.token_toggles.tokens() != a.tokens or \
                not np.array_equal(self.token_toggles.keep(), a.keep):
            self.token_toggles.set_tokens(a.tokens, a.keep)
        self._keep_for = (r.sentence, r.pair)
        texts.fill_queries(self, a.tokens)
        self.picked = self.pick()
        # one view per event-loop turn (a real model's views together held the window
        # still for a few hundred ms); each draws the record as it is when its turn comes
        self._draws = [partial(self._show_view, key) for key in
                       ("heads", "head_view", "overview", "neuron", "stats", "similarity",
                        "next", "approx", "approx_similarity")] + [self._draw_generation]
        if self._draw_now:
            self._draw_all()
        else:
            self._draw_timer.start()

    def pick(self) -> Picked:
        """The result shown with the controls' layer, head and query, within its sizes."""
        return Picked.of(self.trace, self.layer.value(), self.head.value(),
                         self.query.currentIndex())

    def _show_view(self, key: str) -> None:
        self.tab_views[key].show(self.picked)

    def _draw_generation(self) -> None:
        """The generation so far (the controls' layer and head), and its text under the
        Generate button."""
        view = self.tab_views["generation"]
        decoder = self.model is not None and self.model.kind == "decoder"
        view.show(Generated(self.generated, decoder, self.pick()))
        self.generated_label.setText(view.caption())

    def _draw_next(self) -> None:
        if self._draws:
            self._draws.pop(0)()
        if self._draws:
            self._draw_timer.start()

    def _draw_all(self) -> None:
        self._draw_timer.stop()
        while self._draws:
            self._draws.pop(0)()

    def is_drawing(self) -> bool:
        """A result is still being drawn, view by view."""
        return bool(self._draws)

    def _query_chosen(self, _index: int) -> None:
        """Another query: the neuron view is drawn again; every other view keeps its
        picture and is handed the new record, which its export names."""
        if self.trace is not None:
            self.picked = self.pick()
            for key, view in self.tab_views.items():
                if key == "neuron":
                    view.show(self.picked)
                else:
                    view.keep(self.picked)

    def pick_head(self, layer: int, head: int) -> None:
        """A head clicked in the overview: its layer and head shown."""
        self.layer.setValue(layer)
        self.head.setValue(head)

    # -- generation (a decoder) --------------------------------------------------------------
    def toggle_generation(self) -> None:
        if self.jobs.is_running():
            self.stop_generation()
            return
        if self.model is None or self.model.kind != "decoder":
            return
        self.generated = ()
        self._draw_generation()
        ask = self.request()
        self._generation_total = ask.steps
        self.jobs.start(partial(generation, self.model, ask, self.ctx.device()))
        self.generate_button.setText(self.tr("Stop"))

    def stop_generation(self) -> None:
        if self.jobs.is_running():
            self.jobs.stop()

    def _on_generated(self, steps) -> None:
        self.generated = tuple(steps)
        self._draw_generation()
        total = getattr(self, "_generation_total", len(steps)) or 1
        self.job_bar.show_progress(len(steps) / total, self.tr(
            "Generating: token {0} of {1}").format(len(steps), total))

    def _generation_stopped(self, completed: bool) -> None:
        self.generate_button.setText(self.tr("Generate"))
        if self.generated:
            self.ctx.status(self.tr("Generated {0} tokens.").format(len(self.generated)))

    # -- parameters ------------------------------------------------------------------------------
    def params(self) -> dict:
        mask = self.mask_grid.mask()
        if self._pending_mask is not None:
            mask = self._pending_mask
        keep = (self._pending_keep if self._pending_keep is not None else
                [bool(k) for k in self.token_toggles.keep()]
                if self._keep_for == (self.sentence.text(), self._pair_text()) else [])
        return {"sentence": self.sentence.text(), "pair": self.pair.text(),
                "sentences": self.sentences.toPlainText(), "layer": self.layer.value(),
                "head": self.head.value(), "query": max(0, self.query.currentIndex()),
                "temperature": round(self.temperature.value(), 2),
                "top_k": self.top_k.value(), "top_p": round(self.top_p.value(), 2),
                "steps": self.steps.value(), "seed": self.seed.value(),
                "head_mask": [] if mask.size == 0 or mask.all() else
                [[int(v) for v in row] for row in mask],
                "keep": [] if not keep or all(keep) else list(keep), **self._approx_params()}

    def _pair_text(self) -> str | None:
        return (self.pair.text().strip() or None) if self.pair.isEnabled() else None

    def apply_state(self, st: dict, strict: bool = False) -> None:
        if strict:
            state.check(st)
        for key, edit in (("sentence", self.sentence), ("pair", self.pair)):
            if key in st:
                edit.setText(str(st[key]))
        if "sentences" in st:
            self.sentences.blockSignals(True)
            self.sentences.setPlainText(str(st["sentences"]))
            self.sentences.blockSignals(False)
        for key, box in (("layer", self.layer), ("head", self.head), ("top_k", self.top_k),
                         ("steps", self.steps), ("seed", self.seed),
                         ("temperature", self.temperature), ("top_p", self.top_p)):
            if key in st:
                box.setValue(st[key])
        if "query" in st:
            self._wanted_query = int(st["query"])
            if 0 <= self._wanted_query < self.query.count():
                self.query.setCurrentIndex(self._wanted_query)
        approx = state.approximation(st)
        if "attention" in approx:
            self.approx_combo.setCurrentIndex(self.approx_combo.findData(approx["attention"]))
        for key in ("features", "projected", "window"):
            if key in approx:
                getattr(self, f"approx_{key}").setValue(approx[key])
        if "head_mask" in st:
            self._set_head_mask(state.head_mask(st["head_mask"]))
        if "keep" in st:
            self._pending_keep = state.keep(st["keep"]) or None
            if self._pending_keep is None:
                self.token_toggles.set_keep(np.ones(len(self.token_toggles.tokens()), bool))
        self.schedule_update()

    def _set_head_mask(self, rows: list[list[int]]) -> None:
        shape = self.mask_grid.shape()
        if not rows:
            self._pending_mask = None
            if shape[0]:
                self.mask_grid.set_mask(np.ones(shape, np.float32))
            return
        mask = np.array(rows, np.float32)
        if mask.shape == shape and not self.is_opening():
            self.mask_grid.set_mask(mask)
            self._pending_mask = None
        else:                      # for the model being loaded (a session, a tour)
            self._pending_mask = mask

    # -- sessions -----------------------------------------------------------------------------
    def session_inputs(self) -> tuple[dict, dict]:
        path = self._opening if self.is_opening() else self.model_path
        return {"model": path}, {}

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        """The session's model folder: loaded in the background if it is not the one
        shown (a folder that is gone or refused is named, and nothing changes)."""
        from models.errors import SessionFileError

        path = state.session_model(data, name)
        loaded = self._opening if self.is_opening() else self.model_path
        if path == loaded and (self.model is not None or self.is_opening()):
            return
        if not path and bundled_model_path() is None:
            raise SessionFileError(f"{name}: the pretrained tab shows the bundled model "
                                   f"{BUNDLED_NAME}, which is not installed here. Install "
                                   f"it with: {INSTALL_COMMAND}")
        try:
            self.start_open(path)
        except Exception as exc:  # noqa: BLE001 - refused: the session names the folder
            raise SessionFileError(f"{name}: the pretrained tab's model cannot be opened: "
                                   f"{exc}") from exc

    def view(self, key: str):
        """A view by key, also one the loaded model's kind does not show."""
        return self.all_views[key]

    def shutdown(self) -> None:
        from viz.legend import release_anchors

        super().shutdown()
        for v in self.all_views.values():
            if v not in self.views:
                release_anchors(v.panel.graphics.scene())

    # -- translations ------------------------------------------------------------------------------
    def retranslate(self) -> None:
        texts.retranslate(self)
        super().retranslate()
        if self.trace is not None:
            # every view's words in the new language now, not one view per turn: the
            # views not redrawn yet kept the old language's tile titles and read-outs
            # meanwhile, and a screenshot taken after a long turn caught them (the views
            # keep their shapes, so drawing them all again takes 15-25 ms)
            self._draw_now = True
            try:
                self.show_trace(self.trace)
            finally:
                self._draw_now = False
        else:
            # the titles before a result name the controls' layer
            self.picked = self.pick()
            for key in self.tab_views:
                if key != "generation":
                    self._show_view(key)
            self._draw_generation()
