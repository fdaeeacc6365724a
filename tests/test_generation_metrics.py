"""Graph generation, torch-free parts: the GraphRNN paper's MMD against a reference written
here (histograms recomputed with networkx, the earth mover's distance from scipy), the
seeded graph families, the baselines, and a folder of the student's own graphs."""

from __future__ import annotations

import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from models import generation
from models.errors import GraphLoadError, InvalidParameterError
from models.generation.datasets import community_graph
from models.generation.metrics import clustering_mmd, degree_mmd


def _reference_mmd(a, b, hist, sigma, scale):
    """GraphRNN's MMD² written out: normalised histograms, EMD from scipy (ground distance
    |i − j| / scale), Gaussian kernel, biased estimate over all pairs."""
    def k(x, y):
        support = np.arange(max(len(x), len(y)), dtype=float) / scale
        px = np.zeros(len(support))
        py = np.zeros(len(support))
        px[:len(x)], py[:len(y)] = x / x.sum(), y / y.sum()
        d = wasserstein_distance(support, support, px, py)
        return np.exp(-d * d / (2 * sigma * sigma))
    ha, hb = [hist(g) for g in a], [hist(g) for g in b]

    def mean(p, q):
        return np.mean([k(x, y) for x in p for y in q])
    return mean(ha, ha) + mean(hb, hb) - 2 * mean(ha, hb)


def _nx_degree(g):
    return np.asarray(nx.degree_histogram(g), float)


def _nx_clustering(g):
    return np.histogram(list(nx.clustering(g).values()), bins=100, range=(0, 1))[0].astype(float)


def test_mmd_matches_a_reference_written_with_networkx_and_scipy():
    a = generation.make_dataset("community", 12, seed=1)
    b = generation.make_dataset("ego", 10, seed=2)
    assert degree_mmd(a, b) == pytest.approx(
        _reference_mmd(a, b, _nx_degree, sigma=1.0, scale=1.0), abs=1e-9)
    assert clustering_mmd(a, b) == pytest.approx(
        _reference_mmd(a, b, _nx_clustering, sigma=0.1, scale=100.0), abs=1e-9)
    assert degree_mmd(a, b) > 0.01 and clustering_mmd(a, b) > 0.01


def test_mmd_is_zero_for_identical_sets_and_grows_with_a_perturbation():
    graphs = generation.make_dataset("community", 30, seed=3)
    copies = [g.copy() for g in graphs]
    assert degree_mmd(graphs, copies) == pytest.approx(0.0, abs=1e-12)
    assert clustering_mmd(graphs, copies) == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(0)
    deg, clu = [], []
    for extra in (2, 8, 24):            # random edges added to every graph
        noisy = []
        for g in graphs:
            h = g.copy()
            n = h.number_of_nodes()
            while h.number_of_edges() < g.number_of_edges() + extra:
                u, v = rng.integers(n, size=2)
                if u != v:
                    h.add_edge(int(u), int(v))
            noisy.append(h)
        deg.append(degree_mmd(graphs, noisy))
        clu.append(clustering_mmd(graphs, noisy))
    assert 0 < deg[0] < deg[1] < deg[2], deg
    assert 0 < clu[0] < clu[1] < clu[2], clu


def test_gaussian_tv_kernel_is_also_zero_on_identical_sets():
    graphs = generation.make_dataset("grid", 6, seed=0)
    assert generation.mmd([_nx_degree(g) for g in graphs], [_nx_degree(g) for g in graphs],
                          kernel="tv") == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(InvalidParameterError, match="kernel"):
        generation.mmd([np.ones(2)], [np.ones(2)], kernel="gauss")


def test_families_are_seeded_and_have_their_shape():
    a = generation.make_dataset("community", 40, seed=5)
    b = generation.make_dataset("community", 40, seed=5)
    assert [sorted(g.edges()) for g in a] == [sorted(g.edges()) for g in b]
    assert [sorted(g.edges()) for g in a] != [
        sorted(g.edges()) for g in generation.make_dataset("community", 40, seed=6)]
    assert all(12 <= g.number_of_nodes() <= 20 for g in a)
    # two communities (nodes 0-9 and 10-19 here) with p = 0.3 inside, one edge across
    rng = np.random.default_rng(0)
    inside, across = [], []
    for _ in range(300):
        g = community_graph(rng, sizes=(10, 10))
        cross = sum((u < 10) != (v < 10) for u, v in g.edges())
        across.append(cross)
        inside.append((g.number_of_edges() - cross) / 90)
    assert set(across) == {1}                       # round(0.05 · 20)
    assert np.mean(inside) == pytest.approx(0.3, abs=0.01)
    grids = generation.make_dataset("grid", 10, seed=0)
    assert all(16 <= g.number_of_nodes() <= 36 and nx.is_connected(g)
               and max(d for _, d in g.degree()) <= 4 for g in grids)
    egos = generation.make_dataset("ego", 20, seed=0)
    assert all(4 <= g.number_of_nodes() <= 18 for g in egos)
    # an ego network: one node linked to every other
    assert all(max(d for _, d in g.degree()) == g.number_of_nodes() - 1 for g in egos)
    with pytest.raises(InvalidParameterError, match="community, grid, ego"):
        generation.make_dataset("lollipop", 3)


