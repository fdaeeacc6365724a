"""The graph-generation tab's controls: the parameter forms, the actions ``apply_state``
takes besides them, and the controls column (built here, wired to the tab)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton

from models.generation.options import DATASETS, METHODS
from viz.controls import Param, ParamForm
from viz.theme import muted_style

if TYPE_CHECKING:
    from app.tabs.generation.tab import GenerationTab

#: the dataset choice of a folder of the student's own graphs
FOLDER = "folder"
#: graphs laid out per row (the gallery shows up to this many)
MAX_SHOWN = 12
#: graphs drawn from each generator to score it
SAMPLES = 100
DATA_PARAMS = (
    Param("dataset", "choice", "community", choices=(*DATASETS, FOLDER)),
    Param("count", "int", 150, 20, 500, step=10),
    Param("seed", "int", 0, 0, 99999),
)
TRAIN_PARAMS = (
    Param("steps", "int", 300, 1, 5000, step=50),
)
SHOW_PARAMS = (
    *(Param(f"show_{m}", "bool", True) for m in METHODS),
    Param("shown", "int", 8, 2, MAX_SHOWN),
)
ACTIONS = ("train", "compare", "methods")


def truthy(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes",
                                                                        "on")


def parse_methods(names) -> tuple[dict, list[str]]:
    """``apply_state``'s ``methods`` (a list or comma-separated names): the ``show_<m>``
    values they set, and the problems (unknown names)."""
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    bad = [n for n in names if n not in METHODS]
    if bad:
        return {}, [f"methods: unknown {', '.join(map(str, bad))} (choose from "
                    f"{', '.join(METHODS)})."]
    return {f"show_{m}": m in names for m in METHODS}, []


def build_controls(tab: GenerationTab) -> None:
    """The forms and buttons of the controls column, wired to the tab."""
    tab.data_form = ParamForm(DATA_PARAMS)
    tab.train_form = ParamForm(TRAIN_PARAMS)
    tab.show_form = ParamForm(SHOW_PARAMS)
    tab.folder_button = QPushButton()
    tab.folder_button.setObjectName("OpenFolderButton")
    tab.folder_button.clicked.connect(tab.choose_folder)
    tab.folder_note = QLabel()
    tab.folder_note.setWordWrap(True)
    tab.folder_note.setStyleSheet(muted_style())
    tab.reset_button = QPushButton()
    tab.reset_button.clicked.connect(tab.reset_training)
    tab.compare_button = QPushButton()
    tab.compare_button.setObjectName("CompareButton")
    tab.compare_button.clicked.connect(tab.toggle_compare)
    tab.compare_note = QLabel()
    tab.compare_note.setWordWrap(True)
    tab.compare_note.setStyleSheet(muted_style())

    lay = tab.controls_layout
    lay.addWidget(tab.data_form)
    lay.addWidget(tab.folder_button)
    lay.addWidget(tab.folder_note)
    lay.addWidget(tab.train_form)
    row = QHBoxLayout()
    row.addWidget(tab.train_button, 2)
    row.addWidget(tab.reset_button, 1)
    lay.addLayout(row)
    lay.addWidget(tab.compare_button)
    lay.addWidget(tab.status)
    lay.addWidget(tab.error_note)
    lay.addWidget(tab.compare_note)
    lay.addWidget(tab.show_form)
    lay.addStretch(1)
