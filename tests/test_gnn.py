"""GNNs (models/graphs/: layers, inspection, sessions) against references nobody here
wrote: PyG's own layers and functions, dense matrix algebra done by hand, brute-force
counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.utils import softmax as pyg_softmax
from torch_geometric.utils import to_dense_adj

from models import graphs as gnn
from models.errors import DeviceUnavailableError, InvalidParameterError, TrainingDivergedError
from models.graphs.inspection import _AlignedPCA


@pytest.fixture(scope="module")
def karate():
    return gnn.karate_club()


def _undirected(pairs, n=None) -> torch.Tensor:
    e = torch.as_tensor(pairs, dtype=torch.long).T
    return torch.cat([e, e.flip(0)], 1)


def _trained(kind, karate, epochs=30, **kw):
    s = gnn.NodeClassificationSession(karate, kind, seed=1, **kw)
    for _ in s.train(epochs, report_every=epochs):
        pass
    return s


# -- models --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", gnn.MODEL_KINDS)
@pytest.mark.parametrize("layers", [1, 2, 3])
def test_model_shapes(kind, layers, karate):
    m = gnn.build_model(kind, 34, 4, hidden_dim=8, num_layers=layers, heads=3).eval()
    out, hidden = m(karate.x, karate.edge_index, return_hidden=True)
    assert out.shape == (34, 4) and len(hidden) == layers == len(m.convs)
    assert torch.equal(hidden[-1], out)
    width = 8 * 3 if kind == "gat" else 8
    assert all(h.shape == (34, width) for h in hidden[:-1])
    assert m(karate.x, karate.edge_index).shape == (34, 4)


def test_model_classes_and_errors():
    assert isinstance(gnn.build_model("gcn", 5, 2), gnn.GCN)
    sage = gnn.build_model("sage", 5, 2, aggr="max")
    assert isinstance(sage, gnn.GraphSAGE) and sage.convs[0].aggr == "max"
    gat = gnn.GAT(5, out_dim=2, heads=4)
    assert gat.convs[0].heads == 4 and gat.convs[-1].heads == 1 and not gat.convs[-1].concat
    with pytest.raises(InvalidParameterError):
        gnn.build_model("gin", 5, 2)
    with pytest.raises(InvalidParameterError):
        gnn.GCN(5)                     # no out_dim
    with pytest.raises(InvalidParameterError):
        gnn.GraphSAGE(5, out_dim=2, aggr="median")
    assert "GCNConv" in repr(gnn.GCN(5, out_dim=2))


def test_gcn_uses_edge_weight():
    ei = _undirected([(0, 1), (1, 2)])
    x = torch.randn(3, 4)
    m = gnn.GCN(4, 4, 2).eval()
    a = m(x, ei)
    b = m(x, ei, torch.tensor([1.0, 5.0, 1.0, 5.0]))
    assert not torch.allclose(a, b)


def test_gcn_norm_cache_follows_the_graph_it_is_given(karate):
    """GCN keeps gcn_norm per graph tensor: its outputs equal PyG's own GCNConv (which
    normalises on every call) through edge sets swapped, edited in place, reweighted,
    with a learned mask, after a deepcopy and on a graph of another size."""
    import copy
    import pickle

    from torch_geometric.nn import GCNConv

    torch.manual_seed(0)
    model = gnn.GCN(karate.num_features, 8, 3).eval()
    plain = [GCNConv(c.in_channels, c.out_channels) for c in model.convs]
    for p, c in zip(plain, model.convs, strict=True):
        p.load_state_dict(c.state_dict())

    def reference(x, ei, ew=None):
        h = F.relu(plain[0](x, ei, ew))
        return plain[1](h, ei, ew)

    x, ei = karate.x, karate.edge_index.clone()
    for _ in range(2):                                  # the second call reuses the norm
        torch.testing.assert_close(model(x, ei), reference(x, ei))
    sub = ei[:, ::2].clone()                            # the explainer's other edge set
    torch.testing.assert_close(model(x, sub), reference(x, sub))
    torch.testing.assert_close(model(x, ei), reference(x, ei))
    ei[:, :10] = ei[:, 10:20].clone()                   # edited in place
    torch.testing.assert_close(model(x, ei), reference(x, ei))
    ew = torch.rand(ei.shape[1]) + 0.5
    torch.testing.assert_close(model(x, ei, ew), reference(x, ei, ew))
    ew.mul_(3)                                          # reweighted in place
    torch.testing.assert_close(model(x, ei, ew), reference(x, ei, ew))
    mask = torch.rand(ei.shape[1], requires_grad=True)  # a learned edge mask: gradients flow
    for _ in range(2):                                  # a kept norm would fail the second
        model(x, ei, mask).sum().backward()
    assert mask.grad is not None and mask.grad.abs().sum() > 0
    small = (x[:20], ei[:, (ei < 20).all(0)])           # fewer nodes, a fresh tensor
    torch.testing.assert_close(model(*small), reference(*small))
    twin = copy.deepcopy(model)
    assert twin._norm is not model._norm and twin._norm._value is None
    torch.testing.assert_close(twin(x, ei), reference(x, ei))
    model.to("cpu")                                     # a move drops what was kept
    assert model._norm._value is None
    assert pickle.loads(pickle.dumps(model))._norm._value is None
    assert all(c._cached_edge_index is None for c in model.convs)   # the slot is left empty


def test_gcn_normalises_a_graph_once_while_it_comes_back(karate, monkeypatch):
    """Both layers and every later forward on the same tensors share one gcn_norm."""
    from models.graphs import layers

    calls: list[int] = []
    own = layers.gcn_norm
    monkeypatch.setattr(layers, "gcn_norm", lambda *a, **k: calls.append(1) or own(*a, **k))
    model = gnn.GCN(karate.num_features, 8, 3, num_layers=3)
    for _ in range(3):
        model(karate.x, karate.edge_index)
    assert len(calls) == 1
    model(karate.x, karate.edge_index.clone())          # another tensor: normalised anew
    assert len(calls) == 2


def test_gcn_fast_path_is_gcnconv_to_the_bit(karate):
    """GCN runs its convolutions without PyG's Python (``layers._gcn_propagate``) when
    ``GCNConv`` would do nothing else: outputs and every gradient equal PyG's conv to the
    bit, with and without edge weights; a hook, an explanation or a subclass send the call
    back through the conv itself."""
    from torch_geometric.nn import GCNConv

    from models.graphs import layers

    torch.manual_seed(0)
    model = gnn.GCN(karate.num_features, 8, 3).train()
    plain = [GCNConv(c.in_channels, c.out_channels) for c in model.convs]
    for p, c in zip(plain, model.convs, strict=True):
        p.load_state_dict(c.state_dict())
    x, ei = karate.x.clone().requires_grad_(), karate.edge_index
    for ew in (None, torch.rand(ei.shape[1]) + 0.5):
        h_ours = model.conv_forward(0, x, ei, ew)
        h_pyg = plain[0](x, ei, ew)
        assert torch.equal(h_ours, h_pyg)
        out_ours = model.conv_forward(1, F.relu(h_ours), ei, ew)
        out_pyg = plain[1](F.relu(h_pyg), ei, ew)
        assert torch.equal(out_ours, out_pyg)
        g = torch.randn_like(out_ours)
        ours = torch.autograd.grad(out_ours, [x, *model.parameters()], g)
        pyg = torch.autograd.grad(out_pyg, [x, *(q for p in plain for q in p.parameters())], g)
        assert all(torch.equal(a, b) for a, b in zip(ours, pyg, strict=True))

    calls = []
    own = GCNConv.forward

    def counted(self, *a, **k):
        calls.append(1)
        return own(self, *a, **k)

    GCNConv.forward = counted
    model.eval()                                       # (no dropout: outputs comparable)
    try:
        model(x, ei)                                   # the fast path: no conv call
        assert calls == []
        seen = []
        handle = model.convs[0].register_forward_hook(lambda m, i, o: seen.append(o))
        out = model(x, ei)                             # a hook: through the conv, seen
        assert len(calls) == 1 and len(seen) == 1
        handle.remove()
        assert torch.equal(out, model(x, ei)) and len(calls) == 1
        model.convs[1].explain = True                  # an explanation: PyG's propagate
        model.convs[1]._edge_mask = torch.ones(ei.shape[1] + 34)
        model.convs[1]._apply_sigmoid = False
        assert torch.equal(model(x, ei), out) and len(calls) == 2
        model.convs[1].explain = False                 # over: the fast path again
        model(x, ei)
        assert len(calls) == 2
        assert all(c._cached_edge_index is None for c in model.convs)
    finally:
        GCNConv.forward = own
    assert not layers._plain_gcn_call(type("Sub", (GCNConv,), {})(3, 3), x, ei)


# -- message passing made visible ----------------------------------------------------------------
def test_gcn_coefficients_equal_dense_normalisation():
    pairs = [(0, 1), (0, 2), (1, 2), (2, 3), (3, 4)]
    ei = _undirected(pairs)
    w = torch.tensor([1.0, 2.0, 0.5, 1.5, 3.0] * 2)
    for weight in (None, w):
        ev = gnn.gcn_coefficients(ei, 5, weight)
        assert ev.self_loops_added == 5 and ev.values.shape == (ei.shape[1] + 5,)
        # by hand: Â = A + I, D̂ = row sums, D̂^{-1/2} Â D̂^{-1/2}
        a = np.zeros((5, 5))
        for (s, t), v in zip(ei.T.tolist(), (weight if weight is not None
                                              else torch.ones(ei.shape[1])).tolist(), strict=True):
            a[t, s] += v
        a += np.eye(5)
        d = a.sum(1)
        dense = a / np.sqrt(d[:, None] * d[None, :])
        got = np.zeros((5, 5))
        got[ev.edge_index[1], ev.edge_index[0]] = ev.values
        np.testing.assert_allclose(got, dense, rtol=1e-6, atol=1e-7)
    assert not ev.values.flags.writeable


def test_gat_attention_sums_to_one_and_matches_gatconv(karate):
    s = _trained("gat", karate, epochs=20)
    m = s.model.eval()
    with torch.no_grad():
        h1 = F.elu(m.convs[0](karate.x, karate.edge_index))
        _, (ref_ei, ref_alpha) = m.convs[1](h1, karate.edge_index,
                                            return_attention_weights=True)
    for layer, heads in ((0, 4), (1, 1)):
        ev = gnn.gat_attention(m, karate, layer)
        e = ev.edge_index.shape[1]
        assert ev.values.shape == (e, heads) and ev.self_loops_added == 34
        assert e == karate.edge_index.shape[1] + 34
        sums = np.zeros((34, heads))
        np.add.at(sums, ev.edge_index[1], ev.values)
        np.testing.assert_allclose(sums, 1.0, atol=1e-5)
        # independent: α = softmax_j LeakyReLU(a_src·W h_j + a_dst·W h_i) over N(i) ∪ {i}
        conv = m.convs[layer]
        h = karate.x if layer == 0 else h1
        with torch.no_grad():
            wh = conv.lin(h).view(-1, conv.heads, conv.out_channels)
            src = (wh * conv.att_src).sum(-1)
            dst = (wh * conv.att_dst).sum(-1)
            ei = torch.from_numpy(ev.edge_index.copy())
            raw = F.leaky_relu(src[ei[0]] + dst[ei[1]], conv.negative_slope)
            alpha = pyg_softmax(raw, ei[1], num_nodes=34)
        np.testing.assert_allclose(ev.values, alpha.numpy(), atol=1e-6)
    np.testing.assert_array_equal(ev.edge_index, ref_ei.numpy())
    np.testing.assert_allclose(ev.values, ref_alpha.numpy(), atol=1e-6)
    with pytest.raises(InvalidParameterError):
        gnn.gat_attention(gnn.GCN(34, out_dim=4), karate, 0)


@pytest.mark.parametrize("kind,kw", [("gcn", {}), ("sage", {"aggr": "mean"}),
                                     ("sage", {"aggr": "max"}), ("gat", {})])
def test_message_passing_update_equals_layer_output(kind, kw, karate):
    s = _trained(kind, karate, epochs=15, **kw)
    m = s.model.eval()
    with torch.no_grad():           # the real layers, called directly
        out0 = m.conv_forward(0, karate.x, karate.edge_index)
        out1 = m.conv_forward(1, m.act(out0), karate.edge_index)
    for layer, ref in ((0, out0), (1, out1)):
        for node in (0, 11, 33):
            t = gnn.message_passing(m, karate, node, layer)
            np.testing.assert_allclose(t.update, ref[node].numpy(), atol=1e-5)
            np.testing.assert_allclose(t.layer_output, ref[node].numpy(), atol=1e-5)
            assert t.max_abs_difference < 1e-5
            deg = int((karate.edge_index[1] == node).sum())
            assert len(t.neighbors) == deg + (kind != "sage")
            assert t.is_self_loop.sum() == (kind != "sage")
            assert t.hops[node] == 0 and t.hops.max() <= 2
            assert set(t.neighbors[~t.is_self_loop]) == set(np.flatnonzero(t.hops == 1))
            assert t.aggregation == t.model_aggregation
    # the receptive field of a 2-layer model is the 2-hop neighbourhood
    from torch_geometric.utils import k_hop_subgraph
    subset = k_hop_subgraph(0, 2, karate.edge_index, num_nodes=34)[0].numpy()
    hops = gnn.message_passing(m, karate, 0, 0).hops
    np.testing.assert_array_equal(np.flatnonzero(hops >= 0), np.sort(subset))


def test_message_passing_other_aggregations(karate):
    m = _trained("gcn", karate, epochs=10).model
    t = gnn.message_passing(m, karate, 0, 0, aggregation="max")
    assert t.aggregation == "max" and t.model_aggregation == "sum" and "would" in t.note
    np.testing.assert_allclose(t.aggregate, t.messages.max(0), atol=1e-6)
    np.testing.assert_allclose(t.update, t.aggregate + t.bias, atol=1e-6)
    t = gnn.message_passing(m, karate, 0, 0, aggregation="mean")
    np.testing.assert_allclose(t.aggregate, t.messages.mean(0), atol=1e-6)
    assert gnn.message_passing(m, karate, 0, 0, aggregation="sum").max_abs_difference < 1e-5
    with pytest.raises(InvalidParameterError):
        gnn.message_passing(m, karate, 0, 2)
    with pytest.raises(InvalidParameterError):
        gnn.message_passing(m, karate, 99, 0)


def test_sage_sample_respects_sizes_and_seed(karate):
    ei = karate.edge_index
    real = set(map(tuple, ei.T.tolist()))
    t = gnn.sage_sample(ei, 34, 0, [3, 2], seed=5)
    assert t.nodes[0] == 0 and t.hop[0] == 0 and t.nodes_per_hop[0] == 1
    for h, size in ((1, 3), (2, 2)):
        sel = t.edge_hop == h
        targets = t.edges[1, sel]
        assert np.bincount(targets).max() <= size
        frontier = t.nodes[t.node_hop == h - 1]
        assert set(targets) <= set(frontier)
        assert t.nodes_per_hop[h] == (t.node_hop == h).sum()
        # a frontier node with at least `size` neighbours keeps exactly `size`, no repeats
        for i in frontier:
            mine = t.edges[0, sel & (t.edges[1] == i)]
            assert len(mine) == min(size, int((ei[1] == i).sum())) == len(set(mine))
    assert all(tuple(e) in real for e in t.edges.T.tolist())
    np.testing.assert_array_equal(t.hop[t.nodes], t.node_hop)
    again = gnn.sage_sample(ei, 34, 0, [3, 2], seed=5)
    np.testing.assert_array_equal(again.edges, t.edges)
    others = [gnn.sage_sample(ei, 34, 0, [3, 2], seed=s).edges for s in range(6, 10)]
    assert any(o.shape != t.edges.shape or (o != t.edges).any() for o in others)
    full = gnn.sage_sample(ei, 34, 0, [-1], seed=0)
    assert sorted(full.edges[0]) == sorted(ei[0, ei[1] == 0].tolist())


# -- node classification -------------------------------------------------------------------------
def test_split_nodes():
    y = torch.tensor([0, 0, 0, 1, 1, 1, -1, 2, 2, -1])
    tr, va, te = gnn.split_nodes(y, 3, train_per_class=1, val_fraction=0.5, seed=3)
    assert tr.sum() == 3 and sorted(y[tr].tolist()) == [0, 1, 2]
    assert not (tr & va).any() and not (tr & te).any() and not (va & te).any()
    assert not (tr | va | te)[y < 0].any() and (tr | va | te)[y >= 0].all()
    again = gnn.split_nodes(y, 3, 1, 0.5, seed=3)
    assert all(torch.equal(a, b) for a, b in zip((tr, va, te), again, strict=True))


def test_karate_gcn_reaches_paper_accuracy(karate):
    accs = []
    for seed in range(5):
        s = gnn.NodeClassificationSession(karate, "gcn", seed=seed)
        assert int(s.train_mask.sum()) == 4
        *_, p = s.train(200, report_every=200)
        accs.append(p.trace.test_acc)
    assert np.median(accs) >= 0.6, accs


def test_node_session_progress_and_trace(karate):
    s = gnn.NodeClassificationSession(karate, "sage", seed=0)
    progs = list(s.train(7, report_every=3))
    assert [p.step for p in progs] == list(range(1, 8))
    assert [p.trace is not None for p in progs] == [False, False, True, False, False, True, True]
    last = progs[-1]
    assert math.isnan(progs[0].metrics["test_acc"])          # nothing evaluated yet
    assert progs[3].metrics["test_acc"] == progs[2].trace.test_acc
    assert {"loss", "train_acc", "val_acc", "test_acc", "epochs_per_s"} <= set(last.metrics)
    t = last.trace
    assert t.epoch == 7 and t.predictions.shape == (34,) and t.predictions.dtype == np.int64
    assert t.probabilities.shape == (34, 4) and t.embedding.shape == (34, 2)
    np.testing.assert_allclose(t.probabilities.sum(1), 1, atol=1e-5)
    assert t.train_mask.dtype == bool and not t.embedding.flags.writeable
    assert len(last.history) == 7
    before = [p.clone() for p in s.model.parameters()]
    e = s.evaluate()
    assert all(torch.equal(a, b) for a, b in zip(before, s.model.parameters(), strict=True))
    np.testing.assert_array_equal(e.predictions, t.predictions)
    # the embedding axes stay aligned: one more evaluation barely moves the picture
    np.testing.assert_allclose(s.evaluate().embedding, e.embedding, atol=1e-4)



def _plain_cached_gcn_loop(data, session, epochs: int, seed: int, every: int):
    """PyG's examples/gcn.py (two ``GCNConv`` with ``cached=True``, dropout 0.5, ReLU,
    Adam lr 0.01, weight decay 5e-4) on the session's data and split, seeded as the
    session seeds: the initial weights from ``seed``, each epoch's dropout masks from a
    generator seeded with ``seed``. Returns the losses of every epoch, and every
    ``every`` epochs the eval-mode (epoch, logits, hidden layer, accuracies)."""
    from torch_geometric.nn import GCNConv

    d, mask = session.data, session.train_mask
    ew = getattr(d, "edge_weight", None)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = GCNConv(d.num_features, 16, cached=True)
            self.conv2 = GCNConv(16, session.num_classes, cached=True)

        def forward(self, x, edge_index, edge_weight):
            x = F.dropout(x, p=0.5, training=self.training)
            h = self.conv1(x, edge_index, edge_weight)
            x = F.dropout(F.relu(h), p=0.5, training=self.training)
            return self.conv2(x, edge_index, edge_weight), h

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = Net()
        # the sessions' Adam runs torch's foreach loop: the same update, to the bit
        opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=5e-4, foreach=True)
        gen = torch.Generator().manual_seed(seed)
        losses, evals = [], []
        for epoch in range(1, epochs + 1):
            net.train()
            torch.manual_seed(int(torch.randint(0, 2 ** 31 - 1, (1,), generator=gen)))
            opt.zero_grad()
            loss = F.cross_entropy(net(d.x, d.edge_index, ew)[0][mask], d.y[mask])
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            if epoch % every == 0:
                net.eval()
                with torch.no_grad():
                    logits, h = net(d.x, d.edge_index, ew)
                pred = logits.softmax(-1).argmax(-1)
                accs = [float((pred[m] == d.y[m]).sum()) / int(m.sum())
                        for m in (session.train_mask, session.val_mask, session.test_mask)]
                evals.append((epoch, logits, F.relu(h), accs))
    return losses, evals


@pytest.mark.parametrize("graph", ["karate", "weighted sbm"])
def test_gcn_session_curves_are_the_cached_pyg_loop_to_the_bit(graph, karate):
    """The session as the graph tab runs it (a trace every 5 epochs) trains exactly PyG's
    cached GCN loop seeded alike: the same loss every epoch, the same probabilities,
    accuracies and embedding on every trace. Whatever the session does to be cheaper
    (its own normalisation cache, its RNG handling, its evaluations) must not change a
    bit of what it learns."""
    if graph == "karate":
        data, per_class = karate, 1
    else:
        data = gnn.builtin_graph("sbm", seed=0, sizes=(60,) * 3, p_in=0.2, p_out=0.02).data
        g = torch.Generator().manual_seed(1)
        data.x = F.one_hot(data.y, 8).float() + 2 * torch.randn(data.num_nodes, 8, generator=g)
        src, dst = data.edge_index
        # symmetric positive weights, one per undirected edge
        data.edge_weight = 0.5 + ((src * 7919 + dst * 7919) % 97).float() / 97
        per_class = 5
    epochs, every, seed = 30, 5, 3
    s = gnn.NodeClassificationSession(data, "gcn", seed=seed, train_per_class=per_class)
    assert (getattr(s.data, "edge_weight", None) is not None) == (graph != "karate")
    progs = list(s.train(epochs, report_every=every))
    losses, evals = _plain_cached_gcn_loop(data, s, epochs, seed, every)
    assert [p.loss for p in progs] == losses
    traces = [p.trace for p in progs if p.trace is not None]
    assert [t.epoch for t in traces] == [e[0] for e in evals]
    pca = _AlignedPCA()
    for t, (_, logits, emb, accs) in zip(traces, evals, strict=True):
        np.testing.assert_array_equal(t.probabilities, logits.softmax(-1).numpy())
        assert [t.train_acc, t.val_acc, t.test_acc] == accs
        np.testing.assert_array_equal(t.embedding, pca(emb.numpy())[0])
def test_aligned_pca_keeps_orientation():
    rng = np.random.default_rng(0)
    h = rng.normal(size=(50, 6)) * np.array([5, 3, 1, 1, 1, 1])
    pca = _AlignedPCA()
    a, var = pca(h)
    assert var[0] >= var[1] > 0
    b, _ = pca(-h)                      # a flipped hidden space: same picture
    np.testing.assert_allclose(a, b, atol=1e-4)
    rot = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    c, _ = pca(h @ rot)                 # a rotated hidden space: same picture
    np.testing.assert_allclose(a, c, atol=1e-4)


def test_divergence_restores_last_good_weights(karate):
    # weights are "good" once they gave a finite loss and gradients (as in FlowSession);
    # every 10 good epochs they become the rollback point: after 15 clean epochs that is
    # the state after epoch 10
    s = gnn.NodeClassificationSession(karate, "gcn", seed=0)
    states = [{k: v.clone() for k, v in s.model.state_dict().items()}]
    for _ in s.train(15):
        states.append({k: v.clone() for k, v in s.model.state_dict().items()})
    s.data.x[3, 3] = float("nan")
    assert torch.isfinite(karate.x).all()        # the session works on its own copy
    with pytest.raises(TrainingDivergedError, match="NaN") as info:
        for _ in s.train(5):
            pass
    assert "epoch 16" in str(info.value) and "epoch 10 were restored" in str(info.value)
    assert s.epoch == s.good_epoch == 10 and len(s.losses) == 10
    assert all(torch.equal(states[10][k], v) for k, v in s.model.state_dict().items())
    # a rollback point every epoch: back exactly one step (epoch 5's weights are not yet
    # tested, so the state after epoch 4 comes back)
    s = gnn.NodeClassificationSession(karate, "gcn", seed=0)
    s.snapshot_every = 1
    states = []
    for _ in s.train(5):
        states.append({k: v.clone() for k, v in s.model.state_dict().items()})
    s.data.x[3, 3] = float("nan")
    with pytest.raises(TrainingDivergedError, match="NaN") as info:
        for _ in s.train(5):
            pass
    assert "epoch 6" in str(info.value) and "epoch 4 were restored" in str(info.value)
    assert s.epoch == 4 and len(s.losses) == 4
    assert all(torch.equal(states[3][k], v) for k, v in s.model.state_dict().items())
    huge = gnn.NodeClassificationSession(karate, "gcn", seed=0, lr=1e30, weight_decay=0)
    with pytest.raises(TrainingDivergedError, match="learning rate"):
        for _ in huge.train(50):
            pass
    assert all(torch.isfinite(p).all() for p in huge.model.parameters())


def test_graph_classification_rolls_back_to_a_good_epoch():
    # several optimizer steps per epoch; the weights after a whole good epoch are the
    # rollback point (every epoch here), and a bad mini-batch mid-epoch brings them back
    gs = gnn.motif_graphs(40, seed=0)
    s = gnn.GraphClassificationSession(gs, seed=0, batch_size=8)
    s.snapshot_every = 1
    states = [{k: v.clone() for k, v in s.model.state_dict().items()}]
    for _ in s.train(3):
        states.append({k: v.clone() for k, v in s.model.state_dict().items()})
    assert s.good_epoch == 3
    s._train_graphs[-1].x[0, 0] = float("nan")
    with pytest.raises(TrainingDivergedError, match="loss became nan") as info:
        for _ in s.train(2):
            pass
    assert "epoch 4" in str(info.value) and "epoch 3 were restored" in str(info.value)
    assert s.epoch == 3 and len(s.losses) == 3
    assert all(torch.equal(states[3][k], v) for k, v in s.model.state_dict().items())


def test_link_prediction_rollback_keeps_the_best_epoch_within_reach(karate):
    # 5 good epochs, no rollback point since the first: the best-validation weights (of
    # epochs 1 to 5) are undone with them, so the session reports its restored weights
    s = gnn.LinkPredictionSession(karate, seed=0)
    for _ in s.train(5):
        pass
    assert s.good_epoch == 0 and s.best_epoch >= 1
    s.x[0, 0] = float("nan")
    with pytest.raises(TrainingDivergedError, match="epoch 6"):
        for _ in s.train(3):
            pass
    assert s.epoch == s.best_epoch == 0 and s.best_state is None
    assert s.evaluate().epoch == 0 and s._message() == "Link predictor: untrained weights."
    # a rollback point every epoch: the best epoch is never past the restored one
    s = gnn.LinkPredictionSession(karate, seed=0)
    s.snapshot_every = 1
    for _ in s.train(3):
        pass
    s.x[0, 0] = float("nan")
    with pytest.raises(TrainingDivergedError, match="epoch 2 were restored"):
        for _ in s.train(3):
            pass
    assert s.epoch == 2 and 1 <= s.best_epoch <= 2 and s.evaluate().epoch == s.best_epoch
    assert "of 2 epochs" in s._message()


def test_nearest_train_baseline_on_a_path():
    # path 0-1-2-3-4-5-6 and an isolated node 7
    ei = _undirected([(i, i + 1) for i in range(6)])
    y = torch.tensor([2, 0, 0, 0, 1, 1, 1, 0])
    data = Data(x=torch.ones(8, 1), edge_index=ei, y=y, num_nodes=8)
    train = torch.zeros(8, dtype=torch.bool)
    train[[0, 6]] = True                     # labels 2 and 1
    pred = gnn.nearest_train_baseline(data, train)
    # 1, 2 nearest 0; 4, 5 nearest 6; 3 tied (3 hops each, one vote each) → lowest label 1;
    # 7 unreachable → majority training label (tie 1 vs 2 → 1)
    np.testing.assert_array_equal(pred, [2, 2, 2, 1, 1, 1, 1, 1])
    train[5] = True                          # 5 (label 1) is now 2 hops from 3
    pred = gnn.nearest_train_baseline(data, train)
    np.testing.assert_array_equal(pred, [2, 2, 2, 1, 1, 1, 1, 1])
    train[:] = False
    train[[1, 5, 6]] = True                  # 3 is 2 hops from 1 (label 0) and 5 (label 1)
    pred = gnn.nearest_train_baseline(data, train)
    assert pred[3] == 0 and pred[7] == 1     # lowest label on a tie; majority is 1


def test_compare_models_has_baseline(karate):
    res = gnn.compare_models(karate, kinds=("gcn",), epochs=20, seeds=[0, 1])
    assert set(res) == {"gcn", "baseline"} and res["baseline"].shape == (2,)
    assert ((res["baseline"] >= 0) & (res["baseline"] <= 1)).all()


# -- graphs in batches ---------------------------------------------------------------------------
def test_batch_trace_is_block_diagonal():
    graphs = gnn.motif_graphs(10, seed=1)
    idx = [3, 0, 7]
    t = gnn.batch_trace(graphs, idx)
    sizes = [graphs[i].num_nodes for i in idx]
    np.testing.assert_array_equal(t.ptr, np.r_[0, np.cumsum(sizes)])
    np.testing.assert_array_equal(t.num_nodes, sizes)
    np.testing.assert_array_equal(t.batch, np.repeat(np.arange(3), sizes))
    np.testing.assert_array_equal(t.labels, [graphs[i].y.item() for i in idx])
    n = sum(sizes)
    assert t.adjacency.shape == (n, n) and t.edge_index.shape[1] == sum(
        graphs[i].num_edges for i in idx)
    blocks = np.zeros((n, n), np.float32)
    for k, i in enumerate(idx):
        a, b = t.ptr[k], t.ptr[k + 1]
        blocks[a:b, a:b] = to_dense_adj(graphs[i].edge_index, max_num_nodes=sizes[k])[0]
    np.testing.assert_array_equal(t.adjacency, blocks)


def test_motif_graphs():
    gs = gnn.motif_graphs(20, seed=0)
    assert [g.y.item() for g in gs[:4]] == [0, 1, 0, 1]
    assert all(20 <= g.num_nodes <= 30 and g.x.shape == (g.num_nodes, 9) for g in gs)
    assert all(g.is_undirected() for g in gs)
    again = gnn.motif_graphs(20, seed=0)
    assert all(torch.equal(a.edge_index, b.edge_index) for a, b in zip(gs, again, strict=True))


def test_graph_classification_trains_above_chance():
    gs = gnn.motif_graphs(120, seed=0)
    s = gnn.GraphClassificationSession(gs, pooling="mean", seed=0)
    *_, p = s.train(25, report_every=25)
    t = p.trace
    assert t.test_acc > 0.8 and t.train_acc > 0.8
    assert t.embedding.shape == (120, 2) and t.probabilities.shape == (120, 2)
    assert t.train_mask.sum() + t.test_mask.sum() == 120 and not (t.train_mask & t.test_mask).any()
    assert {"train_acc", "test_acc", "epochs_per_s"} <= set(p.metrics)


# -- link prediction -----------------------------------------------------------------------------
def test_roc_auc_equals_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(5):
        scores = rng.integers(0, 6, 40) / 5.0          # many ties
        labels = rng.integers(0, 2, 40)
        pos, neg = scores[labels == 1], scores[labels == 0]
        brute = ((pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum()
                 ) / (len(pos) * len(neg))
        assert gnn.roc_auc(scores, labels) == pytest.approx(brute, abs=1e-12)
        roc = gnn.roc_curve(scores, labels)
        assert tuple(roc[0]) == (0, 0) and tuple(roc[-1]) == (1, 1)
        assert np.trapezoid(roc[:, 1], roc[:, 0]) == pytest.approx(brute, abs=1e-6)
    assert gnn.roc_auc([0.1, 0.9], [0, 1]) == 1.0
    assert math.isnan(gnn.roc_auc([0.1, 0.9], [1, 1]))


def test_link_prediction_session(karate):
    s = gnn.LinkPredictionSession(karate, seed=0, top_k=10)
    train = set(map(tuple, s.train_edge_index.T.tolist()))
    held = np.concatenate([s.val_pos.numpy(), s.test_pos.numpy()])
    assert not any((a, b) in train or (b, a) in train for a, b in held)
    assert len(s.train_pos) + len(held) == karate.num_edges // 2
    *_, p = s.train(60, report_every=60)
    t = p.trace
    assert t.test_auc > 0.5 and 0 <= t.val_auc <= 1
    assert t.test_pairs.shape == (len(t.test_labels), 2) and t.test_labels.sum() == len(s.test_pos)
    assert t.top_pairs.shape == (10, 2) and (t.top_pairs[:, 0] < t.top_pairs[:, 1]).all()
    edges = set(map(tuple, karate.edge_index.T.tolist()))
    assert not any(tuple(pr) in edges for pr in t.top_pairs.tolist())
    assert (np.diff(t.top_scores) <= 0).all()
    assert t.roc.shape[1] == 2 and t.test_auc == pytest.approx(gnn.roc_auc(t.test_scores,
                                                                           t.test_labels))



def test_link_prediction_karate_generalises(karate):
    """The regularised, early-stopped set-up beats chance clearly on karate: median test AUC
    over 3 seeds ≥ 0.7 after 200 epochs, with ≥ 10 test edges (not 8 or 7), and the
    structural features (not the identity) as input."""
    aucs = []
    for seed in range(3):
        s = gnn.LinkPredictionSession(karate, seed=seed, top_k=10)
        assert s.features == "structural" and s.x.shape == (34, 9)
        assert len(s.test_pos) >= 10 and len(s.val_pos) >= 10
        *_, p = s.train(200, report_every=200)
        aucs.append(p.trace.test_auc)
    assert np.median(aucs) >= 0.7, aucs


def test_link_prediction_keeps_best_validation_weights(karate):
    s = gnn.LinkPredictionSession(karate, seed=1)
    seen = []
    for p in s.train(40):
        seen.append(s._val_auc())          # the current weights' validation AUC
        assert "best validation AUC" in p.message
    best = max(seen)
    t = s.evaluate()
    assert t.val_auc == best == s.best_val_auc
    assert t.epoch == s.best_epoch == seen.index(best) + 1 and s.epoch == 40
    assert p.trace.val_auc == best and p.metrics["best_epoch"] == s.best_epoch
    # the kept weights are the model's weights at that epoch, not the last ones
    s.model.load_state_dict(s.best_state)
    assert s._val_auc() == best
    # patience stops training once no epoch improved the validation AUC for that long
    s = gnn.LinkPredictionSession(karate, seed=1, patience=5)
    steps = [p.step for p in s.train(200)]
    assert steps[-1] == s.epoch == s.best_epoch + 5 < 200


def test_link_prediction_options(karate):
    s = gnn.LinkPredictionSession(karate, seed=0, features="x")
    assert torch.equal(s.x, karate.x)
    s = gnn.LinkPredictionSession(karate, seed=0, features="both", num_spectral=4)
    assert s.x.shape == (34, 34 + 5)
    # structural features come from the training graph only: held-out edges do not count
    deg = torch.bincount(s.train_edge_index[0], minlength=34).double()
    assert torch.allclose(s.x[:, 34].double(), torch.log1p(deg) / torch.log1p(deg).max(),
                          atol=1e-6)
    with pytest.raises(InvalidParameterError):
        gnn.LinkPredictionSession(karate, features="spectral")
    # a graph too small for 10 + 10 held-out edges keeps the fractions
    ring = Data(x=torch.eye(12), edge_index=_undirected([(i, (i + 1) % 12) for i in range(12)]))
    s = gnn.LinkPredictionSession(ring, seed=0)
    assert (len(s.val_pos), len(s.test_pos)) == (1, 1)


# -- devices -------------------------------------------------------------------------------------
@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_unavailable_device_is_a_clear_error(karate):
    with pytest.raises(DeviceUnavailableError, match="cuda"):
        gnn.NodeClassificationSession(karate, "gcn", device="cuda")
    with pytest.raises(DeviceUnavailableError):
        gnn.LinkPredictionSession(karate, device="cuda")
    s = gnn.NodeClassificationSession(karate, "gcn")
    with pytest.raises(DeviceUnavailableError):
        s.to("cuda:0")
    from models.devices import device_for

    assert device_for("cpu") == torch.device("cpu")
