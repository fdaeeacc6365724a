"""Graphlet orbit counts (the GraphRNN paper's third statistic) against two references
written elsewhere: ``orca-graphlets`` (a port of ORCA, the program GraphRNN runs) and a
brute force over every node subset that classifies each with networkx's isomorphism
matcher against networkx's own graph atlas."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from models.errors import InvalidParameterError
from models.generation.datasets import community_graph
from models.generation.orbits import (
    ORBITS,
    four_node_sets_bound,
    graph_orbit_vector,
    orbit_counts,
    orbit_mmd,
)

orca = pytest.importorskip("orca", reason="orca-graphlets (the dev extra) is the reference")


def _orca(g: nx.Graph) -> np.ndarray:
    g = nx.convert_node_labels_to_integers(g)
    edges = np.asarray(list(g.edges()), np.int64).reshape(-1, 2)
    return np.asarray(orca.orca_nodes(edges, num_nodes=g.number_of_nodes(), graphlet_size=4))


def _graphs() -> list[nx.Graph]:
    rng = np.random.default_rng(0)
    out = [nx.complete_graph(4), nx.cycle_graph(4), nx.path_graph(4), nx.star_graph(3),
           nx.karate_club_graph(), nx.grid_2d_graph(4, 5), nx.petersen_graph(),
           nx.barabasi_albert_graph(40, 3, seed=1)]
    out += [nx.gnp_random_graph(int(rng.integers(5, 25)), float(rng.uniform(0.1, 0.6)),
                                seed=int(rng.integers(1 << 30))) for _ in range(12)]
    out += [community_graph(np.random.default_rng(s)) for s in range(4)]
    return out


@pytest.mark.parametrize("index", range(24))
def test_orbit_counts_match_orca(index):
    g = _graphs()[index]
    assert np.array_equal(orbit_counts(g), _orca(g))


def _atlas_orbits() -> list[tuple[nx.Graph, dict[int, int]]]:
    """The connected graphlets of 3 and 4 nodes from networkx's atlas, each node given its
    orbit by the degree rule of the module docstring (the rule is checked here only where
    automorphisms agree with it: nodes of equal degree in one graphlet are automorphic)."""
    rules = {  # (nodes, edges, sorted degrees) -> {degree: orbit}
        (3, 2, (1, 1, 2)): {1: 1, 2: 2}, (3, 3, (2, 2, 2)): {2: 3},
        (4, 3, (1, 1, 2, 2)): {1: 4, 2: 5}, (4, 3, (1, 1, 1, 3)): {1: 6, 3: 7},
        (4, 4, (2, 2, 2, 2)): {2: 8}, (4, 4, (1, 2, 2, 3)): {1: 9, 2: 10, 3: 11},
        (4, 5, (2, 2, 3, 3)): {2: 12, 3: 13}, (4, 6, (3, 3, 3, 3)): {3: 14},
    }
    out = []
    for h in nx.graph_atlas_g():
        if h.number_of_nodes() in (3, 4) and nx.is_connected(h):
            degrees = dict(h.degree())
            rule = rules[(h.number_of_nodes(), h.number_of_edges(),
                          tuple(sorted(degrees.values())))]
            for a, b in itertools.combinations(h.nodes(), 2):   # equal degree: automorphic
                if degrees[a] == degrees[b]:
                    assert any(m[a] == b for m in nx.algorithms.isomorphism.GraphMatcher(
                        h, h).isomorphisms_iter())
            out.append((h, {v: rule[d] for v, d in degrees.items()}))
    assert len(out) == 8          # the 2 + 6 connected graphlets of 3 and 4 nodes
    return out


def _brute_force(g: nx.Graph) -> np.ndarray:
    nodes = list(g.nodes())
    index = {v: i for i, v in enumerate(nodes)}
    out = np.zeros((len(nodes), ORBITS), np.int64)
    for v in nodes:
        out[index[v], 0] = g.degree(v)
    atlas = _atlas_orbits()
    for k in (3, 4):
        for subset in itertools.combinations(nodes, k):
            sub = g.subgraph(subset)
            if not nx.is_connected(sub):
                continue
            for h, orbit in atlas:
                matcher = nx.algorithms.isomorphism.GraphMatcher(sub, h)
                if matcher.is_isomorphic():
                    for v, w in matcher.mapping.items():
                        out[index[v], orbit[w]] += 1
                    break
    return out


@pytest.mark.parametrize("index", [0, 1, 2, 3, 6, 8, 9, 20])
def test_orbit_counts_match_a_brute_force_over_every_subset(index):
    g = _graphs()[index]
    assert np.array_equal(orbit_counts(g), _brute_force(g))


def test_known_counts_and_identities():
    # K4: every node is in 1 K4, 3 triangles, and no induced path
    assert orbit_counts(nx.complete_graph(4)).tolist() == [[3, 0, 0, 3] + [0] * 10 + [1]] * 4
    g = nx.karate_club_graph()
    counts = orbit_counts(g)
    degrees = np.asarray([d for _, d in g.degree()])
    triangles = np.asarray([nx.triangles(g, v) for v in g.nodes()])
    assert np.array_equal(counts[:, 0], degrees)
    assert np.array_equal(counts[:, 3], triangles)
    # induced paths centred at v: pairs of neighbours, less those joined (triangles)
    assert np.array_equal(counts[:, 2], degrees * (degrees - 1) // 2 - triangles)
    # the bound on connected 4-node sets is never below their number
    fours = counts[:, 4:].sum() // 4
    assert fours <= four_node_sets_bound(g)


def test_labels_and_self_loops_do_not_change_the_counts():
    g = nx.relabel_nodes(nx.petersen_graph(), {i: f"n{i}" for i in range(10)})
    h = nx.petersen_graph()
    h.add_edge(3, 3)
    assert np.array_equal(orbit_counts(g), orbit_counts(nx.petersen_graph()))
    assert np.array_equal(orbit_counts(h), orbit_counts(nx.petersen_graph()))


def test_orbit_mmd_is_graphrnns_gaussian_on_mean_counts():
    a = [nx.cycle_graph(6), nx.complete_graph(5)]
    b = [nx.path_graph(6)]
    x = [_orca(g).sum(0) / g.number_of_nodes() for g in a]
    y = [_orca(g).sum(0) / g.number_of_nodes() for g in b]

    def k(p, q):
        return np.exp(-np.linalg.norm(p - q) ** 2 / (2 * 30.0 ** 2))

    want = (np.mean([k(p, q) for p in x for q in x]) + np.mean([k(p, q) for p in y for q in y])
            - 2 * np.mean([k(p, q) for p in x for q in y]))
    assert orbit_mmd(a, b) == pytest.approx(want, rel=1e-12)
    assert orbit_mmd(a, a) == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(graph_orbit_vector(nx.cycle_graph(6)), x[0])
    with pytest.raises(InvalidParameterError):
        orbit_mmd([], b)
    with pytest.raises(InvalidParameterError):
        graph_orbit_vector(nx.empty_graph(0))
