"""The prototypical network's two planes: an episode in the input (the learned regions
or the baseline's, nearest class mean) and in the embedding. Both see the episode's
``ProtoTrace``."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.tabs.view import TabView, ViewData
from models.meta.options import MetaRequest
from models.traces.meta import ProtoTrace
from viz.meta_view import ProtoPlane

translate = QCoreApplication.translate


def _episode_meta(e: ProtoTrace) -> dict:
    return {"n_way": e.n_way, "k_shot": e.k_shot, "family": e.family, "seed": e.seed,
            "trained_episodes": e.step, "accuracy": e.accuracy,
            "baseline_accuracy": e.baseline_accuracy}


def _points_table(e: ProtoTrace, support: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Rows (x, y, class, query?) of an episode's support then query points, in the input
    or the embedding plane."""
    labels = np.concatenate([e.support_y, e.query_y]).astype(np.float32)
    role = np.r_[np.zeros(len(support)), np.ones(len(query))].astype(np.float32)
    return np.concatenate([np.concatenate([support, query]), labels[:, None],
                           role[:, None]], 1)


class ProtoInputView(TabView):
    key = "proto_input"

    def build(self) -> ProtoPlane:
        return ProtoPlane()

    def title(self) -> str:
        if self.request is not None and self.request.input_regions == "baseline":
            return translate("MetaTab", "Input space: nearest class mean (baseline)")
        return translate("MetaTab", "Prototypical network: input space")

    def label(self) -> None:
        self.plot.set_axis_labels("x₁", "x₂")

    def draw(self, e: ProtoTrace, ask: MetaRequest) -> None:
        if ask.input_regions == "baseline":
            d = ((e.query_x[:, None, :] - e.baseline_prototypes[None]) ** 2).sum(-1)
            wrong_in = d.argmin(1) != e.query_y
            self.plot.show_episode(e.regions_baseline, e.extent_input, e.support_x,
                                   e.support_y, e.query_x, e.query_y, wrong_in,
                                   e.baseline_prototypes)
        else:
            wrong_in = e.query_pred != e.query_y
            self.plot.show_episode(e.regions_input, e.extent_input, e.support_x,
                                   e.support_y, e.query_x, e.query_y, wrong_in)
        self.set_readout(translate(
            "MetaTab", "query accuracy: learned {0:.0%} · input baseline {1:.0%}").format(
                e.accuracy, e.baseline_accuracy))

    def data(self) -> ViewData | None:
        e = self.trace
        if e is None:
            return None
        table = _points_table(e, e.support_x, e.query_x)
        return ViewData("points", {"points": table, "regions": e.regions_input,
                                   "regions_baseline": e.regions_baseline,
                                   "class_means": e.baseline_prototypes},
                        {**_episode_meta(e), "extent": list(e.extent_input)},
                        col_labels=["x", "y", "class", "query"])


class ProtoEmbeddingView(TabView):
    key = "proto_embedding"

    def build(self) -> ProtoPlane:
        return ProtoPlane()

    def title(self) -> str:
        return translate("MetaTab", "Prototypical network: embedding")

    def label(self) -> None:
        self.plot.set_axis_labels(translate("MetaTab", "embedding f(x)₁"),
                                  translate("MetaTab", "embedding f(x)₂"))

    def draw(self, e: ProtoTrace, ask: MetaRequest) -> None:
        self.plot.show_episode(e.regions_embedding, e.extent_embedding, e.support_emb,
                               e.support_y, e.query_emb, e.query_y,
                               e.query_pred != e.query_y, e.prototypes)
        self.set_readout(translate("MetaTab", "● support  ○ query  ★ prototype  ✕ wrong"))

    def data(self) -> ViewData | None:
        e = self.trace
        if e is None:
            return None
        table = _points_table(e, e.support_emb, e.query_emb)
        return ViewData("embedded", {"embedded": table, "prototypes": e.prototypes,
                                     "regions": e.regions_embedding},
                        {**_episode_meta(e), "extent": list(e.extent_embedding)},
                        col_labels=["e1", "e2", "class", "query"])
