"""Community detection on a graph document: Louvain and label propagation (networkx),
spectral clustering on the normalised Laplacian (``classical``), DMoN, a GCN trained
unsupervised to maximise modularity (``dmon``); modularity, NMI against a node attribute
and the renumbering by size (``partition``, numpy only); the one entry point and the
tab's job (``detect``); a result in a session file (``saved``); the option names the tab
shares in the torch-free ``options``."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    # option names shared with the tab (torch-free)
    "METHODS": "options",
    "K_METHODS": "options",
    "MAX_DMON_NODES": "options",
    # partitions and their quality (numpy only)
    "modularity": "partition",
    "nmi": "partition",
    "categorical_attributes": "partition",
    "renumber_by_size": "partition",
    "undirected_edges": "partition",
    # the methods
    "detect_communities": "detect",
    "community_result": "detect",
    "community_job": "detect",
    "eigengap_k": "classical",
    "DMoN": "dmon",
    "train_dmon": "dmon",
    # session files
    "result_state": "saved",
    "result_from_state": "saved",
})
