"""The neural-ODE tab's views: the plane (vector field and trajectories, with its play
button, t slider and Clear button), the task's view, the NFE timeline, the solver's steps,
the loss and the adjoint comparison, each with its Export-data hook."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from app.tabs.ode import data
from app.tabs.ode.controls import SLIDER_MAX
from app.tabs.view import View
from viz.ode_view import LabelledBarsPlot, StepsPlot, TimelinePlot
from viz.panel import ViewPanel
from viz.plane import PlanePlot

if TYPE_CHECKING:
    from app.tabs.ode.tab import ODETab

translate = QCoreApplication.translate


def build_views(tab: ODETab) -> None:
    """The six views, their plots and the plane's play button, t slider and Clear button."""
    tab.field_plot = PlanePlot()
    tab.field_plot.fit_box = True      # the axes end where the computed field does
    tab.field_plot.clicked.connect(tab.add_start)
    tab.field_plot.moved.connect(tab.move_start)
    tab.field_plot.set_movable("user_start")
    host = QWidget()                  # the plane with its play button and t slider
    col = QVBoxLayout(host)
    col.setContentsMargins(0, 0, 0, 0)
    row = QHBoxLayout()
    tab.play_button = QPushButton()
    tab.play_button.setObjectName("PlayButton")
    tab.play_button.setCheckable(True)
    tab.play_button.toggled.connect(tab._play)
    tab.slider = QSlider(Qt.Orientation.Horizontal)
    tab.slider.setRange(0, SLIDER_MAX)
    tab.slider.setValue(SLIDER_MAX)
    tab.slider.valueChanged.connect(tab._slider_moved)
    tab.t_label = QLabel()
    tab.t_label.setMinimumWidth(120)
    tab.clear_button = QPushButton()
    tab.clear_button.clicked.connect(tab.clear_starts)
    row.addWidget(tab.play_button)
    row.addWidget(tab.slider, 1)
    row.addWidget(tab.t_label)
    row.addWidget(tab.clear_button)
    col.addLayout(row)
    panel = ViewPanel(tab.field_plot)        # exports the plane, not the controls
    panel.layout().replaceWidget(tab.field_plot, host)
    col.insertWidget(0, tab.field_plot, 1)
    tab.task_plot = PlanePlot()
    tab.nfe_plot = TimelinePlot(legend="top-left")
    tab.steps_plot = StepsPlot()
    tab.loss_plot = TimelinePlot()
    tab.adjoint_plot = LabelledBarsPlot()
    tab.add_view(View("field", lambda: translate("ODETab", "Vector field and trajectories"),
                      panel, partial(data.field_data, tab)), 0, 0, 1, 2)
    tab.add_view(View("task", tab._task_title, ViewPanel(tab.task_plot),
                      partial(data.task_data, tab)), 0, 2, 1, 2)
    tab.add_view(View("nfe", lambda: translate("ODETab", "Function evaluations per step"),
                      ViewPanel(tab.nfe_plot), partial(data.nfe_data, tab)), 1, 0)
    tab.add_view(View("steps", lambda: translate("ODETab", "Adaptive solver steps"),
                      ViewPanel(tab.steps_plot), partial(data.steps_data, tab)), 1, 1)
    tab.add_view(View("loss", lambda: translate("ODETab", "Training loss"),
                      ViewPanel(tab.loss_plot), partial(data.loss_data, tab)), 1, 2)
    tab.add_view(View("adjoint", lambda: translate("ODETab", "Adjoint method against direct "
                                                   "backpropagation"),
                      ViewPanel(tab.adjoint_plot), partial(data.adjoint_data, tab)), 1, 3)
    tab.grid.setRowStretch(0, 3)
    tab.grid.setRowStretch(1, 2)
    for c in range(4):
        tab.grid.setColumnStretch(c, 1)
