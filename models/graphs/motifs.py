"""Synthetic graph classification: Barabási–Albert graphs with a house or a 5-cycle."""

from __future__ import annotations

import numpy as np
import torch
from torch_geometric.data import Data

_MAX_DEGREE = 8


def _ba_edges(n: int, m: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Barabási–Albert: start from a star on m+1 nodes; each new node links to m distinct
    existing nodes chosen with probability ∝ degree."""
    edges = [(0, i) for i in range(1, m + 1)]
    targets = [0] * m + list(range(1, m + 1))          # node repeated once per degree
    for v in range(m + 1, n):
        chosen: set[int] = set()
        while len(chosen) < m:
            chosen.add(int(targets[rng.integers(len(targets))]))
        for u in chosen:
            edges.append((u, v))
            targets += [u, v]
    return edges


def motif_graphs(num_graphs: int = 200, seed: int = 0) -> list[Data]:
    """Synthetic graph classification (as in the GNNExplainer BA-shapes family): a
    Barabási–Albert base graph (15–25 nodes, m = 1 or 2) with a 5-node motif attached by one
    edge to a random base node: a *house* (square + roof, label 0) or a *5-cycle* (label 1).
    Classes alternate, so they are balanced.

    Features ``x``: one-hot of the node degree (0 … 8, larger degrees in the last slot),
    float32[n, 9]. With constant features a GCN with mean pooling barely separates the two
    motifs (its normalised sums see little structure); degree features let it see the
    house's degree-3 corners and its triangle within 2–3 hops.
    """
    rng = np.random.default_rng(seed)
    house = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)]
    cycle = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    out = []
    for g in range(num_graphs):
        label = g % 2
        nb = int(rng.integers(15, 26))
        edges = _ba_edges(nb, int(rng.integers(1, 3)), rng)
        motif = house if label == 0 else cycle
        edges += [(nb + a, nb + b) for a, b in motif]
        edges.append((int(rng.integers(nb)), nb + int(rng.integers(5))))
        n = nb + 5
        e = np.asarray(edges, np.int64).T
        ei = torch.as_tensor(np.concatenate([e, e[::-1]], 1))
        deg = np.bincount(ei[0].numpy(), minlength=n)
        x = np.zeros((n, _MAX_DEGREE + 1), np.float32)
        x[np.arange(n), np.minimum(deg, _MAX_DEGREE)] = 1.0
        out.append(Data(x=torch.as_tensor(x), edge_index=ei,
                        y=torch.tensor([label], dtype=torch.long)))
    return out
