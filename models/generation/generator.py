"""``train_generator``: one call that fits any generator of ``METHODS`` to a list of graphs.

A learned method (``graphrnn``) is a ``TrainingSession``: a tab iterates its ``train(steps)``
itself (loss per step, Stop by no longer iterating) and samples when it likes; this
function does the same with an optional ``progress`` callback that sees every ``Progress``
and stops training by returning True. Baselines are fitted at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import networkx as nx

from models.errors import InvalidParameterError
from models.generation.baselines import BASELINES
from models.generation.options import DEFAULT_STEPS, METHODS
from models.generation.prior import check_count
from models.traces import Progress

__all__ = ["make_generator", "train_generator"]


def make_generator(graphs: Sequence[nx.Graph], seed: int = 0, method: str = "graphrnn",
                   **options):
    """An untrained learned generator, or a fitted baseline (``options`` go to its
    constructor: e.g. ``hidden``, ``lr``, ``batch_size``, ``select_every`` for
    ``graphrnn``)."""
    if method not in METHODS:
        raise InvalidParameterError(
            f"Unknown generator {method!r}; choose one of {', '.join(METHODS)}.")
    if method in BASELINES:
        if options:
            raise InvalidParameterError(
                f"The {method} baseline takes no options, got {', '.join(options)}.")
        return BASELINES[method](graphs, seed=seed)
    from models.generation.graphrnn import GraphRNNGenerator
    return GraphRNNGenerator(graphs, seed=seed, **options)


def train_generator(graphs: Sequence[nx.Graph], seed: int = 0, method: str = "graphrnn",
                    steps: int | None = None,
                    progress: Callable[[Progress], bool | None] | None = None, **options):
    """Fit ``method`` to ``graphs`` and return it; ``.sample(n, seed=0)`` then gives ``n``
    networkx graphs.

    A learned method trains ``steps`` steps (``DEFAULT_STEPS`` when None), calling
    ``progress(p)`` after each; a True return stops training there. It then goes back to
    the weights its self-scoring liked best (``use_best``; see ``models.generation.graphrnn``).
    """
    model = make_generator(graphs, seed=seed, method=method, **options)
    if method in BASELINES:
        return model
    steps = DEFAULT_STEPS[method] if steps is None else check_count(steps, "steps")
    for p in model.train(steps):
        if progress is not None and progress(p):
            break
    model.use_best()
    return model
