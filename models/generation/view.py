"""The generation view's background computations, each returning frozen traces.

* ``generation_data``: a family of graphs (made in code, or the graphs of a folder) split
  into training and held-out graphs, as a ``GenerationData`` (no torch);
* ``baseline_comparison``: the classical baselines fitted to the training graphs, sampled,
  scored on the held-out graphs (GraphRNN's MMD), laid out for the gallery (no torch);
* ``learned_comparison``: the same for a trained GraphRNN session, sampled with the
  weights its self-scoring kept (``GraphRNNGenerator.sample_best``);
* ``merge_comparisons``: both as one ``GenerationTrace``, the learned row first;
* ``read_graph_folder``: a folder of the student's graphs as a ``GraphSet``;
* ``make_session``: the GraphRNN training session for a family's training graphs.

Gallery positions are networkx's spring layout (Fruchterman–Reingold), seeded, each
graph scaled into the unit square, so the same graphs are drawn the same way every time.
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError
from models.generation.baselines import BASELINES
from models.generation.datasets import make_dataset, split_graphs
from models.generation.metrics import STATISTICS, mmd_table
from models.generation.options import MAX_SHOWN, SAMPLES, GenerationRequest
from models.generation.prior import check_graphs, edge_array
from models.traces import Progress
from models.traces.generation import GenerationData, GenerationTrace, GenerationView, GraphSet

__all__ = ["generation_view", "generation_data", "request_data", "baseline_comparison", "learned_comparison",
           "merge_comparisons", "read_graph_folder", "make_session", "unpack_graphs",
           "laid_out", "FOLDER"]

#: ``GenerationData.dataset`` of a folder of the student's own graphs
FOLDER = "folder"


def unpack_graphs(graphs: GraphSet, index: Sequence[int] | None = None) -> list[nx.Graph]:
    """The graphs of ``graphs`` (those of ``index``, in that order) as networkx graphs."""
    out = []
    for i in range(len(graphs)) if index is None else index:
        n, edges = graphs.graph(int(i))
        g = nx.empty_graph(n)
        g.add_edges_from(map(tuple, edges.tolist()))
        out.append(g)
    return out


def pack(graphs: Sequence[nx.Graph]) -> GraphSet:
    return GraphSet.pack([(g.number_of_nodes(), edge_array(g)) for g in graphs])


def laid_out(graphs: GraphSet, seed: int = 0) -> GraphSet:
    """``graphs`` with ``positions``: each graph's spring layout (seeded) scaled into the
    unit square, aspect kept and centred; a graph of one node sits in the middle."""
    parts = []
    for g in unpack_graphs(graphs):
        pos = nx.spring_layout(g, seed=seed) if g.number_of_nodes() > 1 else {0: (0.0, 0.0)}
        xy = np.asarray([pos[v] for v in range(g.number_of_nodes())], np.float64)
        lo, hi = xy.min(0), xy.max(0)
        span = float((hi - lo).max())
        xy = (xy - (lo + hi) / 2) / (span if span > 0 else 1.0) + 0.5
        parts.append(xy.astype(np.float32))
    positions = np.concatenate(parts) if parts else np.zeros((0, 2), np.float32)
    return replace(graphs, positions=positions)


def _entropy(p: float) -> float:
    if not 0.0 < p < 1.0:
        return 0.0
    return float(-(p * math.log(p) + (1 - p) * math.log(1 - p)))


def generation_data(dataset: str, seed: int = 0, count: int = 150,
                    graphs: GraphSet | None = None, name: str = "",
                    held_out: float = 0.2) -> GenerationData:
    """The family ``dataset`` (one of ``DATASETS``, ``count`` graphs made with ``seed``),
    or, for ``dataset == FOLDER``, ``graphs`` (read from the folder ``name``), split by
    ``seed`` into training and held-out graphs.

    A family made in code is made once per (dataset, seed, count, held_out) among the last
    few asked for, and the same frozen ``GenerationData`` is returned again: opening a
    session, a training and the baselines' job each asked for it, and remaking the 150
    community graphs held the GUI thread 80-240 ms at each File → Open session."""
    if dataset != FOLDER:
        return _made_family(dataset, seed, count, held_out)
    return _generation_data(dataset, seed, count, graphs, name, held_out)


@functools.lru_cache(maxsize=4, typed=True)   # 150 and 150.0 are not one request
def _made_family(dataset: str, seed: int, count: int, held_out: float) -> GenerationData:
    return _generation_data(dataset, seed, count, None, "", held_out)


def _generation_data(dataset: str, seed: int, count: int, graphs: GraphSet | None,
                     name: str, held_out: float) -> GenerationData:
    if dataset == FOLDER:
        if graphs is None or len(graphs) == 0:
            raise InvalidParameterError("Open a folder of graphs first.")
        family = check_graphs(unpack_graphs(graphs))
        packed = graphs
        digest = hashlib.sha1(np.ascontiguousarray(graphs.num_nodes).tobytes()
                              + np.ascontiguousarray(graphs.edges).tobytes()).hexdigest()[:16]
        count = len(graphs)
    else:
        family = make_dataset(dataset, count, seed)
        packed, digest, name = pack(family), "", dataset
    order = np.arange(len(family))
    # the split's own shuffle, on indices: the same split ``split_graphs`` makes
    train_i, test_i = split_graphs(list(order), held_out=held_out, seed=seed)
    train = [family[i] for i in train_i]
    edges = sum(g.number_of_edges() for g in train)
    pairs = sum(g.number_of_nodes() * (g.number_of_nodes() - 1) // 2 for g in train)
    density = edges / pairs if pairs else 0.0
    return GenerationData(dataset=dataset, name=name, seed=int(seed), count=int(count),
                          graphs=packed, train_index=np.asarray(train_i, np.int64),
                          test_index=np.asarray(test_i, np.int64), density=float(density),
                          entropy=_entropy(density), fingerprint=digest)


def _split(data: GenerationData) -> tuple[list[nx.Graph], list[nx.Graph]]:
    return (unpack_graphs(data.graphs, data.train_index),
            unpack_graphs(data.graphs, data.test_index))


def _comparison(data: GenerationData, test: list[nx.Graph], rows: dict[str, list[nx.Graph]],
                seconds: list[float], shown: int, samples: int, kernel: str,
                training: GraphSet | None = None, reference: np.ndarray | None = None,
                **extra) -> GenerationTrace:
    methods = tuple(rows)
    table = mmd_table(test, rows, kernel=kernel) if rows else np.zeros((0, len(STATISTICS)))
    if training is None:
        training = laid_out(data.graphs.subset(data.train_index[:shown]), data.seed)
    if reference is None:
        reference = mmd_table(test, {"training": unpack_graphs(
            data.graphs, data.train_index)}, kernel=kernel)[0]
    return GenerationTrace(
        dataset=data.name, methods=methods, statistics=STATISTICS, training=training,
        samples=tuple(laid_out(pack(rows[m][:shown]), data.seed) for m in methods),
        mmd=np.asarray(table, np.float32).reshape(len(methods), len(STATISTICS)),
        reference_mmd=np.asarray(reference, np.float32), seconds=np.asarray(seconds),
        held_out=len(test), train_count=len(data.train_index), kernel=kernel,
        seed=data.seed, **extra)


def baseline_comparison(data: GenerationData, methods: Sequence[str] = tuple(BASELINES),
                        samples: int = 100, shown: int = 6,
                        kernel: str = "emd") -> GenerationTrace:
    """The baselines of ``methods`` (the learned ones are left out) fitted to the
    training graphs, ``samples`` graphs drawn from each (seed + 1) and scored on the
    held-out graphs; ``shown`` of each laid out for the gallery, the training graphs'
    first ``shown`` too. With no baseline: the training graphs and the reference row."""
    train, test = _split(data)
    rows, seconds = {}, []
    for method in (m for m in methods if m in BASELINES):
        t0 = time.perf_counter()
        rows[method] = BASELINES[method](train, seed=data.seed).sample(samples,
                                                                         seed=data.seed + 1)
        seconds.append(time.perf_counter() - t0)
    return _comparison(data, test, rows, seconds, shown, samples, kernel)


def learned_comparison(data: GenerationData, session, samples: int = 100, shown: int = 6,
                       kernel: str = "emd") -> Iterator[Progress]:
    """GraphRNN (``session``, trained on ``data``'s training graphs) sampled with its best
    scored weights and scored on the held-out graphs. Yields a ``Progress`` as it samples
    and scores; the last one's ``trace`` is the one-row ``GenerationTrace`` (with the
    session's loss curve and the step whose weights sampled)."""
    yield Progress(step=0, total=3, loss=float("nan"), message="sampling")
    train, test = _split(data)
    t0 = time.perf_counter()
    graphs = session.sample_best(samples, seed=data.seed + 1)
    seconds = time.perf_counter() - t0
    yield Progress(step=1, total=3, loss=float("nan"), message="scoring")
    with session.lock:
        losses = np.asarray(session.losses, np.float32)
        best, steps = session.best_shown_step(), session.step
    result = _comparison(data, test, {"graphrnn": graphs}, [seconds], shown, samples, kernel,
                         losses=losses, best_step=best)
    yield Progress(step=3, total=3, loss=float(losses[-1]) if len(losses) else float("nan"),
                   trace=result, message="done", metrics={"steps": float(steps)})


def merge_comparisons(learned: GenerationTrace | None,
                      baselines: GenerationTrace | None) -> GenerationTrace | None:
    """One comparison: the learned rows first, then the baselines; the training graphs and
    the reference row are the baselines' (the same graphs)."""
    if learned is None or baselines is None:
        return baselines if learned is None else learned
    return replace(baselines, methods=(*learned.methods, *baselines.methods),
                   samples=(*learned.samples, *baselines.samples),
                   mmd=np.concatenate([learned.mmd, baselines.mmd]),
                   seconds=np.concatenate([learned.seconds, baselines.seconds]),
                   losses=learned.losses, best_step=learned.best_step)


def request_data(ask: GenerationRequest, graphs: GraphSet | None = None,
                 name: str = "") -> GenerationData:
    """``generation_data`` of the family ``ask`` names (``graphs`` of the folder ``name``
    when its dataset is the folder)."""
    return generation_data(ask.dataset, ask.seed, ask.count,
                           graphs=graphs if ask.is_folder else None,
                           name=name if ask.is_folder else "")


def generation_view(ask: GenerationRequest, graphs: GraphSet | None = None, name: str = "",
                    reuse: GenerationView | None = None) -> GenerationView:
    """``generation_data`` and ``baseline_comparison`` of the request ``ask`` for the view
    (``SAMPLES`` graphs of each baseline scored, ``MAX_SHOWN`` laid out); ``reuse`` is
    returned as it is when it is of the same family and baselines (no refit, same wall
    times)."""
    data = request_data(ask, graphs, name)
    baselines = tuple(m for m in ask.baselines if m in BASELINES)
    if reuse is not None and reuse.data.key == data.key and \
            reuse.baselines.methods == baselines:
        return reuse
    return GenerationView(data=data, baselines=baseline_comparison(
        data, baselines, samples=SAMPLES, shown=MAX_SHOWN))


def read_graph_folder(path: str, progress: Callable[[float], None] | None = None,
                      cancelled: Callable[[], bool] | None = None) -> GraphSet:
    """The graph files of the folder ``path`` (``load_graph_folder``'s checks and
    refusals) as a ``GraphSet``."""
    from models.generation.folder import load_graph_folder

    return pack(load_graph_folder(path, cancelled=cancelled, progress=progress))


def make_session(data: GenerationData, device: str = "cpu", **options):
    """A GraphRNN training session on ``data``'s training graphs, seeded with its seed."""
    from models.generation.graphrnn import GraphRNNGenerator

    return GraphRNNGenerator(unpack_graphs(data.graphs, data.train_index), seed=data.seed,
                             device=device, **options)
