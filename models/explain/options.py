"""Explanation methods and their limits, torch-free (the graph tab's controls use them)."""

from __future__ import annotations

from dataclasses import dataclass

#: method key → the PyG algorithm behind it
METHODS = {"gnnexplainer": "GNNExplainer (Ying et al. 2019)",
           "attention": "AttentionExplainer (GAT's attention coefficients)"}
#: GNNExplainer's optimisation: epochs and learning rate (PyG's defaults are 100 and 0.01)
DEFAULT_EPOCHS = 200
MAX_EPOCHS = 5_000
DEFAULT_LR = 0.01
#: the hard explanation the fidelities are measured on, per method, as PyG's
#: ``ThresholdConfig`` (threshold_type, value): for GNNExplainer the edges whose mask
#: exceeds 0.5 (its entropy term pushes the mask towards 0 or 1); attention
#: coefficients sum to 1 over a node's neighbours, so no fixed level means the same at
#: every node: there the top 6 edges of some importance. On karate (the tab's GCN, seed
#: 0, 200 epochs) removing the top 6 edges never changed a prediction (fid+ 0 at all 21
#: correctly predicted test nodes); removing the edges with mask > 0.5 (9 to 59 of them)
#: changed it at 15, each with fid− 0.
THRESHOLDS = {"gnnexplainer": ("hard", 0.5), "attention": ("topk_hard", 6)}


@dataclass(frozen=True)
class ExplanationPick:
    """The node ``explain_best`` chose among ``candidates`` (the tab: the correctly
    predicted test nodes), by the rule: the largest fid+ − fid− (``gaps``), ties by the
    largest drop of the predicted class's probability when the explanation's edges are
    removed (``drops``: whole graph − complement), then the smallest node index.
    ``explanation`` is the chosen node's ``NodeExplanation``."""

    explanation: object
    candidates: tuple[int, ...]
    gaps: tuple[float, ...]
    drops: tuple[float, ...]

    @property
    def node(self) -> int:
        return int(self.explanation.node)

    @property
    def best_count(self) -> int:
        """How many candidates reach the chosen node's fid+ − fid−."""
        gap = self.gaps[self.candidates.index(self.node)]
        return sum(g == gap for g in self.gaps)
