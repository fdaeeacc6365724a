r"""Depth and over-smoothing: what stacking 1 to 8 message-passing layers does to the
node embeddings, measured layer by layer.

Every GCN layer mixes a node with its neighbours; repeated, the rows of ``H`` become
alike (over-smoothing) and the classes stop being separable. Two measures, per layer:

* **Dirichlet energy** with the normalisation of GCN's own propagation
  (``Â = A + I``, ``d̂_i = 1 + d_i``, d_i the node's degree without self-loops):

  .. math::
      E(\mathbf{X}) = \tfrac12 \sum_{(i,j) \in \mathcal{E}}
      \Big\Vert \frac{\mathbf{x}_i}{\sqrt{1 + d_i}} - \frac{\mathbf{x}_j}{\sqrt{1 + d_j}}
      \Big\Vert^2 = \operatorname{tr}\big(\mathbf{X}^\top \tilde{\Delta} \mathbf{X}\big),
      \qquad \tilde{\Delta} = \mathbf{I} - \hat{\mathbf{D}}^{-1/2} \hat{\mathbf{A}}
      \hat{\mathbf{D}}^{-1/2}

  with ``𝓔`` the edges of ``edge_index``, which holds each undirected edge in both
  directions (hence the ½: every edge counted once). It is 0 exactly when every row is
  proportional to ``√d̂_i`` (the fixed direction of GCN's propagation).
* **Mean pairwise distance**: the mean Euclidean distance ``‖x_i − x_j‖`` over all pairs
  i < j (of at most ``MAX_DISTANCE_NODES`` nodes, drawn with the seed, on a larger graph).

The embeddings of a model with L layers are L + 1 matrices: the input features (layer 0),
the activated output of each hidden layer (what the next layer reads) and the logits.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import torch
from torch_geometric.nn.dense.linear import Linear as PygLinear
from torch_geometric.utils import degree, remove_self_loops

from models.errors import ArchScopeError, InvalidParameterError
from models.graphs.options import BASELINE_DEPTH, MAX_DEPTH
from models.graphs.sessions import NodeClassificationSession
from models.traces import Progress
from models.traces.graphs import DepthStudy

__all__ = ["dirichlet_energy", "mean_pairwise_distance", "layer_embeddings",
           "depth_profile", "seeded_reset", "untrained_depth_study", "depth_study",
           "MAX_DISTANCE_NODES"]

#: the mean pairwise distance of a larger graph is taken over this many nodes
MAX_DISTANCE_NODES = 2000
#: epochs between two reports while the run and the baseline train
REPORT_EVERY = 10


def dirichlet_energy(x: torch.Tensor, edge_index: torch.Tensor,
                     num_nodes: int | None = None) -> float:
    """``E(X) = ½ Σ_{(i,j)∈E} ‖x_i/√(1+d_i) − x_j/√(1+d_j)‖²`` (module docstring),
    summed in float64. Self-loops in ``edge_index`` are left out (they add 0 and are no
    part of d_i); ``d_i`` is the in-degree (the degree on an undirected graph)."""
    n = int(num_nodes if num_nodes is not None else x.size(0))
    ei, _ = remove_self_loops(edge_index)
    src, dst = ei[0], ei[1]
    d_hat = degree(dst, n, dtype=torch.float64) + 1.0
    # 1. each row scaled by 1/√(1 + d_i)
    s = x.double() / d_hat.sqrt().unsqueeze(1)
    # 2. squared differences along the edges, half their sum
    return float(0.5 * (s.index_select(0, src) - s.index_select(0, dst)).pow(2).sum())


def mean_pairwise_distance(x: torch.Tensor, seed: int = 0,
                           max_nodes: int = MAX_DISTANCE_NODES) -> float:
    """Mean ``‖x_i − x_j‖₂`` over the pairs i < j (of ``max_nodes`` nodes drawn with
    ``seed`` when there are more); NaN with fewer than two nodes."""
    n = x.size(0)
    if n < 2:
        return math.nan
    if n > max_nodes:
        pick = torch.randperm(n, generator=torch.Generator().manual_seed(seed))[:max_nodes]
        x = x.index_select(0, pick.to(x.device))
    return float(torch.pdist(x.double()).mean())


@torch.no_grad()
def layer_embeddings(model, x: torch.Tensor, edge_index: torch.Tensor,
                     edge_weight: torch.Tensor | None = None) -> list[torch.Tensor]:
    """The L + 1 embeddings of ``model`` (eval mode): ``x``, the activated output of each
    hidden layer and the logits. The model's training mode is put back."""
    was = model.training
    model.eval()
    try:
        _logits, hidden = model(x, edge_index, edge_weight, return_hidden=True)
    finally:
        model.train(was)
    return [x] + [model.act(h) for h in hidden[:-1]] + [hidden[-1]]


