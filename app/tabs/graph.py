"""The graph tab: a graph (built in or the user's file) on a canvas, a GCN, GraphSAGE or
GAT run on it live, message passing into one node with the real layer's numbers, GCN
coefficients and GAT attention on the edges, node classification trained live with its
hidden embedding, PyG's batching, graph classification with pooling, link prediction."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
)

from app.tabs.base import BaseTab, TabContext, View, ViewData
from models.traces import Progress
from viz.controls import Param, ParamForm
from viz.graph_view import PALETTE, GraphCanvas
from viz.heatmap import HeatmapPlot
from viz.panel import ViewPanel
from viz.plots import CurvesPlot, GroupedBarsPlot
from viz.theme import error_style, muted_style

DATASETS = ("karate", "les_miserables", "florentine", "davis", "sbm", "ba_house", "grid",
            "geometric", "file")
LAYOUTS = ("spring", "kamada_kawai", "spectral", "circular", "shell", "data")
MODELS = ("gcn", "sage", "gat")
GRAPH_PARAMS = (
    Param("dataset", "choice", "karate", choices=DATASETS),
    Param("layout", "choice", "spring", choices=LAYOUTS),
    Param("seed", "int", 0, 0, 99999),
)
MODEL_PARAMS = (
    Param("model", "choice", "gcn", choices=MODELS),
    Param("hidden", "int", 16, 2, 256),
    Param("heads", "int", 4, 1, 8),
    Param("aggr", "choice", "mean", choices=("mean", "max")),
    Param("train_per_class", "int", 1, 1, 100),
    Param("lr", "float", 0.01, 1e-4, 1.0, step=0.005, decimals=4),
    Param("epochs", "int", 200, 1, 100000, step=50),
)
SHOW_PARAMS = (
    Param("colour", "choice", "label",
          choices=("label", "prediction", "correct", "degree", "attribute")),
    Param("size", "choice", "degree", choices=("uniform", "degree", "attribute")),
    Param("edges", "choice", "plain", choices=("plain", "weight", "gcn", "gat", "sage")),
    Param("node", "int", 0, -1, 10_000_000),
    Param("layer", "int", 1, 1, 2),               # the models have 2 layers
    Param("head", "choice", "mean", choices=("mean", "max", "1", "2", "3", "4", "5", "6", "7",
                                             "8")),
    Param("aggregation", "choice", "model", choices=("model", "sum", "mean", "max")),
    Param("sample", "int", 3, 1, 50),
    Param("sample_seed", "int", 0, 0, 99999),
)
TASK_PARAMS = (
    Param("pooling", "choice", "mean", choices=("mean", "max", "sum")),
    Param("batch_graphs", "int", 3, 1, 8),
    Param("links", "int", 10, 0, 200),
)
#: the parameters that make a different node classifier
MODEL_KEY = ("model", "hidden", "heads", "aggr", "train_per_class", "seed")
#: what the message view needs beyond the model
PALETTE_NAMES_LIMIT = 12


class GraphTab(BaseTab):
    key = "graph"

    def __init__(self, ctx: TabContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.result: dict | None = None
        self.docs: dict[tuple, object] = {}          # (dataset, seed[, file id]) -> doc
        self.file_doc = None                         # the opened file's document, as read
        self.file_name = ""
        self._file_id = 0
        self.sessions: dict[tuple, object] = {}      # node classifiers
        self.graph_sessions: dict[str, object] = {}  # pooling -> graph classifier
        self.link_sessions: dict[tuple, object] = {}
        self.motif = None                            # the graph-classification data set
        self.layouts: dict[tuple, np.ndarray] = {}
        self.histories: dict[tuple, list[dict]] = {}  # session key -> evaluations so far
        self._running_key: tuple | None = None
        self._shown_doc_key: tuple | None = None
        self.comparisons: dict[tuple, dict] = {}       # comparison key -> accuracies
        self._running = ""
        self._last_redraw = 0.0
        self.graph_form = ParamForm(GRAPH_PARAMS)
        self.model_form = ParamForm(MODEL_PARAMS)
        self.show_form = ParamForm(SHOW_PARAMS)
        self.task_form = ParamForm(TASK_PARAMS)
        self._build_attribute_box()
        self.train_button = QPushButton()
        self.train_button.setObjectName("TrainButton")
        self.train_button.clicked.connect(lambda: self.toggle_training("node"))
        self.compare_button = QPushButton()
        self.compare_button.setObjectName("CompareButton")
        self.compare_button.clicked.connect(lambda: self.toggle_training("compare"))
        self.graph_button = QPushButton()
        self.graph_button.setObjectName("GraphClassButton")
        self.graph_button.clicked.connect(lambda: self.toggle_training("graphs"))
        self.link_button = QPushButton()
        self.link_button.setObjectName("LinkButton")
        self.link_button.clicked.connect(lambda: self.toggle_training("links"))
        self.save_button = QPushButton()
        self.save_button.clicked.connect(self.save_graph_dialog)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(muted_style())
        self.error_note = QLabel()
        self.layout_note = QLabel()
        self.layout_note.setWordWrap(True)
        self.layout_note.setStyleSheet(error_style())
        self.error_note.setWordWrap(True)
        self.error_note.setStyleSheet(error_style())
        lay = self.controls_layout
        lay.addWidget(self.graph_form)
        lay.addWidget(self.layout_note)
        lay.addWidget(self.attr_box)
        lay.addWidget(self.note)
        lay.addWidget(self.model_form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.train_button)
        buttons.addWidget(self.compare_button)
        lay.addLayout(buttons)
        lay.addWidget(self.status)
        lay.addWidget(self.error_note)
        lay.addWidget(self.show_form)
        lay.addWidget(self.task_form)
        tasks = QHBoxLayout()
        tasks.addWidget(self.graph_button)
        tasks.addWidget(self.link_button)
        lay.addLayout(tasks)
        lay.addWidget(self.save_button)
        lay.addStretch(1)
        self.graph_form.changed.connect(self._graph_changed)
        self.model_form.changed.connect(self._model_changed)
        self.show_form.changed.connect(self._show_changed)
        self.task_form.changed.connect(self.schedule_update)
        self._build_views()
        self.jobs.progressed.connect(self._on_progress)
        self.jobs.stopped.connect(self._on_job_stopped)
        self.jobs.failed.connect(lambda f: self.error_note.setText(str(f.error)))
        self.retranslate()
        self._show_changed()

    # -- controls ----------------------------------------------------------------------------
    def _build_attribute_box(self) -> None:
        """Which attribute is the label, which are features, which colours the nodes:
        filled from the graph that is loaded."""
        self.attr_box = QGroupBox()
        form = QFormLayout(self.attr_box)
        self.label_combo = QComboBox()
        self.label_combo.setObjectName("LabelAttribute")
        self.colour_combo = QComboBox()
        self.colour_combo.setObjectName("ColourAttribute")
        self.feature_list = QListWidget()
        self.feature_list.setObjectName("FeatureAttributes")
        self.feature_list.setMaximumHeight(90)
        self.label_text, self.feature_text, self.colour_text = QLabel(), QLabel(), QLabel()
        form.addRow(self.label_text, self.label_combo)
        form.addRow(self.feature_text, self.feature_list)
        form.addRow(self.colour_text, self.colour_combo)
        self.label_combo.currentIndexChanged.connect(self._attributes_changed)
        self.feature_list.itemChanged.connect(self._attributes_changed)
        self.colour_combo.currentIndexChanged.connect(self.schedule_update)
        self._filling = False
        self._attr_choice: dict[tuple, tuple] = {}   # doc key -> (label, features)

    def _fill_attribute_box(self, doc) -> None:
        """The label and feature candidates of ``doc``, keeping the user's choice."""
        self._filling = True
        try:
            label, features = self._attr_choice.get(self._doc_key(), (doc.label_attr,
                                                                      doc.feature_attrs))
            self.label_combo.clear()
            self.label_combo.addItem(self.tr("(none)"), None)
            for name in doc.label_candidates():
                self.label_combo.addItem(name, name)
            index = self.label_combo.findData(label)
            self.label_combo.setCurrentIndex(max(0, index))
            self.feature_list.clear()
            for name in doc.feature_candidates():
                item = QListWidgetItem(name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if name in features
                                   else Qt.CheckState.Unchecked)
                self.feature_list.addItem(item)
            current = self.colour_combo.currentData()
            self.colour_combo.clear()
            for name in doc.node_attributes:
                self.colour_combo.addItem(name, name)
            self.colour_combo.setCurrentIndex(max(0, self.colour_combo.findData(current)))
        finally:
            self._filling = False

    def _attributes_changed(self) -> None:
        if self._filling:
            return
        label = self.label_combo.currentData()
        features = tuple(self.feature_list.item(i).text() for i in range(self.feature_list.count())
                         if self.feature_list.item(i).checkState() == Qt.CheckState.Checked)
        self._attr_choice[self._doc_key()] = (label, features)
        self.jobs.stop()
        self.schedule_update()

    # -- views -------------------------------------------------------------------------------
    def _build_views(self) -> None:
        self.canvas = GraphCanvas()
        self.canvas.nodeClicked.connect(self._node_clicked)
        self.canvas.set_hover_info(self._node_info)
        self.message_plot = HeatmapPlot("CET-D1")
        self.curves_plot = CurvesPlot(legend="bottom-right")
        self.curves_plot.legend.setColumnCount(2)         # short: the curves end up there
        self.embedding_view = GraphCanvas(legend=False)   # the graph view has the legend
        self.embedding_view.nodeClicked.connect(self._node_clicked)
        self.embedding_view.set_hover_info(self._node_info)
        self.compare_plot = GroupedBarsPlot()
        self.batch_plot = HeatmapPlot("viridis")
        self.pooled_view = GraphCanvas(legend=False)      # the read-out names the colours
        self.pooled_view.set_hover_info(self._graph_info)
        self.roc_plot = CurvesPlot(legend="bottom-right")
        views = (
            ("graph", self.canvas, self._data_graph, 0, 0, 2, 1),
            ("messages", self.message_plot, self._data_messages, 0, 1, 1, 1),
            ("embedding", self.embedding_view, self._data_embedding, 0, 2, 1, 1),
            ("training", self.curves_plot, self._data_training, 1, 1, 1, 1),
            ("compare", self.compare_plot, self._data_compare, 1, 2, 1, 1),
            ("batch", self.batch_plot, self._data_batch, 2, 0, 1, 1),
            ("pooled", self.pooled_view, self._data_pooled, 2, 1, 1, 1),
            ("links", self.roc_plot, self._data_links, 2, 2, 1, 1),
        )
        for key, widget, data, row, col, rows, cols in views:
            self.add_view(View(key, partial(self._title, key), ViewPanel(widget), data),
                          row, col, rows, cols)
        self.grid.setColumnStretch(0, 5)
        self.grid.setColumnStretch(1, 3)
        self.grid.setColumnStretch(2, 3)
        for r, stretch in enumerate((3, 3, 2)):
            self.grid.setRowStretch(r, stretch)

    def _title(self, key: str) -> str:
        r = self.result or {}
        doc = r.get("doc")
        if key == "graph" and doc is not None:
            return self.tr("{0}: {1} nodes, {2} edges").format(
                r.get("name", ""), doc.data.num_nodes, len(doc.edges))
        if key == "messages" and r.get("message") is not None:
            m = r["message"]
            return self.tr("Messages into node {0}, layer {1}").format(
                self._node_name(m.node), m.layer + 1)
        return {"graph": self.tr("Graph"),
                "messages": self.tr("Message passing into the selected node"),
                "embedding": self.tr("Hidden embedding of every node (PCA)"),
                "training": self.tr("Node classification: loss and accuracy"),
                "compare": self.tr("GCN, GraphSAGE, GAT and a baseline on one split"),
                "batch": self.tr("A mini-batch: graphs collated into one block-diagonal graph"),
                "pooled": self.tr("Graph classification: pooled embedding per graph"),
                "links": self.tr("Link prediction: ROC on held-out edges")}[key]

    @property
    def trace(self) -> dict | None:
        return self.result

    # -- parameters ----------------------------------------------------------------------------
    def params(self) -> dict:
        return {**self.graph_form.values(), **self.model_form.values(),
                **self.show_form.values(), **self.task_form.values()}

    def apply_state(self, state: dict, strict: bool = False) -> None:
        from models.errors import ArchScopeError, InvalidParameterError

        known = set(self.params()) | {"train", "train_graphs", "train_links", "compare",
                                      "label", "features", "colour_attribute"}
        unknown = set(state) - known
        if strict and unknown:
            raise InvalidParameterError(f"Unknown parameter {', '.join(sorted(unknown))}; "
                                        f"known: {', '.join(sorted(known))}.")
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
            if "features" in state:
                features = tuple(f for f in str(state["features"]).split(",") if f)
            try:
                doc.with_attributes(label, features)
            except ArchScopeError as exc:
                problems.append(str(exc))
            else:
                self._attr_choice[self._doc_key()] = (label, features)
                self._fill_attribute_box(doc)
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
        if strict and problems:
            raise InvalidParameterError(" ".join(problems))
        if model_keys:
            self._model_changed()
        else:
            self._show_changed()
        for key, job in (("train", "node"), ("compare", "compare"),
                         ("train_graphs", "graphs"), ("train_links", "links")):
            if state.get(key) and not (self.jobs.is_running() and self._running == job):
                self.toggle_training(job)

    def _graph_changed(self) -> None:
        if self.graph_form.values()["dataset"] == "file" and self.file_doc is None:
            self.graph_form.set_values({"dataset": "karate"})
            self.error_note.setText(self.tr("“Your file” needs a graph file first: "
                                            "File → Open…"))
        self.jobs.stop()
        try:
            doc = self.document()
        except Exception as exc:  # noqa: BLE001 - GraphLoadError etc.: shown, karate kept
            self.ctx.report_error(exc, None)
            self.graph_form.set_values({"dataset": "karate"})
            doc = self.document()
        self._fill_attribute_box(doc)
        if self._doc_key() != self._shown_doc_key:        # another graph: node 0 again
            self._shown_doc_key = self._doc_key()
            self.show_form.set_values({"node": 0})
        self.show_form.widgets["node"].setMaximum(doc.data.num_nodes - 1)
        self._update_buttons()
        self.schedule_update()

    def _model_changed(self) -> None:
        if self.jobs.is_running() and self._running == "node":
            self.jobs.stop()
        session = self.sessions.get(self._session_key())
        if session is not None:
            with session.lock:
                session.lr = self.params()["lr"]       # also named in divergence messages
                for group in session.optimizer.param_groups:
                    group["lr"] = session.lr
        p = self.params()
        self.model_form.set_visible_rows(
            {"model", "hidden", "train_per_class", "lr", "epochs"}
            | ({"heads"} if p["model"] == "gat" else set())
            | ({"aggr"} if p["model"] == "sage" else set()))
        self._update_buttons()
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

    # -- documents and sessions ------------------------------------------------------------------
    def _doc_key(self) -> tuple:
        p = self.graph_form.values()
        return ("file", self._file_id) if p["dataset"] == "file" else (p["dataset"], p["seed"])

    def base_document(self):
        """The graph as built or read, before the user's attribute choice."""
        from models.graphs import builtin_graph

        key = self._doc_key()
        if key[0] == "file":
            return self.file_doc
        if key not in self.docs:
            self.docs[key] = builtin_graph(key[0], seed=key[1])
        return self.docs[key]

    def document(self):
        """The graph with the chosen label and feature attributes."""
        doc = self.base_document()
        choice = self._attr_choice.get(self._doc_key())
        if choice is None or choice == (doc.label_attr, doc.feature_attrs):
            return doc
        cache_key = (*self._doc_key(), choice)
        if cache_key not in self.docs:
            self.docs[cache_key] = doc.with_attributes(*choice)
        return self.docs[cache_key]

    def _graph_key(self) -> tuple:
        """The graph and its label / feature choice: what every model of it depends on."""
        return self._doc_key(), self._attr_choice.get(self._doc_key())

    def _session_key(self) -> tuple:
        p = self.params()
        return (*self._graph_key(), *(p[k] for k in MODEL_KEY))

    def _compare_key(self) -> tuple:
        """What a comparison depends on: the graph, its attributes, the split, epochs."""
        p = self.params()
        return (*self._graph_key(), p["seed"], p["train_per_class"], p["epochs"])

    def session(self):
        from models.graphs import NodeClassificationSession

        key = self._session_key()
        if key not in self.sessions:
            p = self.params()
            self.sessions[key] = NodeClassificationSession(
                self.document().data, p["model"], device=self.ctx.device(), seed=p["seed"],
                hidden_dim=p["hidden"], lr=p["lr"], train_per_class=p["train_per_class"],
                heads=p["heads"], aggr=p["aggr"])
        return self.sessions[key]

    def motif_graphs(self) -> list:
        """The graph-classification data set (made once): batches and the classifier."""
        from models.graphs import motif_graphs

        if self.motif is None:
            self.motif = motif_graphs(seed=0)
        return self.motif

    def graph_session(self):
        from models.graphs import GraphClassificationSession

        pooling = self.params()["pooling"]
        if pooling not in self.graph_sessions:
            self.graph_sessions[pooling] = GraphClassificationSession(
                self.motif_graphs(), pooling=pooling, device=self.ctx.device(), seed=0)
        return self.graph_sessions[pooling]

    def link_session(self):
        from models.graphs import LinkPredictionSession

        key = self._graph_key()
        if key not in self.link_sessions:
            self.link_sessions[key] = LinkPredictionSession(
                self.document().data, device=self.ctx.device(), seed=self.params()["seed"])
        return self.link_sessions[key]

    def on_device_changed(self, name: str) -> None:
        if self.jobs.is_running():
            self.jobs.stop()
        for group in (self.sessions, self.graph_sessions, self.link_sessions):
            for s in group.values():
                s.to(name)
        super().on_device_changed(name)

    # -- computing -----------------------------------------------------------------------------
    def compute_fn(self):
        from models.errors import ArchScopeError

        p = self.params()
        try:
            doc = self.document()
            session = self.session()
        except ArchScopeError as exc:       # an attribute choice this graph refuses
            self._attr_choice.pop(self._doc_key(), None)
            self.ctx.report_error(exc, None)
            return lambda: None
        layout_key = (self._doc_key(), p["layout"], p["seed"])
        self._computing_name = self._dataset_name()
        # the batch of motif graphs changes only with their number: kept, not recollated
        batch = (self.result or {}).get("batch")
        if batch is None or len(batch.ptr) - 1 != p["batch_graphs"]:
            batch = None
        return partial(_graph_result, doc, p, session, self.layouts.get(layout_key),
                       layout_key, self.motif_graphs(), batch,
                       self.graph_sessions.get(p["pooling"]),
                       self.link_sessions.get(self._graph_key()))

    def show_trace(self, result: dict) -> None:
        if result is None:
            return
        result.setdefault("name", self._computing_name)
        self.layout_note.setText(result.get("layout_error", ""))
        self.layouts[result["layout_key"]] = result["pos"]
        previous = self.result
        self.result = result
        doc, pos = result["doc"], result["pos"]
        same_graph = previous is not None and previous["doc"] is doc
        if not same_graph:
            self.canvas.set_graph(pos, doc.edges, directed=doc.directed)
            self.canvas.set_node_labels(list(doc.node_ids))
        elif previous["layout_key"] != result["layout_key"]:
            self.canvas.set_positions(pos, animate=True)
        self.note.setText(" ".join([doc.summary() + ".", doc.features_note, *doc.warnings]))
        with self.canvas.batch():            # one redraw for all the canvas setters
            self._draw_nodes()
            self._draw_edges()
        self._draw_messages()
        self._draw_embedding()
        self._draw_training()
        self._draw_compare()
        self._draw_batch()
        self._draw_pooled()
        self._draw_links()
        for v in self.views:
            v.panel.set_title(v.title())

    # -- drawing ----------------------------------------------------------------------------------
    def _label_names(self) -> list[str]:
        doc = self.result["doc"]
        return list(doc.label_names)

    def _node_colours(self) -> dict:
        """The colouring of the nodes as chosen: keyword arguments of set_node_colors."""
        r, p = self.result, self.params()
        doc, node = r["doc"], r["node"]
        if p["colour"] == "prediction":
            return {"values": node.predictions, "categorical": True,
                    "names": self._label_names(), "title": self.tr("prediction")}
        if p["colour"] == "correct":
            codes = np.where(doc.labels < 0, -1, (node.predictions == doc.labels).astype(int))
            return {"values": codes, "categorical": True,
                    "names": [self.tr("wrong"), self.tr("right")],
                    "title": self.tr("prediction against label")}
        if p["colour"] == "degree":
            return {"values": r["doc"].degree.astype(np.float32), "categorical": False,
                    "title": self.tr("degree")}
        if p["colour"] == "attribute" and self.colour_combo.currentData():
            name = self.colour_combo.currentData()
            column = doc.node_attributes.get(name)
            if column is not None and column.dtype.kind == "f":
                return {"values": column, "categorical": False, "title": name}
            if column is not None:
                codes, names = doc.categorical(name)
                if len(names) <= 40:
                    return {"values": codes, "categorical": True, "names": list(names),
                            "title": name}
        return {"values": doc.labels, "categorical": True, "names": self._label_names(),
                "title": doc.label_attr or self.tr("label")}

    def _draw_nodes(self) -> None:
        r, p = self.result, self.params()
        colours = self._node_colours()
        values = colours.pop("values")
        if colours.get("categorical") and not (np.asarray(values) >= 0).any():
            values = None                                  # no labels at all: one colour
        self.canvas.set_node_colors(values, **colours)
        sizes = None
        if p["size"] == "degree":
            sizes = r["doc"].degree.astype(np.float32)
        elif p["size"] == "attribute":
            column = r["doc"].node_attributes.get(self.colour_combo.currentData() or "")
            if column is not None and column.dtype.kind == "f":
                sizes = np.nan_to_num(column, nan=np.nanmin(column, initial=0.0))
        self.canvas.set_node_sizes(sizes)
        message = r.get("message")
        self.canvas.set_highlight(message.hops if message is not None else None,
                                  message.node if message is not None else -1)
        if message is None:
            self.canvas.select(-1)

    def _draw_edges(self) -> None:
        r, p = self.result, self.params()
        doc = r["doc"]
        readout = ""
        self.canvas.set_overlay_edges(None)
        if p["edges"] == "weight" and doc.edge_weight is not None:
            self.canvas.set_edge_values(doc.edge_weight, title=self.tr("edge weight"),
                                        cmap="viridis")
        elif p["edges"] == "gcn" and r.get("gcn") is not None:
            e = r["gcn"]
            self.canvas.set_edge_values(e.values, edges=e.edge_index.T,
                                        title=self.tr("GCN coefficient 1/√(d̂ᵢ d̂ⱼ)"),
                                        cmap="viridis")
        elif p["edges"] == "gat" and r.get("gat") is not None:
            values = _head_values(r["gat"].values, p["head"])
            heads = r["gat"].values.shape[1] if r["gat"].values.ndim == 2 else 1
            readout = self.tr("GAT layer {0} has {1} head(s)").format(
                min(p["layer"], 2), heads)
            if p["head"] not in ("mean", "max") and int(p["head"]) > heads:
                readout += self.tr("; head {0} does not exist: head {1} is shown").format(
                    p["head"], heads)
            self.canvas.set_edge_values(values, edges=r["gat"].edge_index.T, half=True,
                                        levels=(0.0, float(max(values.max(), 1e-6))),
                                        title=self.tr("GAT attention αᵢⱼ (half edge at i)"))
        elif p["edges"] == "sage" and r.get("sample") is not None:
            s = r["sample"]
            self.canvas.set_edge_values(s.edge_hop.astype(np.float32), edges=s.edges.T,
                                        half=True, cmap="viridis",
                                        levels=(1.0, float(max(2, s.edge_hop.max(initial=1)))),
                                        title=self.tr("sampled at hop"))
        else:
            self.canvas.set_edge_values(None)
        link = r.get("link")
        if link is not None and p["links"]:
            k = min(p["links"], len(link.top_pairs))
            self.canvas.set_overlay_edges(link.top_pairs[:k], link.top_scores[:k],
                                          title=self.tr("top-scoring non-edges"))
        self.view("graph").panel.set_readout(readout)

    def _draw_messages(self) -> None:
        m = self.result.get("message")
        if m is None:
            self.message_plot.set_matrix(np.zeros((1, 1), np.float32))
            self.view("messages").panel.set_readout(self.tr("Click a node on the graph."))
            return
        rows = [*m.messages, np.full(m.messages.shape[1], np.nan), m.aggregate]
        width = max(len(m.aggregate), len(m.update))
        matrix = np.full((len(rows) + 1, width), np.nan, np.float32)
        for i, row in enumerate(rows):
            matrix[i, :len(row)] = row
        matrix[-1, :len(m.update)] = m.update
        bound = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 1.0
        self.message_plot.set_matrix(matrix, levels=(-bound, bound))
        # every neighbour's row named where they fit (about 14 rows), else every k-th
        step = max(1, -(-len(m.neighbors) // 14))
        labels = [(i, f"{self._node_name(j)}  c={c:.2f}") for i, (j, c) in
                  enumerate(zip(m.neighbors, m.coefficients, strict=True)) if i % step == 0]
        labels += [(len(m.neighbors) + 1, self.tr("aggregate ({0})").format(self._agg_name(m.aggregation))),
                   (len(m.neighbors) + 2, self.tr("update hᵢ′"))]
        self.message_plot.plotItem.getAxis("left").setTicks([labels])
        self.message_plot.set_axis_labels(self.tr("feature"), "")
        if m.aggregation == m.model_aggregation:
            text = self.tr("update = the layer's output (max |Δ| {0:.1e})").format(
                m.max_abs_difference)
            tip = self.tr("{0} layer {1} aggregates with {2}; the update row is the real "
                          "layer's output at this node, computed by the layer itself.")
        else:
            text = self.tr("what if: {0} instead of {1}").format(
                self._agg_name(m.aggregation), self._agg_name(m.model_aggregation))
            tip = self.tr("{0} layer {1} really aggregates with {2}; the rows below show what "
                          "the same weights would give with {3}, not the model's output.")
        panel = self.view("messages").panel
        panel.set_readout(text)
        panel.readout.setToolTip(tip.format(m.kind.upper(), m.layer + 1,
                                            self._agg_name(m.model_aggregation),
                                            self._agg_name(m.aggregation)))

    def _draw_embedding(self) -> None:
        node = self.result["node"]
        emb = node.embedding
        colours = self._node_colours()
        values = colours.pop("values")
        with self.embedding_view.batch():
            if self.embedding_view.node_count() != len(emb):
                self.embedding_view.set_graph(emb, np.zeros((0, 2), np.int64))
            else:
                self.embedding_view.set_positions(emb)
            self.embedding_view.set_node_colors(values, **colours)
        self.view("embedding").panel.set_readout(self.tr(
            "epoch {0}: test accuracy {1:.2f}").format(node.epoch, node.test_acc)
            if (self.result["doc"].labels >= 0).any() else
            self.tr("No labels: choose a label attribute to train."))

    def _draw_training(self) -> None:
        history = self.histories.get(self._session_key())
        if not history:
            self.curves_plot.set_curves([], [], [])
            self.curves_plot.set_hint(self.tr("Press “Train” to fit the model on the\n"
                                              "labelled nodes; the colours follow."))
            return
        self.curves_plot.set_hint("")
        h = {k: np.asarray([row[k] for row in history], np.float32)
             for k in ("epoch", "loss", "train_acc", "val_acc", "test_acc")}
        self.curves_plot.set_curves(h["epoch"], np.stack([h["loss"], h["train_acc"],
                                                          h["val_acc"], h["test_acc"]]),
                                    [self.tr("loss"), self.tr("train accuracy"),
                                     self.tr("validation accuracy"), self.tr("test accuracy")])
        self.curves_plot.set_axis_labels(self.tr("epoch"), "")

    def _draw_compare(self) -> None:
        c = self.comparisons.get(self._compare_key())
        if not c:
            self.compare_plot.set_bars([], np.zeros((1, 0)), [self.tr("test accuracy")])
            self.compare_plot.plotItem.setYRange(0, 1)
            self.view("compare").panel.set_readout(self.tr(
                "Press “Compare” to train all three on this split."))
            return
        names = {"gcn": "GCN", "sage": "GraphSAGE", "gat": "GAT",
                 "baseline": self.tr("nearest labelled node")}
        keys = [k for k in ("gcn", "sage", "gat", "baseline") if k in c]
        self.compare_plot.set_bars([names[k] for k in keys],
                                   np.array([[c[k] for k in keys]], np.float32),
                                   [self.tr("test accuracy")])
        self.view("compare").panel.set_readout("  ".join(f"{names[k]} {c[k]:.2f}"
                                                         for k in keys))

    def _draw_batch(self) -> None:
        b = self.result.get("batch")
        if b is None:
            return
        self.batch_plot.set_matrix(b.adjacency, levels=(0.0, 1.0))
        self.batch_plot.set_axis_labels(self.tr("node of the batch"),
                                        self.tr("node of the batch"))
        self.view("batch").panel.set_readout(self.tr("batch = {0} · ptr = {1}").format(
            _compress(b.batch), list(map(int, b.ptr))))

    def _draw_pooled(self) -> None:
        g = self.result.get("graphs")
        if g is None:
            self.pooled_view.set_graph(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.int64))
            self.view("pooled").panel.set_readout(self.tr(
                "Press “Train graph classifier”: house vs cycle motifs."))
            return
        with self.pooled_view.batch():
            if self.pooled_view.node_count() != len(g.embedding):
                self.pooled_view.set_graph(g.embedding, np.zeros((0, 2), np.int64))
            else:
                self.pooled_view.set_positions(g.embedding)
            self.pooled_view.set_node_colors(g.predictions, categorical=True,
                                             names=[self.tr("house"), self.tr("cycle")],
                                             title=self.tr("predicted motif"))
        keys = " ".join(f"<span style='color:{PALETTE[i]}'>●</span> {name}" for i, name in
                        enumerate((self.tr("house"), self.tr("cycle"))))
        self.view("pooled").panel.set_readout(keys + " · " + self.tr(
            "{0} pooling · train accuracy {1:.2f} · test {2:.2f}").format(
                self._agg_name(g.pooling), g.train_acc, g.test_acc))

    def _draw_links(self) -> None:
        link = self.result.get("link")
        if link is None:
            self.roc_plot.set_curves([], [], [])
            self.roc_plot.set_hint(self.tr("Press “Train link predictor”."))
            return
        self.roc_plot.set_hint("")
        diag = np.array([0.0, 1.0], np.float32)
        self.roc_plot.set_curves([link.roc[:, 0], diag], [link.roc[:, 1], diag],
                                 [self.tr("test edges, AUC {0:.3f}").format(link.test_auc),
                                  self.tr("chance")])
        self.roc_plot.set_axis_labels(self.tr("false positive rate"),
                                      self.tr("true positive rate"))

    # -- hover and selection --------------------------------------------------------------------
    def _node_name(self, i: int) -> str:
        r = self.result
        if r is None or not 0 <= i < len(r["doc"].node_ids):
            return str(i)
        return r["doc"].node_ids[i]

    def _node_info(self, i: int) -> str:
        r = self.result
        if r is None or not 0 <= i < r["doc"].data.num_nodes:
            return ""
        doc, node = r["doc"], r["node"]
        names = self._label_names()
        lines = [self.tr("node {0} (index {1}) · degree {2}").format(doc.node_ids[i], i,
                                                                    int(r["doc"].degree[i]))]
        label = int(doc.labels[i])
        if label >= 0:
            lines.append(self.tr("label: {0}").format(names[label] if label < len(names)
                                                      else label))
        pred = int(node.predictions[i])
        lines.append(self.tr("prediction: {0} (p = {1:.2f})").format(
            names[pred] if pred < len(names) else pred, float(node.probabilities[i].max())))
        for name, column in list(doc.node_attributes.items())[:6]:
            value = column[i]
            lines.append(f"{name}: {value:.4g}" if column.dtype.kind == "f" else
                         f"{name}: {str(value)[:40]}")
        return "\n".join(lines)

    def _graph_info(self, i: int) -> str:
        g = self.result.get("graphs") if self.result else None
        if g is None or not 0 <= i < len(g.predictions):
            return ""
        motif = [self.tr("house"), self.tr("cycle")]
        return self.tr("graph {0}: motif {1}, predicted {2} ({3})").format(
            i, motif[int(g.labels[i])], motif[int(g.predictions[i])],
            self.tr("train") if g.train_mask[i] else self.tr("test"))

    def _node_clicked(self, index: int) -> None:
        self.show_form.set_values({"node": index})
        self._show_changed()

    # -- training --------------------------------------------------------------------------------
    def toggle_training(self, job: str) -> None:
        from models.errors import ArchScopeError

        if self.jobs.is_running():
            running = self._running
            self.jobs.stop()
            if running == job:
                return
        if not self.torch_ready:
            return
        self.error_note.setText("")
        p = self.params()
        try:
            if job == "node":
                self._running_key = self._session_key()
                work = partial(self.session().train, p["epochs"], report_every=5)
            elif job == "compare":
                from models.graphs import compare_models

                self._running_key = self._compare_key()
                work = partial(_compare_job, compare_models, self.document().data,
                               p["epochs"], p["seed"], p["train_per_class"],
                               self.ctx.device())
            elif job == "graphs":
                work = partial(self.graph_session().train, 100)
            else:
                work = partial(self.link_session().train, 200)
        except ArchScopeError as exc:        # e.g. too few edges to hold some out
            self.error_note.setText(str(exc))
            self.ctx.report_error(exc, None)
            return
        self.jobs.start(work)
        self._running = job
        self._update_buttons()

    def _on_progress(self, progress: Progress) -> None:
        m = progress.metrics
        if self._running == "compare":
            if isinstance(progress.trace, dict):
                self.comparisons[self._running_key] = progress.trace
            text = self.tr("Comparing: {0}").format(progress.message)
        elif self._running == "node":
            t = progress.trace
            if t is not None:
                history = self.histories.setdefault(self._running_key, [])
                while history and history[-1]["epoch"] >= t.epoch:   # rolled back
                    history.pop()
                history.append(
                    {"epoch": t.epoch, "loss": t.loss, "train_acc": t.train_acc,
                     "val_acc": t.val_acc, "test_acc": t.test_acc})
            text = self.tr("Training: epoch {0} · loss {1:.3f} · val {2:.2f} · test {3:.2f} "
                           "· {4:.0f} epochs/s").format(
                progress.step, progress.loss, m.get("val_acc", float("nan")),
                m.get("test_acc", float("nan")), m.get("epochs_per_s", float("nan")))
        elif self._running == "graphs":
            text = self.tr("Graph classifier: epoch {0} · loss {1:.3f} · test {2:.2f}").format(
                progress.step, progress.loss, m.get("test_acc", float("nan")))
        else:
            text = self.tr("Link predictor: epoch {0} · loss {1:.3f} · test AUC {2:.3f}").format(
                progress.step, progress.loss, m.get("test_auc", float("nan")))
        self.job_bar.show_progress(progress.fraction, text)
        now = time.monotonic()
        if now - self._last_redraw > 0.2:
            self._last_redraw = now
            self.request_update()

    def _on_job_stopped(self, _completed: bool) -> None:
        self._update_buttons()
        self.request_update()

    def _update_buttons(self) -> None:
        running = self._running if self.jobs.is_running() else ""
        session = self.sessions.get(self._session_key())
        trained = session is not None and getattr(session, "epoch", 0)
        self.train_button.setText(self.tr("Stop") if running == "node" else (
            self.tr("Train more") if trained else self.tr("Train")))
        self.compare_button.setText(self.tr("Stop") if running == "compare"
                                    else self.tr("Compare"))
        self.graph_button.setText(self.tr("Stop") if running == "graphs"
                                  else self.tr("Train graph classifier"))
        self.link_button.setText(self.tr("Stop") if running == "links"
                                 else self.tr("Train link predictor"))
        for button in (self.train_button, self.compare_button, self.graph_button,
                       self.link_button):
            button.setEnabled(self.torch_ready)
        self.status.setText(self.tr("{0} epochs trained").format(session.epoch)
                            if trained else "")

    def on_torch_ready(self) -> None:
        super().on_torch_ready()
        self._graph_changed()

    # -- files --------------------------------------------------------------------------------------
    def file_filter(self) -> str | None:
        return self.tr("Graphs (*.graphml *.gexf *.gml *.net *.json *.csv *.tsv *.txt *.edges "
                       "*.edgelist *.pt *.pth);;All files (*)")

    def open_file(self, path: str) -> None:
        from models.graphs import load_graph

        doc = load_graph(path)                 # GraphLoadError names the file and line
        self.jobs.stop()
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
        from models.graphs import align_edge_values, gcn_coefficients, save_graph

        r = self.result
        if r is None:
            raise ExportError(self.tr("There is nothing to save yet: the graph has not been "
                                      "drawn."))
        doc, node = r["doc"], r["node"]
        node_values = {"prediction": node.predictions.astype(np.int64),
                       "prediction_p": node.probabilities.max(axis=1),
                       "embedding_x": node.embedding[:, 0], "embedding_y": node.embedding[:, 1],
                       "layout_x": r["pos"][:, 0], "layout_y": r["pos"][:, 1]}
        edge_values = {}
        gcn = r.get("gcn") or gcn_coefficients(doc.data.edge_index, doc.num_nodes,
                                               getattr(doc.data, "edge_weight", None))
        for name, ev in (("gcn_coefficient", gcn), ("gat_alpha", r.get("gat"))):
            if ev is None:
                continue
            per_edge, per_node = align_edge_values(doc.data, ev)
            edge_values[name] = per_edge
            node_values[f"{name}_self"] = per_node
        save_graph(doc, path, node_values=node_values, edge_values=edge_values)
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

    # -- export data ----------------------------------------------------------------------------------
    def _data_graph(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        doc, node = r["doc"], r["node"]
        table = np.column_stack([r["pos"], doc.labels, node.predictions, r["doc"].degree]
                                ).astype(np.float32)
        return ViewData("nodes", {"nodes": table, "edges": doc.edges},
                        {"graph": r.get("name", ""), "directed": doc.directed},
                        row_labels=list(doc.node_ids),
                        col_labels=["x", "y", "label", "prediction", "degree"])

    def _data_messages(self) -> ViewData | None:
        m = (self.result or {}).get("message")
        if m is None:
            return None
        return ViewData("messages", {"messages": m.messages, "aggregate": m.aggregate,
                                     "update": m.update, "coefficients": m.coefficients},
                        {"node": int(m.node), "layer": int(m.layer) + 1,
                         "aggregation": m.aggregation},
                        row_labels=[self._node_name(int(j)) for j in m.neighbors])

    def _data_embedding(self) -> ViewData | None:
        r = self.result
        if r is None:
            return None
        return ViewData("embedding", {"embedding": r["node"].embedding},
                        {"epoch": int(r["node"].epoch)}, row_labels=list(r["doc"].node_ids),
                        col_labels=["pc1", "pc2"])

    def _data_training(self) -> ViewData | None:
        history = self.histories.get(self._session_key())
        if not history:
            return None
        cols = ["loss", "train_acc", "val_acc", "test_acc"]
        table = np.asarray([[row[c] for c in cols] for row in history], np.float32)
        return ViewData("history", {"history": table}, {"model": self.params()["model"]},
                        row_labels=[int(row["epoch"]) for row in history], col_labels=cols)

    def _data_compare(self) -> ViewData | None:
        c = self.comparisons.get(self._compare_key())
        if not c:
            return None
        keys = list(c)
        return ViewData("accuracy", {"accuracy": np.array([[c[k]] for k in keys], np.float32)},
                        {}, row_labels=keys, col_labels=["test_accuracy"])

    def _data_batch(self) -> ViewData | None:
        b = (self.result or {}).get("batch")
        if b is None:
            return None
        return ViewData("adjacency", {"adjacency": b.adjacency, "batch": b.batch, "ptr": b.ptr},
                        {"graphs": int(len(b.ptr) - 1)})

    def _data_pooled(self) -> ViewData | None:
        g = (self.result or {}).get("graphs")
        if g is None:
            return None
        return ViewData("pooled", {"pooled": g.embedding, "predictions": g.predictions,
                                   "labels": g.labels}, {"pooling": g.pooling},
                        col_labels=["pc1", "pc2"])

    def _data_links(self) -> ViewData | None:
        link = (self.result or {}).get("link")
        if link is None:
            return None
        return ViewData("roc", {"roc": link.roc, "top_pairs": link.top_pairs,
                                "top_scores": link.top_scores},
                        {"test_auc": link.test_auc, "val_auc": link.val_auc},
                        col_labels=["false_positive_rate", "true_positive_rate"])

    # -- translations -------------------------------------------------------------------------------
    def _agg_name(self, how: str) -> str:
        return {"sum": self.tr("sum"), "mean": self.tr("mean"), "max": self.tr("max"),
                "add": self.tr("sum")}.get(how, how)

    def _dataset_name(self) -> str:
        key = self.graph_form.values()["dataset"]
        if key == "file":
            return self.file_name
        return self._dataset_texts()[DATASETS.index(key)]

    def _dataset_texts(self) -> list[str]:
        return [self.tr("Zachary's karate club"), self.tr("Les Misérables"),
                self.tr("Florentine families"), self.tr("Davis southern women"),
                self.tr("stochastic block model"), self.tr("Barabási–Albert + house motifs"),
                self.tr("grid"), self.tr("random geometric graph"),
                self.tr("your file (File → Open…)")]

    def retranslate(self) -> None:
        self.graph_form.setTitle(self.tr("Graph"))
        self.graph_form.set_texts(
            {"dataset": self.tr("Data"), "layout": self.tr("Layout"), "seed": self.tr("Seed")},
            {"dataset": self._dataset_texts(),
             "layout": [self.tr("spring"), self.tr("Kamada–Kawai"), self.tr("spectral"),
                        self.tr("circular"), self.tr("shell"), self.tr("positions in the data")]})
        self.attr_box.setTitle(self.tr("Attributes"))
        self.label_text.setText(self.tr("Label"))
        self.feature_text.setText(self.tr("Features"))
        self.colour_text.setText(self.tr("Colour attribute"))
        self.model_form.setTitle(self.tr("Model (node classification)"))
        self.model_form.set_texts(
            {"model": self.tr("Model"), "hidden": self.tr("Hidden units"),
             "heads": self.tr("Attention heads"), "aggr": self.tr("Aggregator"),
             "train_per_class": self.tr("Labelled nodes per class"),
             "lr": self.tr("Learning rate"), "epochs": self.tr("Epochs")},
            {"model": ["GCN", "GraphSAGE", "GAT"], "aggr": [self.tr("mean"), self.tr("max")]})
        self.show_form.setTitle(self.tr("Show"))
        self.show_form.set_texts(
            {"colour": self.tr("Colour nodes by"), "size": self.tr("Node size"),
             "edges": self.tr("Edges show"), "node": self.tr("Selected node"),
             "layer": self.tr("Layer"), "head": self.tr("Head"),
             "aggregation": self.tr("Aggregation"), "sample": self.tr("Sample size per hop"),
             "sample_seed": self.tr("Sampling seed")},
            {"colour": [self.tr("label"), self.tr("prediction"), self.tr("right or wrong"),
                        self.tr("degree"), self.tr("attribute")],
             "size": [self.tr("uniform"), self.tr("degree"),
                      self.tr("the colour attribute (numeric)")],
             "edges": [self.tr("plain"), self.tr("weight"), self.tr("GCN coefficients"),
                       self.tr("GAT attention"), self.tr("GraphSAGE sample")],
             "head": [self.tr("mean over heads"), self.tr("max over heads"),
                      *[self.tr("head {0}").format(i) for i in range(1, 9)]],
             "aggregation": [self.tr("the layer's own"), self.tr("sum"), self.tr("mean"),
                             self.tr("max")]})
        self.task_form.setTitle(self.tr("Graph classification and link prediction"))
        self.task_form.set_texts(
            {"pooling": self.tr("Global pooling"), "batch_graphs": self.tr("Graphs in the batch"),
             "links": self.tr("Predicted links drawn")},
            {"pooling": [self.tr("mean"), self.tr("max"), self.tr("sum")]})
        self.save_button.setText(self.tr("Save graph with results…"))
        self.save_button.setToolTip(self.tr("GraphML or GEXF with predictions, GCN "
                                            "coefficients and GAT attention as attributes"))
        self._update_buttons()
        super().retranslate()
        if self.result is not None:
            if self.result["layout_key"][0] == self._doc_key():   # its name, translated
                self.result["name"] = self._dataset_name()
                self._computing_name = self.result["name"]
            self.show_trace(self.result)
        for v in self.views:
            v.panel.set_title(v.title())


def _head_values(values: np.ndarray, head: str) -> np.ndarray:
    """One value per edge from α of shape [E, heads]: the mean, the max or one head."""
    values = np.atleast_2d(values.T).T if values.ndim == 1 else values
    if head == "mean":
        return values.mean(axis=1)
    if head == "max":
        return values.max(axis=1)
    return values[:, min(int(head) - 1, values.shape[1] - 1)]


def _compress(batch: np.ndarray) -> str:
    """[0 0 0 1 1 2] → "[0×3, 1×2, 2×1]"."""
    values, counts = np.unique(batch, return_counts=True)
    return "[" + ", ".join(f"{v}×{c}" for v, c in zip(values, counts, strict=True)) + "]"


def _compare_job(compare_models, data, epochs: int, seed: int, train_per_class: int,
                 device: str):
    """Run the comparison, reporting each model's result as it comes."""
    results: dict[str, float] = {}
    for i, kind in enumerate(("gcn", "sage", "gat")):
        out = compare_models(data, kinds=(kind,), epochs=epochs, seeds=(seed,),
                             device=device, train_per_class=train_per_class)
        results[kind] = float(np.median(out[kind]))
        results["baseline"] = float(np.median(out["baseline"]))
        yield Progress(step=i + 1, total=3, loss=0.0, trace=dict(results),
                       message=", ".join(f"{k} {v:.2f}" for k, v in results.items()))


def _graph_result(doc, p: dict, session, pos, layout_key, motif, batch, graph_session,
                  link_session) -> dict:
    """Everything the tab draws, computed off the GUI thread."""
    from models import graphs as gnn
    from models.errors import ArchScopeError
    from models.graphs import layout

    out: dict = {"doc": doc, "layout_key": layout_key}
    if pos is None:
        try:
            pos = layout(doc, p["layout"], seed=p["seed"])
        except ArchScopeError as exc:         # e.g. "data" on a graph without positions
            out["layout_error"] = str(exc)
            pos = layout(doc, "spring", seed=p["seed"])
    out["pos"] = pos
    data = doc.data
    n = data.num_nodes
    node = p["node"] if 0 <= p["node"] < n else -1
    out["node"] = session.evaluate()             # takes the session's lock itself
    with session.lock:
        model = session.model
        layers = len(model.convs)
        layer = min(p["layer"], layers) - 1
        if p["model"] == "gat":
            out["gat"] = gnn.gat_attention(model, data, layer)
        if node >= 0:
            out["message"] = gnn.message_passing(model, data, node, layer, p["aggregation"])
    if p["edges"] == "gcn":                     # the weights play no part: no lock
        out["gcn"] = gnn.gcn_coefficients(data.edge_index, n, getattr(data, "edge_weight",
                                                                       None))
    if p["edges"] == "sage" and node >= 0:
        out["sample"] = gnn.sage_sample(data.edge_index, n, node, [p["sample"]] * layers,
                                        seed=p["sample_seed"])
    out["batch"] = batch or gnn.batch_trace(motif, list(range(p["batch_graphs"])))
    if graph_session is not None:
        out["graphs"] = graph_session.evaluate()
    if link_session is not None:
        out["link"] = link_session.evaluate()
    return out
