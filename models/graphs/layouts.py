"""Node positions for drawing a graph document (numpy/torch only: no scipy): spring,
Kamada-Kawai, spectral, circular, shell, or the file's own positions."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import torch

from models.errors import InvalidParameterError
from models.graphs.document import GraphDocument
from models.graphs.options import LAYOUTS

KAMADA_KAWAI_MAX_NODES = 2000


def layout(doc: GraphDocument, kind: str, seed: int = 0) -> np.ndarray:
    """Node positions for drawing, normalised so the largest coordinate is about 1.

    Kinds: ``spring`` (Fruchterman-Reingold; fewer iterations and sampled repulsion on
    large graphs), ``kamada_kawai`` (stress majorisation of the Kamada-Kawai energy, up
    to 2000 nodes), ``spectral`` (Laplacian eigenvectors), ``circular``, ``shell`` (rings
    by label, or by degree), ``data`` (the file's positions). Disconnected graphs are
    laid out per component (kamada_kawai, spectral) and packed side by side.

    Shapes:
        returns float32[n, 2], finite.
    """
    if kind not in LAYOUTS:
        raise InvalidParameterError(f"Unknown layout {kind!r}; choose one of "
                                    f"{', '.join(LAYOUTS)}.")
    n = doc.num_nodes
    if kind == "data":
        if doc.pos is None:
            raise InvalidParameterError(f"{doc.name} has no node positions; choose another "
                                        "layout.")
        return _normalise(doc.pos.astype(np.float64))
    if n == 1:
        return np.zeros((1, 2), dtype=np.float32)
    edges = doc.edges[doc.edges[:, 0] != doc.edges[:, 1]] if len(doc.edges) else doc.edges
    if kind == "kamada_kawai" and n > KAMADA_KAWAI_MAX_NODES:
        raise InvalidParameterError(
            f"Kamada-Kawai is too slow for {n} nodes (at most {KAMADA_KAWAI_MAX_NODES}); "
            "use the spring layout.")
    if kind == "circular":
        pos = _circle(n)
    elif kind == "shell":
        pos = _shell(doc)
    elif kind == "spring":
        pos = _spring(n, edges, seed)
    else:
        method = _stress if kind == "kamada_kawai" else _spectral
        pos = _per_component(n, edges, method, seed)
    return _normalise(pos)


def _normalise(pos: np.ndarray) -> np.ndarray:
    pos = np.nan_to_num(np.asarray(pos, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    if len(pos) == 0:
        return np.zeros((0, 2), dtype=np.float32)
    pos = pos - (pos.max(axis=0) + pos.min(axis=0)) / 2
    scale = np.abs(pos).max()
    if scale > 0:
        pos = pos / scale
    return np.ascontiguousarray(pos, dtype=np.float32)


def _circle(n: int) -> np.ndarray:
    theta = 2 * np.pi * np.arange(n) / max(n, 1)
    return np.stack([np.cos(theta), np.sin(theta)], axis=1)


def _shell(doc: GraphDocument) -> np.ndarray:
    n = doc.num_nodes
    if doc.labels.max() >= 0 and len(doc.label_names) <= 12:
        ring = np.where(doc.labels >= 0, doc.labels, len(doc.label_names))
    else:
        order = np.argsort(-doc.degree, kind="stable")
        ring = np.empty(n, dtype=np.int64)
        bounds = np.cumsum([max(1, n // 10), max(1, n * 3 // 10), n])
        ring[order] = np.searchsorted(bounds, np.arange(n), side="right")
    rings = np.unique(ring)
    pos = np.zeros((n, 2))
    for r, value in enumerate(rings):
        members = np.flatnonzero(ring == value)
        radius = 0.0 if (r == 0 and len(members) == 1) else (r + 1) / len(rings)
        pos[members] = radius * _circle(len(members))
    return pos


def _spring(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    """Fruchterman-Reingold with a weak pull to the centre (keeps components together)."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1, 1, size=(n, 2))
    k = 1.0 / math.sqrt(n)
    iterations = 50 if n <= 1000 else max(10, int(50 * 1000 / n))
    sample = None if n <= 2000 else 1000
    temperature = 0.1
    for step in range(iterations):
        disp = _repulsion(pos, k, rng, sample)
        if len(edges):
            delta = pos[edges[:, 0]] - pos[edges[:, 1]]
            dist = np.maximum(np.linalg.norm(delta, axis=1, keepdims=True), 1e-4)
            pull = delta * dist / k
            np.add.at(disp, edges[:, 0], -pull)
            np.add.at(disp, edges[:, 1], pull)
        disp -= 0.05 * pos * np.linalg.norm(pos, axis=1, keepdims=True) / k
        length = np.maximum(np.linalg.norm(disp, axis=1, keepdims=True), 1e-9)
        pos += disp / length * np.minimum(length, temperature)
        temperature = 0.1 * (1 - (step + 1) / (iterations + 1))
    return pos


def _repulsion(pos: np.ndarray, k: float, rng, sample: int | None) -> np.ndarray:
    """sum_j k^2 (x_i - x_j) / |x_i - x_j|^2, over all j or a random sample (rescaled).

    Written as ``k^2 (x_i sum_j c_ij - sum_j c_ij x_j)`` with ``c_ij = 1 / d_ij^2``, so
    only [n, m] matrices are formed.
    """
    n = len(pos)
    others = pos if sample is None else pos[rng.choice(n, size=sample, replace=False)]
    scale = 1.0 if sample is None else n / sample
    disp = np.empty_like(pos)
    rows = max(1, 4_000_000 // len(others))
    for start in range(0, n, rows):
        block = pos[start:start + rows]
        inv = 1.0 / np.maximum(_squared_distances(block, others), 1e-6)
        if sample is None:
            inv[np.arange(len(block)), np.arange(start, start + len(block))] = 0.0
        disp[start:start + rows] = block * inv.sum(1, keepdims=True) - inv @ others
    return scale * k * k * disp


def _squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Shapes: a float64[n, 2], b float64[m, 2] -> float64[n, m]."""
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.maximum(d2, 0.0)


def _components(n: int, edges: np.ndarray) -> list[np.ndarray]:
    parent = np.arange(n)

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for u, v in edges.tolist():
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
    roots = np.array([find(i) for i in range(n)])
    order = np.argsort(roots, kind="stable")
    split = np.flatnonzero(np.diff(roots[order])) + 1
    parts = np.split(order, split)
    return sorted(parts, key=len, reverse=True)


def _per_component(n: int, edges: np.ndarray, method, seed: int) -> np.ndarray:
    """Lay out each connected component on its own, then pack them in rows."""
    parts = _components(n, edges)
    local = np.full(n, -1, dtype=np.int64)
    placed = []
    for members in parts:
        if len(members) <= 2:
            sub = np.array([[0.0, 0.0], [1.0, 0.0]])[:len(members)]
        else:
            local[members] = np.arange(len(members))
            mask = np.isin(edges[:, 0], members)
            sub_edges = local[edges[mask]]
            sub = method(len(members), sub_edges, seed)
        sub = sub - sub.mean(axis=0)
        extent = np.abs(sub).max()
        size = math.sqrt(len(members))
        placed.append(sub / extent * size / 2 if extent > 0 else sub)
    return _pack(parts, placed, n)


def _pack(parts, placed, n: int) -> np.ndarray:
    width = max(math.sqrt(sum(len(p) for p in parts)) * 1.5, math.sqrt(len(parts[0])) + 1)
    pos = np.zeros((n, 2))
    x = y = row_height = 0.0
    for members, sub in zip(parts, placed, strict=True):
        size = math.sqrt(len(members)) + 1
        if x > 0 and x + size > width:
            x, y, row_height = 0.0, y - row_height, 0.0
        pos[members] = sub + np.array([x + size / 2, y - size / 2])
        x += size
        row_height = max(row_height, size)
    return pos


#: frontier expansion costs n² per hop; past this many hops (a long chain) one BFS per
#: source is cheaper (measured at n = 2000: 11 ms a hop against 1.3-1.7 s for all BFS)
FRONTIER_MAX_HOPS = 128


def _hop_distances(n: int, edges: np.ndarray) -> np.ndarray:
    """All-pairs hop counts of a connected graph by frontier expansion (sparse matmul),
    or by networkx's BFS from every node when the graph is a long chain.

    Shapes: returns float64[n, n].
    """
    both = np.concatenate([edges, edges[:, ::-1]])
    adj = torch.sparse_coo_tensor(torch.from_numpy(both.T.copy()), torch.ones(len(both)),
                                  (n, n), check_invariants=True).coalesce()
    dist = torch.full((n, n), float("inf"))
    reached = torch.eye(n, dtype=torch.bool)
    frontier = torch.eye(n)
    dist[reached] = 0
    for hop in range(1, n):
        if hop > FRONTIER_MAX_HOPS:
            return _hop_distances_bfs(n, edges)
        frontier = (torch.sparse.mm(adj, frontier) > 0) & ~reached
        if not frontier.any():
            break
        dist[frontier] = hop
        reached |= frontier
        frontier = frontier.float()
    return dist.double().numpy()


def _hop_distances_bfs(n: int, edges: np.ndarray) -> np.ndarray:
    """The same hop counts by one BFS per node. Shapes: returns float64[n, n]."""
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges.tolist())
    dist = np.full((n, n), np.inf)
    for source, lengths in nx.all_pairs_shortest_path_length(graph):
        dist[source, np.fromiter(lengths.keys(), np.int64)] = np.fromiter(lengths.values(),
                                                                          np.float64)
    return dist


def _stress(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    """Kamada-Kawai energy sum_ij (|x_i - x_j| - d_ij)^2 / d_ij^2, minimised by stress
    majorisation (Gansner, Koren & North 2004), started from classical MDS."""
    d = _hop_distances(n, edges)
    pos = _classical_mds(d, seed)
    w = np.zeros_like(d)
    off = d > 0
    w[off] = d[off] ** -2
    wsum = w.sum(axis=1, keepdims=True)
    for _ in range(100 if n <= 500 else 50):
        norm = np.maximum(np.sqrt(_squared_distances(pos, pos)), 1e-9)
        coef = w * d / norm
        pos = (w @ pos + coef.sum(1, keepdims=True) * pos - coef @ pos) / wsum
    return pos


def _classical_mds(d: np.ndarray, seed: int) -> np.ndarray:
    n = len(d)
    d2 = d ** 2
    b = -0.5 * (d2 - d2.mean(0) - d2.mean(1)[:, None] + d2.mean())
    return _top_eigenvectors(lambda v: b @ v, n, seed, iterations=100) * math.sqrt(max(d.max(), 1.0))


def _top_eigenvectors(matvec, n: int, seed: int, deflate: np.ndarray | None = None,
                      iterations: int = 200) -> np.ndarray:
    """Two dominant eigenvectors by orthogonal (subspace) iteration.

    Shapes: returns float64[n, 2].
    """
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 2))
    for _ in range(iterations):
        if deflate is not None:
            v -= deflate[:, None] * (deflate @ v)[None, :]
        v, _ = np.linalg.qr(matvec(v))
    return v


def _spectral(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    """Eigenvectors 2 and 3 of the normalised Laplacian (dense up to 1500 nodes)."""
    degree = np.bincount(edges.reshape(-1), minlength=n).astype(np.float64)
    inv_sqrt = 1.0 / np.sqrt(np.maximum(degree, 1.0))
    if n <= 1500:
        a = np.zeros((n, n))
        np.add.at(a, (edges[:, 0], edges[:, 1]), 1.0)
        np.add.at(a, (edges[:, 1], edges[:, 0]), 1.0)
        lap = np.eye(n) - inv_sqrt[:, None] * a * inv_sqrt[None, :]
        _, vectors = np.linalg.eigh(lap)
        return vectors[:, 1:3] * inv_sqrt[:, None]
    trivial = np.sqrt(degree) / np.linalg.norm(np.sqrt(degree))

    def matvec(v):  # (I + D^-1/2 A D^-1/2) / 2
        scaled = v * inv_sqrt[:, None]
        out = np.zeros_like(v)
        np.add.at(out, edges[:, 0], scaled[edges[:, 1]])
        np.add.at(out, edges[:, 1], scaled[edges[:, 0]])
        return (v + out * inv_sqrt[:, None]) / 2

    return _top_eigenvectors(matvec, n, seed, deflate=trivial, iterations=300) * \
        inv_sqrt[:, None]
