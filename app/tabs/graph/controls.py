"""The graph tab's controls: the parameter forms (their specs are ``params``'), the keys
``apply_state`` takes besides them, the attribute box (which attribute is the label, which
are features, which colours the nodes) and the controls column with the four job buttons
and the communities and explanation panels' groups."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
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

from app.tabs.graph import communities, depth, explaining
from app.tabs.graph.params import (  # noqa: F401 - the forms' specs, named here as before
    GRAPH_PARAMS,
    MODEL_KEY,
    MODEL_PARAMS,
    SHOW_PARAMS,
    TASK_PARAMS,
)
from viz.controls import ParamForm
from viz.theme import error_style, muted_style

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab

translate = QCoreApplication.translate

#: what ``apply_state`` takes besides the forms' keys
ACTIONS = ("train", "train_graphs", "train_links", "compare", "label", "features",
           "colour_attribute", *communities.COMMUNITY_ACTIONS, explaining.JOB,
           explaining.PICK_JOB, *depth.DEPTH_ACTIONS)
#: the state keys that start a job, and the job each starts
JOB_KEYS = (("train", "node"), ("compare", "compare"), ("train_graphs", "graphs"),
            ("train_links", "links"), ("find_communities", communities.JOB),
            (explaining.JOB, explaining.JOB), (explaining.PICK_JOB, explaining.PICK_JOB),
            ("depth_study", depth.JOB))


def build_controls(tab: GraphTab) -> None:
    """The forms, the attribute box, the job buttons and the notes, in the controls
    column; the buttons are wired to the tab's jobs."""
    tab.graph_form = ParamForm(GRAPH_PARAMS)
    tab.model_form = ParamForm(MODEL_PARAMS)
    tab.show_form = ParamForm(SHOW_PARAMS)
    tab.task_form = ParamForm(TASK_PARAMS)
    build_attribute_box(tab)
    # the base's Train button trains the node classifier ("node")
    tab.compare_button = QPushButton()
    tab.compare_button.setObjectName("CompareButton")
    tab.compare_button.clicked.connect(lambda: tab.toggle_job("compare"))
    tab.graph_button = QPushButton()
    tab.graph_button.setObjectName("GraphClassButton")
    tab.graph_button.clicked.connect(lambda: tab.toggle_job("graphs"))
    tab.link_button = QPushButton()
    tab.link_button.setObjectName("LinkButton")
    tab.link_button.clicked.connect(lambda: tab.toggle_job("links"))
    tab.save_button = QPushButton()
    tab.save_button.clicked.connect(tab.save_graph_dialog)
    tab.note = QLabel()
    tab.note.setWordWrap(True)
    tab.note.setStyleSheet(muted_style())
    tab.layout_note = QLabel()
    tab.layout_note.setWordWrap(True)
    tab.layout_note.setStyleSheet(error_style())
    lay = tab.controls_layout
    lay.addWidget(tab.graph_form)
    lay.addWidget(tab.layout_note)
    lay.addWidget(tab.attr_box)
    lay.addWidget(tab.note)
    lay.addWidget(tab.model_form)
    buttons = QHBoxLayout()
    buttons.addWidget(tab.train_button)
    buttons.addWidget(tab.compare_button)
    lay.addLayout(buttons)
    lay.addWidget(tab.status)
    lay.addWidget(tab.error_note)
    lay.addWidget(tab.show_form)
    lay.addWidget(tab.task_form)
    tasks = QHBoxLayout()
    tasks.addWidget(tab.graph_button)
    tasks.addWidget(tab.link_button)
    lay.addLayout(tasks)
    lay.addWidget(tab.communities.form)
    lay.addWidget(tab.explaining.form)
    lay.addWidget(tab.depth.form)
    lay.addWidget(tab.save_button)
    lay.addStretch(1)


def build_attribute_box(tab: GraphTab) -> None:
    """Which attribute is the label, which are features, which colours the nodes:
    filled from the graph that is loaded."""
    tab.attr_box = QGroupBox()
    form = QFormLayout(tab.attr_box)
    tab.label_combo = QComboBox()
    tab.label_combo.setObjectName("LabelAttribute")
    tab.colour_combo = QComboBox()
    tab.colour_combo.setObjectName("ColourAttribute")
    tab.feature_list = QListWidget()
    tab.feature_list.setObjectName("FeatureAttributes")
    for widget in (tab.label_combo, tab.colour_combo):
        widget.setProperty("archscope_data", True)     # the file's own attribute names
    tab.feature_list.setMaximumHeight(90)
    tab.label_text, tab.feature_text, tab.colour_text = QLabel(), QLabel(), QLabel()
    form.addRow(tab.label_text, tab.label_combo)
    form.addRow(tab.feature_text, tab.feature_list)
    form.addRow(tab.colour_text, tab.colour_combo)
    tab.label_combo.currentIndexChanged.connect(tab._attributes_changed)
    tab.feature_list.itemChanged.connect(tab._attributes_changed)
    tab.colour_combo.currentIndexChanged.connect(tab.schedule_update)
    tab._filling = False
    tab._attr_choice = {}          # doc key -> (label, features)


def fill_attribute_box(tab: GraphTab, doc) -> None:
    """The label and feature candidates of ``doc``, keeping the user's choice."""
    tab._filling = True
    try:
        label, features = tab._attr_choice.get(tab._doc_key(), (doc.label_attr,
                                                                doc.feature_attrs))
        tab.label_combo.clear()
        tab.label_combo.addItem(translate("GraphTab", "(none)"), None)
        for name in doc.label_candidates():
            tab.label_combo.addItem(name, name)
        index = tab.label_combo.findData(label)
        tab.label_combo.setCurrentIndex(max(0, index))
        tab.feature_list.clear()
        for name in doc.feature_candidates():
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in features
                               else Qt.CheckState.Unchecked)
            tab.feature_list.addItem(item)
        current = tab.colour_combo.currentData()
        tab.colour_combo.clear()
        for name in doc.node_attributes:
            tab.colour_combo.addItem(name, name)
        tab.colour_combo.setCurrentIndex(max(0, tab.colour_combo.findData(current)))
        tab.communities.fill_nmi_box(doc)
    finally:
        tab._filling = False


