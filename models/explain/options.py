"""Explanation methods and their limits, torch-free (the graph tab's controls use them)."""

from __future__ import annotations

#: method key → the PyG algorithm behind it
METHODS = {"gnnexplainer": "GNNExplainer (Ying et al. 2019)",
           "attention": "AttentionExplainer (GAT's attention coefficients)"}
#: GNNExplainer's optimisation: epochs and learning rate (PyG's defaults are 100 and 0.01)
DEFAULT_EPOCHS = 200
MAX_EPOCHS = 5_000
DEFAULT_LR = 0.01
#: the hard explanation the fidelities are measured on: this many top edges
DEFAULT_TOP_EDGES = 6
