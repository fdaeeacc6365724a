"""DMoN (Tsitsulin, Palowitch, Perozzi and Müller, "Graph Clustering with Graph Neural
Networks", JMLR 2023): a GCN encodes every node, a linear layer and a softmax give each
node a soft assignment to k communities, and the training maximises the modularity of
that soft partition, with a regulariser against putting every node in one community.

    H = SELU(GCN(X, A))                       the node embeddings (one GCN layer or more)
    S = softmax(H W)                          float[n, k], rows sum to 1
    L = −Tr(Sᵀ B S) / 2m  +  λ (√k / n ‖Σᵢ Sᵢ‖ − 1)
        B = A − d dᵀ / 2m (the modularity matrix): the first term is −Q of the soft
        partition; the second (the "collapse regularisation") is 0 when the communities
        are the same size and √k − 1 when one holds every node.

The pooling and its losses are PyG's ``DMoNPooling`` (dense: it takes the n × n
adjacency, hence ``MAX_DMON_NODES``); the encoder is PyG's ``GCNConv``. The features are
identity by default (X = I, so the GCN layer learns one vector per node smoothed over its
neighbours), as in the issue's reference runs; ``features="data"`` takes the document's
own (its attributes, or one-hot degree).

Why DMoN rather than MinCutPool: both are unsupervised GNN pooling losses PyG ships, but
DMoN's objective *is* modularity (the quantity the tab reports and Louvain maximises), so
its loss curve and the modularity readout tell one story, and it has no orthogonality term
forcing equal-sized clusters: MinCutPool's normalised-cut loss has a trivial minimum that
its orthogonality penalty fights, which makes it prefer balanced partitions and collapse
more often on graphs whose communities differ in size (the DMoN paper's §6 compares the
two, with DMoN ahead on every graph). k is an upper bound: communities DMoN leaves empty
are dropped when the labels are renumbered.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.nn import DMoNPooling, GCNConv

from models.community.options import DEFAULT_EPOCHS, MAX_DMON_NODES, MAX_K
from models.community.partition import modularity_of_edges
from models.devices import device_for
from models.errors import InvalidParameterError
from models.optim import Adam
from models.traces import Progress

__all__ = ["DMoN", "train_dmon", "DMoNOutcome"]


class DMoN(torch.nn.Module):
    """GCN layer(s) with SELU, then PyG's ``DMoNPooling`` over k clusters.

    Args:
        in_channels: input features per node.
        hidden: the GCN layers' width (64 in the paper).
        k: the number of clusters (an upper bound: some may stay empty).
        layers: GCN layers before the pooling (1 in the paper's best runs).
        dropout: on the assignment logits while training.

    Shapes:
        x: float[n, in_channels]; edge_index: int64[2, E']; adj: float[n, n].
        returns s: float[n, k] (soft assignment), and the spectral, orthogonality and
        cluster (collapse) losses as scalars.
    """

    def __init__(self, in_channels: int, hidden: int = 64, k: int = 16, layers: int = 1,
                 dropout: float = 0.0) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleList(
            # cached: one graph for the whole training (transductive), so its normalised
            # adjacency is worked out once, not in each of the 300 epochs (a tenth of the time)
            GCNConv(in_channels if i == 0 else hidden, hidden, cached=True)
            for i in range(layers))
        self.pool = DMoNPooling([hidden], k, dropout=dropout)

    def reset_parameters(self) -> None:
        for conv in self.convs:
            conv.reset_parameters()
        self.pool.reset_parameters()

    def forward(self, x, edge_index, adj, edge_weight=None):
        h = x
        for conv in self.convs:                       # 1. encode: H = SELU(GCN(X, A))
            h = F.selu(conv(h, edge_index, edge_weight))
        s, _, _, spectral, ortho, cluster = self.pool(h, adj)   # 2. S = softmax(H W)
        return s[0], spectral, ortho, cluster

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(layers={len(self.convs)}, "
                f"k={self.pool.mlp.out_channels})")


class DMoNOutcome:
    """What a DMoN run returns at its end (the last ``Progress``'s ``trace``).

    Shapes:
        labels: int64[n] (argmax of ``soft``, not renumbered); soft: float32[n, k];
        loss, loss_modularity: float32[epochs].
    """

    def __init__(self, labels, soft, loss, loss_modularity, k) -> None:
        self.labels, self.soft, self.k = labels, soft, k
        self.loss, self.loss_modularity = loss, loss_modularity


def _inputs(doc, edges: np.ndarray, weight: np.ndarray, features: str, device):
    n = doc.num_nodes
    if features == "identity":
        x = torch.eye(n)
    elif features == "data":
        x = doc.data.x.float()
    else:
        raise InvalidParameterError(f"DMoN features must be 'identity' or 'data'; "
                                    f"got {features!r}.")
    both = np.concatenate([edges, edges[edges[:, 0] != edges[:, 1]][:, ::-1]])
    both_w = np.concatenate([weight, weight[edges[:, 0] != edges[:, 1]]])
    edge_index = torch.as_tensor(both.T.copy(), dtype=torch.long)
    edge_weight = torch.as_tensor(both_w, dtype=torch.float32)
    adj = torch.zeros(n, n)
    adj[edge_index[0], edge_index[1]] = edge_weight
    return (x.to(device), edge_index.to(device), adj.to(device), edge_weight.to(device))


def train_dmon(doc, edges: np.ndarray, weight: np.ndarray, k: int, seed: int = 0,
               epochs: int = DEFAULT_EPOCHS, hidden: int = 64, layers: int = 1,
               lr: float = 0.01, dropout: float = 0.0, collapse: float = 1.0,
               features: str = "identity", device: str = "cpu") -> Iterator[Progress]:
    """Train a DMoN on ``doc`` (its undirected edge list ``edges``/``weight``) for
    ``epochs`` full-batch Adam steps, yielding a ``Progress`` per epoch: ``loss`` (the
    training loss), ``metrics`` {"spectral", "collapse", "modularity"} (modularity of the
    hard assignment, argmax of S), ``history`` (float32 loss of every epoch so far).
    The last one, after the final epoch, carries a ``DMoNOutcome`` as ``trace``. Stopping
    early (no longer iterating) gives no outcome. ``collapse`` is λ, the weight of the
    collapse regulariser."""
    n = doc.num_nodes
    if n > MAX_DMON_NODES:
        raise InvalidParameterError(
            f"DMoN works on the dense {n:,} × {n:,} adjacency matrix; it is limited to "
            f"{MAX_DMON_NODES:,} nodes. Use Louvain, label propagation or spectral "
            "clustering on this graph.")
    if not len(edges):
        raise InvalidParameterError("DMoN needs a graph with edges: its loss is the "
                                    "modularity, which has no value without them.")
    if not 2 <= k <= min(MAX_K, n):
        raise InvalidParameterError(f"DMoN needs 2..{min(MAX_K, n)} communities; got {k}.")
    if not 1 <= epochs <= 100_000:
        raise InvalidParameterError(f"DMoN epochs must lie in 1..100000; got {epochs}.")
    dev = device_for(device)
    torch.manual_seed(seed)
    x, edge_index, adj, edge_weight = _inputs(doc, edges, weight, features, dev)
    model = DMoN(x.shape[1], hidden=hidden, k=k, layers=layers, dropout=dropout).to(dev)
    optimizer = Adam(model.parameters(), lr=lr)
    losses = np.zeros(epochs, np.float32)
    mods = np.zeros(epochs, np.float32)
    start = time.perf_counter()
    soft = None
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        s, spectral, _ortho, cluster = model(x, edge_index, adj, edge_weight)
        loss = spectral + collapse * cluster
        if not torch.isfinite(loss):
            raise InvalidParameterError(
                f"DMoN's loss became {float(loss)} at epoch {epoch + 1}: lower the "
                f"learning rate (now {lr:g}).")
        loss.backward()
        optimizer.step()
        soft = s.detach()
        hard = soft.argmax(dim=1).cpu().numpy()
        losses[epoch] = float(loss.detach())
        mods[epoch] = modularity_of_edges(edges, weight, hard)
        yield Progress(step=epoch + 1, total=epochs, loss=float(losses[epoch]),
                       metrics={"spectral": float(spectral.detach()),
                                "collapse": float(cluster.detach()),
                                "modularity": float(mods[epoch]),
                                "seconds": time.perf_counter() - start},
                       history=losses[:epoch + 1].copy())
    model.eval()
    with torch.no_grad():
        s, *_ = model(x, edge_index, adj, edge_weight)
    soft = s.detach().cpu().numpy().astype(np.float32)
    outcome = DMoNOutcome(soft.argmax(axis=1).astype(np.int64), soft, losses, mods, k)
    yield Progress(step=epochs, total=epochs, loss=float(losses[-1]),
                   metrics={"modularity": float(mods[-1]),
                            "seconds": time.perf_counter() - start},
                   history=losses.copy(), trace=outcome)
