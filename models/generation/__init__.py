"""Graph generation: small graph families made in code (``datasets``) or read from a
folder of the student's own graphs (``folder``); a learned generator, GraphRNN
(``graphrnn``, breadth-first ``ordering``), and classical ``baselines`` (Erdős–Rényi,
Barabási–Albert, a fitted stochastic block model), all behind ``train_generator``; the
GraphRNN paper's MMD distances (``metrics``); the tab's background computations in
``probe`` and ``view``, the option names it shares in the torch-free ``options``."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    # option names shared with a tab (torch-free)
    "METHODS": "options", "LEARNED_METHODS": "options", "METHOD_LABELS": "options",
    "DATASETS": "options", "DATASET_LABELS": "options", "DEFAULT_STEPS": "options",
    "MAX_FOLDER_GRAPHS": "options", "MAX_GRAPH_NODES": "options",
    "MAX_FOLDER_FILE_BYTES": "options", "MAX_FOLDER_EDGES": "options", "KERNELS": "options",
    # training graphs
    "make_dataset": "datasets", "split_graphs": "datasets",
    "community_graphs": "datasets", "grid_graphs": "datasets", "ego_graphs": "datasets",
    "load_graph_folder": "folder",
    # generators
    "train_generator": "generator", "make_generator": "generator",
    "GraphRNN": "graphrnn", "GraphRNNGenerator": "graphrnn",
    "ErdosRenyi": "baselines", "BarabasiAlbert": "baselines", "BlockModel": "baselines",
    "NodeCountPrior": "prior",
    # distances
    "degree_mmd": "metrics", "clustering_mmd": "metrics", "mmd": "metrics",
    "mmd_table": "metrics", "degree_histogram": "metrics",
    "clustering_histogram": "metrics",
    # the tab's background computation
    "compare_generators": "probe", "generation_result": "probe",
    # the generation view's computations
    "generation_view": "view", "generation_data": "view", "baseline_comparison": "view", "learned_comparison": "view",
    "merge_comparisons": "view", "read_graph_folder": "view", "make_session": "view",
    "laid_out": "view", "unpack_graphs": "view",
})
