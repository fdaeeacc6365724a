"""The meta-learning tab's controls: the parameter forms, the actions ``apply_state``
takes besides them and the parsing of their values, the controls column (the
adaptation view builds its own step scrubber)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton

from app.tabs.meta.params import DEFAULTS, FAMILIES, INPUT_REGIONS, K_CHOICES, MAX_SUPPORT, RANGES
from app.tabs.meta.views import TRAIN_AMP_MAX
from models.meta.options import METHODS
from viz.controls import Param, ParamForm
from viz.theme import muted_style

if TYPE_CHECKING:
    from app.tabs.meta.tab import MetaTab

__all__ = ["MAX_SUPPORT", "TRAIN_AMP_MAX", "ACTIONS", "build_controls", "parse_support",
           "parse_methods"]


def _ranged(key: str, kind: str, **kw) -> Param:
    """A control of a number: its default and limits are the request's ``RANGES``."""
    r = RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, **kw)


META_PARAMS = (
    Param("k", "choice", str(DEFAULTS["k"]), choices=tuple(map(str, K_CHOICES))),
    _ranged("inner_lr", "float", step=0.005, decimals=4),
    _ranged("inner_steps", "int"),
    _ranged("reptile_steps", "int"),
    _ranged("meta_batch", "int"),
    _ranged("meta_lr", "float", step=5e-4, decimals=5),
)
TASK_PARAMS = (
    _ranged("amp_max", "float", step=0.5, decimals=1),
    _ranged("task_seed", "int"),
    Param("trail", "bool", DEFAULTS["trail"]),
)
SHOW_PARAMS = tuple(Param(f"show_{m}", "bool", DEFAULTS[f"show_{m}"]) for m in METHODS)
PROTO_PARAMS = (
    Param("family", "choice", DEFAULTS["family"], choices=FAMILIES),
    _ranged("n_way", "int"),
    _ranged("k_shot", "int"),
    _ranged("episode_seed", "int"),
    Param("input_regions", "choice", DEFAULTS["input_regions"], choices=INPUT_REGIONS),
)
ACTIONS = ("train", "train_proto", "evaluate", "support", "steps_shown", "methods")


def _truthy(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes",
                                                                        "on")


def parse_support(value) -> np.ndarray | None:
    """``apply_state``'s ``support``: a list of [x, y] pairs (also as a JSON string) as
    float32[n, 2]; None for the task's own K points; ``ValueError`` saying what is wrong."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "task")):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"'{value}' is not a list of [x, y] pairs") from exc
    pts = np.asarray(value, dtype=np.float64)
    if pts.size == 0:
        return None
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError("give a list of [x, y] pairs")
    if not np.isfinite(pts).all():
        raise ValueError("the points must be finite numbers")
    if len(pts) > MAX_SUPPORT:
        raise ValueError(f"at most {MAX_SUPPORT} points")
    return pts.astype(np.float32)


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


def build_controls(tab: MetaTab) -> None:  # one widget after another, in the column's order
    """The forms and buttons of the controls column, wired to the tab."""
    tab.meta_form = ParamForm(META_PARAMS)
    tab.task_form = ParamForm(TASK_PARAMS)
    tab.show_form = ParamForm(SHOW_PARAMS)
    tab.proto_form = ParamForm(PROTO_PARAMS)
    for form in (tab.meta_form, tab.proto_form):   # long choice texts: elided, so
        for w in form.widgets.values():                # the controls keep their width
            if isinstance(w, QComboBox):
                w.setSizeAdjustPolicy(
                    QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                w.setMinimumContentsLength(10)
    tab.reset_button = QPushButton()
    tab.reset_button.clicked.connect(tab.reset_meta)
    tab.new_task_button = QPushButton()
    tab.new_task_button.clicked.connect(tab.new_task)
    tab.reset_points_button = QPushButton()
    tab.reset_points_button.clicked.connect(tab.reset_points)
    tab.ood_note = QLabel()
    tab.ood_note.setWordWrap(True)
    tab.ood_note.setStyleSheet("color: #b35c00;")
    tab.mouse_note = QLabel()
    tab.mouse_note.setWordWrap(True)
    tab.mouse_note.setStyleSheet(muted_style())
    tab.eval_button = QPushButton()
    tab.eval_button.setObjectName("EvaluateButton")
    tab.eval_button.clicked.connect(tab.evaluate)
    tab.proto_train_button = QPushButton()
    tab.proto_train_button.setObjectName("ProtoTrainButton")
    tab.proto_train_button.clicked.connect(tab.toggle_proto_training)
    tab.proto_reset_button = QPushButton()
    tab.proto_reset_button.clicked.connect(tab.reset_proto)
    tab.new_episode_button = QPushButton()
    tab.new_episode_button.clicked.connect(tab.new_episode)
    tab.proto_status = QLabel()
    tab.proto_status.setWordWrap(True)

    lay = tab.controls_layout
    lay.addWidget(tab.meta_form)
    row = QHBoxLayout()
    row.addWidget(tab.train_button, 2)
    row.addWidget(tab.reset_button, 1)
    lay.addLayout(row)
    lay.addWidget(tab.status)
    lay.addWidget(tab.error_note)
    lay.addWidget(tab.task_form)
    row = QHBoxLayout()
    row.addWidget(tab.new_task_button)
    row.addWidget(tab.reset_points_button)
    lay.addLayout(row)
    lay.addWidget(tab.ood_note)
    lay.addWidget(tab.mouse_note)
    lay.addWidget(tab.show_form)
    lay.addWidget(tab.eval_button)
    lay.addWidget(tab.proto_form)
    row = QHBoxLayout()
    row.addWidget(tab.proto_train_button, 2)
    row.addWidget(tab.proto_reset_button, 1)
    lay.addLayout(row)
    lay.addWidget(tab.new_episode_button)
    lay.addWidget(tab.proto_status)
    lay.addStretch(1)

