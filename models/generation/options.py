"""Names shared by the graph generators and the tab: the methods, the built-in datasets,
the sizes of a comparison and the limits on a folder of the student's own graphs.

No torch here: ``app/`` may import this module at its top, before torch has loaded.
``GENERATION_RANGES`` are the one place of each of the tab's numbers' default and limits
(its controls are built from them); a ``GenerationRequest`` is one setting of the tab,
checked once when it is made, and ``models.generation.view.generation_view`` takes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = ["METHODS", "LEARNED_METHODS", "METHOD_LABELS", "DATASETS", "DATASET_LABELS",
           "DEFAULT_STEPS", "MAX_FOLDER_GRAPHS", "MAX_GRAPH_NODES", "MAX_FOLDER_FILE_BYTES",
           "MAX_FOLDER_EDGES",
           "CLUSTERING_BINS", "KERNELS", "FOLDER", "MAX_SHOWN", "SAMPLES",
           "GENERATION_RANGES", "GenerationRequest"]

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
#: ... and at most this many bytes (a small graph's file is a few kB) ...
MAX_FOLDER_FILE_BYTES = 5 * 1024 * 1024
#: ... with at most this many edges in all (500 complete graphs of 200 nodes, 10 M edges
#: inside the limits above, took 150 s to read and 3.7-5.5 GB; the course's families have
#: a few dozen edges a graph)
MAX_FOLDER_EDGES = 200_000
#: bins of the clustering-coefficient histogram over [0, 1] (GraphRNN's 100)
CLUSTERING_BINS = 100
#: MMD kernels: GraphRNN's Gaussian over the earth mover's distance, GRAN's Gaussian
#: over the total variation distance
KERNELS = ("emd", "tv")

#: the tab's dataset choice of a folder of the student's own graphs
FOLDER = "folder"
#: graphs laid out per row (the gallery shows up to this many)
MAX_SHOWN = 12
#: graphs drawn from each generator to score it
SAMPLES = 100

#: the generation tab's numbers: defaults and limits (its controls are built from these)
GENERATION_RANGES: dict[str, Range] = {
    "count": Range(150, 20, 500),          # graphs made of a built-in family
    "seed": Range(0, 0, 99999),
    "steps": Range(DEFAULT_STEPS["graphrnn"], 1, 5000),   # GraphRNN's steps per Train
    "shown": Range(8, 2, MAX_SHOWN),       # graphs per row of the gallery
}


def _default(key: str):
    return GENERATION_RANGES[key].default


@dataclass(frozen=True)
class GenerationRequest(Request):
    """One setting of the generation tab: the family (``dataset``, ``count``, ``seed``;
    ``dataset == FOLDER`` is the folder the tab opened), GraphRNN's steps per Train, the
    methods compared (``show_<method>``) and the graphs per gallery row. Checked when
    made: a value outside ``GENERATION_RANGES`` or the choices raises
    ``InvalidParameterError`` naming it."""

    dataset: str = "community"
    count: int = _default("count")
    seed: int = _default("seed")
    steps: int = _default("steps")
    show_graphrnn: bool = True
    show_er: bool = True
    show_ba: bool = True
    show_sbm: bool = True
    shown: int = _default("shown")

    def __post_init__(self) -> None:
        check_choice(self, "dataset", (*DATASETS, FOLDER))
        check_whole(self, *GENERATION_RANGES)
        check_range(self, GENERATION_RANGES, *GENERATION_RANGES)
        check_flags(self, *(f"show_{m}" for m in METHODS))


    @property
    def methods(self) -> tuple[str, ...]:
        """The methods compared, in ``METHODS`` order."""
        return tuple(m for m in METHODS if getattr(self, f"show_{m}"))

    @property
    def baselines(self) -> tuple[str, ...]:
        """The methods compared that are fitted, not learned."""
        return tuple(m for m in self.methods if m not in LEARNED_METHODS)

    @property
    def is_folder(self) -> bool:
        return self.dataset == FOLDER
