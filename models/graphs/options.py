"""Names shared by the graph models and the graph tab: the built-in graphs, the layouts,
the model kinds, the poolings, the aggregations a message view can show and the input
features of link prediction.

No torch here: ``app/`` imports this module at its top, before torch has loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from models.community import options as community_options
from models.explain import options as explain_options
from models.request import (
    Range,
    Request,
    check_choice,
    check_flags,
    check_range,
    check_whole,
)

__all__ = ["BUILTIN_GRAPHS", "DATASETS", "LAYOUTS", "MODEL_KINDS", "SAGE_AGGREGATORS",
           "POOLINGS", "AGGREGATIONS", "LINK_FEATURES", "session_kwargs", "GraphRequest",
           "GRAPH_RANGES", "TAB_AGGREGATORS", "COLOURS", "SIZES", "EDGE_VIEWS", "HEADS",
           "MAX_DEPTH", "BASELINE_DEPTH", "DEPTH_SHOWS"]

#: the graphs made in code (nothing downloaded), each with a label attribute
BUILTIN_GRAPHS: dict[str, str] = {
    "karate": "Zachary's karate club",
    "les_miserables": "Les Misérables co-appearances",
    "florentine": "Florentine families",
    "davis": "Davis southern women (bipartite)",
    "sbm": "Stochastic block model (4 blocks)",
    "ba_house": "Barabási–Albert graph with house motifs (BA-Shapes)",
    "grid": "2D grid",
    "geometric": "Random geometric graph",
    "football": "American college football (Gephi's football.graphml)",
}
#: what the tab can show: every built-in graph, then the user's file
DATASETS: tuple[str, ...] = (*BUILTIN_GRAPHS, "file")
LAYOUTS: tuple[str, ...] = ("spring", "kamada_kawai", "spectral", "circular", "shell", "data")
MODEL_KINDS = ("gcn", "sage", "gat")
#: GraphSAGE's neighbourhood aggregators
SAGE_AGGREGATORS = ("mean", "max", "sum")
#: global pooling of a graph classifier
POOLINGS = ("mean", "max", "sum")
#: how the message view aggregates: "model" is the layer's own, the others a what-if
AGGREGATIONS = ("model", "sum", "mean", "max")
#: the input features of link prediction (see ``LinkPredictionSession``)
LINK_FEATURES = ("auto", "x", "structural", "both")


#: the GraphSAGE aggregators the tab offers (of ``SAGE_AGGREGATORS``)
TAB_AGGREGATORS = ("mean", "max")
#: what the nodes are coloured by, what sizes them, what the edges show
COLOURS = ("label", "prediction", "correct", "degree", "attribute", "community")
SIZES = ("uniform", "degree", "attribute")
EDGE_VIEWS = ("plain", "weight", "gcn", "gat", "sage")
#: the GAT heads the edges can show: their mean, their max or one of them
HEADS = ("mean", "max", "1", "2", "3", "4", "5", "6", "7", "8")

#: the depth study's deepest model, and the depth of its baseline (normalised GCN's usual 2)
MAX_DEPTH = 8
BASELINE_DEPTH = 2
#: what the depth study's view shows: energy and distance per layer, or accuracy per depth
DEPTH_SHOWS = ("layers", "accuracy")

#: the graph tab's numbers: defaults and limits (its controls are built from these)
GRAPH_RANGES: dict[str, Range] = {
    "seed": Range(0, 0, 99999),
    # 32 hidden units: with 4 labelled nodes, dropout 0.5 on 16 units left GCN level with
    # the nearest-labelled-node baseline on karate (benchmarks/bench_gnn.py --sections tab)
    "hidden": Range(32, 2, 256),
    "heads": Range(4, 1, 8),
    "train_per_class": Range(1, 1, 100),
    "lr": Range(0.01, 1e-4, 1.0),
    "epochs": Range(200, 1, 100000),
    "node": Range(0, -1, 10_000_000),      # -1: none; below the graph's node count
    "layer": Range(1, 1, 2),               # the models have 2 layers
    "sample": Range(3, 1, 50),
    "sample_seed": Range(0, 0, 99999),
    "batch_graphs": Range(3, 1, 8),
    "links": Range(10, 0, 200),
    "community_seed": Range(0, 0, 99999),
    "communities": Range(0, 0, community_options.MAX_K),   # 0: chosen by the eigengap
    "community_epochs": Range(community_options.DEFAULT_EPOCHS, 10, 5000),
    "explain_epochs": Range(explain_options.DEFAULT_EPOCHS, 10, explain_options.MAX_EPOCHS),
    "depth": Range(MAX_DEPTH, 1, MAX_DEPTH),     # the depth study's run, in layers
}
_WHOLE = ("seed", "hidden", "heads", "train_per_class", "epochs", "node", "layer", "sample",
          "sample_seed", "batch_graphs", "links", "community_seed", "communities",
          "community_epochs", "explain_epochs", "depth")


def _default(key: str):
    return GRAPH_RANGES[key].default


@dataclass(frozen=True)
class GraphRequest(Request):
    """One setting of the graph tab: the graph (``dataset``, ``layout``, ``seed``), the
    node classifier, what the views show, the graph-classification and link-prediction
    settings, the community and explanation panels' settings and the depth study's. Checked when made
    (``InvalidParameterError`` naming the key); ``probe.graph_result`` takes it."""

    dataset: str = "karate"
    layout: str = "spring"
    seed: int = _default("seed")
    model: str = "gcn"
    hidden: int = _default("hidden")
    heads: int = _default("heads")
    aggr: str = "mean"
    # GCN with the graph's edge weights (karate's are Zachary's interaction counts, 1-7);
    # off: every edge 1, as the course's GCNConv(x, edge_index)
    edge_weights: bool = False
    train_per_class: int = _default("train_per_class")
    lr: float = _default("lr")
    epochs: int = _default("epochs")
    colour: str = "label"
    size: str = "degree"
    edges: str = "plain"
    node: int = _default("node")
    layer: int = _default("layer")
    head: str = "mean"
    aggregation: str = "model"
    sample: int = _default("sample")
    sample_seed: int = _default("sample_seed")
    pooling: str = "mean"
    batch_graphs: int = _default("batch_graphs")
    links: int = _default("links")
    community_method: str = "louvain"
    community_seed: int = _default("community_seed")
    communities: int = _default("communities")
    community_epochs: int = _default("community_epochs")
    explain_method: str = "gnnexplainer"
    explain_epochs: int = _default("explain_epochs")
    # the depth study: the run's layers, and GCN's D^-1/2 (A+I) D^-1/2 (off: plain sum)
    depth: int = _default("depth")
    gcn_norm: bool = True
    depth_show: str = "layers"

    def __post_init__(self) -> None:
        check_whole(self, *_WHOLE)
        check_range(self, GRAPH_RANGES, *_WHOLE, "lr")
        object.__setattr__(self, "lr", float(self.lr))       # 1 as 1.0, as its spin box
        check_flags(self, "edge_weights", "gcn_norm")
        for key, choices in (("dataset", DATASETS), ("layout", LAYOUTS),
                             ("model", MODEL_KINDS), ("aggr", TAB_AGGREGATORS),
                             ("colour", COLOURS), ("size", SIZES), ("edges", EDGE_VIEWS),
                             ("head", HEADS), ("aggregation", AGGREGATIONS),
                             ("pooling", POOLINGS), ("depth_show", DEPTH_SHOWS),
                             ("community_method", community_options.METHODS),
                             ("explain_method", tuple(explain_options.METHODS))):
            check_choice(self, key, choices)


    def session_kwargs(self) -> dict:
        return session_kwargs(self)


def session_kwargs(p: GraphRequest | Mapping) -> dict:
    """The node classifier's settings among the graph tab's parameters ``p`` (a
    ``GraphRequest``, or a mapping of its keys), besides the model kind, seed and split,
    as ``NodeClassificationSession`` takes them: what Train builds, and what Compare
    trains each model with."""
    get = p.__getitem__ if isinstance(p, Mapping) else partial(getattr, p)
    return {"hidden_dim": get("hidden"), "lr": get("lr"), "heads": get("heads"),
            "aggr": get("aggr"), "edge_weights": get("edge_weights")}
