"""Tab controllers. Importing this package registers every tab with ``app.registry``."""

from app.tabs import efficient, flows, graph, positional, transformer  # noqa: F401
