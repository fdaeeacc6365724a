"""The normalizing-flow tab: ``tab`` (wiring, controls and jobs), ``export`` (the
animation and frame exports as a background job), ``points`` (the user's own points),
``state`` (its part of a session file)."""

from app.tabs.flows.tab import SESSIONS_KEPT, FlowsTab

__all__ = ["FlowsTab", "SESSIONS_KEPT"]
