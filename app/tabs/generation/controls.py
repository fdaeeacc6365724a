"""The graph-generation tab's controls column (built here from ``params``, wired to the
tab) and how ``apply_state`` reads its actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton

from app.tabs.generation.params import DATA_PARAMS, SHOW_PARAMS, TRAIN_PARAMS
from models.generation.options import METHODS
from viz.controls import ParamForm
from viz.theme import muted_style

if TYPE_CHECKING:
    from app.tabs.generation.tab import GenerationTab


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
