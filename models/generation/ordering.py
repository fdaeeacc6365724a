"""Breadth-first node orderings and the adjacency sequences GraphRNN learns from.

GraphRNN (You et al. 2018, §2.3) writes a graph as a sequence: node i's row S_i says which
of the nodes before it (in the ordering) it is linked to. Under a breadth-first ordering
a node links only to nodes a few places back, so the rows are short and regular. Here a
row holds the M nodes before node i, the nearest first: ``S_i[k] = A[π(i), π(i-1-k)]``.
A disconnected graph is walked component after component, largest first, so every node is
in the sequence.

Numpy and networkx only, no torch.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

__all__ = ["bfs_order", "adjacency_rows", "graph_from_rows"]


def bfs_order(g: nx.Graph, rng: np.random.Generator) -> np.ndarray:
    """int64[n]: a breadth-first ordering of ``g`` from a random start, neighbours visited
    in a random order (GraphRNN permutes the nodes, then walks breadth first). The
    components are walked largest first (ties at random), each from a random node, so an
    all-zero row (a node that starts a new component) comes late, and isolated nodes last.
    """
    n = g.number_of_nodes()
    rank = rng.permutation(n)                 # the random permutation; ties by its order
    components = sorted(nx.connected_components(g),
                        key=lambda c: (-len(c), min(rank[v] for v in c)))
    order: list[int] = []
    seen = np.zeros(n, bool)
    for component in components:
        start = min(component, key=lambda v: rank[v])
        seen[start] = True
        queue = [int(start)]
        while queue:
            v = queue.pop(0)
            order.append(v)
            for u in sorted(g.neighbors(v), key=lambda w: rank[w]):
                if not seen[u]:
                    seen[u] = True
                    queue.append(u)
    return np.asarray(order, np.int64)


def adjacency_rows(g: nx.Graph, order: np.ndarray, m: int) -> np.ndarray:
    """float32[n-1, m]: rows S_1 … S_{n-1} under ``order`` (row t is node t+1's links to
    the m nodes before it, nearest first; entries past the first node are 0)."""
    n = len(order)
    position = np.empty(n, np.int64)
    position[order] = np.arange(n)
    rows = np.zeros((max(n - 1, 0), m), np.float32)
    for u, v in g.edges():
        i, j = sorted((int(position[u]), int(position[v])))
        if 0 < j - i <= m:
            rows[j - 1, j - i - 1] = 1.0
    return rows


def graph_from_rows(rows: np.ndarray, n: int) -> nx.Graph:
    """The graph on ``0 … n-1`` written by rows S_1 … S_{n-1} (``adjacency_rows``'s
    inverse, nodes numbered in sequence order)."""
    g = nx.Graph()
    g.add_nodes_from(range(n))
    t, k = np.nonzero(rows[:max(n - 1, 0)])
    for i, back in zip(t.tolist(), k.tolist(), strict=True):
        node = i + 1
        if node - 1 - back >= 0:
            g.add_edge(node, node - 1 - back)
    return g
