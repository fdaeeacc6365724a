"""The graph-generation tab: a family of small graphs (GraphRNN's community family, grids,
ego networks, or a folder of the student's own graphs), GraphRNN trained on its training
share live, and the generators compared on the held-out share with the GraphRNN paper's
MMD² of degree and clustering histograms, next to Erdős–Rényi, Barabási–Albert and a
fitted stochastic block model.

Views: a gallery of training graphs beside each generator's samples, the MMD table as
bars (with wall times and the training graphs' own distance as a reference), and
GraphRNN's loss curve with the step whose weights sample.

The baselines are fitted and scored whenever the family changes (``compute_fn``, a few
seconds of networkx off the GUI thread). Two jobs on the ``TrainingTab`` base: "train"
(GraphRNN, the Train button) and "compare" (GraphRNN sampled and scored). A folder is
read in the background with the load bar's Cancel. The background computations are
``models.generation.view``'s, asked with the ``GenerationRequest`` of the controls; the
views (``views``) see the comparison shown and the loss curve as small records.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog

from app.tabs.base import TabContext
from app.tabs.generation.controls import build_controls, parse_methods, truthy
from app.tabs.generation.params import ACTIONS, DEFAULTS, FOLDER, MAX_SHOWN, SAMPLES
from app.tabs.generation.state import GenerationSessionFile
from app.tabs.generation.views import (
    GalleryView,
    LossShown,
    LossView,
    MMDView,
    Shown,
    family_label,
    row_labels,
)
from app.tabs.training import TrainingTab
from models.generation.options import DATASETS, GenerationRequest
from models.traces import Progress


def _train(session, steps: int, every: int):
    return session.train(steps, every=every)


def _with_new_session(make, made, run):
    """A job that makes its session first (any thread), hands it to ``made`` (a queued
    signal: the tab keeps it on its own thread, before any progress of the job arrives),
    then runs ``run(session)``."""
    session = make()
    made(session)
    yield from run(session)


class GenerationTab(GenerationSessionFile, TrainingTab):
    key = "generation"
    samples = SAMPLES
    #: a job made the session of a family (its key, the session), in the job's thread
    session_made = Signal(object, object)

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.result = None                 # GenerationView of the family shown
        self._result_key: tuple | None = None
        self.learned: dict[tuple, object] = {}      # GraphRNN's comparison per family
        self.sessions = self.keep_sessions(3, lambda: self._shown_session_key(),
                                           lambda: self.running() and self._running_key,
                                           forget=(self.learned,))
        self._running_key: tuple | None = None
        self.session_made.connect(self._keep_session)
        self._train_start = 0
        self._train_steps = 1
        self._last_curve = 0.0
        self.folder = None                 # GraphSet of the folder opened
        self.folder_name = ""
        self.folder_token = 0              # counts the folders accepted
        self._dataset_before = "community"
        build_controls(self)
        self.data_form.changed.connect(self._data_changed)
        self.show_form.changed.connect(self._show_changed)
        self.loads.failed.connect(lambda f: self.error_note.setText(str(f.error)))
        self._build_views()
        self.retranslate()
        self.schedule_update()

    def _build_views(self) -> None:
        self.gallery_view, self.mmd_view = GalleryView(self), MMDView(self)
        self.loss_view = LossView(self)
        self.tab_views = (self.gallery_view, self.mmd_view, self.loss_view)
        self.add_view(self.gallery_view, 0, 0, 1, 2)
        self.add_view(self.mmd_view, 1, 0)
        self.add_view(self.loss_view, 1, 1)
        for view in self.tab_views:
            view.status.connect(self.ctx.status)
        self.grid.setRowStretch(0, 3)
        self.grid.setRowStretch(1, 2)
        self.grid.setColumnStretch(0, 3)
        self.grid.setColumnStretch(1, 2)

    # -- parameters ------------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.data_form.values(), **self.train_form.values(),
                **self.show_form.values()}

    def request(self) -> GenerationRequest:
        """The controls as the models' request."""
        return GenerationRequest.from_values(self.params())

    def selected_methods(self) -> tuple[str, ...]:
        return self.request().methods

    def apply_state(self, state: dict, strict: bool = False) -> None:
        """Every control by key, and: ``methods`` (a list or comma-separated names: the
        methods compared), ``train`` (start or stop training GraphRNN), ``compare``
        (sample GraphRNN and score it). ``dataset = "folder"`` needs a folder opened."""
        from models.errors import InvalidParameterError

        known = set(DEFAULTS) | set(ACTIONS)
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        state = dict(state)
        problems = []
        if "methods" in state:
            shows, problems = parse_methods(state["methods"])
            for key, value in shows.items():
                state.setdefault(key, value)
        if state.get("dataset") == FOLDER and self.folder is None:
            problems.append("dataset: open a folder of graphs first.")
            state.pop("dataset")
        if strict and not problems:   # the values as the request takes them, or why not
            GenerationRequest.from_values({**self.params(), **state})
        problems += (self.data_form.set_values(state) + self.train_form.set_values(state)
                     + self.show_form.set_values(state))
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        self._data_changed()
        self._show_changed()
        if "train" in state and truthy(state["train"]) != (self.running() == "train"):
            self.toggle_job("train")
        if "compare" in state and truthy(state["compare"]) and self.running() != "compare":
            self.toggle_job("compare")

    def _params_key(self) -> tuple:
        ask = self.request()
        if ask.is_folder:
            return (FOLDER, ask.seed, self.folder_token, ask.baselines)
        return (ask.dataset, ask.seed, ask.count, ask.baselines)

    def selected_baselines(self) -> tuple[str, ...]:
        return self.request().baselines

    def _data_changed(self) -> None:
        p = self.data_form.values()
        if p["dataset"] == FOLDER and self.folder is None:
            self.data_form.set_values({"dataset": self._dataset_before})
            self.error_note.setText(self.tr("Open a folder of graphs first (“Open folder of "
                                            "graphs…”)."))
            return
        self._dataset_before = p["dataset"]
        self.data_form.set_visible_rows({"dataset", "seed"} | (
            set() if p["dataset"] == FOLDER else {"count"}))
        self._redraw_all()
        self.schedule_update()
        self.update_buttons()

    def _show_changed(self) -> None:
        self._redraw_all()
        if self.result is not None and self._result_key != self._params_key():
            self.schedule_update()

    # -- the family and its baselines ------------------------------------------------------------
    def compute_fn(self):
        from models.generation.view import generation_view

        # the view shown is returned as it is when family and baselines are the same
        fn = partial(generation_view, self.request(), graphs=self.folder,
                     name=self.folder_name, reuse=self.result)
        key = self._params_key()
        return lambda: (key, fn())

    def show_trace(self, result) -> None:
        if result is None:
            return
        key, view = result
        self._apply_result(key, view)

    def _apply_result(self, key: tuple, view) -> None:
        self.result, self._result_key = view, key
        self._redraw_all()
        self.update_buttons()

    def current_view(self):
        """The ``GenerationView`` of the controls now (None while it is being made)."""
        return self.result if self._result_key == self._params_key() else None

    def _data(self):
        """The family the controls ask for: the one shown, or made now (a fraction of a
        second; a training or comparison must not wait for the baselines)."""
        from models.generation.view import request_data

        if self.current_view() is not None:
            return self.result.data
        return request_data(self.request(), self.folder, self.folder_name)

    def shown_comparison(self):
        """The baselines' comparison with GraphRNN's row merged in (when it was sampled
        and is among the methods compared), or None."""
        from models.generation.view import merge_comparisons

        view = self.current_view()
        if view is None:
            return None
        learned = self.learned.get(view.data.key) if "graphrnn" in self.selected_methods() \
            else None
        return merge_comparisons(learned, view.baselines)

    def family_label(self) -> str:
        """The family shown, in a few words (a folder by its name)."""
        view = self.current_view()
        return family_label(view.data if view is not None else None)

    def row_labels(self, shown) -> dict[str, str]:
        return row_labels(shown)

    # -- the folder ------------------------------------------------------------------------------
    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Open folder of graphs"), self.ctx.settings.last_dir("open"))
        if folder:
            self.open_folder(folder)

    def open_folder(self, path: str) -> None:
        """Read the graph files of ``path`` in the background (the load bar shows how far,
        with Cancel); the family shown stays until the folder is accepted."""
        self.error_note.setText("")
        self.start_open(path)

    def file_reader(self, path: str):
        from models.generation.view import read_graph_folder

        return lambda progress, cancelled: read_graph_folder(path, progress, cancelled)

    def accept_file(self, path: str, loaded) -> None:
        self.folder, self.folder_name = loaded, Path(path).name
        self.folder_token += 1
        self.error_note.setText("")
        self.data_form.set_values({"dataset": FOLDER})
        self._data_changed()
        self._update_folder_note()

    def _update_folder_note(self) -> None:
        self.folder_note.setText("" if self.folder is None else self.tr(
            "Folder “{0}”: {1} graphs, {2}–{3} nodes").format(
                self.folder_name, len(self.folder), int(self.folder.num_nodes.min()),
                int(self.folder.num_nodes.max())))

    # -- sessions --------------------------------------------------------------------------------
    def _shown_session_key(self) -> tuple | None:
        view = self.current_view()
        return view.data.key if view is not None else None

    def _session_for(self, d):
        from models.generation.view import make_session

        session = self.sessions.get(d.key)
        if session is None:
            session = make_session(d, device=self.ctx.device())
            self.sessions[d.key] = session
        return session

    def _keep_session(self, key, session) -> None:
        self.sessions.setdefault(key, session)

    def current_session(self):
        key = self._shown_session_key()
        return self.sessions.get(key) if key is not None else None

    def training_sessions(self) -> list:
        return self.sessions.values()

    def saved_sessions(self) -> dict[str, object]:
        session = self.current_session()
        return {"main": session} if session is not None else {}

    def reset_training(self) -> None:
        """GraphRNN back to its initial weights (the family's seed); its samples go too."""
        key = self._shown_session_key()
        if self.running() and self._running_key == key:
            self.stop_jobs()
        if key is not None:
            self.sessions.pop(key, None)
            self.learned.pop(key, None)
        self.error_note.setText("")
        self._redraw_all()
        self.update_buttons()

    # -- jobs ------------------------------------------------------------------------------------
    def toggle_compare(self) -> None:
        self.toggle_job("compare")

    def make_job(self, name: str):
        from models.errors import InvalidParameterError
        from models.generation.view import learned_comparison, make_session

        d = self._data()
        if name == "compare" and "graphrnn" not in self.selected_methods():
            raise InvalidParameterError(self.tr(
                "Tick GraphRNN among the methods compared: the baselines are scored "
                "already."))
        session = self.sessions.get(d.key)
        self._running_key = d.key
        if name == "train":
            steps = self.request().steps
            self._train_start, self._train_steps = (session.step if session else 0), steps
            run = partial(_train, steps=steps, every=max(1, min(25, steps // 10)))
        else:
            run = partial(learned_comparison, d, samples=SAMPLES, shown=MAX_SHOWN)
        if session is not None:
            return partial(run, session)
        # a new session checks and packs every training graph: seconds for a folder of
        # large graphs, so in the job (the window kept on the tab's thread 150 s once)
        return partial(_with_new_session, partial(make_session, d, device=self.ctx.device()),
                       partial(self.session_made.emit, d.key), run)

    def job_text(self, name: str, progress: Progress) -> str:
        if name == "train":
            return self.tr("GraphRNN: step {0} · loss {1:.4f} · {2:.1f} steps/s").format(
                progress.step, progress.loss, progress.metrics.get("steps_per_s", 0.0))
        return self.tr("GraphRNN: drawing {0} graphs and scoring them…").format(SAMPLES)

    def job_fraction(self, name: str, progress: Progress) -> float:
        if name == "train":
            return (progress.step - self._train_start) / max(1, self._train_steps)
        return progress.fraction

    def job_done_text(self, name: str, completed: bool, failed: bool) -> str:
        if failed or not name:
            return ""
        if name == "compare":
            return self.tr("GraphRNN sampled and scored.") if completed else ""
        return self.tr("Training done: press Compare to sample GraphRNN.") if completed \
            else self.tr("Training stopped.")

    def on_job_progress(self, name: str, progress: Progress) -> None:
        if name == "compare" and progress.trace is not None:
            if self._running_key is not None:
                self.learned[self._running_key] = progress.trace
            self._redraw_all()
            return
        now = time.monotonic()
        if now - self._last_curve > 0.3:
            self._last_curve = now
            self._show_loss()
        self.update_buttons()

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        self._redraw_all()

    def update_buttons(self) -> None:
        s = self.current_session()
        self.train_button.setText(self.job_button_text("train", (
            self.tr("Resume training") if s is not None and s.step else self.tr("Train"))))
        self.compare_button.setText(self.job_button_text("compare", self.tr(
            "Compare: sample GraphRNN and score it")))
        for b in (self.train_button, self.compare_button, self.reset_button):
            b.setEnabled(self.torch_ready)
        self.status.setText(self.status_text())

    def status_text(self) -> str:
        s = self.current_session()
        return "" if s is None or not s.step else self.tr(
            "{0} steps trained (each: one batch of up to {1} training graphs)").format(
                s.step, s.batch_size)

    # -- drawing and translations ---------------------------------------------------------------
    def _redraw_all(self) -> None:
        ask = self.request()
        view = self.current_view()
        shown = Shown(self.shown_comparison(), view.data if view is not None else None)
        self.gallery_view.show(shown, ask)
        self.mmd_view.show(shown, ask)
        self._show_loss(ask)

    def _show_loss(self, ask: GenerationRequest | None = None) -> None:
        session = self.current_session()
        data = self.result.data if self.result is not None else None
        shown = LossShown(entropy=data.entropy if data is not None else None)
        if session is not None and session.losses:
            shown = LossShown(np.asarray(session.losses, np.float32),
                              session.best_shown_step(), session.select_every,
                              shown.entropy)
        self.loss_view.show(shown, ask or self.request())

    def retranslate(self) -> None:
        self.data_form.setTitle(self.tr("Graphs"))
        self.data_form.set_texts(
            {"dataset": self.tr("Family"), "count": self.tr("Graphs made"),
             "seed": self.tr("Seed")},
            {"dataset": [self.tr("two communities (GraphRNN's community-small)"),
                         self.tr("2D grids 4–6 × 4–6"), self.tr("ego networks (radius 1)"),
                         self.tr("your folder of graphs")]})
        self.train_form.setTitle(self.tr("GraphRNN (learned)"))
        self.train_form.set_texts({"steps": self.tr("Steps per Train")}, {})
        self.show_form.setTitle(self.tr("Methods compared"))
        self.show_form.set_texts(
            {"show_graphrnn": self.tr("GraphRNN"), "show_er": self.tr("Erdős–Rényi"),
             "show_ba": self.tr("Barabási–Albert"), "show_sbm": self.tr("stochastic block "
                                                                         "model"),
             "shown": self.tr("Graphs per row")}, {})
        self.folder_button.setText(self.tr("Open folder of graphs…"))
        self.folder_button.setToolTip(self.tr("One small graph per file (GraphML, GEXF, GML, "
                                              "edge list…); the graphs shown stay until the "
                                              "folder is read"))
        self.reset_button.setText(self.tr("Start over"))
        self.reset_button.setToolTip(self.tr("GraphRNN back to its initial weights; the "
                                             "training so far is dropped"))
        self.compare_note.setText(self.tr("The baselines are fitted and scored when the "
                                          "graphs change; Compare draws {0} graphs from "
                                          "GraphRNN with the weights its own scoring kept."
                                          ).format(SAMPLES))
        for view in self.tab_views:
            view.label()
        self._update_folder_note()
        super().retranslate()
        for v in self.views:
            v.panel.set_title(v.title())
        self._redraw_all()

    @property
    def trace(self):
        return self.result


__all__ = ["GenerationTab", "DATASETS"]
