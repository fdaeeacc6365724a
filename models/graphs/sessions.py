"""Training sessions: node classification, graph classification and link prediction.

Each is a ``models.session.TrainingSession`` counted in epochs: the lock held for every
step, ``train()`` a generator yielding ``Progress``, checked steps, rollback points and the
weights of the last one restored on divergence (``TrainingDivergedError``) are the base's;
``_Epochs`` adds what the three share (the epoch names, the data hint in a divergence
message, ``epochs_per_s``). Every trace handed to the GUI is a frozen dataclass of
``models.traces`` holding numpy arrays.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch, Data
from torch_geometric.loader import DataLoader
from torch_geometric.utils import negative_sampling

from models.devices import device_for
from models.errors import InvalidParameterError
from models.graphs.features import _is_identity, _structural_features
from models.graphs.inspection import _AlignedPCA
from models.graphs.layers import GCN, GraphClassifier, _np, build_model
from models.graphs.metrics import _accuracy, roc_auc, roc_curve
from models.graphs.options import LINK_FEATURES
from models.graphs.session_state import SavedBestWeights, SavedEmbedding
from models.session import Run, StepOutcome, TrainingSession, adam, finite, train_mode
from models.traces import GraphClassTrace, LinkTrace, NodeTrainTrace, Progress

__all__ = ["split_nodes", "NodeClassificationSession", "GraphClassificationSession",
           "LinkPredictionSession"]


# -- training sessions: what they share ----------------------------------------------------------
class _Epochs:
    """Mixed into a ``TrainingSession`` whose step is an epoch: ``epoch``/``good_epoch``
    name the base's ``step``/``good_step``, a divergence message carries ``_hint()`` (what
    is wrong with the data, if anything), and every ``Progress`` has ``epochs_per_s`` and
    ``_message()``."""

    unit = "epoch"
    rate_names = ("steps_per_s", "epochs_per_s")
    #: the metrics of the last evaluation (NaN before the first), repeated in every
    #: ``Progress.metrics`` between evaluations
    _last_acc: dict[str, float]

    @property
    def epoch(self) -> int:
        """Epochs trained (the base's ``step``)."""
        return self.step

    @property
    def good_epoch(self) -> int:
        """The epoch of the rollback point (the base's ``good_step``)."""
        return self.good_step

    def _hint(self) -> str:
        return ""

    def _seed_step(self) -> int:
        """Seed the global generator (inside the step's fork of it) from the session's own, so the
        dropout masks and negatives of each epoch follow ``seed``; returns the seed.
        ``torch.manual_seed`` also seeds every CUDA generator and records a stack for
        CUDA's lazy start (0.15 ms, a tenth of the session's cost over a plain loop on
        karate); a CPU session seeds the CPU generator alone, which draws the same
        numbers."""
        seed = int(torch.randint(0, 2 ** 31 - 1, (1,), generator=self.gen))
        if self.device.type == "cpu":
            torch.default_generator.manual_seed(seed)
        else:
            torch.manual_seed(seed)
        return seed

    def _message(self) -> str:
        return ""

    def _set_training(self, mode: bool) -> None:
        """``self.model.train(mode)``: the flag of every module set, from a list of them
        made once, without ``Module.train``'s walk of the tree (a tenth of a karate trace
        went to ``eval()`` and the next step's ``train()``). A model with a module that
        has its own ``train`` takes ``Module.train``."""
        model = self.model
        kept = self.__dict__.get("_mode_modules")
        if kept is None or kept[0] is not model:
            mods = list(model.modules())
            plain = all(type(m).train is nn.Module.train for m in mods)
            kept = self._mode_modules = (model, mods if plain else None)
        if kept[1] is None:
            model.train(mode)
            return
        for m in kept[1]:
            object.__setattr__(m, "training", mode)   # what nn.Module.__setattr__ ends in

    def _divergence_message(self, what: str, step: int) -> str:
        return (f"Training diverged: {what} at {self.unit} {step}. The weights of {self.unit} "
                f"{self.good_step} were restored. {self._hint()}Try a smaller learning rate "
                f"(now {self.lr:g}).")

    def _outcome(self, value: float, trace, **extra: float) -> StepOutcome:
        """The step's outcome: the loss, the last evaluation's metrics (this step's when
        ``trace`` is one) and ``extra``."""
        if trace is not None:
            self._last_acc = {k: getattr(trace, k) for k in self._last_acc}
        return StepOutcome(value, {"loss": value, **self._last_acc, **extra}, trace)



# -- node classification ------------------------------------------------------------------------
def split_nodes(y, num_classes: int, train_per_class: int = 1, val_fraction: float = 0.2,
                seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Seeded split of the labelled nodes (y ≥ 0): ``train_per_class`` random nodes of each
    class train; of the rest, ``val_fraction`` validate and the others test. Unlabelled
    nodes (y = -1) are in no mask. Returns three bool tensors [n]."""
    y = np.asarray(y.cpu() if torch.is_tensor(y) else y, np.int64)
    rng = np.random.default_rng(seed)
    n = len(y)
    train = np.zeros(n, bool)
    for c in range(num_classes):
        idx = np.flatnonzero(y == c)
        if len(idx):
            train[rng.choice(idx, min(train_per_class, len(idx)), replace=False)] = True
    rest = np.flatnonzero((y >= 0) & ~train)
    rest = rest[rng.permutation(len(rest))]
    n_val = int(round(val_fraction * len(rest)))
    val = np.zeros(n, bool)
    val[rest[:n_val]] = True
    test = np.zeros(n, bool)
    test[rest[n_val:]] = True
    return torch.as_tensor(train), torch.as_tensor(val), torch.as_tensor(test)


def _masked_accuracy(correct: np.ndarray, mask: np.ndarray) -> float:
    """``metrics._accuracy`` from ``pred == y`` as numpy: right / nodes in ``mask``."""
    m = int(np.count_nonzero(mask))
    return int(np.count_nonzero(correct[mask])) / m if m else math.nan


def _masks(split, n: int) -> tuple[torch.Tensor, ...]:
    if len(split) != 3:
        raise InvalidParameterError("split must be (train_mask, val_mask, test_mask).")
    out = tuple(torch.as_tensor(np.asarray(m.cpu() if torch.is_tensor(m) else m), dtype=torch.bool)
                for m in split)
    if any(m.shape != (n,) for m in out):
        raise InvalidParameterError(f"Every mask must have one entry per node ({n}).")
    return out


class NodeClassificationSession(_Epochs, SavedEmbedding, TrainingSession):
    """Semi-supervised node classification with a GCN, GraphSAGE or GAT (full batch, Adam,
    cross-entropy on the training nodes only).

    ``model``, ``data`` (on ``device``), ``train_mask``/``val_mask``/``test_mask`` and
    ``num_classes`` are attributes; hold ``lock`` while using ``model`` from another thread
    (``gcn_coefficients``/``gat_attention``/``message_passing`` on ``session.model``).
    ``split`` = (train, val, test) masks, or None for ``split_nodes(..., seed=seed)``.
    ``hidden_dim=None`` takes the model's default (16; GAT 8 per head × ``heads``);
    ``dropout=None`` likewise (0.5; GAT 0.6). ``seed`` fixes the split, the initial weights
    and the dropout masks. ``edge_weights=False`` trains on the graph without its
    ``edge_weight`` (every edge 1, as the course's ``GCNConv(x, edge_index)`` and Kipf &
    Welling's karate club): only GCN reads the weights at all. ``num_layers`` stacks that
    many convolutions; ``normalize=False`` makes a GCN sum over ``A + I`` unnormalised
    (``GCN``'s ``normalize``; the other kinds ignore it).

    Divergence: the weights that gave a finite loss and finite gradients become a rollback
    point every ``snapshot_every`` epochs; on a non-finite loss or gradient the last one is
    restored and ``TrainingDivergedError`` names the epoch and what to change.
    """

    def __init__(self, data: Data, kind: str = "gcn", device: str | torch.device = "cpu",
                 seed: int = 0, hidden_dim: int | None = None, lr: float = 0.01,
                 weight_decay: float = 5e-4, train_per_class: int = 1, heads: int = 4,
                 aggr: str = "mean", split=None, val_fraction: float = 0.2,
                 num_layers: int = 2, dropout: float | None = None,
                 edge_weights: bool = True, normalize: bool = True) -> None:
        self.kind = kind
        self.edge_weights = bool(edge_weights)
        dev = device_for(device)
        y = data.y.long()
        self.num_classes = int(y.max()) + 1 if (y >= 0).any() else 1
        n = int(data.num_nodes)
        if split is None:
            split = split_nodes(y, self.num_classes, train_per_class, val_fraction, seed)
        self.train_mask, self.val_mask, self.test_mask = (m.to(dev) for m in _masks(split, n))
        # copies: the session never writes into the caller's tensors, nor they into its
        self.data = Data(x=data.x.float().clone(), edge_index=data.edge_index.long().clone(),
                         y=y.clone())
        if edge_weights and getattr(data, "edge_weight", None) is not None:
            self.data.edge_weight = data.edge_weight.float().clone()
        self.data = self.data.to(dev)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = build_model(kind, self.data.num_features, self.num_classes,
                                     hidden_dim=hidden_dim, num_layers=num_layers,
                                     dropout=dropout, heads=heads, aggr=aggr,
                                     normalize=normalize).to(dev)
        self.optimizer = adam(self.model.parameters(), lr=lr,
                                          weight_decay=weight_decay)
        self.gen = torch.Generator().manual_seed(seed)
        self._pca = _AlignedPCA()
        self.seed = seed
        self._init_session(dev, lr)
        self._last_acc = dict.fromkeys(("train_acc", "val_acc", "test_acc"), math.nan)

    def _embedding_rows(self) -> int:
        return int(self.data.num_nodes)

    def _move_data(self, dev: torch.device) -> None:
        self.data = self.data.to(dev)
        self.train_mask, self.val_mask, self.test_mask = (
            m.to(dev) for m in (self.train_mask, self.val_mask, self.test_mask))

    def _hint(self) -> str:
        if not bool(torch.isfinite(self.data.x).all()):
            bad = int((~torch.isfinite(self.data.x)).any(1).sum())
            return f"The node features contain NaN or infinity ({bad} nodes): fix the data. "
        return ""

    def _forward(self):
        return self.model(self.data.x, self.data.edge_index,
                          getattr(self.data, "edge_weight", None), return_hidden=True)

    def train(self, epochs: int, report_every: int = 1) -> Iterator[Progress]:
        """Train ``epochs`` more epochs; yield ``Progress`` after each, with a
        ``NodeTrainTrace`` every ``report_every`` epochs and at the last."""
        return super().train(epochs, every=report_every)

    def _before_train(self, steps: int) -> None:
        if not bool(self.train_mask.any()):
            raise InvalidParameterError(
                "This graph has no labelled node to train on: choose a label attribute "
                "(Attributes → Label) or a graph with labels.")

    def _train_step(self, run: Run) -> StepOutcome:
        self._set_training(True)
        # torch.random.fork_rng(devices=[]) without its Python: the global CPU generator's
        # state kept and put back around the step
        rng = torch.default_generator
        state = rng.get_state()
        try:
            self._seed_step()
            # 1. forward on the whole graph, loss on the training nodes only
            logits = self._forward()[0]
            train, y_train = self._train_targets()
            loss = F.cross_entropy(logits.index_select(0, train), y_train)
            # 2. checked step (restores and raises on divergence)
            value = self.checked_step(loss)
        finally:
            rng.set_state(state)
        return self._outcome(value, self._trace(value) if run.report else None)

    def _train_targets(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The training nodes' indices and labels, made once while the mask and the labels
        are the same tensors, unchanged: ``logits[train_mask]`` is
        ``logits.index_select(0, indices)`` (the same rows, and the same gradient: one
        row each, into zeros), without turning the mask into indices twice an epoch."""
        mask, y = self.train_mask, self.data.y
        key = (mask, mask._version, y, y._version)
        kept = self.__dict__.get("_targets")
        if kept is None or any(a is not b if torch.is_tensor(a) else a != b
                               for a, b in zip(kept[0], key, strict=True)):
            index = mask.nonzero().view(-1)
            kept = self._targets = (key, index, y.index_select(0, index))
        return kept[1], kept[2]

    @torch.no_grad()
    def _trace(self, loss: float) -> NodeTrainTrace:
        self._set_training(False)
        logits, hidden = self._forward()
        prob = logits.softmax(-1)
        pred = prob.argmax(-1)
        y = self.data.y
        emb = self.model.act(hidden[-2]) if len(hidden) > 1 else logits
        pos, var = self._pca(_np(emb))
        # the accuracies counted in numpy, on the arrays the trace holds anyway (torch's
        # boolean indexing took a sixth of a karate trace): the same counts, the same floats
        predictions, labels = _np(pred), _np(y)
        masks = [_np(m) for m in (self.train_mask, self.val_mask, self.test_mask)]
        correct = predictions == labels
        train_acc, val_acc, test_acc = (_masked_accuracy(correct, m) for m in masks)
        return NodeTrainTrace(
            epoch=self.epoch, loss=float(loss), kind=self.kind,
            train_acc=train_acc, val_acc=val_acc, test_acc=test_acc,
            predictions=predictions, probabilities=_np(prob), embedding=pos,
            explained_variance=var, labels=labels, train_mask=masks[0],
            val_mask=masks[1], test_mask=masks[2])

    def evaluate(self) -> NodeTrainTrace:
        """The current state (eval mode, no training); ``loss`` is the training loss."""
        with self.lock:
            with torch.no_grad():
                self._set_training(False)
                logits = self._forward()[0]
                loss = F.cross_entropy(logits[self.train_mask], self.data.y[self.train_mask])
            return self._trace(float(loss))


# -- graph classification -----------------------------------------------------------------------
class GraphClassificationSession(_Epochs, SavedEmbedding, TrainingSession):
    """Graph classification on a list of ``Data`` (each ``y`` one label): a seeded 80/20
    train/test split, mini-batches of ``batch_size`` graphs collated by PyG's
    ``DataLoader``, a ``GraphClassifier`` trained with Adam. Same ``lock``/divergence
    behaviour as ``NodeClassificationSession``; an epoch is several optimizer steps (one
    per mini-batch), each checked, and its weights become a rollback point once the whole
    epoch went well."""

    def __init__(self, graphs: Sequence[Data], pooling: str = "mean",
                 device: str | torch.device = "cpu", seed: int = 0, hidden_dim: int = 32,
                 lr: float = 0.01, kind: str = "gcn", num_layers: int = 3,
                 batch_size: int = 32, test_fraction: float = 0.2) -> None:
        if len(graphs) < 2:
            raise InvalidParameterError("Graph classification needs at least two graphs.")
        dev = device_for(device)
        self.graphs = list(graphs)
        self.pooling, self.kind, self.batch_size = pooling, kind, batch_size
        self.labels = torch.as_tensor([int(g.y.reshape(-1)[0]) for g in self.graphs])
        self.num_classes = int(self.labels.max()) + 1
        rng = np.random.default_rng(seed)
        perm = rng.permutation(len(self.graphs))
        n_test = max(1, int(round(test_fraction * len(perm))))
        self.test_mask = torch.zeros(len(perm), dtype=torch.bool)
        self.test_mask[torch.as_tensor(perm[:n_test])] = True
        self.train_mask = ~self.test_mask
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = GraphClassifier(self.graphs[0].num_features, hidden_dim,
                                         self.num_classes, pooling, kind, num_layers).to(dev)
        self.optimizer = adam(self.model.parameters(), lr=lr)
        self.gen = torch.Generator().manual_seed(seed)
        self._all = Batch.from_data_list(self.graphs).to(dev)
        self._pca = _AlignedPCA()
        self._train_graphs = [g for g, m in zip(self.graphs, self.train_mask.tolist(),
                                                strict=True) if m]
        self.seed = seed
        self._init_session(dev, lr)
        self._last_acc = dict.fromkeys(("train_acc", "test_acc"), math.nan)

    def _embedding_rows(self) -> int:
        return len(self.graphs)

    def _move_data(self, dev: torch.device) -> None:
        self._all = self._all.to(dev)

    def train(self, epochs: int, report_every: int = 1) -> Iterator[Progress]:
        """Train ``epochs`` more epochs (each one pass over the training graphs), yielding
        ``Progress`` with a ``GraphClassTrace`` every ``report_every`` epochs and at the last."""
        return super().train(epochs, every=report_every)

    def _train_step(self, run: Run) -> StepOutcome:
        loader = DataLoader(self._train_graphs, batch_size=self.batch_size, shuffle=True,
                            generator=self.gen)
        train_mode(self.model)
        total, count = 0.0, 0
        for b in loader:
            b = b.to(self.device)
            loss = F.cross_entropy(self.model(b.x, b.edge_index, b.batch), b.y)
            # a checked optimizer step per mini-batch (restores and raises on divergence)
            value = self._check_loss(loss)
            self._checked_backward(loss)
            self.optimizer.step()
            total, count = total + value * b.num_graphs, count + b.num_graphs
        value = total / max(count, 1)
        self.step += 1
        self.losses.append(value)
        if finite(self.model.parameters()):  # the weights after a whole good epoch
            self._mark_good(at=self.step)
        return self._outcome(value, self._trace(value) if run.report else None)

    @torch.no_grad()
    def _trace(self, loss: float) -> GraphClassTrace:
        self.model.eval()
        a = self._all
        logits, g = self.model(a.x, a.edge_index, a.batch, return_embedding=True)
        prob = logits.softmax(-1)
        pred = prob.argmax(-1).cpu()
        pos, _ = self._pca(_np(g))
        return GraphClassTrace(
            epoch=self.epoch, loss=float(loss), pooling=self.pooling,
            train_acc=_accuracy(pred, self.labels, self.train_mask),
            test_acc=_accuracy(pred, self.labels, self.test_mask),
            predictions=_np(pred), probabilities=_np(prob), labels=_np(self.labels),
            train_mask=_np(self.train_mask), test_mask=_np(self.test_mask), embedding=pos)

    def evaluate(self) -> GraphClassTrace:
        with self.lock:
            return self._trace(self.losses[-1] if self.losses else math.nan)


# -- link prediction ----------------------------------------------------------------------------
class LinkPredictionSession(_Epochs, SavedBestWeights, TrainingSession):
    """Link prediction: a seeded split of the undirected edges into train / val / test
    (both directions of a pair stay together), a ``GCN`` encoder on the training edges only,
    and a dot-product decoder ``score(u, v) = sigmoid(z_u · z_v)``.

    Each epoch draws fresh negatives from the training graph with PyG's
    ``negative_sampling`` (seeded); val/test negatives are non-edges of the full graph drawn
    once, as many as the positives. Same ``lock``/divergence behaviour as the other sessions.

    Set up so that small graphs do not simply overfit:

    * **held-out sets**: ``val_fraction`` / ``test_fraction`` of the edges, but at least
      ``min_held_out`` each when the training graph still keeps half the edges (so karate's
      AUC is not computed over 4 or 8 positives);
    * **regularised encoder**: dropout and weight decay (L2 via Adam), a small embedding;
    * **input features** (``features``): "x" uses ``data.x``; "structural" replaces it with
      structural features of the *training* graph (scaled log-degree and the ``num_spectral``
      leading eigenvectors of ``D^-1/2 A D^-1/2``, i.e. a Laplacian eigenmap — held-out
      edges never enter them); "both" concatenates the two; "auto" (default) is
      "structural" when ``data.x`` is the identity (one column per node: such an encoder
      only memorises a free vector per node) and "x" otherwise;
    * **early stopping / model selection**: after every epoch the validation AUC is
      computed; the weights with the best one (earliest on ties) are kept in
      ``best_state`` and ``evaluate()`` and every ``LinkTrace`` report *those* weights —
      the trace's ``epoch`` and ``loss`` are those of the best-validation epoch, not the
      last one (``Progress.message`` says which). Training itself continues for all the
      epochs asked, unless ``patience`` epochs pass without a better validation AUC.
      The test set is never used for any choice. A rollback after a divergence that
      undoes the best epoch makes the restored weights the best so far.
    """

    def __init__(self, data: Data, device: str | torch.device = "cpu", seed: int = 0,
                 val_fraction: float = 0.05, test_fraction: float = 0.1,
                 hidden_dim: int = 32, out_dim: int = 16, lr: float = 0.01,
                 top_k: int = 20, dropout: float = 0.5, weight_decay: float = 5e-4,
                 min_held_out: int = 10, features: str = "auto", num_spectral: int = 8,
                 patience: int | None = None) -> None:  # edge split, negatives, features, model
        if features not in LINK_FEATURES:
            raise InvalidParameterError(
                f"features must be one of {', '.join(LINK_FEATURES)}, not {features!r}.")
        dev = device_for(device)
        n = int(data.num_nodes)
        self.num_nodes, self.top_k, self.patience = n, top_k, patience
        ei = data.edge_index.cpu()
        u, v = ei[0], ei[1]
        keep = u < v
        pairs = torch.unique(torch.stack([u[keep], v[keep]], 1), dim=0)
        rng = np.random.default_rng(seed)
        pairs = pairs[torch.as_tensor(rng.permutation(len(pairs)))]
        m = len(pairs)
        n_val = max(1, int(round(val_fraction * m)))
        n_test = max(1, int(round(test_fraction * m)))
        floor_val, floor_test = max(n_val, min_held_out), max(n_test, min_held_out)
        if m - floor_val - floor_test >= m / 2:           # the graph allows larger sets
            n_val, n_test = floor_val, floor_test
        if n_val + n_test >= m:
            raise InvalidParameterError("The graph has too few edges to hold some out.")
        self.val_pos, self.test_pos = pairs[:n_val], pairs[n_val:n_val + n_test]
        self.train_pos = pairs[n_val + n_test:]
        self.full_pairs = pairs
        existing = set(map(tuple, pairs.tolist()))
        self.val_neg = self._non_edges(n_val, existing, rng)
        self.test_neg = self._non_edges(n_test, existing | set(map(tuple,
                                                                   self.val_neg.tolist())), rng)
        tp = self.train_pos.T
        train_ei = torch.cat([tp, tp.flip(0)], 1)
        self.train_edge_index = train_ei.to(dev)
        x = data.x.float().clone()
        if features == "auto":
            features = "structural" if _is_identity(x) else "x"
        self.features = features
        if features != "x":
            sf = _structural_features(train_ei, n, num_spectral)
            x = sf if features == "structural" else torch.cat([x, sf], 1)
        self.x = x.to(dev)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = GCN(self.x.shape[1], hidden_dim, out_dim, num_layers=2,
                             dropout=dropout).to(dev)
        self.weight_decay = weight_decay
        self.optimizer = adam(self.model.parameters(), lr=lr,
                                          weight_decay=weight_decay)
        self.gen = torch.Generator().manual_seed(seed)
        self.seed = seed
        #: the best validation AUC so far, its epoch, that epoch's training loss and the
        #: model weights then (None before the first epoch)
        self.best_val_auc, self.best_epoch, self.best_loss = -math.inf, 0, math.nan
        self.best_state: dict | None = None
        self._eval_model = copy.deepcopy(self.model)
        self._init_session(dev, lr)
        self._last_acc = dict.fromkeys(("val_auc", "test_auc"), math.nan)

    def _non_edges(self, k: int, existing: set, rng: np.random.Generator) -> torch.Tensor:
        n, out, seen = self.num_nodes, [], set()
        tries = 0
        while len(out) < k and tries < 100 * k + 1000:
            tries += 1
            a, b = sorted(int(t) for t in rng.integers(n, size=2))
            if a != b and (a, b) not in existing and (a, b) not in seen:
                seen.add((a, b))
                out.append((a, b))
        return torch.as_tensor(out, dtype=torch.long).reshape(-1, 2)

    def _move_data(self, dev: torch.device) -> None:
        self.train_edge_index, self.x = self.train_edge_index.to(dev), self.x.to(dev)
        self._eval_model.to(dev)
        if self.best_state is not None:
            self.best_state = {k: t.to(dev) for k, t in self.best_state.items()}

    def encode(self, model: nn.Module | None = None) -> torch.Tensor:
        return (model or self.model)(self.x, self.train_edge_index)

    @staticmethod
    def decode(z: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """Logits z_u · z_v for pairs [k, 2]."""
        return (z[pairs[:, 0]] * z[pairs[:, 1]]).sum(-1)

    @torch.no_grad()
    def _val_auc(self) -> float:
        """Validation AUC of the current weights (eval mode). Call with the lock held."""
        self.model.eval()
        z = self.encode()
        pairs = torch.cat([self.val_pos, self.val_neg]).to(z.device)
        labels = np.r_[np.ones(len(self.val_pos)), np.zeros(len(self.val_neg))]
        # the same float32 sigmoid scores as the trace's, so its val_auc matches exactly
        return roc_auc(_np(torch.sigmoid(self.decode(z, pairs))), labels)

    def _message(self) -> str:
        if self.best_state is None:
            return "Link predictor: untrained weights."
        return (f"Reporting the weights of epoch {self.best_epoch}, the best validation AUC "
                f"({self.best_val_auc:.3f}) of {self.epoch} epochs.")

    def train(self, epochs: int, report_every: int = 1) -> Iterator[Progress]:
        """Train ``epochs`` more epochs (fewer if ``patience`` epochs pass without a better
        validation AUC), yielding ``Progress`` with a ``LinkTrace`` every ``report_every``
        epochs and at the last. The trace, ``metrics["val_auc"]`` / ``["test_auc"]`` are
        those of the best-validation weights (``metrics["best_epoch"]``); ``loss`` is the
        current training loss."""
        return super().train(epochs, every=report_every)

    def _train_step(self, run: Run) -> StepOutcome:
        pos = self.train_pos.to(self.device)
        train_mode(self.model)
        with torch.random.fork_rng(devices=[]):
            seed = self._seed_step()
            # 1. fresh negatives: pairs that are not training edges (PyG draws them with
            #    Python's ``random``: seeded too, its state put back, so they follow ``seed``)
            outside = random.getstate()
            random.seed(seed)
            try:
                neg = negative_sampling(self.train_edge_index, self.num_nodes,
                                        num_neg_samples=len(pos)).T
            finally:
                random.setstate(outside)
            # 2. encode on the training graph (dropout on), score both kinds
            z = self.encode()
            logits = torch.cat([self.decode(z, pos), self.decode(z, neg)])
            target = torch.cat([torch.ones(len(pos)), torch.zeros(len(neg))]).to(logits.device)
            # 3. binary cross-entropy, checked step
            loss = F.binary_cross_entropy_with_logits(logits, target)
            value = self.checked_step(loss)
        # 4. model selection on the validation AUC: keep the best weights
        val = self._val_auc()
        if val > self.best_val_auc:
            self._keep_best(val, value)
        stop = self.patience is not None and self.epoch - self.best_epoch >= self.patience
        trace = self._trace(value) if run.report or stop else None
        out = self._outcome(value, trace, best_epoch=float(self.best_epoch))
        out.stop = stop
        return out

    def _keep_best(self, val_auc: float, loss: float) -> None:
        """The current weights are the best so far (validation AUC ``val_auc``)."""
        self.best_val_auc, self.best_epoch, self.best_loss = val_auc, self.epoch, loss
        self.best_state = {n: t.detach().clone() for n, t in self.model.state_dict().items()}

    def _after_restore(self) -> None:
        """A rollback that undid the best epoch: the restored weights become the best
        (the weights of an earlier, maybe better, epoch are not kept), so reports and
        patience never point past the session's epoch."""
        if self.best_epoch > self.epoch:
            if self.epoch == 0:
                self.best_val_auc, self.best_epoch, self.best_loss = -math.inf, 0, math.nan
                self.best_state = None
            else:
                self._keep_best(self._val_auc(), self.losses[-1])

    @torch.no_grad()
    def _top_non_edges(self, z: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        n, k = self.num_nodes, self.top_k
        best_s, best_p = torch.zeros(0), torch.zeros(0, 2, dtype=torch.long)
        pairs = self.full_pairs                                    # every edge once, u < v
        for r0 in range(0, n, 1024):
            rows = torch.arange(r0, min(n, r0 + 1024))
            s = (z[rows] @ z.T).cpu()
            cols = torch.arange(n)
            s[cols[None, :] <= rows[:, None]] = -math.inf          # u < v only
            here = pairs[(pairs[:, 0] >= r0) & (pairs[:, 0] < r0 + len(rows))]
            s[here[:, 0] - r0, here[:, 1]] = -math.inf             # not an edge
            top = torch.topk(s.reshape(-1), min(k, s.numel()))
            ok = torch.isfinite(top.values)
            idx = top.indices[ok]
            p = torch.stack([rows[idx // n], idx % n], 1)
            best_s = torch.cat([best_s, top.values[ok]])
            best_p = torch.cat([best_p, p])
            keep = torch.argsort(best_s, descending=True, stable=True)[:k]
            best_s, best_p = best_s[keep], best_p[keep]
        return _np(best_p), _np(torch.sigmoid(best_s))

    @torch.no_grad()
    def _trace(self, loss: float) -> LinkTrace:
        """The trace of the best-validation weights (the current ones before any epoch)."""
        model, epoch = self.model, self.epoch
        if self.best_state is not None:
            self._eval_model.load_state_dict(self.best_state)
            model, epoch, loss = self._eval_model, self.best_epoch, self.best_loss
        model.eval()
        z = self.encode(model)

        def scored(pos, neg):
            pairs = torch.cat([pos, neg]).to(z.device)
            labels = np.r_[np.ones(len(pos), np.int64), np.zeros(len(neg), np.int64)]
            return _np(pairs), labels, _np(torch.sigmoid(self.decode(z, pairs)))

        vp, vl, vs = scored(self.val_pos, self.val_neg)
        tp, tl, ts = scored(self.test_pos, self.test_neg)
        top_p, top_s = self._top_non_edges(z)
        return LinkTrace(epoch=epoch, loss=float(loss), val_auc=roc_auc(vs, vl),
                         test_auc=roc_auc(ts, tl), roc=roc_curve(ts, tl), val_pairs=vp,
                         val_labels=vl, val_scores=vs, test_pairs=tp, test_labels=tl,
                         test_scores=ts, top_pairs=top_p, top_scores=top_s)

    def evaluate(self) -> LinkTrace:
        """The ``LinkTrace`` of the best-validation weights (see the class docstring)."""
        with self.lock:
            return self._trace(self.losses[-1] if self.losses else math.nan)
