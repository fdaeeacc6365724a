"""GNN explanations (PyG's ``torch_geometric.explain``) for the graph tab's node classifier,
checked against what they claim: the subgraph they run on gives the whole graph's
prediction, the fidelities are PyG's definition recomputed here by removing edges and
running the model, and PyG's own ``Explainer`` with ``threshold_config`` hard 0.5 and
its ``fidelity`` give the same hard explanation and fidelities; the attention
explanation is the mean of the GAT's α computed by
``models.graphs.inspection.gat_attention`` (PyG's GATConv with return_attention_weights);
``explain_best`` keeps the most faithful explanation of the nodes it is given."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.utils import k_hop_subgraph

from models.errors import InvalidParameterError
from models.explain import explain_best, explain_node
from models.graphs import builtin_graph
from models.graphs.builtins import karate_club
from models.graphs.inspection import gat_attention
from models.graphs.sessions import NodeClassificationSession


def _trained(kind: str, epochs: int = 60):
    data = karate_club()
    session = NodeClassificationSession(data, kind=kind, seed=0, train_per_class=2)
    for _ in session.train(epochs, report_every=epochs):
        pass
    session.model.eval()
    return session, data


@pytest.fixture(scope="module")
def gcn():
    return _trained("gcn")


@pytest.fixture(scope="module")
def gat():
    return _trained("gat")


def _predict(model, x, edge_index) -> torch.Tensor:
    with torch.no_grad():
        return model(x, edge_index).argmax(-1)


@pytest.mark.parametrize("node", [0, 11, 33])
@pytest.mark.slow
def test_gnnexplainer_masks_fidelity_and_prediction(gcn, node):
    session, data = gcn
    x, ei, model = data.x, data.edge_index, session.model
    before = {k: v.clone() for k, v in model.state_dict().items()}
    seen = []
    e = explain_node(model, x, ei, node, epochs=80, labels=data.y,
                     on_epoch=lambda epoch, loss: seen.append((epoch, loss)))
    # the weights are untouched; the loss was reported every epoch
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert [s[0] for s in seen] == list(range(1, 81)) and len(e.loss) == 80
    # masks: edges in [0, 1], zero outside the 2-layer receptive field; one feature mask
    assert e.edge_mask.shape == (ei.size(1),) and e.edge_mask.min() >= 0
    assert e.edge_mask.max() <= 1
    _, _, _, field = k_hop_subgraph(node, 2, ei, num_nodes=x.size(0))
    assert not e.edge_mask[~field.numpy()].any()
    assert e.feature_mask.shape == (x.size(1),)
    # the prediction explained is the whole graph's
    full = _predict(model, x, ei)
    assert e.predicted == int(full[node]) and e.label == int(data.y[node])
    # fidelity by its definition: drop the explanation's edges / keep only them
    hard = torch.from_numpy(e.explanation_edges.copy())
    np.testing.assert_array_equal(e.explanation_edges, e.edge_mask > 0.5)
    without = int(_masked_prediction(model, x, ei, ~hard)[node])
    only = int(_masked_prediction(model, x, ei, hard)[node])
    assert e.fidelity_plus == float(without != e.predicted)
    assert e.fidelity_minus == float(only != e.predicted)
    assert 0 <= e.prob_explanation <= 1 and 0 <= e.prob_complement <= 1


def _masked_prediction(model, x, ei, keep: torch.Tensor) -> torch.Tensor:
    """The model with the masked-out edges' messages multiplied by 0 (PyG's explain
    convention: self-loops and normalisation stay as on the whole graph)."""
    from torch_geometric.explain.algorithm.utils import clear_masks, set_masks
    set_masks(model, keep.float(), ei, apply_sigmoid=False)
    try:
        return _predict(model, x, ei)
    finally:
        clear_masks(model)


def test_attention_explanation_is_the_mean_gat_alpha(gat):
    session, data = gat
    node = 5
    e = explain_node(session.model, data.x, data.edge_index, node, method="attention")
    n_edges = data.edge_index.size(1)
    alphas = [gat_attention(session.model, data, layer) for layer in range(2)]
    for a in alphas:        # the input edges come first, then one self-loop per node
        assert np.array_equal(a.edge_index[:, :n_edges], data.edge_index.numpy())
    expected = np.mean([a.values[:n_edges].mean(axis=1) for a in alphas], axis=0)
    field = e.edge_mask > 0
    assert field.sum() > 5
    np.testing.assert_allclose(e.edge_mask[field], expected[field], atol=1e-5)
    assert e.feature_mask.size == 0 and e.method == "attention"


def test_bad_requests_get_clear_messages(gcn):
    session, data = gcn
    x, ei = data.x, data.edge_index
    with pytest.raises(InvalidParameterError, match="GAT"):
        explain_node(session.model, x, ei, 0, method="attention")
    with pytest.raises(InvalidParameterError, match="not in this graph"):
        explain_node(session.model, x, ei, 34)
    with pytest.raises(InvalidParameterError, match="unknown explanation method"):
        explain_node(session.model, x, ei, 0, method="lime")
    with pytest.raises(InvalidParameterError, match="no edges"):
        explain_node(session.model, x, ei[:, :0], 0)
    with pytest.raises(InvalidParameterError, match="epochs"):
        explain_node(session.model, x, ei, 0, epochs=0)


@pytest.fixture(scope="module")
def tab_gcn():
    """The graph tab's defaults on karate: GCN without edge weights, 32 hidden units,
    one labelled node per class, seed 0, 200 epochs."""
    data = builtin_graph("karate", seed=0).data
    session = NodeClassificationSession(data, kind="gcn", seed=0, train_per_class=1,
                                        hidden_dim=32, lr=0.01, edge_weights=False)
    for _ in session.train(200, report_every=200):
        pass
    session.model.eval()
    trace = session.evaluate()
    correct = np.flatnonzero(trace.test_mask.astype(bool) &
                             (trace.predictions == data.y.numpy()))
    return session, data, correct


@pytest.mark.slow
def test_hard_explanation_and_fidelity_are_pygs_with_threshold_hard_half(tab_gcn):
    """PyG's own Explainer, with threshold_config hard 0.5, on the whole graph (for nodes
    whose explained subgraph is the whole graph, the same edges in the same order, so the
    same seeded mask), and PyG's fidelity on its hard edge mask: the explanation's edges
    and both fidelities are ours."""
    from torch_geometric.explain import Explainer, Explanation, GNNExplainer
    from torch_geometric.explain.metric import fidelity

    session, data, correct = tab_gcn
    model, x, ei = session.model, data.x, data.edge_index
    whole = [int(v) for v in correct
             if k_hop_subgraph(int(v), 4, ei, num_nodes=x.size(0))[0].numel() == x.size(0)]
    assert len(whole) >= 10
    seen = set()
    for node in whole[:6]:
        ours = explain_node(model, x, ei, node, epochs=200, seed=0)
        torch.manual_seed(0)
        explainer = Explainer(model, GNNExplainer(epochs=200, lr=0.01),
                              explanation_type="model", node_mask_type="common_attributes",
                              edge_mask_type="object",
                              model_config=dict(mode="multiclass_classification",
                                                task_level="node", return_type="raw"),
                              threshold_config=dict(threshold_type="hard", value=0.5))
        theirs = explainer(x, ei, index=node)
        np.testing.assert_array_equal(ours.explanation_edges, theirs.edge_mask.numpy() > 0)
        # the fidelity of the edges (the feature mask is shown, not cut)
        edges_only = Explanation(x=x, edge_index=ei, edge_mask=theirs.edge_mask,
                                 target=theirs.target, index=node)
        edges_only._model_args = []
        assert (ours.fidelity_plus, ours.fidelity_minus) == fidelity(explainer, edges_only)
        seen.add((ours.fidelity_plus, ours.fidelity_minus))
    assert (1.0, 0.0) in seen          # a hard explanation the prediction needs


@pytest.mark.slow
def test_explain_best_keeps_the_largest_fidelity_gap_then_probability_drop(tab_gcn):
    """The rule, checked on explanations made one by one: the kept node has the largest
    fid+ − fid−, and the largest drop of the predicted class's probability among the
    nodes with that gap; the explanation kept is the node's own."""
    session, data, correct = tab_gcn
    model, x, ei = session.model, data.x, data.edge_index
    nodes = [int(v) for v in correct[::2]]
    seen = []
    pick = explain_best(model, x, ei, nodes[::-1], labels=data.y, epochs=100, seed=0,
                        on_node=lambda i, v: seen.append((i, v)))
    assert seen == list(enumerate(sorted(nodes))) and pick.candidates == tuple(sorted(nodes))
    each = {v: explain_node(model, x, ei, v, labels=data.y, epochs=100, seed=0) for v in nodes}
    gap = {v: e.fidelity_plus - e.fidelity_minus for v, e in each.items()}
    drop = {v: e.prob_full - e.prob_complement for v, e in each.items()}
    assert len(set(gap.values())) > 1            # the rule has a choice to make
    best = max(gap.values())
    assert gap[pick.node] == best
    assert drop[pick.node] == max(d for v, d in drop.items() if gap[v] == best)
    assert pick.best_count == sum(g == best for g in gap.values())
    assert pick.gaps == tuple(gap[v] for v in pick.candidates)
    kept = pick.explanation
    np.testing.assert_array_equal(kept.edge_mask, each[pick.node].edge_mask)
    assert kept.label == int(data.y[pick.node]) == kept.predicted
    with pytest.raises(InvalidParameterError, match="no node to choose from"):
        explain_best(model, x, ei, [])
