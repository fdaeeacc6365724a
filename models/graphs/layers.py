r"""Graph neural networks: GCN, GraphSAGE and GAT from PyG, and a graph classifier.

Every layer here is a *message-passing* layer: node i gathers messages from the nodes j
with an edge j → i, aggregates them, and updates its own vector:

.. math::
    \mathbf{h}_i^{(\ell+1)} = \text{update}\Big(\mathbf{h}_i^{(\ell)},
    \bigoplus_{j \in \mathcal{N}(i)} \text{message}(\mathbf{h}_j^{(\ell)}, \mathbf{h}_i^{(\ell)})\Big)

* **GCN** (``GCNConv``): messages ``c_ij Θ h_j`` with ``c_ij = 1/√(d̂_i d̂_j)`` over
  ``N(i) ∪ {i}``, summed: ``H' = D̂^{-1/2} (A + I) D̂^{-1/2} H Θ``.
* **GraphSAGE** (``SAGEConv``): ``h_i' = W_l · mean_{j∈N(i)} h_j + W_r h_i`` (or max).
* **GAT** (``GATConv``): ``h_i' = ‖_k Σ_j α^k_ij W^k h_j`` with
  ``α_ij = softmax_j(LeakyReLU(a_srcᵀ W h_j + a_dstᵀ W h_i))`` over ``N(i) ∪ {i}``.

Graphs are ``torch_geometric.data.Data`` with ``x`` float[n, f], ``edge_index``
int64[2, E] (undirected graphs carry both directions; messages flow
``edge_index[0] → edge_index[1]``), optional ``edge_weight`` float[E] (used by GCN only)
and ``y`` int64[n] with -1 for unlabelled nodes.

Shapes:
    x: [n, f]; edge_index: [2, E]; logits: [n, classes]; hidden (per layer): [n, d_ℓ]
"""

from __future__ import annotations

import weakref

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.nn import (
    GATConv,
    GCNConv,
    SAGEConv,
    global_add_pool,
    global_max_pool,
    global_mean_pool,
)
from torch_geometric.nn.aggr import SumAggregation
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.nn.dense.linear import Linear as PygLinear
from torch_geometric.utils import add_remaining_self_loops

from models.errors import InvalidParameterError
from models.graphs.options import MODEL_KINDS, POOLINGS, SAGE_AGGREGATORS


# -- small helpers ------------------------------------------------------------------------------
def _as_edge_index(edge_index) -> torch.Tensor:
    ei = torch.as_tensor(np.asarray(edge_index) if isinstance(edge_index, np.ndarray)
                         else edge_index).long()
    if ei.dim() != 2 or ei.shape[0] != 2:
        raise InvalidParameterError(f"edge_index must have shape [2, E], got {tuple(ei.shape)}.")
    return ei


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def _act(kind: str):
    return F.elu if kind == "gat" else F.relu


# -- the models ---------------------------------------------------------------------------------
class _GNN(nn.Module):
    """What GCN, GraphSAGE and GAT share: a stack of convolutions in ``convs``.

    ``forward`` runs, for every layer ℓ: dropout on its input, the convolution, and (for all
    but the last) the activation. ``return_hidden`` also returns every convolution's output
    *before* the activation (the last one is the logits), so the input of layer ℓ > 0 is
    ``act(hidden[ℓ-1])`` in eval mode.
    """

    kind = ""

    def __init__(self, dropout: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.convs = nn.ModuleList()

    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.relu(h)

    def conv_forward(self, layer: int, h: torch.Tensor, edge_index: torch.Tensor,
                     edge_weight: torch.Tensor | None = None) -> torch.Tensor:
        """Layer ``layer``'s convolution alone (no dropout, no activation)."""
        return self.convs[layer](h, edge_index)

    def reset_parameters(self) -> None:
        for conv in self.convs:
            conv.reset_parameters()

    @property
    def num_layers(self) -> int:
        return len(self.convs)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor,
                edge_weight: torch.Tensor | None = None, return_hidden: bool = False):
        hidden = []
        h = x
        for i in range(len(self.convs)):
            # 1. dropout on the layer's input (identity in eval mode)
            h = F.dropout(h, p=self.dropout, training=self.training)
            # 2. message passing: gather, aggregate, update
            h = self.conv_forward(i, h, edge_index, edge_weight)
            hidden.append(h)
            # 3. non-linearity between layers (none after the last: those are the logits)
            if i < len(self.convs) - 1:
                h = self.act(h)
        return (h, hidden) if return_hidden else h

    def __repr__(self) -> str:
        convs = ", ".join(repr(c) for c in self.convs)
        return f"{self.__class__.__name__}({convs}, dropout={self.dropout})"


