"""The classical methods: Louvain and label propagation (networkx's own), and spectral
clustering on the normalised Laplacian (Ng, Jordan and Weiss).

Each takes the undirected weighted edge list of ``partition.undirected_edges`` and returns
int64[n] labels (any numbering; ``detect`` renumbers them by size).

scipy is imported where it is used: its sparse matrices and ARPACK for graphs over
``DENSE_UP_TO`` nodes, its k-means for spectral clustering. The graph tab's first visit
draws the Laplacian spectrum of a small graph, which numpy alone computes; the three
scipy modules add 18 MB to the window (measured with every tab open).
"""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np

from models.community.options import MAX_K
from models.errors import InvalidParameterError

__all__ = ["nx_graph", "louvain", "label_propagation", "spectral", "spectral_embedding",
           "eigengap_k", "DENSE_UP_TO"]

#: up to this many nodes the eigenvectors come from a dense solver (exact, all of them)
DENSE_UP_TO = 800


def nx_graph(n: int, edges: np.ndarray, weight: np.ndarray) -> nx.Graph:
    """A networkx graph on nodes 0..n-1 with a ``weight`` per edge."""
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from(zip(edges[:, 0].tolist(), edges[:, 1].tolist(),
                                      weight.tolist(), strict=True))
    return graph


def _labels(n: int, communities) -> np.ndarray:
    labels = np.full(n, -1, np.int64)
    for c, members in enumerate(communities):
        labels[list(members)] = c
    return labels


def louvain(n: int, edges: np.ndarray, weight: np.ndarray, seed: int = 0,
            resolution: float = 1.0) -> np.ndarray:
    """networkx's ``louvain_communities`` (Blondel et al. 2008): nodes move to the
    neighbouring community that raises modularity most, communities merge into nodes,
    repeat; the visiting order is random, drawn from ``seed``."""
    graph = nx_graph(n, edges, weight)
    return _labels(n, nx.community.louvain_communities(graph, weight="weight",
                                                       resolution=resolution, seed=seed))


def label_propagation(n: int, edges: np.ndarray, weight: np.ndarray,
                      seed: int = 0) -> np.ndarray:
    """networkx's ``asyn_lpa_communities`` (Raghavan et al. 2007): every node starts in its
    own community and, in a random order drawn from ``seed``, takes the label most of its
    neighbours (by weight) carry, until no node would change."""
    graph = nx_graph(n, edges, weight)
    return _labels(n, nx.community.asyn_lpa_communities(graph, weight="weight", seed=seed))


def _inverse_sqrt_degree(deg: np.ndarray) -> np.ndarray:
    """1/√deg, 0 for an isolated node."""
    return np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)


def _normalised_adjacency(n: int, edges: np.ndarray, weight: np.ndarray):
    """D^-1/2 A D^-1/2 (isolated nodes: a zero row), symmetric, as a scipy CSR matrix."""
    import scipy.sparse as sp

    a = sp.coo_matrix((weight, (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    a = a + a.T - sp.diags(a.diagonal())
    d = sp.diags(_inverse_sqrt_degree(np.asarray(a.sum(axis=1)).reshape(-1)))
    return (d @ a @ d).tocsr()


def _dense_normalised_adjacency(n: int, edges: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``_normalised_adjacency`` as a dense array, with numpy alone (a repeated edge's
    weights add up, as in the sparse matrix)."""
    a = np.zeros((n, n), np.float64)
    np.add.at(a, (edges[:, 0], edges[:, 1]), weight)
    a = a + a.T - np.diag(np.diag(a))
    inv = _inverse_sqrt_degree(a.sum(axis=1))
    return inv[:, None] * a * inv[None, :]


def spectral_embedding(n: int, edges: np.ndarray, weight: np.ndarray,
                       count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` smallest eigenvalues of the normalised Laplacian
    L = I − D^-1/2 A D^-1/2 (ascending) and their eigenvectors, float64[n, count]."""
    count = max(1, min(count, n))
    if n <= DENSE_UP_TO or count >= n - 1:
        values, vectors = np.linalg.eigh(_dense_normalised_adjacency(n, edges, weight))
        order = np.argsort(-values)[:count]
    else:
        from scipy.sparse.linalg import ArpackNoConvergence, eigsh

        norm = _normalised_adjacency(n, edges, weight)
        v0 = np.random.default_rng(0).standard_normal(n)     # ARPACK's start, fixed
        try:
            values, vectors = eigsh(norm, k=count, which="LA", v0=v0, tol=1e-8)
        except ArpackNoConvergence as exc:                   # rare: the converged ones
            values, vectors = exc.eigenvalues, exc.eigenvectors
        order = np.argsort(-values)
    return 1.0 - values[order], vectors[:, order]


def eigengap_k(eigenvalues: np.ndarray, k_max: int = MAX_K) -> int:
    """k at the largest gap λ_{k+1} − λ_k of the normalised Laplacian's smallest
    eigenvalues (ascending), for k from 2 to ``k_max``: the eigengap heuristic (von
    Luxburg 2007, §8.3)."""
    lam = np.asarray(eigenvalues, np.float64)
    top = min(k_max, len(lam) - 1)
    if top < 2:
        return max(1, min(2, len(lam)))
    gaps = lam[2:top + 1] - lam[1:top]           # gap after the k-th, k = 2..top
    return int(np.argmax(gaps)) + 2


def spectral(n: int, edges: np.ndarray, weight: np.ndarray, seed: int = 0, k: int = 0,
             restarts: int = 10) -> tuple[np.ndarray, int, str]:
    """Spectral clustering (Ng, Jordan and Weiss 2001): the eigenvectors of the ``k``
    smallest eigenvalues of the normalised Laplacian, rows scaled to unit length,
    grouped by k-means (k-means++ starts, ``restarts`` of them drawn from ``seed``, the
    lowest inertia kept). ``k`` = 0 chooses k by the eigengap of the first
    ``MAX_K`` + 1 eigenvalues. Returns (labels, k, "option" or "eigengap")."""
    if k < 0 or k > min(MAX_K, n):
        raise InvalidParameterError(f"Spectral clustering: k must lie in 0..{min(MAX_K, n)} "
                                    f"(0: chosen by the eigengap); got {k}.")
    rule = "option"
    if k == 0:
        values, vectors = spectral_embedding(n, edges, weight, min(n, MAX_K + 1))
        k, rule = eigengap_k(values), "eigengap"
        vectors = vectors[:, :k]
    else:
        _, vectors = spectral_embedding(n, edges, weight, k)
    if k <= 1:
        return np.zeros(n, np.int64), 1, rule
    from scipy.cluster.vq import kmeans2

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    points = vectors / np.where(norms > 0, norms, 1.0)
    rng = np.random.default_rng(seed)
    best, best_inertia = None, np.inf
    for _ in range(restarts):
        with warnings.catch_warnings():      # an empty cluster: that start loses
            warnings.simplefilter("ignore", UserWarning)
            centres, labels = kmeans2(points, k, minit="++", seed=rng)
        inertia = float(np.sum((points - centres[labels]) ** 2))
        if inertia < best_inertia:
            best, best_inertia = labels, inertia
    return np.asarray(best, np.int64), k, rule
