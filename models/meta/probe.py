"""The meta-learning tab's background computations, each returning one frozen trace.

They run in a worker thread while training may run in another: the sessions' own
methods take their locks. Both take the tab's ``MetaRequest`` (checked when it was made).
"""

from __future__ import annotations

import numpy as np

from models.meta.options import ADAPT_STEPS, EVAL_TASKS, MetaRequest
from models.meta.proto import ProtoSession
from models.meta.session import MetaSession
from models.traces import MetaEvalTrace, ProtoTrace
from models.traces.meta import MetaResult, SineTask

__all__ = ["meta_result", "meta_evaluation"]


def meta_result(session: MetaSession, proto: ProtoSession, ask: MetaRequest,
                support: np.ndarray | None, episode_key: tuple,
                episode: ProtoTrace | None) -> MetaResult:
    """The test task, every method adapted to its support points (or the student's), and
    the prototypical-network episode (reused when nothing about it changed). Any thread."""
    task = session.test_task(ask.task_seed, k=ask.k, amp_max=ask.amp_max)
    if support is None:
        xs, ys = task["x_support"], task["y_support"]
    else:
        xs, ys = support[:, 0], support[:, 1]
    adapt = session.adapt_curves(xs, ys, task["x_grid"], steps=ADAPT_STEPS)
    if episode is None:
        episode = proto.episode(ask.episode_seed)
    return MetaResult(task=SineTask(**task), adapt=adapt, episode=episode,
                      episode_key=episode_key, meta_step=session.step,
                      task_key=ask.task_key)


def meta_evaluation(session: MetaSession, ask: MetaRequest) -> MetaEvalTrace:
    """The session's MSE after 0 … 10 steps over the test tasks (K and the largest
    amplitude of ``ask``). Any thread."""
    return session.evaluate(EVAL_TASKS, k=ask.k, steps=ADAPT_STEPS, amp_max=ask.amp_max)
