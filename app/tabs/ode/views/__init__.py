"""The neural-ODE tab's views: the plane and the task's view (``plane``), the solver's
steps, the NFE timeline, the loss and the adjoint comparison (``training``), and what
they share (``common``)."""

from app.tabs.ode.views.common import paths_until, solve_note, solver_label, tolerance
from app.tabs.ode.views.plane import SLIDER_MAX, FieldView, TaskView, TimeShown
from app.tabs.ode.views.training import (
    AdjointView,
    LossView,
    NFEView,
    SessionShown,
    StepsView,
)

__all__ = ["FieldView", "TaskView", "StepsView", "NFEView", "LossView", "AdjointView",
           "TimeShown", "SessionShown", "SLIDER_MAX", "paths_until", "solve_note",
           "solver_label", "tolerance"]
