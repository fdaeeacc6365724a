"""Traces of community detection (``models.community``): the partition one run found.

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch.
"""

from __future__ import annotations

import math

import numpy as np

from models.traces.base import trace

__all__ = ["CommunityResult", "LaplacianSpectrum"]


@trace
class CommunityResult:
    """One community detection run on one graph: the partition, its quality, and for
    DMoN its soft assignments and training curve.

    ``method`` is one of ``models.community.options.METHODS``; ``k`` the number of
    communities found (labels are ``0..k-1``, community 0 the largest). ``modularity``
    is Newman's Q of ``labels`` on the graph (weighted when the graph is, resolution 1);
    ``nmi`` the normalised mutual information (arithmetic mean of the entropies) against
    the node attribute ``nmi_attribute`` ("" and NaN when none was chosen), over the
    nodes that have a value. ``k_rule`` says how k was chosen where the method needs one
    ("option", "eigengap"; "" for Louvain and label propagation, which find k).
    ``seconds`` is the wall time of the run.

    Shapes:
        labels: int64[n], the community of every node, 0..k-1 ordered by size.
        soft: float32[n, k], DMoN's soft assignment (rows sum to 1; columns in the order
            of ``labels``); float32[n, 0] for the other methods.
        loss: float32[epochs], DMoN's training loss per epoch (spectral + collapse
            regularisation); empty for the other methods.
        loss_modularity: float32[epochs], modularity of DMoN's hard assignment
            (argmax) after each epoch; empty for the other methods.
    """

    method: str
    seed: int
    labels: np.ndarray
    k: int
    modularity: float
    nmi: float = math.nan
    nmi_attribute: str = ""
    k_rule: str = ""
    seconds: float = 0.0
    soft: np.ndarray = None  # type: ignore[assignment]
    loss: np.ndarray = None  # type: ignore[assignment]
    loss_modularity: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        n = len(self.labels)
        for name, empty in (("soft", np.zeros((n, 0), np.float32)),
                            ("loss", np.zeros(0, np.float32)),
                            ("loss_modularity", np.zeros(0, np.float32))):
            if getattr(self, name) is None:
                value = np.ascontiguousarray(empty)
                value.setflags(write=False)
                object.__setattr__(self, name, value)

    @property
    def num_nodes(self) -> int:
        return int(len(self.labels))

    @property
    def confidence(self) -> np.ndarray | None:
        """float32[n]: each node's largest soft assignment (DMoN), else None."""
        if self.soft.shape[1] == 0:
            return None
        return self.soft.max(axis=1)

    def sizes(self) -> np.ndarray:
        """int64[k]: the number of nodes in each community."""
        return np.bincount(self.labels, minlength=self.k).astype(np.int64)


@trace
class LaplacianSpectrum:
    """The smallest eigenvalues of a graph's normalised Laplacian L = I − D^-1/2 A D^-1/2:
    as many zeros as the graph has connected components, then the small ones of its
    loosely joined communities; the largest gap λ_{k+1} − λ_k (k ≥ 2) is the eigengap
    heuristic's number of communities ``eigengap_k``.

    Shapes:
        eigenvalues: float32[m], ascending, m = min(n, 65).
    """

    eigenvalues: np.ndarray
    eigengap_k: int
