"""Export data of the meta-learning tab's views: the arrays behind each view, from what
the tab holds (its ``MetaResult``, its evaluation and its session's loss lists)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.tabs.base import ViewData

if TYPE_CHECKING:
    from app.tabs.meta.tab import MetaTab


def adapt_data(tab: MetaTab) -> ViewData | None:
    r = tab.result
    if r is None:
        return None
    t, task = r.adapt, r.task
    s = tab.steps_slider.value()
    table = np.concatenate([t.x_grid[:, None], task.y_grid[:, None],
                            t.predictions[:, s].T], 1)
    return ViewData("curves", {"curves": table, "predictions": t.predictions,
                               "support": np.stack([t.x_support, t.y_support], 1)},
                    {"amplitude": task.amplitude, "phase": task.phase,
                     "steps_shown": s, "inner_lr": t.inner_lr,
                     "methods": list(t.methods), "meta_step": r.meta_step},
                    row_labels=None,
                    col_labels=["x", "true", *[f"{m}_step{s}" for m in t.methods]])


def mse_data(tab: MetaTab) -> ViewData | None:
    e = tab.eval_result
    if e is None:
        return None
    table = np.concatenate([e.mse.T, e.ci95.T], 1)
    return ViewData("mse", {"mse": table, "mse_mean": e.mse, "ci95": e.ci95},
                    {"n_tasks": e.n_tasks, "k": e.k, "amp_max": e.amp_max,
                     "meta_step": e.step, "methods": list(e.methods)},
                    row_labels=list(range(e.steps + 1)),
                    col_labels=[f"mse_{m}" for m in e.methods]
                    + [f"ci95_{m}" for m in e.methods])


def loss_data(tab: MetaTab) -> ViewData | None:
    s = tab.session
    if s is None or s.step == 0:
        return None
    n = min(len(s.losses[m]) for m in s.methods)
    table = np.asarray([s.losses[m][:n] for m in s.methods], np.float32).T
    return ViewData("loss", {"loss": table},
                    {"methods": list(s.methods), "k": s.k, "inner_lr": s.inner_lr,
                     "inner_steps": s.inner_steps, "meta_batch": s.meta_batch,
                     "meta_lr": s.meta_lr},
                    row_labels=list(range(1, n + 1)), col_labels=list(s.methods))


def _episode_meta(e) -> dict:
    return {"n_way": e.n_way, "k_shot": e.k_shot, "family": e.family, "seed": e.seed,
            "trained_episodes": e.step, "accuracy": e.accuracy,
            "baseline_accuracy": e.baseline_accuracy}


def _points_table(e, support: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Rows (x, y, class, query?) of an episode's support then query points, in the input
    or the embedding plane."""
    labels = np.concatenate([e.support_y, e.query_y]).astype(np.float32)
    role = np.r_[np.zeros(len(support)), np.ones(len(query))].astype(np.float32)
    return np.concatenate([np.concatenate([support, query]), labels[:, None],
                           role[:, None]], 1)


def proto_input_data(tab: MetaTab) -> ViewData | None:
    e = tab.result.episode if tab.result is not None else None
    if e is None:
        return None
    table = _points_table(e, e.support_x, e.query_x)
    return ViewData("points", {"points": table, "regions": e.regions_input,
                               "regions_baseline": e.regions_baseline,
                               "class_means": e.baseline_prototypes},
                    {**_episode_meta(e), "extent": list(e.extent_input)},
                    col_labels=["x", "y", "class", "query"])


def proto_embedding_data(tab: MetaTab) -> ViewData | None:
    e = tab.result.episode if tab.result is not None else None
    if e is None:
        return None
    table = _points_table(e, e.support_emb, e.query_emb)
    return ViewData("embedded", {"embedded": table, "prototypes": e.prototypes,
                                 "regions": e.regions_embedding},
                    {**_episode_meta(e), "extent": list(e.extent_embedding)},
                    col_labels=["e1", "e2", "class", "query"])
