"""The distances of the GraphRNN paper (You et al. 2018, §4.2) between two sets of graphs:
the squared maximum mean discrepancy (MMD²) of their degree histograms and of their
clustering-coefficient histograms.

Each graph becomes a histogram, computed with networkx as GraphRNN's ``eval/stats.py``
does: ``nx.degree_histogram(g)`` (count of nodes of degree 0, 1, 2, …) and
``np.histogram(list(nx.clustering(g).values()), bins=100, range=(0, 1))``. Histograms are
normalised to sum 1. Between two graphs the kernel is

* ``"emd"`` (default, GraphRNN's ``gaussian_emd``): k(x, y) = exp(−W(x, y)² / 2σ²), W the
  earth mover's distance between the histograms with ground distance |i − j| / s between
  bins i and j. In one dimension W is the L1 distance between the cumulative sums, divided
  by s (what ``pyemd`` computes on GraphRNN's Toeplitz distance matrix). Degree: σ = 1,
  s = 1; clustering: σ = 0.1, s = 100 (the bin count, so distances are in units of the
  coefficient). This kernel is not guaranteed positive definite (O'Bray et al. 2022), so
  an MMD² may come out slightly negative; it is reported as it is.
* ``"tv"`` (GRAN's ``gaussian_tv``, Liao et al. 2019): exp(−TV(x, y)² / 2σ²) with TV half
  the L1 distance between the histograms, same σ; positive definite.

MMD² is GraphRNN's biased estimate: mean k over pairs within the first set, plus within the
second, minus twice across (pairs of a graph with itself included), so two identical sets
are at exactly 0. Numpy and networkx only, no torch.

The third statistic, graphlet orbit counts, is in ``models.generation.orbits`` (its
kernel is a Gaussian on raw count vectors, not on histograms); ``mmd_table`` gives all
three, the orbit column NaN where the graphs are too dense to count
(``orbits_countable``).
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError
from models.generation.options import CLUSTERING_BINS, KERNELS
from models.generation.orbits import (
    MAX_FOUR_NODE_SETS,
    four_node_sets_bound,
    graph_orbit_vector,
    vector_mmd,
)

__all__ = ["degree_histogram", "clustering_histogram", "kernel_matrix", "mmd",
           "degree_mmd", "clustering_mmd", "mmd_table", "orbits_countable", "STATISTICS"]

#: the statistics of ``mmd_table``, in its column order
STATISTICS = ("degree", "clustering", "orbit")


def degree_histogram(g: nx.Graph) -> np.ndarray:
    """float64[max degree + 1]: how many nodes have each degree (``nx.degree_histogram``)."""
    return np.asarray(nx.degree_histogram(g), np.float64)


def clustering_histogram(g: nx.Graph, bins: int = CLUSTERING_BINS) -> np.ndarray:
    """float64[bins]: the nodes' clustering coefficients binned over [0, 1]."""
    values = list(nx.clustering(g).values())
    hist, _ = np.histogram(values, bins=bins, range=(0.0, 1.0))
    return hist.astype(np.float64)


def _stack(hists: Sequence[np.ndarray], width: int) -> np.ndarray:
    """Rows normalised to sum 1, zero-padded to ``width``."""
    out = np.zeros((len(hists), width))
    for i, h in enumerate(hists):
        total = float(np.sum(h))
        if total <= 0:
            raise InvalidParameterError("A graph with no nodes has no histogram to compare.")
        out[i, :len(h)] = np.asarray(h, np.float64) / total
    return out


def kernel_matrix(a: Sequence[np.ndarray], b: Sequence[np.ndarray], kernel: str = "emd",
                  sigma: float = 1.0, distance_scaling: float = 1.0) -> np.ndarray:
    """float64[len(a), len(b)]: the kernel between every histogram of ``a`` and of ``b``
    (normalised and padded to a common length first)."""
    if kernel not in KERNELS:
        raise InvalidParameterError(f"Unknown kernel {kernel!r}; choose one of {KERNELS}.")
    width = max(len(h) for h in (*a, *b))
    x, y = _stack(a, width), _stack(b, width)
    if kernel == "emd":
        cx, cy = np.cumsum(x, axis=1), np.cumsum(y, axis=1)
        dist = np.abs(cx[:, None, :] - cy[None, :, :]).sum(-1) / distance_scaling
    else:
        dist = np.abs(x[:, None, :] - y[None, :, :]).sum(-1) / 2.0
    return np.exp(-dist * dist / (2.0 * sigma * sigma))


def mmd(a: Sequence[np.ndarray], b: Sequence[np.ndarray], kernel: str = "emd",
        sigma: float = 1.0, distance_scaling: float = 1.0) -> float:
    """GraphRNN's MMD² between two sets of histograms (see the module docstring)."""
    if not len(a) or not len(b):
        raise InvalidParameterError("MMD needs at least one graph on each side.")
    args = dict(kernel=kernel, sigma=sigma, distance_scaling=distance_scaling)
    return float(kernel_matrix(a, a, **args).mean() + kernel_matrix(b, b, **args).mean()
                 - 2.0 * kernel_matrix(a, b, **args).mean())


def degree_mmd(reference: Sequence[nx.Graph], generated: Sequence[nx.Graph],
               kernel: str = "emd") -> float:
    return mmd([degree_histogram(g) for g in reference],
               [degree_histogram(g) for g in generated], kernel=kernel, sigma=1.0)


def clustering_mmd(reference: Sequence[nx.Graph], generated: Sequence[nx.Graph],
                   kernel: str = "emd", bins: int = CLUSTERING_BINS) -> float:
    scaling = float(bins) if kernel == "emd" else 1.0
    return mmd([clustering_histogram(g, bins) for g in reference],
               [clustering_histogram(g, bins) for g in generated], kernel=kernel,
               sigma=0.1, distance_scaling=scaling)


def orbits_countable(*sets: Sequence[nx.Graph],
                     limit: int = MAX_FOUR_NODE_SETS) -> bool:
    """Whether counting the orbits of every graph of ``sets`` stays within ``limit``
    connected 4-node sets (by ``four_node_sets_bound``): the user's own dense graphs of
    200 nodes could take hours."""
    total = 0
    for graphs in sets:
        for g in graphs:
            total += four_node_sets_bound(g)
            if total > limit:
                return False
    return True


def mmd_table(reference: Sequence[nx.Graph], generated: dict[str, Sequence[nx.Graph]],
              kernel: str = "emd") -> np.ndarray:
    """float64[len(generated), 3]: degree, clustering and orbit MMD² of each generated set
    against ``reference``, rows in the order of ``generated``; the orbit column is NaN
    when ``orbits_countable`` says no (the kernel option applies to the histograms)."""
    ref_deg = [degree_histogram(g) for g in reference]
    ref_clu = [clustering_histogram(g) for g in reference]
    scaling = float(CLUSTERING_BINS) if kernel == "emd" else 1.0
    orbits = orbits_countable(reference, *generated.values())
    ref_orb = [graph_orbit_vector(g) for g in reference] if orbits else []
    rows = []
    for graphs in generated.values():
        rows.append((
            mmd(ref_deg, [degree_histogram(g) for g in graphs], kernel=kernel, sigma=1.0),
            mmd(ref_clu, [clustering_histogram(g) for g in graphs], kernel=kernel,
                sigma=0.1, distance_scaling=scaling),
            vector_mmd(ref_orb, [graph_orbit_vector(g) for g in graphs]) if orbits
            else float("nan")))
    return np.asarray(rows, np.float64).reshape(len(rows), len(STATISTICS))
