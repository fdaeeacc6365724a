"""The graph tab: ``tab`` (wiring and the four jobs), ``documents`` (the graph shown and
its models), ``params`` (the forms' specs, from ``models.graphs.options.GraphRequest``),
``controls`` (the forms, the attribute box and the controls column), ``views`` (one class
per view), ``arrange`` (where the views go), the ``communities`` and ``explaining``
panels, ``describe`` (the graph's description) and ``state`` (its session file part)."""

from app.tabs.graph.tab import GraphTab

__all__ = ["GraphTab"]
