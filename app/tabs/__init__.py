"""Tab controllers. Importing this package registers every tab with ``app.registry``."""

from app.tabs import efficient, flows, graph, meta, ode, positional, transformer  # noqa: F401
