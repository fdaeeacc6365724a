"""What every generator shares: checking the training graphs, and the node-count prior.

Numpy and networkx only, no torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError
from models.generation.datasets import relabel
from models.generation.options import MAX_GRAPH_NODES

__all__ = ["NodeCountPrior", "check_graphs", "edge_array", "check_count"]


def check_graphs(graphs: Sequence[nx.Graph], max_nodes: int = MAX_GRAPH_NODES
                 ) -> list[nx.Graph]:
    """The training graphs as plain undirected graphs on ``0 … n-1`` without self-loops;
    ``InvalidParameterError`` for an empty list, a graph of fewer than 2 nodes or more than
    ``max_nodes``."""
    graphs = list(graphs)
    if not graphs:
        raise InvalidParameterError("A generator needs at least one training graph.")
    out = []
    for i, g in enumerate(graphs):
        if not isinstance(g, nx.Graph):
            raise InvalidParameterError(
                f"Training graph {i} is a {type(g).__name__}, not a networkx graph.")
        n = g.number_of_nodes()
        if n < 2:
            raise InvalidParameterError(
                f"Training graph {i} has {n} node{'s' if n != 1 else ''}; a generator "
                "learns from graphs of 2 nodes or more.")
        if n > max_nodes:
            raise InvalidParameterError(
                f"Training graph {i} has {n} nodes; the generators learn from graphs of "
                f"up to {max_nodes} nodes.")
        out.append(relabel(nx.Graph(g) if g.is_directed() or g.is_multigraph() else g))
    return out


def check_count(n, name: str = "n") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InvalidParameterError(f"{name} must be a whole number ≥ 0, got {n!r}.")
    return int(n)


def edge_array(g: nx.Graph) -> np.ndarray:
    """int64[E, 2]: the edges of a graph on ``0 … n-1``, each once with u < v, sorted."""
    edges = np.asarray([(min(u, v), max(u, v)) for u, v in g.edges()], np.int64)
    edges = edges.reshape(-1, 2)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))] if len(edges) else edges


class NodeCountPrior:
    """The empirical distribution of the training graphs' node counts: a sample draws the
    node count of a uniformly chosen training graph."""

    def __init__(self, graphs: Sequence[nx.Graph]):
        self.counts = np.asarray([g.number_of_nodes() for g in graphs], np.int64)

    @property
    def max(self) -> int:
        return int(self.counts.max())

    def sample(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """int64[k] node counts."""
        return self.counts[rng.integers(0, len(self.counts), size=k)]

    def __repr__(self) -> str:
        return (f"NodeCountPrior({len(self.counts)} graphs, "
                f"{int(self.counts.min())}–{self.max} nodes)")