def checked_features(tab: GraphTab) -> tuple[str, ...]:
    """The feature attributes ticked in the attribute box."""
    fl = tab.feature_list
    return tuple(fl.item(i).text() for i in range(fl.count())
                 if fl.item(i).checkState() == Qt.CheckState.Checked)


def dataset_texts() -> list[str]:
    """The built-in graphs' names, in ``DATASETS`` order, in the current language."""
    return [translate("GraphTab", "Zachary's karate club"),
            translate("GraphTab", "Les Misérables"),
            translate("GraphTab", "Florentine families"),
            translate("GraphTab", "Davis southern women"),
            translate("GraphTab", "stochastic block model"),
            translate("GraphTab", "Barabási–Albert + house motifs"),
            translate("GraphTab", "grid"), translate("GraphTab", "random geometric graph"),
            translate("GraphTab", "college football (Gephi)"),
            translate("GraphTab", "your file (File → Open…)")]


def retranslate_controls(tab: GraphTab) -> None:  # long: every form's texts
    """The forms' titles, row labels and choices, the attribute box and the save button,
    in the current language (the panels word their own groups)."""
    tab.graph_form.setTitle(translate("GraphTab", "Graph"))
    tab.graph_form.set_texts(
        {"dataset": translate("GraphTab", "Data"), "layout": translate("GraphTab", "Layout"), "seed": translate("GraphTab", "Seed")},
        {"dataset": dataset_texts(),
         "layout": [translate("GraphTab", "spring"), translate("GraphTab", "Kamada–Kawai"), translate("GraphTab", "spectral"),
                    translate("GraphTab", "circular"), translate("GraphTab", "shell"), translate("GraphTab", "positions in the data")]})
    tab.attr_box.setTitle(translate("GraphTab", "Attributes"))
    if tab.label_combo.count():
        tab.label_combo.setItemText(0, translate("GraphTab", "(none)"))
    tab.label_text.setText(translate("GraphTab", "Label"))
    tab.feature_text.setText(translate("GraphTab", "Features"))
    tab.colour_text.setText(translate("GraphTab", "Colour attribute"))
    tab.model_form.setTitle(translate("GraphTab", "Model (node classification)"))
    tab.model_form.set_texts(
        {"model": translate("GraphTab", "Model"), "hidden": translate("GraphTab", "Hidden units"),
         "heads": translate("GraphTab", "Attention heads"), "aggr": translate("GraphTab", "Aggregator"),
         "edge_weights": translate("GraphTab", "Edge weights in GCN"),
         "train_per_class": translate("GraphTab", "Labelled nodes per class"),
         "lr": translate("GraphTab", "Learning rate"), "epochs": translate("GraphTab", "Epochs")},
        {"model": ["GCN", "GraphSAGE", "GAT"], "aggr": [translate("GraphTab", "mean"), translate("GraphTab", "max")]})
    tab.show_form.setTitle(translate("GraphTab", "Show"))
    tab.show_form.set_texts(
        {"colour": translate("GraphTab", "Colour nodes by"), "size": translate("GraphTab", "Node size"),
         "edges": translate("GraphTab", "Edges show"), "node": translate("GraphTab", "Selected node"),
         "layer": translate("GraphTab", "Layer"), "head": translate("GraphTab", "Head"),
         "aggregation": translate("GraphTab", "Aggregation"), "sample": translate("GraphTab", "Sample size per hop"),
         "sample_seed": translate("GraphTab", "Sampling seed")},
        {"colour": [translate("GraphTab", "label"), translate("GraphTab", "prediction"), translate("GraphTab", "right or wrong"),
                    translate("GraphTab", "degree"), translate("GraphTab", "attribute"), translate("GraphTab", "community")],
         "size": [translate("GraphTab", "uniform"), translate("GraphTab", "degree"), translate("GraphTab", "the colour attribute (numeric)")],
         "edges": [translate("GraphTab", "plain"), translate("GraphTab", "weight"), translate("GraphTab", "GCN coefficients"),
                   translate("GraphTab", "GAT attention"), translate("GraphTab", "GraphSAGE sample")],
         "head": [translate("GraphTab", "mean over heads"), translate("GraphTab", "max over heads"),
                  *[translate("GraphTab", "head {0}").format(i) for i in range(1, 9)]],
         "aggregation": [translate("GraphTab", "the layer's own"), translate("GraphTab", "sum"), translate("GraphTab", "mean"), translate("GraphTab", "max")]})
    tab.task_form.setTitle(translate("GraphTab", "Graph classification and link prediction"))
    tab.task_form.set_texts(
        {"pooling": translate("GraphTab", "Global pooling"), "batch_graphs": translate("GraphTab", "Graphs in the batch"),
         "links": translate("GraphTab", "Predicted links drawn")},
        {"pooling": [translate("GraphTab", "mean"), translate("GraphTab", "max"), translate("GraphTab", "sum")]})
    tab.save_button.setText(translate("GraphTab", "Save graph with results…"))
    tab.save_button.setToolTip(translate("GraphTab", "GraphML or GEXF with predictions, GCN coefficients, "
                                  "GAT attention and communities as attributes"))
