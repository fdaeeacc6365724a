"""The graph tab: a graph (built in or the user's file) on a canvas, a GCN, GraphSAGE or
GAT run on it live, message passing into one node with the real layer's numbers, GCN
coefficients and GAT attention on the edges, node classification trained live with its
hidden embedding, PyG's batching, graph classification with pooling, link prediction.

Four jobs on the ``TrainingTab`` base: "node" (the base's Train button), "compare",
"graphs" and "links", each with its own button, and the panels' ("communities",
``communities.CommunitiesPanel``; "explain" and "explain_best",
``explaining.ExplanationPanel``). The controls are built by ``controls`` from
``params``, the views are ``views``' classes, arranged by ``arrange``; the background
computations are ``models.graphs.probe``'s, asked with a ``GraphRequest``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from app.tabs.base import TabContext
from app.tabs.graph import communities, depth, explaining
from app.tabs.graph import state as session_file
from app.tabs.graph.arrange import NARROW, Arranger
from app.tabs.graph.controls import (
    ACTIONS,
    JOB_KEYS,
    MODEL_PARAMS,
    build_controls,
    checked_features,
    dataset_texts,
    fill_attribute_box,
    retranslate_controls,
)
from app.tabs.graph.describe import describe_document, job_text
from app.tabs.graph.documents import GraphDocuments
from app.tabs.graph.params import AUTO_LINK_NODES, GRAPH_EPOCHS, LINK_EPOCHS
from app.tabs.graph.views import (
    BatchView,
    CompareView,
    EmbeddingView,
    GraphShown,
    GraphView,
    LinksView,
    MessagesView,
    PooledView,
    TrainingShown,
    TrainingView,
)
from app.tabs.kept import Kept
from app.tabs.training import TrainingTab
from models.graphs.options import DATASETS, GraphRequest
from models.traces import Progress
from models.traces.graphs import GraphResult, ModelComparison


class GraphTab(GraphDocuments, TrainingTab):
    train_job = "node"          # the Train button trains the node classifier
    key = "graph"
    #: the node looked at belongs to the graph of the moment (loaded after the restore)
    not_remembered = ("node",)

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.result: GraphResult | None = None
        # what is kept per setting is bounded (issue 19), never what is on screen or trains:
        # (dataset, seed[, attribute choice]) -> doc, made again from the seed when needed
        self.docs = Kept(8, pinned=lambda: {self._doc_key(), self._choice_doc_key()},
                         precious=lambda doc: False)
        self.file_doc = None                         # the opened file's document, as read
        self.file_name = ""
        self._file_id = 0
        self.histories: dict[tuple, list[dict]] = {}  # session key -> evaluations so far
        self._running_key: tuple | None = None
        self.sessions = self.keep_sessions(          # node classifiers
            6, lambda: self._session_key(), lambda: self.running() == "node" and
            self._running_key, forget=(self.histories,))
        self.graph_sessions: dict[str, object] = {}  # pooling -> graph classifier
        self.link_sessions = self.keep_sessions(4, lambda: self._graph_key())
        self.motif = None                            # the graph-classification data set
        self.layouts = Kept(16, pinned=lambda: {self._layout_key()}, precious=lambda p: False)
        self._shown_doc_key: tuple | None = None
        # comparison key -> accuracies; the same before training
        self.comparisons = Kept(8, pinned=lambda: {self._compare_key(), self.running() ==
                                                   "compare" and self._running_key})
        self.untrained = Kept(8, pinned=lambda: {self._untrained_key()},
                              precious=lambda c: False)
        self._last_redraw = 0.0
        self._untrained_for: tuple = ()
        self.communities = communities.CommunitiesPanel(self, self)
        self.explaining = explaining.ExplanationPanel(self, self)
        self.depth = depth.DepthPanel(self, self)
        build_controls(self)
        self.graph_form.changed.connect(self._graph_changed)
        self.model_form.changed.connect(self._model_changed)
        self.show_form.changed.connect(self._show_changed)
        self.task_form.changed.connect(self.schedule_update)
        self._build_views()
        self._connect_panels()
        self.retranslate()
        self._show_changed()

    def _build_views(self) -> None:
        self.graph_view, self.messages_view = GraphView(self), MessagesView(self)
        self.embedding_view, self.training_view = EmbeddingView(self), TrainingView(self)
        self.compare_view, self.batch_view = CompareView(self), BatchView(self)
        self.pooled_view, self.links_view = PooledView(self), LinksView(self)
        self.canvas = self.graph_view.plot               # the graph, as tests and tours see it
        self.tab_views = (self.graph_view, self.messages_view, self.embedding_view,
                          self.training_view, self.compare_view, self.batch_view,
                          self.pooled_view, self.links_view, self.communities.view,
                          *self.depth.views)
        for view in self.tab_views:
            self.add_view(view, *NARROW[view.key])
            view.status.connect(self.ctx.status)
        self.graph_view.nodeClicked.connect(self._node_clicked)
        self.embedding_view.nodeClicked.connect(self._node_clicked)
        self.arranger = Arranger(self.grid, self.views, self.grid_scroll.viewport(), self)

    def _connect_panels(self) -> None:
        for panel in (self.communities, self.explaining, self.depth):
            panel.toggled.connect(self.toggle_job)
        self.depth.form.changed.connect(self.schedule_update)
        self.communities.found.connect(self._colour_by_communities)
        self.communities.changed.connect(self._communities_changed)
        self.explaining.node_chosen.connect(lambda node: self.show_form.set_values(
            {"node": node}))
        self.explaining.changed.connect(self.redraw_edges)

    @property
    def trace(self) -> GraphResult | None:
        return self.result

    # -- parameters ----------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.graph_form.values(), **self.model_form.values(),
                **self.show_form.values(), **self.task_form.values(),
                **self.communities.values(), **self.explaining.values(),
                **self.depth.values()}

    def request(self) -> GraphRequest:
        """The controls as the models' request."""
        return GraphRequest.from_values(self.params())

    def apply_state(self, state: dict, strict: bool = False) -> None:  # graph, attributes, rest
        from models.errors import ArchScopeError, InvalidParameterError

        known = set(self.params()) | set(ACTIONS)
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
        if strict:                          # each value checked as the request checks it
            GraphRequest.from_values({**self.params(), **state})
        # 1. the graph first: the node spin box's range depends on it
        graph_before = (self._doc_key(), self.graph_form.values())
        problems = self.graph_form.set_values(state)
        if state.get("dataset") == "file" and self.file_doc is None:
            problems.append("dataset=file needs a graph file: File → Open… first.")
            self.graph_form.set_values({"dataset": "karate"})
        if (self._doc_key(), self.graph_form.values()) != graph_before:
            self._graph_changed()
        # 2. the attributes, checked on the graph before they are kept
        doc = self.base_document()
        if "label" in state or "features" in state:
            label, features = self._attr_choice.get(self._doc_key(),
                                                    (doc.label_attr, doc.feature_attrs))
            label = state.get("label", label) or None
            if isinstance(state.get("features"), (list, tuple)):   # names with commas
                features = tuple(str(f) for f in state["features"])
            elif "features" in state:
                features = tuple(f for f in str(state["features"]).split(",") if f)
            try:
                doc.with_attributes(label, features)
            except ArchScopeError as exc:
                problems.append(str(exc))
            else:
                self._attr_choice[self._doc_key()] = (label, features)
                fill_attribute_box(self, doc)
        if "colour_attribute" in state:
            index = self.colour_combo.findData(state["colour_attribute"])
            if index < 0:
                problems.append(f"colour_attribute: this graph has no attribute "
                                f"'{state['colour_attribute']}'.")
            self.colour_combo.setCurrentIndex(max(0, index))
        # 3. the model and the view
        model_keys = set(state) & {p.key for p in MODEL_PARAMS}
        problems += self.model_form.set_values(state)
        problems += self.show_form.set_values(state) + self.task_form.set_values(state)
        problems += self.communities.apply_state(state) + self.explaining.apply_state(state)
        problems += self.depth.apply_state(state)
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        if model_keys:
            self._model_changed()
        else:
            self._show_changed()
        for job in self.explaining.start_jobs([job for key, job in JOB_KEYS if state.get(key)]):
            if self.running() != job:
                self.toggle_job(job)

    def _attributes_changed(self) -> None:
        if self._filling:
            return
        label = self.label_combo.currentData()
        self._attr_choice[self._doc_key()] = (label, checked_features(self))
        self.stop_jobs()
        self.schedule_update()

    def _graph_changed(self) -> None:
        if self.graph_form.values()["dataset"] == "file" and self.file_doc is None:
            self.graph_form.set_values({"dataset": "karate"})
            self.error_note.setText(self.tr("“Your file” needs a graph file first: "
                                            "File → Open…"))
        self.stop_jobs()
        try:
            doc = self.document()
        except Exception as exc:  # noqa: BLE001 - GraphLoadError etc.: shown, karate kept
            self.ctx.report_error(exc, None)
            self.graph_form.set_values({"dataset": "karate"})
            doc = self.document()
        fill_attribute_box(self, doc)
        if self._doc_key() != self._shown_doc_key:        # another graph: node 0 again
            self._shown_doc_key = self._doc_key()
            self.show_form.set_values({"node": 0})
        self.show_form.widgets["node"].setMaximum(doc.data.num_nodes - 1)
        self.update_buttons()
        self.schedule_update()

    def _model_changed(self) -> None:
        # another model stops the training; the same one given again (a tour step going
        # back) or a new learning rate (set_lr below) does not
        if self.running() == "node" and self._running_key != self._session_key():
            self.stop_jobs()
        session = self.sessions.get(self._session_key())
        if session is not None:
            session.set_lr(self.params()["lr"])      # also named in divergence messages
        p = self.params()
        self.model_form.set_visible_rows(
            {"model", "hidden", "train_per_class", "lr", "epochs"}
            | ({"edge_weights"} if p["model"] == "gcn" else set())
            | ({"heads"} if p["model"] == "gat" else set())
            | ({"aggr"} if p["model"] == "sage" else set()))
        self.depth.set_model(p["model"])
        self.update_buttons()
        self._show_changed()

    def _show_changed(self) -> None:
        p = self.params()
        rows = {"colour", "size", "edges", "node", "layer", "aggregation"}
        if p["edges"] == "gat" or (p["model"] == "gat"):
            rows.add("head")
        if p["edges"] == "sage":
            rows |= {"sample", "sample_seed"}
        self.show_form.set_visible_rows(rows)
        self.colour_combo.setEnabled("attribute" in (p["colour"], p["size"]))
        self.schedule_update()

    def _node_clicked(self, index: int) -> None:
        self.show_form.set_values({"node": index})
        self._show_changed()

    def _colour_by_communities(self) -> None:
        """A partition of the graph shown arrived: the nodes (and the embedding) coloured
        by community; only they are redrawn, no model is run again (the colour plays no
        part in the tab's trace)."""
        self.show_form.blockSignals(True)
        self.show_form.set_values({"colour": "community"})
        self.show_form.blockSignals(False)
        self.colour_combo.setEnabled(False)       # as ``_show_changed`` would
        self._communities_changed()

    def _communities_changed(self) -> None:
        if self.result is not None and self.params()["colour"] == "community":
            self.redraw_node_colours()

    # -- documents and sessions ------------------------------------------------------------------
    def drawn_key(self) -> tuple | None:
        """The graph the canvas draws (the controls may name another already)."""
        return None if self.result is None else self.result.layout_key[0]

    def device(self) -> str:
        return self.ctx.device()

    def ensure_visible(self, widget) -> None:
        self.controls_scroll.ensureWidgetVisible(widget, 0, 0)

    # -- computing -----------------------------------------------------------------------------
    def compute_fn(self):
        from models.errors import ArchScopeError
        from models.graphs.probe import graph_result

        ask = self.request()
        try:
            doc = self.document()
            session = self.session()
        except ArchScopeError as exc:       # an attribute choice this graph refuses
            self._attr_choice.pop(self._doc_key(), None)
            self.ctx.report_error(exc, None)
            return lambda: None
        layout_key = self._layout_key()
        self._untrained_for = self._untrained_key()      # only the latest result arrives
        # the other two tasks are drawn untrained until trained: sessions made now
        graph_session, link_session = self.graph_sessions.get(ask.pooling), None
        try:
            graph_session = self.graph_session()
            link_session = self.link_sessions.get(self._graph_key())
            if link_session is None and doc.data.num_nodes <= AUTO_LINK_NODES:
                link_session = self.link_session()
        except ArchScopeError:              # e.g. too few edges to hold some out
            pass
        # the batch of motif graphs changes only with their number: kept, not recollated
        batch = self.result.batch if self.result is not None else None
        if batch is None or len(batch.ptr) - 1 != ask.batch_graphs:
            batch = None
        untrained = self.untrained.get(self._untrained_key())
        if untrained is None and not self.isVisible():
            # the untrained models' accuracies only matter once someone looks: computed
            # then (a window closed right after start does not wait for them)
            self.when_shown(self.request_update, key="untrained")
        return partial(graph_result, doc, ask, session, self.layouts.get(layout_key),
                       layout_key, self.motif_graphs(), batch, graph_session, link_session,
                       self._dataset_name(), untrained=untrained,
                       device=self.ctx.device() if self.isVisible() else None,
                       depth=self.depth.untrained.get(self.depth.key()),
                       depth_key=self.depth.key())

    def show_trace(self, result: GraphResult) -> None:
        if result is None:
            return
        if result.layout_key[0] == self._doc_key() and result.name != self._dataset_name():
            # computed before a language switch: its name in the language shown now
            result = replace(result, name=self._dataset_name())
        self.layout_note.setText(result.layout_error)
        self.layouts[result.layout_key] = result.pos
        if result.untrained is not None:     # computed for the settings of compute_fn
            self.untrained.setdefault(self._untrained_for, result.untrained)
        self.depth.keep_untrained(result.depth_key, result.depth)
        self.result = result
        g = self.graph_form.values()
        self.note.setText(describe_document(result.doc, g["dataset"], g["seed"]))
        self._draw_all()

    def _graph_shown(self) -> GraphShown:
        return GraphShown(self.result, self.colour_combo.currentData(),
                          self.communities.drawn(), self.explaining.current())

    def _draw_all(self) -> None:
        """Every view from the tab's result, and the titles."""
        ask, result = self.request(), self.result
        shown = self._graph_shown()
        self.graph_view.show(shown, ask)
        self.embedding_view.show(shown, ask)
        for view in (self.messages_view, self.batch_view, self.pooled_view,
                     self.links_view):
            view.show(result, ask)
        self._show_training(ask)
        self.depth.show(result, ask)
        self.communities.redraw()
        self.explaining.readout.setText(self.explaining.text())

    def _show_training(self, ask: GraphRequest) -> None:
        training = TrainingShown(self.result, tuple(self.histories.get(self._session_key(), ())),
                                 self.comparisons.get(self._compare_key()))
        self.training_view.show(training, ask)
        self.compare_view.show(training, ask)

    # -- jobs ----------------------------------------------------------------------------------
    def make_job(self, name: str):
        from models.errors import ArchScopeError

        ask = self.request()
        try:
            if name == "node":
                self._running_key = self._session_key()
                return partial(self.session().train, ask.epochs, report_every=5)
            if name == "compare":
                from models.graphs.probe import model_comparison

                self._running_key = self._compare_key()
                return partial(model_comparison, self.document().data, ask.epochs,
                               ask.seed, ask.train_per_class, self.ctx.device(),
                               **ask.session_kwargs())
            if name == "graphs":
                return partial(self.graph_session().train, GRAPH_EPOCHS)
            if name == "links":
                return partial(self.link_session().train, LINK_EPOCHS)
            if name == communities.JOB:
                return self.communities.make_job()
            if name in (explaining.JOB, explaining.PICK_JOB):
                return self.explaining.make_job(name)
            if name == depth.JOB:
                return self.depth.make_job(self.document().data, self.ctx.device())
        except ArchScopeError as exc:        # e.g. too few edges to hold some out
            self.ctx.report_error(exc, None)
            raise                            # and in the error note
        return None

    def job_text(self, name: str, progress: Progress) -> str:
        return job_text(name, progress)

    def job_fraction(self, name: str, progress: Progress) -> float:
        return progress.fraction

    def on_job_progress(self, name: str, progress: Progress) -> None:
        t = progress.trace
        if name == communities.JOB:
            return self.communities.on_progress(progress)
        if name in (explaining.JOB, explaining.PICK_JOB):
            return self.explaining.on_progress(progress)
        if name == depth.JOB:
            return self.depth.on_progress(progress)
        if name == "compare" and isinstance(t, ModelComparison):
            self.comparisons[self._running_key] = t
            if self.result is not None:     # three reports: each drawn as it comes
                self._show_training(self.request())
        elif name == "node" and t is not None:
            history = self.histories.setdefault(self._running_key, [])
            while history and history[-1]["epoch"] >= t.epoch:   # rolled back
                history.pop()
            history.append({"epoch": t.epoch, "loss": t.loss, "train_acc": t.train_acc,
                            "val_acc": t.val_acc, "test_acc": t.test_acc})
        now = time.monotonic()
        if now - self._last_redraw > 0.2:
            self._last_redraw = now
            self.request_update()

    def update_buttons(self) -> None:
        """Word the four job buttons ("Train" / "Train more", "Compare", "Train graph
        classifier", "Train link predictor"; "Stop" on the running one), enable them and
        write the status line."""
        trained = self.trained_steps()
        self.train_button.setText(self.job_button_text(
            "node", self.tr("Train more") if trained else self.tr("Train")))
        self.compare_button.setText(self.job_button_text("compare", self.tr("Compare")))
        self.graph_button.setText(self.job_button_text("graphs",
                                                       self.tr("Train graph classifier")))
        self.link_button.setText(self.job_button_text("links", self.tr("Train link predictor")))
        for button in (self.train_button, self.compare_button, self.graph_button,
                       self.link_button):
            button.setEnabled(self.torch_ready)
        self.communities.update_button()
        self.explaining.update_button()
        self.depth.update_button()
        self.status.setText(self.status_text())

    def current_session(self):
        return self.sessions.get(self._session_key())

    def on_job_stopped(self, name: str, completed: bool, failed: bool) -> None:
        if name in (communities.JOB, explaining.JOB, explaining.PICK_JOB):
            return None if name != communities.JOB else self.communities.on_stopped(completed)
        super().on_job_stopped(name, completed, failed)
        if name == "node":
            self.explaining.on_training_stopped(completed, failed)

    def status_text(self) -> str:
        epochs = self.trained_steps()
        return self.tr("{0} epochs trained").format(epochs) if epochs else ""

    def on_torch_ready(self) -> None:
        super().on_torch_ready()
        self._graph_changed()

    # -- session files (what is kept: app/tabs/graph/state.py) -------------------------------
    def session_state(self):
        state = super().session_state()
        state.params.update(session_file.session_params(self))
        return state

    def session_inputs(self) -> tuple[dict, dict]:
        return session_file.session_inputs(self)

    def restore_session_inputs(self, data: dict, arrays: dict, name: str) -> None:
        session_file.restore_inputs(self, data, arrays, name)

    def saved_sessions(self) -> dict[str, object]:
        return session_file.saved_sessions(self)

    def session_named(self, name: str):
        return session_file.session_named(self, name)

    def after_session_opened(self) -> None:
        session_file.after_opened(self)
        super().after_session_opened()

    # -- files ---------------------------------------------------------------------------------
    def file_filter(self) -> str | None:
        return self.tr("Graphs (*.graphml *.gexf *.gml *.net *.json *.csv *.tsv *.txt *.edges "
                       "*.edgelist *.pt *.pth);;All files (*)")

    def file_reader(self, path: str):
        def read(progress=None, cancelled=None):
            # imported in the worker (the first time, the readers take a while to import);
            # GraphLoadError names the file and line, a graph over the limits is refused
            # as soon as that is known
            from models.graphs import load_graph

            return load_graph(path, progress, cancelled)

        return read

    def accept_file(self, path: str, doc) -> None:
        """The graph read from ``path`` becomes "your file"; the jobs stop only now."""
        self.stop_jobs()
        self.file_doc, self.file_name = doc, Path(path).name
        self._file_id += 1
        layout = "data" if doc.pos is not None else "spring"
        self.graph_form.set_values({"dataset": "file", "layout": layout})
        self.show_form.set_values({"node": 0})
        self._graph_changed()
        self.ctx.status(self.tr("Opened {0}: {1}").format(self.file_name, doc.summary()))

    def save_graph(self, path: str) -> str:
        """The graph with the predictions, GCN coefficients and (for a GAT) attention as
        attributes, as GraphML or GEXF (by the extension); Gephi and Cytoscape open it."""
        from app.export import ExportError
        from models.graphs.probe import save_with_results

        if self.result is None:
            raise ExportError(self.tr("There is nothing to save yet: the graph has not been "
                                      "drawn."))
        save_with_results(self.result, path, community=self.communities.drawn(),
                          explanation=self.explaining.current())
        self.ctx.status(self.tr("Saved {0}.").format(path))
        return path

    def save_graph_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save the graph with results"),
            f"{self.ctx.settings.last_dir('export')}/graph.graphml",
            self.tr("GraphML (*.graphml);;GEXF (*.gexf)"))
        if not path:
            return
        try:
            self.save_graph(path)
        except Exception as exc:  # noqa: BLE001 - ExportError / OSError: shown to the user
            self.ctx.report_error(exc, None)

    # -- the canvas, redrawn for the panels ------------------------------------------------------
    def redraw_node_colours(self) -> None:
        shown, ask = self._graph_shown(), self.request()
        self.graph_view.show_nodes(shown, ask)
        self.embedding_view.show(shown, ask)

    def redraw_edges(self) -> None:
        if self.result is not None:
            self.graph_view.show_edges(self._graph_shown(), self.request())

    # -- translations --------------------------------------------------------------------------
    def _dataset_name(self) -> str:
        key = self.graph_form.values()["dataset"]
        if key == "file":
            return self.file_name
        return dataset_texts()[DATASETS.index(key)]

    def retranslate(self) -> None:  # every text of the tab, once per language
        retranslate_controls(self)
        self.communities.retranslate()
        self.explaining.retranslate()
        self.depth.retranslate()
        super().retranslate()               # the tour, the job bar and update_buttons
        if self.result is not None:
            if self.result.layout_key[0] == self._doc_key():   # its name, translated
                self.result = replace(self.result, name=self._dataset_name())
            self.show_trace(self.result)
        for v in self.views:
            v.panel.set_title(v.title())