class _NormCache:
    """``gcn_norm`` of the last graph a ``GCN`` saw, kept while the same tensors come back.

    Every ``GCNConv`` normalises its edges on every call: self-loops, degrees and
    ``1/√(d̂_i d̂_j)``, a third of a karate epoch, twice per forward. PyG's own example
    (``cached=True``) keeps the first graph's result for ever, which would be wrong for the
    explainer's and the subgraph views' other edge sets. Here the result is kept for the
    very tensors it came from: the same ``edge_index`` and ``edge_weight`` objects (weak
    references), unchanged in place (their version counters), the same node count, dtype
    and settings. A weight that requires a gradient (a learned mask) is never kept, nor
    are inference tensors (no version counter). Copies, pickles and a model moved to
    another device start with an empty cache."""

    def __init__(self) -> None:
        self._refs: tuple | None = None
        self._key: tuple | None = None
        self._value: tuple[torch.Tensor, torch.Tensor | None] | None = None
        self._prepared: tuple | None = None     # ``_prepare(_value)``

    def __deepcopy__(self, memo) -> _NormCache:
        return _NormCache()

    def __getstate__(self) -> dict:
        return {"_refs": None, "_key": None, "_value": None, "_prepared": None}

    def prepared(self, value: tuple[torch.Tensor, torch.Tensor | None]) -> tuple:
        """``_prepare(value)``, kept with the value ``get`` keeps."""
        if value is not self._value:
            return _prepare(*value)
        if self._prepared is None:
            self._prepared = _prepare(*value)
        return self._prepared

    def get(self, conv: GCNConv, edge_index: torch.Tensor, edge_weight: torch.Tensor | None,
            n: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor | None]:
        def norm():
            return gcn_norm(edge_index, edge_weight, n, conv.improved, conv.add_self_loops,
                            conv.flow, dtype)

        if (edge_weight is not None and (edge_weight.requires_grad or edge_weight.is_inference())
                or edge_index.is_inference()):      # inference tensors have no version
            return norm()
        key = (edge_index._version, None if edge_weight is None else edge_weight._version,
               n, dtype, conv.improved, conv.add_self_loops, conv.flow)
        refs = self._refs
        if (refs is not None and self._key == key and refs[0]() is edge_index and
                (refs[1] is None if edge_weight is None else refs[1]() is edge_weight)):
            return self._value
        self._value, self._prepared = norm(), None
        self._refs = (weakref.ref(edge_index),
                      None if edge_weight is None else weakref.ref(edge_weight))
        self._key = key
        return self._value


def _check_dims(in_dim: int, hidden_dim: int, out_dim: int | None, num_layers: int) -> int:
    if out_dim is None:
        raise InvalidParameterError("out_dim (the number of classes or output size) is needed.")
    if min(in_dim, hidden_dim, out_dim, num_layers) < 1:
        raise InvalidParameterError("Dimensions and the number of layers must be at least 1.")
    return out_dim


