"""The neural-ODE tab: ``tab`` (wiring, jobs, the time axis), ``controls`` (the forms and
what ``apply_state`` reads), ``views`` (building the six views), ``drawing`` (drawing
them), ``data`` (Export data), ``gc_hold`` (no garbage collection during a model's step);
the background computations are ``models.ode.probe``'s."""

from app.tabs.ode.controls import SLIDER_MAX
from app.tabs.ode.tab import ODETab
from models.ode.options import ADAPTIVE, DENSITIES, FIELD_GRID, SOLVERS, TASKS

__all__ = ["ODETab", "ADAPTIVE", "DENSITIES", "FIELD_GRID", "SLIDER_MAX", "SOLVERS", "TASKS"]
