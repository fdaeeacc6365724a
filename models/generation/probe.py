"""The generation view's background computation: fit every generator to the training
graphs, sample, score on held-out graphs, and return one frozen ``GenerationTrace``.

``compare_generators`` is a generator of ``Progress`` (stop by no longer iterating): the
learned model reports every training step (its loss, message "graphrnn"), each baseline
once when fitted, and the last ``Progress`` carries the trace.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import networkx as nx
import numpy as np

from models.errors import InvalidParameterError
from models.generation.baselines import BASELINES
from models.generation.datasets import make_dataset, split_graphs
from models.generation.generator import make_generator
from models.generation.metrics import STATISTICS, mmd_table
from models.generation.options import DEFAULT_STEPS, METHODS
from models.generation.prior import check_count, check_graphs, edge_array
from models.traces import Progress
from models.traces.generation import GenerationTrace, GraphSet

__all__ = ["compare_generators", "generation_result", "pack_graphs"]


def pack_graphs(graphs: Sequence[nx.Graph]) -> GraphSet:
    """The graphs (on ``0 … n-1``) as a ``GraphSet``."""
    return GraphSet.pack([(g.number_of_nodes(), edge_array(g)) for g in graphs])


def compare_generators(graphs: str | Sequence[nx.Graph], methods: Sequence[str] = METHODS,
                       seed: int = 0, count: int = 150, held_out: float = 0.2,
                       steps: int | None = None, samples: int = 100, shown: int = 12,
                       kernel: str = "emd", **options) -> Iterator[Progress]:
    """Fit ``methods`` on the training share of ``graphs`` (a dataset name of ``DATASETS``,
    made with ``count`` graphs and ``seed``, or a list of graphs), draw ``samples`` graphs
    from each and score them on the held-out share (``held_out``); ``options`` go to the
    learned model. Yields ``Progress``; the last one's ``trace`` is the
    ``GenerationTrace``."""
    methods = tuple(methods)
    unknown = [m for m in methods if m not in METHODS]
    if not methods or unknown:
        raise InvalidParameterError(
            f"Unknown generator(s) {', '.join(unknown) or '(none given)'}; choose from "
            f"{', '.join(METHODS)}.")
    samples, shown = check_count(samples, "samples"), check_count(shown, "shown")
    if samples < 1:
        raise InvalidParameterError("samples must be at least 1.")
    name = graphs if isinstance(graphs, str) else "your graphs"
    family = make_dataset(graphs, count, seed) if isinstance(graphs, str) else graphs
    train, test = split_graphs(check_graphs(family), held_out=held_out, seed=seed)
    learned = [m for m in methods if m not in BASELINES]
    total = sum(DEFAULT_STEPS[m] if steps is None else steps for m in learned) + \
        len(methods) - len(learned)
    done, rows, seconds = 0, {}, []
    losses, best_step = np.zeros(0, np.float32), 0
    for method in methods:
        t0 = time.perf_counter()
        if method in BASELINES:
            model = make_generator(train, seed=seed, method=method)
        else:
            model = make_generator(train, seed=seed, method=method, **options)
            n_steps = DEFAULT_STEPS[method] if steps is None else check_count(steps, "steps")
            for p in model.train(n_steps, every=max(1, n_steps // 20)):
                done += 1
                yield Progress(step=done, total=total, loss=p.loss, metrics=p.metrics,
                               history=p.history, message=method)
            best_step = model.use_best()
            losses = np.asarray(model.losses, np.float32)
        rows[method] = model.sample(samples, seed=seed + 1)
        seconds.append(time.perf_counter() - t0)
        if method in BASELINES:
            done += 1
            yield Progress(step=done, total=total, loss=float("nan"), message=method)
    table = mmd_table(test, rows, kernel=kernel)
    reference = mmd_table(test, {"training": train}, kernel=kernel)[0]
    result = GenerationTrace(
        dataset=name, methods=methods, statistics=STATISTICS,
        training=pack_graphs(train[:shown]),
        samples=tuple(pack_graphs(rows[m][:shown]) for m in methods),
        mmd=table, reference_mmd=reference, seconds=np.asarray(seconds),
        held_out=len(test), train_count=len(train), kernel=kernel, losses=losses,
        best_step=best_step, seed=seed)
    yield Progress(step=total, total=total, loss=float(losses[-1]) if len(losses) else 0.0,
                   trace=result, message="done")


def generation_result(graphs: str | Sequence[nx.Graph], **kwargs) -> GenerationTrace:
    """``compare_generators`` run to the end: its trace."""
    last = None
    for p in compare_generators(graphs, **kwargs):
        last = p
    return last.trace
