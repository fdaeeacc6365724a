"""GNN explanations (PyG's ``torch_geometric.explain``) for the graph tab's node classifier,
checked against what they claim: the subgraph they run on gives the whole graph's
prediction, the fidelities are PyG's definition recomputed here by removing edges and
running the model, and the attention explanation is the mean of the GAT's α computed by
``models.graphs.inspection.gat_attention`` (PyG's GATConv with return_attention_weights)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.utils import k_hop_subgraph

from models.errors import InvalidParameterError
from models.explain import explain_node
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
    assert 1 <= int(hard.sum()) <= 6
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
