"""Names shared by the graph models and the graph tab: the built-in graphs, the layouts,
the model kinds, the poolings, the aggregations a message view can show and the input
features of link prediction.

No torch here: ``app/`` imports this module at its top, before torch has loaded.
"""

from __future__ import annotations

__all__ = ["BUILTIN_GRAPHS", "DATASETS", "LAYOUTS", "MODEL_KINDS", "SAGE_AGGREGATORS",
           "POOLINGS", "AGGREGATIONS", "LINK_FEATURES", "session_kwargs"]

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


def session_kwargs(p: dict) -> dict:
    """The node classifier's settings among the graph tab's parameters ``p``, besides the
    model kind, seed and split, as ``NodeClassificationSession`` takes them: what Train
    builds, and what Compare trains each model with."""
    return {"hidden_dim": p["hidden"], "lr": p["lr"], "heads": p["heads"],
            "aggr": p["aggr"], "edge_weights": p["edge_weights"]}
