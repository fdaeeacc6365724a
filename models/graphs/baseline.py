"""The nearest-training-node baseline, and GCN / GraphSAGE / GAT compared with it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch_geometric.data import Data

from models.errors import InvalidParameterError
from models.graphs.inspection import _bfs, _csr
from models.graphs.layers import MODEL_KINDS
from models.graphs.sessions import NodeClassificationSession, split_nodes


def nearest_train_baseline(data: Data, train_mask) -> np.ndarray:
    """Label every node like its nearest training node (shortest path in hops, edges taken
    as undirected). Ties: the smallest hop count, then the majority label among the training
    nodes at that distance, then the lowest label. Unreachable nodes get the majority
    training label. Returns int64[n] predictions."""
    n = int(data.num_nodes)
    mask = np.asarray(train_mask.cpu() if torch.is_tensor(train_mask) else train_mask, bool)
    y = np.asarray(data.y.cpu(), np.int64)
    train = np.flatnonzero(mask)
    if len(train) == 0:
        raise InvalidParameterError("The baseline needs at least one training node.")
    ei = data.edge_index.cpu()
    und = torch.cat([ei, ei.flip(0)], 1)
    indptr, nbrs = _csr(und, n, by=0)
    k = int(y[train].max()) + 1
    majority = int(np.argmax(np.bincount(y[train], minlength=k)))
    dist = np.stack([_bfs(indptr, nbrs, [t]) for t in train])      # [t, n]
    dist = np.where(dist < 0, np.iinfo(np.int64).max, dist)
    best = dist.min(0)
    pred = np.full(n, majority, np.int64)
    for v in np.flatnonzero(best < np.iinfo(np.int64).max):
        votes = np.bincount(y[train][dist[:, v] == best[v]], minlength=k)
        pred[v] = int(np.argmax(votes))          # argmax takes the lowest label on ties
    return pred


def compare_models(data: Data, kinds: Sequence[str] = MODEL_KINDS, epochs: int = 200,
                   seeds: Sequence[int] = range(5), device: str | torch.device = "cpu",
                   **session_kw) -> dict[str, np.ndarray]:
    """Test accuracy (float64[len(seeds)]) per model kind and for "baseline"
    (``nearest_train_baseline``) after ``epochs`` epochs, one seed = one split and init."""
    out: dict[str, list[float]] = {k: [] for k in (*kinds, "baseline")}
    for seed in seeds:
        sess = None
        for kind in kinds:
            sess = NodeClassificationSession(data, kind, device=device, seed=seed, **session_kw)
            for _ in sess.train(epochs, report_every=epochs):
                pass
            out[kind].append(sess.evaluate().test_acc)
        if sess is None:
            y = data.y
            sess_masks = split_nodes(y, int(y.max()) + 1,
                                     session_kw.get("train_per_class", 1),
                                     session_kw.get("val_fraction", 0.2), seed)
            train_mask, test_mask = sess_masks[0], sess_masks[2]
        else:
            train_mask, test_mask = sess.train_mask.cpu(), sess.test_mask.cpu()
        pred = nearest_train_baseline(data, train_mask)
        tm = test_mask.numpy()
        y = data.y.cpu().numpy()
        out["baseline"].append(float((pred[tm] == y[tm]).mean()) if tm.any() else math.nan)
    return {k: np.asarray(v, np.float64) for k, v in out.items()}
