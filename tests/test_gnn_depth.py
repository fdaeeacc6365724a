"""Depth and over-smoothing (``models.graphs.depth``): the Dirichlet energy and the mean
pairwise distance against independent computations, GCN without normalisation against
PyG's own ``GCNConv(normalize=False)``, the over-smoothing claim on karate, the study
itself, the tab's two views and the headless export's depth limits."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch
from scipy.spatial.distance import pdist

from models.errors import InvalidParameterError
from models.graphs import GCN, builtin_graph
from models.graphs.depth import (
    depth_profile,
    depth_study,
    dirichlet_energy,
    mean_pairwise_distance,
    untrained_depth_study,
)
from models.graphs.options import GraphRequest, session_kwargs


def _edge_index(g: nx.Graph) -> torch.Tensor:
    e = np.array(g.edges(), np.int64).T
    return torch.from_numpy(np.concatenate([e, e[::-1]], axis=1).copy())


def _energy_numpy(g: nx.Graph, x: np.ndarray) -> float:
    """tr(Xᵀ (I − D̂^-1/2 (A+I) D̂^-1/2) X) from networkx's dense adjacency."""
    n = g.number_of_nodes()
    a_hat = nx.to_numpy_array(g, nodelist=range(n), weight=None) + np.eye(n)
    d = a_hat.sum(1)
    lap = np.eye(n) - a_hat / np.sqrt(np.outer(d, d))
    return float(np.trace(x.T @ lap @ x))


def _energy_edges(g: nx.Graph, x: np.ndarray) -> float:
    """Σ over networkx's (undirected) edges of ‖x_i/√(1+d_i) − x_j/√(1+d_j)‖²."""
    deg = dict(g.degree())
    return float(sum(np.sum((x[i] / np.sqrt(1 + deg[i]) - x[j] / np.sqrt(1 + deg[j])) ** 2)
                     for i, j in g.edges()))


@pytest.mark.parametrize("graph", ["karate", "sbm", "path"])
def test_dirichlet_energy_equals_the_laplacian_quadratic_form(graph):
    g = {"karate": nx.karate_club_graph(),
         "sbm": nx.stochastic_block_model([15, 20, 10], [[0.4, 0.05, 0.02],
                                                         [0.05, 0.3, 0.05],
                                                         [0.02, 0.05, 0.5]], seed=3),
         "path": nx.path_graph(7)}[graph]
    x = np.random.default_rng(0).normal(size=(g.number_of_nodes(), 5))
    got = dirichlet_energy(torch.from_numpy(x), _edge_index(g), g.number_of_nodes())
    for reference in (_energy_numpy(g, x), _energy_edges(g, x)):
        assert got == pytest.approx(reference, rel=1e-6, abs=1e-9)


