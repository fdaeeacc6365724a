"""The graph tab's declared parameters: the controls' defaults (those of the models'
``GraphRequest``, whose ``GRAPH_RANGES`` the forms are built from), the forms' ``Param``
specs, the keys that make another node classifier, and the epochs of one run of the
graph classifier and of the link predictor."""

from __future__ import annotations

from dataclasses import asdict

from models.graphs.options import (
    AGGREGATIONS,
    COLOURS,
    DATASETS,
    DEPTH_SHOWS,
    EDGE_VIEWS,
    GRAPH_RANGES,
    HEADS,
    LAYOUTS,
    MODEL_KINDS,
    POOLINGS,
    SIZES,
    TAB_AGGREGATORS,
    GraphRequest,
)
from viz.controls import Param

__all__ = ["DEFAULTS", "RANGES", "GRAPH_PARAMS", "MODEL_PARAMS", "SHOW_PARAMS",
           "TASK_PARAMS", "COMMUNITY_PARAMS", "EXPLAIN_PARAMS", "DEPTH_PARAMS", "MODEL_KEY", "GRAPH_EPOCHS",
           "LINK_EPOCHS", "AUTO_LINK_NODES"]

DEFAULTS = asdict(GraphRequest())
RANGES = GRAPH_RANGES


def _number(key: str, kind: str = "int", **options) -> Param:
    """A number's control from its range (default, minimum, maximum)."""
    r = RANGES[key]
    return Param(key, kind, r.default, r.minimum, r.maximum, **options)


def _choice(key: str, choices: tuple[str, ...]) -> Param:
    return Param(key, "choice", DEFAULTS[key], choices=tuple(choices))


GRAPH_PARAMS = (
    _choice("dataset", DATASETS),
    _choice("layout", LAYOUTS),
    _number("seed"),
)
MODEL_PARAMS = (
    _choice("model", MODEL_KINDS),
    _number("hidden"),
    _number("heads"),
    _choice("aggr", TAB_AGGREGATORS),
    Param("edge_weights", "bool", DEFAULTS["edge_weights"]),
    _number("train_per_class"),
    _number("lr", "float", step=0.005, decimals=4),
    _number("epochs", step=50),
)
SHOW_PARAMS = (
    _choice("colour", COLOURS),
    _choice("size", SIZES),
    _choice("edges", EDGE_VIEWS),
    _number("node"),
    _number("layer"),
    _choice("head", HEADS),
    _choice("aggregation", AGGREGATIONS),
    _number("sample"),
    _number("sample_seed"),
)
TASK_PARAMS = (
    _choice("pooling", POOLINGS),
    _number("batch_graphs"),
    _number("links"),
)

#: the depth study: the run's layers and GCN's normalisation
DEPTH_PARAMS = (
    _number("depth"),
    Param("gcn_norm", "bool", DEFAULTS["gcn_norm"]),
    _choice("depth_show", DEPTH_SHOWS),
)


def _community_params() -> tuple[Param, ...]:
    from models.community.options import METHODS

    return (_choice("community_method", METHODS), _number("community_seed"),
            _number("communities"), _number("community_epochs", step=50))


def _explain_params() -> tuple[Param, ...]:
    from models.explain.options import METHODS

    return (_choice("explain_method", tuple(METHODS)), _number("explain_epochs", step=50))


COMMUNITY_PARAMS = _community_params()
EXPLAIN_PARAMS = _explain_params()
#: the parameters that make a different node classifier
MODEL_KEY = ("model", "hidden", "heads", "aggr", "edge_weights", "train_per_class", "seed")
#: epochs of one run of the graph classifier and of the link predictor
GRAPH_EPOCHS = 100
LINK_EPOCHS = 200
#: the link predictor is set up (untrained) on its own up to this many nodes
AUTO_LINK_NODES = 3000
