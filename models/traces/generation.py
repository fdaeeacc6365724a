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

__all__ = ["GraphSet", "GenerationTrace", "GenerationData", "GenerationView"]


@trace
class GraphSet:
    """Small graphs, packed: graph i has ``num_nodes[i]`` nodes numbered 0 … n-1 and the
    edges ``edges[edge_offsets[i]:edge_offsets[i+1]]`` (each once, u < v).

    ``positions``, when the graphs were laid out for drawing (``models.generation.view``),
    holds every node's place, graph after graph (graph i's nodes from
    ``node_offsets()[i]``), each graph inside the unit square; empty otherwise.

    Shapes:
        num_nodes: int64[G]; edges: int64[E, 2]; edge_offsets: int64[G+1]
        positions: float32[sum(num_nodes), 2] or float32[0, 2]
    """

    num_nodes: np.ndarray
    edges: np.ndarray
    edge_offsets: np.ndarray
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))

    def __len__(self) -> int:
        return len(self.num_nodes)

    def node_offsets(self) -> np.ndarray:
        """int64[G+1]: where each graph's nodes start in ``positions``."""
        out = np.zeros(len(self.num_nodes) + 1, np.int64)
        out[1:] = np.cumsum(self.num_nodes)
        return out

    def subset(self, index) -> GraphSet:
        """The graphs ``index`` (int[k]) in that order, positions along when there are."""
        index = np.asarray(index, np.int64).reshape(-1)
        out = GraphSet.pack([self.graph(int(i)) for i in index])
        if len(self.positions):
            nodes = self.node_offsets()
            pos = [self.positions[nodes[i]:nodes[i + 1]] for i in index]
            out = GraphSet(out.num_nodes, out.edges, out.edge_offsets,
                           np.concatenate(pos) if pos else np.zeros((0, 2), np.float32))
        return out

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


@trace
class GenerationData:
    """A family of small graphs split for the generation view: ``graphs`` (all of them,
    made in code from ``dataset``, ``count`` and ``seed``, or read from the folder
    ``name``), the training share ``train_index`` and the held-out share ``test_index``
    (a seeded split), and what the learned model's loss is measured against: ``density``,
    the training graphs' share of node pairs that are edges (Erdős–Rényi's p), and
    ``entropy`` = H(p) in nats, the binary cross-entropy per adjacency entry of a model
    that knows only that density.

    Shapes:
        train_index: int64[T]; test_index: int64[H]
    """

    dataset: str
    name: str
    seed: int
    count: int
    graphs: GraphSet
    train_index: np.ndarray
    test_index: np.ndarray
    density: float
    entropy: float
    #: a digest of the graphs themselves (two folders of one name differ here)
    fingerprint: str = ""

    @property
    def key(self) -> tuple:
        """What the family is made from (a training session belongs to one)."""
        return (self.dataset, self.name, self.seed, self.count, self.fingerprint)


@trace
class GenerationView:
    """What the generation view shows of a family before any learned model is sampled:
    the family (``data``) and the classical baselines fitted, sampled and scored
    (``baselines``, whose ``training`` row holds the first training graphs laid out)."""

    data: GenerationData
    baselines: GenerationTrace

    @property
    def key(self) -> tuple:
        return (*self.data.key, self.baselines.methods)