def depth_profile(model, data, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(Dirichlet energy, mean pairwise distance) of each of ``model``'s L + 1 embeddings
    on ``data``: float64[L + 1] each."""
    hs = layer_embeddings(model, data.x, data.edge_index, getattr(data, "edge_weight", None))
    n = data.num_nodes
    energy = np.array([dirichlet_energy(h, data.edge_index, n) for h in hs])
    distance = np.array([mean_pairwise_distance(h, seed) for h in hs])
    return energy, distance


@torch.no_grad()
def seeded_reset(model: torch.nn.Module, seed: int) -> None:
    """Initialise ``model``'s parameters as PyG's ``reset_parameters`` does (a PyG
    ``Linear`` by its own weight and bias initialisers; any other matrix, e.g. GAT's
    attention vectors, glorot; any other vector, the convolutions' biases, zeros), drawn
    from a generator of its own seeded with ``seed``: the same numbers whatever another
    thread draws from torch's global generator meanwhile (the tab's other computations
    and jobs run beside this one, and seeding the global generator is not enough)."""
    g = torch.Generator().manual_seed(seed)

    def uniform(t: torch.Tensor, bound: float) -> None:
        t.copy_(torch.empty(t.shape, dtype=t.dtype).uniform_(-bound, bound, generator=g))

    def glorot(t: torch.Tensor) -> None:
        uniform(t, math.sqrt(6.0 / (t.size(-2) + t.size(-1))))

    done: set[int] = set()
    for module in model.modules():
        if isinstance(module, PygLinear) and module.in_channels > 0:
            w, fan = module.weight, module.in_channels
            if module.weight_initializer == "glorot":
                glorot(w)
            else:          # "uniform", "kaiming_uniform" (a = √5) and None: ±1/√fan
                uniform(w, 1.0 / math.sqrt(fan))
            done.add(id(w))
            if module.bias is not None:
                if module.bias_initializer == "zeros":
                    module.bias.zero_()
                else:
                    uniform(module.bias, 1.0 / math.sqrt(fan))
                done.add(id(module.bias))
    for p in model.parameters():
        if id(p) in done:
            continue
        if p.dim() >= 2:
            glorot(p)
        else:
            p.zero_()


def _session(data, kind: str, depth: int, normalize: bool, seed: int, train_per_class: int,
             device: str, **session_kw) -> NodeClassificationSession:
    session = NodeClassificationSession(data, kind, device=device, seed=seed,
                                        train_per_class=train_per_class, num_layers=depth,
                                        normalize=normalize, **session_kw)
    with session.lock:
        seeded_reset(session.model, seed)      # (its optimiser holds no state yet)
    return session


def _measure(session: NodeClassificationSession, seed: int) -> tuple:
    with session.lock:
        energy, distance = depth_profile(session.model, session.data, seed)
    return energy, distance, float(session.evaluate().test_acc)


def _trace(kind, depth, normalize, epoch, run, base, depths=(), accs=(), note="") -> DepthStudy:
    return DepthStudy(kind=kind, depth=depth, normalize=normalize,
                      baseline_depth=BASELINE_DEPTH, epoch=epoch,
                      energy=run[0], distance=run[1], test_acc=run[2],
                      baseline_energy=base[0], baseline_distance=base[1],
                      baseline_test_acc=base[2],
                      depths=np.asarray(depths, np.int64).reshape(-1),
                      depth_test_acc=np.asarray(accs, np.float32).reshape(-1), note=note)


def untrained_depth_study(data, kind: str, depth: int, normalize: bool, seed: int,
                          train_per_class: int, device: str, **session_kw) -> DepthStudy:
    """The run (``depth`` layers, GCN normalised or not) and the baseline
    (``BASELINE_DEPTH`` layers, normalised) as initialised with ``seed``: their energy
    and distance per layer and their test accuracy (no depth sweep yet)."""
    run = _measure(_session(data, kind, depth, normalize, seed, train_per_class, device,
                            **session_kw), seed)
    base = _measure(_session(data, kind, BASELINE_DEPTH, True, seed, train_per_class, device,
                             **session_kw), seed)
    return _trace(kind, depth, normalize, 0, run, base)


def depth_study(data, kind: str, depth: int, normalize: bool, seed: int,
                train_per_class: int, epochs: int, device: str,
                **session_kw) -> Iterator[Progress]:
    """Train the run and the baseline ``epochs`` epochs side by side (a report with the
    ``DepthStudy`` so far every ``REPORT_EVERY`` epochs), then a model of every depth
    1…``MAX_DEPTH`` (the run's normalisation; the run counts as its own depth, and the
    baseline as depth 2 when normalised) for test accuracy against depth, a report each.
    A run that diverges keeps its last good weights; its note says so (once per model).
    A graph without a labelled node is refused before anything trains."""
    if not bool((data.y >= 0).any()):
        raise InvalidParameterError(
            "This graph has no labelled node to train on: choose a label attribute "
            "(Attributes → Label) or a graph with labels.")
    make = lambda d, norm: _session(data, kind, d, norm, seed, train_per_class,  # noqa: E731
                                    device, **session_kw)
    run_s, base_s = make(depth, normalize), make(BASELINE_DEPTH, True)
    sweep = [d for d in range(1, MAX_DEPTH + 1)
             if d != depth and not (normalize and d == BASELINE_DEPTH)]
    total = 2 * epochs + len(sweep) * epochs
    notes: dict[str, str] = {}         # model -> why it stopped early (the first time)

    def train(session, n: int, name: str) -> None:
        try:
            for _ in session.train(n, report_every=n):
                pass
        except ArchScopeError as exc:      # diverged: rolled back to the last good weights
            notes.setdefault(name, f"{name}: {exc}")

    done = 0
    while done < epochs:
        step = min(REPORT_EVERY, epochs - done)
        train(run_s, step, f"depth {depth}")
        train(base_s, step, "baseline")
        done += step
        run, base = _measure(run_s, seed), _measure(base_s, seed)
        yield Progress(step=2 * done, total=total, loss=0.0,
                       trace=_trace(kind, depth, normalize, done, run, base,
                                    note=" ".join(notes.values())),
                       message=f"epoch {done}: test accuracy {run[2]:.2f} "
                               f"(baseline {base[2]:.2f})")
    accs = {depth: run[2]}
    if normalize:
        accs[BASELINE_DEPTH] = base[2]
    for i, d in enumerate(sweep):
        session = make(d, normalize)
        train(session, epochs, f"depth {d}")
        accs[d] = float(session.evaluate().test_acc)
        depths = sorted(accs)
        yield Progress(step=2 * epochs + (i + 1) * epochs, total=total, loss=0.0,
                       trace=_trace(kind, depth, normalize, epochs, run, base, depths,
                                    [accs[k] for k in depths], " ".join(notes.values())),
                       message=f"depth {d}: test accuracy {accs[d]:.2f}")
