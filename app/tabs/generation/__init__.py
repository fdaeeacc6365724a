"""The graph-generation tab: ``tab`` (wiring and jobs), ``controls`` (the controls
column), ``params`` (its declared parameters), ``views`` (one class per view), ``state``
(its part of a session file)."""

from app.tabs.generation.tab import GenerationTab

__all__ = ["GenerationTab"]