class GCN(_GNN):
    r"""Graph convolutional network (Kipf & Welling 2017): ``num_layers`` ``GCNConv``.

    .. math::
        \mathbf{H}^{(\ell+1)} = \sigma\big(\hat{\mathbf{D}}^{-1/2}\hat{\mathbf{A}}
        \hat{\mathbf{D}}^{-1/2}\mathbf{H}^{(\ell)}\mathbf{\Theta}^{(\ell)}\big),
        \qquad \hat{\mathbf{A}} = \mathbf{A} + \mathbf{I},\ \hat{D}_{ii} = \textstyle\sum_j
        \hat{A}_{ij}

    node-wise ``h_i' = Θᵀ Σ_{j ∈ N(i) ∪ {i}} e_ji / √(d̂_j d̂_i) · h_j``, σ = ReLU.

    Args:
        in_dim: input features per node. hidden_dim: width of the hidden layers (16).
        out_dim: output size (classes). num_layers: convolutions (2).
        dropout: on every layer's input during training (0.5).
        normalize: ``True`` (the default) propagates with ``D̂^{-1/2} Â D̂^{-1/2}``,
            ``GCNConv(normalize=True)``; ``False`` is ``GCNConv(normalize=False)`` over
            the edges plus a self-loop per node (``add_remaining_self_loops``): the plain
            sum ``h_i' = Θᵀ Σ_{j ∈ N(i) ∪ {i}} e_ji h_j``, ``H' = (A + I) H Θ``, which
            grows with the degree layer after layer.

    Shapes:
        - **input:** x ``(n, in_dim)``, edge_index ``(2, E)``, edge_weight ``(E)`` optional
        - **output:** logits ``(n, out_dim)``; with ``return_hidden`` also a list of
          ``num_layers`` tensors ``(n, hidden_dim)`` … ``(n, out_dim)``
    """

    kind = "gcn"

    def __init__(self, in_dim: int, hidden_dim: int = 16, out_dim: int | None = None,
                 num_layers: int = 2, dropout: float = 0.5, normalize: bool = True) -> None:
        super().__init__(dropout)
        out_dim = _check_dims(in_dim, hidden_dim, out_dim, num_layers)
        self.normalize = bool(normalize)
        dims = [in_dim] + [hidden_dim] * (num_layers - 1) + [out_dim]
        for a, b in zip(dims[:-1], dims[1:], strict=True):
            self.convs.append(GCNConv(a, b, normalize=self.normalize))
        self._norm = _NormCache()

    def _apply(self, fn, *args, **kwargs):
        self._norm = _NormCache()       # a move to another device keeps no copy behind
        return super()._apply(fn, *args, **kwargs)

    def conv_forward(self, layer, h, edge_index, edge_weight=None):
        conv = self.convs[layer]
        if not conv.normalize and isinstance(edge_index, torch.Tensor):
            # GCNConv(normalize=False) adds no self-loops itself: A + I made here
            edge_index, edge_weight = add_remaining_self_loops(edge_index, edge_weight, 1.0,
                                                               h.size(0))
            return conv(h, edge_index, edge_weight)
        if conv.cached or not conv.normalize or not isinstance(edge_index, torch.Tensor):
            return conv(h, edge_index, edge_weight)
        norm = self._norm.get(conv, edge_index, edge_weight, h.size(0), h.dtype)
        if _plain_gcn_call(conv, h, norm[0]):
            return _gcn_propagate(conv, h, *self._norm.prepared(norm))
        # GCNConv takes a result in its cache slot as the normalised edges; the slot is
        # filled for this call only (the inspection views call the conv with it empty).
        # A plain attribute: object.__setattr__ does what nn.Module.__setattr__ ends in
        object.__setattr__(conv, "_cached_edge_index", norm)
        try:
            return conv(h, edge_index, edge_weight)
        finally:
            object.__setattr__(conv, "_cached_edge_index", None)


#: the hook tables of ``MessagePassing.propagate`` on the edge-index path
_PROPAGATE_HOOKS = ("_propagate_forward_pre_hooks", "_propagate_forward_hooks",
                    "_message_forward_pre_hooks", "_message_forward_hooks",
                    "_aggregate_forward_pre_hooks", "_aggregate_forward_hooks")


def _no_module_hooks(module: nn.Module) -> bool:
    """``module(...)`` calls ``module.forward`` and nothing else (``_call_impl``'s own
    test, and no JIT tracing)."""
    g = torch.nn.modules.module
    return not (module._backward_hooks or module._backward_pre_hooks or
                module._forward_hooks or module._forward_pre_hooks or
                g._global_backward_pre_hooks or g._global_backward_hooks or
                g._global_forward_hooks or g._global_forward_pre_hooks)


def _plain_gcn_call(conv, h, edge_index) -> bool:
    """``conv(h, ...)`` with the normalised ``edge_index`` in its cache slot would run
    exactly ``_gcn_propagate``: a ``GCNConv`` itself (no subclass, no method replaced on
    the instance), summing messages along dim 0 of a 2-D ``h`` from source to target
    over a plain tensor of edges, with no hook anywhere (modules' or message passing's),
    not explaining, not decomposed, not traced."""
    if type(conv) is not GCNConv or type(h) is not torch.Tensor or h.dim() != 2 or \
            type(edge_index) is not torch.Tensor or edge_index.layout != torch.strided:
        return False
    own = conv.__dict__                 # (nn.Module.__getattr__ is slow, and this is hot)
    lin, aggr = own["_modules"].get("lin"), own["_modules"].get("aggr_module")
    return (own.get("flow") == "source_to_target" and own.get("node_dim") in (-2, 0) and
            not own.get("_explain") and own.get("_decomposed_layers") == 1 and
            type(aggr) is SumAggregation and type(lin) is PygLinear and
            lin._parameters.get("bias") is None and
            type(lin._parameters.get("weight")) is nn.Parameter and
            _OVERRIDDEN.isdisjoint(own) and _pyg_propagate(conv) and
            not any(own.get(name) for name in _PROPAGATE_HOOKS) and
            _no_module_hooks(conv) and _no_module_hooks(lin) and _no_module_hooks(aggr) and
            not torch._C._get_tracing_state())


