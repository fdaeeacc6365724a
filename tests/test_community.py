"""Community detection against references nobody here wrote: networkx's modularity and
Louvain (same seed, same partition), an NMI written from its definition, karate's two
factions, and DMoN finding the blocks of a planted partition."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from models.community import (
    categorical_attributes,
    community_result,
    detect_communities,
    modularity,
    nmi,
    renumber_by_size,
)
from models.community.saved import result_from_state, result_state
from models.errors import InvalidParameterError, SessionFileError
from models.graphs import builtin_graph, load_graph

GEPHI = Path(__file__).parent / "data" / "graphs" / "gephi"


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Torch on one thread, as the app runs its jobs (two OpenMP threads on a shared
    two-core machine spin against each other: DMoN ran 15 times slower)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def karate():
    return builtin_graph("karate")


@pytest.fixture(scope="module")
def football():
    return load_graph(str(GEPHI / "football.graphml"))


def brute_force_nmi(a, b) -> float:
    """NMI from its definition, with loops over pairs of labels: I(A;B) divided by the
    mean of H(A) and H(B), natural logarithms."""
    n = len(a)
    pa, pb, pab = Counter(a), Counter(b), Counter(zip(a, b, strict=True))
    h_a = -sum(c / n * math.log(c / n) for c in pa.values())
    h_b = -sum(c / n * math.log(c / n) for c in pb.values())
    mi = 0.0
    for (x, y), c in pab.items():
        mi += c / n * math.log((c / n) / ((pa[x] / n) * (pb[y] / n)))
    if h_a == 0 and h_b == 0:
        return 1.0
    return mi / ((h_a + h_b) / 2)


def as_sets(labels) -> set[frozenset]:
    return {frozenset(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)}


def test_louvain_is_networkx_louvain_with_the_same_seed(karate, football):
    for doc, weight in ((karate, "weight"), (football, None)):
        graph = nx.Graph()
        graph.add_nodes_from(range(doc.num_nodes))
        for e, (u, v) in enumerate(doc.edges.tolist()):
            graph.add_edge(u, v, weight=float(doc.edge_weight[e]) if weight else 1.0)
        for seed in (0, 1, 7):
            ours = detect_communities(doc, "louvain", seed=seed)
            theirs = nx.community.louvain_communities(graph, weight="weight", seed=seed)
            assert as_sets(ours) == {frozenset(c) for c in theirs}
            # labels 0..k-1 by size, largest first
            sizes = np.bincount(ours)
            assert (np.diff(sizes) <= 0).all() and ours.dtype == np.int64


def test_modularity_is_networkx_modularity(karate, football):
    rng = np.random.default_rng(0)
    for doc, weight in ((karate, "weight"), (football, None)):
        graph = doc.graph
        ids = doc.node_ids
        for labels in (detect_communities(doc, "label_propagation", seed=3),
                       rng.integers(0, 5, doc.num_nodes), np.zeros(doc.num_nodes, int)):
            parts = [{ids[i] for i in np.flatnonzero(labels == c)}
                     for c in np.unique(labels)]
            expected = nx.community.modularity(graph, parts, weight=weight)
            assert modularity(doc, labels) == pytest.approx(expected, abs=1e-9)


def test_nmi_is_its_definition(karate):
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = rng.integers(0, rng.integers(1, 6), 40)
        b = rng.integers(0, rng.integers(1, 6), 40)
        assert nmi(a, b) == pytest.approx(brute_force_nmi(a.tolist(), b.tolist()), abs=1e-12)
    club = karate.node_attributes["club"]
    assert nmi(club == "Mr. Hi", club) == pytest.approx(1.0)
    # missing values ("" or NaN) are left out, not a category of their own
    values = np.array(["a", "a", "", "b", "b"], dtype=object)
    assert nmi(np.array([0, 0, 1, 1, 1]), values) == pytest.approx(1.0)
    assert math.isnan(nmi(np.zeros(3, int), np.full(3, np.nan)))


def test_categorical_attributes_are_the_ones_nmi_makes_sense_for(karate, football):
    assert set(categorical_attributes(karate)) == {"community", "club"}
    assert categorical_attributes(football) == ("partition",)
    assert "block" in categorical_attributes(builtin_graph("sbm"))


def test_renumbering_orders_communities_by_size():
    np.testing.assert_array_equal(renumber_by_size(np.array([7, 3, 3, 9, 3, 7])),
                                  [1, 0, 0, 2, 0, 1])


@pytest.mark.parametrize("method", ["louvain", "label_propagation", "spectral", "dmon"])
def test_every_method_finds_karates_two_factions_more_or_less(karate, method):
    options = {"k": 2} if method in ("spectral", "dmon") else {}
    result = community_result(karate, method, seed=0, nmi_attribute="club", **options)
    assert result.labels.shape == (34,) and result.k == int(result.labels.max()) + 1
    assert result.modularity == pytest.approx(modularity(karate, result.labels))
    # two factions split along the club: spectral and DMoN asked for 2 find it nearly
    # exactly; the others find 3-4 communities nested in the two factions
    assert result.nmi > (0.75 if options else 0.45), result.nmi
    again = community_result(karate, method, seed=0, nmi_attribute="club", **options)
    np.testing.assert_array_equal(again.labels, result.labels)      # same seed, same


def test_spectral_chooses_k_by_the_eigengap_on_planted_blocks():
    doc = builtin_graph("sbm", seed=4, sizes=(40, 30, 30, 20), p_in=0.4, p_out=0.01)
    result = community_result(doc, "spectral", seed=0, nmi_attribute="block")
    assert result.k_rule == "eigengap" and result.k == 4
    assert result.nmi > 0.95


def test_dmon_finds_the_planted_partition(football):
    doc = builtin_graph("sbm", seed=1, sizes=(50, 50, 50, 50), p_in=0.25, p_out=0.01)
    result = community_result(doc, "dmon", seed=0, nmi_attribute="block", k=4, epochs=200)
    assert result.nmi > 0.9, result.nmi
    assert result.soft.shape == (200, result.k) and result.soft.dtype == np.float32
    np.testing.assert_allclose(result.soft.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(result.soft.argmax(axis=1), result.labels)
    assert len(result.loss) == 200 and result.loss[-20:].mean() < result.loss[:20].mean()
    assert result.loss_modularity[-1] == pytest.approx(result.modularity, abs=1e-5)
    # on football, with the eigengap's k, close to the file's partition
    found = community_result(football, "dmon", seed=0, nmi_attribute="partition")
    assert found.k_rule == "eigengap" and found.nmi > 0.85


def test_dmon_progress_reports_every_epoch_and_stops_when_asked(karate):
    from models.community import community_job

    job = community_job(karate, "dmon", seed=0, k=3, epochs=500)
    seen = []
    for progress in job:
        seen.append(progress)
        if progress.step == 30:
            break
    job.close()
    assert [p.step for p in seen] == list(range(1, 31))
    assert seen[-1].history.shape == (30,) and seen[-1].trace is None
    assert "modularity" in seen[-1].metrics


def test_refusals_say_what_to_do(karate):
    with pytest.raises(InvalidParameterError, match="choose one of"):
        detect_communities(karate, "girvan_newman")
    with pytest.raises(InvalidParameterError, match="takes no option"):
        detect_communities(karate, "louvain", k=3)
    with pytest.raises(InvalidParameterError, match="0..34"):
        detect_communities(karate, "spectral", k=99)


def test_a_result_survives_a_session_file_and_a_wrong_one_is_refused(karate):
    result = community_result(karate, "dmon", seed=1, nmi_attribute="club", k=3, epochs=20)
    meta, arrays = result_state(result)
    back = result_from_state(meta, arrays, 34, "s.archscope")
    for name in ("labels", "soft", "loss", "loss_modularity"):
        np.testing.assert_array_equal(getattr(back, name), getattr(result, name))
    assert (back.k, back.nmi, back.method) == (result.k, result.nmi, "dmon")
    with pytest.raises(SessionFileError, match="s.archscope: .*int64 labels for the 35"):
        result_from_state(meta, arrays, 35, "s.archscope")
    bad = dict(arrays)
    bad["community.labels"] = np.where(result.labels == 0, result.k + 2, result.labels)
    with pytest.raises(SessionFileError, match="each used"):
        result_from_state(meta, bad, 34, "s.archscope")
    with pytest.raises(SessionFileError, match="names no method"):
        result_from_state({**meta, "method": "magic"}, arrays, 34, "s.archscope")


def _normalised_laplacian_by_networkx(n: int, edges: np.ndarray, weight: np.ndarray):
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for (u, v), w in zip(edges.tolist(), weight.tolist(), strict=True):
        old = graph.edges[u, v]["weight"] if graph.has_edge(u, v) else 0.0
        graph.add_edge(u, v, weight=old + w)          # a repeated edge's weights add up
    return nx.normalized_laplacian_matrix(graph, nodelist=range(n), weight="weight").toarray()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_dense_normalised_adjacency_is_the_sparse_one_and_networkxs(seed):
    """numpy's dense matrix (small graphs: no scipy import) against scipy's sparse one and
    networkx's normalised Laplacian, on a graph with a repeated edge, a self-loop and an
    isolated node."""
    from models.community import classical

    rng = np.random.default_rng(seed)
    n = 40
    edges = rng.integers(0, n - 1, (120, 2))          # node n - 1 stays isolated
    edges[0] = edges[1]                               # a repeated edge
    edges[2] = (5, 5)                                 # a self-loop
    weight = rng.uniform(0.1, 2.0, len(edges))
    dense = classical._dense_normalised_adjacency(n, edges, weight)
    sparse = classical._normalised_adjacency(n, edges, weight).toarray()
    np.testing.assert_allclose(dense, sparse, rtol=1e-13, atol=1e-15)
    # networkx leaves an isolated node's row of L at zero; here its row of A is zero
    linked = slice(0, n - 1)
    np.testing.assert_allclose((np.eye(n) - dense)[linked, linked],
                               _normalised_laplacian_by_networkx(n, edges, weight)[linked, linked],
                               atol=1e-12)
    assert not dense[n - 1].any() and not dense[:, n - 1].any()


@pytest.mark.slow
def test_the_spectrum_of_a_small_graph_needs_no_scipy():
    """The graph tab's first visit draws karate's Laplacian spectrum: in a fresh process
    that leaves scipy unimported, and the eigenvalues are networkx's Laplacian's."""
    import json
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import json, sys
        from models.community.probe import laplacian_spectrum
        from models.graphs import builtin_graph
        spectrum = laplacian_spectrum(builtin_graph("karate"))
        print(json.dumps({"scipy": "scipy" in sys.modules,
                          "eigenvalues": spectrum.eigenvalues.tolist()}))
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent.parent,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["scipy"] is False
    from models.community import classical
    from models.community.partition import undirected_edges

    doc = builtin_graph("karate")
    edges, weight = undirected_edges(doc)
    lam = np.linalg.eigvalsh(_normalised_laplacian_by_networkx(doc.num_nodes, edges, weight))
    np.testing.assert_allclose(got["eigenvalues"], lam[:len(got["eigenvalues"])], atol=1e-12)
    assert len(got["eigenvalues"]) == min(doc.num_nodes, classical.MAX_K + 1)
