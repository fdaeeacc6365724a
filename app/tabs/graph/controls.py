"""The graph tab's controls: the parameter forms, the keys ``apply_state`` takes besides
them, the attribute box (which attribute is the label, which are features, which colours
the nodes) and the controls column with the four job buttons."""

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

from app.tabs.graph import communities, explaining
from models.graphs.options import AGGREGATIONS, DATASETS, LAYOUTS, MODEL_KINDS, POOLINGS
from viz.controls import Param, ParamForm
from viz.theme import error_style, muted_style

if TYPE_CHECKING:
    from app.tabs.graph.tab import GraphTab

GRAPH_PARAMS = (
    Param("dataset", "choice", "karate", choices=DATASETS),
    Param("layout", "choice", "spring", choices=LAYOUTS),
    Param("seed", "int", 0, 0, 99999),
)
MODEL_PARAMS = (
    Param("model", "choice", "gcn", choices=MODEL_KINDS),
    # 32 hidden units: with 4 labelled nodes, dropout 0.5 on 16 units left GCN level with
    # the nearest-labelled-node baseline on karate (benchmarks/bench_gnn.py --sections tab)
    Param("hidden", "int", 32, 2, 256),
    Param("heads", "int", 4, 1, 8),
    Param("aggr", "choice", "mean", choices=("mean", "max")),   # of SAGE_AGGREGATORS
    # GCN with the graph's edge weights (karate's are Zachary's interaction counts, 1-7);
    # off: every edge 1, as the course's GCNConv(x, edge_index)
    Param("edge_weights", "bool", False),
    Param("train_per_class", "int", 1, 1, 100),
    Param("lr", "float", 0.01, 1e-4, 1.0, step=0.005, decimals=4),
    Param("epochs", "int", 200, 1, 100000, step=50),
)
SHOW_PARAMS = (
    Param("colour", "choice", "label",
          choices=("label", "prediction", "correct", "degree", "attribute", "community")),
    Param("size", "choice", "degree", choices=("uniform", "degree", "attribute")),
    Param("edges", "choice", "plain", choices=("plain", "weight", "gcn", "gat", "sage")),
    Param("node", "int", 0, -1, 10_000_000),
    Param("layer", "int", 1, 1, 2),               # the models have 2 layers
    Param("head", "choice", "mean", choices=("mean", "max", "1", "2", "3", "4", "5", "6", "7",
                                             "8")),
    Param("aggregation", "choice", "model", choices=AGGREGATIONS),
    Param("sample", "int", 3, 1, 50),
    Param("sample_seed", "int", 0, 0, 99999),
)
TASK_PARAMS = (
    Param("pooling", "choice", "mean", choices=POOLINGS),
    Param("batch_graphs", "int", 3, 1, 8),
    Param("links", "int", 10, 0, 200),
)
#: the parameters that make a different node classifier
MODEL_KEY = ("model", "hidden", "heads", "aggr", "edge_weights", "train_per_class", "seed")
#: what ``apply_state`` takes besides the forms' keys
ACTIONS = ("train", "train_graphs", "train_links", "compare", "label", "features",
           "colour_attribute", *communities.COMMUNITY_ACTIONS, explaining.JOB,
           explaining.PICK_JOB)
#: the state keys that start a job, and the job each starts
JOB_KEYS = (("train", "node"), ("compare", "compare"), ("train_graphs", "graphs"),
            ("train_links", "links"), ("find_communities", communities.JOB),
            (explaining.JOB, explaining.JOB), (explaining.PICK_JOB, explaining.PICK_JOB))


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
    communities.build_controls(tab, lay)
    explaining.build_controls(tab, lay)
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
        tab.label_combo.addItem(QCoreApplication.translate("GraphTab", "(none)"), None)
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
        communities.fill_nmi_box(tab, doc)
    finally:
        tab._filling = False


def checked_features(tab: GraphTab) -> tuple[str, ...]:
    """The feature attributes ticked in the attribute box."""
    fl = tab.feature_list
    return tuple(fl.item(i).text() for i in range(fl.count())
                 if fl.item(i).checkState() == Qt.CheckState.Checked)
