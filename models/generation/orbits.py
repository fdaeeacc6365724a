"""Graphlet orbit counts: the third statistic of the GraphRNN paper (You et al. 2018, §4.2).

A graphlet is a small connected *induced* subgraph; an orbit is a class of its nodes that
an automorphism maps onto each other. For graphlets of 2 to 4 nodes there are 15 node
orbits, numbered as in Pržulj (2007) and ORCA (Hočevar & Demšar 2014), which GraphRNN
runs (``orca node 4``):

==========  ======================  ==============================================
graphlet    edges                   orbits (a node's degree inside the graphlet)
==========  ======================  ==============================================
edge        1                       0 (the degree)
path, 3     2                       1 end · 2 middle
triangle    3                       3
path, 4     3, degrees 1 1 2 2      4 end · 5 inner
star        3, degrees 1 1 1 3      6 leaf · 7 centre
cycle, 4    4, degrees 2 2 2 2      8
paw         4, degrees 1 2 2 3      9 tail · 10 degree 2 · 11 degree 3
diamond     5, degrees 2 2 3 3      12 degree 2 · 13 degree 3
K4          6                       14
==========  ======================  ==============================================

``orbit_counts`` lists every connected node set of 3 and 4 nodes once (Wernicke's ESU
enumeration) and classifies it by its edge count and degrees: no equations to get wrong,
at the price of time proportional to the number of such sets. ``four_node_sets_bound``
bounds that number beforehand (each connected set of 4 has a spanning path or star), so a
caller can refuse graphs too dense to count. The tests check the counts against
``orca-graphlets`` (a port of ORCA) and against a brute force over every node subset with
networkx's isomorphism matcher.

``orbit_mmd`` is GraphRNN's ``orbit_stats_all``: each graph becomes the mean over its nodes
of their 15 counts, and two sets of such vectors are compared by MMD² with the Gaussian
kernel exp(−‖x − y‖² / 2σ²), σ = 30, on the raw vectors (not normalised).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError

__all__ = ["ORBITS", "orbit_counts", "graph_orbit_vector", "four_node_sets_bound",
           "orbit_mmd", "ORBIT_SIGMA", "MAX_FOUR_NODE_SETS"]

#: node orbits of graphlets on 2–4 nodes
ORBITS = 15
#: GraphRNN's kernel width for orbit vectors
ORBIT_SIGMA = 30.0
#: the most connected 4-node sets (bounded by ``four_node_sets_bound``) counted for one
#: comparison: about 10 s of enumeration in Python on this project's 2-core machine
MAX_FOUR_NODE_SETS = 2_000_000

# (edges, sorted degrees) of a connected 3- or 4-node graphlet -> orbit of each degree
_ORBIT_OF = {
    (2, (1, 1, 2)): {1: 1, 2: 2},
    (3, (2, 2, 2)): {2: 3},
    (3, (1, 1, 2, 2)): {1: 4, 2: 5},
    (3, (1, 1, 1, 3)): {1: 6, 3: 7},
    (4, (2, 2, 2, 2)): {2: 8},
    (4, (1, 2, 2, 3)): {1: 9, 2: 10, 3: 11},
    (5, (2, 2, 3, 3)): {2: 12, 3: 13},
    (6, (3, 3, 3, 3)): {3: 14},
}


def _adjacency(g: nx.Graph) -> tuple[list[set[int]], list]:
    """Neighbour sets by position in ``g``'s node order (self-loops dropped), and that
    order."""
    nodes = list(g.nodes())
    index = {v: i for i, v in enumerate(nodes)}
    adj: list[set[int]] = [set() for _ in nodes]
    for u, v in g.edges():
        if u != v:
            adj[index[u]].add(index[v])
            adj[index[v]].add(index[u])
    return adj, nodes


def four_node_sets_bound(g: nx.Graph) -> int:
    """An upper bound on the connected 4-node sets of ``g``: the paths of 3 edges plus the
    stars of 3 edges (each such set has one of them as a spanning tree)."""
    adj, _ = _adjacency(g)
    deg = [len(a) for a in adj]
    paths = sum((deg[u] - 1) * (deg[v] - 1) for u in range(len(adj)) for v in adj[u] if u < v)
    return paths + sum(comb(d, 3) for d in deg)


def orbit_counts(g: nx.Graph) -> np.ndarray:
    """int64[n, 15]: for each node of ``g`` (in ``g.nodes()`` order), in how many induced
    graphlets of 2–4 nodes it takes each orbit (see the module docstring)."""
    adj, nodes = _adjacency(g)
    n = len(nodes)
    out = np.zeros((n, ORBITS), np.int64)
    for v in range(n):
        out[v, 0] = len(adj[v])

    def count(members: tuple[int, ...]) -> None:
        deg = {m: len(adj[m].intersection(members)) for m in members}
        orbit = _ORBIT_OF[(sum(deg.values()) // 2, tuple(sorted(deg.values())))]
        for m in members:
            out[m, orbit[deg[m]]] += 1

    def extend(members: tuple[int, ...], frontier: set[int], root: int,
               reached: set[int]) -> None:
        # ESU: members is connected, every set is reached once (root its smallest node)
        if len(members) >= 3:
            count(members)
        if len(members) == 4:
            return
        frontier = set(frontier)
        while frontier:
            w = frontier.pop()
            new = {u for u in adj[w] if u > root and u not in reached}
            extend(members + (w,), frontier | new, root, reached | new)

    for v in range(n):
        start = {u for u in adj[v] if u > v}
        extend((v,), start, v, start | {v})
    return out


def graph_orbit_vector(g: nx.Graph) -> np.ndarray:
    """float64[15]: the mean of the nodes' orbit counts (GraphRNN's per-graph statistic)."""
    n = g.number_of_nodes()
    if n == 0:
        raise InvalidParameterError("A graph with no nodes has no orbit counts to compare.")
    return orbit_counts(g).sum(0).astype(np.float64) / n


def orbit_mmd(reference: Sequence[nx.Graph], generated: Sequence[nx.Graph],
              sigma: float = ORBIT_SIGMA) -> float:
    """GraphRNN's MMD² between the orbit vectors of two sets of graphs (biased estimate,
    as ``models.generation.metrics.mmd``)."""
    return vector_mmd([graph_orbit_vector(g) for g in reference],
                      [graph_orbit_vector(g) for g in generated], sigma)


def vector_mmd(a: Sequence[np.ndarray], b: Sequence[np.ndarray],
               sigma: float = ORBIT_SIGMA) -> float:
    """MMD² with the Gaussian kernel on raw vectors (GraphRNN's ``gaussian``,
    ``is_hist=False``)."""
    if not len(a) or not len(b):
        raise InvalidParameterError("MMD needs at least one graph on each side.")
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)

    def k(p: np.ndarray, q: np.ndarray) -> float:
        d2 = ((p[:, None, :] - q[None, :, :]) ** 2).sum(-1)
        return float(np.exp(-d2 / (2.0 * sigma * sigma)).mean())

    return k(x, x) + k(y, y) - 2.0 * k(x, y)
