"""The built-in graphs, made in code (nothing downloaded): karate club, Les Misérables,
Florentine families, Davis southern women, a stochastic block model, BA-Shapes, a grid
and a random geometric graph, each with a label attribute; and American college
football, read from the GraphML file ArchScope ships (``resources/graphs``)."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
import torch
from torch_geometric.data import Data

from models.errors import InvalidParameterError
from models.graphs.document import GraphDocument, _build, _RawGraph
from models.graphs.options import BUILTIN_GRAPHS


def builtin_graph(key: str, seed: int = 0, **params) -> GraphDocument:
    """One of :data:`BUILTIN_GRAPHS`, built in code (nothing downloaded).

    Parameters by key: ``sbm``: ``sizes`` (4 x 25), ``p_in`` (0.3), ``p_out`` (0.02);
    ``ba_house``: ``base_nodes`` (60), ``houses`` (10), ``m`` (2); ``grid``: ``rows``,
    ``cols`` (10); ``geometric``: ``n`` (150), ``radius`` (0.15). Random graphs are
    reproducible for a given ``seed``.
    """
    builders = {
        "karate": _karate, "les_miserables": _les_miserables, "florentine": _florentine,
        "davis": _davis, "sbm": _sbm, "ba_house": _ba_house, "grid": _grid,
        "geometric": _geometric, "football": _football,
    }
    if key not in builders:
        raise InvalidParameterError(f"Unknown built-in graph {key!r}; choose one of "
                                    f"{', '.join(BUILTIN_GRAPHS)}.")
    try:
        raw, label = builders[key](seed, **params)
    except TypeError as e:
        raise InvalidParameterError(f"Built-in graph {key!r}: {e}.") from e
    raw.name = BUILTIN_GRAPHS[key]
    doc = _build(raw, source="built-in", label_attr=label)
    return doc


def karate_club() -> Data:
    """Zachary's karate club as PyG ships it (in-code data, nothing downloaded): 34 nodes,
    identity features, 4 communities as labels.

    The ``karate`` built-in's ``x`` and ``y`` with its edges in PyG's order (by source, then
    target) and without its edge weights: the GCN paper's unweighted graph, which the GNN
    tests and benchmarks compare with.
    """
    data = builtin_graph("karate").data
    ei = data.edge_index
    order = torch.argsort(ei[0] * data.num_nodes + ei[1])
    return Data(x=data.x.float(), edge_index=ei[:, order], y=data.y.long())


def _raw_from_nx(graph: nx.Graph, name: str) -> _RawGraph:
    raw = _RawGraph(name, graph.is_directed())
    for node, attrs in graph.nodes(data=True):
        i = raw.node(node)
        for k, v in attrs.items():
            if k == "pos":
                raw.pos[i] = (float(v[0]), float(v[1]))
            elif isinstance(v, (bool, int, float, str)):
                raw.set_node(i, k, v)
    for u, v, attrs in graph.edges(data=True):
        raw.add_edge(u, v, {k: a for k, a in attrs.items() if isinstance(a, (int, float, str))})
    return raw


def _community(raw: _RawGraph, graph: nx.Graph, seed: int) -> None:
    parts = nx.community.louvain_communities(graph, weight="weight", seed=seed)
    parts = sorted(parts, key=lambda p: (-len(p), min(raw.index[str(x)] for x in p)))
    for c, members in enumerate(parts):
        for node in members:
            raw.set_node(raw.index[str(node)], "community", c)
    raw.warnings.append(f"Labels ('community') are Louvain communities found by networkx "
                        f"(weighted, seed={seed}); they are not part of the data set.")


def _karate(seed: int) -> tuple[_RawGraph, str]:
    from torch_geometric.datasets import KarateClub

    data = KarateClub()[0]
    club = nx.karate_club_graph()
    raw = _RawGraph("karate")
    for i in range(data.num_nodes):
        raw.node(i)
        raw.set_node(i, "community", int(data.y[i]))
        raw.set_node(i, "club", club.nodes[i]["club"])
    for u, v in data.edge_index.T.tolist():
        if u < v:
            raw.add_edge(u, v, {"weight": float(club.edges[u, v].get("weight", 1))})
    raw.warnings.append("Labels ('community'): the 4 communities of PyG's KarateClub; "
                        "'club' is the split after the conflict (2 classes).")
    return raw, "community"


def _les_miserables(seed: int) -> tuple[_RawGraph, str]:
    graph = nx.les_miserables_graph()
    raw = _raw_from_nx(graph, "les_miserables")
    _community(raw, graph, seed)
    return raw, "community"


def _florentine(seed: int) -> tuple[_RawGraph, str]:
    graph = nx.florentine_families_graph()
    raw = _raw_from_nx(graph, "florentine")
    _community(raw, graph, seed)
    return raw, "community"


def _davis(seed: int) -> tuple[_RawGraph, str]:
    graph = nx.davis_southern_women_graph()
    raw = _raw_from_nx(graph, "davis")
    for i, node in enumerate(graph.nodes):
        raw.set_node(i, "bipartite", "woman" if graph.nodes[node]["bipartite"] == 0
                     else "event")
    raw.warnings.append("Labels ('bipartite'): the side of the bipartite graph "
                        "(woman or event).")
    return raw, "bipartite"


def _sbm(seed: int, sizes: Sequence[int] = (25, 25, 25, 25), p_in: float = 0.3,
         p_out: float = 0.02) -> tuple[_RawGraph, str]:
    sizes = [int(s) for s in sizes]
    if not sizes or min(sizes) < 1 or sum(sizes) > 5000:
        raise InvalidParameterError("SBM block sizes must be positive, 5000 nodes at most.")
    if not (0 <= p_out <= 1 and 0 <= p_in <= 1):
        raise InvalidParameterError("SBM probabilities must lie in [0, 1].")
    probs = [[p_in if a == b else p_out for b in range(len(sizes))] for a in range(len(sizes))]
    graph = nx.stochastic_block_model(sizes, probs, seed=seed)
    raw = _RawGraph("sbm")
    for node in graph.nodes:
        i = raw.node(node)
        raw.set_node(i, "block", int(graph.nodes[node]["block"]))
    for u, v in graph.edges:
        raw.add_edge(u, v)
    return raw, "block"


_HOUSE_ROLES = {0: 1, 1: 2, 2: 2, 3: 3, 4: 3}  # top, middle, middle, bottom, bottom
_HOUSE_EDGES = ((0, 1), (0, 2), (1, 2), (1, 3), (2, 4), (3, 4))


def _ba_house(seed: int, base_nodes: int = 60, houses: int = 10,
              m: int = 2) -> tuple[_RawGraph, str]:
    if not (m + 1 <= base_nodes <= 5000 and 0 <= houses <= 1000 and m >= 1):
        raise InvalidParameterError("ba_house needs 1 <= m < base_nodes <= 5000 and "
                                    "0 <= houses <= 1000.")
    rng = np.random.default_rng(seed)
    base = nx.barabasi_albert_graph(base_nodes, m, seed=seed)
    raw = _RawGraph("ba_house")
    for node in range(base_nodes):
        raw.set_node(raw.node(node), "role", 0)
    for u, v in base.edges:
        raw.add_edge(u, v)
    for h in range(houses):
        first = base_nodes + 5 * h
        for k in range(5):
            raw.set_node(raw.node(first + k), "role", _HOUSE_ROLES[k])
        for a, b in _HOUSE_EDGES:
            raw.add_edge(first + a, first + b)
        raw.add_edge(first + 3, int(rng.integers(base_nodes)))
    raw.warnings.append("Labels ('role'): 0 base graph, 1 house top, 2 house middle, "
                        "3 house bottom, as in GNNExplainer's BA-Shapes.")
    return raw, "role"


def _grid(seed: int, rows: int = 10, cols: int = 10) -> tuple[_RawGraph, str]:
    if not (1 <= rows <= 300 and 1 <= cols <= 300):
        raise InvalidParameterError("grid rows and cols must lie in 1..300.")
    raw = _RawGraph("grid")
    for r in range(rows):
        for c in range(cols):
            i = raw.node(f"{r},{c}")
            raw.pos[i] = (float(c), float(-r))
            quadrant = (2 if r >= rows / 2 else 0) + (1 if c >= cols / 2 else 0)
            raw.set_node(i, "quadrant", quadrant)
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                raw.add_edge(f"{r},{c}", f"{r},{c + 1}")
            if r + 1 < rows:
                raw.add_edge(f"{r},{c}", f"{r + 1},{c}")
    return raw, "quadrant"


def _geometric(seed: int, n: int = 150, radius: float = 0.15) -> tuple[_RawGraph, str]:
    if not (1 <= n <= 5000 and 0 < radius <= 1.5):
        raise InvalidParameterError("geometric needs 1 <= n <= 5000 and 0 < radius <= 1.5.")
    graph = nx.random_geometric_graph(n, radius, seed=seed)
    raw = _RawGraph("geometric")
    for node in graph.nodes:
        i = raw.node(node)
        x, y = graph.nodes[node]["pos"]
        raw.pos[i] = (float(x), float(y))
        raw.set_node(i, "region", min(int(x * 4), 3))
    for u, v in graph.edges:
        raw.add_edge(u, v)
    raw.warnings.append("Labels ('region'): which quarter of the unit square's width the "
                        "node lies in (x-coordinate bucket, 4 classes).")
    return raw, "region"


def _football(seed: int) -> tuple[_RawGraph, str]:
    """Girvan and Newman's college football graph as Gephi ships it (see
    ``resources/graphs/README.md``: its 'partition' is the file's, not the conferences)."""
    from pathlib import Path

    import resources

    path = Path(resources.__file__).parent / "graphs" / "football.graphml"
    graph = nx.read_graphml(path)          # our own file, shipped with the app
    graph.graph.clear()
    raw = _raw_from_nx(graph, "football")
    raw.warnings.append("Labels ('partition'): the 12 groups of Gephi's football.graphml, "
                        "most likely a fitted block model rather than the conferences.")
    return raw, "partition"