#: methods ``_gcn_propagate`` stands for, which an instance might replace
_OVERRIDDEN = frozenset(("forward", "message", "aggregate", "update", "collect",
                         "explain_message"))


def _pyg_propagate(conv: GCNConv) -> bool:
    """``conv.propagate`` is one of PyG's own: the generic ``MessagePassing.propagate`` or
    the one PyG compiles from its template for the class on the first instance (and
    binds on an instance again when an explanation ends)."""
    fn = getattr(conv.propagate, "__func__", None)
    return fn is not None and (fn is MessagePassing.propagate or
                               fn is getattr(GCNConv, "_jinja_propagate", None) or
                               fn is getattr(GCNConv, "_orig_propagate", None))


def _prepare(edge_index: torch.Tensor, edge_weight: torch.Tensor | None) -> tuple:
    """Normalised edges as ``_gcn_propagate`` takes them: the sources, the targets as a
    column and the weights as a column (views: the same numbers PyG indexes with)."""
    return (edge_index[0], edge_index[1].view(-1, 1),
            None if edge_weight is None else edge_weight.view(-1, 1))


def _gcn_propagate(conv: GCNConv, h: torch.Tensor, src: torch.Tensor, dst: torch.Tensor,
                   weight: torch.Tensor | None) -> torch.Tensor:
    """What ``GCNConv.forward`` computes from normalised edges (its cache slot), op for op
    the tensors PyG makes (so the values and gradients are the same to the bit), without
    its Python: ``lin`` (``F.linear``), ``propagate`` (``index_select`` of the sources,
    ``message`` = weight × x_j, ``SumAggregation`` = ``scatter_add_`` into zeros at the
    targets) and the bias. A third of a karate epoch was that Python, in training and in
    every trace's evaluation (``tests/test_gnn.py`` holds it to PyG's conv)."""
    x = F.linear(h, conv.lin.weight)
    x_j = x.index_select(0, src)
    msg = x_j if weight is None else weight * x_j
    out = msg.new_zeros((x.size(0), msg.size(1))).scatter_add_(0, dst.expand_as(msg), msg)
    bias = conv._parameters["bias"]
    return out if bias is None else out + bias


class GraphSAGE(_GNN):
    r"""GraphSAGE (Hamilton et al. 2017): ``num_layers`` ``SAGEConv``.

    .. math::
        \mathbf{h}_i' = \mathbf{W}_l \cdot \operatorname{aggr}_{j \in \mathcal{N}(i)}
        \mathbf{h}_j + \mathbf{W}_r \mathbf{h}_i

    with aggr = mean (default) or max (or sum); no self-loops, no edge weights; σ = ReLU.

    Shapes:
        - **input:** x ``(n, in_dim)``, edge_index ``(2, E)``
        - **output:** logits ``(n, out_dim)`` (and the hidden list, as ``GCN``)
    """

    kind = "sage"

    def __init__(self, in_dim: int, hidden_dim: int = 16, out_dim: int | None = None,
                 num_layers: int = 2, dropout: float = 0.5, aggr: str = "mean") -> None:
        super().__init__(dropout)
        out_dim = _check_dims(in_dim, hidden_dim, out_dim, num_layers)
        if aggr not in SAGE_AGGREGATORS:
            raise InvalidParameterError(f"GraphSAGE aggregates with mean, max or sum, not {aggr!r}.")
        self.aggr = aggr
        dims = [in_dim] + [hidden_dim] * (num_layers - 1) + [out_dim]
        for a, b in zip(dims[:-1], dims[1:], strict=True):
            self.convs.append(SAGEConv(a, b, aggr=aggr))


