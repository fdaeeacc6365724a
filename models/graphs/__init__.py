"""Graphs for the message-passing tab: safe loading, built-in graphs, layouts and export;
GCN, GraphSAGE and GAT with message passing made visible; training sessions."""

from models.devices import device_for
from models.errors import GraphLoadError
from models.graphs.baseline import compare_models, nearest_train_baseline
from models.graphs.builtins import BUILTIN_GRAPHS, builtin_graph, karate_club
from models.graphs.document import MAX_EDGES, MAX_NODES, GraphDocument
from models.graphs.export import save_graph
from models.graphs.features import DEGREE_BUCKETS, IDENTITY_FEATURES_UP_TO, MAX_LABEL_CLASSES
from models.graphs.inspection import (
    AGGREGATIONS,
    align_edge_values,
    batch_trace,
    gat_attention,
    gcn_coefficients,
    message_passing,
    receptive_field,
    sage_sample,
)
from models.graphs.layers import (
    GAT,
    GCN,
    MODEL_KINDS,
    POOLINGS,
    GraphClassifier,
    GraphSAGE,
    build_model,
)
from models.graphs.layouts import FRONTIER_MAX_HOPS, KAMADA_KAWAI_MAX_NODES, LAYOUTS, layout
from models.graphs.metrics import roc_auc, roc_curve
from models.graphs.motifs import motif_graphs
from models.graphs.readers import MAX_FILE_BYTES, SUPPORTED_FORMATS, load_graph
from models.graphs.sessions import (
    GraphClassificationSession,
    LinkPredictionSession,
    NodeClassificationSession,
    split_nodes,
)

__all__ = [
    # documents: loading, built-in graphs, layouts, export
    "BUILTIN_GRAPHS", "DEGREE_BUCKETS", "FRONTIER_MAX_HOPS", "IDENTITY_FEATURES_UP_TO",
    "KAMADA_KAWAI_MAX_NODES", "LAYOUTS", "MAX_EDGES", "MAX_FILE_BYTES", "MAX_LABEL_CLASSES",
    "MAX_NODES", "SUPPORTED_FORMATS", "GraphDocument", "GraphLoadError", "builtin_graph",
    "karate_club", "layout", "load_graph", "save_graph",
    # GNNs, message passing made visible, sessions
    "AGGREGATIONS", "GAT", "GCN", "MODEL_KINDS", "POOLINGS", "GraphClassificationSession",
    "GraphClassifier", "GraphSAGE", "LinkPredictionSession", "NodeClassificationSession",
    "align_edge_values", "batch_trace", "build_model", "compare_models", "device_for",
    "gat_attention", "gcn_coefficients", "message_passing", "motif_graphs",
    "nearest_train_baseline", "receptive_field", "roc_auc", "roc_curve", "sage_sample",
    "split_nodes",
]
