"""The neural-ODE tab: ``tab`` (wiring, jobs, the time axis), ``controls`` (the forms and
what ``apply_state`` reads), ``params`` (the defaults and limits, of the models' ``ODERequest``), ``views`` (one
class per view: drawing and Export data), ``state`` (its part of a session file), ``gc_hold`` (no garbage collection during a model's step);
the background computations are ``models.ode.probe``'s."""

from app.tabs.ode.controls import SLIDER_MAX
from app.tabs.ode.tab import ODETab
from models.ode.options import ADAPTIVE, DENSITIES, FIELD_GRID, SOLVERS, TASKS

__all__ = ["ODETab", "ADAPTIVE", "DENSITIES", "FIELD_GRID", "SLIDER_MAX", "SOLVERS", "TASKS"]
