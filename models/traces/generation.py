"""Traces of graph generation: sets of small graphs packed into arrays, and one comparison
of generators (their samples, the MMD table, the learned model's loss curve).

Frozen dataclasses of C-contiguous numpy arrays, made so by ``models.traces.base.trace``.
Numpy only, no torch, no networkx.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

import numpy as np

from models.traces.base import trace

__all__ = ["GraphSet", "GenerationTrace"]


@trace
class GraphSet:
    """Small graphs, packed: graph i has ``num_nodes[i]`` nodes numbered 0 … n-1 and the
    edges ``edges[edge_offsets[i]:edge_offsets[i+1]]`` (each once, u < v).

    Shapes:
        num_nodes: int64[G]; edges: int64[E, 2]; edge_offsets: int64[G+1]
    """

    num_nodes: np.ndarray
    edges: np.ndarray
    edge_offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.num_nodes)

    def graph(self, i: int) -> tuple[int, np.ndarray]:
        """(node count, int64[E_i, 2] edges) of graph ``i``."""
        a, b = int(self.edge_offsets[i]), int(self.edge_offsets[i + 1])
        return int(self.num_nodes[i]), self.edges[a:b]

    @classmethod
    def pack(cls, graphs: Sequence[tuple[int, np.ndarray]]) -> GraphSet:
        """From (node count, int[E, 2] edges) pairs."""
        counts = np.asarray([n for n, _ in graphs], np.int64)
        parts = [np.asarray(e, np.int64).reshape(-1, 2) for _, e in graphs]
        offsets = np.zeros(len(parts) + 1, np.int64)
        offsets[1:] = np.cumsum([len(p) for p in parts])
        edges = np.concatenate(parts) if parts else np.zeros((0, 2), np.int64)
        return cls(num_nodes=counts, edges=edges, edge_offsets=offsets)


@trace
class GenerationTrace:
    """Generators fitted to the training graphs of ``dataset`` and scored on held-out
    graphs of the same family (``held_out`` of them), as in the GraphRNN paper.

    ``mmd[m]`` is method ``methods[m]``'s MMD² against the held-out graphs for each of
    ``statistics`` (degree and clustering-coefficient histograms, ``kernel`` "emd" =
    GraphRNN's Gaussian-EMD, "tv" = GRAN's Gaussian-TV); ``reference_mmd`` the same for the
    training graphs themselves, the level a perfect generator would reach with this many
    graphs. ``seconds[m]``: wall time to fit (train) and sample. ``losses``: the learned
    model's training loss at every step (empty without one); ``best_step`` the step whose
    weights sampled (see ``models.generation.graphrnn``).

    Shapes:
        mmd: float32[M, S]; reference_mmd: float32[S]; seconds: float32[M]
        losses: float32[steps]
        training: the first few training graphs; samples: one GraphSet per method
    """

    dataset: str
    methods: tuple[str, ...]
    statistics: tuple[str, ...]
    training: GraphSet
    samples: tuple[GraphSet, ...]
    mmd: np.ndarray
    reference_mmd: np.ndarray
    seconds: np.ndarray
    held_out: int
    train_count: int
    kernel: str = "emd"
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    best_step: int = 0
    seed: int = 0

    def row(self, method: str) -> np.ndarray:
        """float32[S]: the MMD² of ``method``."""
        return self.mmd[self.methods.index(method)]
