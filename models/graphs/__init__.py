"""Graphs for the message-passing tab: safe loading, built-in graphs, layouts and export."""

from models.errors import GraphLoadError
from models.graphs.builtins import BUILTIN_GRAPHS, builtin_graph
from models.graphs.document import MAX_EDGES, MAX_NODES, GraphDocument
from models.graphs.export import save_graph
from models.graphs.features import DEGREE_BUCKETS, IDENTITY_FEATURES_UP_TO, MAX_LABEL_CLASSES
from models.graphs.layouts import FRONTIER_MAX_HOPS, KAMADA_KAWAI_MAX_NODES, LAYOUTS, layout
from models.graphs.readers import MAX_FILE_BYTES, SUPPORTED_FORMATS, load_graph

__all__ = [
    "BUILTIN_GRAPHS", "DEGREE_BUCKETS", "FRONTIER_MAX_HOPS", "IDENTITY_FEATURES_UP_TO",
    "KAMADA_KAWAI_MAX_NODES", "LAYOUTS", "MAX_EDGES", "MAX_FILE_BYTES", "MAX_LABEL_CLASSES",
    "MAX_NODES", "SUPPORTED_FORMATS", "GraphDocument", "GraphLoadError", "builtin_graph",
    "layout", "load_graph", "save_graph",
]