@pytest.mark.parametrize("method", ["er", "ba", "sbm"])
def test_baselines_sample_valid_graphs_reproducibly(method):
    train = generation.make_dataset("community", 30, seed=0)
    model = generation.train_generator(train, seed=0, method=method)
    one, again = model.sample(6, seed=4), model.sample(6, seed=4)
    assert [sorted(g.edges()) for g in one] == [sorted(g.edges()) for g in again]
    sizes = {g.number_of_nodes() for g in train}
    for g in one:
        assert isinstance(g, nx.Graph) and not g.is_directed()
        assert sorted(g.nodes()) == list(range(g.number_of_nodes()))
        assert nx.number_of_selfloops(g) == 0
        assert g.number_of_nodes() in sizes
    assert [sorted(g.edges()) for g in model.sample(6, seed=5)] != [
        sorted(g.edges()) for g in one]


def test_erdos_renyi_fits_the_training_density():
    train = generation.make_dataset("grid", 20, seed=0)
    er = generation.train_generator(train, method="er")
    pairs = sum(g.number_of_nodes() * (g.number_of_nodes() - 1) / 2 for g in train)
    assert er.p == pytest.approx(sum(g.number_of_edges() for g in train) / pairs)
    samples = er.sample(400, seed=0)
    density = sum(g.number_of_edges() for g in samples) / sum(
        g.number_of_nodes() * (g.number_of_nodes() - 1) / 2 for g in samples)
    assert density == pytest.approx(er.p, rel=0.1)


def test_training_graphs_are_checked():
    with pytest.raises(InvalidParameterError, match="at least one"):
        generation.train_generator([], method="er")
    with pytest.raises(InvalidParameterError, match="1 node"):
        generation.train_generator([nx.path_graph(3), nx.empty_graph(1)], method="er")
    with pytest.raises(InvalidParameterError, match="Unknown generator"):
        generation.train_generator([nx.path_graph(3)], method="gan")


def _write(folder, graphs):
    folder.mkdir()
    for i, g in enumerate(graphs):
        nx.write_graphml(g, folder / f"g{i:02d}.graphml")
    return folder


def test_folder_loading_reads_each_file_and_passes_over_other_kinds(tmp_path):
    graphs = generation.make_dataset("community", 3, seed=0)
    folder = _write(tmp_path / "mine", graphs)
    (folder / "README.md").write_text("my graphs")
    (folder / "tiny.csv").write_text("a,b\nb,c\nc,a\n")
    loaded = generation.load_graph_folder(folder)
    assert [g.graph["name"] for g in loaded] == ["g00.graphml", "g01.graphml", "g02.graphml",
                                                 "tiny.csv"]
    for g, h in zip(graphs, loaded[:3], strict=True):
        assert nx.is_isomorphic(g, h)
    assert loaded[3].number_of_edges() == 3


def test_folder_loading_refuses_bad_files_with_a_message(tmp_path):
    folder = _write(tmp_path / "bad", generation.make_dataset("community", 2, seed=0))
    (folder / "broken.graphml").write_text("<graphml><graph><node id='a'/>")
    with pytest.raises(GraphLoadError, match=r"broken\.graphml.*not well-formed"):
        generation.load_graph_folder(folder)
    big = _write(tmp_path / "big", [nx.path_graph(30)])
    with pytest.raises(GraphLoadError, match=r"g00\.graphml: 30 nodes.*up to 10 nodes"):
        generation.load_graph_folder(big, max_nodes=10)
    many = _write(tmp_path / "many", [nx.path_graph(3)] * 4)
    with pytest.raises(GraphLoadError, match="4 graph files.*at most 3"):
        generation.load_graph_folder(many, max_graphs=3)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt.bak").write_text("x")
    with pytest.raises(GraphLoadError, match="no graph files"):
        generation.load_graph_folder(empty)
    with pytest.raises(GraphLoadError, match="not a folder"):
        generation.load_graph_folder(folder / "g00.graphml")
    single = tmp_path / "single"
    single.mkdir()
    (single / "one.gml").write_text("graph [ node [ id 0 ] ]")
    with pytest.raises(GraphLoadError, match="one.gml: 1 node;"):
        generation.load_graph_folder(single)


def test_the_face_and_options_load_without_torch():
    code = ("import sys, models.generation, models.generation.options, "
            "models.traces.generation\n"
            "from models.generation import METHODS, DATASETS\n"
            "assert not [m for m in ('torch', 'torch_geometric') if m in sys.modules]\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
