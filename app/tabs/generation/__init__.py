"""The graph-generation tab: ``tab`` (wiring and jobs), ``controls`` (the forms and the
controls column), ``drawing`` (the views), ``data`` (Export data), ``state``
(its part of a session file)."""

from app.tabs.generation.tab import GenerationTab

__all__ = ["GenerationTab"]
