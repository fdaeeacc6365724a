"""Small graph families made in code, seeded, as in the GraphRNN paper (You et al. 2018).

* ``community``: GraphRNN's community-small: two Erdős–Rényi communities of 6–10 nodes
  each (sizes drawn independently), edge probability p = 0.3 inside a community, and
  round(0.05·n) edges (at least one) between them, each a uniformly drawn pair across. As
  in the paper, a community may come out disconnected (p = 0.3 on 6 nodes often does).
* ``grid``: 2D grid graphs of r × c nodes, r and c drawn from 4–6. GraphRNN uses 10–20 ×
  10–20 (100–400 nodes); 16–36 nodes keep training to seconds on a laptop CPU, with the
  same local structure (degrees 2–4, no triangles).
* ``ego``: radius-1 ego networks of 4–18 nodes (GraphRNN's ego-small size), taken
  around random centres of one Holme–Kim power-law cluster graph (300 nodes, m = 2,
  triangle probability 0.5), a stand-in for the paper's Citeseer citation graph: a hub
  with many neighbours, some of them linked to each other.

Every graph is a plain ``nx.Graph`` with nodes ``0 … n-1`` and no self-loops.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError
from models.generation.options import DATASETS

__all__ = ["community_graph", "community_graphs", "grid_graphs", "ego_graphs",
           "make_dataset", "split_graphs", "relabel"]


def relabel(g: nx.Graph) -> nx.Graph:
    """``g`` as a plain undirected ``nx.Graph`` on ``0 … n-1`` (in its node order), no
    self-loops, no attributes."""
    index = {v: i for i, v in enumerate(g.nodes())}
    out = nx.Graph()
    out.add_nodes_from(range(len(index)))
    out.add_edges_from((index[u], index[v]) for u, v in g.edges() if u != v)
    return out


def community_graph(rng: np.random.Generator, sizes: tuple[int, int] | None = None,
                    p: float = 0.3, between: float = 0.05) -> nx.Graph:
    """One graph of the community family (see the module docstring)."""
    if sizes is None:
        sizes = (int(rng.integers(6, 11)), int(rng.integers(6, 11)))
    a, b = sizes
    g = nx.disjoint_union(nx.gnp_random_graph(a, p, seed=int(rng.integers(2**31))),
                          nx.gnp_random_graph(b, p, seed=int(rng.integers(2**31))))
    k = max(1, round(between * (a + b)))
    cross = rng.choice(a * b, size=min(k, a * b), replace=False)
    g.add_edges_from((int(c // b), a + int(c % b)) for c in cross)
    return g


def community_graphs(count: int, seed: int = 0) -> list[nx.Graph]:
    rng = np.random.default_rng(seed)
    return [community_graph(rng) for _ in range(count)]


def grid_graphs(count: int, seed: int = 0, sides: tuple[int, int] = (4, 6)) -> list[nx.Graph]:
    rng = np.random.default_rng(seed)
    lo, hi = sides
    return [relabel(nx.grid_2d_graph(int(rng.integers(lo, hi + 1)),
                                     int(rng.integers(lo, hi + 1))))
            for _ in range(count)]


def ego_graphs(count: int, seed: int = 0, sizes: tuple[int, int] = (4, 18)) -> list[nx.Graph]:
    rng = np.random.default_rng(seed)
    host = nx.powerlaw_cluster_graph(300, 2, 0.5, seed=int(rng.integers(2**31)))
    lo, hi = sizes
    centres = [v for v in host if lo <= host.degree(v) + 1 <= hi]
    picks = rng.choice(len(centres), size=count, replace=count > len(centres))
    out = []
    for i in picks:
        ego = nx.ego_graph(host, centres[int(i)], radius=1)
        order = rng.permutation(ego.number_of_nodes())     # the centre is not always node 0
        nodes = list(ego.nodes())
        out.append(_reordered(ego, [nodes[j] for j in order]))
    return out


def _reordered(g: nx.Graph, order: Sequence) -> nx.Graph:
    h = nx.Graph()
    h.add_nodes_from(order)
    h.add_edges_from(g.edges())
    return relabel(h)


_MAKERS = {"community": community_graphs, "grid": grid_graphs, "ego": ego_graphs}


def make_dataset(name: str, count: int = 100, seed: int = 0) -> list[nx.Graph]:
    """``count`` graphs of the family ``name`` (one of ``DATASETS``), seeded."""
    if name not in _MAKERS:
        raise InvalidParameterError(
            f"Unknown graph family {name!r}; choose one of {', '.join(DATASETS)}.")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise InvalidParameterError(f"count must be a whole number ≥ 1, got {count!r}.")
    return _MAKERS[name](int(count), seed=seed)


def split_graphs(graphs: Sequence[nx.Graph], held_out: float = 0.2, seed: int = 0
                 ) -> tuple[list[nx.Graph], list[nx.Graph]]:
    """(training, held-out) graphs: a seeded shuffle, then the last ``held_out`` share
    (at least one graph each when there are two or more)."""
    graphs = list(graphs)
    if len(graphs) < 2:
        raise InvalidParameterError(
            f"Need at least 2 graphs to keep some for testing, got {len(graphs)}.")
    order = np.random.default_rng(seed).permutation(len(graphs))
    k = min(len(graphs) - 1, max(1, round(held_out * len(graphs))))
    return ([graphs[i] for i in order[:-k]], [graphs[i] for i in order[-k:]])
