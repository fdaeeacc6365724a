"""One node's prediction explained with PyG's ``Explainer``.

GNNExplainer (Ying et al. 2019) learns a soft mask over the edges and one over the
input features that keep the model's prediction while staying small and near 0 or 1;
PyG's ``AttentionExplainer`` takes a GAT's attention coefficients as the edge mask (no
training). The model is the graph tab's trained classifier (``models.graphs``'
GCN/GraphSAGE/GAT: ``model(x, edge_index) -> logits``) in eval mode; it is not changed.
Fidelity is PyG's ``fidelity`` on the hard explanation that PyG's ``Explainer`` makes
with ``threshold_config`` (``options.THRESHOLDS``: GNNExplainer's edges with mask > 0.5),
over the edges only (the feature mask is shown, not thresholded). ``explain_best``
explains several nodes and keeps the one whose explanation is most faithful.
"""

from __future__ import annotations

import numpy as np
import torch
from torch_geometric.explain import Explainer, Explanation, GNNExplainer
from torch_geometric.explain.algorithm import AttentionExplainer
from torch_geometric.explain.metric import fidelity
from torch_geometric.utils import k_hop_subgraph

from models.errors import InvalidParameterError
from models.explain.options import (
    DEFAULT_EPOCHS,
    DEFAULT_LR,
    MAX_EPOCHS,
    METHODS,
    THRESHOLDS,
    ExplanationPick,
)
from models.traces.explain import NodeExplanation

NODE_MASK = "common_attributes"
_MODEL_CONFIG = dict(mode="multiclass_classification", task_level="node", return_type="raw")


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float32).numpy()


def _check(model, x, edge_index, node: int, method: str, epochs: int) -> None:
    if method not in METHODS:
        raise InvalidParameterError(f"unknown explanation method {method!r}; choose one of "
                                    f"{', '.join(METHODS)}.")
    if method == "attention" and getattr(model, "kind", "") != "gat":
        raise InvalidParameterError("The attention explanation needs a GAT model: choose GAT "
                                    "and train it, or use GNNExplainer.")
    n = int(x.size(0))
    if not (isinstance(node, (int, np.integer)) and 0 <= node < n):
        raise InvalidParameterError(f"node {node!r} is not in this graph (0–{n - 1}).")
    if not (isinstance(epochs, (int, np.integer)) and 1 <= epochs <= MAX_EPOCHS):
        raise InvalidParameterError(f"GNNExplainer trains 1 to {MAX_EPOCHS} epochs; "
                                    f"got {epochs!r}.")
    if int(edge_index.size(1)) == 0:
        raise InvalidParameterError("This graph has no edges: there is nothing to explain "
                                    "a prediction by.")


