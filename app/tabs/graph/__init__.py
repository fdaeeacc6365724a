"""The graph tab: ``tab`` (wiring, documents, sessions and the four jobs), ``controls``
(the forms, the attribute box and the controls column), ``drawing`` (the views and hover
texts), ``data`` (Export data)."""

from app.tabs.graph.tab import GraphTab

__all__ = ["GraphTab"]