class GAT(_GNN):
    r"""Graph attention network (Veličković et al. 2018): ``num_layers`` ``GATConv``.

    .. math::
        \mathbf{h}_i' = \big\Vert_{k=1}^{K} \sum_{j \in \mathcal{N}(i) \cup \{i\}}
        \alpha_{ij}^{k} \mathbf{W}^{k}\mathbf{h}_j,\qquad
        \alpha_{ij}^{k} = \operatorname{softmax}_j\big(\operatorname{LeakyReLU}
        (\mathbf{a}_{src}^{k\top}\mathbf{W}^k\mathbf{h}_j + \mathbf{a}_{dst}^{k\top}
        \mathbf{W}^k\mathbf{h}_i)\big)

    Hidden layers have ``heads`` heads of ``hidden_dim`` each, concatenated
    (``heads · hidden_dim`` wide); the last layer has one head (``concat=False``). σ = ELU,
    as in PyG's GAT example. ``dropout`` applies to every layer's input and, inside
    ``GATConv``, to the attention coefficients (training only).

    Shapes:
        - **input:** x ``(n, in_dim)``, edge_index ``(2, E)``
        - **output:** logits ``(n, out_dim)``; hidden ``(n, heads · hidden_dim)``
    """

    kind = "gat"

    def __init__(self, in_dim: int, hidden_dim: int = 8, out_dim: int | None = None,
                 num_layers: int = 2, heads: int = 4, dropout: float = 0.6) -> None:
        super().__init__(dropout)
        out_dim = _check_dims(in_dim, hidden_dim, out_dim, num_layers)
        if heads < 1:
            raise InvalidParameterError("GAT needs at least one head.")
        self.heads = heads
        d = in_dim
        for i in range(num_layers):
            if i < num_layers - 1:
                self.convs.append(GATConv(d, hidden_dim, heads=heads, dropout=dropout))
                d = hidden_dim * heads
            else:
                self.convs.append(GATConv(d, out_dim, heads=1, concat=False, dropout=dropout))

    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.elu(h)


def build_model(kind: str, in_dim: int, out_dim: int, **kw) -> _GNN:
    """``GCN``, ``GraphSAGE`` or ``GAT`` by name ("gcn", "sage", "gat"); ``kw`` go to the
    class (``hidden_dim``, ``num_layers``, ``dropout``, ``aggr`` for sage, ``heads`` for gat,
    ``normalize`` for gcn;
    keywords another kind does not take are dropped)."""
    classes = {"gcn": GCN, "sage": GraphSAGE, "gat": GAT}
    if kind not in classes:
        raise InvalidParameterError(f"Unknown model {kind!r}; choose one of {MODEL_KINDS}.")
    allowed = {"hidden_dim", "num_layers", "dropout"} | {"sage": {"aggr"}, "gat": {"heads"},
                                                        "gcn": {"normalize"}}[kind]
    kw = {k: v for k, v in kw.items() if k in allowed and v is not None}
    return classes[kind](in_dim, out_dim=out_dim, **kw)


class GraphClassifier(nn.Module):
    """Node encoder (``GCN``/``GraphSAGE``/``GAT``), activation, a global pooling (readout)
    over each graph's nodes, and a linear classifier:

    ``ŷ_G = W · pool({act(h_v) : v ∈ G}) + b``

    Shapes:
        - **input:** x ``(N, f)``, edge_index ``(2, E)``, batch ``(N)`` (graph of each node)
        - **output:** logits ``(g, classes)``; with ``return_embedding`` also the pooled
          ``(g, hidden_dim)``
    """

    def __init__(self, in_dim: int, hidden_dim: int, out_dim: int, pooling: str = "mean",
                 kind: str = "gcn", num_layers: int = 3, dropout: float = 0.0) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise InvalidParameterError(f"pooling must be one of {POOLINGS}, not {pooling!r}.")
        self.pooling = pooling
        self.encoder = build_model(kind, in_dim, hidden_dim, hidden_dim=hidden_dim,
                                   num_layers=num_layers, dropout=dropout, heads=1)
        self.lin = nn.Linear(hidden_dim, out_dim)

    def forward(self, x, edge_index, batch, return_embedding: bool = False):
        # 1. node embeddings
        h = self.encoder.act(self.encoder(x, edge_index))
        # 2. readout: one vector per graph
        pool = {"mean": global_mean_pool, "max": global_max_pool, "sum": global_add_pool}
        g = pool[self.pooling](h, batch)
        # 3. classify the graph
        out = self.lin(g)
        return (out, g) if return_embedding else out
