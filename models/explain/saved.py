"""An explanation in a session file: its numbers as JSON, its arrays as numpy, checked on
the way back (``SessionFileError`` naming the file) before the graph tab takes it. Numpy
only: an explanation is a trace, not a model."""

from __future__ import annotations

import math

import numpy as np

from models.errors import SessionFileError
from models.explain.options import METHODS
from models.session_numbers import prefixed_arrays
from models.traces.explain import NodeExplanation

__all__ = ["explanation_state", "explanation_from_state"]

_INTS = ("node", "predicted", "label")
_NUMBERS = ("fidelity_plus", "fidelity_minus", "prob_full", "prob_explanation",
            "prob_complement")
_ARRAYS = ("edge_index", "edge_mask", "explanation_edges", "feature_mask", "loss")


def explanation_state(x: NodeExplanation, prefix: str = "explanation"
                      ) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of ``x``; the arrays are named ``<prefix>.<field>``."""
    meta = {"method": x.method, **{k: int(getattr(x, k)) for k in _INTS},
            **{k: float(getattr(x, k)) for k in _NUMBERS}}
    arrays = {f"{prefix}.{name}": np.ascontiguousarray(getattr(x, name)) for name in _ARRAYS}
    return meta, arrays


def explanation_from_state(meta, arrays: dict, num_nodes: int, num_features: int,
                           name: str = "", prefix: str = "explanation",
                           num_edges: int | None = None) -> NodeExplanation:
    """The explanation ``explanation_state`` wrote, checked against a graph of
    ``num_nodes`` nodes with ``num_features`` input features (and ``num_edges`` edge
    columns, the classifier's, when given)."""
    where = f"{name}: " if name else ""

    def bad(what: str) -> SessionFileError:
        return SessionFileError(f"{where}the explanation {what}.")

    if not isinstance(meta, dict) or meta.get("method") not in METHODS:
        raise bad(f"names no method of {', '.join(METHODS)}")
    for key in _INTS:
        if isinstance(meta.get(key), bool) or not isinstance(meta.get(key), int):
            raise bad(f"has no whole number {key}")
    if not 0 <= meta["node"] < num_nodes:
        raise bad(f"is of node {meta['node']}; the graph shown has {num_nodes:,} nodes")
    for key in _NUMBERS:
        v = meta.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or not 0.0 <= v <= 1.0:
            raise bad(f"should have a {key} in [0, 1]")
    got = prefixed_arrays(arrays, prefix, _ARRAYS, bad)
    edge_index = got["edge_index"]
    if edge_index.dtype != np.int64 or edge_index.ndim != 2 or edge_index.shape[0] != 2 or \
            (edge_index.size and (edge_index.min() < 0 or edge_index.max() >= num_nodes)):
        raise bad(f"should have int64 edges [2, E] between the {num_nodes:,} nodes of the "
                  "graph shown")
    edges = edge_index.shape[1]
    if num_edges is not None and edges != num_edges:
        raise bad(f"is over {edges:,} edges; the classifier's graph has {num_edges:,}")
    for key in ("predicted", "label"):
        if not -1 <= meta[key] < 1_000_000:
            raise bad(f"has a {key} class of {meta[key]}")
    mask = got["edge_mask"]
    if mask.dtype != np.float32 or mask.shape != (edges,) or not np.isfinite(mask).all() \
            or (mask < 0).any() or (mask > 1.0001).any():
        raise bad(f"should have a float32 edge mask in [0, 1] for its {edges:,} edges")
    if got["explanation_edges"].dtype != np.bool_ or got["explanation_edges"].shape != (edges,):
        raise bad(f"should mark its top edges as bool[{edges}]")
    features = got["feature_mask"]
    if features.dtype != np.float32 or features.shape not in ((0,), (num_features,)) or \
            not np.isfinite(features).all():
        raise bad(f"should have a finite float32 feature mask of the {num_features} "
                  "features or none")
    if got["loss"].dtype != np.float32 or got["loss"].ndim != 1:
        raise bad("should have a float32 loss curve")
    return NodeExplanation(method=meta["method"], **{k: meta[k] for k in _INTS},
                           **{k: float(meta[k]) for k in _NUMBERS}, **got)
