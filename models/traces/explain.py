"""Traces of GNN explanations: why the node classifier decided what it did for one node.

Frozen dataclasses of C-contiguous numpy arrays (``models.traces.base.trace``). Numpy only.
"""

from __future__ import annotations

import numpy as np

from models.traces.base import trace

__all__ = ["NodeExplanation"]


@trace
class NodeExplanation:
    """One node's prediction explained (PyG ``torch_geometric.explain``).

    ``edge_mask`` is the importance of every edge of ``edge_index`` for the prediction
    (GNNExplainer: the learned soft mask in [0, 1]; attention: the GAT layers' α,
    reduced over heads and layers); edges outside the node's receptive field are 0.
    ``feature_mask`` is GNNExplainer's mask over the input features, shared by all
    nodes (empty for the attention method). ``explanation_edges`` marks the hard
    explanation the fidelities are measured on (``models.explain.options.THRESHOLDS``:
    GNNExplainer's edges with mask > 0.5, attention's top 6); PyG's ``fidelity`` on
    it: fid+ = the prediction changes when they are removed, fid− = it changes when
    only they are kept, each 0 or 1 for one node. ``prob_*`` are the
    predicted class's probability on the whole graph, on the explanation alone and on
    its complement.

    Shapes:
        edge_index: int64[2, E]; edge_mask: float32[E]; explanation_edges: bool[E]
        feature_mask: float32[F] (or [0])
    """

    node: int
    method: str                    # "gnnexplainer" or "attention"
    predicted: int
    label: int                     # the node's label (-1: none)
    edge_index: np.ndarray
    edge_mask: np.ndarray
    explanation_edges: np.ndarray
    feature_mask: np.ndarray
    fidelity_plus: float
    fidelity_minus: float
    prob_full: float
    prob_explanation: float
    prob_complement: float
    loss: np.ndarray               # GNNExplainer's loss per epoch (float32[epochs]; [0] else)
