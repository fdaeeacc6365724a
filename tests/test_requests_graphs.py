"""The graph tab's frozen request: a request that exists is a valid one, its defaults
are the controls', and ``graph_result`` takes it instead of a dict."""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np
import pytest

from models.errors import InvalidParameterError
from models.graphs.options import GRAPH_RANGES, GraphRequest, session_kwargs


def test_graph_request_defaults_are_its_ranges_and_the_forms_defaults():
    from app.tabs.graph.params import (
        COMMUNITY_PARAMS,
        DEPTH_PARAMS,
        EXPLAIN_PARAMS,
        GRAPH_PARAMS,
        MODEL_PARAMS,
        SHOW_PARAMS,
        TASK_PARAMS,
    )

    ask = GraphRequest()
    for key, r in GRAPH_RANGES.items():
        assert getattr(ask, key) == r.default
        assert r.minimum <= r.default <= r.maximum
    params = (*GRAPH_PARAMS, *MODEL_PARAMS, *SHOW_PARAMS, *TASK_PARAMS, *COMMUNITY_PARAMS,
              *EXPLAIN_PARAMS, *DEPTH_PARAMS)
    assert {p.key: p.default for p in params} == asdict(ask)
    for p in params:                  # the forms' limits are the ranges'
        if p.key in GRAPH_RANGES:
            assert (p.minimum, p.maximum) == (GRAPH_RANGES[p.key].minimum,
                                              GRAPH_RANGES[p.key].maximum)


@pytest.mark.parametrize("values, words", [
    ({"hidden": 1}, "hidden must be between 2 and 256"),
    ({"hidden": 2.5}, "hidden must be a whole number"),
    ({"epochs": True}, "epochs must be a whole number"),
    ({"lr": math.nan}, "lr must be a finite number"),
    ({"lr": "x"}, "lr must be a number"),
    ({"node": -2}, "node must be between -1 and"),
    ({"dataset": "cora"}, "dataset must be one of karate"),
    ({"model": "gin"}, "model must be one of gcn, sage, gat"),
    ({"head": "9"}, "head must be one of"),
    ({"edge_weights": "perhaps"}, "edge_weights must be true or false"),
    ({"community_method": "leiden"}, "community_method must be one of"),
    ({"explain_method": "saliency"}, "explain_method must be one of"),
    ({"communities": 65}, "communities must be between 0 and 64"),
])
def test_graph_request_refuses_in_words(values, words):
    with pytest.raises(InvalidParameterError, match=words):
        GraphRequest(**values)


def test_graph_request_from_values_keeps_its_keys_and_normalises():
    ask = GraphRequest.from_values({"hidden": "16", "lr": 1, "edge_weights": "true",
                                    "label": "club", "features": ["x"]})
    assert ask.hidden == 16 and isinstance(ask.lr, float) and ask.edge_weights is True
    assert session_kwargs(ask) == ask.session_kwargs() == session_kwargs(asdict(ask)) == {
        "hidden_dim": 16, "lr": 1.0, "heads": 4, "aggr": "mean", "edge_weights": True}
    with pytest.raises(AttributeError):
        ask.hidden = 3                # frozen


def test_graph_result_takes_the_request():
    from models import graphs as gnn
    from models.graphs.probe import graph_result

    ask = GraphRequest(node=3, edges="gcn", hidden=8)
    doc = gnn.builtin_graph("karate", seed=0)
    session = gnn.NodeClassificationSession(doc.data, ask.model, seed=ask.seed,
                                            train_per_class=ask.train_per_class,
                                            **ask.session_kwargs())
    motif = gnn.motif_graphs(seed=0)
    r = graph_result(doc, ask, session, None, ("karate", 0), motif, None, None, None)
    assert r.pos.shape == (34, 2) and r.message.node == 3 and r.gcn is not None
    assert len(r.batch.ptr) - 1 == ask.batch_graphs
    assert np.isfinite(r.node.embedding).all()