class _Recorder(GNNExplainer):
    """GNNExplainer that keeps its loss per epoch (for a live curve and the trace)."""

    def __init__(self, *args, on_epoch=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.losses: list[float] = []
        self.on_epoch = on_epoch

    def _loss(self, y_hat, y):
        loss = super()._loss(y_hat, y)
        self.losses.append(float(loss.detach()))
        if self.on_epoch is not None:
            self.on_epoch(len(self.losses), self.losses[-1])
        return loss


def explain_node(model: torch.nn.Module, x: torch.Tensor, edge_index: torch.Tensor,
                 node: int, method: str = "gnnexplainer", *, labels: torch.Tensor | None = None,
                 epochs: int = DEFAULT_EPOCHS, lr: float = DEFAULT_LR, seed: int = 0,
                 on_epoch=None) -> NodeExplanation:
    """Explain ``model``'s prediction for ``node`` (the predicted class is the target,
    PyG's "model" explanation type). ``on_epoch(epoch, loss)`` is called during
    GNNExplainer's training (raise from it to stop). The model's training mode is
    restored afterwards; its weights are not touched (the masks are separate
    parameters)."""
    _check(model, x, edge_index, node, method, epochs)
    # only the node's receptive field (the edges within k hops, k = the model's layers)
    # can matter: explain on a subgraph big enough that every value over those edges is
    # the whole graph's (GCN's degrees and GAT's attention of the outer edges need k more
    # hops), the same answer at a fraction of the cost on a large graph
    hops = 2 * int(getattr(model, "num_layers", 3))
    subset, sub_ei, center, kept = k_hop_subgraph(int(node), hops, edge_index,
                                                  relabel_nodes=True, num_nodes=x.size(0))
    result = _explain(model, x[subset], sub_ei, int(center[0]), method, epochs, lr,
                      seed, on_epoch)
    edge_mask = np.zeros(edge_index.size(1), np.float32)
    hard = np.zeros(edge_index.size(1), bool)
    where = kept.cpu().numpy()
    edge_mask[where] = result["edge_mask"]
    hard[where] = result["hard"]
    label = -1 if labels is None else int(labels[int(node)])
    return NodeExplanation(
        node=int(node), method=method, predicted=result["predicted"], label=label,
        edge_index=edge_index.detach().cpu().numpy().astype(np.int64),
        edge_mask=edge_mask, explanation_edges=hard, feature_mask=result["feature_mask"],
        fidelity_plus=result["fid"][0], fidelity_minus=result["fid"][1],
        prob_full=result["probs"][0], prob_explanation=result["probs"][1],
        prob_complement=result["probs"][2], loss=result["loss"])


def _explain(model, x, edge_index, node: int, method: str, epochs: int, lr: float,
             seed: int, on_epoch) -> dict:
    """The explanation of ``node`` on a (sub)graph, as arrays over its edges."""
    was_training = model.training
    model.eval()
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            if method == "gnnexplainer":
                algorithm = _Recorder(epochs=int(epochs), lr=lr, on_epoch=on_epoch)
                explainer = Explainer(model, algorithm, explanation_type="model",
                                      node_mask_type=NODE_MASK,
                                      edge_mask_type="object", model_config=_MODEL_CONFIG)
            else:
                algorithm = AttentionExplainer(reduce="mean")
                explainer = Explainer(model, algorithm, explanation_type="model",
                                      edge_mask_type="object", model_config=_MODEL_CONFIG)
            explanation = explainer(x, edge_index, index=int(node))
        edge_mask = explanation.edge_mask.detach()
        feature_mask = explanation.get("node_mask")
        feature_mask = (np.zeros(0, np.float32) if feature_mask is None
                        else _np(feature_mask.detach().reshape(-1, x.size(1))[0]))
        # the hard explanation, thresholded by PyG as its Explainer's threshold_config
        # does (top-k: only among edges of some importance, the receptive field's)
        kind, value = THRESHOLDS[method]
        if kind != "hard":
            value = min(int(value), int((edge_mask > 0).sum()))
        hard_expl = Explanation(x=x, edge_index=edge_index, edge_mask=edge_mask,
                                target=explanation.target, index=int(node))
        hard_expl._model_args = []
        if value:
            hard_expl = hard_expl.threshold(threshold_type=kind, value=value)
        else:                                   # no edge of any importance
            hard_expl.edge_mask = torch.zeros_like(edge_mask)
        hard = hard_expl.edge_mask
        fid_plus, fid_minus = fidelity(explainer, hard_expl)
        with torch.no_grad():
            predicted = int(explanation.target[int(node)])

            def prob(mask):
                out = explainer.get_masked_prediction(x, edge_index, None, mask)
                return float(out.softmax(-1)[int(node), predicted])

            probs = (prob(None), prob(hard), prob(1.0 - hard))
    finally:
        model.train(was_training)
    losses = getattr(algorithm, "losses", [])
    return {"predicted": predicted, "edge_mask": _np(edge_mask),
            "hard": hard.cpu().numpy() > 0, "feature_mask": feature_mask,
            "fid": (float(fid_plus), float(fid_minus)), "probs": probs,
            "loss": np.asarray(losses or [0.0], np.float32)}


def explain_best(model: torch.nn.Module, x: torch.Tensor, edge_index: torch.Tensor,
                 candidates, method: str = "gnnexplainer", *,
                 labels: torch.Tensor | None = None, epochs: int = DEFAULT_EPOCHS,
                 lr: float = DEFAULT_LR, seed: int = 0, on_epoch=None,
                 on_node=None) -> ExplanationPick:
    """Explain every node of ``candidates`` (``explain_node`` with the same settings and
    seed) and keep the one whose explanation says most, by the rule of
    ``ExplanationPick``: the largest fid+ − fid−, ties by the largest drop of the
    predicted class's probability without the explanation, then the smallest node.
    ``on_node(i, node)`` is called before the i-th explanation (raise from it, or from
    ``on_epoch``, to stop)."""
    nodes = sorted({int(v) for v in candidates})
    if not nodes:
        raise InvalidParameterError("There is no node to choose from: no test node is "
                                    "predicted correctly.")
    best, best_score = None, None
    gaps, drops = [], []
    for i, node in enumerate(nodes):
        if on_node is not None:
            on_node(i, node)
        e = explain_node(model, x, edge_index, node, method, labels=labels, epochs=epochs,
                         lr=lr, seed=seed, on_epoch=on_epoch)
        score = (e.fidelity_plus - e.fidelity_minus, e.prob_full - e.prob_complement)
        gaps.append(score[0])
        drops.append(score[1])
        if best_score is None or score > best_score:      # ties: the earlier, smaller node
            best, best_score = e, score
    return ExplanationPick(explanation=best, candidates=tuple(nodes), gaps=tuple(gaps),
                           drops=tuple(drops))