def test_dirichlet_energy_matches_pygs_gcn_norm_and_vanishes_on_its_fixed_direction():
    from torch_geometric.nn.conv.gcn_conv import gcn_norm

    g = nx.karate_club_graph()
    ei = _edge_index(g)
    x = torch.randn(34, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    # E = ‖X‖² − tr(Xᵀ Â_norm X), Â_norm the very edges and weights GCNConv propagates with
    idx, w = gcn_norm(ei, None, 34, add_self_loops=True, dtype=torch.float64)
    propagated = torch.zeros_like(x).index_add_(0, idx[1], w.unsqueeze(1) * x[idx[0]])
    assert dirichlet_energy(x, ei) == pytest.approx(float((x * x).sum() - (x * propagated)
                                                          .sum()), rel=1e-6)
    # rows proportional to √(1 + d_i): no energy at all; self-loops in edge_index change nothing
    d = torch.tensor([1 + g.degree(i) for i in range(34)], dtype=torch.float64)
    assert dirichlet_energy(d.sqrt().unsqueeze(1) * torch.ones(1, 4), ei) < 1e-20
    loops = torch.cat([ei, torch.arange(34).repeat(2, 1)], 1)
    assert dirichlet_energy(x, loops) == pytest.approx(dirichlet_energy(x, ei), rel=1e-12)


def test_mean_pairwise_distance_equals_scipys_pdist():
    x = torch.randn(40, 6, generator=torch.Generator().manual_seed(2))
    assert mean_pairwise_distance(x) == pytest.approx(pdist(x.double().numpy()).mean(),
                                                      rel=1e-9)
    sub = mean_pairwise_distance(x, seed=5, max_nodes=10)      # 10 nodes drawn, seeded
    assert sub == mean_pairwise_distance(x, seed=5, max_nodes=10) and sub > 0
    assert np.isnan(mean_pairwise_distance(x[:1]))


def test_gcn_without_normalisation_is_pygs_unnormalised_conv_over_a_plus_i():
    from torch_geometric.nn import GCNConv
    from torch_geometric.utils import add_self_loops

    data = builtin_graph("karate", 0).data
    torch.manual_seed(0)
    model = GCN(34, 8, 4, num_layers=2, normalize=False).eval()
    reference = GCNConv(34, 8, normalize=False)
    reference.load_state_dict(model.convs[0].state_dict())
    with_loops, _ = add_self_loops(data.edge_index, num_nodes=34)
    got = model.conv_forward(0, data.x, data.edge_index)
    assert torch.equal(got, reference(data.x, with_loops))
    # the plain sum over A + I: (A + I) X Θ + b
    a = torch.zeros(34, 34)
    a[data.edge_index[1], data.edge_index[0]] = 1.0
    dense = (a + torch.eye(34)) @ data.x @ model.convs[0].lin.weight.T + model.convs[0].bias
    torch.testing.assert_close(got, dense, rtol=1e-5, atol=1e-5)
    # and normalised, GCN's layer is GCNConv's own
    torch.manual_seed(0)
    norm = GCN(34, 8, 4, num_layers=2).eval()
    own = GCNConv(34, 8)
    own.load_state_dict(norm.convs[0].state_dict())
    torch.testing.assert_close(norm.conv_forward(0, data.x, data.edge_index),
                               own(data.x, data.edge_index), rtol=0, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_a_deep_untrained_gcn_over_smooths_on_karate(seed):
    """The over-smoothing claim: normalised, every layer of an 8-layer GCN as initialised
    lowers the energy and the distance, and the last keeps a ten-thousandth of the input's
    energy; unnormalised, the plain sums blow both up instead."""
    data = builtin_graph("karate", 0).data
    torch.manual_seed(seed)
    energy, distance = depth_profile(GCN(34, 32, 4, num_layers=8), data)
    assert len(energy) == 9 and (np.diff(energy) < 0).all(), energy
    assert energy[-1] < 1e-4 * energy[0]
    assert distance[-1] < 0.05 * distance[0]
    torch.manual_seed(seed)
    energy_off, distance_off = depth_profile(GCN(34, 32, 4, num_layers=8, normalize=False),
                                             data)
    assert energy_off[-1] > 1e3 * energy_off[0] and distance_off[-1] > 10 * distance_off[0]


def _karate():
    ask = GraphRequest()
    return builtin_graph("karate", 0).data, session_kwargs(ask)


def test_the_untrained_study_measures_the_run_and_the_baseline():
    data, kw = _karate()
    s = untrained_depth_study(data, "gcn", 5, False, 0, 1, "cpu", **kw)
    assert (s.depth, s.normalize, s.baseline_depth, s.epoch) == (5, False, 2, 0)
    assert s.energy.shape == (6,) and s.baseline_energy.shape == (3,)
    assert s.energy[0] == pytest.approx(s.baseline_energy[0])       # the same input
    assert s.energy[-1] > s.energy[0] and s.baseline_energy[-1] < s.baseline_energy[0]
    assert len(s.depths) == 0


def test_the_study_trains_every_depth_seeded():
    data, kw = _karate()

    def run():
        return [p.trace for p in depth_study(data, "gcn", 6, True, 0, 1, 20, "cpu", **kw)]

    traces = run()
    assert [t.epoch for t in traces[:2]] == [10, 20]       # the run and baseline, live
    last = traces[-1]
    assert last.depths.tolist() == list(range(1, 9))
    assert ((last.depth_test_acc >= 0) & (last.depth_test_acc <= 1)).all()
    assert last.depth_test_acc[5] == pytest.approx(last.test_acc)   # depth 6 is the run
    assert last.depth_test_acc[1] == pytest.approx(last.baseline_test_acc)
    again = run()[-1]
    np.testing.assert_array_equal(again.depth_test_acc, last.depth_test_acc)
    np.testing.assert_array_equal(again.energy, last.energy)


def test_depth_nine_is_refused_naming_the_range():
    with pytest.raises(InvalidParameterError, match="depth must be between 1 and 8, not 9"):
        GraphRequest(depth=9)
    with pytest.raises(InvalidParameterError, match="gcn_norm"):
        GraphRequest(gcn_norm="perhaps")


def test_the_tours_claim_deep_gcns_end_below_the_two_layer_one_on_karate():
    """Tour step 14 (its settings: the tab's defaults, seed 0, 200 epochs): the 6- to
    8-layer GCNs end far below the 2-layer one, and trained, the run's energy rises again
    layer after layer."""
    data, kw = _karate()
    last = list(depth_study(data, "gcn", 8, True, 0, 1, 200, "cpu", **kw))[-1].trace
    acc = dict(zip(last.depths.tolist(), last.depth_test_acc.tolist(), strict=True))
    assert all(acc[d] < acc[2] - 0.2 for d in (6, 7, 8)), acc
    assert (np.diff(last.energy[1:]) > 0).all(), last.energy


def test_the_study_refuses_a_graph_without_labels_before_training():
    from torch_geometric.data import Data

    data = Data(x=torch.eye(4), edge_index=torch.tensor([[0, 1, 1, 2, 2, 3],
                                                         [1, 0, 2, 1, 3, 2]]),
                y=torch.full((4,), -1))
    kw = session_kwargs(GraphRequest())
    s = untrained_depth_study(data, "gcn", 3, True, 0, 1, "cpu", **kw)   # measured anyway
    assert s.energy.shape == (4,) and np.isnan(s.test_acc)
    with pytest.raises(InvalidParameterError, match="no labelled node"):
        next(depth_study(data, "gcn", 3, True, 0, 1, 20, "cpu", **kw))


@pytest.mark.parametrize("kind", ["gcn", "sage", "gat"])
def test_seeded_reset_is_pygs_init_from_a_generator_of_its_own(kind):
    """The study's models start from the same numbers whatever the global generator holds
    (the tab's other threads draw from it), with PyG's initialisers' bounds."""
    import math

    from models.graphs import build_model
    from models.graphs.depth import seeded_reset

    models = []
    for global_seed in (1, 2):
        torch.manual_seed(global_seed)
        m = build_model(kind, 34, 4, hidden_dim=8, num_layers=3, heads=2)
        seeded_reset(m, 7)
        models.append(m)
    for (name, a), b in zip(models[0].named_parameters(), models[1].parameters(),
                            strict=True):
        assert torch.equal(a, b), name
    for name, p in models[0].named_parameters():
        if name.endswith("bias") and kind != "sage":
            assert not p.any(), name                     # GCNConv / GATConv: zeros
        elif p.dim() >= 2 and (kind != "sage"):           # glorot
            bound = math.sqrt(6.0 / (p.size(-2) + p.size(-1)))
            assert p.abs().max() <= bound and p.abs().max() > 0.5 * bound, name
        else:                                             # SAGE's Linear: ±1/√fan_in
            fan = models[0].convs[int(name.split(".")[1])].lin_l.in_channels
            assert 0 < p.abs().max() <= 1 / math.sqrt(fan), name


def test_the_untrained_study_ignores_another_threads_draws():
    import threading

    data, kw = _karate()
    quiet = untrained_depth_study(data, "gat", 8, True, 3, 1, "cpu", **kw)
    stop = threading.Event()

    def draw():
        while not stop.is_set():
            torch.rand(64)

    thread = threading.Thread(target=draw)
    thread.start()
    try:
        busy = [untrained_depth_study(data, "gat", 8, True, 3, 1, "cpu", **kw)
                for _ in range(3)]
    finally:
        stop.set()
        thread.join()
    for s in busy:
        np.testing.assert_array_equal(s.energy, quiet.energy)
        np.testing.assert_array_equal(s.baseline_distance, quiet.baseline_distance)
