"""Graphs for the message-passing tab: safe loading, built-in graphs, layouts and export."""

from models.errors import GraphLoadError
from models.graphs.document import (
    BUILTIN_GRAPHS,
    DEGREE_BUCKETS,
    FRONTIER_MAX_HOPS,
    IDENTITY_FEATURES_UP_TO,
    KAMADA_KAWAI_MAX_NODES,
    LAYOUTS,
    MAX_EDGES,
    MAX_LABEL_CLASSES,
    MAX_NODES,
    GraphDocument,
    builtin_graph,
    layout,
    save_graph,
)
from models.graphs.readers import MAX_FILE_BYTES, SUPPORTED_FORMATS, load_graph

__all__ = [
    "BUILTIN_GRAPHS", "DEGREE_BUCKETS", "FRONTIER_MAX_HOPS", "IDENTITY_FEATURES_UP_TO",
    "KAMADA_KAWAI_MAX_NODES", "LAYOUTS", "MAX_EDGES", "MAX_FILE_BYTES", "MAX_LABEL_CLASSES",
    "MAX_NODES", "SUPPORTED_FORMATS", "GraphDocument", "GraphLoadError", "builtin_graph",
    "layout", "load_graph", "save_graph",
]
