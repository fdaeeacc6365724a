"""Names shared by the graph generators and the tab: the methods, the built-in datasets,
the sizes of a comparison and the limits on a folder of the student's own graphs.

No torch here: ``app/`` may import this module at its top, before torch has loaded.
"""

from __future__ import annotations

__all__ = ["METHODS", "LEARNED_METHODS", "METHOD_LABELS", "DATASETS", "DATASET_LABELS",
           "DEFAULT_STEPS", "MAX_FOLDER_GRAPHS", "MAX_GRAPH_NODES", "MAX_FOLDER_FILE_BYTES",
           "CLUSTERING_BINS", "KERNELS"]

#: every generator ``train_generator`` knows, learned ones first
METHODS = ("graphrnn", "er", "ba", "sbm")
LEARNED_METHODS = ("graphrnn",)
METHOD_LABELS = {
    "graphrnn": "GraphRNN (learned)",
    "er": "Erdős–Rényi",
    "ba": "Barabási–Albert",
    "sbm": "stochastic block model",
}
#: training steps ``train_generator`` runs by default for a learned method
DEFAULT_STEPS = {"graphrnn": 300}
#: the datasets made in code (``models.generation.datasets.make_dataset``)
DATASETS = ("community", "grid", "ego")
DATASET_LABELS = {
    "community": "two communities (GraphRNN's community-small)",
    "grid": "2D grids 4–6 × 4–6",
    "ego": "ego networks (radius 1)",
}
#: a folder of the student's own graphs: at most this many files are read ...
MAX_FOLDER_GRAPHS = 500
#: ... each of at most this many nodes (the learned models see every pair of nodes) ...
MAX_GRAPH_NODES = 200
#: ... and at most this many bytes (a small graph's file is a few kB)
MAX_FOLDER_FILE_BYTES = 5 * 1024 * 1024
#: bins of the clustering-coefficient histogram over [0, 1] (GraphRNN's 100)
CLUSTERING_BINS = 100
#: MMD kernels: GraphRNN's Gaussian over the earth mover's distance, GRAN's Gaussian
#: over the total variation distance
KERNELS = ("emd", "tv")
