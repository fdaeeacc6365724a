"""Graphs for the message-passing tab: safe loading (``readers``, one module per file
format), the graph document (``document``, its labels and features in ``features``),
built-in graphs (``builtins``), layouts, export; GCN, GraphSAGE and GAT (``layers``) with
message passing made visible (``inspection``), trained in ``sessions``; the tab's
background computations in ``probe``, the option names it shares in the torch-free
``options``."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    # option names shared with the tab (torch-free)
    "DATASETS": "options",
    "SAGE_AGGREGATORS": "options",
    "LINK_FEATURES": "options",
    # documents: loading, built-in graphs, layouts, export
    "GraphDocument": "document",
    "MAX_NODES": "document",
    "MAX_EDGES": "document",
    "MAX_LABEL_CLASSES": "features",
    "IDENTITY_FEATURES_UP_TO": "features",
    "DEGREE_BUCKETS": "features",
    "load_graph": "readers.load",
    "MAX_FILE_BYTES": "readers.load",
    "SUPPORTED_FORMATS": "readers.load",
    "GraphLoadError": "readers.load",        # models.errors.GraphLoadError, raised there
    "BUILTIN_GRAPHS": "options",
    "builtin_graph": "builtins",
    "karate_club": "builtins",
    "LAYOUTS": "options",
    "KAMADA_KAWAI_MAX_NODES": "layouts",
    "FRONTIER_MAX_HOPS": "layouts",
    "layout": "layouts",
    "save_graph": "export",
    # GNNs, message passing made visible, sessions
    "MODEL_KINDS": "options",
    "POOLINGS": "options",
    "GCN": "layers",
    "GraphSAGE": "layers",
    "GAT": "layers",
    "build_model": "layers",
    "GraphClassifier": "layers",
    "AGGREGATIONS": "options",
    "receptive_field": "inspection",
    "gcn_coefficients": "inspection",
    "gat_attention": "inspection",
    "sage_sample": "inspection",
    "message_passing": "inspection",
    "align_edge_values": "inspection",
    "batch_trace": "inspection",
    "motif_graphs": "motifs",
    "split_nodes": "sessions",
    "NodeClassificationSession": "sessions",
    "GraphClassificationSession": "sessions",
    "LinkPredictionSession": "sessions",
    "nearest_train_baseline": "baseline",
    "compare_models": "baseline",
    "roc_auc": "metrics",
    "roc_curve": "metrics",
    # the tab's background computations
    "graph_result": "probe",
    "model_comparison": "probe",
    "save_with_results": "probe",
})
