"""Classical generators fitted to the training graphs, the baselines a learned model must
beat. Each draws its node count from the training sizes (``NodeCountPrior``).

* ``er``: Erdős–Rényi G(n, p) with p the training density, pooled: all training edges over
  all training node pairs. Independent edges: clustering ≈ p everywhere.
* ``ba``: Barabási–Albert preferential attachment with m = round(mean degree / 2) (each new
  node brings m edges, so the mean degree tends to 2m), at least 1 and below n.
* ``sbm``: a stochastic block model fitted to each training graph: blocks from Louvain
  (``nx.community.louvain_communities``, seeded), the edge probability within and between
  blocks counted; a sample takes the fit of a uniformly chosen training graph (so its
  sizes follow the training sizes) and draws fresh edges from it.

Numpy and networkx only, no torch.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import networkx as nx
import numpy as np

from models.generation.datasets import relabel
from models.generation.prior import NodeCountPrior, check_count, check_graphs

__all__ = ["ErdosRenyi", "BarabasiAlbert", "BlockModel", "BASELINES"]


class _Baseline:
    """Shared by the baselines: fitted at construction; ``sample(n, seed)``."""

    method = ""
    #: baselines have no training curve (kept so every generator reads the same)
    losses: list[float] = []

    def __init__(self, graphs: Sequence[nx.Graph], seed: int = 0):
        t0 = time.perf_counter()
        self.graphs = check_graphs(graphs)
        self.seed = seed
        self.prior = NodeCountPrior(self.graphs)
        self._fit()
        self.fit_seconds = time.perf_counter() - t0

    def _fit(self) -> None:
        raise NotImplementedError

    def sample(self, n: int, seed: int = 0) -> list[nx.Graph]:
        """``n`` graphs, the same ones for the same seed."""
        n = check_count(n)
        rng = np.random.default_rng(seed)
        return [relabel(self._one(rng)) for _ in range(n)]

    def _one(self, rng: np.random.Generator) -> nx.Graph:
        raise NotImplementedError


class ErdosRenyi(_Baseline):
    method = "er"

    def _fit(self) -> None:
        edges = sum(g.number_of_edges() for g in self.graphs)
        pairs = sum(g.number_of_nodes() * (g.number_of_nodes() - 1) // 2 for g in self.graphs)
        self.p = edges / pairs

    def _one(self, rng):
        n = int(self.prior.sample(1, rng)[0])
        return nx.gnp_random_graph(n, self.p, seed=int(rng.integers(2**31)))

    def __repr__(self) -> str:
        return f"ErdosRenyi(p={self.p:.3f}, {self.prior})"


class BarabasiAlbert(_Baseline):
    method = "ba"

    def _fit(self) -> None:
        mean_degree = float(np.mean([2 * g.number_of_edges() / g.number_of_nodes()
                                     for g in self.graphs]))
        self.m = max(1, round(mean_degree / 2))

    def _one(self, rng):
        n = int(self.prior.sample(1, rng)[0])
        return nx.barabasi_albert_graph(n, min(self.m, n - 1), seed=int(rng.integers(2**31)))

    def __repr__(self) -> str:
        return f"BarabasiAlbert(m={self.m}, {self.prior})"


class BlockModel(_Baseline):
    method = "sbm"

    def _fit(self) -> None:
        self.fits = [_fit_sbm(g, self.seed) for g in self.graphs]

    def _one(self, rng):
        sizes, probs = self.fits[int(rng.integers(len(self.fits)))]
        return nx.stochastic_block_model(sizes, probs, seed=int(rng.integers(2**31)))

    def __repr__(self) -> str:
        blocks = np.mean([len(s) for s, _ in self.fits])
        return f"BlockModel({len(self.fits)} fits, {blocks:.1f} blocks on average)"


def _fit_sbm(g: nx.Graph, seed: int) -> tuple[list[int], list[list[float]]]:
    """Block sizes and the edge probability within and between blocks of one graph."""
    if g.number_of_edges() == 0:
        return [g.number_of_nodes()], [[0.0]]
    blocks = nx.community.louvain_communities(g, seed=seed)
    block_of = {v: b for b, members in enumerate(blocks) for v in members}
    sizes = np.asarray([len(m) for m in blocks], np.float64)
    counts = np.zeros((len(blocks), len(blocks)))
    for u, v in g.edges():
        a, b = block_of[u], block_of[v]
        counts[a, b] += 1
        if a != b:
            counts[b, a] += 1
    pairs = np.outer(sizes, sizes)
    np.fill_diagonal(pairs, sizes * (sizes - 1) / 2)
    probs = np.divide(counts, pairs, out=np.zeros_like(counts), where=pairs > 0)
    return [int(s) for s in sizes], np.clip(probs, 0.0, 1.0).tolist()


BASELINES = {"er": ErdosRenyi, "ba": BarabasiAlbert, "sbm": BlockModel}
